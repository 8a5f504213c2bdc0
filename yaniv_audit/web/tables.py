"""Live tables: a game being played lives on the server as an event stream that every
phone at the table follows and writes (``/api/v1/tables``; docs/web.md, "Live tables").

- ``POST /api/v1/tables`` opens a table with a ``game_started`` event (the write
  permission of ``POST /api/v1/games``): 201 ``{"id", "key", "seq": 1}`` and a Location.
- ``POST /api/v1/tables/<id>/events`` appends JSON Lines (``Authorization: Bearer <key>``,
  ``If-Match: "<n>"``, optionally ``Idempotency-Key``): all or none, committed in the
  archive before the answer (``{"seq", "state", "findings"}``).
- ``GET /api/v1/tables/<id>`` reads it; ``GET /api/v1/tables/<id>/events`` follows it
  (server-sent events, or ``?after=N`` as JSON); ``POST /api/v1/tables/<id>/close`` ends
  its appends.

Each table kept in memory (:class:`LiveTable`) holds its :class:`~yaniv_audit.io.live.LiveGame`
(the log read and folded), dropped after :data:`DEFAULT_IDLE` seconds unused and read
back from the archive when next needed. The limits (:class:`Limits`) bound the tables
open per server, those kept in memory, and the followers: a follower holds one of
waitress's threads for up to :data:`DEFAULT_STREAM_SECONDS`, so their number stays below
the threads, and writers always find one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Generator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypedDict

import orjson
from flask import Blueprint, Flask, Response, current_app, request

from ..archive import tables as stored
from ..core.errors import LogFormatError
from ..core.events import GameEnded, GameStarted
from ..core.report import AuditReport, Finding
from ..core.table_state import TableState
from ..io.live import LiveGame
from .api import asked_language, check_write_allowed, json_response, store, with_texts
from .errors import ApiError
from .ratelimit import RateLimit, retry_after
from .said import Part, Said, said
from .tables_openapi import IF_MATCH

tables_api = Blueprint("tables_api", __name__, url_prefix="/api/v1/tables")

#: seconds a table unused keeps its fold in memory
DEFAULT_IDLE = 600.0
#: tables kept in memory at most (the least recently used is dropped first)
DEFAULT_KEPT = 256
#: tables open (not closed) at most per archive
DEFAULT_MAX_OPEN = 1000
#: seconds one event stream lasts before the server ends it (the client reconnects with
#: Last-Event-ID, as EventSource does by itself)
DEFAULT_STREAM_SECONDS = 25.0
#: seconds between keep-alive comments on a quiet stream
KEEPALIVE_SECONDS = 10.0
#: seconds the archive stays open for writing after a table's write, for the next (its
#: open and close cost 70 ms a write; another process cannot open it meanwhile)
WRITER_KEEP = 2.0
#: the Retry-After of a 503 when every follower's place is taken
RETRY_AFTER = 5
#: tables one client address may open a minute (a token bucket: as many at once)
DEFAULT_OPEN_RATE = 30.0
#: a table id: what :func:`new_id` makes
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{8,64}")


#: the environment variables of the tables' settings
ENV = {
    "TABLE_IDLE": "YANIV_AUDIT_TABLE_IDLE",
    "TABLES_KEPT": "YANIV_AUDIT_TABLES_KEPT",
    "TABLES_MAX_OPEN": "YANIV_AUDIT_TABLES_MAX_OPEN",
    "TABLE_FOLLOWERS": "YANIV_AUDIT_TABLE_FOLLOWERS",
    "TABLE_STREAM_SECONDS": "YANIV_AUDIT_TABLE_STREAM_SECONDS",
    "TABLES_OPEN_RATE": "YANIV_AUDIT_TABLES_OPEN_RATE",
}


def followers_for(threads: int) -> int:
    """The followers a server of ``threads`` waitress threads holds: all but an eighth of
    them (at least 4) stay for writers and readers."""
    return max(0, threads - max(4, threads // 8))


@dataclass(slots=True)
class Limits:
    idle: float = DEFAULT_IDLE
    kept: int = DEFAULT_KEPT
    max_open: int = DEFAULT_MAX_OPEN
    followers: int = followers_for(8)
    stream_seconds: float = DEFAULT_STREAM_SECONDS
    open_rate: float = DEFAULT_OPEN_RATE


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class LiveTable:
    """One table in memory: its row's facts, its game when kept, the lock its appends
    take, and the condition its followers wait on."""

    def __init__(self, table: stored.StoredTable, game: LiveGame | None = None) -> None:
        self.id = table.id
        self.key_sha256 = table.key_sha256
        self.game_no = table.game_no
        self.closed = table.closed_at is not None
        self.lock = threading.Lock()
        self.changed = threading.Condition()
        self.game: LiveGame | None = None
        self.used = time.monotonic()
        #: the summary after the latest append (what followers are sent)
        self.summary: dict[str, Any] | None = None
        #: each entry's sentence so far, by language (said once: the log only grows)
        self.said: dict[str, list[list[Part]]] = {}
        self._load(table, game)

    def _load(self, table: stored.StoredTable, game: LiveGame | None = None) -> None:
        if game is None:
            game = LiveGame(f"table {table.id}")
            game.append(b"\n".join(table.leaves))
        self.game = game
        self.summary = summary(game.count, game.state())

    def kept(self) -> LiveGame:
        """The game, read back from the archive if it was dropped."""
        self.used = time.monotonic()
        if self.game is None:
            found = _stored(self.id)
            if found is None:
                raise ApiError(
                    503,
                    "the table's events cannot be read from the archive now",
                    None,
                    "archive_unavailable",
                )
            self._load(found)
        assert self.game is not None
        return self.game

    def entries(self, after: int) -> tuple[int, list[bytes]]:
        """(count, the leaves of the entries whose seq is greater than ``after``)."""
        game = self.kept()
        return game.count, game.leaves[max(after + 1, 0) :]


def _stored(table_id: str) -> stored.StoredTable | None:
    """The table as the archive holds it, or None (no such table, or no archive)."""
    with store().reading() as r:
        return stored.load_table(r.archive.con, table_id) if r is not None else None


class _TableAnswer(TypedDict):
    id: str
    seq: int
    closed: bool
    state: TableState
    report: AuditReport
    fingerprint: str | None


class TableAnswer(_TableAnswer, total=False):
    """``GET /api/v1/tables/<id>``: the table's count, state and audit so far, the
    fingerprint once over; with ``Accept-Language``, ``said`` (:mod:`.said`)."""

    said: Said


class Appended(TypedDict):
    """An append's answer: the count, the state, the findings of the entries appended."""

    seq: int
    state: TableState
    findings: list[Finding]


