"""What every part of the archive shares: the file's settings (the default archive, the
memory limit), what DuckDB's errors mean, rows written in one statement, the writer
thread, and :class:`ArchiveBase`: the open connection and the stored logs read back.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from typing import Any

import duckdb

from ..batch.bulk import POOL_MIN_BYTES, PRELOAD
from ..core.errors import ArchiveError
from .schema import SIMULATED

#: the archive file used when none is named
DEFAULT_DB = "yaniv-archive.duckdb"
#: the environment variable that names another default archive
DB_ENV = "YANIV_AUDIT_DB"
#: the most memory DuckDB keeps for an archive (its buffer pool: blocks read or written
#: stay cached up to it, else an archive's whole file would), any DuckDB size
MEMORY_ENV = "YANIV_AUDIT_MEMORY_LIMIT"
DEFAULT_MEMORY = "512MB"
#: games read back from the events table per query when auditing
READ_BATCH = 256
#: what the fork server of the archive's workers (ingest, audit --db, verify) imports
#: once for them all: the archive's modules (DuckDB), which each worker imported again
#: at its first log (0.1 s of CPU a worker). Not pyarrow: its import starts threads
#: (jemalloc's among them), and the fork server is a process without threads to fork
WORKER_PRELOAD = [*PRELOAD, "yaniv_audit.archive"]
#: below this many stored events (each about 100 bytes of log, so about
#: :data:`~yaniv_audit.batch.bulk.POOL_MIN_BYTES` of logs) audit --db and verify work in
#: their own process: a worker pool costs more than it saves
POOL_MIN_EVENTS = POOL_MIN_BYTES // 100


def default_db() -> str:
    """The archive used when none is named: $YANIV_AUDIT_DB, else ./yaniv-archive.duckdb."""
    return os.environ.get(DB_ENV) or DEFAULT_DB


def out_of_memory(path: str | None, exc: BaseException) -> ArchiveError:
    """The error for a command that needed more memory than DuckDB may use (its
    ``memory_limit``, :data:`MEMORY_ENV`): what was allowed and what to do."""
    allowed = memory_limit()["memory_limit"]
    return ArchiveError(
        f"{path + ': ' if path else ''}DuckDB needed more memory than the "
        f"{allowed} it may use ({_first_line(str(exc))}); set {MEMORY_ENV} "
        f"higher (by default it is {DEFAULT_MEMORY}) and run the command "
        "again (ingest and audit --db keep every batch they stored whole)"
    )


def _short_of_memory(exc: BaseException) -> bool:
    """Whether DuckDB's error says it ran out of its memory limit (an out-of-memory
    error, or a fatal one while it built the archive's tables)."""
    text = str(exc)
    return isinstance(exc, duckdb.OutOfMemoryException) or any(
        words in text
        for words in (
            "Out of Memory",
            "could not allocate block",
            "failed to allocate data",
            "failed to pin block",
        )
    )


#: what DuckDB says when the disk (or the user's quota) has no room for what it writes
_DISK_FULL = ("No space left on device", "Disk quota exceeded", "File too large")
#: what DuckDB says of a block of the file it cannot read back as it wrote it
_DAMAGE = (
    "Corrupt database file",
    "does not match stored checksum",
    "Could not read enough bytes",
    "block at location",
)


def disk_full(path: str | None, exc: BaseException) -> ArchiveError:
    """The error for a write the disk had no room for: the archive is unchanged (the
    transaction that needed the room was not committed), so nothing is to be restored."""
    return ArchiveError(
        f"{path + ': ' if path else ''}the disk is full ("
        f"{_first_line(str(exc))}): nothing was stored and the archive is "
        "unchanged; free some space (or give --db a file on another disk) "
        "and run the command again"
    )


def trouble(path: str | None, exc: BaseException) -> ArchiveError | None:
    """What one of DuckDB's errors says about the archive file, in the archive's words:
    the disk full (:func:`disk_full`), too little memory (:func:`out_of_memory`), a
    damaged block (:func:`damaged`); None when it says none of these (a bug, or a
    statement's own error)."""
    text = str(exc)
    if any(words in text for words in _DISK_FULL):
        return disk_full(path, exc)
    if _short_of_memory(exc):
        return out_of_memory(path, exc)
    if damaged_block(exc):
        return damaged(path, exc)
    return None


def damaged_block(exc: BaseException) -> bool:
    """Whether DuckDB's error says a block of the file no longer reads as written."""
    return isinstance(exc, duckdb.SerializationException) or any(
        words in str(exc) for words in _DAMAGE
    )


