"""A user's SQL on the archive: one SELECT that reads the archive's tables and nothing else.

``yaniv-audit query`` runs SQL typed by whoever holds the command line; this
module keeps it to reading. Two walls stand between the statement and the
machine, and both are kept, because neither is enough alone:

1. **The connection** (:data:`LOCKED_CONFIG`, opened by ``Archive(path,
   locked=True)``): the archive opened read-only, with DuckDB's
   ``enable_external_access=false`` (no file, URL or other database:
   ``read_csv``, ``COPY ... TO``, ``ATTACH``, ``INSTALL`` fail), no extension
   installed or loaded on demand, no community extensions, no Python variable
   read as a table, no temporary files, and then ``lock_configuration=true``,
   so that no ``SET``, ``RESET`` or ``PRAGMA`` can undo any of it.
2. **The screen** (:func:`screen`): DuckDB parses the text first. It must be
   exactly one statement, a ``SELECT`` (``DESCRIBE``, ``SHOW``, ``SUMMARIZE``,
   ``PIVOT ... IN (...)`` and ``FROM``-first queries are SELECTs too), and its
   syntax tree (``json_serialize_sql``) may call only the table functions of
   :data:`TABLE_FUNCTIONS`, none of :data:`DENIED_FUNCTIONS`, and name no file
   as a table and no view of :data:`DENIED_VIEWS`. A locked read-only
   connection still lets a statement create temporary tables and macros, run
   several statements, call ``query()`` and ``query_table()``, ``LOAD`` the
   extensions built into DuckDB, ``CHECKPOINT``, and read the archive's own
   file with ``read_blob()``: the screen refuses all of that.

:func:`run` then executes the statement with a time limit: a timer thread
interrupts the connection (``con.interrupt()``) when it is reached.

Neither wall bounds what one value costs: ``list_sort(range(300000000))`` ran past
its time limit (DuckDB checks for an interrupt between chunks, not inside one
function) and took 8.7 GB, beyond the ``memory_limit`` DuckDB keeps only for its
buffers. So ``yaniv-audit query`` runs the statement in a process of its own
(:func:`~yaniv_audit.archive.query.run_isolated`): the operating system bounds its
memory (``RLIMIT_DATA``, the archive's memory limit plus
:data:`~yaniv_audit.archive.query.HEADROOM`), and the command kills it when the time
limit has passed, whatever it is computing.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from typing import Any

import duckdb

from ..core.errors import QueryError, QueryRefused, QueryTimeout
from .base import _first_line, trouble

#: the settings of a connection that runs a user's SQL; ``lock_configuration``
#: comes last and freezes the others for the connection's life
LOCKED_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "python_enable_replacements": False,  # no Python variable read as a table
    "temp_directory": "",  # no spill files next to the archive: a query lives in memory
    "lock_configuration": True,
}
#: seconds a user's statement may run by default
DEFAULT_TIMEOUT = 30.0

#: the table functions a user's statement may call: generators, and DuckDB's
#: catalog of the archive's own tables (what DESCRIBE and SHOW read)
TABLE_FUNCTIONS = frozenset(
    {
        "range",
        "generate_series",
        "unnest",
        "repeat",
        "repeat_row",
        "json_each",
        "json_tree",
        "duckdb_tables",
        "duckdb_columns",
        "duckdb_views",
        "duckdb_schemas",
        "duckdb_constraints",
        "duckdb_indexes",
        "duckdb_sequences",
        "duckdb_types",
        "duckdb_dependencies",
        "duckdb_functions",
        "duckdb_keywords",
        "pragma_table_info",
        "pragma_show",
        "pragma_storage_info",
        "pragma_database_size",
        "pragma_version",
        "pragma_collations",
        "pg_timezone_names",
        "icu_calendar_names",
    }
)
#: why a statement may not read DuckDB's settings, or where its files are
_SETTINGS = "it shows DuckDB's settings (directories included), not the archive"
#: scalar functions a user's statement may not call, and why
DENIED_FUNCTIONS = {
    "getenv": "it reads the environment of the process",
    "write_log": "it writes to DuckDB's log",
    "current_setting": _SETTINGS,
    "getvariable": "it reads DuckDB's variables, not the archive",
}
#: DuckDB's own views a user's statement may not read, and why
DENIED_VIEWS = {
    "duckdb_logs": "it shows DuckDB's log, not the archive",
    "pg_settings": _SETTINGS,
    # the archive's absolute path, as current_setting() would show a directory
    "duckdb_databases": _SETTINGS,
    "pragma_database_list": _SETTINGS,
}
#: table functions of DuckDB's catalog a user's statement may not call, and why
DENIED_TABLE_FUNCTIONS = {"duckdb_databases": _SETTINGS}
#: table functions that run SQL given as text, which the screen cannot see into
SQL_RUNNERS = frozenset(
    {"query", "query_table", "json_execute_serialized_sql", "histogram", "histogram_values"}
)
_FILE_READER = re.compile(
    r"^(read_|parquet_|iceberg_|delta_|sqlite_|postgres_|mysql_)|_scan$"
    r"|^(glob|sniff_csv)$"
)
#: DuckDB's internal state, not the archive's tables
_DUCKDB_STATE = re.compile(
    r"^(duckdb_|which_secret|enable_|disable_|truncate_|checkpoint|"
    r"force_checkpoint|.*external_resource|.*grammar_extension)"
)

#: statement types, by DuckDB's name, and why a user's statement may not be one
_WHY_NOT = {
    "COPY": "it reads or writes files; query touches no file but the archive",
    "EXPORT": "it writes files; query touches no file but the archive",
    "COPY_DATABASE": "it copies a database; query touches no file but the archive",
    "IMPORT": "it reads files into the database; query touches no file but the archive",
    "ATTACH": "it opens another database; query reads only this archive",
    "DETACH": "it closes a database; query reads only this archive",
    "LOAD": "it installs or loads an extension; query loads none",
    "UPDATE_EXTENSIONS": "it updates extensions; query loads none",
    "SET": "it changes a setting or the current database; query's settings are locked",
    "VARIABLE_SET": "it sets a variable; query's settings are locked",
    "PRAGMA": "it changes a setting or runs a command; query's settings are locked",
    "CREATE": "it creates something (a table, view, macro, sequence, type or secret, "
    "temporary or not); query creates nothing",
    "CREATE_FUNC": "it creates a function; query creates nothing",
    "DROP": "it drops something; the archive is open read-only",
    "ALTER": "it changes a table; the archive is open read-only",
    "INSERT": "it changes a table; the archive is open read-only",
    "UPDATE": "it changes a table; the archive is open read-only",
    "DELETE": "it changes a table; the archive is open read-only",
    "MERGE_INTO": "it changes a table; the archive is open read-only",
    "MULTI": "it runs several statements (a PIVOT without IN (...) creates a type first; "
    "name the values: PIVOT t ON c IN ('a', 'b') USING ...)",
}
_NOT_SELECT = "query runs one SELECT statement and nothing else"
_KEYWORD = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/|\()*([A-Za-z_]+)", re.S)


def _keyword(text: str) -> str:
    """The first word of a statement, past comments and parentheses, for messages."""
    found = _KEYWORD.match(text)
    return found.group(1).upper() if found else "the statement"


def _shown(name: str) -> str:
    """A name from the user's text, safe for a one-line message."""
    clean = "".join(c if c.isprintable() else "?" for c in name)
    return clean if len(clean) <= 60 else clean[:57] + "..."