def summary(count: int, state: TableState) -> dict[str, Any]:
    """What followers are sent after each append: the scores, the findings, the next."""
    report, now = state["report"], state["state"]
    return {
        "seq": count,
        "scores": now["scores"],
        "findings": len(report["findings"]),
        "verdict": report["verdict"],
        "next": now["up"] or now["turn"],
        "round": now["round"],
        "rounds": len(report["rounds"]),
        "finished": now["finished"],
    }


def changes_derived(before: dict[str, Any] | None, after: dict[str, Any]) -> bool:
    """Whether an append changed what the derived rows hold (a round scored, a finding,
    the result): else only the game's row and its audit's report are brought forward."""
    return before is None or any(
        before[k] != after[k] for k in ("rounds", "findings", "verdict", "finished", "scores")
    )


class Tables:
    """The tables of one app: those kept in memory, the followers counted."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.lock = threading.Lock()
        self.live: OrderedDict[str, LiveTable] = OrderedDict()
        self.followers = 0
        #: the tables each client address opens: ``open_rate`` a minute
        self.opening = RateLimit(limits.open_rate)

    def get(self, table_id: str) -> LiveTable:
        if not ID_PATTERN.fullmatch(table_id):
            raise no_table(table_id)
        with self.lock:
            table = self.live.get(table_id)
            if table is not None:
                self.live.move_to_end(table_id)
        if table is None:
            found = _stored(table_id)
            if found is None:
                raise no_table(table_id)
            with self.lock:
                table = self.live.get(table_id)
                if table is None:
                    table = self.live[table_id] = LiveTable(found)
        self.sweep()
        table.used = time.monotonic()
        return table

    def add(self, table: LiveTable) -> None:
        with self.lock:
            self.live[table.id] = table
        self.sweep()

    def sweep(self) -> None:
        """Drop the games of tables unused for ``idle`` seconds, and the least recently
        used tables beyond ``kept``."""
        now = time.monotonic()
        with self.lock:
            while len(self.live) > self.limits.kept:
                self.live.popitem(last=False)
            for table in self.live.values():
                if (
                    table.game is not None
                    and now - table.used > self.limits.idle
                    and table.lock.acquire(blocking=False)
                ):
                    try:
                        table.game = None
                    finally:
                        table.lock.release()

    def follow(self) -> bool:
        with self.lock:
            if self.followers >= self.limits.followers:
                return False
            self.followers += 1
            return True

    def unfollow(self) -> None:
        with self.lock:
            self.followers -= 1


def tables() -> Tables:
    found: Tables = current_app.extensions["yaniv_tables"]
    return found


def init_app(app: Flask) -> None:
    """Register the tables' API on ``app``, with its limits from the config (TABLE_IDLE,
    TABLES_KEPT, TABLES_MAX_OPEN, TABLE_FOLLOWERS, TABLE_STREAM_SECONDS,
    TABLES_OPEN_RATE, each also from its environment variable, :data:`ENV`; THREADS: the
    server's threads, of which the followers may take all but an eighth)."""
    config = app.config
    for name, env in ENV.items():
        if name not in config and os.environ.get(env):
            config[name] = float(os.environ[env])
    threads = int(config.get("THREADS") or 8)
    limits = Limits(
        idle=float(config.get("TABLE_IDLE", DEFAULT_IDLE)),
        kept=int(config.get("TABLES_KEPT", DEFAULT_KEPT)),
        max_open=int(config.get("TABLES_MAX_OPEN", DEFAULT_MAX_OPEN)),
        followers=int(config.get("TABLE_FOLLOWERS", followers_for(threads))),
        stream_seconds=float(config.get("TABLE_STREAM_SECONDS", DEFAULT_STREAM_SECONDS)),
        open_rate=float(config.get("TABLES_OPEN_RATE", DEFAULT_OPEN_RATE)),
    )
    app.extensions["yaniv_tables"] = Tables(limits)
    app.register_blueprint(tables_api)


