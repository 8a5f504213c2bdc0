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
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa

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
    ArchiveBase,
    Progress,
    StoredLog,
    _first_line,
    _insert,
    _no_progress,
    _one,
    _short_of_memory,
    damaged,
    default_db,
    memory_limit,
    out_of_memory,
    writer_thread,
)
from .rows import (
    DEAL_COLUMNS,
    EVENT_COLUMNS,
    IngestRow,
    add_derived,
    deal_rows,
    deal_table,
    derived_rows,
    derived_tables,
    event_table,
    from_stream,
    opening_md5,
    player_round_rows,
    to_stream,
)
from .schema import (
    DERIVED,
    DERIVED_TABLES,
    GAME_TABLES,
    LATEST,
    MIGRATES_FROM,
    SCHEMA,
    SCHEMA_VERSION,
    SIMULATED,
    TABLES,
    VIEWS,
    _summarize,
)

_HEX = frozenset("0123456789abcdefABCDEF")
#: audit --db writes the derived rows of the games it audited when it holds this many
#: rounds (about a tenth of the rows) or this many games' audits, whichever comes first:
#: a game its rules call corrupt at the first deal has one round, and counting rounds
#: alone held 100,000 such games' rows (and report JSON) until the end
DERIVED_BATCH, DERIVED_GAMES = 50_000, 5_000
#: event rows collected before they are written, when ingesting: four of DuckDB's row
#: groups (122,880 rows each), which it compresses and writes whole, in parallel, without
#: the write-ahead log; in batches of 50,000 the same games took 2.8 times as long to store
#: and made an archive 1.4 times as big
WRITE_BATCH = 4 * 122_880

#: export: rows of one partition DuckDB buffers before writing them, and partitions open at
#: once (so at most about 480,000 rows of a table in memory, some 70 MB of events)
EXPORT_FLUSH_ROWS = 60_000
EXPORT_OPEN_FILES = 8


#: schema 2's player_rounds (keyed by fingerprint), made when migrating from schema 1
PLAYER_ROUNDS_2 = DERIVED_TABLES[DERIVED_TABLES.index("CREATE TABLE IF NOT EXISTS player_rounds"):
                                 ].replace("game_no INTEGER", "fingerprint VARCHAR", 1)


#: the tables export writes (the checkpoints stay with the archive they vouch for)
EXPORTED = ("games", "events", "deals", "audits", "findings", "rounds", "standings",
            "player_rounds")
#: how ``export`` can partition the Parquet files
EXPORT_BY = ("month", "rules")


# --- reading logs for the archive (in worker processes) -----------------------


@dataclass(frozen=True, slots=True)
class Added:
    """A log that one ingest stored: what is said of it afterwards (not its events, so
    that an ingest's memory does not grow with the number of games)."""

    source: str
    fingerprint: str
    game_id: str
    events: int


@dataclass(frozen=True, slots=True)
class Refused:
    """A log that could not be read, and why."""

    source: str
    error: LogFormatError


def read_for_ingest(path: str) -> IngestRow | Refused:
    """Read and check one log file; the rows to store, or why it is refused."""
    with no_gc():
        return _read_for_ingest(path)


def _read_for_ingest(path: str) -> IngestRow | Refused:
    from ..codec import read_log
    from ..merkle import tree_hash

    try:
        log = read_log(path)
    except LogFormatError as exc:
        return Refused(path, exc)
    game = log.game
    fingerprint = tree_hash(log.leaves).hex()
    started = None
    if game.at is not None:
        started = datetime.fromisoformat(game.at)
    return IngestRow(
        deals=to_stream(deal_table(deal_rows(log.events, game.rules))),
        source=path, fingerprint=fingerprint, game_id=game.game_id or fingerprint,
        players=list(game.players), rules_key=game.rules.key, rules_id=game.rules.id,
        started_at=started, events=to_stream(event_table(log.events, log.leaves)),
        opening=opening_md5(log.leaves[0]), count=len(log.leaves),
    )


