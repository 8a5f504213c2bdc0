"""The rows the archive stores, made from a log or a report (in the worker processes):
a log's ``events`` and ``deals`` rows as Arrow tables in Arrow's stream format, and the
rows a report gives each derived table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import duckdb

if TYPE_CHECKING:
    import pyarrow as pa

from ..core.cards import NAMES
from ..core.deal_odds import classifier
from ..core.events import (
    EVENT_TYPES_BY_CLASS,
    Discard,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    RoundEnded,
    RoundStarted,
    Slap,
)
from ..core.report import AnyReport, AuditReport, audited, is_unreadable
from ..core.rules import RuleSet, parse_rules
from .base import NO_EXTENSIONS
from .schema import DERIVED, DERIVED_TABLES


def prepare() -> None:
    """Import what storing a game needs: pyarrow, and pandas, which pyarrow imports at its
    first array when it is installed (0.3-1 s holding the interpreter). A server calls this
    beside its first requests, so that the first game stored does not stall every other
    request behind that import."""
    import pyarrow as pa

    pa.array([0])


@dataclass(frozen=True, slots=True)
class IngestRow:
    """One readable log, ready to store."""

    source: str
    fingerprint: str
    game_id: str
    players: list[str]
    rules_key: str
    rules_id: str
    started_at: datetime | None
    #: its ``events`` rows but the game_no (given when it is stored), as an Arrow table
    #: (:data:`EVENT_COLUMNS`) in Arrow's stream format (:func:`to_stream`): built in the
    #: worker that read the log, it travels to the parent as one compressed buffer
    #: (pickled tables took twice as long) and into DuckDB without a Python object per value
    events: bytes
    #: the md5 of its first leaf (the canonical game_started: :func:`opening_md5`), and how
    #: many events it has
    opening: str
    count: int
    #: the ``deals`` rows of its recorded hands but the game_no (:data:`DEAL_COLUMNS`),
    #: in the same format
    deals: bytes

    def leaves(self) -> list[str]:
        """Its events' canonical JSON, in order (read from the table when needed)."""
        return from_stream(self.events).column("event").to_pylist()  # type: ignore[no-any-return]


