"""The archive's analytics: ``report NAME`` and ``odds`` (``odds assaf``, ``odds deal``).

The analytics (DuckDB) are imported when a report runs, for start-up time.
"""

from __future__ import annotations

import csv
import sys
from typing import Any

import click

from ..core.deal_odds import deal_odds
from .options import Choice, db_option, open_archive, resolve_or_usage, rules_option
from .render import csv_cell, echo, emit_json, progress, render_table, shown, shown_rows


def ensure_audited(archive: Any, rules: Any) -> None:
    """Audit the games a report needs that are not audited yet (said on stderr)."""
    todo = archive.games_to_audit(rules)
    if todo:
        under = rules.id if rules else "their declared rules"
        echo(shown(f"auditing {len(todo)} games under {under} first"), err=True)
        for _ in archive.audit(rules, games=todo, progress=progress):
            pass


def archive_for_report(db: str | None, rule_sets: list[Any]) -> Any:
    """The archive open for a report: read-only (so that several can run at once) unless
    games must first be audited under ``rule_sets``, which the archive then stores."""
    archive = open_archive(db, read_only=True)
    if not any(archive.games_to_audit(rules) for rules in rule_sets):
        return archive
    archive.close()
    archive = open_archive(db)
    for rules in rule_sets:
        ensure_audited(archive, rules)
    return archive


REPORT_NAMES = [
    "players",
    "rounds",
    "pickups",
    "seat-advantage",
    "reductions",
    "violations",
    "leaderboard",
    "assaf-risk",
    "findings",
    "rules-impact",
    "deal-odds",
    "house-rules",
]


#: games of each rule set that ``report rules-impact`` lists in a table, without --all
IMPACT_SHOWN = 50


@click.command()
@click.argument("name", metavar="NAME", type=Choice(REPORT_NAMES))
@db_option
@rules_option(multiple=True)
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=None,
    help="only games of N players (assaf-risk: only rounds with N players)",
)
@click.option(
    "--format",
    "fmt",
    type=Choice(["table", "json", "csv"]),
    default=None,
    help="a table (the default) with a summary line, one JSON object, or CSV",
)
@click.option("--json", "as_json", is_flag=True, help="the same as --format json")
@click.option(
    "--all",
    "every",
    is_flag=True,
    help=f"rules-impact: every game in the table (else the first {IMPACT_SHOWN} of "
    "each rule set; csv and json give every one)",
)
@click.option(
    "--simulated",
    is_flag=True,
    help="count the games bots played (yaniv-audit simulate) too; without it every "
    "report counts the games people played",
)
def report(
    name: str,
    db: str | None,
    rules_specs: tuple[str, ...],
    players: int | None,
    fmt: str | None,
    as_json: bool,
    every: bool,
    simulated: bool,
) -> None:
    """An analytics report over the archive (games not audited yet are audited first).

    Each game counts once (its latest version), under its declared rules or
    under --rules R; several --rules give the report under each, with a rules
    column. Corrupt games are left out, and so are the games bots played
    (--simulated counts them). Seats are numbered from 1, the first player of the log.

    \b
    players         per player: games, wins, points per round, Yanivs, Assafs, eliminations
    rounds          rounds per game and how they end, by rule set and players
    pickups         stock against pile draws, and the cards taken from the pile most
    seat-advantage  win rate by seat, and the round win rate of the player who opens
    reductions      reductions that saved a player from elimination; Victor calls
    violations      findings by code and by player
    leaderboard     players by wins, with Yaniv calls and Assafs
    assaf-risk      how often a Yaniv at each total was Assafed
    findings        which rules get broken, how often
    rules-impact    which games change winner under --rules R
    deal-odds       the recorded deals beside their exact odds (no audit needed: the
                    games that declared --rules R, else every game by its own rules)
    house-rules     per table or club (meta), else per players: the rule set their
                    games fit together, and the games that do not fit it
    """
    from ..archive import analytics  # heavy (DuckDB): imported when used

    if as_json and fmt not in (None, "json"):
        raise click.UsageError("--json is --format json: give one of them")
    fmt = "json" if as_json else (fmt or "table")
    rule_sets = list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs)) or [None]
    if name == "rules-impact" and None in rule_sets:
        raise click.UsageError("rules-impact needs --rules R, the rule set to compare with")
    if every and name != "rules-impact":
        raise click.UsageError(f"--all is for rules-impact (report {name} lists every row)")
    needed = (
        [None, *rule_sets]
        if name == "rules-impact"
        else []
        if name in ("deal-odds", "house-rules")
        else rule_sets
    )
    with archive_for_report(db, list(dict.fromkeys(needed))) as archive:
        table = analytics.report(
            archive,
            name,
            rule_sets,
            players,
            None if every or fmt != "table" else IMPACT_SHOWN,
            simulated=simulated,
        )
    if fmt == "json":
        emit_json(table.to_json())
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([shown(c) for c in table.columns])
        writer.writerows(shown_rows([csv_cell(v) for v in row] for row in table.rows))
    else:
        echo(table.summary + ("; --simulated counts them" if table.bots_left_out else ""))
        if table.rows:
            echo(render_table(table.columns, table.rows))
        if table.more:
            echo(
                f"... and {table.more:,} more game{'s' if table.more != 1 else ''}: "
                "--all lists every one (so do --format csv and json)"
            )


