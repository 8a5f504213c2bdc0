"""The archive as the web app reads it: one connection per process, a cursor per request.

:class:`Store` opens the archive ``locked`` (read-only, on the connection
``yaniv-audit query`` uses for a user's SQL: no file, network, extension or
setting reachable) the first time a request needs it, and every request then
reads on a cursor of its own. DuckDB lets a process write a file only while no
other process has it open, so the store closes the connection when no request
has needed it for ``idle`` seconds: ``yaniv-audit ingest`` in another process
can then write, and the next request opens the file again and sees its games.

A command that waits to write (``yaniv-audit ingest``, with the server holding the file)
says so with a file beside the archive
(:func:`~yaniv_audit.archive.connect.intent_file`): the store then closes the connection
as soon as the requests reading have finished, and answers 503 rather than open it
again until the command has it.

A write (``POST /api/v1/games``) waits for the requests reading to finish, closes
the reader, opens the writer for its own duration, and fails with
:class:`~yaniv_audit.core.errors.ArchiveError` (a 503) if another process holds the file.

The app runs no SQL a visitor writes: its statements are the constants here and
in :mod:`yaniv_audit.archive.analytics`, and what a request gives (a player, a fingerprint,
a page) goes in as a parameter.
"""

from __future__ import annotations

import atexit
import json
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import duckdb

from .. import ENGINE
from ..archive import LATEST, Archive, IngestResult, writer_waiting
from ..core.errors import ArchiveError
from ..core.events import Log
from ..core.report import AuditReport
from ..io.codec import parse_jsonl

#: seconds without a request after which the archive is closed (so another process
#: can write to it)
DEFAULT_IDLE = 2.0
#: the columns of a game in the listing, in order
GAME_COLUMNS = (
    "fingerprint",
    "game_id",
    "source",
    "players",
    "rules_id",
    "events",
    "started_at",
    "ingested_at",
    "verdict",
    "findings",
    "winners",
    "extends",
    "part_of",
    "rewrites",
    "superseded",
)
#: ``sort`` values of the listing and their ORDER BY (a leading ``-``: descending)
SORTS = {
    "ingested": "g.game_no",
    "started_at": "g.started_at",
    "events": "g.events",
    "game_id": "g.game_id",
    "findings": "a.findings",
}

#: SQL: audit ``a`` is of game ``g``
AUDIT_OF_GAME = "a.game_no = g.game_no"

SELECT_GAMES = f"""
SELECT g.fingerprint, g.game_id, g.source, g.players, g.rules_id, g.events, g.started_at,
       g.ingested_at, a.verdict, a.findings, a.winners, g.extends, g.part_of, g.rewrites,
       NOT {LATEST} AS superseded
FROM games g
LEFT JOIN audits a ON {AUDIT_OF_GAME} AND a.rules_key = g.rules_key
"""
#: the listing's filters, each NULL to leave it out
FILTERS = """
WHERE ($1 IS NULL OR list_contains(g.players, $1))
  AND ($2 IS NULL OR g.rules_key = $2)
  AND ($3 IS NULL OR a.verdict = $3)
  AND ($4 IS NULL OR (a.findings > 0) = $4)
  AND ($5 IS NULL OR g.started_at >= $5)
  AND ($6 IS NULL OR g.started_at < $6)
  AND ($7 IS NULL OR list_contains(g.players, $7) OR contains(lower(g.game_id), lower($7))
       OR starts_with(g.fingerprint, lower($7)))
"""


@dataclass(frozen=True, slots=True)
class Filters:
    """What the game list is narrowed to (None: not narrowed)."""

    player: str | None = None
    rules_key: str | None = None
    verdict: str | None = None
    has_findings: bool | None = None
    since: datetime | None = None
    until: datetime | None = None
    #: a player, part of a game_id or the start of a fingerprint
    search: str | None = None

    def params(self) -> list[Any]:
        return [
            self.player,
            self.rules_key,
            self.verdict,
            self.has_findings,
            self.since,
            self.until,
            self.search,
        ]


class Ambiguous(Exception):
    """A fingerprint prefix or game_id that names several archived games."""

    def __init__(self, ref: str, candidates: list[dict[str, Any]]) -> None:
        super().__init__(ref)
        self.ref, self.candidates = ref, candidates


class CursorArchive(Archive):
    """An :class:`Archive` reading on one cursor of the store's connection (so the
    archive's own readers and :mod:`yaniv_audit.archive.analytics` work on it)."""

    def __init__(self, cursor: duckdb.DuckDBPyConnection, path: str) -> None:
        self.con, self.path, self.locked = cursor, path, True


