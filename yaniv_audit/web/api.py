"""The JSON API, version 1: everything under ``/api/v1/`` (docs/web.md is its reference;
``/api/v1/openapi.json`` its OpenAPI document).

Every answer is JSON; every error is ``{"error": {"status", "code", "message",
"field"}}``. A log sent in the body is read whatever the request's content type
(raw JSON Lines or a JSON array, or the ``log`` file or field of a form), and the
query string never consumes the body. Games are addressed by fingerprint, by a
unique fingerprint prefix of 8 or more hex digits, or by ``game_id``.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import re
import shlex
import tempfile
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, TypeVar

import orjson
from flask import Blueprint, Response, current_app, request
from werkzeug.routing import PathConverter

from ..archive import analytics
from ..archive.tables import at_table_said
from ..core.audit import audit_log, compare_log, other_tables
from ..core.errors import ArchiveError, LogFormatError, RulesError
from ..core.events import Log
from ..core.merkle import tree_hash
from ..core.rules import PRESET_SOURCES, PRESETS, RuleSet, parse_rules
from ..core.table_state import TableState, table_state
from ..io.codec import parse_json_array, parse_jsonl
from ..io.report_schema import VERDICTS
from .board import MAX_BOARD_BYTES, board, board_size
from .cache import AnswerCache, Entry
from .errors import ApiError
from .i18n import DEFAULT, LANGUAGES, finding_text
from .limits import (
    DEFAULT_EVENTS_LIMIT,
    DEFAULT_LIMIT,
    MAX_EVENTS_LIMIT,
    MAX_LIMIT,
    MAX_OFFSET,
    MAX_RULE_SETS,
)
from .said import Said, said
from .store import SORTS, Ambiguous, Filters, Reader, Store, base_name, ingest_into
from .workers import Workers

api_v1 = Blueprint("api_v1", __name__, url_prefix="/api/v1")


class AnyTextConverter(PathConverter):
    """``path``, line breaks included: a rule-set id with a line break in it was a 404
    ("nothing at"), not the 400 that says what is wrong with it (schemathesis, issue 27)."""

    regex = "[^/](?s:.)*?"


def unreadable_error(source: str, exc: LogFormatError, field: str = "log") -> ApiError:
    """A log that cannot be read: where in it, and what is wrong (as ``validate`` says)."""
    where: dict[str, Any] = {"line": exc.line}
    if exc.line is None:
        where["index"] = exc.index
    where_text = f"{exc.where()}: " if exc.where() != "log" else ""
    return ApiError(
        422,
        f"{source}: {where_text}{exc.message}",
        field,
        "unreadable_log",
        "Unreadable log",
        **where,
    )


# --- the app's parts ------------------------------------------------------------------


def store() -> Store:
    found: Store = current_app.extensions["yaniv_store"]
    return found


def cache() -> AnswerCache:
    found: AnswerCache = current_app.extensions["yaniv_cache"]
    return found


def json_response(obj: Any, status: int = 200) -> Response:
    return answer(Entry(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)), status)


def answer(entry: Entry, status: int = 200, mimetype: str = "application/json") -> Response:
    """A body (JSON unless ``mimetype`` says otherwise), gzipped when the client takes it
    and it is worth it."""
    compress = len(entry.body) > 1400 and "gzip" in request.headers.get("Accept-Encoding", "")
    response = Response(
        entry.gzipped() if compress else entry.body, status=status, mimetype=mimetype
    )
    if compress:
        response.headers["Content-Encoding"] = "gzip"
    if len(entry.body) > 1400:
        response.vary.add("Accept-Encoding")
    return response


def cached(key: tuple[Any, ...], build: Callable[[], Any]) -> Response:
    entry = cache().build_once(key, lambda: orjson.dumps(build(), option=orjson.OPT_NON_STR_KEYS))
    return answer(entry)


# --- what a request gives --------------------------------------------------------------


def arg(name: str) -> str | None:
    """A text parameter (``player``, ``q``, ``rules``, ``seat``), trimmed; empty is the
    same as not given."""
    value = (request.args.get(name) or "").strip()
    return value or None


def typed_arg(name: str) -> str | None:
    """A number, a boolean, a date or a choice, exactly as sent: empty is the same as not
    given (as a form sends a field left unset: the OpenAPI document says so with
    ``allowEmptyValue``); anything else must be the value itself, with no blank around
    it (`` 5`` and ``5 `` were taken as 5, ``true `` as true)."""
    return request.args.get(name) or None


def int_arg(name: str, default: int, low: int, high: int) -> int:
    text = typed_arg(name)
    if text is None:
        return default
    # digits only: int() also took " 5", "+5", "1_000" and "\uff15" (a full-width 5)
    value = int(text) if re.fullmatch(r"-?[0-9]{1,30}", text, re.ASCII) else None
    if value is None or not low <= value <= high:
        raise ApiError(
            400,
            f"{name}: expected a whole number from {low} to {high}, got {text!r}",
            name,
            "bad_parameter",
        )
    return value


def bool_arg(name: str) -> bool | None:
    """``true`` or ``false``, as the document says (``1``, ``yes``, ``TRUE`` were taken)."""
    text = typed_arg(name)
    if text is None:
        return None
    if text in ("true", "false"):
        return text == "true"
    raise ApiError(400, f"{name}: expected true or false, got {text!r}", name, "bad_parameter")


def date_arg(name: str) -> datetime | None:
    """A date (``2024-05-01``) or a time (RFC 3339: ``2024-05-01T20:30:00Z``, the ``T`` and
    ``Z`` in either case, a leap second read as :59; a time without offset is UTC)."""
    text = typed_arg(name)
    if text is None:
        return None
    try:
        if len(text) == 10:
            day = date.fromisoformat(text)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        moment = datetime.fromisoformat(
            re.sub(r"(T\d\d:\d\d:)60", r"\g<1>59", text.upper(), count=1)
        )
    except ValueError:
        raise ApiError(
            400,
            f"{name}: expected a date (2024-05-01) or an RFC 3339 time "
            f"(2024-05-01T20:30:00Z), got {text!r}",
            name,
            "bad_parameter",
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def rules_from(spec: str, field: str = "rules", title: str | None = None) -> RuleSet:
    try:
        return parse_rules(spec)
    except RulesError as exc:
        raise ApiError(400, f"rules {spec!r}: {exc}", field, "bad_rules", title) from None


def rules_arg() -> RuleSet | None:
    spec = arg("rules")
    return rules_from(spec) if spec else None


def rule_specs(values: list[str]) -> list[str]:
    """The rule-set ids of a request's ``rules`` values (blanks left out), at most
    :data:`MAX_RULE_SETS` of them: a 400 past that, before any is read (1,687 of them took
    37.6 s to compare)."""
    specs = [value.strip() for value in values if value.strip()]
    if len(specs) > MAX_RULE_SETS:
        raise ApiError(
            400,
            f"rules: {len(specs):,} rule sets given; at most {MAX_RULE_SETS} "
            "may be compared or reported in one request",
            "rules",
            "bad_parameter",
            "Too many rule sets",
        )
    return specs


def rule_sets_arg(log: Log | None = None) -> list[RuleSet]:
    """The ``rules`` given (the first the baseline), else the declared rules and every
    preset with other parameters."""
    sets = [rules_from(spec) for spec in rule_specs(request.args.getlist("rules"))]
    if sets or log is None:
        return list(dict.fromkeys(sets))
    return other_tables(log)


def seat_arg(log: Log) -> str | None:
    seat = arg("seat")
    if seat is not None and seat not in log.players:
        raise ApiError(
            400,
            f"{seat!r} is not seated; the players are {', '.join(log.players)}",
            "seat",
            "bad_parameter",
        )
    return seat


def limits() -> tuple[int, int]:
    return int(current_app.config["MAX_BYTES"]), int(current_app.config["MAX_EVENTS"])


def body_files() -> list[tuple[str, bytes]]:
    """The logs a request carries: the ``log`` files (or ``log``/``text`` fields) of a
    multipart form, else the raw body, whatever its content type."""
    if request.mimetype == "multipart/form-data":
        logs = [
            (upload_name(f.filename), f.read()) for f in request.files.getlist("log") if f.filename
        ]
        logs += [
            (upload_name(f.filename), f.read())
            for name, f in request.files.items(multi=True)
            if name != "log" and f.filename
        ]
        for name in ("log", "text"):
            text = request.form.get(name)
            if text and text.strip():
                logs.append(("request", text.encode("utf-8")))
        if not logs:
            raise ApiError(
                400,
                "No log: send the log as the form's log file (or field)",
                "log",
                "no_log",
                "No log",
            )
        return logs
    data = request.get_data(cache=True)
    if not data.strip():
        raise ApiError(
            400,
            "No log: send the log in the request body (JSON Lines or a JSON array of events)",
            "log",
            "no_log",
            "No log",
        )
    return [("request", data)]


def upload_name(filename: str | None) -> str:
    """An uploaded file's name as the archive keeps it: its base name, with no control
    character (a NUL made storing it a 500) and at most 240 bytes (a file name's limit is
    255, and ``.jsonl`` may be added; the extension kept); no file's name is ``upload``."""
    name = "".join(c if c.isprintable() else "_" for c in base_name(filename or ""))
    if name.strip(". ") == "":
        return "upload"
    stem, dot, extension = name.rpartition(".")
    if not dot or len(extension) > 16:
        stem, extension = name, ""
    tail = f".{extension}" if extension else ""
    while len((stem + tail).encode("utf-8")) > 240:
        stem = stem[:-1]
    return stem + tail


