"""The step-through viewer: a game like a chess analysis board, findings marked.

    GET  /                       the archive's games (filter by ?player=) and a form
                                 to open a log file
    POST /view                   the board of an uploaded log (not stored)
    GET  /games/<fingerprint>    the board of an archived game
                                 (?rules=R another rule set, ?seat=P one player's view)
    GET  /games/<fingerprint>/compare
                                 the game under several rule sets side by side
                                 (?rules=A&rules=B..., the first the baseline; default:
                                 the declared rules, then every preset that differs)

    GET  /record                 the table's recorder: a scoresheet or every move, checked
                                 as it is entered (static/record.js, POST /api/v1/state)

    POST /store                  store an uploaded log in the archive (writes need the
                                 token, or a request from this machine)

The board's data is embedded in the page as JSON and drawn by ``static/viewer.js``;
the move list and the findings are rendered on the server too, so the page
reads without JavaScript.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for

from ..audit import compare_log, other_tables
from ..codec import parse_json_array, parse_jsonl
from ..errors import LogFormatError, RulesError
from ..events import Log
from ..merkle import tree_hash
from ..rules import PRESETS, RuleSet, parse_rules
from .api import ApiError, check_write_allowed, found_game, store, store_logs
from .board import board
from .store import Filters

viewer = Blueprint("viewer", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static/viewer")

GAMES_PER_PAGE = 100


def requested_rules() -> RuleSet | None:
    spec = (request.values.get("rules") or "").strip()
    if not spec:
        return None
    try:
        return parse_rules(spec)
    except RulesError as exc:
        raise ApiError(400, f"rules {spec!r}: {exc}", "rules", "bad_rules",
                       "Unknown rules") from None


def requested_rule_sets(log: Log) -> list[RuleSet]:
    """The ``rules`` given (the first is the baseline), else the declared rules and
    every preset with other parameters: who would have won at the other tables."""
    sets: list[RuleSet] = []
    for spec in request.values.getlist("rules"):
        if spec.strip():
            try:
                sets.append(parse_rules(spec))
            except RulesError as exc:
                raise ApiError(400, f"rules {spec!r}: {exc}", "rules", "bad_rules",
                               "Unknown rules") from None
    return sets or other_tables(log)


def requested_seat(log: Log) -> str | None:
    seat = (request.values.get("seat") or "").strip() or None
    if seat is not None and seat not in log.players:
        raise ApiError(400, f"{seat!r} is not seated; the players are {', '.join(log.players)}",
                       "seat", "bad_parameter", "No such seat")
    return seat


def unreadable(source: str, exc: LogFormatError) -> ApiError:
    """The page for a log that cannot be read: where in it, and what is wrong."""
    where = f"{exc.where()}: " if exc.where() != "log" else ""
    return ApiError(422, f"{source}: {where}{exc.message}", "log", "unreadable_log",
                    "Unreadable log")


def read_upload(data: bytes, name: str) -> Log:
    """A log sent by the form: a JSON array if it looks like one, else JSON Lines."""
    reader = parse_json_array if data.lstrip()[:1] == b"[" else parse_jsonl
    return reader(data, name)


def render_board(log: Log, source: str, **links: Any) -> str:
    rules, seat = requested_rules(), requested_seat(log)
    try:
        data = board(log, rules, seat)
    except LogFormatError as exc:
        raise unreadable(source, exc) from None
    return render_template("board.html", data=data, source=source, presets=list(PRESETS),
                           rules_spec=request.values.get("rules", ""),
                           token_needed=bool(current_app.config.get("WRITE_TOKEN")), **links)


@viewer.get("/")
def index() -> str:
    player = (request.args.get("player") or "").strip() or None
    page = max(1, min(request.args.get("page", 1, type=int) or 1, 1 << 30))
    with store().reading() as reader:
        listing = None if reader is None else reader.games(
            Filters(player=player), sort="ingested", limit=GAMES_PER_PAGE,
            offset=(page - 1) * GAMES_PER_PAGE)
    return render_template("index.html", listing=listing, player=player or "", page=page,
                           per_page=GAMES_PER_PAGE, presets=list(PRESETS),
                           archive=store().name)


def uploaded_log() -> tuple[Log, str]:
    upload = request.files.get("log")
    if upload is not None and upload.filename:
        data, name = upload.read(), upload.filename.replace("\\", "/").rsplit("/", 1)[-1]
    else:
        data, name = (request.form.get("text") or "").encode("utf-8"), "pasted log"
    if not data.strip():
        raise ApiError(400, "choose a log file (or paste one) to view", "log", "no_log",
                       "No log")
    try:
        return read_upload(data, name), name
    except LogFormatError as exc:
        raise unreadable(name, exc) from None


@viewer.get("/record")
def record() -> str:
    """The table's recorder: the game written down as it is played, every entry checked
    by ``POST /api/v1/state`` (the page keeps the log in the browser, nothing here)."""
    return render_template("record.html", presets=list(PRESETS),
                           token_needed=bool(current_app.config.get("WRITE_TOKEN")))


@viewer.post("/view")
def view_upload() -> str:
    log, name = uploaded_log()
    log_text = "\n".join(leaf.decode("utf-8") for leaf in log.leaves)  # canonical: reads the same
    return render_board(log, name, uploaded=True, log_text=log_text)


@viewer.post("/store")
def store_upload() -> Response:
    """Store the log the board page shows, then show it from the archive."""
    check_write_allowed(token=request.form.get("token"))
    log, name = uploaded_log()
    data = "".join(leaf.decode("utf-8") + "\n" for leaf in log.leaves).encode("utf-8")
    store_logs([(name, data)])
    target = url_for("viewer.view_game", fingerprint=tree_hash(log.leaves).hex())
    return redirect(target, 303)  # type: ignore[return-value]


def archived(ref: str) -> tuple[Log, str, dict[str, Any]]:
    """An archived game (by fingerprint, prefix or game_id), the file it came from, and
    its row of the listing, with ``rewritten_by``: the logs that rewrite it."""
    with store().reading() as reader:
        game = found_game(reader, ref)
        assert reader is not None
        game = {**game, "rewritten_by": reader.rewritten_by(game["fingerprint"])}
        try:
            return reader.log(game["fingerprint"], game["source"]), game["source"], game
        except LogFormatError as exc:  # the stored events were altered (yaniv-audit verify)
            raise unreadable(f"game {game['fingerprint']}", exc) from None


@viewer.get("/games/<fingerprint>")
def view_game(fingerprint: str) -> str:
    log, source, stored = archived(fingerprint)
    return render_board(log, source, uploaded=False, stored=stored)


@viewer.get("/games/<fingerprint>/compare")
def compare_game(fingerprint: str) -> str:
    log, source, _ = archived(fingerprint)
    try:
        result = compare_log(log, requested_rule_sets(log))
    except LogFormatError as exc:
        raise unreadable(source, exc) from None
    return render_template("compare.html", result=result, players=list(log.players),
                           source=source, presets=list(PRESETS))


# the rules and analytics pages: routes on this blueprint, in their own module
from . import pages  # noqa: E402, F401
