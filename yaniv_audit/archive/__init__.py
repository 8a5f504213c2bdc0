"""The archive: many games in one DuckDB file, audited in bulk, asked in SQL.

A shell around the pure core (docs/design.md): logs are read by the codec,
audited by :mod:`yaniv_audit.audit`, and stored here.

- ``games`` and ``events`` hold what was ingested and are append-only: a game
  is stored once, by its fingerprint, with every event in canonical JSON (its
  fingerprint leaf), so the log can be rebuilt byte for byte and re-checked.
  A corrected log is a new game with its own fingerprint; nothing is edited.
- ``audits``, ``findings``, ``rounds`` and ``standings`` are derived: one set
  of rows per game and rule set, written by :meth:`Archive.audit` and replaced
  when a game is audited again. Rule sets are keyed by their parameters
  (:attr:`RuleSet.key`), so ``classic`` and ``israeli(yaniv_max=5)`` are one key.

A log with the ``game_id`` and ``game_started`` of an archived game is another
version of it: ``extends`` names the version it continues unchanged,
``part_of`` a longer one archived before it. ``checkpoints`` record the Merkle
root over the games' fingerprints, to show later that the archive only grew.

Events are clustered by an integer ``game_no`` given in ingest order, so that
reading a range of games back skips the rest of the table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from .. import ENGINE
from ..bulk import mapped, no_gc
from ..errors import ArchiveError, LogFormatError
from ..rules import RuleSet
from . import safe_sql
from .base import (
    DB_ENV,
    DEFAULT_DB,
    MEMORY_ENV,
    READ_BATCH,
    Progress,
    StoredLog,
    _first_line,
    _no_progress,
    _one,
    _short_of_memory,
    damaged,
    default_db,
    memory_limit,
    out_of_memory,
    writer_thread,
)
from .connect import connect
from .ingest import Added, Ingesting, IngestResult, Refused
from .rows import add_derived, derived_rows, derived_tables
from .schema import DERIVED, LATEST, SCHEMA_VERSION, SIMULATED, TABLES, VIEWS
from .versions import Rewrite

_HEX = frozenset("0123456789abcdefABCDEF")
#: audit --db writes the derived rows of the games it audited when it holds this many
#: rounds (about a tenth of the rows) or this many games' audits, whichever comes first:
#: a game its rules call corrupt at the first deal has one round, and counting rounds
#: alone held 100,000 such games' rows (and report JSON) until the end
DERIVED_BATCH, DERIVED_GAMES = 50_000, 5_000

#: export: rows of one partition DuckDB buffers before writing them, and partitions open at
#: once (so at most about 480,000 rows of a table in memory, some 70 MB of events)
EXPORT_FLUSH_ROWS = 60_000
EXPORT_OPEN_FILES = 8


#: the tables export writes (the checkpoints stay with the archive they vouch for)
EXPORTED = ("games", "events", "deals", "audits", "findings", "rounds", "standings",
            "player_rounds")
#: how ``export`` can partition the Parquet files
EXPORT_BY = ("month", "rules")


def _comparable(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted((tuple(tuple(v) if isinstance(v, list) else v for v in row) for row in rows),
                  key=repr)


def _audit_difference(stored: dict[str, list[tuple[Any, ...]]],
                      fresh: dict[str, list[tuple[Any, ...]]]) -> str | None:
    """What a game's stored derived rows say that a new audit does not, or None."""
    if not stored.get("audits"):
        return "the stored audit has lost its audits row"
    old, new = stored["audits"][0], fresh["audits"][0]
    said = []
    for name, i in (("verdict", 4), ("finished", 5), ("winners", 6)):
        if _comparable([(old[i],)]) != _comparable([(new[i],)]):
            said.append(f"{name} {old[i]!r} where a new audit gives {new[i]!r}")
    if said:
        return "the stored audit says " + "; ".join(said)
    for table in ("audits", "findings", "rounds", "standings", "player_rounds"):
        if _comparable(stored.get(table, [])) != _comparable(fresh[table]):
            return f"its stored {table} rows differ from a new audit"
    return None