def read_log_bytes(data: bytes, name: str, max_events: int | None = None) -> Log:
    """One log (a JSON array if it looks like one, else JSON Lines), at most
    ``max_events`` (default: the server's cap); 422 if unreadable, 413 if too long."""
    if max_events is None:
        _, max_events = limits()
    is_array = data.lstrip()[:1] == b"["
    if (
        not is_array
        and data.count(b"\n") >= max_events
        and sum(  # else too few lines
            1 for line in data.split(b"\n") if line.strip()
        )
        > max_events
    ):
        raise too_many_events(name, max_events)
    try:
        log = (parse_json_array if is_array else parse_jsonl)(data, name)
    except LogFormatError as exc:
        raise unreadable_error(name, exc) from None
    if len(log.events) > max_events:
        raise too_many_events(name, max_events)
    return log


def megabytes(size: int) -> str:
    return f"{size / (1 << 20):g} MiB" if size >= 1 << 20 else f"{size:,} bytes"


def too_large_error(max_bytes: int) -> ApiError:
    """A body over the limit (the app's 413, and waitress's for one over twice it)."""
    return ApiError(
        413,
        f"the request is larger than {megabytes(max_bytes)}, the most this "
        "server reads (YANIV_AUDIT_MAX_BYTES, serve --max-bytes)",
        "log",
        "too_large",
        "Too large",
    )