def base_name(source: str) -> str:
    """A file named by its base name only: no server path is shown to a visitor."""
    return source.replace("\\", "/").rsplit("/", 1)[-1]


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _game(row: Sequence[Any]) -> dict[str, Any]:
    game = dict(zip(GAME_COLUMNS, row, strict=True))
    game["source"] = base_name(game["source"])
    game["started_at"], game["ingested_at"] = _iso(game["started_at"]), _iso(game["ingested_at"])
    return game


class Reader:
    """What one request reads from the archive, on its own cursor."""

    def __init__(self, archive: CursorArchive) -> None:
        self.archive = archive

    def games(
        self,
        filters: Filters,
        *,
        sort: str,
        limit: int,
        offset: int,
    ) -> dict[str, Any]:
        """A page of the archive's games (with their audit under the declared rules, if
        any) and how many match."""
        descending = sort.startswith("-")
        order = SORTS[sort.lstrip("-")]
        direction = "DESC" if descending else "ASC"
        sql = (
            f"{SELECT_GAMES}{FILTERS} ORDER BY {order} {direction} NULLS LAST, g.game_no "
            "LIMIT $8 OFFSET $9"
        )
        _, rows = self.archive.query(sql, [*filters.params(), limit, offset])
        count = (
            f"SELECT count(*) FROM games g LEFT JOIN audits a ON {AUDIT_OF_GAME} "
            f"AND a.rules_key = g.rules_key {FILTERS}"
        )
        (total,) = self.archive.query(count, filters.params())[1][0]
        return {
            "games": [_game(row) for row in rows],
            "total": total,
            "limit": limit,
            "offset": offset,
        }

    def resolve(self, ref: str) -> dict[str, Any] | None:
        """The game ``ref`` names: a fingerprint, a unique prefix of one (8 or more hex
        digits), or a ``game_id`` (of several versions, the latest). None if none does;
        :class:`Ambiguous` if several do."""
        ref = ref.strip()
        lowered = ref.lower()
        if len(lowered) >= 8 and all(c in "0123456789abcdef" for c in lowered):
            match = "g.fingerprint = $1" if len(lowered) == 64 else "starts_with(g.fingerprint, $1)"
            rows = self.archive.query(
                f"{SELECT_GAMES} WHERE {match} ORDER BY g.game_no LIMIT 11", [lowered]
            )[1]
            if len(rows) == 1:
                return _game(rows[0])
            if rows:
                raise Ambiguous(ref, [_game(r) for r in rows])
        rows = self.archive.query(
            f"{SELECT_GAMES} WHERE g.game_id = $1 ORDER BY g.game_no LIMIT 11", [ref]
        )[1]
        if not rows:
            return None
        games = [_game(r) for r in rows]
        latest = [g for g in games if not g["superseded"]]
        if len(latest) == 1:
            return latest[0]
        raise Ambiguous(ref, games)

    def rewritten_by(self, fingerprint: str) -> list[str]:
        """The fingerprints of the archived logs that rewrite this game, in ingest order."""
        return [
            fp
            for (fp,) in self.archive.query(
                "SELECT fingerprint FROM games WHERE rewrites = $1 ORDER BY game_no", [fingerprint]
            )[1]
        ]

    def log(self, fingerprint: str, source: str) -> Log:
        """A stored game read back from its events (the source by its base name)."""
        return parse_jsonl(self.archive.log_bytes(fingerprint), base_name(source))

    def events(self, fingerprint: str, *, limit: int, offset: int) -> list[Any]:
        rows = self.archive.query(
            "SELECT e.event FROM events e JOIN games g USING (game_no) "
            "WHERE g.fingerprint = $1 ORDER BY e.seq LIMIT $2 OFFSET $3",
            [fingerprint, limit, offset],
        )[1]
        return [json.loads(event) for (event,) in rows]

    def stored_audit(self, fingerprint: str, rules_key: str) -> AuditReport | None:
        """The audit report stored for a game under a rule set by this engine, if any."""
        rows = self.archive.query(
            f"SELECT a.report FROM audits a JOIN games g ON {AUDIT_OF_GAME} "
            "WHERE g.fingerprint = $1 AND a.rules_key = $2 AND a.engine = $3",
            [fingerprint, rules_key, ENGINE],
        )[1]
        if not rows:
            return None
        report: AuditReport = json.loads(rows[0][0])
        report.pop("file", None)  # the server's path to the file it was ingested from
        return report

    def audited(self, rules_key: str | None) -> tuple[int, int]:
        """(games, of them audited under ``rules_key``; None: their declared rules)."""
        ((games, audited),) = self.archive.query(
            f"SELECT count(*), count(a.rules_key) FROM games g LEFT JOIN audits a ON "
            f"{AUDIT_OF_GAME} AND a.rules_key = coalesce($1, g.rules_key) "
            "AND a.engine = $2",
            [rules_key, ENGINE],
        )[1]
        return int(games), int(audited)