#: SQL: the typed columns of ``events`` from each stored event's JSON, for an archive
#: of schema 1 (what :func:`event_columns` gives at ingest)
BACKFILL = """
UPDATE events SET round = t.round, source = t.source, cards = t.cards
FROM (
    SELECT game_no, seq,
           CASE WHEN type IN ('round_started', 'round_ended')
                    THEN TRY_CAST(event->>'round' AS INTEGER)
                WHEN type IN ('game_started', 'game_ended') THEN NULL
                ELSE last_value(CASE WHEN type = 'round_started'
                                     THEN TRY_CAST(event->>'round' AS INTEGER) END
                                IGNORE NULLS) OVER (PARTITION BY game_no ORDER BY seq
                                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
           END AS round,
           CASE WHEN type = 'draw' THEN event->>'source' END AS source,
           CASE WHEN type = 'discard' THEN json_extract_string(event, '$.cards[*]')
                WHEN type IN ('draw', 'slap') AND event->>'card' IS NOT NULL
                    THEN [event->>'card']
           END AS cards
    FROM events
) t
WHERE events.game_no = t.game_no AND events.seq = t.seq
"""


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


@dataclass(slots=True)
class IngestResult:
    """What one ingest did, file by file (the games added only counted unless asked for:
    at 100,000 games the list alone held 30 MB)."""

    #: the games added and their events
    games: int = 0
    events: int = 0
    #: each game added, when :meth:`Archive.ingest` was asked to list them
    added: list[Added] = field(default_factory=list)
    #: (file, fingerprint, the file it was first ingested from)
    duplicates: list[tuple[str, str, str]] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    #: (file, fingerprint, game_id, the version it extends, its size): a paused game continued
    extensions: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    #: (file, fingerprint, game_id, the longer version archived already)
    earlier: list[tuple[str, str, str, str]] = field(default_factory=list)
    #: (file, fingerprint, game_id, the other version, the first event that differs)
    conflicts: list[tuple[str, str, str, str, int]] = field(default_factory=list)

    @classmethod
    def merged(cls, parts: Iterable[IngestResult]) -> IngestResult:
        """The results of several batches, in their order."""
        whole = cls()
        for part in parts:
            whole.games += part.games
            whole.events += part.events
            for name in cls.__dataclass_fields__:
                if name not in ("games", "events"):
                    getattr(whole, name).extend(getattr(part, name))
        return whole


@dataclass(slots=True)
class _Version:
    """A version of a game met while ingesting: the md5 of its first event (the
    canonical game_started), and its events once they are needed."""

    fingerprint: str
    opening: str | None
    game_no: int | None
    leaves: list[str] | None = None
    #: the version it rewrites, if it does
    rewrites: str | None = None
    #: the log it is, when it is being ingested with this one
    row: IngestRow | None = None


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


@dataclass(frozen=True, slots=True)
class Rewrite:
    """An archived log that rewrites an archived game: the same game_id and game_started,
    then other events from ``differs_at`` on. It is kept as evidence and never counted."""

    game_id: str
    fingerprint: str
    source: str
    rewrites: str
    rewrites_source: str
    differs_at: int


# --- the archive -------------------------------------------------------------------


class _OlderSchema(Exception):
    """An archive of an older schema, opened read-only: it must be migrated first."""