def too_many_events(name: str, max_events: int) -> ApiError:
    return ApiError(
        413,
        f"{name}: the log has more than {max_events:,} events, the most this "
        "server reads in one request (YANIV_AUDIT_MAX_EVENTS)",
        "log",
        "too_many_events",
        "Too many events",
    )


def check_board_size(log: Log, name: str) -> None:
    """A 413 before the replay when the board of ``log`` would be larger than the server
    builds in one answer (``MAX_BOARD_BYTES``), estimated from the log: its events times
    its seats (a page and the board API embed it whole, the cache keeps it)."""
    most = int(current_app.config.get("MAX_BOARD_BYTES", MAX_BOARD_BYTES))
    size = board_size(log, sum(len(leaf) + 1 for leaf in log.leaves))
    if size > most:
        raise ApiError(
            413,
            f"{name}: its board would be about {megabytes(size)} "
            f"({len(log.events):,} events x {len(log.players)} seats), more "
            f"than the {megabytes(most)} this server builds in one answer: "
            "audit it instead (POST /api/v1/audit, yaniv-audit audit), or "
            "step through it with yaniv-audit replay",
            "log",
            "answer_too_large",
            "Too large an answer",
        )


#: an answer of the API (a report, a comparison, a table's state, a fit), as typed
Answer = TypeVar("Answer")


def body_log() -> Log:
    name, data = body_files()[0]
    return read_log_bytes(data, name)


def replayed(name: str, build: Callable[[], Answer]) -> Answer:
    """``build()``, with a replay that finds the log unreadable as a 422."""
    try:
        return build()
    except LogFormatError as exc:
        raise unreadable_error(name, exc) from None


def asked_language() -> str | None:
    """The language the request's ``Accept-Language`` asks the findings in (English when
    it names none of the five); None without the header."""
    if "Accept-Language" not in request.headers:
        return None
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT) or DEFAULT


class StateAnswer(TableState, total=False):
    """``POST /api/v1/state``: :func:`~yaniv_audit.core.table_state.table_state`, and
    with ``Accept-Language``, ``said`` (:mod:`.said`)."""

    said: Said