#: every store of this process, closed at exit (see :meth:`Store.close`)
_STORES: weakref.WeakSet[Store] = weakref.WeakSet()


@atexit.register
def _close_stores() -> None:
    for store in list(_STORES):
        store.close()


class Store:
    """The archive file of one app, read on one shared connection (see the module)."""

    def __init__(self, path: str | None, idle: float = DEFAULT_IDLE) -> None:
        self.path = path
        self.idle = idle
        self.opened = 0  # how many times the reader was opened (the tests read it)
        self._cond = threading.Condition()
        self._archive: Archive | None = None
        self._readers = 0
        self._writing = False
        self._released = 0.0  # when the last request reading finished (time.monotonic)
        self._stamp: tuple[int, int, int] | None = None
        #: goes up whenever the archive may hold other games (a write, another file): what
        #: is cached of the whole archive (lists, reports) is keyed by it
        self.generation = 0
        #: what never changes of an archived game, by fingerprint: (players, source)
        self.known: dict[str, tuple[list[str], str]] = {}
        self._timer: threading.Timer | None = None
        #: the archive open for writing, kept between writes that asked to keep it
        #: (:meth:`writing`'s ``keep``), and its idle timer's generation
        self._writer: Archive | None = None
        self._kept_since = 0
        self._writer_timer: threading.Timer | None = None
        _STORES.add(self)

    @property
    def name(self) -> str:
        """The archive's base name (what a visitor is told of it)."""
        return base_name(self.path or "")

    def exists(self) -> bool:
        return bool(self.path) and Path(str(self.path)).is_file()

    @contextmanager
    def reading(self) -> Iterator[Reader | None]:
        """A reader on a cursor of the shared connection (None: there is no archive)."""
        # the file beside the archive read before the lock every request takes: a read
        # under it let the thread lose the GIL holding it, and the others queue (issue 35)
        waiting = writer_waiting(str(self.path)) if self.path else None
        with self._cond:
            while self._writing:
                self._cond.wait()
                waiting = writer_waiting(str(self.path)) if self.path else None
            if waiting is not None:
                self._give_way(waiting)
            con: duckdb.DuckDBPyConnection | None = None
            if self._archive is None and self._writer is not None:
                con = self._writer.con  # a writer kept open (live tables, a write)
            elif self._archive is None and self.exists():
                self._archive = Archive(str(self.path), locked=True)
                self.opened += 1
                stamp = self._file_stamp()
                if self._stamp is None or stamp[0] != self._stamp[0]:
                    self.known.clear()  # another file: games only ever grow in one
                if stamp != self._stamp:
                    self.generation += 1
                self._stamp = stamp
            if self._archive is not None:
                con = self._archive.con
            if con is not None:
                self._readers += 1  # the connection stays open while a request reads
        if con is None:
            yield None
            return
        try:
            # made outside the lock every request takes (issue 35: 40 readers queued there)
            cursor = con.cursor()
        except BaseException:
            self._done_reading()
            raise
        try:
            yield Reader(CursorArchive(cursor, str(self.path)))
        finally:
            cursor.close()
            self._done_reading()

    def _give_way(self, waiting: int) -> NoReturn:
        """A command waits to write (yaniv-audit ingest, PID ``waiting``): it gets the file
        as soon as the requests reading it have finished (a writer kept open for live
        tables is closed too, unless a write has it); the request fails (under the lock)."""
        while self._readers:
            self._cond.wait(0.1)
        self._close_reader()
        if not self._writing:
            self._close_writer()
        raise ArchiveError(
            f"the archive is being written by a command (PID {waiting}, yaniv-audit "
            "ingest, say): send the request again in a few seconds"
        )

    def _done_reading(self) -> None:
        waiting = writer_waiting(str(self.path)) if self.path else None  # not under the lock
        with self._cond:
            self._readers -= 1
            if self._readers == 0:
                self._cond.notify_all()
                if waiting is not None:
                    self._close_reader()  # a command waits to write: its turn now
                    if not self._writing:
                        self._close_writer()
                else:
                    self._when_idle()

    def remember(self, game: dict[str, Any]) -> None:
        if len(self.known) >= 100_000:
            self.known.clear()
        self.known[game["fingerprint"]] = (list(game["players"]), game["source"])

    def _file_stamp(self) -> tuple[int, int, int]:
        info = Path(str(self.path)).stat()
        return info.st_ino, info.st_size, info.st_mtime_ns

    def _when_idle(self) -> None:
        """The reader is idle now: close it after ``idle`` seconds without a request. One
        timer, set again when it fires after requests meanwhile, not a thread started for
        each request (issue 35: started under the lock every request takes, it made 40
        readers of a cached answer wait in turn: 13 ms of CPU a request, not 1)."""
        if self.idle <= 0:
            self._close_reader()
            return
        self._released = time.monotonic()
        if self._timer is None:
            self._set_timer(self.idle)

    def _set_timer(self, seconds: float) -> None:
        self._timer = threading.Timer(seconds, self._close_if_still_idle)
        self._timer.daemon = True
        self._timer.start()

    def _close_if_still_idle(self) -> None:
        with self._cond:
            self._timer = None
            if self._readers:
                return  # the last of them to finish sets it again
            left = self._released + self.idle - time.monotonic()
            if left > 0.001:  # read meanwhile: idle for less than ``idle`` yet
                self._set_timer(left)
            else:
                self._close_reader()

    def _close_reader(self) -> None:
        if self._archive is not None:
            self._archive.close()
            self._archive = None

    @contextmanager
    def writing(self, keep: float = 0) -> Iterator[Archive]:
        """The archive open for writing (created if missing), while no request reads.

        ``keep``: seconds to keep it open after this write, for the next (a live table's
        appends: opening and closing the file cost 70 ms a write); meanwhile requests
        read on cursors of it, and another process can neither write nor read the file.
        """
        if not self.path:
            raise ArchiveError("no archive file is configured")
        with self._cond:
            while self._writing:
                self._cond.wait()
            waiting = writer_waiting(str(self.path))
            if waiting is not None:  # a command waits to write: it goes first
                self._give_way(waiting)
            self._writing = True
            while self._readers:
                self._cond.wait()
            self._close_reader()
            self._kept_since += 1
        try:
            if self._writer is None:
                self._writer = Archive(str(self.path), create=True)
            try:
                yield self._writer
            finally:
                if keep <= 0:
                    self._close_writer()
        except BaseException:
            self._close_writer()
            raise
        finally:
            with self._cond:
                self.generation += 1
                self._writing = False
                if self._writer is not None:
                    self._keep_writer(keep)
                self._cond.notify_all()

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _close_writer_if_idle(self, generation: int) -> None:
        with self._cond:
            if self._readers == 0 and not self._writing and self._kept_since == generation:
                self._close_writer()
            elif self._writer is not None and self._kept_since == generation:
                self._keep_writer(0.5)  # read right now: try again soon

    def _keep_writer(self, seconds: float) -> None:
        """Close the kept writer after ``seconds`` without another write (one timer)."""
        if self._writer_timer is not None:
            self._writer_timer.cancel()
        self._writer_timer = threading.Timer(
            seconds, self._close_writer_if_idle, [self._kept_since]
        )
        self._writer_timer.daemon = True
        self._writer_timer.start()

    def close(self) -> None:
        """Close the shared connection now, in this thread, unless a request reads it;
        called at exit too: an idle timer firing while the interpreter shuts down would
        close it inside DuckDB in a daemon thread, which aborts the process."""
        with self._cond:
            for timer in (self._timer, self._writer_timer):
                if timer is not None:
                    timer.cancel()
            self._timer = self._writer_timer = None
            if self._readers == 0:
                self._close_reader()
                if not self._writing:
                    self._close_writer()


