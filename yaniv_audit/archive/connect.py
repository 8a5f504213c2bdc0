"""Opening an archive file: DuckDB's connection with the archive's settings, its errors
said in the archive's words, and the schema checked (an empty file made an archive, an
older schema brought forward by :mod:`yaniv_audit.archive.migrate`).
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import duckdb

from .. import ENGINE
from ..core.errors import ArchiveError
from .base import (
    MEMORY_ENV,
    _first_line,
    _one,
    _short_of_memory,
    damaged,
    memory_limit,
    out_of_memory,
    transaction,
    trouble,
)
from .migrate import Migration
from .safe_sql import LOCKED_CONFIG
from .schema import MIGRATES_FROM, SCHEMA, SCHEMA_VERSION

#: seconds a command that writes waits for a process that only reads the archive (a
#: ``yaniv-audit serve``) to give it up between its requests
WRITER_WAIT = 10.0


def intent_file(path: str) -> Path:
    """The file a command that writes creates while it waits for the archive: a server
    that reads the archive sees it, closes its connection as soon as its requests have
    finished, and opens none until it is gone (it holds the waiting process's id)."""
    return Path(f"{path}.writer-waiting")


def writer_waiting(path: str) -> int | None:
    """The process id of a command waiting to write the archive, if one is (a file left
    by one that no longer runs does not count)."""
    try:
        pid = int(intent_file(path).read_text().strip() or 0)
    except (OSError, ValueError):
        return None
    if pid <= 0 or pid == os.getpid():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:  # another user's process: it runs
        pass
    return pid


def _holder(text: str) -> tuple[int | None, str]:
    """The process DuckDB names as holding the file's lock: its id, and the command it
    runs (empty where the system does not say)."""
    found = re.search(r"\(PID (\d+)\)", text)
    if found is None:
        return None, ""
    pid = int(found.group(1))
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return pid, ""
    words = [a.decode("utf-8", "replace") for a in argv if a]
    for i, word in enumerate(words[:3]):  # python -m yaniv_audit.cli, .venv/bin/yaniv-audit
        if word == "yaniv_audit.cli" or Path(word).name == "yaniv-audit":
            words = ["yaniv-audit", *words[i + 1 :]]
            break
    else:
        words = [Path(words[0]).name, *words[1:]] if words else []
    command = " ".join(" ".join(words).split())
    return pid, command if len(command) <= 80 else command[:77] + "..."


def busy(path: str, text: str) -> ArchiveError:
    """The error for an archive another process holds: who holds it (its process id and
    command, where the system says) and whether it reads or writes it."""
    pid, command = _holder(text)
    named = (f"PID {pid}: {command}" if command else f"PID {pid}") if pid else ""
    if "read-only mode" in text:  # the holder only reads: a write needs the file alone
        who = (
            "the yaniv-audit server"
            if command.startswith("yaniv-audit serve")
            else "another process"
        )
        return ArchiveError(
            f"{path}: the archive is in use by {who}{f' ({named})' if named else ''}, which "
            "reads it; a write needs it alone: run the command again when that one has "
            f"finished (a yaniv-audit serve gives the archive up between requests within "
            f"{WRITER_WAIT:g} seconds of a command asking to write)"
        )
    return ArchiveError(
        f"{path}: the archive is in use by another process that writes to it "
        f"({named or 'an ingest or audit --db, say'}): run the command again when that one "
        "has finished"
    )


class _OlderSchema(Exception):
    """An archive of an older schema, opened read-only: it must be migrated first."""


def _connect_waiting(
    path: str, config: dict[str, str | bool | int | float | list[str]], wait: float
) -> duckdb.DuckDBPyConnection:
    """The archive opened for writing; while a process that only reads it (a server)
    holds it, with :func:`intent_file` made, retried for up to ``wait`` seconds."""
    try:
        return duckdb.connect(path, config=config)
    except duckdb.IOException as exc:
        if "read-only mode" not in str(exc):  # a writer holds it, or another trouble
            raise
        last = exc
    intent = intent_file(path)
    try:
        intent.write_text(f"{os.getpid()}\n")
    except OSError:  # a directory this process cannot write: no server will be told
        raise last from None
    try:
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            time.sleep(0.05)
            try:
                return duckdb.connect(path, config=config)
            except duckdb.IOException as exc:
                if "read-only mode" not in str(exc):
                    raise
                last = exc
        raise last
    finally:
        intent.unlink(missing_ok=True)


def connect(
    path: str,
    *,
    read_only: bool = False,
    create: bool = True,
    locked: bool = False,
    wait: float = 0.0,
) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection to the archive at ``path``, made with its settings and its
    schema checked: an empty new file is made an archive, an archive of an older schema
    brought forward (when opened read-only, on a connection of its own first). Every
    failure is an :class:`ArchiveError` that says what to do.

    ``locked``: read-only, on a connection that can reach no file, network, extension or
    setting (:data:`~yaniv_audit.archive.safe_sql.LOCKED_CONFIG`); the archive must exist.
    ``wait``: seconds a writer waits for a server that only reads the archive to give it
    up (:func:`intent_file`).
    """
    if locked:
        read_only, create = True, False
    exists = path == ":memory:" or Path(path).exists()
    if locked and path == ":memory:":
        raise ArchiveError(":memory: is no archive to open locked (read-only)")
    if not exists and not create:
        raise ArchiveError(f"{path}: no such archive (create one with yaniv-audit ingest)")
    if Path(path).is_dir():
        raise ArchiveError(f"{path}: is a directory, not an archive file")
    if path != ":memory:" and looks_like_a_log(path):
        raise ArchiveError(
            f"{path}: a game log, not an archive: --db names the DuckDB archive the logs are "
            f"stored in (yaniv-archive.duckdb by default); yaniv-audit ingest {path} stores "
            f"this log there, yaniv-audit audit {path} rules on it alone"
        )
    memory = memory_limit()
    try:
        if locked:
            con = duckdb.connect(path, read_only=True, config={**LOCKED_CONFIG, **memory})
        elif wait > 0 and not read_only:
            con = _connect_waiting(path, memory, wait)
        else:
            con = duckdb.connect(path, read_only=read_only and exists, config=memory)
    except duckdb.Error as exc:
        text = _first_line(str(exc))
        if _short_of_memory(exc):
            raise out_of_memory(path, exc) from None
        if "memory" in text.lower() and MEMORY_ENV in os.environ:
            raise ArchiveError(
                f"{MEMORY_ENV}={memory['memory_limit']!r}: expected a size such as 512MB or 2GB"
            ) from None
        if "different configuration" in text:
            raise ArchiveError(
                f"{path}: the archive is open in this process already with other "
                "settings (DuckDB opens a file once per process); close it first"
            ) from None
        if "could not set lock" in text.lower() or "conflicting lock" in text.lower():
            raise busy(path, text) from None
        found = trouble(path, exc)
        if found is not None:  # a damaged file, a full disk
            raise found from None
        if "not a valid DuckDB database" in text:
            raise ArchiveError(
                f"{path}: not a DuckDB archive (the file is no DuckDB database)"
            ) from None
        raise ArchiveError(f"{path}: cannot open the archive ({text})") from None
    try:
        _prepare(con, path, read_only)
    except _OlderSchema:
        # opened read-only: migrate on a connection of its own, then open as asked
        con.close()
        try:
            connect(path, create=False).close()
        except ArchiveError as exc:
            raise ArchiveError(
                f"{exc} (its schema is older: it is brought forward to schema "
                f"{SCHEMA_VERSION} the first time it is opened, which writes to it)"
            ) from None
        return connect(path, read_only=read_only, create=create, locked=locked, wait=wait)
    except duckdb.Error as exc:
        con.close()
        raise damaged(path, exc) from None
    except BaseException:
        con.close()
        raise
    return con


def looks_like_a_log(path: str) -> bool:
    """Whether ``path``, given as an archive, is a log: named .jsonl or .json, or a file
    whose text starts as JSON does. A DuckDB file is never one: its header is a checksum
    of 8 bytes, which may be anything (a ``{`` too), then ``DUCK``."""
    if Path(path).suffix.lower() in (".jsonl", ".json"):
        return True
    try:
        with open(path, "rb") as stream:
            head = stream.read(64)
    except OSError:
        return False
    if head[8:12] == b"DUCK":
        return False
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"["))


def _prepare(con: duckdb.DuckDBPyConnection, path: str, read_only: bool) -> None:
    """Check the schema of the archive just opened; make an empty one an archive, bring
    an older one forward (:class:`_OlderSchema` when opened read-only)."""
    tables = {
        row[0]
        for row in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
        ).fetchall()
    }
    if "archive_info" in tables:
        row = _one(con.execute("SELECT value FROM archive_info WHERE key = 'schema'"))
        if row is not None and row[0] in MIGRATES_FROM:
            if read_only:
                raise _OlderSchema(row[0])
            Migration(con, path).migrate(row[0])
            return
        if row is None or row[0] != SCHEMA_VERSION:
            raise ArchiveError(
                f"{path}: archive schema {row[0] if row else 'unknown'}, this "
                f"yaniv-audit reads schema {SCHEMA_VERSION}"
            )
        return
    if tables:
        raise ArchiveError(
            f"{path}: a DuckDB database, but not a yaniv-audit archive "
            f"(it has tables {', '.join(sorted(tables))})"
        )
    if read_only:
        raise ArchiveError(f"{path}: an empty database, not a yaniv-audit archive yet")
    # one transaction: a new archive killed while being made is no archive at all
    with transaction(con):
        con.execute(SCHEMA)
        con.execute(
            "INSERT INTO archive_info VALUES ('schema', ?), ('created_by', ?)",
            [SCHEMA_VERSION, ENGINE],
        )