def to_stream(table: pa.Table) -> bytes:
    """An Arrow table in Arrow's stream format (:func:`from_stream` reads it back)."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    # LZ4: the events' JSON shrinks threefold, and with it the pipe to the parent, whose
    # 64 KiB at a time each wait for the parent to be scheduled while the workers hold
    # the cores (1,000 games: 22.8 s against 54.5 s uncompressed, interleaved runs)
    options = pa.ipc.IpcWriteOptions(compression="lz4")
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()  # type: ignore[no-any-return]


def from_stream(data: bytes) -> pa.Table:
    """The table :func:`to_stream` wrote (its buffers are ``data``'s, not copies)."""
    import pyarrow as pa

    return pa.ipc.open_stream(data).read_all()


def opening_md5(leaf: bytes) -> str:
    """The md5 of a log's first leaf, as ``games.opening_md5`` holds it (DuckDB's
    ``md5(event)`` of the stored event gives the same): the versions of a game are the
    games with the same game_started, found by it without reading any events."""
    return hashlib.md5(leaf, usedforsecurity=False).hexdigest()


#: the columns of ``events`` an :class:`IngestRow` carries, in the table's order (all but
#: the first, game_no)
EVENT_COLUMNS = ("seq", "type", "player", "event", "round", "source", "cards")


def event_table(events: Sequence[Event], leaves: Sequence[bytes]) -> pa.Table:
    """The ``events`` rows of one log but the game_no, as an Arrow table: each event's
    position, type, player, canonical JSON (its leaf), and the typed columns of
    :func:`event_columns`."""
    import pyarrow as pa

    kind = EVENT_TYPES_BY_CLASS.__getitem__
    rounds, sources, cards = event_columns(events)
    text, number = pa.string(), pa.int32()
    return pa.table(
        [
            pa.array(range(len(events)), number),
            pa.array([kind(type(e)) for e in events], text),
            pa.array([getattr(e, "player", None) for e in events], text),
            pa.array(leaves, text),
            pa.array(rounds, number),
            pa.array(sources, text),
            pa.array(cards, pa.list_(text)),
        ],
        names=list(EVENT_COLUMNS),
    )


def event_columns(
    events: Sequence[Event],
) -> tuple[list[int | None], list[str | None], list[list[str] | None]]:
    """The typed columns of ``events``: the round each belongs to (its own for
    round_started and round_ended, the round last started for the others, None for
    game_started, game_ended and what comes before the first round), a draw's source,
    and the cards (a discard's, a draw's or slap's card when known). The same as
    :data:`~yaniv_audit.archive.migrate.BACKFILL` computes from the stored JSON."""
    rounds: list[int | None] = []
    sources: list[str | None] = []
    cards: list[list[str] | None] = []
    current: int | None = None
    name = NAMES.__getitem__
    for e in events:  # by exact type, the moves first: most events are discards and draws
        kind = type(e)
        if kind is Discard:
            rounds.append(current)
            sources.append(None)
            cards.append(list(map(name, e.cards)))  # type: ignore[attr-defined]
        elif kind is Draw:
            rounds.append(current)
            sources.append(e.source)  # type: ignore[attr-defined]
            cards.append(None if e.card is None else [NAMES[e.card]])  # type: ignore[attr-defined]
        else:
            if kind is RoundStarted:
                current = e.round  # type: ignore[attr-defined]
                rounds.append(current)
            elif kind is RoundEnded:
                rounds.append(e.round)  # type: ignore[attr-defined]
            elif kind is GameStarted or kind is GameEnded:
                rounds.append(None)
            else:
                rounds.append(current)
            sources.append(None)
            cards.append([NAMES[e.card]] if kind is Slap else None)  # type: ignore[attr-defined]
    return rounds, sources, cards


def deal_rows(events: Sequence[Event], rules: RuleSet) -> list[tuple[Any, ...]]:
    """The ``deals`` rows of a log (without its game_no): each hand recorded at a deal,
    classified under the rules the game declared (the deck it was dealt from) as
    :func:`yaniv_audit.core.deal_odds.classify` does: (round, player, cards, ranks, run, total)."""
    classify = classifier(rules)
    rows: list[tuple[Any, ...]] = []
    for e in events:
        if type(e) is RoundStarted and e.hands:
            for player, hand in e.hands.items():
                rows.append((e.round, player, len(hand), *classify(hand)))
    return rows


#: the columns of ``deals`` an :class:`IngestRow` carries (all but the first, game_no)
DEAL_COLUMNS = ("round", "player", "cards", "ranks", "run", "total")


def deal_table(rows: list[tuple[Any, ...]]) -> pa.Table:
    """:func:`deal_rows` as an Arrow table of :data:`DEAL_COLUMNS`."""
    import pyarrow as pa

    text, number = pa.string(), pa.int32()
    columns = list(zip(*rows, strict=True)) or [()] * len(DEAL_COLUMNS)
    return pa.table(
        [
            pa.array(values, kind)
            for values, kind in zip(
                columns, (number, text, number, text, text, number), strict=True
            )
        ],
        names=list(DEAL_COLUMNS),
    )


def derived_rows(
    report: AuditReport,
    game_no: int,
    keys: dict[str, str] | None = None,
) -> dict[str, list[tuple[Any, ...]]]:
    """The rows a report of archived game ``game_no`` gives each derived table
    (``audits`` without its time stamp).

    ``keys`` caches rule-set id -> parameter key across calls.
    """
    from ..core.audit import to_json_line  # heavy (the engine): only where logs are audited

    keys = {} if keys is None else keys
    fp = game_no
    rules_id = report["rules"]["id"]
    key = keys.get(rules_id) or keys.setdefault(rules_id, parse_rules(rules_id).key)
    final = report["final"]
    stored = {k: v for k, v in report.items() if k != "file"}  # the game's own report
    rounds = []
    for r in report["rounds"]:
        caller = r["caller"]
        rounds.append(
            (
                fp,
                key,
                r["round"],
                len(r["totals"]) or len(r["scores"]),
                r["starter"],
                r["end"],
                caller,
                r["totals"].get(caller) if caller else None,
                bool(caller and r["assaf"]),
                r["assaf"],
                r["winners"],
            )
        )
    winners, out = set(final["winners"]), set(final["out"])
    return {
        "player_rounds": player_round_rows(report, key, game_no),
        "audits": [
            (
                fp,
                key,
                rules_id,
                report["engine"],
                report["verdict"],
                final["finished"],
                final["winners"],
                len(report["rounds"]),
                len(report["findings"]),
                to_json_line(stored),
            )
        ],
        "findings": [
            (fp, key, f["seq"], f["round"], f["player"], f["kind"], f["code"], f["message"])
            for f in report["findings"]
        ],
        "rounds": rounds,
        "standings": [
            (fp, key, p, seat, score, p in winners, p in out)
            for seat, (p, score) in enumerate(final["scores"].items())
        ],
    }


def player_round_rows(
    report: AuditReport,
    key: str,
    game: int | str,
) -> list[tuple[Any, ...]]:
    """The ``player_rounds`` rows of a report, keyed by ``game`` (its game_no; its
    fingerprint in schema 2): each player of each round (those with a hand total, else
    those not out yet), in seat order."""
    fp = game
    seats = {p: seat for seat, p in enumerate(report["final"]["scores"])}
    rows = []
    gone: set[str] = set()
    for r in report["rounds"]:
        totals, points, scores = r["totals"], r["points"], r["scores"]
        caller, assaf, starter = r["caller"], set(r["assaf"]), r["starter"]
        in_round = totals or points or [p for p in scores if p not in gone]
        reduced = {x["player"]: x["from"] for x in r.get("reductions", [])}
        out = set(r.get("out", []))
        winners = set(r["winners"])
        for p in sorted(in_round, key=lambda p: seats.get(p, len(seats))):
            rows.append(
                (
                    fp,
                    key,
                    r["round"],
                    p,
                    seats.get(p, -1),
                    totals.get(p),
                    points.get(p),
                    scores.get(p),
                    p == caller,
                    p == caller and bool(assaf),
                    p in assaf,
                    p in winners,
                    reduced.get(p),
                    p in out,
                    p == starter,
                )
            )
        gone |= out
    return rows


def add_derived(
    rows: dict[str, list[tuple[Any, ...]]],
    report: AnyReport,
    game_no: int,
    keys: dict[str, str],
    audited_at: datetime,
) -> None:
    """Add the rows a report gives each derived table (:func:`derived_rows`, its
    ``audits`` row stamped ``audited_at``) to ``rows``; an unreadable report gives none
    (verify tells what happened to the game)."""
    if is_unreadable(report):
        return
    derived = derived_rows(audited(report), game_no, keys)
    derived["audits"] = [(*derived["audits"][0], audited_at)]
    for table, found in derived.items():
        rows[table].extend(found)


def derived_tables(rows: dict[str, list[tuple[Any, ...]]]) -> dict[str, pa.Table]:
    """Rows of each derived table (``audits`` with its time stamp) as Arrow tables with
    the archive's column types (:func:`derived_schemas`)."""
    import pyarrow as pa

    tables = {}
    for table, schema in derived_schemas().items():
        found = rows.get(table, [])
        columns = zip(*found, strict=True) if found else ([] for _ in schema)
        tables[table] = pa.table(
            [
                pa.array(list(column), type=field.type)
                for column, field in zip(columns, schema, strict=True)
            ],
            schema=schema,
        )
    return tables


@cache
def derived_schemas() -> dict[str, pa.Schema]:
    """The Arrow schema of each derived table, as DuckDB gives the archive's own
    CREATE TABLEs (so that Arrow tables and Parquet files have the archive's types)."""
    con = duckdb.connect(config={"threads": 1, **NO_EXTENSIONS})
    try:
        con.execute(DERIVED_TABLES)
        return {table: con.table(table).to_arrow_table().schema for table in DERIVED}
    finally:
        con.close()