def with_texts(answer: Answer, lang: str | None) -> Answer:
    """The findings of ``answer`` (any of the API's answers: each dict with ``code``,
    ``params`` and ``message`` is a finding), each given ``text``: its message in
    ``lang``, cards as the board draws them (``lang`` None: the answer as it is)."""
    if lang is None:
        return answer
    stack: list[Any] = [answer]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "code" in value and "params" in value and "message" in value:
                value["text"] = finding_text(value, lang)
            else:
                stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return answer


# --- the archive -------------------------------------------------------------------------


def no_archive() -> ApiError:
    return ApiError(
        404,
        "no archive: create one with yaniv-audit ingest (or POST /api/v1/games)",
        None,
        "no_archive",
        "No archive",
    )


def reader() -> Any:
    return store().reading()


def found_game(r: Reader | None, ref: str) -> dict[str, Any]:
    if r is None:
        raise no_archive()
    try:
        game = r.resolve(ref)
    except Ambiguous as exc:
        raise ApiError(
            409,
            f"{ref!r} names {len(exc.candidates)}"
            f"{' or more' if len(exc.candidates) > 10 else ''} games: give "
            "more of the fingerprint",
            "game",
            "ambiguous",
            "Ambiguous game",
            candidates=[
                {k: g[k] for k in ("fingerprint", "game_id", "source", "events", "superseded")}
                for g in exc.candidates[:10]
            ],
        ) from None
    if game is None:
        raise ApiError(
            404,
            f"no game {ref!r} in the archive (give a fingerprint, 8 or more "
            "of its first hex digits, or a game_id)",
            "game",
            "no_such_game",
            "No such game",
        )
    return game


def game_facts(ref: str) -> dict[str, Any]:
    """What never changes of an archived game (fingerprint, players, source): from memory
    for a full fingerprint seen before, else from the archive."""
    known = store().known.get(ref)
    if known is not None:
        return {"fingerprint": ref, "players": known[0], "source": known[1]}
    with reader() as r:
        game = found_game(r, ref)
    store().remember(game)
    return game


def game_log(ref: str) -> tuple[dict[str, Any], Log]:
    """An archived game (its listing row) and its log read back from its events."""
    with reader() as r:
        game = found_game(r, ref)
        assert r is not None
        try:
            log = r.log(game["fingerprint"], game["source"])
        except LogFormatError as exc:  # the stored events were altered (yaniv-audit verify)
            raise unreadable_error(f"game {game['fingerprint']}", exc) from None
    return game, log


def rules_key(rules: RuleSet | None) -> str:
    return "declared" if rules is None else rules.key


# --- may this request write? -----------------------------------------------------------


def check_write_allowed(token: str | None = None) -> None:
    """Writes need ``Authorization: Bearer <YANIV_AUDIT_TOKEN>`` (or, from a page's form,
    the ``token`` given); without a token configured, only a request from this machine
    that no proxy forwarded may write."""
    origin = request.headers.get("Origin")
    if origin and origin.rstrip("/") != request.host_url.rstrip("/"):
        raise ApiError(
            403,
            f"a write from another site ({origin}) is refused",
            None,
            "forbidden",
            "Not allowed",
        )
    configured = current_app.config.get("WRITE_TOKEN") or ""
    header = request.headers.get("Authorization", "")
    given = header[7:].strip() if header.lower().startswith("bearer ") else (token or "")
    if configured:
        if not given or not hmac.compare_digest(given.encode(), str(configured).encode()):
            raise ApiError(
                401,
                "writing to the archive needs Authorization: Bearer <token> "
                "with the server's YANIV_AUDIT_TOKEN",
                None,
                "unauthorized",
                "Not allowed",
            )
        return
    forwarded = any(name in request.headers for name in PROXY_HEADERS)
    if not is_loopback(request.remote_addr or "") or forwarded:
        raise ApiError(
            401,
            "writing to the archive is allowed only from this machine: set "
            "YANIV_AUDIT_TOKEN on the server and send Authorization: Bearer "
            "<token>",
            None,
            "unauthorized",
            "Not allowed",
        )
    host = request.host.rsplit(":", 1)[0] if not request.host.endswith("]") else request.host
    if host.lower() not in (
        "localhost",
        current_app.config.get("LISTEN_HOST") or "localhost",
    ) and not is_loopback(host.strip("[]")):
        # a page of another site whose name resolves to 127.0.0.1 (DNS rebinding) is the
        # same origin to the browser: only the name the server listens on is this machine
        raise ApiError(
            403,
            f"a write addressed to {host!r} is refused: without a token, "
            "write to this machine by its own address (http://127.0.0.1:PORT/ "
            "or http://localhost:PORT/)",
            None,
            "forbidden",
            "Not allowed",
        )


