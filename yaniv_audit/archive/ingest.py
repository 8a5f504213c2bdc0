"""Ingest: log files read and checked on worker processes, and the new games stored
(``games``, ``events``, ``deals`` and the summaries), each related to the other versions
of its game.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa

from ..batch.bulk import mapped, no_gc, small_work
from ..core.errors import LogFormatError
from ..core.merkle import tree_hash
from .base import (
    WORKER_PRELOAD,
    Progress,
    _insert,
    _no_progress,
    _one,
    transaction,
    writer_thread,
)
from .rows import (
    DEAL_COLUMNS,
    EVENT_COLUMNS,
    IngestRow,
    deal_rows,
    deal_table,
    event_table,
    from_stream,
    opening_md5,
    to_stream,
)
from .schema import _summarize
from .tables import open_table_games
from .versions import Versions, _relate, _Relation, _Version

#: event rows collected before they are written, when ingesting: four of DuckDB's row
#: groups (122,880 rows each), which it compresses and writes whole, in parallel, without
#: the write-ahead log; in batches of 50,000 the same games took 2.8 times as long to store
#: and made an archive 1.4 times as big
WRITE_BATCH = 4 * 122_880


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
    from ..io.codec import read_log  # heavy (marshmallow): only where logs are read

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
        source=path,
        fingerprint=fingerprint,
        game_id=game.game_id or fingerprint,
        players=list(game.players),
        rules_key=game.rules.key,
        rules_id=game.rules.id,
        started_at=started,
        events=to_stream(event_table(log.events, log.leaves)),
        opening=opening_md5(log.leaves[0]),
        count=len(log.leaves),
    )


@dataclass(slots=True)
class IngestResult:
    """What one ingest did, file by file (the games added only counted unless asked for:
    at 100,000 games the list alone held 30 MB)."""

    #: the games added and their events
    games: int = 0
    events: int = 0
    #: each game added, when :meth:`Ingesting.ingest` was asked to list them
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
    #: (file, fingerprint, game_id, the ended version, its size): a game that had ended
    #: continued, kept as evidence and not counted (unless ingested with ``reopen``)
    after_end: list[tuple[str, str, str, str, int]] = field(default_factory=list)
    #: (file, fingerprint, game_id, the table, its entries): a log that goes beyond the
    #: entries of the open live table its game is played at; not stored (the table is
    #: the game: its writers append there)
    at_table: list[tuple[str, str, str, str, int]] = field(default_factory=list)

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


def _append(
    con: duckdb.DuckDBPyConnection,
    table: str,
    columns: Sequence[str],
    tables: list[pa.Table],
    game_nos: Sequence[int],
) -> None:
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
    con.execute(f"INSERT INTO {table} SELECT game_no, {', '.join(columns)} FROM _appended")
    con.unregister("_appended")


def _unnamed(opening: str) -> str:
    """The key of the versions without a game_id that start with this game_started."""
    return f"\x00{opening}"


class Ingesting(Versions):
    """Ingest (:meth:`ingest`): new games stored, each with its versions related."""

    def ingest(
        self,
        files: Sequence[str],
        *,
        jobs: int | None = None,
        progress: Progress = _no_progress,
        list_added: bool = True,
        reopen: bool = False,
    ) -> IngestResult:
        """Read ``files`` on ``jobs`` processes and store every new readable game
        (without ``jobs``: on every core, or in this process for a few small files, as
        :func:`~yaniv_audit.batch.bulk.audit_stream` audits them).

        A game already archived (same fingerprint) is not stored again; an
        unreadable file is refused with its error and the others go on. Without
        ``list_added`` the games added are only counted. A log that continues a game
        that had ended is kept as evidence, never counted, unless ``reopen``: then it
        becomes the game's latest version, as any continuation.
        """
        parts: list[IngestResult] = []  # one per batch, in order: merged at the end
        part = IngestResult()
        pending: dict[str, IngestRow] = {}  # by fingerprint: one copy of a game per run
        pending_events = 0
        if jobs is None and small_work(files):
            jobs = 1  # a worker pool would cost more than it saves
        with (
            writer_thread("ingest-writer") as write,
            mapped(read_for_ingest, files, len(files), jobs, WORKER_PRELOAD) as rows,
        ):
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
                            write(self._store_new, list(pending.values()), part, list_added, reopen)
                            parts.append(part)
                            part, pending, pending_events = IngestResult(), {}, 0
            if pending:
                write(self._store_new, list(pending.values()), part, list_added, reopen)
            parts.append(part)
        return IngestResult.merged(parts)

    def _store_new(
        self,
        rows: list[IngestRow],
        result: IngestResult,
        list_added: bool = True,
        reopen: bool = False,
    ) -> None:
        """Store the games not archived yet; note the others as duplicates."""
        stored = dict(
            self.con.execute(
                "SELECT fingerprint, source FROM games WHERE fingerprint IN "
                "(SELECT unnest($1::VARCHAR[]))",
                [[r.fingerprint for r in rows]],
            ).fetchall()
        )
        new = [r for r in rows if r.fingerprint not in stored]
        result.duplicates.extend(
            (r.source, r.fingerprint, stored[r.fingerprint])
            for r in rows
            if r.fingerprint in stored
        )
        if new:
            extends, part_of, rewrites, held = self._versions(new, result, reopen)
            new = [r for r in new if r.fingerprint not in held]
            if new:
                self._store(new, extends, part_of, rewrites)
            result.games += len(new)
            result.events += sum(r.count for r in new)
            if list_added:
                result.added.extend(Added(r.source, r.fingerprint, r.game_id, r.count) for r in new)

    def _versions(
        self,
        rows: list[IngestRow],
        result: IngestResult,
        reopen: bool = False,
    ) -> tuple[dict[str, str], dict[str, str], dict[str, str], set[str]]:
        """How each new log relates to the other versions of its game (same game_id
        and the same game_started): the longest version it continues unchanged, a
        longer one it is the start of, and the version it rewrites (each by
        fingerprint); ``result`` lists them, and every conflict (the same start, then
        other events).

        A log rewrites a version when it conflicts with it and that version is no
        rewrite itself: the first version archived is the game, a later one that
        changes its events is kept as evidence but not counted
        (:data:`~yaniv_audit.archive.schema.LATEST`). So is a log that continues a
        version that had ended (its ``rewrites`` names that version, which stays the
        game), unless ``reopen``.

        A log that continues the game of an open live table beyond its entries is held
        back (the fourth set, by fingerprint; ``result.at_table`` says which table): the
        table is the game while it is played, and its fingerprint changes at each append.
        """
        known: dict[str, list[_Version]] = {}
        # only the versions with the same game_started can relate: found by its md5
        archived = self.con.execute(
            "SELECT fingerprint, game_id, game_no, rewrites, opening_md5 FROM games "
            "WHERE opening_md5 IN (SELECT unnest($1::VARCHAR[])) "
            "AND game_id IN (SELECT unnest($2::VARCHAR[])) ORDER BY game_no",
            [list({r.opening for r in rows}), list({r.game_id for r in rows})],
        ).fetchall()
        for fingerprint, game_id, game_no, rewritten, opening in archived:
            known.setdefault(game_id, []).append(
                _Version(fingerprint, opening, game_no, rewrites=rewritten)
            )
        # a log without a game_id (its game_id is its fingerprint) is a version of one
        # archived without a game_id, with the same game_started, that it continues or
        # starts (never a rewrite: another game may start alike): found by the opening
        alone = [r for r in rows if r.game_id == r.fingerprint]
        if alone:
            for fingerprint, game_no, rewritten, opening in self.con.execute(
                "SELECT fingerprint, game_no, rewrites, opening_md5 FROM games "
                "WHERE opening_md5 IN (SELECT unnest($1::VARCHAR[])) "
                "AND game_id = fingerprint ORDER BY game_no",
                [list({r.opening for r in alone})],
            ).fetchall():
                known.setdefault(_unnamed(opening), []).append(
                    _Version(fingerprint, opening, game_no, rewrites=rewritten)
                )
        extends: dict[str, str] = {}
        part_of: dict[str, str] = {}
        rewrites: dict[str, str] = {}
        held: set[str] = set()
        tables = open_table_games(self.con)
        for row in rows:
            unnamed = row.game_id == row.fingerprint
            versions = known.setdefault(_unnamed(row.opening) if unnamed else row.game_id, [])
            found = _Relation()
            if any(version.opening == row.opening for version in versions):
                for version in versions:
                    if version.opening == row.opening and version.leaves is None:
                        self._leaves(version)
                found = _relate(row.leaves(), versions)
                if unnamed:  # never a rewrite: another game may start alike
                    found = replace(found, rewrites=None, differs_at=0)
            played = (
                found.extends
                if found.extends in tables
                else (found.after_end if found.after_end in tables else None)
            )
            if played is not None:
                table_id, entries = tables[played]
                result.at_table.append(
                    (row.source, row.fingerprint, row.game_id, table_id, entries)
                )
                held.add(row.fingerprint)
                continue
            if found.after_end is not None and found.rewrites is None and not reopen:
                # a game that had ended, continued: the ended version stays the game
                size = len(
                    next(v.leaves or [] for v in versions if v.fingerprint == found.after_end)
                )
                result.after_end.append(
                    (row.source, row.fingerprint, row.game_id, found.after_end, size)
                )
                found = replace(
                    found,
                    rewrites=found.after_end,
                    differs_at=size,
                    extends=None if found.extends == found.after_end else found.extends,
                )
            if found.extends is not None:
                extends[row.fingerprint] = found.extends
                result.extensions.append(
                    (row.source, row.fingerprint, row.game_id, found.extends, found.shared)
                )
            if found.part_of is not None:
                part_of[row.fingerprint] = found.part_of
                result.earlier.append((row.source, row.fingerprint, row.game_id, found.part_of))
            if found.rewrites is not None:
                rewrites[row.fingerprint] = found.rewrites
                if found.after_end is None or found.rewrites != found.after_end:
                    result.conflicts.append(
                        (row.source, row.fingerprint, row.game_id, found.rewrites, found.differs_at)
                    )
            versions.append(
                _Version(row.fingerprint, row.opening, None, None, found.rewrites, row=row)
            )
        return extends, part_of, rewrites, held

    def _store(
        self,
        rows: list[IngestRow],
        extends: dict[str, str],
        part_of: dict[str, str],
        rewrites: dict[str, str],
    ) -> None:
        """Write games and their events in one transaction."""
        now = datetime.now(UTC)
        con = self.con
        with transaction(con):
            (last,) = _one(con.execute("SELECT coalesce(max(game_no), 0) FROM games")) or (0,)
            numbers = range(last + 1, last + 1 + len(rows))
            now_col = [now] * len(rows)
            _insert(
                con,
                "games",
                [
                    list(numbers),
                    [r.fingerprint for r in rows],
                    [r.game_id for r in rows],
                    [r.source for r in rows],
                    [r.players for r in rows],
                    [r.rules_key for r in rows],
                    [r.rules_id for r in rows],
                    [r.count for r in rows],
                    [extends.get(r.fingerprint) for r in rows],
                    [part_of.get(r.fingerprint) for r in rows],
                    [r.started_at for r in rows],
                    now_col,
                    [rewrites.get(r.fingerprint) for r in rows],
                    [r.opening for r in rows],
                ],
            )
            _append(con, "events", EVENT_COLUMNS, [from_stream(r.events) for r in rows], numbers)
            _append(con, "deals", DEAL_COLUMNS, [from_stream(r.deals) for r in rows], numbers)
            _summarize(con, numbers.start, numbers.stop - 1)
