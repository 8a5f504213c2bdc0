"""The archive: many games in one DuckDB file, audited in bulk, asked in SQL.

A shell around the pure core (docs/design.md): logs are read by the codec,
audited by :mod:`yaniv_audit.core.audit`, and stored here.

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

:class:`Archive` is one class put together from the archive's jobs, a module each
(:class:`~yaniv_audit.core.engine.Replay` is put together the same way), so that each can be
read on its own; they are listed from the bottom up, each importing only those above it:

============= ==========================================================================
``schema``    the tables and views, what each holds, the summaries filled at ingest
``base``      what every job shares: the file's settings (default archive, memory
              limit), DuckDB's errors in the archive's words, rows written in one
              statement, the writer thread, and the stored logs read back
              (:class:`~yaniv_audit.archive.base.ArchiveBase`)
``rows``      the rows made from a log or a report, in the worker processes: a log's
              events and deals as Arrow streams, the derived rows of a report
``versions``  the versions of a game: what a log extends, is part of, or rewrites
``ingest``    logs read and checked on worker processes, the new games stored
``migrate``   an archive of schema 1 to 4 brought forward
``safe_sql``  the walls around a user's SQL: the locked connection, the screen
``connect``   opening the file: DuckDB's connection, its errors, the schema checked
``auditing``  the bulk audit (``audit --db``), and the results of ``audit --parquet``
``verify``    the stored events and audits checked again; checkpoints
``export``    every table as partitioned Parquet
``query``     SQL: this package's own, and a user's in a process of its own
============= ==========================================================================

:mod:`~yaniv_audit.archive.analytics`, the reports in SQL, reads an :class:`Archive`
(imported on its own: nothing here imports it).
"""

from __future__ import annotations

from pathlib import Path

from ..core.errors import ArchiveError
from .auditing import AuditedGame, Auditing, audit_archived
from .base import (
    DB_ENV,
    DEFAULT_DB,
    MEMORY_ENV,
    Progress,
    StoredLog,
    damaged,
    default_db,
    disk_full,
    memory_limit,
    out_of_memory,
    rollback,
    trouble,
)
from .connect import WRITER_WAIT, connect, intent_file, writer_waiting
from .export import Exporting
from .ingest import Added, Ingesting, IngestResult, Refused
from .query import Querying
from .rows import add_derived, derived_tables
from .schema import DERIVED, LATEST, SCHEMA_VERSION, SIMULATED, TABLES, VIEWS
from .verify import Checkpoint, Mismatch, Verifying
from .versions import Rewrite


class Archive(Ingesting, Auditing, Verifying, Exporting, Querying):
    """One DuckDB archive file, opened for this process (a context manager).

    ``locked`` opens it for a user's SQL (:meth:`user_query`): read-only, on a
    connection that can reach no file, network, extension or setting
    (:data:`yaniv_audit.archive.safe_sql.LOCKED_CONFIG`); the archive must exist. DuckDB
    opens a file once per process: while one connection to it is open, another
    with other settings (read-only or not, locked or not) is refused. ``wait``: seconds
    to wait, when opening it to write, for a server that only reads it to give it up
    (:func:`~yaniv_audit.archive.connect.intent_file`).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = False,
        create: bool = True,
        locked: bool = False,
        wait: float = 0.0,
    ) -> None:
        self.path = str(path)
        self.locked = locked
        self.con = connect(self.path, read_only=read_only, create=create, locked=locked, wait=wait)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = [
    "DB_ENV",
    "DEFAULT_DB",
    "DERIVED",
    "LATEST",
    "MEMORY_ENV",
    "SCHEMA_VERSION",
    "SIMULATED",
    "TABLES",
    "VIEWS",
    "WRITER_WAIT",
    "Added",
    "Archive",
    "ArchiveError",
    "AuditedGame",
    "Checkpoint",
    "IngestResult",
    "Mismatch",
    "Progress",
    "Refused",
    "Rewrite",
    "StoredLog",
    "add_derived",
    "audit_archived",
    "damaged",
    "default_db",
    "derived_tables",
    "disk_full",
    "intent_file",
    "memory_limit",
    "out_of_memory",
    "rollback",
    "trouble",
    "writer_waiting",
]