def audit_archived(job: tuple[str, str, bytes, Sequence[RuleSet | None]]) -> list[dict[str, Any]]:
    """The reports of one archived game under each rule set (None: its declared rules),
    rebuilt from its stored events, read once; their ``file`` is the file the game was
    ingested from."""
    fingerprint, source, data, rule_sets = job
    with no_gc():
        return _audit_stored(fingerprint, source, data, rule_sets)


def check_stored(job: tuple[str, bytes, int, str | None, int | None],
                 ) -> tuple[str, str | None]:
    """What is wrong with one archived game's stored events, for ``verify`` (in a
    worker): (its fingerprint, None when nothing is). The job: the fingerprint, the
    stored JSON Lines, the events ingested, and the version it extends with that
    version's events (None: it extends none, or that version is not archived)."""
    from ..codec import parse_jsonl
    from ..merkle import tree_hash

    fingerprint, data, expected, extends, extends_size = job
    with no_gc():
        try:
            log = parse_jsonl(data, fingerprint)
        except LogFormatError as exc:
            return fingerprint, f"its stored events no longer read: {exc}"
        if len(log.events) != expected:
            return fingerprint, f"{len(log.events)} events stored, {expected} ingested"
        got = tree_hash(log.leaves).hex()
        if got != fingerprint:
            return fingerprint, f"its stored events give fingerprint {got}"
        if extends is not None and (
                extends_size is None or tree_hash(log.leaves[:extends_size]).hex() != extends):
            return fingerprint, (f"it does not continue the version {extends} it was stored "
                                 "as extending")
    return fingerprint, None


@dataclass(frozen=True, slots=True)
class AuditedGame:
    """One archived game as ``audit --db`` audited it: its number, whether ``simulate``
    wrote it (bots playing), and its reports, one per rule set asked for."""

    game_no: int
    simulated: bool
    reports: list[dict[str, Any]]


def audit_for_archive(job: tuple[str, str, bytes, Sequence[RuleSet | None], int, bool],
                      ) -> tuple[AuditedGame, dict[str, list[tuple[Any, ...]]]]:
    """:func:`audit_archived` for ``audit --db`` (the job adds the game's ``game_no`` and
    whether ``simulate`` wrote it): the game's reports, and the rows they give each
    derived table (:func:`derived_rows`, here in the worker), stamped with this moment.
    The parent turns the rows of many games into Arrow tables at once (per game, building
    them cost a fifth of the audit)."""
    fingerprint, source, data, rule_sets, game_no, simulated = job
    with no_gc():
        reports = _audit_stored(fingerprint, source, data, rule_sets)
        now = datetime.now(UTC)
        rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        keys: dict[str, str] = {}
        for report in reports:
            add_derived(rows, report, game_no, keys, now)
        return AuditedGame(game_no, simulated, reports), rows


def _audit_stored(fingerprint: str, source: str, data: bytes,
                  rule_sets: Sequence[RuleSet | None]) -> list[dict[str, Any]]:
    from ..audit import audit_log, unreadable_report
    from ..codec import parse_jsonl

    try:
        log = parse_jsonl(data, source)
    except LogFormatError as exc:  # stored events no longer read: the archive was altered
        return [unreadable_report(source, exc)]
    reports = []
    for rules in rule_sets:
        report = audit_log(log, rules, fingerprint=fingerprint)
        report["file"] = source
        reports.append(report)
    return reports