class Archive(ArchiveBase):
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
        if locked:
            read_only, create = True, False
        exists = self.path == ":memory:" or Path(self.path).exists()
        if locked and self.path == ":memory:":
            raise ArchiveError(":memory: is no archive to open locked (read-only)")
        if not exists and not create:
            raise ArchiveError(f"{self.path}: no such archive (create one with yaniv-audit ingest)")
        if Path(self.path).is_dir():
            raise ArchiveError(f"{self.path}: is a directory, not an archive file")
        memory = memory_limit()
        try:
            if locked:
                self.con = duckdb.connect(self.path, read_only=True,
                                          config={**safe_sql.LOCKED_CONFIG, **memory})
            else:
                self.con = duckdb.connect(self.path, read_only=read_only and exists,
                                          config=memory)
        except duckdb.Error as exc:
            text = _first_line(str(exc))
            if _short_of_memory(exc):
                raise out_of_memory(self.path, exc) from None
            if "memory" in text.lower() and MEMORY_ENV in os.environ:
                raise ArchiveError(
                    f"{MEMORY_ENV}={memory['memory_limit']!r}: expected a size such as 512MB "
                    "or 2GB") from None
            if "different configuration" in text:
                raise ArchiveError(
                    f"{self.path}: the archive is open in this process already with other "
                    "settings (DuckDB opens a file once per process); close it first") from None
            if "could not set lock" in text.lower() or "conflicting lock" in text.lower():
                raise ArchiveError(
                    f"{self.path}: the archive is in use by another process that writes to it "
                    "(an ingest or audit --db, say): run the command again when that one has "
                    "finished") from None
            if "could not read enough bytes" in text.lower():
                raise damaged(self.path, exc) from None
            if "not a valid DuckDB database" in text:
                raise ArchiveError(
                    f"{self.path}: not a DuckDB archive (the file is no DuckDB database)"
                ) from None
            raise ArchiveError(f"{self.path}: cannot open the archive ({text})") from None
        try:
            self._prepare(read_only)
        except _OlderSchema:
            # opened read-only: migrate on a connection of its own, then open as asked
            self.con.close()
            try:
                Archive(self.path, create=False).close()
            except ArchiveError as exc:
                raise ArchiveError(
                    f"{exc} (its schema is older: it is brought forward to schema "
                    f"{SCHEMA_VERSION} the first time it is opened, which writes to it)"
                ) from None
            self.__init__(path, read_only=read_only, create=create,  # type: ignore[misc]
                          locked=locked)
        except duckdb.Error as exc:
            self.con.close()
            raise damaged(self.path, exc) from None
        except BaseException:
            self.con.close()
            raise

    def _prepare(self, read_only: bool) -> None:
        tables = {row[0] for row in self.con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()}
        if "archive_info" in tables:
            row = _one(self.con.execute("SELECT value FROM archive_info WHERE key = 'schema'"))
            if row is not None and row[0] in MIGRATES_FROM:
                if read_only:
                    raise _OlderSchema(row[0])
                self._migrate(row[0])
                return
            if row is None or row[0] != SCHEMA_VERSION:
                raise ArchiveError(
                    f"{self.path}: archive schema {row[0] if row else 'unknown'}, this "
                    f"yaniv-audit reads schema {SCHEMA_VERSION}")
            return
        if tables:
            raise ArchiveError(
                f"{self.path}: a DuckDB database, but not a yaniv-audit archive "
                f"(it has tables {', '.join(sorted(tables))})")
        if read_only:
            raise ArchiveError(f"{self.path}: an empty database, not a yaniv-audit archive yet")
        # one transaction: a new archive killed while being made is no archive at all
        self.con.execute("BEGIN TRANSACTION")
        try:
            self.con.execute(SCHEMA)
            self.con.execute("INSERT INTO archive_info VALUES ('schema', ?), ('created_by', ?)",
                             [SCHEMA_VERSION, ENGINE])
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise

    def _migrate(self, version: str) -> None:
        """Bring an archive of schema ``version`` forward to :data:`SCHEMA_VERSION`, in one
        transaction, a schema at a time (:meth:`_schema_2` to :meth:`_schema_5`)."""
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            if version == "1":
                self._schema_2()  # its player_rounds is made with schema 5's opened
            elif version == "2":
                self._schema_5("fingerprint")  # before schema 3 copies player_rounds
            if version in ("1", "2"):
                self._schema_3()
            else:
                self._schema_5("game_no")
            if version != "4":
                self._schema_4()
            self._openings()
            for view in ("games", *DERIVED):  # made again: a view's columns are fixed when made
                con.execute(f"DROP VIEW IF EXISTS latest_{view}")
            con.execute(VIEWS)
            con.execute("UPDATE archive_info SET value = ? WHERE key = 'schema'",
                        [SCHEMA_VERSION])
            con.execute("INSERT OR REPLACE INTO archive_info VALUES (?, ?)",
                        [f"migrated_from_{version}", ENGINE])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def _schema_2(self) -> None:
        """Schema 1 to 2: the typed columns of ``events`` added and filled from each
        event's JSON (:data:`BACKFILL`); ``player_rounds`` created and filled from every
        stored audit report."""
        con = self.con
        for column, kind in (("round", "INTEGER"), ("source", "VARCHAR"),
                             ("cards", "VARCHAR[]")):
            con.execute(f"ALTER TABLE events ADD COLUMN {column} {kind}")
        con.execute(BACKFILL)
        con.execute(PLAYER_ROUNDS_2)
        audits = con.execute("SELECT fingerprint, rules_key FROM audits "
                             "ORDER BY fingerprint, rules_key").fetchall()
        for start in range(0, len(audits), READ_BATCH):
            batch = audits[start:start + READ_BATCH]
            reports = con.execute(
                "SELECT fingerprint, rules_key, report FROM audits WHERE "
                "(fingerprint, rules_key) IN "
                "(SELECT unnest($1::VARCHAR[]), unnest($2::VARCHAR[]))",
                [[fp for fp, _ in batch], [key for _, key in batch]]).fetchall()
            rows = [row for fp, key, text in reports
                    for row in player_round_rows(json.loads(text), key, fp)]
            if rows:
                _insert(con, "player_rounds",
                        [list(column) for column in zip(*rows, strict=True)])

    def _schema_3(self) -> None:
        """Schema 2 to 3: the derived tables keyed by ``game_no`` instead of the
        fingerprint (rows of a game no longer archived are dropped); ``games.rewrites``
        added and filled (:meth:`_flag_rewrites`); the ``latest_*`` views."""
        con = self.con
        con.execute("DROP VIEW IF EXISTS latest_games")
        con.execute("ALTER TABLE games ADD COLUMN rewrites VARCHAR")
        for table in DERIVED:
            con.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
        con.execute(GAME_TABLES)  # deals: the other tables are there
        con.execute(DERIVED_TABLES)
        for table in DERIVED:
            con.execute(f"INSERT INTO {table} SELECT g.game_no, o.* EXCLUDE (fingerprint) "  # noqa: S608
                        f"FROM old_{table} o JOIN games g USING (fingerprint)")
            con.execute(f"DROP TABLE old_{table}")
        self._flag_rewrites()
        self._fill_deals()
        con.execute(VIEWS)

    def _schema_4(self) -> None:
        """Schema 3 to 4: ``round_turns`` and ``draw_cards`` created and filled from the
        stored events (:data:`SUMMARIES`)."""
        self.con.execute(GAME_TABLES)  # the new tables: the others are there
        (last,) = _one(self.con.execute("SELECT coalesce(max(game_no), 0) FROM games")) or (0,)
        _summarize(self.con, 1, last)

    def _schema_5(self, key: str) -> None:
        """Schema 4 to 5: ``player_rounds.opened``, from each round's starter in ``rounds``
        (joined on ``key``: the fingerprint before schema 3). The table is made again, as
        DuckDB cannot make a filled column NOT NULL in the transaction that fills it."""
        con = self.con
        con.execute("ALTER TABLE player_rounds RENAME TO old_player_rounds")
        con.execute(PLAYER_ROUNDS_2 if key == "fingerprint" else DERIVED_TABLES)
        con.execute(f"""INSERT INTO player_rounds
                        SELECT o.*, coalesce(o.player = r.starter, false)
                        FROM old_player_rounds o LEFT JOIN rounds r
                        ON o.{key} = r.{key} AND o.rules_key = r.rules_key
                        AND o.round = r.round""")  # noqa: S608
        con.execute("DROP TABLE old_player_rounds")

    def _openings(self) -> None:
        """Schema 4 to 5, the other part: ``games.opening_md5`` added and filled from each
        game's first stored event (DuckDB's md5 of the same text :func:`opening_md5`
        hashes)."""
        con = self.con
        con.execute("ALTER TABLE games ADD COLUMN opening_md5 VARCHAR")
        con.execute("UPDATE games SET opening_md5 = md5(e.event) FROM events e "
                    "WHERE e.game_no = games.game_no AND e.seq = 0")

    def _fill_deals(self) -> None:
        """Fill ``deals`` of an archive ingested before it was kept, from the stored
        round_started events (:func:`deal_rows`)."""
        from ..codec import parse_jsonl
        from ..rules import resolve_rules

        con = self.con
        numbers = [n for (n,) in con.execute(
            "SELECT DISTINCT game_no FROM events WHERE type = 'round_started' "
            "AND event LIKE '%\"hands\"%' ORDER BY game_no").fetchall()]
        rules_of = dict(con.execute("SELECT game_no, rules_id FROM games").fetchall())
        for stored in self._stored_logs(numbers):
            try:
                log = parse_jsonl(stored.data, stored.source)
            except LogFormatError:
                continue  # altered since it was stored: verify says so
            n = stored.game_no
            deals = [(n, *deal) for deal in deal_rows(log.events, resolve_rules(rules_of[n]))]
            if deals:
                _insert(con, "deals", [list(column) for column in zip(*deals, strict=True)])

    def _flag_rewrites(self) -> None:
        """Fill ``games.rewrites`` of an archive ingested before it was kept: every game_id
        with several versions is classified again in ingest order, as :meth:`_versions`
        does on ingest."""
        con = self.con
        shared = con.execute(
            "SELECT game_id, list(game_no ORDER BY game_no) FROM games GROUP BY game_id "
            "HAVING count(*) > 1").fetchall()
        for _, numbers in shared:
            versions: list[_Version] = []
            for number in numbers:
                (fingerprint,) = _one(con.execute(
                    "SELECT fingerprint FROM games WHERE game_no = ?", [number])) or ("",)
                version = _Version(fingerprint, None, number)
                leaves = self._leaves(version)
                version.opening = opening_md5(leaves[0].encode()) if leaves else None
                target = _relate(version.leaves or [], versions).rewrites
                if target is not None:
                    version.rewrites = target
                    con.execute("UPDATE games SET rewrites = ? WHERE game_no = ?",
                                [target, number])
                versions.append(version)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- ingest -------------------------------------------------------------

    def ingest(self, files: Sequence[str], *, jobs: int | None = None,
               progress: Progress = _no_progress, list_added: bool = True) -> IngestResult:
        """Read ``files`` on ``jobs`` processes and store every new readable game.

        A game already archived (same fingerprint) is not stored again; an
        unreadable file is refused with its error and the others go on. Without
        ``list_added`` the games added are only counted.
        """
        parts: list[IngestResult] = []  # one per batch, in order: merged at the end
        part = IngestResult()
        pending: dict[str, IngestRow] = {}  # by fingerprint: one copy of a game per run
        pending_events = 0
        with writer_thread("ingest-writer") as write, \
                mapped(read_for_ingest, files, len(files), jobs) as rows:
            with progress(rows, len(files), "ingesting") as bar:
                for row in bar:
                    if isinstance(row, Refused):
                        part.refused.append(row)
                    elif row.fingerprint in pending:
                        first = pending[row.fingerprint].source
                        part.duplicates.append((row.source, row.fingerprint, first))
                    else:
                        pending[row.fingerprint] = row
                        pending_events += row.count
                        if pending_events >= WRITE_BATCH:
                            write(self._store_new, list(pending.values()), part,
                                  list_added)
                            parts.append(part)
                            part, pending, pending_events = IngestResult(), {}, 0
            if pending:
                write(self._store_new, list(pending.values()), part, list_added)
            parts.append(part)
        return IngestResult.merged(parts)

    def _store_new(self, rows: list[IngestRow], result: IngestResult,
                   list_added: bool = True) -> None:
        """Store the games not archived yet; note the others as duplicates."""
        stored = dict(self.con.execute(
            "SELECT fingerprint, source FROM games WHERE fingerprint IN "
            "(SELECT unnest($1::VARCHAR[]))", [[r.fingerprint for r in rows]]).fetchall())
        new = [r for r in rows if r.fingerprint not in stored]
        result.duplicates.extend((r.source, r.fingerprint, stored[r.fingerprint])
                                 for r in rows if r.fingerprint in stored)
        if new:
            self._store(new, *self._versions(new, result))
            result.games += len(new)
            result.events += sum(r.count for r in new)
            if list_added:
                result.added.extend(Added(r.source, r.fingerprint, r.game_id, r.count)
                                    for r in new)

    def _versions(self, rows: list[IngestRow], result: IngestResult,
                  ) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """How each new log relates to the other versions of its game (same game_id
        and the same game_started): the longest version it continues unchanged, a
        longer one it is the start of, and the version it rewrites (each by
        fingerprint); ``result`` lists them, and every conflict (the same start, then
        other events).

        A log rewrites a version when it conflicts with it and that version is no
        rewrite itself: the first version archived is the game, a later one that
        changes its events is kept as evidence but not counted (:data:`LATEST`).
        """
        known: dict[str, list[_Version]] = {}
        # only the versions with the same game_started can relate: found by its md5
        archived = self.con.execute(
            "SELECT fingerprint, game_id, game_no, rewrites, opening_md5 FROM games "
            "WHERE opening_md5 IN (SELECT unnest($1::VARCHAR[])) "
            "AND game_id IN (SELECT unnest($2::VARCHAR[])) ORDER BY game_no",
            [list({r.opening for r in rows}), list({r.game_id for r in rows})]).fetchall()
        for fingerprint, game_id, game_no, rewritten, opening in archived:
            known.setdefault(game_id, []).append(
                _Version(fingerprint, opening, game_no, rewrites=rewritten))
        extends: dict[str, str] = {}
        part_of: dict[str, str] = {}
        rewrites: dict[str, str] = {}
        for row in rows:
            versions = known.setdefault(row.game_id, [])
            found = _Relation()
            if any(version.opening == row.opening for version in versions):
                for version in versions:
                    if version.opening == row.opening and version.leaves is None:
                        self._leaves(version)
                found = _relate(row.leaves(), versions)
            if found.extends is not None:
                extends[row.fingerprint] = found.extends
                result.extensions.append((row.source, row.fingerprint, row.game_id,
                                          found.extends, found.shared))
            if found.part_of is not None:
                part_of[row.fingerprint] = found.part_of
                result.earlier.append((row.source, row.fingerprint, row.game_id,
                                       found.part_of))
            if found.rewrites is not None:
                rewrites[row.fingerprint] = found.rewrites
                result.conflicts.append((row.source, row.fingerprint, row.game_id,
                                         found.rewrites, found.differs_at))
            versions.append(_Version(row.fingerprint, row.opening, None, None,
                                     found.rewrites, row=row))
        return extends, part_of, rewrites

    def _leaves(self, version: _Version) -> list[str]:
        """The events of a version met while ingesting (archived, or in this batch),
        read once."""
        if version.row is not None:
            version.leaves = version.row.leaves()
            return version.leaves
        (leaves,) = _one(self.con.execute(
            "SELECT list(event ORDER BY seq) FROM events WHERE game_no = ?",
            [version.game_no])) or ([],)
        version.leaves = list(leaves or [])
        return version.leaves

    def _store(self, rows: list[IngestRow], extends: dict[str, str],
               part_of: dict[str, str], rewrites: dict[str, str]) -> None:
        """Write games and their events in one transaction."""
        now = datetime.now(UTC)
        con = self.con
        con.execute("BEGIN TRANSACTION")
        try:
            (last,) = _one(con.execute("SELECT coalesce(max(game_no), 0) FROM games")) or (0,)
            numbers = range(last + 1, last + 1 + len(rows))
            now_col = [now] * len(rows)
            _insert(con, "games", [
                list(numbers), [r.fingerprint for r in rows], [r.game_id for r in rows],
                [r.source for r in rows], [r.players for r in rows],
                [r.rules_key for r in rows], [r.rules_id for r in rows],
                [r.count for r in rows], [extends.get(r.fingerprint) for r in rows],
                [part_of.get(r.fingerprint) for r in rows], [r.started_at for r in rows],
                now_col, [rewrites.get(r.fingerprint) for r in rows],
                [r.opening for r in rows],
            ])
            _append(con, "events", EVENT_COLUMNS, [from_stream(r.events) for r in rows],
                    numbers)
            _append(con, "deals", DEAL_COLUMNS, [from_stream(r.deals) for r in rows],
                    numbers)
            _summarize(con, numbers.start, numbers.stop - 1)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    # --- reading back ---------------------------------------------------------


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

    def rewrites(self) -> list[Rewrite]:
        """Every archived log that rewrites an archived game, in ingest order."""
        found = []
        for game_id, fp, source, no, other, other_source, other_no in self.con.execute(
                "SELECT g.game_id, g.fingerprint, g.source, g.game_no, o.fingerprint, o.source, "
                "o.game_no FROM games g JOIN games o ON o.fingerprint = g.rewrites "
                "ORDER BY g.game_no").fetchall():
            mine = self._leaves(_Version(fp, None, no))
            theirs = self._leaves(_Version(other, None, other_no))
            found.append(Rewrite(game_id, fp, source, other, other_source,
                                 _common_prefix(mine, theirs)))
        return found

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


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """How many events two versions of a game share from the start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True, slots=True)
class _Relation:
    """How a log relates to the archived versions of its game (by fingerprint)."""

    #: the longest version it continues unchanged, and how many events that one has
    extends: str | None = None
    shared: int = 0
    #: the longest version it is the unchanged start of
    part_of: str | None = None
    #: the longest version, itself no rewrite, whose events it changes, and the first
    #: event that differs
    rewrites: str | None = None
    differs_at: int = 0


def _relate(leaves: Sequence[str], versions: Sequence[_Version]) -> _Relation:
    """How a log of ``leaves`` relates to ``versions`` of the same game_id, in ingest
    order (those with the same game_started have their leaves read). A version with
    another game_started is another game that happens to have the same game_id.

    The first version archived is the game: a later one that changes its events (the
    same game_started, then other events) rewrites it, and is kept as evidence but
    never counted (:data:`LATEST`). A log that changes only a rewrite does not rewrite.
    """
    extends = part_of = rewrites = None
    shared = differs_at = rewritten_size = whole_size = 0
    for version in versions:
        theirs = version.leaves
        if theirs is None or not theirs or not leaves or theirs[0] != leaves[0]:
            continue
        same = _common_prefix(theirs, leaves)
        if same == len(theirs) < len(leaves):
            if same > shared:
                extends, shared = version.fingerprint, same
        elif same == len(leaves) < len(theirs):
            if len(theirs) > whole_size:
                part_of, whole_size = version.fingerprint, len(theirs)
        elif same < len(theirs) and version.rewrites is None and len(theirs) > rewritten_size:
            rewrites, differs_at, rewritten_size = version.fingerprint, same, len(theirs)
    return _Relation(extends, shared, part_of, rewrites, differs_at)


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


def _append(con: duckdb.DuckDBPyConnection, table: str, columns: Sequence[str],
            tables: list[pa.Table], game_nos: Sequence[int]) -> None:
    """Append the rows of several logs (:func:`event_table`, :func:`deal_table`) to
    ``table``, each log's rows with its game_no, in one statement: DuckDB reads the
    Arrow buffers as they are."""
    import pyarrow as pa

    numbers: list[int] = []
    for number, rows in zip(game_nos, tables, strict=True):
        numbers += [number] * rows.num_rows
    if not numbers:
        return
    batch = pa.concat_tables(tables).add_column(0, "game_no", pa.array(numbers, pa.int32()))
    con.register("_appended", batch)
    # not in a finally: after a failed statement the transaction is aborted and any
    # other statement, this one too, would replace the error with "transaction is
    # aborted"; the caller rolls back, and the next register replaces the view
    con.execute(f"INSERT INTO {table} SELECT game_no, {', '.join(columns)} "  # noqa: S608
                "FROM _appended")
    con.unregister("_appended")


__all__ = [
    "DB_ENV", "DEFAULT_DB", "DERIVED", "LATEST", "MEMORY_ENV", "SCHEMA_VERSION", "SIMULATED",
    "TABLES", "VIEWS", "Added", "Archive", "ArchiveError", "AuditedGame", "Checkpoint",
    "IngestResult", "Mismatch", "Progress", "Refused", "Rewrite", "StoredLog", "add_derived",
    "audit_archived", "damaged", "default_db", "derived_tables", "memory_limit", "out_of_memory",
]
