"""The web face of the audit: for now the JSON API (the step-through viewer comes later).

``create_app(config=None)`` builds the Flask app; every view calls the same
services as the command line (:mod:`yaniv_audit.audit`, :mod:`yaniv_audit.rules`)
and errors come back as JSON with the right status.

    GET  /api/rules            the presets, their sources and parameters
    GET  /api/rules/<id>       every parameter of a rule-set id
    POST /api/audit?rules=R    the audit report of the log in the request body
                               (JSON Lines, or a JSON array of events)
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from ..audit import audit_log, unreadable_report
from ..codec import MAX_LINE_BYTES, parse_json_array, parse_jsonl
from ..errors import LogFormatError, RulesError
from ..rules import PRESET_SOURCES, PRESETS, parse_rules

#: the largest log the API reads (a long game is well under 1 MB)
MAX_LOG_BYTES = 16 * MAX_LINE_BYTES

api = Blueprint("api", __name__, url_prefix="/api")


def _error(status: int, message: str, **extra: Any) -> tuple[Any, int]:
    return jsonify({"error": {"status": status, "message": message, **extra}}), status


@api.get("/rules")
def rules_index() -> Any:
    return jsonify([{"id": name, "source": PRESET_SOURCES[name], "params": r.params()}
                    for name, r in PRESETS.items()])


@api.get("/rules/<path:rule_id>")
def rules_show(rule_id: str) -> Any:
    try:
        rules = parse_rules(rule_id)
    except RulesError as exc:
        return _error(400, str(exc))
    return jsonify({"id": rules.id, "source": PRESET_SOURCES[rules.name],
                    "params": rules.params()})


@api.post("/audit")
def audit() -> Any:
    spec = request.args.get("rules")
    try:
        rules = parse_rules(spec) if spec else None
    except RulesError as exc:
        return _error(400, str(exc), field="rules")
    data = request.get_data(cache=False)
    if not data.strip():
        return _error(400, "send the log in the request body (JSON Lines or a JSON array)")
    reader = parse_json_array if data.lstrip()[:1] == b"[" else parse_jsonl
    try:
        report = audit_log(reader(data, "request"), rules)
    except LogFormatError as exc:
        return jsonify(unreadable_report("request", exc)), 422
    return jsonify(report)


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The Flask app (``config`` overrides Flask's settings, e.g. for tests)."""
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = MAX_LOG_BYTES
    app.json.sort_keys = False  # type: ignore[attr-defined]
    if config:
        app.config.update(config)
    app.register_blueprint(api)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> tuple[Any, int]:
        return _error(exc.code or 500, exc.description or exc.name)

    return app