#: the headers a proxy adds (``serve`` has waitress keep them: it would drop the first two)
PROXY_HEADERS = ("X-Forwarded-For", "Forwarded", "X-Forwarded-Host", "X-Real-IP", "Via")


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def store_logs(files: list[tuple[str, bytes]], reopen: bool = False) -> dict[str, Any]:
    """Ingest logs sent to the server (each checked as a posted log is) and audit the new
    games under their declared rules: what was added, already there, refused, and the
    logs kept as evidence only (``rewrites``: other events than an archived version's;
    ``after_end``: a game that had ended continued, unless ``reopen``), and those not
    stored because they go beyond an open live table's entries (``at_table``)."""
    refused: list[dict[str, Any]] = []
    readable: list[tuple[str, bytes]] = []
    for name, data in files:
        try:
            read_log_bytes(data, name)
        except ApiError as exc:
            if exc.status != 422:
                raise
            refused.append({"source": name, "error": exc.to_json()["error"]})
            continue
        readable.append((name, data))
    added: list[dict[str, Any]] = []
    duplicates: list[dict[str, Any]] = []
    rewrites: list[dict[str, Any]] = []
    after_end: list[dict[str, Any]] = []
    at_table: list[dict[str, Any]] = []
    if readable:
        with tempfile.TemporaryDirectory(prefix="yaniv-upload-") as tmp:
            paths = []
            for i, (name, data) in enumerate(readable):
                folder = Path(tmp) / str(i)
                folder.mkdir()
                path = folder / (name if name.endswith((".jsonl", ".json")) else f"{name}.jsonl")
                path.write_bytes(data)
                paths.append(str(path))
            # the file kept open for writing as long as a reader keeps it (2 s): the next
            # write, and the reads meanwhile (on cursors of it), neither reopen nor close
            # it (issue 35: with a game stored every 2 s, opening the writer, closing it
            # with a checkpoint and reopening the reader took half of each write, every
            # read waiting meanwhile)
            with store().writing(keep=store().idle) as archive:
                result = ingest_into(archive, paths, reopen=reopen)
                total = archive.count_games()
        added = [
            {
                "source": base_name(a.source),
                "fingerprint": a.fingerprint,
                "game_id": a.game_id,
                "events": a.events,
            }
            for a in result.added
        ]
        duplicates = [
            {"source": base_name(source), "fingerprint": fp} for source, fp, _ in result.duplicates
        ]
        rewrites = [
            {
                "source": base_name(source),
                "fingerprint": fp,
                "game_id": game_id,
                "rewrites": other,
                "differs_from_event": same,
            }
            for source, fp, game_id, other, same in result.conflicts
        ]
        after_end = [
            {
                "source": base_name(source),
                "fingerprint": fp,
                "game_id": game_id,
                "ended": ended,
                "ended_size": size,
            }
            for source, fp, game_id, ended, size in result.after_end
        ]
        at_table = [
            {
                "source": base_name(source),
                "fingerprint": fp,
                "game_id": game_id,
                "table": table,
                "table_entries": entries,
            }
            for source, fp, game_id, table, entries in result.at_table
        ]
        for r in result.refused:
            refused.append(
                {
                    "source": base_name(r.source),
                    "error": {
                        "status": 422,
                        "code": "unreadable_log",
                        "field": "log",
                        "message": f"{base_name(r.source)}: {r.error}",
                    },
                }
            )
    else:
        with reader() as r:
            total = r.archive.count_games() if r is not None else 0
    return {
        "added": added,
        "duplicates": duplicates,
        "refused": refused,
        "total": total,
        "rewrites": rewrites,
        "after_end": after_end,
        "at_table": at_table,
    }


# --- the endpoints --------------------------------------------------------------------------


@api_v1.get("/")
def index() -> Response:
    return json_response(
        {
            "version": 1,
            "openapi": "/api/v1/openapi.json",
            "docs": "docs/web.md in the yaniv-audit sources",
        }
    )