# --- results ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The archive at one moment: its first ``games`` games have the Merkle tree
    hash ``root`` over their fingerprints, in ingest order."""

    games: int
    root: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "root": self.root, "created_at": self.created_at}

    @classmethod
    def from_json(cls, data: bytes | str) -> Checkpoint:
        """A checkpoint as ``yaniv-audit checkpoint --json`` printed it."""
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError):
            raise ArchiveError("the checkpoint is not JSON: expected the line "
                               "yaniv-audit checkpoint --json printed") from None
        if not isinstance(raw, dict):
            raise ArchiveError('the checkpoint: expected an object {"games", "root", '
                               '"created_at"}')
        games, root = raw.get("games"), raw.get("root")
        if type(games) is not int or games < 0:
            raise ArchiveError(f"the checkpoint's games: expected a count, got {games!r}")
        if not isinstance(root, str) or len(root) != 64 or not set(root) <= _HEX:
            raise ArchiveError(f"the checkpoint's root: expected 64 hex digits, got {root!r}")
        return cls(games, root.lower(), str(raw.get("created_at", "an unknown time")))


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A stored game whose events no longer give its fingerprint."""

    fingerprint: str
    game_id: str
    problem: str


# --- the archive -------------------------------------------------------------------


class Archive(Ingesting):
    """One DuckDB archive file, opened for this process (a context manager).

    ``locked`` opens it for a user's SQL (:meth:`user_query`): read-only, on a
    connection that can reach no file, network, extension or setting
    (:data:`yaniv_audit.archive.safe_sql.LOCKED_CONFIG`); the archive must exist. DuckDB
    opens a file once per process: while one connection to it is open, another
    with other settings (read-only or not, locked or not) is refused.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False, create: bool = True,
                 locked: bool = False) -> None:
        self.path = str(path)
        self.locked = locked
        self.con = connect(self.path, read_only=read_only, create=create, locked=locked)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- audit ---------------------------------------------------------------

    def games_to_audit(self, rules: RuleSet | None, *, again: bool = False) -> list[int]:
        """The games without an audit by this engine under ``rules`` (None: as declared)."""
        key = "g.rules_key" if rules is None else "?"
        params: list[Any] = [] if rules is None else [rules.key]
        if again:
            sql, params = "SELECT game_no FROM games g ORDER BY game_no", []
        else:
            sql = (f"SELECT game_no FROM games g WHERE NOT EXISTS (SELECT 1 FROM audits a "
                   f"WHERE a.game_no = g.game_no AND a.rules_key = {key} "
                   f"AND a.engine = ?) ORDER BY game_no")
            params.append(ENGINE)
        return [n for (n,) in self.con.execute(sql, params).fetchall()]

    def audit(self, rules: RuleSet | None = None, *, again: bool = False,
              games: Sequence[int] | None = None, jobs: int | None = None,
              progress: Progress = _no_progress) -> Iterator[dict[str, Any]]:
        """Audit the archived games not yet audited under ``rules`` (None: each game's
        declared rules; ``again``: every game; ``games``: those the caller has just
        listed with :meth:`games_to_audit`) and store the results; yields each report."""
        todo = self.games_to_audit(rules, again=again) if games is None else games
        return self.audit_under({rules: list(todo)}, jobs=jobs, progress=progress)

    def todo_under(self, rule_sets: Sequence[RuleSet | None], *,
                   again: bool = False) -> dict[RuleSet | None, list[int]]:
        """The games each rule set has yet to audit (:meth:`games_to_audit` for each)."""
        return {rules: self.games_to_audit(rules, again=again) for rules in rule_sets}

    def audit_under(self, todo: dict[RuleSet | None, list[int]], *, jobs: int | None = None,
                    progress: Progress = _no_progress) -> Iterator[dict[str, Any]]:
        """Audit each game under the rule sets that list it in ``todo``, in one pass over
        the archive (each game read and parsed once, on ``jobs`` processes), and store the
        results; yields each report, game by game, in the order of ``todo``'s rule sets."""
        for game in self.audit_games(todo, jobs=jobs, progress=progress):
            yield from game.reports

    def audit_games(self, todo: dict[RuleSet | None, list[int]], *, jobs: int | None = None,
                    progress: Progress = _no_progress) -> Iterator[AuditedGame]:
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
        jobs_iter = ((log.fingerprint, log.source, log.data, under(log.game_no), log.game_no,
                      log.simulated) for log in self._stored_logs(order))
        batch: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        with writer_thread("audit-writer") as write, \
                mapped(audit_for_archive, jobs_iter, len(order), jobs) as results:
            with progress(results, len(order), "auditing") as bar:
                for game, rows in bar:
                    for table, found in rows.items():
                        batch[table] += found
                    if (len(batch["rounds"]) >= DERIVED_BATCH
                            or len(batch["audits"]) >= DERIVED_GAMES):
                        write(self._write_derived, batch)
                        batch = {table: [] for table in DERIVED}
                    yield game
            if batch["audits"]:
                write(self._write_derived, batch)

    def ingest_results(self, directory: str | Path, *, progress: Progress = _no_progress,
                       ) -> dict[str, int]:
        """Store the results ``audit --parquet`` wrote under ``directory`` in the derived
        tables, replacing the rows of the same game and rule set (ingesting them again
        changes nothing); counts of results ``stored``, left out as ``other_engine`` (the
        next audit would renew them) and left out as ``unknown`` (no such game here).

        A result goes to the game of the fingerprint in its report, keyed by its rule
        set's parameters and engine version; its rows are rebuilt from the report with
        :func:`derived_rows`, as ``audit --db`` builds them, and keep its ``audited_at``.
        """
        audits = Path(directory) / "audits"
        if not audits.is_dir() or not any(audits.rglob("*.parquet")):
            raise ArchiveError(f"{directory}: no audits/ Parquet files in it; give the --out "
                               "directory of `yaniv-audit audit --parquet`")
        cursor = self.con.cursor()
        try:
            try:
                cursor.execute(
                    "CREATE TEMP TABLE results AS SELECT * FROM (SELECT r.report, r.audited_at, "
                    "g.game_no, r.engine = $2 AS current FROM read_parquet($1, "
                    "hive_partitioning = false, union_by_name = true) r LEFT JOIN games g "
                    "ON g.fingerprint = r.report->>'$.fingerprint' QUALIFY row_number() OVER "
                    "(PARTITION BY r.report->>'$.fingerprint', r.rules_key "
                    "ORDER BY r.audited_at DESC) = 1)", [str(audits / "**" / "*.parquet"),
                                                         ENGINE])
            except duckdb.Error as exc:
                raise ArchiveError(f"{directory}: not the results of `audit --parquet` "
                                   f"({_first_line(str(exc))})") from None
            (stored, other, unknown), = cursor.execute(
                "SELECT count(*) FILTER (current AND game_no IS NOT NULL), count(*) FILTER "
                "(NOT current AND game_no IS NOT NULL), count(*) FILTER (game_no IS NULL) "
                "FROM results").fetchall()
            cursor.execute("SELECT report, audited_at, game_no FROM results WHERE current "
                           "AND game_no IS NOT NULL ORDER BY game_no")
            rows = (row for rows in iter(lambda: cursor.fetchmany(READ_BATCH), [])
                    for row in rows)
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
        self._store_audits(reports, {r["fingerprint"]: n for r, (_, _, n)
                                     in zip(reports, batch, strict=True)},
                           [when for _, when, _ in batch])

    def _store_audits(self, reports: list[dict[str, Any]], number_of: dict[str, int],
                      audited_at: Sequence[datetime] | None = None) -> None:
        """Store the derived rows of ``reports`` (``number_of``: fingerprint -> game_no),
        replacing those of the same game and rule set, in one transaction (``audited_at``:
        each report's time stamp, else now)."""
        now = datetime.now(UTC)
        keys: dict[str, str] = {}
        rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
        for i, report in enumerate(reports):
            add_derived(rows, report, number_of[report["fingerprint"]], keys,
                        now if audited_at is None else audited_at[i])
        self._write_derived(rows)

    def _write_derived(self, rows: dict[str, list[tuple[Any, ...]]]) -> None:
        """Store the rows of each derived table, replacing those of the same games and rule
        sets (the ``audits`` rows name them), in one transaction, as Arrow tables."""
        import pyarrow.compute as pc

        tables = derived_tables(rows)
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            audited = tables["audits"].select(["game_no", "rules_key"])
            if audited.num_rows:
                # the range first: DuckDB then skips the row groups of other games
                numbers = audited.column("game_no")
                span = [pc.min(numbers).as_py(), pc.max(numbers).as_py()]
                con.register("_audited", audited)
                for table in DERIVED:
                    con.execute(f"DELETE FROM {table} WHERE game_no BETWEEN $1 AND $2 "  # noqa: S608
                                "AND (game_no, rules_key) IN "
                                "(SELECT game_no, rules_key FROM _audited)", span)
                con.unregister("_audited")
            for table in DERIVED:
                if tables[table].num_rows:
                    con.register("_derived", tables[table])
                    con.execute(f"INSERT INTO {table} SELECT * FROM _derived")  # noqa: S608
                    con.unregister("_derived")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    # --- verify ---------------------------------------------------------------

    def verify(self, *, jobs: int | None = None, progress: Progress = _no_progress,
               ) -> tuple[int, list[Mismatch]]:
        """Recompute every game's fingerprint from its stored events, on ``jobs`` processes
        (default: every core): (games, mismatches)."""
        numbers = [n for (n,) in self.con.execute(
            "SELECT game_no FROM games ORDER BY game_no").fetchall()]
        info = {fp: (events, game_id, extends) for fp, events, game_id, extends in
                self.con.execute("SELECT fingerprint, events, game_id, extends FROM games")
                .fetchall()}

        def job(fingerprint: str, data: bytes) -> tuple[str, bytes, int, str | None, int | None]:
            events, _, extends = info[fingerprint]
            return fingerprint, data, events, extends, info[extends][0] if extends in info else None

        work = (job(log.fingerprint, log.data) for log in self._stored_logs(numbers))
        mismatches = []
        seen = 0
        with mapped(check_stored, work, len(numbers), jobs) as results, \
                progress(results, len(numbers), "verifying") as bar:
            for fingerprint, problem in bar:
                seen += 1
                if problem is not None:
                    mismatches.append(Mismatch(fingerprint, info[fingerprint][1], problem))
        if seen != len(numbers):  # a game with no events at all never comes out of the join
            missing = self.con.execute(
                "SELECT fingerprint, game_id FROM games g WHERE NOT EXISTS "
                "(SELECT 1 FROM events e WHERE e.game_no = g.game_no)").fetchall()
            mismatches.extend(Mismatch(fp, gid, "no events stored") for fp, gid in missing)
        return len(numbers), mismatches


    def verify_audits(self, *, jobs: int | None = None, progress: Progress = _no_progress,
                      ) -> tuple[int, int, list[Mismatch]]:
        """Audit every stored game again under each rule set it was audited under by this
        engine, and compare every derived row: (audits checked, audits by another engine
        version, not checked, mismatches)."""
        from ..rules import resolve_rules

        rows = self.con.execute(
            "SELECT g.game_no, g.game_id, g.fingerprint, a.rules_key, a.rules_id, a.engine "
            "FROM audits a JOIN games g USING (game_no) ORDER BY g.game_no, a.rules_key"
        ).fetchall()
        wanted: dict[str, list[RuleSet | None]] = {}
        game_of: dict[str, tuple[int, str]] = {}
        stale = 0
        for game_no, game_id, fp, _key, rules_id, engine in rows:
            if engine != ENGINE:
                stale += 1
                continue
            wanted.setdefault(fp, []).append(resolve_rules(rules_id))
            game_of[fp] = (game_no, game_id)
        order = sorted(wanted, key=lambda fp: game_of[fp][0])
        jobs_iter = ((log.fingerprint, log.source, log.data, wanted[log.fingerprint])
                     for log in self._stored_logs([game_of[fp][0] for fp in order]))
        mismatches: list[Mismatch] = []
        checked = 0
        keys: dict[str, str] = {}
        with mapped(audit_archived, jobs_iter, len(order), jobs) as results:
            with progress(results, len(order), "re-auditing") as bar:
                for reports in bar:
                    if reports[0]["verdict"] == "unreadable":
                        continue  # verify's check of the events says what happened
                    fp = reports[0]["fingerprint"]
                    stored = self._stored_rows(game_of[fp][0])
                    for report in reports:
                        checked += 1
                        fresh = derived_rows(report, game_of[fp][0], keys)
                        key = fresh["audits"][0][1]
                        problem = _audit_difference(stored.get(key, {}), fresh)
                        if problem is not None:
                            mismatches.append(Mismatch(
                                fp, game_of[fp][1],
                                f"under {report['rules']['id']}: {problem}"))
        return checked, stale, mismatches

    def _stored_rows(self, game_no: int) -> dict[str, dict[str, list[tuple[Any, ...]]]]:
        """The derived rows stored for one game: rules_key -> table -> rows."""
        out: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
        for table in DERIVED:
            columns = "* EXCLUDE (audited_at)" if table == "audits" else "*"
            for row in self.con.execute(
                    f"SELECT {columns} FROM {table} WHERE game_no = ?",  # noqa: S608
                    [game_no]).fetchall():
                out.setdefault(row[1], {}).setdefault(table, []).append(row)
        return out

    # --- checkpoints ------------------------------------------------------------

    def _fingerprints(self) -> list[bytes]:
        return [bytes.fromhex(fp) for (fp,) in self.con.execute(
            "SELECT fingerprint FROM games ORDER BY game_no").fetchall()]

    def checkpoint(self) -> Checkpoint:
        """Record and return the archive's checkpoint: how many games it holds and the
        Merkle tree hash of their fingerprints in ingest order. Kept outside the
        archive, it lets :meth:`check_checkpoint` show later that the archive only
        grew: no game removed, replaced or reordered."""
        from ..merkle import tree_hash

        fingerprints = self._fingerprints()
        point = Checkpoint(len(fingerprints), tree_hash(fingerprints).hex(),
                           datetime.now(UTC).isoformat(timespec="seconds"))
        self.con.execute("INSERT INTO checkpoints VALUES (?, ?, ?)",
                         [point.games, point.root, datetime.fromisoformat(point.created_at)])
        return point

    def check_checkpoint(self, point: Checkpoint) -> str | None:
        """None if the archive still begins with the games of ``point``, else what differs."""
        from ..merkle import tree_hash

        fingerprints = self._fingerprints()
        if len(fingerprints) < point.games:
            return (f"the checkpoint of {point.created_at} vouches for {point.games} games; "
                    f"the archive holds {len(fingerprints)}")
        if tree_hash(fingerprints[:point.games]).hex() != point.root.lower():
            return (f"the archive's first {point.games} games are not those of the checkpoint "
                    f"of {point.created_at}: a game was removed, replaced or reordered")
        return None

    def checkpoints(self) -> list[Checkpoint]:
        return [Checkpoint(n, root, at.isoformat(timespec="seconds")) for n, root, at in
                self.con.execute("SELECT games, root, created_at FROM checkpoints "
                                 "ORDER BY created_at, games").fetchall()]

    # --- export ----------------------------------------------------------------

    def export(self, target: str | Path, by: str = "month") -> dict[str, int]:
        """Every table as Parquet files under ``target``, partitioned Hive-style by the
        month the game started (``year=/month=``) or by rule set (``rules=``); rows per table.

        Under ``rules`` the games and events go by the rules each game declared,
        the derived tables by the rules they were audited under. Every row of a game's
        events carries the game's partition values, so a game never spans partitions,
        and its ``fingerprint``, ``rules_key`` and ``rules_id`` (declared), so the events
        alone can be audited elsewhere (:mod:`yaniv_audit.distributed`).
        """
        if by not in EXPORT_BY:
            raise ValueError(f"unknown partitioning {by!r}; expected {' or '.join(EXPORT_BY)}")
        out = Path(target)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise ArchiveError(f"{out}: exists and is not an empty directory; export writes "
                               "into a new or empty one")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArchiveError(f"{out}: cannot create the directory ({exc.strerror})") from None
        # DuckDB buffers each partition's rows before it writes them out: by default half
        # a million rows per partition, which put 10,000 games (12 months) over the
        # archive's memory limit; bounded here, in rows and in partitions open at once
        self.con.execute(f"SET partitioned_write_flush_threshold = {EXPORT_FLUSH_ROWS}")
        self.con.execute(f"SET partitioned_write_max_open_files = {EXPORT_OPEN_FILES}")
        counts = {}
        for table in EXPORTED:
            sql, partition = _export_select(table, by)
            (rows,) = _one(self.con.execute(f"SELECT count(*) FROM {table}")) or (0,)
            counts[table] = int(rows)
            if not rows:
                continue
            try:
                self.con.sql(sql).write_parquet(str(out / table), partition_by=partition)
            except duckdb.Error as exc:
                raise ArchiveError(f"{out / table}: cannot write ({_first_line(str(exc))})"
                                   ) from None
        return counts

    # --- SQL -------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[Any] = (),
              ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of one SQL statement of this package's own (with ``?``
        parameters for anything a user gave); a user's SQL goes to :meth:`user_query`."""
        try:
            cursor = self.con.execute(sql, list(params))
        except duckdb.Error as exc:
            if _short_of_memory(exc):
                raise out_of_memory(self.path, exc) from None
            raise ArchiveError(f"query failed: {_first_line(str(exc))}") from None
        if cursor.description is None:
            return [], []
        return [d[0] for d in cursor.description], cursor.fetchall()

    def user_query(self, sql: str, *, timeout: float | None = None,
                   ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of a user's SQL: one SELECT that reads only the archive's
        tables (:mod:`yaniv_audit.archive.safe_sql`), stopped after ``timeout`` seconds (None:
        the default, 30), in a process of its own whose memory the system bounds and which
        is killed at the time limit (:func:`~yaniv_audit.archive.safe_sql.run_isolated`). Anything
        else raises :class:`~yaniv_audit.errors.QueryError`
        (:class:`~yaniv_audit.errors.QueryRefused`, :class:`~yaniv_audit.errors.QueryTimeout`)
        with what and why, on one line. The archive must be open ``locked``."""
        if not self.locked:
            raise ArchiveError("a user's SQL runs only on an archive opened locked "
                               "(Archive(path, locked=True))")
        return safe_sql.run_isolated(
            self.path, sql, safe_sql.DEFAULT_TIMEOUT if timeout is None else timeout,
            str(memory_limit()["memory_limit"]))


def _export_select(table: str, by: str) -> tuple[str, list[str]]:
    """The SELECT of one table with its partition columns added, and their names."""
    game = "t" if table == "games" else "g"
    join = "" if table == "games" else " JOIN games g USING (game_no)"
    # the events carry their game's fingerprint and declared rules: audited without `games`
    extra = ", g.fingerprint, g.rules_key, g.rules_id" if table == "events" else ""
    if by == "month":
        columns = f"year({game}.started_at) AS year, month({game}.started_at) AS month"
        names = ["year", "month"]
    else:
        key = f"{game}.rules_key" if table in ("games", "events", "deals") else "t.rules_key"
        columns, names = f"{key} AS rules", ["rules"]
    return f"SELECT t.*{extra}, {columns} FROM {table} t{join}", names  # noqa: S608


__all__ = [
    "DB_ENV", "DEFAULT_DB", "DERIVED", "LATEST", "MEMORY_ENV", "SCHEMA_VERSION", "SIMULATED",
    "TABLES", "VIEWS", "Added", "Archive", "ArchiveError", "AuditedGame", "Checkpoint",
    "IngestResult", "Mismatch", "Progress", "Refused", "Rewrite", "StoredLog", "add_derived",
    "audit_archived", "damaged", "default_db", "derived_tables", "memory_limit", "out_of_memory",
]