def no_table(table_id: str) -> ApiError:
    return ApiError(404, f"no table {table_id!r} on this server", None, "no_table", "No such table")


def bad_event(exc: LogFormatError, what: str = "event") -> ApiError:
    """An unreadable event of a request: 400 naming its line of the body and its field."""
    field = next(iter(exc.messages), None) if exc.messages else None
    where = f"line {exc.line}: " if exc.line is not None else ""
    return ApiError(
        400, f"{where}{exc.message}", field, f"unreadable_{what}", "Unreadable event", line=exc.line
    )


def check_key(table: LiveTable) -> None:
    """401 without ``Authorization: Bearer <key>``; 403 with another key (the hashes
    compared in constant time)."""
    header = request.headers.get("Authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else ""
    if not given:
        raise ApiError(
            401,
            "writing to a table needs Authorization: Bearer <key>, the key "
            "given when it was opened",
            None,
            "unauthorized",
            "Not allowed",
        )
    if not hmac.compare_digest(sha256(given).encode(), table.key_sha256.encode()):
        raise ApiError(
            403,
            "this key is not the table's: it writes to its own table only",
            None,
            "forbidden",
            "Not allowed",
        )


def expected_count() -> int:
    """The ``If-Match`` of an append: the entries the writer has seen (428 without it)."""
    header = request.headers.get("If-Match")
    if header is None:
        raise ApiError(
            428,
            'an append needs If-Match: "<n>", the number of entries you have '
            "seen (the seq of the last answer)",
            "If-Match",
            "precondition_required",
            "If-Match required",
        )
    found = IF_MATCH.fullmatch(header.strip())
    if found is None:
        raise ApiError(
            400,
            f'If-Match: expected "<n>", a whole number of entries, got {header!r}',
            "If-Match",
            "bad_parameter",
        )
    return int(found.group(1))


def entry_list(leaves: list[bytes], first: int) -> list[dict[str, Any]]:
    return [{"seq": first + i, "event": orjson.loads(leaf)} for i, leaf in enumerate(leaves)]


def finished(game: LiveGame, state: TableState) -> bool:
    return bool(state["state"]["finished"]) or any(type(e) is GameEnded for e in game.events)


def body_bytes() -> bytes:
    data = request.get_data(cache=False)
    if not data.strip():
        raise ApiError(
            400,
            "No event: send the events in the request body, one JSON object per line (JSON Lines)",
            "body",
            "no_events",
            "No events",
        )
    max_events = int(current_app.config["MAX_EVENTS"])
    if (
        data.count(b"\n") >= max_events
        and sum(1 for line in data.split(b"\n") if line.strip()) > max_events
    ):
        raise ApiError(
            413,
            f"more than {max_events:,} events in one request (YANIV_AUDIT_MAX_EVENTS)",
            "body",
            "too_many_events",
        )
    return data


# --- the endpoints ------------------------------------------------------------------------


@tables_api.post("")
def open_table() -> Response:
    """Open a table with a game_started event: 201 with its id, its key and seq 1 (429
    past TABLES_OPEN_RATE a minute from one address)."""
    limits = tables().limits
    wait = tables().opening.take(request.remote_addr or "")
    if wait:
        seconds = retry_after(wait)
        error = ApiError(
            429,
            f"this address has opened {limits.open_rate:g} tables a minute, "
            f"its most (TABLES_OPEN_RATE): try again in {seconds} s",
            None,
            "too_many_requests",
            "Too many tables opened",
            retry_after=seconds,
        )
        response = json_response(error.to_json(), 429)
        response.headers["Retry-After"] = str(seconds)
        return response
    check_write_allowed()
    data = body_bytes()
    game = LiveGame("table")
    try:
        events = game.append(data)
    except LogFormatError as exc:
        raise bad_event(exc) from None
    if len(events) != 1 or not isinstance(events[0], GameStarted):
        raise ApiError(
            400,
            "a table is opened with one event, its game_started; append the "
            "others to /api/v1/tables/<id>/events",
            "body",
            "unreadable_event",
        )
    table_id, key = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
    state = game.state()
    with store().writing(keep=WRITER_KEEP) as archive:
        if stored.open_tables(archive.con) >= limits.max_open:
            raise ApiError(
                503,
                f"this server holds {limits.max_open:,} open tables, its "
                "most (TABLES_MAX_OPEN): close one first",
                None,
                "too_many_tables",
                "Too many tables",
            )
        try:
            game_no = stored.create_table(
                archive.con,
                table_id,
                sha256(key),
                events[0],
                game.leaves[0],
                game.fingerprint(),
                state["report"],
            )
        except Exception as exc:
            if "Duplicate key" in str(exc) or "constraint" in str(exc).lower():
                raise ApiError(
                    409,
                    "a game with this very game_started is archived already: "
                    "give it a game_id or its time (at)",
                    "body",
                    "same_game",
                ) from None
            raise
    table = LiveTable(stored.StoredTable(table_id, sha256(key), game_no, _now(), None, []), game)
    tables().add(table)
    response = json_response({"id": table_id, "key": key, "seq": 1}, 201)
    response.headers["Location"] = f"/api/v1/tables/{table_id}"
    return response


def _now() -> datetime:
    return datetime.now(UTC)


@tables_api.post("/<table_id>/events")
def append(table_id: str) -> Response:
    """Append JSON Lines at the count the writer has seen: all or none, durable first."""
    table = tables().get(table_id)
    check_key(table)
    seen = expected_count()
    data = body_bytes()
    token = request.headers.get("Idempotency-Key")
    # an answer is kept by the token and the entries it answered: a token sent again with
    # other entries is another append (If-Match decides it), never answered as the first
    token_sha = hashlib.sha256(token.encode("utf-8") + b"\n" + data).hexdigest() if token else None
    lang = asked_language()
    with table.lock:
        game = table.kept()
        if token_sha is not None:
            with store().reading() as r:
                first = (
                    stored.stored_answer(r.archive.con, table.id, token_sha)
                    if r is not None
                    else None
                )
            if first is not None:
                response = json_response(with_texts(orjson.loads(first), lang))
                response.headers["Idempotent-Replayed"] = "true"
                return response
        if table.closed:
            raise ApiError(
                409,
                "the table is closed: nothing more is appended",
                None,
                "table_closed",
                "Table closed",
            )
        if seen != game.count:
            count, since = game.count, game.leaves[seen:] if seen < game.count else []
            error = ApiError(
                412,
                f"the table has {count} entries, not {seen}: read the entries "
                "since yours and send again",
                "If-Match",
                "stale",
                "Precondition failed",
                seq=count,
            )
            return json_response(
                {
                    **error.to_json(),
                    "seq": count,
                    "entries": entry_list(list(since), min(seen, count)),
                },
                412,
            )
        before = game.fingerprint()
        try:
            game.append(data)
        except LogFormatError as exc:
            raise bad_event(exc) from None
        state = game.state()
        report = state["report"]
        answer: Appended = {
            "seq": game.count,
            "state": state,
            "findings": [f for f in report["findings"] if f["seq"] >= seen],
        }
        body = orjson.dumps(answer, option=orjson.OPT_NON_STR_KEYS)
        after = summary(game.count, state)
        try:
            with store().writing(keep=WRITER_KEEP) as archive:
                stored.append_entries(
                    archive.con,
                    table.id,
                    table.game_no,
                    game.events,
                    game.leaves,
                    seen,
                    game.fingerprint(),
                    report,
                    (token_sha, body) if token_sha is not None else None,
                    changes_derived(table.summary, after),
                    before,
                )
        except BaseException:
            table.game = None  # not stored: read back from the archive when next needed
            raise
        with table.changed:
            table.summary = after
            table.changed.notify_all()
    return json_response(with_texts(answer, lang))


@tables_api.get("/<table_id>")
def read(table_id: str) -> Response:
    """The table: its count, state, the audit so far, and the fingerprint once over."""
    table = tables().get(table_id)
    lang = asked_language()
    told: Said | None = None
    with table.lock:
        game = table.kept()
        state = game.state()
        if lang is not None:  # every entry and round said in that language
            known = table.said.setdefault(lang, [])
            told = said(game.log(), state["report"], lang, state["state"]["stock"], known)
    over = finished(game, state)
    answer: TableAnswer = {
        "id": table.id,
        "seq": game.count,
        "closed": table.closed,
        "state": state,
        "report": state["report"],
        "fingerprint": game.fingerprint() if over else None,
    }
    if told is not None:
        answer["said"] = told
    return json_response(with_texts(answer, lang))


@tables_api.post("/<table_id>/close")
def close(table_id: str) -> Response:
    """Close the table (its key holder): no more appends."""
    table = tables().get(table_id)
    check_key(table)
    with table.lock:
        game = table.kept()
        first = game.events[0]
        assert isinstance(first, GameStarted)
        report = game.state()["report"]
        with store().writing(keep=WRITER_KEEP) as archive:
            stored.close_table(
                archive.con, table.id, table.game_no, game.fingerprint(), game.count, first, report
            )
        table.closed = True
        with table.changed:
            table.changed.notify_all()
    return json_response({"id": table.id, "seq": game.count, "closed": True})


@tables_api.get("/<table_id>/events")
def follow(table_id: str) -> Response:
    """Server-sent events (``Accept: text/event-stream``), else the entries after
    ``?after=N`` as JSON."""
    table = tables().get(table_id)
    after = _after()
    if "text/event-stream" not in request.headers.get("Accept", ""):
        with table.lock:
            count, leaves = table.entries(after)
        return json_response(
            {
                "id": table.id,
                "seq": count,
                "closed": table.closed,
                "entries": entry_list(leaves, count - len(leaves)),
            }
        )
    last = request.headers.get("Last-Event-ID")
    if last is not None:
        last = last.strip()
        if not re.fullmatch(r"-?\d{1,9}", last):
            raise ApiError(
                400,
                f"Last-Event-ID: expected the seq of the last entry received, got {last!r}",
                "Last-Event-ID",
                "bad_parameter",
            )
        after = int(last)
    registry = tables()
    if not registry.follow():
        response = json_response(
            ApiError(
                503,
                f"this server follows {registry.limits.followers} streams at most, all taken: "
                f"try again in {RETRY_AFTER} s",
                None,
                "too_many_followers",
                "Too many followers",
            ).to_json(),
            503,
        )
        response.headers["Retry-After"] = str(RETRY_AFTER)
        return response
    with table.lock:
        table.kept()
    stream = _Stream(table, registry, after, registry.limits.stream_seconds)
    response = Response(stream, mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _after() -> int:
    text = request.args.get("after")
    if text is None or text == "":
        return -1
    if not re.fullmatch(r"-?[0-9]{1,9}", text.strip()) or int(text) < -1:
        raise ApiError(
            400,
            f"after: expected the seq of the last entry you have (-1: none), got {text!r}",
            "after",
            "bad_parameter",
        )
    return int(text)


class _Stream:
    """The event stream's body: counts its follower out once, when waitress closes it, even
    if it never started."""

    def __init__(self, table: LiveTable, registry: Tables, after: int, seconds: float) -> None:
        self.registry = registry
        self.events = _stream(table, after, seconds)
        self.done = False

    def __iter__(self) -> _Stream:
        return self

    def __next__(self) -> bytes:
        return next(self.events)

    def close(self) -> None:
        self.events.close()
        if not self.done:
            self.done = True
            self.registry.unfollow()


def _stream(table: LiveTable, after: int, seconds: float) -> Generator[bytes, None, None]:
    """The entries after ``after``, then each append's entries and summary, for ``seconds``."""
    end = time.monotonic() + seconds
    yield (
        f"retry: 1000\n: the stream ends after {seconds:g} s; reconnect with Last-Event-ID\n\n"
    ).encode()
    sent: dict[str, Any] | None = None
    while True:
        with table.changed:
            current = table.summary
        with table.lock:
            count, leaves = table.entries(after)
        chunks = [
            b'id: %d\nevent: entry\ndata: {"seq":%d,"event":%b}\n\n' % (seq, seq, leaf)
            for seq, leaf in enumerate(leaves, count - len(leaves))
        ]
        after = count - 1
        if current is not None and current is not sent:
            chunks.append(b"event: summary\ndata: " + orjson.dumps(current) + b"\n\n")
            sent = current
        if table.closed:
            chunks.append(b'event: closed\ndata: {"seq":%d}\n\n' % count)
            yield b"".join(chunks)
            return
        if chunks:
            yield b"".join(chunks)
        left = end - time.monotonic()
        if left <= 0:
            yield b'event: end\ndata: {"reconnect":true}\n\n'
            return
        with table.changed:
            quiet = (
                table.summary is current
                and not table.closed
                and not table.changed.wait(min(left, KEEPALIVE_SECONDS))
            )
        if quiet:
            yield b": keep-alive\n\n"
