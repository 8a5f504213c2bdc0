"""Live tables in the archive: a game being played, stored as it grows (``/api/v1/tables``).

A table is one game of ``games`` (one ``game_no``) whose ``events`` grow: each append
adds its events' rows (``events`` stays append-only) and brings the game's row forward
(its fingerprint, its number of events, and its game_id when the game names none: what
ingesting the same log would store), with its deals, summaries and the audit of the log
so far under its declared rules (``audits`` and the other derived tables, replaced), so
that the list, the reports and the leaderboard count the game once, from its latest
entries, while it is played and after.

``live_tables`` holds each table: its id, the SHA-256 of its key (never the key), its
game_no, when it was opened and closed, and its number of entries; ``table_answers`` the
first answer to each append sent with an ``Idempotency-Key`` (by the key's SHA-256), the
latest :data:`KEPT_ANSWERS` entries' worth per table. Both are made on first use (an
archive without tables has neither).

Every write is one transaction, committed before the caller answers: an append is all
of its entries or none (DuckDB's write-ahead log is synced at commit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb

from ..core.audit import to_json_line
from ..core.events import EVENT_TYPES_BY_CLASS, Event, GameStarted, RoundStarted
from ..core.report import AuditReport
from ..core.rules import RuleSet
from .base import _insert, _one, insert_sql, transaction
from .rows import deal_rows, derived_rows, event_columns, opening_md5
from .schema import DERIVED, SUMMARIES

TABLE_TABLES = """
CREATE TABLE IF NOT EXISTS live_tables (
    id VARCHAR PRIMARY KEY,
    key_sha256 VARCHAR NOT NULL,
    game_no INTEGER NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    closed_at TIMESTAMPTZ,
    entries INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS table_answers (
    table_id VARCHAR NOT NULL,
    token_sha256 VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    answer VARCHAR NOT NULL,
    PRIMARY KEY (table_id, token_sha256)
);
"""

#: what ``yaniv-audit query --tables`` says of them
TABLES_DOC = {
    "live_tables": "every live table (a game played through /api/v1/tables): id, key_sha256 "
    "(the SHA-256 of its key, never the key), game_no (its game), "
    "created_at, closed_at (no more appends), entries (its events)",
    "table_answers": "the first answer to each append sent with an Idempotency-Key: "
    "table_id, token_sha256 (of the token, a newline and the append's "
    "body), seq (the entries after it), answer (JSON)",
}

#: an Idempotency-Key's answer is kept while the table has at most this many entries more
KEPT_ANSWERS = 64


@dataclass(frozen=True, slots=True)
class StoredTable:
    """One table as the archive holds it."""

    id: str
    key_sha256: str
    game_no: int
    created_at: datetime
    closed_at: datetime | None
    #: its events' canonical JSON, in order
    leaves: list[bytes]


def has_tables(con: duckdb.DuckDBPyConnection) -> bool:
    return _one(
        con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'main' "
            "AND table_name = 'live_tables'"
        )
    ) == (1,)


def open_tables(con: duckdb.DuckDBPyConnection) -> int:
    """How many tables are open (not closed)."""
    if not has_tables(con):
        return 0
    (n,) = _one(con.execute("SELECT count(*) FROM live_tables WHERE closed_at IS NULL")) or (0,)
    return int(n)


def open_table_games(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, int]]:
    """The games of the open tables, by their fingerprint now: (the table's id, its
    entries). While a table is open its game grows, so ingest stores no log beyond it."""
    if not has_tables(con):
        return {}
    return {
        fingerprint: (table_id, int(entries))
        for fingerprint, table_id, entries in con.execute(
            "SELECT g.fingerprint, t.id, t.entries FROM live_tables t JOIN games g "
            "USING (game_no) WHERE t.closed_at IS NULL"
        ).fetchall()
    }


def at_table_said(source: str, game_id: str, table: str, entries: int) -> str:
    """What ``ingest`` and ``POST /api/v1/games`` say of a log held back because it goes
    beyond the entries of the open table its game is played at."""
    return (
        f"{source}: continues game {game_id} being played at table {table} beyond its "
        f"{entries} entries: not stored (the table is the game while it is open: append "
        f"the entries after those {entries} to /api/v1/tables/{table}/events, or store "
        "this log once the table is closed)"
    )


def load_table(con: duckdb.DuckDBPyConnection, table_id: str) -> StoredTable | None:
    """A table and its events, or None."""
    if not has_tables(con):
        return None
    row = _one(
        con.execute(
            "SELECT key_sha256, game_no, created_at, closed_at FROM live_tables WHERE id = ?",
            [table_id],
        )
    )
    if row is None:
        return None
    key, game_no, created, closed = row
    found = _one(
        con.execute("SELECT list(event ORDER BY seq) FROM events WHERE game_no = ?", [game_no])
    )
    leaves = [e.encode("utf-8") for e in ((found[0] if found else None) or [])]
    return StoredTable(table_id, key, game_no, created, closed, leaves)


def stored_answer(
    con: duckdb.DuckDBPyConnection,
    table_id: str,
    token_sha256: str,
) -> bytes | None:
    """The first answer to the append sent with this Idempotency-Key, if kept."""
    if not has_tables(con):
        return None
    row = _one(
        con.execute(
            "SELECT answer FROM table_answers WHERE table_id = ? AND token_sha256 = ?",
            [table_id, token_sha256],
        )
    )
    return None if row is None else str(row[0]).encode("utf-8")


def _event_rows(
    game_no: int,
    events: Sequence[Event],
    leaves: Sequence[bytes],
    start: int,
    all_events: Sequence[Event],
) -> list[list[Any]]:
    """The ``events`` rows of ``events`` (positions ``start`` on), column by column; the
    round each belongs to read from the events before them back to the last
    round_started."""
    back = start
    while back > 0 and type(all_events[back]) is not RoundStarted:
        back -= 1
    rounds, sources, cards = event_columns(list(all_events[back:start]) + list(events))
    skip = start - back
    return [
        [game_no] * len(events),
        list(range(start, start + len(events))),
        [EVENT_TYPES_BY_CLASS[type(e)] for e in events],
        [getattr(e, "player", None) for e in events],
        [leaf.decode("utf-8") for leaf in leaves],
        rounds[skip:],
        sources[skip:],
        cards[skip:],
    ]


def _insert_events(
    con: duckdb.DuckDBPyConnection,
    game_no: int,
    events: Sequence[Event],
    leaves: Sequence[bytes],
    start: int,
    all_events: Sequence[Event],
    rules: RuleSet,
) -> None:
    _put(con, "events", _event_rows(game_no, events, leaves, start, all_events))
    deals = [(game_no, *deal) for deal in deal_rows(events, rules)]
    if deals:
        _put(con, "deals", [list(column) for column in zip(*deals, strict=True)])


#: the INSERT statement of each table :func:`_put` writes to (its column types), made once
_TYPES: dict[str, str] = {}


def _put(con: duckdb.DuckDBPyConnection, table: str, columns: list[list[Any]]) -> None:
    """:func:`~yaniv_audit.archive.base._insert`, the table's column types read once per
    process (they cost a query of 9 ms at every append)."""
    sql = _TYPES.get(table)
    if sql is None:
        sql = _TYPES[table] = insert_sql(con, table)[0]
    con.execute(sql, columns)


def _refresh(
    con: duckdb.DuckDBPyConnection,
    game_no: int,
    fingerprint: str,
    count: int,
    game: GameStarted,
    report: AuditReport | None,
    derived: bool = True,
) -> None:
    """The game's row and its audit brought forward to its latest entries; with
    ``derived``, its summaries and derived rows too (else its audit's report only: the
    web asks for them when the audit's rounds, findings or result changed)."""
    con.execute(
        "UPDATE games SET fingerprint = ?, events = ?, game_id = ? WHERE game_no = ?",
        [fingerprint, count, game.game_id or fingerprint, game_no],
    )
    if not derived and report is not None:
        con.execute(
            "UPDATE audits SET report = ?, audited_at = ? WHERE game_no = ?",
            [to_json_line(report), datetime.now(UTC), game_no],
        )
        return
    for table in ("round_turns", "draw_cards"):
        con.execute(f"DELETE FROM {table} WHERE game_no = ?", [game_no])
    for sql in SUMMARIES:
        con.execute(sql, [game_no, game_no])
    if report is None:
        return
    for table in DERIVED:
        con.execute(f"DELETE FROM {table} WHERE game_no = ?", [game_no])
    rows = derived_rows(report, game_no)
    rows["audits"] = [(*rows["audits"][0], datetime.now(UTC))]
    for table, found in rows.items():
        if found:
            _put(con, table, [list(column) for column in zip(*found, strict=True)])


def _carry_links(
    con: duckdb.DuckDBPyConnection, game_no: int, fingerprint: str, old: str | None = None
) -> None:
    """The logs stored as an earlier part of a table's game (``part_of``) or as a rewrite
    of it (``rewrites``) name it by its new ``fingerprint``: appending keeps an earlier
    part an earlier part, and a rewrite differs at the same event. (No stored log extends
    an open table's game: ingest refuses those, see :func:`open_table_games`.) ``old``:
    the fingerprint before, when the caller knows it (one query fewer)."""
    if old is None:
        (old,) = _one(
            con.execute("SELECT fingerprint FROM games WHERE game_no = ?", [game_no])
        ) or (None,)
    if old is None or old == fingerprint:
        return
    con.execute(
        "UPDATE games SET part_of = CASE WHEN part_of = $1 THEN $2 ELSE part_of END, "
        "rewrites = CASE WHEN rewrites = $1 THEN $2 ELSE rewrites END "
        "WHERE part_of = $1 OR rewrites = $1",
        [old, fingerprint],
    )


def create_table(
    con: duckdb.DuckDBPyConnection,
    table_id: str,
    key_sha256: str,
    game: GameStarted,
    leaf: bytes,
    fingerprint: str,
    report: AuditReport | None,
) -> int:
    """Store a new table opened with ``game`` (its leaf and fingerprint): its game and its
    row, in one transaction; its game_no."""
    now = datetime.now(UTC)
    with transaction(con):
        con.execute(TABLE_TABLES)
        (last,) = _one(con.execute("SELECT coalesce(max(game_no), 0) FROM games")) or (0,)
        game_no = int(last) + 1
        started = datetime.fromisoformat(game.at) if game.at is not None else None
        _insert(
            con,
            "games",
            [
                [game_no],
                [fingerprint],
                [game.game_id or fingerprint],
                [f"table {table_id}"],
                [list(game.players)],
                [game.rules.key],
                [game.rules.id],
                [1],
                [None],
                [None],
                [started],
                [now],
                [None],
                [opening_md5(leaf)],
            ],
        )
        _insert_events(con, game_no, [game], [leaf], 0, [game], game.rules)
        _refresh(con, game_no, fingerprint, 1, game, report)
        con.execute(
            "INSERT INTO live_tables VALUES (?, ?, ?, ?, NULL, 1)",
            [table_id, key_sha256, game_no, now],
        )
    return game_no


def append_entries(
    con: duckdb.DuckDBPyConnection,
    table_id: str,
    game_no: int,
    all_events: Sequence[Event],
    all_leaves: Sequence[bytes],
    start: int,
    fingerprint: str,
    report: AuditReport | None,
    answer: tuple[str, bytes] | None = None,
    derived: bool = True,
    before: str | None = None,
) -> None:
    """Store the entries ``start`` on of a table's log (all of it given), the game brought
    forward, and the first ``answer`` to an append sent with an Idempotency-Key (its
    SHA-256, the answer's JSON): all in one transaction, committed on return (``derived``:
    :func:`_refresh`'s; ``before``: the game's fingerprint before these entries, if
    known, else read)."""
    game = all_events[0]
    assert isinstance(game, GameStarted)
    count = len(all_events)
    with transaction(con):
        _insert_events(
            con, game_no, all_events[start:], all_leaves[start:], start, all_events, game.rules
        )
        _carry_links(con, game_no, fingerprint, before)
        _refresh(con, game_no, fingerprint, count, game, report, derived)
        con.execute("UPDATE live_tables SET entries = ? WHERE id = ?", [count, table_id])
        if answer is not None:
            con.execute(
                "DELETE FROM table_answers WHERE table_id = ? AND seq <= ?",
                [table_id, count - KEPT_ANSWERS],
            )
            con.execute(
                "INSERT OR REPLACE INTO table_answers VALUES (?, ?, ?, ?)",
                [table_id, answer[0], count, answer[1].decode("utf-8")],
            )


def close_table(
    con: duckdb.DuckDBPyConnection,
    table_id: str,
    game_no: int,
    fingerprint: str,
    count: int,
    game: GameStarted,
    report: AuditReport | None,
) -> datetime:
    """Close a table (no more appends), its game's rows brought forward whole; when it was
    closed."""
    now = datetime.now(UTC)
    with transaction(con):
        _refresh(con, game_no, fingerprint, count, game, report)
        con.execute(
            "UPDATE live_tables SET closed_at = coalesce(closed_at, ?) WHERE id = ?",
            [now, table_id],
        )
        (closed,) = _one(
            con.execute("SELECT closed_at FROM live_tables WHERE id = ?", [table_id])
        ) or (now,)
    return closed  # type: ignore[no-any-return]


__all__ = [
    "KEPT_ANSWERS",
    "TABLES_DOC",
    "TABLE_TABLES",
    "StoredTable",
    "append_entries",
    "at_table_said",
    "close_table",
    "create_table",
    "has_tables",
    "load_table",
    "open_table_games",
    "open_tables",
    "stored_answer",
]