def damaged(path: str | None, exc: BaseException) -> ArchiveError:
    """The error for an archive file DuckDB cannot read (truncated or overwritten), or,
    if it is out of memory or the disk is full instead, :func:`out_of_memory` or
    :func:`disk_full`."""
    if any(words in str(exc) for words in _DISK_FULL):
        return disk_full(path, exc)
    if _short_of_memory(exc):
        return out_of_memory(path, exc)
    return ArchiveError(
        f"{path + ': ' if path else ''}the archive file is damaged and cannot "
        f"be read ({_first_line(str(exc))}); restore it from a copy or an "
        "export"
    )


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the transaction of a write that failed, if DuckDB has not already (a
    COMMIT that failed, on a full disk say, ends the transaction itself: a ROLLBACK then
    raised an error of its own in place of the one that said what happened)."""
    with suppress(duckdb.TransactionException):
        con.execute("ROLLBACK")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction: committed when the block ends, rolled back if it raises (every
    write of the archive is one, so that a write killed halfway leaves nothing of itself)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise


@dataclass(frozen=True, slots=True)
class StoredLog:
    """One game's log as the archive holds it, read back as JSON Lines."""

    game_no: int
    fingerprint: str
    source: str
    data: bytes
    #: whether ``yaniv-audit simulate`` wrote it (bots playing)
    simulated: bool


Progress = Callable[[Iterable[Any], int, str], AbstractContextManager[Iterable[Any]]]


def _no_progress(
    items: Iterable[Any],
    length: int,
    label: str,
) -> AbstractContextManager[Iterable[Any]]:
    return nullcontext(items)


def memory_limit() -> dict[str, str | bool | int | float | list[str]]:
    """DuckDB's ``memory_limit`` for an archive: $YANIV_AUDIT_MEMORY_LIMIT, else 512MB.

    Without one DuckDB keeps up to 80% of the machine's memory of blocks cached, so a
    long ingest grew by the size of what it wrote; with one, the cache stays within it
    and a query that needs more spills to a temporary file.
    """
    return {
        "memory_limit": os.environ.get(MEMORY_ENV, "").strip() or DEFAULT_MEMORY,
        **NO_EXTENSIONS,
    }


#: every connection's: no extension installed or loaded on demand (a foreign file given
#: as an archive made DuckDB try to download sqlite_scanner)
NO_EXTENSIONS: dict[str, str | bool | int | float | list[str]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}


def _insert(con: duckdb.DuckDBPyConnection, table: str, columns: list[list[Any]]) -> None:
    """Append rows given column by column, in one statement.

    Each column travels as one list parameter and ``unnest`` zips them back into
    rows: much faster than ``executemany``, which runs the statement per row. (The
    events, many more rows, travel as Arrow tables: :func:`_insert_events`.)
    """
    sql, width = insert_sql(con, table)
    if width != len(columns):
        raise ValueError(f"{table} has {width} columns, {len(columns)} given")
    con.execute(sql, columns)


