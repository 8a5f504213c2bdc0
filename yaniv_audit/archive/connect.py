"""Opening an archive file: DuckDB's connection with the archive's settings, its errors
said in the archive's words, and the schema checked (an empty file made an archive, an
older schema brought forward by :mod:`yaniv_audit.archive.migrate`).
"""

from __future__ import annotations

import os
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
)
from .migrate import Migration
from .safe_sql import LOCKED_CONFIG
from .schema import MIGRATES_FROM, SCHEMA, SCHEMA_VERSION


class _OlderSchema(Exception):
    """An archive of an older schema, opened read-only: it must be migrated first."""


def connect(path: str, *, read_only: bool = False, create: bool = True, locked: bool = False,
            ) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection to the archive at ``path``, made with its settings and its
    schema checked: an empty new file is made an archive, an archive of an older schema
    brought forward (when opened read-only, on a connection of its own first). Every
    failure is an :class:`ArchiveError` that says what to do.

    ``locked``: read-only, on a connection that can reach no file, network, extension or
    setting (:data:`~yaniv_audit.archive.safe_sql.LOCKED_CONFIG`); the archive must exist.
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
    memory = memory_limit()
    try:
        if locked:
            con = duckdb.connect(path, read_only=True, config={**LOCKED_CONFIG, **memory})
        else:
            con = duckdb.connect(path, read_only=read_only and exists, config=memory)
    except duckdb.Error as exc:
        text = _first_line(str(exc))
        if _short_of_memory(exc):
            raise out_of_memory(path, exc) from None
        if "memory" in text.lower() and MEMORY_ENV in os.environ:
            raise ArchiveError(
                f"{MEMORY_ENV}={memory['memory_limit']!r}: expected a size such as 512MB "
                "or 2GB") from None
        if "different configuration" in text:
            raise ArchiveError(
                f"{path}: the archive is open in this process already with other "
                "settings (DuckDB opens a file once per process); close it first") from None
        if "could not set lock" in text.lower() or "conflicting lock" in text.lower():
            raise ArchiveError(
                f"{path}: the archive is in use by another process that writes to it "
                "(an ingest or audit --db, say): run the command again when that one has "
                "finished") from None
        if "could not read enough bytes" in text.lower():
            raise damaged(path, exc) from None
        if "not a valid DuckDB database" in text:
            raise ArchiveError(
                f"{path}: not a DuckDB archive (the file is no DuckDB database)") from None
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
        return connect(path, read_only=read_only, create=create, locked=locked)
    except duckdb.Error as exc:
        con.close()
        raise damaged(path, exc) from None
    except BaseException:
        con.close()
        raise
    return con


def _prepare(con: duckdb.DuckDBPyConnection, path: str, read_only: bool) -> None:
    """Check the schema of the archive just opened; make an empty one an archive, bring
    an older one forward (:class:`_OlderSchema` when opened read-only)."""
    tables = {row[0] for row in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
    ).fetchall()}
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
                f"yaniv-audit reads schema {SCHEMA_VERSION}")
        return
    if tables:
        raise ArchiveError(
            f"{path}: a DuckDB database, but not a yaniv-audit archive "
            f"(it has tables {', '.join(sorted(tables))})")
    if read_only:
        raise ArchiveError(f"{path}: an empty database, not a yaniv-audit archive yet")
    # one transaction: a new archive killed while being made is no archive at all
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(SCHEMA)
        con.execute("INSERT INTO archive_info VALUES ('schema', ?), ('created_by', ?)",
                    [SCHEMA_VERSION, ENGINE])
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