class OddsGroup(click.Group):
    """``odds``: a group whose old spelling ``odds TOTAL ...`` (a number or an option
    first) still means ``odds assaf TOTAL ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = args[0] if args else ""
        if first not in ctx.help_option_names and (
            first.lstrip("-").isdigit() or (first.startswith("-") and first not in self.commands)
        ):
            args = ["assaf", *args]
        return super().parse_args(ctx, args)


@click.group(cls=OddsGroup)
def odds() -> None:
    """Odds: the Assaf risk seen in the archive, or the exact odds of a deal.

    \b
    odds assaf TOTAL  how often a Yaniv at TOTAL was Assafed in the archive
                      (odds TOTAL says the same)
    odds deal         exact counts of the possible deals under a rule set
    """


@odds.command("assaf", short_help="the Assaf risk of a Yaniv at TOTAL, from the archive")
@click.argument("total", type=click.IntRange(min=0))
@db_option
@rules_option()
@click.option(
    "--players", type=click.IntRange(2, 8), default=None, help="only rounds with this many players"
)
@click.option("--json", "as_json", is_flag=True, help="the odds as one JSON object")
@click.option(
    "--simulated", is_flag=True, help="count the games bots played (yaniv-audit simulate) too"
)
def odds_assaf(
    total: int,
    db: str | None,
    rules_specs: str | None,
    players: int | None,
    as_json: bool,
    simulated: bool,
) -> None:
    """How often a Yaniv called at TOTAL was Assafed in the games people played."""
    from ..archive import analytics  # heavy (DuckDB): imported when used

    rules = resolve_or_usage(rules_specs) if rules_specs else None
    with archive_for_report(db, [rules]) as archive:
        result = analytics.odds(archive, total, players, rules, simulated=simulated)
    if as_json:
        emit_json(result.to_json())
    else:
        echo(result.text())


@odds.command("deal", short_help="exact counts of the possible deals under a rule set")
@rules_option()
@click.option("--json", "as_json", is_flag=True, help="the counts as one JSON object")
def odds_deal(rules_specs: str | None, as_json: bool) -> None:
    """Exact counts of the possible deals of hand_size cards under --rules R
    (default israeli): by rank category, by the longest run that could be
    thrown, and by hand total, with the Yaniv-able deals. No archive needed.

    Every combination of physical cards counts once: two decks hold two 5H.
    """
    rules = resolve_or_usage(rules_specs or "israeli")
    result = deal_odds(rules)
    if as_json:
        emit_json(result.to_json())
    else:
        echo(result.text())


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [report, odds]