def ingest_into(archive: Archive, files: list[str], *, reopen: bool = False) -> IngestResult:
    """Store ``files`` (in this process) and audit the games that have no audit under
    their declared rules, so that the list shows their verdicts: the new ones, and any a
    server stopped between storing and auditing (the client's retry finds its game stored
    already, and the audit is done then). ``reopen``: see :meth:`Archive.ingest`."""
    result = archive.ingest(files, jobs=1, reopen=reopen)
    if result.added:  # and every game an older engine audited, as `audit --db` would
        for _ in archive.audit(None, games=archive.games_to_audit(None), jobs=1):
            pass
    else:
        audit_unaudited(archive)
    return result


def audit_unaudited(archive: Archive) -> int:
    """Audit every stored game that has no audit under its declared rules; how many."""
    todo = archive.unaudited()
    for _ in archive.audit(None, games=todo, jobs=1):
        pass
    return len(todo)


def audit_on_start(path: str) -> int:
    """At the server's start: audit the games a server stopped between storing and
    auditing left without an audit (read first; the file is opened for writing only when
    there are some); how many."""
    if path == ":memory:" or not Path(path).is_file():
        return 0
    with Archive(path, read_only=True) as archive:
        if not archive.unaudited():
            return 0
    with Archive(path) as archive:
        return audit_unaudited(archive)
