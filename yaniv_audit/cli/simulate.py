"""``simulate``: legal games played by bots, written as logs."""

from __future__ import annotations

from pathlib import Path

import click

from .options import (
    EXIT_BAD_INPUT,
    EXIT_USAGE,
    Choice,
    force_option,
    refuse_to_overwrite,
    resolve_or_usage,
    rules_option,
    rules_or_house,
    writable_directory,
)
from .render import fail, note, progress


@click.command()
@rules_option()
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=4,
    show_default=True,
    help="players at each game",
)
@click.option(
    "--games", type=click.IntRange(min=1), default=1, show_default=True, help="games to play"
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="the seed of every game's deals and bots: the same seed, the same bytes",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    metavar="NAME",
    help="random, greedy or careful; repeat to seat several (default: careful)",
)
@click.option(
    "--record",
    "record",
    default="full",
    show_default=True,
    type=Choice(["full", "no_stock", "no_upcard", "hands_only", "scoresheet", "mixed"]),
    help="what the log writes down of each round (the styles are above)",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(),
    help="a directory (one game-NNNNN.jsonl per game) or, for one game, a .jsonl file",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="processes to play the games on (default: all cores); the logs are the "
    "same bytes whatever the number",
)
@force_option("a log (a .jsonl file, or a directory's game-NNNNN.jsonl)")
def simulate(
    rules_specs: str | None,
    players: int,
    games: int,
    seed: int,
    bots: tuple[str, ...],
    record: str,
    out: str,
    jobs: int | None,
    force: bool,
) -> None:
    """Write legal games played by bots (deterministic for the same arguments).

    The bots always play with everything known; --record chooses what the log
    keeps, as tables write games down:

    \b
      full        hands, upcard, the stock (top first), every move, and each
                  reshuffle with its new stock (the default)
      no_stock    hands and upcard; no stock in round_started or reshuffle, so
                  every stock draw names its card
      no_upcard   hands and stock, no upcard (the pile draw of the upcard
                  names it, as every pile draw does)
      hands_only  hands only; stock draws name their card
      scoresheet  no moves: round_started without hands, then the showdown
                  (caller, or null when the stock ended the round under
                  reshuffle=round_ends; the hands of everyone still in) and
                  round_ended
      mixed       each round one of the five above, chosen by the seed

    Rounds of the other styles that record moves also vary as tables do: a
    stock draw whose card the recorded stock fixes names it or not; a reshuffle
    is written with its stock (when the round records the stock), without it,
    or not at all; one showdown in four and one round_ended in eight are left
    out. The game played is the same in every style; only the record differs.

    Each game is seeded from the arguments and its number alone, so --jobs
    only changes how fast the games come: they are written in game order.
    """
    # heavy (the engine): imported when used, for start-up time
    from ..batch.bulk import mapped
    from ..batch.simulate import BOTS, SimulationError, check_arguments, simulate_log

    rules = rules_or_house(rules_specs) or resolve_or_usage("israeli")
    for name in bots:
        if name not in BOTS:
            raise click.BadParameter(
                f"unknown bot {name!r}; expected one of {', '.join(BOTS)}", param_hint="--bot"
            )
    try:
        check_arguments(rules, players, bots, record)
    except SimulationError as exc:
        fail(str(exc), EXIT_USAGE)
    target = Path(out)
    single = target.suffix == ".jsonl"
    if single and games != 1:
        raise click.BadParameter(
            "a .jsonl file holds one game; give a directory for --games > 1", param_hint="--out"
        )
    if single and target.is_dir():
        raise click.BadParameter(
            f"{out}: is a directory; give a directory without .jsonl for games in it, or a "
            "file's path",
            param_hint="--out",
        )
    writable_directory(target.parent if single else target, "the games")
    paths = [target] if single else [target / f"game-{game:05d}.jsonl" for game in range(games)]
    there = [path for path in paths if path.exists()]
    if there and not force:  # a hand-written log, or the games of an earlier run
        refuse_to_overwrite(there[0], "simulate", len(there) - 1)
    events = 0
    work = ((rules, players, bots, seed, game, record) for game in range(games))
    with (
        mapped(simulate_log, work, games, jobs) as logs,
        progress(logs, games, "simulating") as bar,
    ):
        for game, log in enumerate(bar):
            events += log.count(b"\n")
            path = paths[game]
            try:
                path.write_bytes(log)
            except OSError as exc:  # a full disk, a folder taken away meanwhile
                fail(
                    f"{path}: cannot write the game ({exc.strerror}); {game} games written",
                    EXIT_BAD_INPUT,
                )
    note(f"wrote {games} game{'s' if games != 1 else ''} ({events} events) to {target}")


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [simulate]
