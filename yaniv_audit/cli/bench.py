"""``bench``: the audit's throughput against the parse floor, its speed-up and memory."""

from __future__ import annotations

import os
import sys

import click

from .options import EXIT_FOUND, EXIT_OK, EXIT_USAGE, resolve_or_usage, rules_option
from .render import echo, emit_json, fail, progress


@click.command()
@rules_option()
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=300,
    show_default=True,
    help="games in the generated corpus",
)
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=4,
    show_default=True,
    help="players at each generated game",
)
@click.option(
    "--seed",
    type=int,
    default=1,
    show_default=True,
    help="the seed of the generated corpus",
)
@click.option(
    "--bot",
    "bots",
    multiple=True,
    metavar="NAME",
    help="random, greedy or careful; repeat to seat several (default: all three)",
)
@click.option(
    "--corpus",
    type=click.Path(file_okay=False),
    help="use the logs in DIR (generate them into it if it has none); "
    "default: a corpus cached by the arguments in the temp directory",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="processes for the bulk audit and the simulation (default: all cores)",
)
@click.option(
    "--repeat",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="take the best of up to this many rounds, each running every stage once in turn",
)
@click.option(
    "--no-memory-check",
    "no_memory",
    is_flag=True,
    help="skip the streaming check (two audits in fresh processes)",
)
@click.option(
    "--chess-games",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="random legal PGN games for the python-chess comparison (when installed)",
)
@click.option("--check", is_flag=True, help="exit 1 if a target is missed")
@click.option("--json", "as_json", is_flag=True, help="the figures as one JSON object")
def bench(
    rules_specs: str | None,
    games: int,
    players: int,
    seed: int,
    bots: tuple[str, ...],
    corpus: str | None,
    jobs: int | None,
    repeat: int,
    no_memory: bool,
    chess_games: int,
    check: bool,
    as_json: bool,
) -> None:
    """Measure audit throughput against the JSON parse floor, bulk speed-up and memory.

    On a simulated corpus (or the logs in --corpus): (a) parse floor, (b) codec
    (schema validation), (c) replay alone, (d) audit end to end on one core,
    (e) bulk audit on all cores, (f) peak memory, (g) python-chess replaying
    PGN games, if installed (pip install 'yaniv-audit[bench]'); then the
    targets, PASS or MISS.
    """
    # heavy (the benchmark, the engine): imported when used, for start-up time
    from ..batch import bench as b
    from ..batch.simulate import BOTS, SimulationError

    rules = resolve_or_usage(rules_specs or "israeli")
    for name in bots:
        if name not in BOTS:
            raise click.BadParameter(
                f"unknown bot {name!r}; expected one of {', '.join(BOTS)}", param_hint="--bot"
            )
    bots = bots or b.DEFAULT_BOTS
    jobs = jobs or os.cpu_count() or 1

    try:
        directory, reused = b.ensure_corpus(
            corpus, rules, players, games, seed, bots, jobs, progress
        )
    except SimulationError as exc:
        fail(str(exc), EXIT_USAGE)
    try:
        result = b.run_bench(
            directory,
            jobs=jobs,
            repeat=repeat,
            memory=not no_memory,
            progress=progress,
            chess_games=chess_games,
        )
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    command = ["yaniv-audit", "bench", *sys.argv[2:]] if sys.argv[1:2] == ["bench"] else None
    result["run"] = {
        "command": " ".join(command) if command else "yaniv-audit bench",
        "corpus_dir": str(directory),
        "reused": reused,
        "repeat": repeat,
        "jobs": jobs,
        "games": games,
        "players": players,
        "seed": seed,
        "rules": rules.id,
        "bots": list(bots),
        **b.machine_info(),
    }
    if as_json:
        emit_json(result)
    else:
        echo(b.render(result))
    sys.exit(EXIT_FOUND if check and not all(t["pass"] for t in result["targets"]) else EXIT_OK)


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [bench]
