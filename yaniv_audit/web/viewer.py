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

The board's data is embedded in the page as JSON and drawn by ``static/viewer.js``;
the move list and the findings are rendered on the server too, so the page
reads without JavaScript.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template, request

from ..audit import compare_log, other_tables
from ..codec import parse_json_array, parse_jsonl
from ..errors import LogFormatError, RulesError
from ..events import Log
from ..rules import PRESETS, RuleSet, parse_rules
from .board import board
from .store import archive_games, archive_path, stored_log

viewer = Blueprint("viewer", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static/viewer")

GAMES_PER_PAGE = 100


class BadInput(Exception):
    """A request that cannot be answered: a page with the status (JSON for the API),
    naming the request ``field`` at fault, if one is."""

    def __init__(self, status: int, title: str, message: str, field: str | None = None,
                 ) -> None:
        super().__init__(message)
        self.status, self.title, self.message, self.field = status, title, message, field


def requested_rules() -> RuleSet | None:
    spec = (request.values.get("rules") or "").strip()
    if not spec:
        return None
    try:
        return parse_rules(spec)
    except RulesError as exc:
        raise BadInput(400, "Unknown rules", f"rules {spec!r}: {exc}", "rules") from None


def requested_rule_sets(log: Log) -> list[RuleSet]:
    """The ``rules`` given (the first is the baseline), else the declared rules and
    every preset with other parameters: who would have won at the other tables."""
    sets: list[RuleSet] = []
    for spec in request.values.getlist("rules"):
        if spec.strip():
            try:
                sets.append(parse_rules(spec))
            except RulesError as exc:
                raise BadInput(400, "Unknown rules", f"rules {spec!r}: {exc}",
                               "rules") from None
    return sets or other_tables(log)


def requested_seat(log: Log) -> str | None:
    seat = (request.values.get("seat") or "").strip() or None
    if seat is not None and seat not in log.players:
        raise BadInput(400, "No such seat",
                       f"{seat!r} is not seated; the players are {', '.join(log.players)}",
                       "seat")
    return seat


def unreadable(source: str, exc: LogFormatError) -> BadInput:
    """The page for a log that cannot be read: where in it, and what is wrong."""
    where = f"{exc.where()}: " if exc.where() != "log" else ""
    return BadInput(422, "Unreadable log", f"{source}: {where}{exc.message}")


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
                           rules_spec=request.values.get("rules", ""), **links)


@viewer.get("/")
def index() -> str:
    player = (request.args.get("player") or "").strip() or None
    page = max(1, request.args.get("page", 1, type=int) or 1)
    listing = archive_games(player, limit=GAMES_PER_PAGE, offset=(page - 1) * GAMES_PER_PAGE)
    return render_template("index.html", listing=listing, player=player or "", page=page,
                           per_page=GAMES_PER_PAGE, presets=list(PRESETS),
                           archive=archive_path())


@viewer.post("/view")
def view_upload() -> str:
    upload = request.files.get("log")
    if upload is not None and upload.filename:
        data, name = upload.read(), upload.filename
    else:
        data, name = (request.form.get("text") or "").encode("utf-8"), "pasted log"
    if not data.strip():
        raise BadInput(400, "No log", "choose a log file (or paste one) to view")
    try:
        log = read_upload(data, name)
    except LogFormatError as exc:
        raise unreadable(name, exc) from None
    log_text = "\n".join(leaf.decode("utf-8") for leaf in log.leaves)  # canonical: reads the same
    return render_board(log, name, uploaded=True, log_text=log_text)


def archived(fingerprint: str) -> tuple[Log, str]:
    """An archived game and the file it came from; 404 if there is none."""
    try:
        found = stored_log(fingerprint)
    except LogFormatError as exc:  # the stored events were altered (yaniv-audit verify)
        raise unreadable(f"game {fingerprint}", exc) from None
    if found is None:
        raise BadInput(404, "No such game",
                       f"no game with fingerprint {fingerprint} in the archive")
    return found


@viewer.get("/games/<fingerprint>")
def view_game(fingerprint: str) -> str:
    log, source = archived(fingerprint)
    return render_board(log, source, uploaded=False)


@viewer.get("/games/<fingerprint>/compare")
def compare_game(fingerprint: str) -> str:
    log, source = archived(fingerprint)
    try:
        result = compare_log(log, requested_rule_sets(log))
    except LogFormatError as exc:
        raise unreadable(source, exc) from None
    return render_template("compare.html", result=result, players=list(log.players),
                           source=source, presets=list(PRESETS))