@api_v1.get("/openapi.json")
def openapi_document() -> Response:
    from .openapi import openapi  # heavy (apispec): only when the document is asked for

    return cached(("openapi",), openapi)


@api_v1.get("/rules")
def rules_index() -> Response:
    return json_response(
        [
            {"id": name, "source": PRESET_SOURCES[name], "params": r.params()}
            for name, r in PRESETS.items()
        ]
    )


@api_v1.get("/rules/<anytext:rule_id>")
def rules_show(rule_id: str) -> Response:
    rules = rules_from(rule_id, "rule_id")
    return json_response(
        {"id": rules.id, "source": PRESET_SOURCES[rules.name], "params": rules.params()}
    )


@api_v1.post("/audit")
def audit_body() -> Response:
    rules = rules_arg()
    name, data = body_files()[0]
    digest = hashlib.sha256(data).digest()
    lang = asked_language()
    key = ("audit-body", digest, rules_key(rules), lang)
    entry = cache().get(key)
    if entry is None:
        workers: Workers | None = current_app.extensions.get("yaniv_workers")
        args = (data, name, rules, limits()[1], lang)
        entry = cache().put(
            key, workers.run(audit_answer, *args) if workers else audit_answer(*args)
        )
    return answer(entry)


def audit_answer(
    data: bytes, name: str, rules: RuleSet | None, max_events: int, lang: str | None = None
) -> bytes:
    """The answer to ``POST /api/v1/audit``: the audit report of a posted log, as JSON
    (on a worker process when the server has them: :mod:`.workers`), its findings said
    in ``lang`` too."""
    log = read_log_bytes(data, name, max_events)
    report = with_texts(replayed(name, lambda: audit_log(log, rules)), lang)
    return orjson.dumps(report, option=orjson.OPT_NON_STR_KEYS)


@api_v1.post("/board")
def board_body() -> Response:
    rules = rules_arg()
    name, data = body_files()[0]
    log = read_log_bytes(data, name)
    seat = seat_arg(log)
    check_board_size(log, name)
    fingerprint = tree_hash(log.leaves).hex()
    return cached(
        ("board", fingerprint, rules_key(rules), seat),
        lambda: replayed(name, lambda: board(log, rules, seat)),
    )


@api_v1.post("/compare")
def compare_body() -> Response:
    name, data = body_files()[0]
    log = read_log_bytes(data, name)
    return json_response(
        with_texts(replayed(name, lambda: compare_log(log, rule_sets_arg(log))), asked_language())
    )


@api_v1.post("/state")
def state_body() -> Response:
    """A game being recorded (the /record page): nothing is kept between requests.
    With ``Accept-Language``, each finding has its ``text`` in that language, for the
    table to read (the report's ``message`` stays English), and ``said`` every entry and
    round in that language (:mod:`.said`)."""
    rules = rules_arg()
    name, data = body_files()[0]
    log = read_log_bytes(data, name)
    lang = asked_language()
    state = with_texts(replayed(name, lambda: table_state(log, rules)), lang)
    if lang is None:
        return json_response(state)
    answer: StateAnswer = {
        **state,
        "said": said(log, state["report"], lang, state["state"]["stock"]),
    }
    return json_response(answer)


def listing_args(default_sort: str = "ingested") -> tuple[Filters, str]:
    """The game list's filters and order from the query string (the API's and the
    list page's): ``player``, ``rules``, ``verdict``, ``has_findings``, ``since``,
    ``until``, ``q`` (a player, part of a game_id or a fingerprint's start), ``sort``
    (``default_sort`` when not given)."""
    sort = typed_arg("sort") or default_sort
    if sort.lstrip("-") not in SORTS or sort.startswith("--"):
        raise ApiError(
            400,
            f"sort: expected one of {', '.join(SORTS)} (a leading - for descending), got {sort!r}",
            "sort",
            "bad_parameter",
        )
    verdict = typed_arg("verdict")
    if verdict is not None and verdict not in VERDICTS:
        raise ApiError(
            400,
            f"verdict: expected one of {', '.join(VERDICTS)}, got {verdict!r}",
            "verdict",
            "bad_parameter",
        )
    spec = arg("rules")
    filters = Filters(
        player=arg("player"),
        rules_key=rules_from(spec).key if spec else None,
        verdict=verdict,
        has_findings=bool_arg("has_findings"),
        since=date_arg("since"),
        until=date_arg("until"),
        search=arg("q"),
    )
    return filters, sort


