"""SQL on the archive: this package's own statements (:meth:`Querying.query`), and a
user's (:meth:`Querying.user_query`), screened by :mod:`yaniv_audit.archive.safe_sql` and
run in a process of its own.
"""

from __future__ import annotations

import multiprocessing
import os
import re
from collections.abc import Sequence
from contextlib import closing
from multiprocessing.connection import Connection
from typing import Any

import duckdb

from ..core.errors import ArchiveError, QueryError, QueryRefused, QueryTimeout
from .base import (
    MEMORY_ENV,
    ArchiveBase,
    _first_line,
    memory_limit,
    trouble,
)
from .connect import connect
from .safe_sql import DEFAULT_TIMEOUT, _ran_past, run, screen


class Querying(ArchiveBase):
    """SQL: :meth:`query` and :meth:`user_query`."""

    def query(
        self,
        sql: str,
        params: Sequence[Any] = (),
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of one SQL statement of this package's own (with ``?``
        parameters for anything a user gave); a user's SQL goes to :meth:`user_query`."""
        try:
            cursor = self.con.execute(sql, list(params))
        except duckdb.Error as exc:
            found = trouble(self.path, exc)  # a damaged block, too little memory
            if found is not None:
                raise found from None
            raise ArchiveError(f"query failed: {_first_line(str(exc))}") from None
        if cursor.description is None:
            return [], []
        return [d[0] for d in cursor.description], cursor.fetchall()

    def user_query(
        self,
        sql: str,
        *,
        timeout: float | None = None,
    ) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows of a user's SQL: one SELECT that reads only the archive's
        tables (:mod:`yaniv_audit.archive.safe_sql`), stopped after ``timeout`` seconds (None:
        the default, 30), in a process of its own whose memory the system bounds and which
        is killed at the time limit (:func:`run_isolated`). Anything
        else raises :class:`~yaniv_audit.core.errors.QueryError`
        (:class:`~yaniv_audit.core.errors.QueryRefused`,
        :class:`~yaniv_audit.core.errors.QueryTimeout`)
        with what and why, on one line. The archive must be open ``locked``.

        The statement is screened here first, on this locked connection (DuckDB parses
        it; nothing runs), so that a refused one costs no process and no second opening
        of the archive; the statement's process screens it again before it runs."""
        if not self.locked:
            raise ArchiveError(
                "a user's SQL runs only on an archive opened locked (Archive(path, locked=True))"
            )
        screen(self.con, sql)
        return run_isolated(
            self.path,
            sql,
            DEFAULT_TIMEOUT if timeout is None else timeout,
            str(memory_limit()["memory_limit"]),
        )


# --- a user's statement in a process of its own -----------------------------------------

#: memory the query's process may take beyond the archive's ``memory_limit`` (DuckDB's
#: buffers): Python, DuckDB's code, its threads' stacks and the rows on their way back
HEADROOM = 256 << 20
#: seconds the process may take to start and open the archive (not counted in the limit)
START_TIMEOUT = 60.0
#: seconds past the time limit the command waits for DuckDB to stop by itself (its own
#: interrupt) before it kills the process
GRACE = 0.5
_ERRORS: dict[str, type[ArchiveError]] = {
    cls.__name__: cls for cls in (QueryTimeout, QueryRefused, QueryError, ArchiveError)
}
_UNITS = {
    "": 1,
    "b": 1,
    "bytes": 1,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1 << 10,
    "mib": 1 << 20,
    "gib": 1 << 30,
    "tib": 1 << 40,
}


def size_in_bytes(text: str) -> int | None:
    """``488.2 MiB`` (DuckDB's ``current_setting('memory_limit')``) in bytes, or None."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)\s*", text)
    unit = _UNITS.get(found.group(2).lower()) if found else None
    return int(float(found.group(1)) * unit) if found and unit else None


def run_isolated(
    path: str,
    sql: str,
    timeout: float,
    memory: str,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """:func:`~yaniv_audit.archive.safe_sql.run` on the archive at ``path`` (opened locked),
    in a process of its own whose memory the system bounds and which is killed ``timeout``
    seconds after the statement began, whether or not DuckDB heard its interrupt.
    ``memory`` is the archive's ``memory_limit`` setting. Every failure is an
    :class:`ArchiveError`."""
    context = multiprocessing.get_context("forkserver")  # a fork of DuckDB's threads: no
    context.set_forkserver_preload(["yaniv_audit.archive"])
    receive, send = context.Pipe(duplex=False)
    process = context.Process(
        target=_isolated,
        args=(path, sql, timeout, memory, send),
        daemon=True,
        name="yaniv-audit query",
    )
    process.start()
    send.close()
    try:
        message = _receive(receive, START_TIMEOUT)
        if message is not None and message[0] == "ready":
            message = _receive(receive, timeout + GRACE)  # the clock runs from here
            if message is None:
                raise QueryTimeout(_ran_past(timeout))
        if message is None:
            raise QueryError(
                f"query failed: the query's process did not start within {START_TIMEOUT:g} seconds"
            )
        if message[0] == "rows":
            return message[1], message[2]
        if message[0] in _ERRORS:
            raise _ERRORS[message[0]](message[1])
        process.join(5)
        raise QueryError(
            f"query stopped: its process ended ({_ended(process.exitcode)}), most likely "
            f"short of memory: it may use the archive's limit of {memory} and "
            f"{HEADROOM >> 20} MiB more (YANIV_AUDIT_MEMORY_LIMIT=2GB, say, allows more)"
        )
    finally:
        receive.close()
        if process.is_alive():
            process.kill()
        process.join()


def _receive(connection: Connection, seconds: float) -> tuple[Any, ...] | None:
    """The process's next message; None when none came in time; ("died",) when it ended."""
    if not connection.poll(seconds):
        return None
    try:
        message: tuple[Any, ...] = connection.recv()
    except (EOFError, OSError):
        return ("died",)
    return message


def _ended(code: int | None) -> str:
    return f"killed by signal {-code}" if code is not None and code < 0 else f"exit {code}"


def _isolated(path: str, sql: str, timeout: float, memory: str, send: Connection) -> None:
    """The query's process: open the archive locked, screen the statement, bound this
    process's memory, say so, then run it and send back its rows or its error."""
    os.environ[MEMORY_ENV] = memory  # the fork server's environment is that of its start
    quiet = os.open(os.devnull, os.O_WRONLY)  # no progress bar of DuckDB's on the terminal:
    os.dup2(quiet, 1)  # what the process says goes through the pipe
    os.dup2(quiet, 2)
    try:
        with closing(connect(path, locked=True)) as con:
            screen(con, sql)
            (shown,) = con.execute("SELECT current_setting('memory_limit')").fetchone() or ("",)
            limit = size_in_bytes(str(shown))
            if limit is not None:
                import resource

                cap = limit + HEADROOM
                resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
            send.send(("ready",))
            columns, rows = run(con, sql, timeout)
            send.send(("rows", columns, rows))
    except ArchiveError as exc:
        send.send(
            (type(exc).__name__ if type(exc).__name__ in _ERRORS else "ArchiveError", str(exc))
        )
    except MemoryError:
        send.send(
            (
                "QueryError",
                "query stopped: it needs more memory than the archive's "
                f"limit of {memory} and {HEADROOM >> 20} MiB more "
                "(YANIV_AUDIT_MEMORY_LIMIT=2GB, say, allows more)",
            )
        )
