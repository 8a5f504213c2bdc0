"""The bulk audit of the archive (``audit --db``): the stored logs read back a batch at a
time and audited on worker processes under each rule set asked for, and the derived rows
written (:data:`~yaniv_audit.archive.schema.DERIVED`); the results of ``audit --parquet``
(:mod:`yaniv_audit.batch.distributed`) stored the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from .. import ENGINE
from ..batch.bulk import mapped, no_gc
from ..core.errors import ArchiveError, LogFormatError
from ..core.report import AnyReport, AuditReport
from ..core.rules import RuleSet
from .base import (
    READ_BATCH,
    WORKER_PRELOAD,
    ArchiveBase,
    Progress,
    _first_line,
    _no_progress,
    transaction,
    writer_thread,
)
from .rows import add_derived, derived_tables
from .schema import DERIVED

#: audit --db writes the derived rows of the games it audited when it holds this many
#: rounds (about a tenth of the rows) or this many games' audits, whichever comes first:
#: a game its rules call corrupt at the first deal has one round, and counting rounds
#: alone held 100,000 such games' rows (and report JSON) until the end
DERIVED_BATCH, DERIVED_GAMES = 50_000, 5_000


def audit_archived(job: tuple[str, str, bytes, Sequence[RuleSet | None]]) -> list[AnyReport]:
    """The reports of one archived game under each rule set (None: its declared rules),
    rebuilt from its stored events, read once; their ``file`` is the file the game was
    ingested from."""
    fingerprint, source, data, rule_sets = job
    with no_gc():
        return _audit_stored(fingerprint, source, data, rule_sets)


@dataclass(frozen=True, slots=True)
class AuditedGame:
    """One archived game as ``audit --db`` audited it: its number, whether ``simulate``
    wrote it (bots playing), and its reports, one per rule set asked for."""

    game_no: int
    simulated: bool
    reports: list[AnyReport]


def audit_for_archive(
    job: tuple[str, str, bytes, Sequence[RuleSet | None], int, bool],
) -> tuple[AuditedGame, dict[str, list[tuple[Any, ...]]]]:
    """:func:`audit_archived` for ``audit --db`` (the job adds the game's ``game_no`` and
    whether ``simulate`` wrote it): the game's reports, and the rows they give each
    derived table (:func:`~yaniv_audit.archive.rows.derived_rows`, here in the worker),
    stamped with this moment. The parent turns the rows of many games into Arrow tables
    at once (per game, building them cost a fifth of the audit)."""
    fingerprint, source, data, rule_sets, game_no, simulated = job
    with no_gc():
        reports = _audit_stored(fingerprint, source, data, rule_sets)
        now = datetime.now(UTC)
        rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        keys: dict[str, str] = {}
        for report in reports:
            add_derived(rows, report, game_no, keys, now)
        return AuditedGame(game_no, simulated, reports), rows


def _audit_stored(
    fingerprint: str, source: str, data: bytes, rule_sets: Sequence[RuleSet | None]
) -> list[AnyReport]:
    # heavy (the engine, marshmallow): only where logs are audited
    from ..core.audit import audit_log, unreadable_report
    from ..io.codec import parse_jsonl

    try:
        log = parse_jsonl(data, source)
    except LogFormatError as exc:  # stored events no longer read: the archive was altered
        return [unreadable_report(source, exc)]
    reports: list[AnyReport] = []
    for rules in rule_sets:
        report = audit_log(log, rules, fingerprint=fingerprint)
        report["file"] = source
        reports.append(report)
    return reports


class Auditing(ArchiveBase):
    """The bulk audit: :meth:`audit_games` and the calls made of it, and
    :meth:`ingest_results`."""

    def games_to_audit(self, rules: RuleSet | None, *, again: bool = False) -> list[int]:
        """The games without an audit by this engine under ``rules`` (None: as declared)."""
        key = "g.rules_key" if rules is None else "?"
        params: list[Any] = [] if rules is None else [rules.key]
        if again:
            sql, params = "SELECT game_no FROM games g ORDER BY game_no", []
        else:
            sql = (
                f"SELECT game_no FROM games g WHERE NOT EXISTS (SELECT 1 FROM audits a "
                f"WHERE a.game_no = g.game_no AND a.rules_key = {key} "
                f"AND a.engine = ?) ORDER BY game_no"
            )
            params.append(ENGINE)
        return [n for (n,) in self.con.execute(sql, params).fetchall()]

    def unaudited(self) -> list[int]:
        """The games with no audit at all under their declared rules (by any engine): a
        writer stopped between storing and auditing them (a server killed, say)."""
        return [
            n
            for (n,) in self.con.execute(
                "SELECT game_no FROM games g WHERE NOT EXISTS (SELECT 1 FROM audits a "
                "WHERE a.game_no = g.game_no AND a.rules_key = g.rules_key) "
                "ORDER BY game_no"
            ).fetchall()
        ]

    def audit(
        self,
        rules: RuleSet | None = None,
        *,
        again: bool = False,
        games: Sequence[int] | None = None,
        jobs: int | None = None,
        progress: Progress = _no_progress,
    ) -> Iterator[AnyReport]:
        """Audit the archived games not yet audited under ``rules`` (None: each game's
        declared rules; ``again``: every game; ``games``: those the caller has just
        listed with :meth:`games_to_audit`) and store the results; yields each report."""
        todo = self.games_to_audit(rules, again=again) if games is None else games
        return self.audit_under({rules: list(todo)}, jobs=jobs, progress=progress)

    def todo_under(
        self, rule_sets: Sequence[RuleSet | None], *, again: bool = False
    ) -> dict[RuleSet | None, list[int]]:
        """The games each rule set has yet to audit (:meth:`games_to_audit` for each)."""
        return {rules: self.games_to_audit(rules, again=again) for rules in rule_sets}

    def audit_under(
        self,
        todo: dict[RuleSet | None, list[int]],
        *,
        jobs: int | None = None,
        progress: Progress = _no_progress,
    ) -> Iterator[AnyReport]:
        """Audit each game under the rule sets that list it in ``todo``, in one pass over
        the archive (each game read and parsed once, on ``jobs`` processes), and store the
        results; yields each report, game by game, in the order of ``todo``'s rule sets."""
        for game in self.audit_games(todo, jobs=jobs, progress=progress):
            yield from game.reports

    def audit_games(
        self,
        todo: dict[RuleSet | None, list[int]],
        *,
        jobs: int | None = None,
        progress: Progress = _no_progress,
    ) -> Iterator[AuditedGame]:
        """:meth:`audit_under`, a game at a time: each with its reports.

        What it holds does not grow with the games: their logs are read a batch at a
        time, at most a window of them is out at the workers, and the derived rows are
        written every :data:`DERIVED_BATCH` rounds or :data:`DERIVED_GAMES` games. (Only
        with several rule sets that want different games does it keep which wants which.)
        """
        under: Callable[[int], list[RuleSet | None]]
        if len(todo) == 1:
            ((rules, games),) = todo.items()
            order = sorted(set(games))
            only = [rules]

            def under(_game: int) -> list[RuleSet | None]:
                return only
        else:
            wanted: dict[int, list[RuleSet | None]] = {}
            for rules, games in todo.items():
                for game in games:
                    wanted.setdefault(game, []).append(rules)
            order = sorted(wanted)
            under = wanted.__getitem__
        jobs_iter = (
            (log.fingerprint, log.source, log.data, under(log.game_no), log.game_no, log.simulated)
            for log in self._stored_logs(order)
        )
        batch: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        jobs = self._jobs_for(jobs, order, len(todo))
        with (
            writer_thread("audit-writer") as write,
            mapped(audit_for_archive, jobs_iter, len(order), jobs, WORKER_PRELOAD) as results,
        ):
            with progress(results, len(order), "auditing") as bar:
                for game, rows in bar:
                    for table, found in rows.items():
                        batch[table] += found
                    if (
                        len(batch["rounds"]) >= DERIVED_BATCH
                        or len(batch["audits"]) >= DERIVED_GAMES
                    ):
                        write(self._write_derived, batch)
                        batch = {table: [] for table in DERIVED}
                    yield game
            if batch["audits"]:
                write(self._write_derived, batch)

    def ingest_results(
        self,
        directory: str | Path,
        *,
        progress: Progress = _no_progress,
    ) -> dict[str, int]:
        """Store the results ``audit --parquet`` wrote under ``directory`` in the derived
        tables, replacing the rows of the same game and rule set (ingesting them again
        changes nothing); counts of results ``stored``, left out as ``other_engine`` (the
        next audit would renew them) and left out as ``unknown`` (no such game here).

        A result goes to the game of the fingerprint in its report, keyed by its rule
        set's parameters and engine version; its rows are rebuilt from the report with
        :func:`~yaniv_audit.archive.rows.derived_rows`, as ``audit --db`` builds them, and
        keep its ``audited_at``.
        """
        audits = Path(directory) / "audits"
        if not audits.is_dir() or not any(audits.rglob("*.parquet")):
            raise ArchiveError(
                f"{directory}: no audits/ Parquet files in it; give the --out "
                "directory of `yaniv-audit audit --parquet`"
            )
        cursor = self.con.cursor()
        try:
            try:
                cursor.execute(
                    "CREATE TEMP TABLE results AS SELECT * FROM (SELECT r.report, r.audited_at, "
                    "g.game_no, r.engine = $2 AS current FROM read_parquet($1, "
                    "hive_partitioning = false, union_by_name = true) r LEFT JOIN games g "
                    "ON g.fingerprint = r.report->>'$.fingerprint' QUALIFY row_number() OVER "
                    "(PARTITION BY r.report->>'$.fingerprint', r.rules_key "
                    "ORDER BY r.audited_at DESC) = 1)",
                    [str(audits / "**" / "*.parquet"), ENGINE],
                )
            except duckdb.Error as exc:
                raise ArchiveError(
                    f"{directory}: not the results of `audit --parquet` ({_first_line(str(exc))})"
                ) from None
            ((stored, other, unknown),) = cursor.execute(
                "SELECT count(*) FILTER (current AND game_no IS NOT NULL), count(*) FILTER "
                "(NOT current AND game_no IS NOT NULL), count(*) FILTER (game_no IS NULL) "
                "FROM results"
            ).fetchall()
            cursor.execute(
                "SELECT report, audited_at, game_no FROM results WHERE current "
                "AND game_no IS NOT NULL ORDER BY game_no"
            )
            rows = (row for rows in iter(lambda: cursor.fetchmany(READ_BATCH), []) for row in rows)
            batch: list[tuple[Any, ...]] = []
            with progress(rows, int(stored), "storing") as bar:
                for row in bar:
                    batch.append(row)
                    if len(batch) >= READ_BATCH:
                        self._store_results(batch)
                        batch = []
            if batch:
                self._store_results(batch)
        finally:
            cursor.execute("DROP TABLE IF EXISTS results")
            cursor.close()
        return {"stored": int(stored), "other_engine": int(other), "unknown": int(unknown)}

    def _store_results(self, batch: list[tuple[Any, ...]]) -> None:
        """Store (report JSON, audited_at, game_no) rows of :meth:`ingest_results`."""
        reports = [json.loads(report) for report, _, _ in batch]
        self._store_audits(
            reports,
            {r["fingerprint"]: n for r, (_, _, n) in zip(reports, batch, strict=True)},
            [when for _, when, _ in batch],
        )

    def _store_audits(
        self,
        reports: Sequence[AuditReport],
        number_of: dict[str, int],
        audited_at: Sequence[datetime] | None = None,
    ) -> None:
        """Store the derived rows of ``reports`` (``number_of``: fingerprint -> game_no),
        replacing those of the same game and rule set, in one transaction (``audited_at``:
        each report's time stamp, else now)."""
        now = datetime.now(UTC)
        keys: dict[str, str] = {}
        rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        for i, report in enumerate(reports):
            add_derived(
                rows,
                report,
                number_of[report["fingerprint"]],
                keys,
                now if audited_at is None else audited_at[i],
            )
        self._write_derived(rows)

    def _write_derived(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Store the rows of each derived table, replacing those of the same games and rule
        sets (the ``audits`` rows name them), in one transaction, as Arrow tables."""
        import pyarrow.compute as pc

        tables = derived_tables(rows)
        con = self.con
        with transaction(con):
            audited = tables["audits"].select(["game_no", "rules_key"])
            if audited.num_rows:
                # the range first: DuckDB then skips the row groups of other games
                numbers = audited.column("game_no")
                span = [pc.min(numbers).as_py(), pc.max(numbers).as_py()]
                con.register("_audited", audited)
                for table in DERIVED:
                    con.execute(
                        f"DELETE FROM {table} WHERE game_no BETWEEN $1 AND $2 "
                        "AND (game_no, rules_key) IN "
                        "(SELECT game_no, rules_key FROM _audited)",
                        span,
                    )
                con.unregister("_audited")
            for table in DERIVED:
                if tables[table].num_rows:
                    con.register("_derived", tables[table])
                    con.execute(f"INSERT INTO {table} SELECT * FROM _derived")
                    con.unregister("_derived")