@api_v1.get("/games")
def games_index() -> Response:
    filters, sort = listing_args()
    limit = int_arg("limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = int_arg("offset", 0, 0, MAX_OFFSET)
    with reader() as r:
        if r is None:
            raise no_archive()
        key = ("games", store().generation, filters, sort, limit, offset)
        entry = cache().build_once(
            key,
            lambda: orjson.dumps(
                r.games(filters, sort=sort, limit=limit, offset=offset),
                option=orjson.OPT_NON_STR_KEYS,
            ),
        )
    return answer(entry)


@api_v1.post("/games")
def games_ingest() -> Response:
    """201 when a game was added, 200 when every log read was there already; 422 when
    no log of the body reads (it was a 200 with the refusals: ``{}`` was "accepted");
    409 when a log was kept as evidence only, as the CLI's ingest exits 1: it rewrites an
    archived game, or continues one that had ended (``?reopen=true`` makes such a
    continuation the game)."""
    check_write_allowed()
    reopen = bool(bool_arg("reopen"))
    files = body_files()
    result = store_logs(files, reopen)
    if result["refused"] and not result["added"] and not result["duplicates"]:
        first = result["refused"][0]["error"]
        more = len(result["refused"]) - 1
        where = {k: first[k] for k in ("line", "index") if k in first}
        raise ApiError(
            422,
            first["message"] + (f" (and {more} more logs refused)" if more else ""),
            "log",
            "unreadable_log",
            "Unreadable log",
            **where,
            refused=result["refused"],
        )
    if result["at_table"]:
        said = [
            at_table_said(r["source"], r["game_id"], r["table"], r["table_entries"])
            for r in result["at_table"]
        ]
        raise ApiError(
            409, "; ".join(said), "log", "table_open", "Played at a live table", **result
        )
    if result["rewrites"] or result["after_end"]:
        said = [
            f"{r['source']}: rewrites game {r['game_id']}, archived before with other "
            f"events ({r['rewrites'][:16]}): they differ from event "
            f"{r['differs_from_event']} on; kept as evidence, never counted in the reports"
            for r in result["rewrites"]
        ]
        said += [
            f"{r['source']}: continues game {r['game_id']} after its end (the ended "
            f"version {r['ended'][:16]}, {r['ended_size']} events, stays the game): kept "
            "as evidence, never counted; post it with ?reopen=true to count it instead"
            for r in result["after_end"]
        ]
        code = "rewrites_game" if result["rewrites"] else "continues_ended_game"
        raise ApiError(409, "; ".join(said), "log", code, "Kept as evidence only", **result)
    return json_response(result, 201 if result["added"] else 200)


@api_v1.get("/games/<ref>")
def game_show(ref: str) -> Response:
    with reader() as r:  # kept until the archive changes (a game's verdict, versions)
        if r is None:
            raise no_archive()
        key = ("game", store().generation, ref)
        entry = cache().build_once(
            key, lambda: orjson.dumps(found_game(r, ref), option=orjson.OPT_NON_STR_KEYS)
        )
    return answer(entry)


@api_v1.get("/games/<ref>/events")
def game_events(ref: str) -> Response:
    limit = int_arg("limit", DEFAULT_EVENTS_LIMIT, 1, MAX_EVENTS_LIMIT)
    offset = int_arg("offset", 0, 0, MAX_OFFSET)
    with reader() as r:
        game = found_game(r, ref)
        assert r is not None
        events = r.events(game["fingerprint"], limit=limit, offset=offset)
    return json_response(
        {
            "fingerprint": game["fingerprint"],
            "total": game["events"],
            "limit": limit,
            "offset": offset,
            "events": events,
        }
    )


@api_v1.get("/games/<ref>/board")
def game_board(ref: str) -> Response:
    rules = rules_arg()
    seat = arg("seat")
    game = game_facts(ref)
    players = game["players"]
    if seat is not None and seat not in players:
        raise ApiError(
            400,
            f"{seat!r} is not seated; the players are {', '.join(players)}",
            "seat",
            "bad_parameter",
        )
    key = ("board", game["fingerprint"], rules_key(rules), seat)

    def build() -> bytes:
        _, log = game_log(game["fingerprint"])
        check_board_size(log, f"game {game['fingerprint']}")
        data = replayed(game["source"], lambda: board(log, rules, seat))
        return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)

    return answer(cache().build_once(key, build))


