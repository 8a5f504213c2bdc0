"""The web face of the audit: the step-through viewer and the JSON API.

``create_app(config=None)`` builds the Flask app; every view calls the same
services as the command line (:mod:`yaniv_audit.audit`, :mod:`yaniv_audit.rules`,
:mod:`yaniv_audit.archive`). API errors come back as JSON with the right
status, the viewer's as a page.

    GET  /                              the viewer: the archive's games, open a log
    POST /view                          the board of an uploaded log
    GET  /games/<fingerprint>           the board of an archived game (?rules=R&seat=P)

    GET  /api/rules                     the presets, their sources and parameters
    GET  /api/rules/<id>                every parameter of a rule-set id
    POST /api/audit?rules=R             the audit report of the log in the request body
                                        (JSON Lines, or a JSON array of events)
    POST /api/board?rules=R&seat=P      the report and every step of the log in the body
    GET  /api/games?player=P&limit=&offset=
                                        the archive's games
    GET  /api/games/<fingerprint>?rules=R&seat=P
                                        the report and every step of an archived game
    GET  /api/games/<fingerprint>/compare?rules=A&rules=B
    POST /api/compare?rules=A&rules=B   the game under several rule sets (as
                                        ``yaniv-audit compare --json``; default: the
                                        declared rules, then every preset that differs)

Config: ``ARCHIVE`` is the archive file (default: $YANIV_AUDIT_DB, else
yaniv-archive.duckdb in the working directory); the viewer works without one.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from ..archive import default_db
from ..audit import audit_log, compare_log, unreadable_report
from ..codec import MAX_LINE_BYTES
from ..errors import ArchiveError, LogFormatError, RulesError
from ..rules import PRESET_SOURCES, PRESETS, parse_rules
from .board import board
from .store import archive_games, close_archive
from .viewer import (
    BadInput,
    archived,
    read_upload,
    requested_rule_sets,
    requested_rules,
    requested_seat,
    viewer,
)

#: the largest log the app reads (a long game is well under 1 MB)
MAX_LOG_BYTES = 16 * MAX_LINE_BYTES

api = Blueprint("api", __name__, url_prefix="/api")


def _error(status: int, message: str, **extra: Any) -> tuple[Any, int]:
    return jsonify({"error": {"status": status, "message": message, **extra}}), status


def _body_log() -> Any:
    data = request.get_data(cache=False)
    if not data.strip():
        raise BadInput(400, "No log", "send the log in the request body (JSON Lines or a "
                                      "JSON array)")
    return read_upload(data, "request")


@api.get("/rules")
def rules_index() -> Any:
    return jsonify([{"id": name, "source": PRESET_SOURCES[name], "params": r.params()}
                    for name, r in PRESETS.items()])


@api.get("/rules/<path:rule_id>")
def rules_show(rule_id: str) -> Any:
    rules = parse_rules(rule_id)
    return jsonify({"id": rules.id, "source": PRESET_SOURCES[rules.name],
                    "params": rules.params()})


@api.post("/audit")
def audit() -> Any:
    rules = requested_rules()
    return jsonify(audit_log(_body_log(), rules))


@api.post("/board")
def board_of_body() -> Any:
    rules = requested_rules()
    log = _body_log()
    return jsonify(board(log, rules, requested_seat(log)))


@api.post("/compare")
def compare_body() -> Any:
    log = _body_log()
    return jsonify(compare_log(log, requested_rule_sets(log)))


@api.get("/games")
def games_index() -> Any:
    limit = min(max(request.args.get("limit", 100, type=int) or 100, 1), 1000)
    offset = max(request.args.get("offset", 0, type=int) or 0, 0)
    listing = archive_games(request.args.get("player") or None, limit=limit, offset=offset)
    if listing is None:
        return _error(404, "no archive: create one with yaniv-audit ingest")
    return jsonify(listing)


@api.get("/games/<fingerprint>")
def game_board(fingerprint: str) -> Any:
    rules = requested_rules()
    log, _ = archived(fingerprint)
    return jsonify(board(log, rules, requested_seat(log)))


@api.get("/games/<fingerprint>/compare")
def game_compare(fingerprint: str) -> Any:
    log, _ = archived(fingerprint)
    return jsonify(compare_log(log, requested_rule_sets(log)))


def _wants_json() -> bool:
    return request.path.startswith("/api/")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The Flask app (``config`` overrides settings, e.g. ``ARCHIVE`` or ``TESTING``)."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_LOG_BYTES
    app.config["ARCHIVE"] = default_db()
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if config:
        app.config.update(config)
    app.register_blueprint(api)
    app.register_blueprint(viewer)
    app.teardown_appcontext(close_archive)

    def page(status: int, title: str, message: str, **extra: Any) -> tuple[Any, int]:
        if _wants_json():
            return _error(status, message, **extra)
        return render_template("error.html", status=status, title=title,
                               message=message), status

    @app.errorhandler(BadInput)
    def bad_input(exc: BadInput) -> tuple[Any, int]:
        return page(exc.status, exc.title, exc.message,
                    **({"field": exc.field} if exc.field else {}))

    @app.errorhandler(LogFormatError)
    def unreadable_log(exc: LogFormatError) -> tuple[Any, int]:
        """A log sent to the API (or stored, then altered) that cannot be read."""
        source = (request.view_args or {}).get("fingerprint", "request")
        return jsonify(unreadable_report(source, exc)), 422

    @app.errorhandler(RulesError)
    def bad_rules(exc: RulesError) -> tuple[Any, int]:
        if _wants_json():
            return _error(400, str(exc), field="rules")
        return page(400, "Unknown rules", str(exc))

    @app.errorhandler(ArchiveError)
    def archive_unusable(exc: ArchiveError) -> tuple[Any, int]:
        return page(503, "The archive cannot be read now", str(exc))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Any, int]:
        return page(exc.code or 500, exc.name, exc.description or exc.name)

    return app
