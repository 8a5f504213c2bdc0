"""The commands of the archive: ``ingest``, ``ingest-results``, ``export``,
``checkpoint``, ``verify`` and ``query`` (its reports are in :mod:`.reports`).

DuckDB (``..archive``) is imported when a command runs, for start-up time.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click

from .. import ENGINE
from ..core.errors import ArchiveError, QueryError
from ..io.files import log_files
from .options import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    Choice,
    db_option,
    open_archive,
    writable_directory,
)
from .render import echo, emit_json, error_json, fail, print_rows, progress, shown


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="LOG...", type=click.Path())
@db_option
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="processes to read logs with (default: all cores)",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="what was done as one JSON object (games added, refused, ...)",
)
@click.option(
    "--reopen",
    is_flag=True,
    help="a log that continues a game that had ended becomes the game (without "
    "it, it is kept as evidence and the ended game stays counted)",
)
def ingest(
    paths: tuple[str, ...], db: str | None, jobs: int | None, as_json: bool, reopen: bool
) -> None:
    """Store readable logs in the archive (files, or directories of .jsonl/.json logs).

    A game is stored once, by its fingerprint; a log that cannot be read is
    refused with its error and the others go on. Nothing stored is ever changed.
    A log that continues a game that had ended (a withdrawn game_ended, moves after
    it) is kept as evidence and not counted, unless --reopen (exit 1 without it).
    """
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    with open_archive(db, create=True) as archive:
        result = archive.ingest(
            files,
            jobs=1 if "-" in files else jobs,
            progress=progress,
            list_added=as_json,
            reopen=reopen,
        )
        total = archive.count_games()
        where = archive.path
    code = (
        EXIT_FOUND
        if result.refused or result.conflicts or result.after_end or result.at_table
        else EXIT_OK
    )
    if as_json:
        emit_json(
            {
                "archive": str(where),
                "games": total,
                "events": result.events,
                "added": [
                    {
                        "file": a.source,
                        "fingerprint": a.fingerprint,
                        "game_id": a.game_id,
                        "events": a.events,
                    }
                    for a in result.added
                ],
                "duplicates": [
                    {"file": f, "fingerprint": fp, "first_file": first}
                    for f, fp, first in result.duplicates
                ],
                "refused": [
                    {"file": r.source, "error": error_json(r.error)} for r in result.refused
                ],
                "extensions": [
                    {"file": f, "fingerprint": fp, "game_id": g, "extends": old, "old_size": size}
                    for f, fp, g, old, size in result.extensions
                ],
                "earlier": [
                    {"file": f, "fingerprint": fp, "game_id": g, "longer": longer}
                    for f, fp, g, longer in result.earlier
                ],
                "conflicts": [
                    {
                        "file": f,
                        "fingerprint": fp,
                        "game_id": g,
                        "other": other,
                        "differs_from_event": same,
                    }
                    for f, fp, g, other, same in result.conflicts
                ],
                "after_end": [
                    {"file": f, "fingerprint": fp, "game_id": g, "ended": ended, "ended_size": size}
                    for f, fp, g, ended, size in result.after_end
                ],
                "at_table": [
                    {"file": f, "fingerprint": fp, "game_id": g, "table": table, "table_entries": n}
                    for f, fp, g, table, n in result.at_table
                ],
            }
        )
        sys.exit(code)
    for refused in result.refused:
        echo(shown(f"{refused.source}: refused, unreadable: {refused.error}"))
    for source, _, game_id, old, size in result.extensions:
        echo(
            shown(
                f"{source}: continues game {game_id} as archived ({old[:16]}): its "
                f"first {size} events unchanged"
            )
        )
    for source, _, game_id, longer in result.earlier:
        echo(
            shown(
                f"{source}: an earlier part of game {game_id}, whose longer version "
                f"{longer[:16]} is archived"
            )
        )
    for source, _, game_id, other, same in result.conflicts:
        echo(
            shown(
                f"{source}: rewrites game {game_id}, archived before with other events "
                f"({other[:16]}): they differ from event {same} on; kept as evidence, "
                "never counted in the reports"
            )
        )
    for source, _, game_id, ended, size in result.after_end:
        echo(
            shown(
                f"{source}: continues game {game_id} after its end (the ended version "
                f"{ended[:16]}, {size} events, stays the game): kept as evidence, never "
                "counted; ingest --reopen counts it instead"
            )
        )
    from ..archive.tables import at_table_said

    for source, _, game_id, table, entries in result.at_table:
        echo(shown(at_table_said(source, game_id, table, entries)))
    echo(
        shown(
            f"ingested {result.games} game{'s' if result.games != 1 else ''} "
            f"({result.events} events) into {where}; {len(result.duplicates)} already there, "
            f"{len(result.refused)} refused; the archive holds {total} games"
        )
    )
    sys.exit(code)


@click.command("ingest-results")
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
def ingest_results(directory: str, db: str | None) -> None:
    """Store the results of `audit --parquet --out DIRECTORY` in the archive.

    Each result replaces the archive's rows of its game and rule set, so that
    `report`, `query` and the viewer use it; ingesting again changes nothing.
    Results of games not in the archive, or of another version, are left out.
    """
    with open_archive(db) as archive:
        try:
            n = archive.ingest_results(directory, progress=progress)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
        where = archive.path
    echo(shown(f"stored {n['stored']} results (game and rule set) into {where}"))
    if n["other_engine"]:
        echo(
            f"left out {n['other_engine']} results of another version than {ENGINE}: "
            "audit --db audits those games again"
        )
    if n["unknown"]:
        echo(shown(f"left out {n['unknown']} results of games not in {where}"))
    sys.exit(EXIT_FOUND if n["other_engine"] or n["unknown"] else EXIT_OK)


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
@click.option(
    "--by",
    type=Choice(["month", "rules"]),
    default="month",
    show_default=True,
    help="partition by the month a game started (year=/month=) or by rule set (rules=)",
)
def export(directory: str, db: str | None, by: str) -> None:
    """Write every archive table as partitioned Parquet under DIRECTORY (new or empty).

    DuckDB, Spark, pandas and the rest read it back, e.g.
    read_parquet('DIRECTORY/games/**/*.parquet', hive_partitioning = true).
    """
    with open_archive(db, read_only=True) as archive:
        target = Path(directory)
        if not target.exists() or (target.is_dir() and not any(target.iterdir())):
            writable_directory(target, "the export")  # exit 3, as every command says it
        try:
            counts = archive.export(directory, by)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
    width = max(map(len, counts), default=0)
    for table, rows in counts.items():
        echo(f"{table:{width}} {rows:>9} rows" + ("" if rows else " (no file)"))
    echo(shown(f"exported to {directory}, partitioned by {by}"))


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="the checkpoint as one JSON line")
def checkpoint(db: str | None, as_json: bool) -> None:
    """Record the archive's checkpoint: its games and the Merkle root of their fingerprints.

    Keep the printed line somewhere else (send it, print it): `verify --checkpoint`
    shows later that the archive only grew since, no game removed or changed.
    """
    with open_archive(db) as archive:
        point = archive.checkpoint()
    if as_json:
        emit_json(point.to_json())
    else:
        echo(f"checkpoint {point.created_at}: {point.games} games, root {point.root}")


@click.command()
@db_option
@click.option(
    "--checkpoint",
    "checkpoint_file",
    type=click.File("rb"),
    default=None,
    metavar="FILE",
    help="also check a checkpoint kept outside the archive (the "
    "line `checkpoint --json` printed; - for standard input)",
)
@click.option(
    "--audits",
    "audits",
    is_flag=True,
    help="also audit every game again and compare the stored results (verdicts, "
    "winners, findings, rounds, standings)",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="processes to check the stored events (and with --audits, audit) with "
    "(default: all cores)",
)
@click.option("--json", "as_json", is_flag=True, help="one JSON line per game that fails")
def verify(
    db: str | None, checkpoint_file: Any, audits: bool, jobs: int | None, as_json: bool
) -> None:
    """Check that every archived game's stored events still give its fingerprint, and
    that the archive still begins with the games of every checkpoint; with --audits,
    that the stored audit results are what a new audit gives."""
    # heavy (DuckDB): imported when used, for start-up time
    from ..archive import Checkpoint

    outside = None
    if checkpoint_file is not None:
        try:
            outside = Checkpoint.from_json(checkpoint_file.read())
        except ArchiveError as exc:
            fail(str(exc), EXIT_BAD_INPUT)
    with open_archive(db, read_only=True) as archive:
        games, mismatches = archive.verify(jobs=jobs, progress=progress)
        points = archive.checkpoints() + ([outside] if outside else [])
        broken = [
            (p, problem) for p in points if (problem := archive.check_checkpoint(p)) is not None
        ]
        where = archive.path
        rewrites = archive.rewrites()
        if audits:
            checked, stale, altered = archive.verify_audits(jobs=jobs, progress=progress)
            mismatches += altered
    for m in mismatches:
        if as_json:
            emit_json({"fingerprint": m.fingerprint, "game_id": m.game_id, "problem": m.problem})
        else:
            echo(shown(f"game {m.game_id} ({m.fingerprint[:16]}): {m.problem}"))
    for r in rewrites:
        if as_json:
            emit_json(
                {
                    "fingerprint": r.fingerprint,
                    "game_id": r.game_id,
                    "source": r.source,
                    "rewrites": r.rewrites,
                    "differs_at": r.differs_at,
                    "after_end": r.after_end,
                }
            )
        elif r.after_end:
            echo(
                shown(
                    f"game {r.game_id} ({r.fingerprint[:16]}, from {r.source}): continues "
                    f"the game after its end ({r.rewrites[:16]}, from {r.rewrites_source}, "
                    f"ended at event {r.differs_at - 1}); kept as evidence, never counted"
                )
            )
        else:
            echo(
                shown(
                    f"game {r.game_id} ({r.fingerprint[:16]}, from {r.source}): rewrites "
                    f"the archived game ({r.rewrites[:16]}, from {r.rewrites_source}) from "
                    f"event {r.differs_at} on; kept as evidence, never counted"
                )
            )
    for point, problem in broken:
        if as_json:
            emit_json({"checkpoint": point.to_json(), "problem": problem})
        else:
            echo(f"checkpoint {point.root[:16]}: {problem}")
    games_altered = len({m.fingerprint for m in mismatches})
    after = [r for r in rewrites if r.after_end]
    changed = [r for r in rewrites if not r.after_end]
    summary = (
        f"{where}: {games} games, {games - games_altered} verified, {games_altered} "
        f"altered; {len(points) - len(broken)} of {len(points)} checkpoints hold"
        + (
            f"; {len(changed)} rewritten game{'s' if len(changed) != 1 else ''} kept as evidence"
            if changed
            else ""
        )
        + (
            f"; {len(after)} game{'s' if len(after) != 1 else ''} continued after "
            "its end kept as evidence"
            if after
            else ""
        )
    )
    if audits:
        summary += f"; {checked} audits re-checked, {len(altered)} differ" + (
            f", {stale} by another engine version not checked (audit --db --again renews them)"
            if stale
            else ""
        )
    echo(shown(summary), err=as_json)
    sys.exit(EXIT_FOUND if mismatches or broken else EXIT_OK)


def is_utf8(text: str) -> bool:
    """False for an argument whose bytes were no UTF-8 (Python keeps them as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def finite_seconds(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A time limit is a finite number: FloatRange lets ``nan``, ``inf`` and ``1e400``
    (which is inf) by, and a timer of inf seconds raised OverflowError."""
    if not math.isfinite(value):
        raise click.BadParameter(
            f"{value!r} is not a number of seconds: expected a finite "
            "number above 0, such as 30 or 2.5",
            ctx,
            param,
        )
    return value


@click.command()
@click.argument("sql", required=False)
@db_option
@click.option("--json", "as_json", is_flag=True, help="one JSON object per row (JSON Lines)")
@click.option("--csv", "as_csv", is_flag=True, help="CSV with a header row")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=30,
    show_default=True,
    metavar="SECONDS",
    callback=finite_seconds,
    help="stop the statement when it runs longer than this",
)
def query(sql: str | None, db: str | None, as_json: bool, as_csv: bool, timeout: float) -> None:
    """Run one SELECT statement on the archive's tables (without SQL: list them).

    Tables: games, events (the logs as ingested), audits, findings, rounds,
    standings, player_rounds (what the audits derived), checkpoints; the view
    latest_games (each game once, as its latest version). The statement can only
    read them: the archive is opened read-only on a connection that reaches no
    file, network, extension or setting, and anything but one SELECT (COPY,
    ATTACH, SET, CREATE, several statements, read_csv(), ...) is refused with
    what and why (exit 2). A statement still running after --timeout seconds is
    stopped (exit 2).
    """
    from ..archive import TABLES  # heavy (DuckDB): imported when used

    if as_json and as_csv:
        raise click.UsageError("--json or --csv, not both")
    if sql is not None and not is_utf8(sql):
        raise click.BadParameter(
            "the SQL is not valid UTF-8 text (a byte of another encoding?): write it in UTF-8",
            param_hint="SQL",
        )
    if sql is None:
        for name, text in TABLES.items():
            echo(f"{name:10} {text}")
        return
    with open_archive(db, locked=True) as archive:
        try:
            columns, rows = archive.user_query(sql, timeout=timeout)
        except QueryError as exc:
            fail(str(exc), EXIT_USAGE)
    print_rows(columns, rows, as_json=as_json, as_csv=as_csv)


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [ingest, ingest_results, export, checkpoint, verify, query]