@api_v1.get("/games/<ref>/audit")
def game_audit(ref: str) -> Response:
    """A stored game's report: under its declared rules from the archive's audits when
    there, else audited now (and kept in the cache)."""
    rules = rules_arg()
    game = game_facts(ref)
    key = ("audit", game["fingerprint"], rules_key(rules))
    entry = cache().get(key)
    if entry is None:
        with reader() as r:
            if r is None:
                raise no_archive()
            wanted = rules.key if rules is not None else None
            stored = None
            if wanted is None:
                stored = r.archive.query(
                    "SELECT rules_key FROM games WHERE fingerprint = ?", [game["fingerprint"]]
                )[1][0][0]
            report = r.stored_audit(game["fingerprint"], wanted or stored)
            if report is not None:
                entry = cache().put(key, orjson.dumps(report, option=orjson.OPT_NON_STR_KEYS))
    if entry is None:
        _, log = game_log(game["fingerprint"])
        report = replayed(
            game["source"], lambda: audit_log(log, rules, fingerprint=game["fingerprint"])
        )
        entry = cache().put(key, orjson.dumps(report, option=orjson.OPT_NON_STR_KEYS))
    return answer(entry)


@api_v1.get("/games/<ref>/compare")
def game_compare(ref: str) -> Response:
    rule_sets = rule_sets_arg()
    game, log = game_log(ref)
    return json_response(
        replayed(game["source"], lambda: compare_log(log, rule_sets or other_tables(log)))
    )


@api_v1.get("/reports")
def reports_index() -> Response:
    return json_response(
        [{"name": name, "shows": shows} for name, shows in analytics.REPORTS.items()]
    )


@api_v1.get("/reports/<name>")
def report_show(name: str) -> Response:
    if name not in analytics.REPORTS:
        raise ApiError(
            404,
            f"no report {name!r}; the reports are {', '.join(analytics.REPORTS)}",
            "name",
            "no_such_report",
            "No such report",
        )
    rule_sets: list[RuleSet | None] = list(rule_sets_arg()) or [None]
    players = int_arg("players", 0, 2, 8) if typed_arg("players") else None
    simulated = bool(bool_arg("simulated"))
    if name == "rules-impact" and None in rule_sets:
        raise ApiError(
            400,
            "rules-impact needs rules=R, the rule set to compare with",
            "rules",
            "bad_parameter",
        )
    # what must be audited first (as yaniv-audit report does; a deal report needs none)
    needed = list(
        dict.fromkeys(
            [None, *rule_sets]
            if name == "rules-impact"
            else []
            if name == "deal-odds"
            else rule_sets
        )
    )
    with reader() as r:
        if r is None:
            raise no_archive()
        missing = {rules: r.audited(None if rules is None else rules.key) for rules in needed}
        todo = [rules for rules, (games, done) in missing.items() if done < games]
        if not todo:
            return cached(
                ("report", store().generation, name, tuple(rule_sets), players, simulated),
                lambda: analytics.report(
                    r.archive, name, rule_sets, players, simulated=simulated
                ).to_json(),
            )
    raise not_audited(todo, store().name)


def not_audited(todo: list[RuleSet | None], archive: str) -> ApiError:
    """A report whose games are not all audited under its rule sets: a GET never writes
    (an ``<img>`` on any page could make the host's browser audit the whole archive), so
    it says which command audits them (``command``: the first to run)."""
    under = ", ".join("their declared rules" if r is None else r.id for r in todo)
    db = f"yaniv-audit audit --db {shlex.quote(archive or 'FILE')}"
    given = [r for r in todo if r is not None]
    commands = ([db] if None in todo else []) + (
        [db + "".join(f" --rules {shlex.quote(r.id)}" for r in given)] if given else []
    )
    return ApiError(
        409,
        f"the archive's games are not all audited under {under} yet, and "
        f"a GET never writes to the archive: run {' and '.join(commands)}, "
        "then ask again",
        "rules",
        "not_audited",
        "Not audited",
        command=commands[0],
    )


def wants_json() -> bool:
    return request.path.startswith("/api/")


def archive_message(exc: ArchiveError) -> str:
    """An archive error without the server's path to the file."""
    text = str(exc)
    path = current_app.config.get("ARCHIVE")
    if path:
        text = text.replace(os.path.abspath(str(path)), base_name(str(path)))
        text = text.replace(str(path), base_name(str(path)))
    return text