def insert_sql(con: duckdb.DuckDBPyConnection, table: str) -> tuple[str, int]:
    """The statement :func:`_insert` runs on ``table`` (its columns' types read), and the
    number of its columns."""
    info = con.execute(
        "SELECT data_type FROM information_schema.columns "
        "WHERE table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()
    inner = ", ".join(f"unnest(${i}::{kind}[]) AS c{i}" for i, (kind,) in enumerate(info, 1))
    outer = ", ".join(f"c{i}" for i in range(1, len(info) + 1))
    return f"INSERT INTO {table} SELECT {outer} FROM (SELECT {inner})", len(info)


@contextmanager
def writer_thread(name: str) -> Iterator[Callable[..., None]]:
    """``write(fn, *args)``: ``fn(*args)`` run on a thread of its own, one call at a time
    (each waits for the one before and raises its error); leaving the block waits for the
    last. So DuckDB stores a batch, and lets go of the GIL, while the caller takes in the
    next one from the workers (ingest, audit --db)."""
    with ThreadPoolExecutor(1, thread_name_prefix=name) as pool:
        running: list[Future[None]] = []

        def write(fn: Callable[..., None], *args: Any) -> None:
            if running:
                running.pop().result()
            running.append(pool.submit(fn, *args))

        yield write
        if running:
            running.pop().result()


def _one(cursor: duckdb.DuckDBPyConnection) -> tuple[Any, ...] | None:
    """The first row of a result, read to its end (DuckDB 2 wants every result finished
    before the connection runs anything else)."""
    rows = cursor.fetchall()
    return rows[0] if rows else None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text


class ArchiveBase:
    """One archive file open: its path, its connection (``con``) and its stored logs read
    back, which each job of :class:`~yaniv_audit.archive.Archive` uses."""

    path: str
    locked: bool
    con: duckdb.DuckDBPyConnection

    def count_games(self) -> int:
        (n,) = _one(self.con.execute("SELECT count(*) FROM games")) or (0,)
        return int(n)

    def log_bytes(self, fingerprint: str) -> bytes:
        """The stored log of one game as JSON Lines (its canonical events)."""
        row = _one(
            self.con.execute("SELECT game_no FROM games WHERE fingerprint = ?", [fingerprint])
        )
        if row is None:
            raise ArchiveError(f"no game with fingerprint {fingerprint} in {self.path}")
        found = _one(
            self.con.execute(
                "SELECT list(event ORDER BY seq) FROM events WHERE game_no = ?", list(row)
            )
        )
        events = (found[0] if found else None) or []
        return "".join(f"{event}\n" for event in events).encode("utf-8")

    def _jobs_for(self, jobs: int | None, game_nos: Sequence[int], times: int = 1) -> int | None:
        """``jobs`` as asked; unasked, 1 (this process) when the games' stored events, each
        read ``times``, are too few to be worth a worker pool (:data:`POOL_MIN_EVENTS`)."""
        if jobs is not None or len(game_nos) * times > POOL_MIN_EVENTS // 100:
            return jobs  # asked, or more games than that: not few
        (events,) = _one(
            self.con.execute(
                "SELECT coalesce(sum(events), 0) FROM games "
                "WHERE game_no IN (SELECT unnest($1::INTEGER[]))",
                [list(game_nos)],
            )
        ) or (0,)
        return 1 if int(events) * times < POOL_MIN_EVENTS else None

    def _stored_logs(self, game_nos: Sequence[int]) -> Iterator[StoredLog]:
        """The stored logs of the given games, in order, a batch at a time (a game without
        stored events is left out: ``verify`` says so).

        The events come as one Arrow column of lines, in order; a game's log is the slice
        of that column's bytes from its first line to its last, copied once. (DuckDB's
        ``string_agg(event ORDER BY seq)`` per game cost twice the CPU, in the process
        that also stores the results.) It reads on a cursor of its own: a worker pool
        consumes it from another thread while this connection stores results.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        cursor = self.con.cursor()
        for start in range(0, len(game_nos), READ_BATCH):
            batch = list(game_nos[start : start + READ_BATCH])
            span = [min(batch), max(batch)]
            about = {
                number: (fingerprint, source, simulated)
                for number, fingerprint, source, simulated in cursor.execute(
                    f"SELECT g.game_no, g.fingerprint, g.source, coalesce({SIMULATED}, "
                    "false) FROM games g LEFT JOIN events e ON e.game_no = g.game_no "
                    "AND e.seq = 0 AND e.game_no BETWEEN $2 AND $3 "
                    "WHERE g.game_no IN (SELECT unnest($1::INTEGER[]))",
                    [batch, *span],
                ).fetchall()
            }
            events = cursor.sql(
                "SELECT game_no, event || chr(10) AS line FROM events "
                "WHERE game_no IN (SELECT unnest($1::INTEGER[])) AND game_no BETWEEN $2 AND $3 "
                "ORDER BY game_no, seq",
                params=[batch, *span],
            ).to_arrow_table()
            if not events.num_rows:
                continue
            lines = events.column("line").combine_chunks()
            games = pc.run_end_encode(events.column("game_no").combine_chunks())
            ends = games.run_ends.to_pylist()
            width = pa.int64() if pa.types.is_large_string(lines.type) else pa.int32()
            offsets = pa.Array.from_buffers(
                width, len(lines) + 1, [None, lines.buffers()[1]], offset=lines.offset
            )
            bounds = offsets.take(pa.array([0, *ends])).to_pylist()
            text = lines.buffers()[2]
            for i, number in enumerate(games.values.to_pylist()):
                fingerprint, source, simulated = about[number]
                yield StoredLog(
                    number,
                    fingerprint,
                    source,
                    text[bounds[i] : bounds[i + 1]].to_pybytes(),
                    simulated,
                )
        cursor.close()