def _looks_like_a_file(name: str) -> bool:
    """A table name that only a file (a path, a URL, a name with an extension) has."""
    return any(c in name for c in "/\\.:~")


def screen(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse ``sql`` unless it is one SELECT that reads only the archive's tables.

    Raises :class:`QueryRefused` with what was refused and why, or
    :class:`QueryError` when DuckDB cannot parse it.
    """
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise QueryError(f"query failed: {_first_line(str(exc))}") from None
    if not statements:
        raise QueryRefused("query refused: no SQL statement: give one SELECT statement")
    if len(statements) > 1:
        raise QueryRefused(
            f"query refused: {len(statements)} statements: query runs one "
            "statement per call (run each on its own)"
        )
    (statement,) = statements
    try:
        kind = statement.type.name
    except ValueError:  # a statement type the Python package has no name for
        kind = "UNKNOWN"
    if kind != "SELECT":
        keyword = _keyword(statement.query)
        if keyword == "IMPORT":  # DuckDB parses IMPORT DATABASE and COPY FROM DATABASE
            kind = "IMPORT"  # as pragmas
        elif keyword == "COPY" and kind != "COPY":
            kind = "COPY_DATABASE"
        raise QueryRefused(
            f"query refused: {keyword} is not a SELECT: {_WHY_NOT.get(kind, _NOT_SELECT)}"
        )
    try:
        (text,) = con.execute("SELECT json_serialize_sql(?)", [sql]).fetchone() or ("",)
        tree = json.loads(text)
    except (duckdb.Error, ValueError, TypeError):
        tree = None
    if not isinstance(tree, dict) or tree.get("error") is not False:
        message = tree.get("error_message") if isinstance(tree, dict) else None
        raise QueryRefused(
            f"query refused: the statement cannot be checked "
            f"({_first_line(str(message or 'DuckDB gives no syntax tree'))})"
        )
    for kind, name in _references(tree):
        reason = _refusal(kind, name)
        if reason is not None:
            raise QueryRefused(f"query refused: {reason}")


def _references(node: Any) -> Iterator[tuple[str, str]]:
    """(kind, name) of every table function, function and table a syntax tree names."""
    if isinstance(node, list):
        for item in node:
            yield from _references(item)
        return
    if not isinstance(node, dict):
        return
    kind = node.get("type")
    if kind == "TABLE_FUNCTION":
        function = node.get("function")
        name = function.get("function_name") if isinstance(function, dict) else None
        yield "table function", str(name or "")
    elif node.get("class") == "FUNCTION":
        yield "function", str(node.get("function_name") or "")
    elif kind == "BASE_TABLE":
        yield "table", str(node.get("table_name") or "")
    for value in node.values():
        yield from _references(value)


def _refusal(kind: str, name: str) -> str | None:
    """Why a reference is refused, or None."""
    low = name.lower()
    shown = _shown(name)
    if kind == "table function" and low in DENIED_TABLE_FUNCTIONS:
        return f"{shown}(): {DENIED_TABLE_FUNCTIONS[low]}"
    if kind == "table function" and low not in TABLE_FUNCTIONS:
        if low in SQL_RUNNERS:
            return (
                f"{shown}() runs SQL built from text (a statement or a table name in a "
                "string), which cannot be checked before it runs; write the query itself"
            )
        if _FILE_READER.search(low):
            return f"{shown}() reads files; query reads only the archive's tables, never a file"
        if _DUCKDB_STATE.search(low):
            return f"{shown}() shows or changes DuckDB's own state, not the archive's tables"
        return (
            f"{shown}() is not a table function query allows (it allows "
            "range, generate_series, unnest, json_each, json_tree and the catalog's: "
            "duckdb_tables, duckdb_columns, pragma_table_info, ...)"
        )
    if kind == "function" and low in DENIED_FUNCTIONS:
        return f"{shown}(): {DENIED_FUNCTIONS[low]}"
    if kind == "table":
        if _looks_like_a_file(name):
            return (
                f"'{shown}' names a file as a table; query reads only the archive's "
                "tables, never a file"
            )
        if low in DENIED_VIEWS:
            return f"{shown}: {DENIED_VIEWS[low]}"
    return None


def run(
    con: duckdb.DuckDBPyConnection,
    sql: str,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and rows of a user's statement, screened first; it is stopped after
    ``timeout`` seconds (None: no limit). Every failure is a :class:`QueryError`."""
    screen(con, sql)
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        con.interrupt()

    timer = threading.Timer(timeout, stop) if timeout is not None else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        cursor = con.execute(sql)
        columns = [d[0] for d in cursor.description] if cursor.description else []
        rows = cursor.fetchall() if columns else []
    except duckdb.InterruptException:
        if stopped.is_set():
            raise QueryTimeout(_ran_past(timeout)) from None
        raise QueryError("query stopped: interrupted") from None
    except RuntimeError as exc:
        if "interrupted" in str(exc).lower():  # Ctrl-C, as DuckDB's Python package says it:
            con.interrupt()  # make sure the statement stops before the connection closes
            raise KeyboardInterrupt from None  # click: "Aborted!", as for any command
        raise
    except duckdb.PermissionException as exc:  # the connection's wall, if the screen let it by
        raise QueryRefused(f"query refused: {_first_line(str(exc))}") from None
    except duckdb.Error as exc:
        text = _first_line(str(exc))
        if "configuration has been locked" in text:
            raise QueryRefused(f"query refused: {text}") from None
        if isinstance(exc, duckdb.OutOfMemoryException):
            limit = con.execute("SELECT current_setting('memory_limit')").fetchone()
            raise QueryError(
                f"query stopped: it needs more memory than the archive's limit of "
                f"{limit[0] if limit else 'its limit'} (YANIV_AUDIT_MEMORY_LIMIT=2GB, say, "
                "allows more)"
            ) from None
        found = trouble(None, exc)  # the archive's fault, not the statement's: a damaged
        if found is not None:  # block
            raise found from None
        raise QueryError(f"query failed: {text}") from None
    finally:
        if timer is not None:
            timer.cancel()
    return columns, rows


def _seconds(value: float | None) -> str:
    if value is None:
        return "none"
    return f"{value:g} second{'' if value == 1 else 's'}"


def _ran_past(timeout: float | None) -> str:
    return (
        f"query stopped: it ran past the time limit of {_seconds(timeout)} "
        "(--timeout SECONDS allows longer)"
    )
