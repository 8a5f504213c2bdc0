"""The web face of the audit: the step-through viewer and the JSON API.

``create_app(config=None)`` builds the Flask app; every view calls the same
services as the command line (:mod:`yaniv_audit.core.audit`, :mod:`yaniv_audit.core.rules`,
:mod:`yaniv_audit.archive.analytics`, the archive). The API lives under ``/api/v1/``
(:mod:`yaniv_audit.web.api`, docs/web.md); the pages are :mod:`yaniv_audit.web.viewer`.
The first routes, ``/api/...``, answer with a permanent redirect (308: the method
and body are kept) to their ``/api/v1/`` place.

Config (each also read from the environment at start):

    ARCHIVE       the archive file ($YANIV_AUDIT_DB, else yaniv-archive.duckdb here)
    MAX_BYTES     the largest request body ($YANIV_AUDIT_MAX_BYTES, default 4 MiB)
    MAX_EVENTS    the most events of one posted log ($YANIV_AUDIT_MAX_EVENTS, 20,000)
    WRITE_TOKEN   the token that allows writes ($YANIV_AUDIT_TOKEN; unset: loopback only)
    ARCHIVE_IDLE  seconds without a request before the archive is closed (2)
    CACHE_BYTES   the budget of the answer cache (64 MiB)

Every response carries a strict Content-Security-Policy (scripts and styles from
this server's files only, nothing inline, no framing), ``nosniff`` and a
Referrer-Policy. No response names a file by more than its base name.
"""

from __future__ import annotations

import gzip
import os
from typing import Any

import orjson
from flask import Flask, Response, redirect, render_template, request
from flask.json.provider import JSONProvider
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from ..archive import default_db
from ..core.errors import ArchiveError, LogFormatError, RulesError

# fit_api: the fit's endpoints (issue 39), on api_v1; pages: the rules and analytics pages'
from . import fit_api, i18n, pages  # noqa: F401
from . import tables as live_tables
from .api import (
    AnyTextConverter,
    api_v1,
    archive_message,
    too_large_error,
    unreadable_error,
    wants_json,
)
from .cache import DEFAULT_BYTES, AnswerCache
from .change_text import because_text, change_text, ruling_text, unreplayable_text
from .errors import ApiError
from .limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_EVENTS
from .store import DEFAULT_IDLE, Store
from .viewer import viewer
from .workers import Workers

#: the environment variables of the settings
ENV = {
    "MAX_BYTES": "YANIV_AUDIT_MAX_BYTES",
    "MAX_EVENTS": "YANIV_AUDIT_MAX_EVENTS",
    "WRITE_TOKEN": "YANIV_AUDIT_TOKEN",
    "WORKERS": "YANIV_AUDIT_WORKERS",
}

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make a form's Origin "null"
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}

#: the types worth compressing (cards and JSON compress to a fifth or less)
COMPRESSIBLE = frozenset(
    {
        "text/html",
        "text/css",
        "text/javascript",
        "application/javascript",
        "application/json",
        "application/x-ndjson",
        "image/svg+xml",
    }
)
#: below this a body fits in one packet: compressing it saves no round trip
COMPRESS_MIN = 1400


def compressed(response: Response) -> Response:
    """The response gzipped when the client takes gzip and it is worth it: waitress sends
    bodies as they are, and a long game's page is hundreds of KiB of HTML and JSON (a
    fifth of that gzipped, seconds on a phone's connection). Responses already encoded,
    partial (206) or without a body (304) are left alone."""
    if (
        response.status_code != 200
        or "Content-Encoding" in response.headers
        or response.mimetype not in COMPRESSIBLE
        or "gzip" not in request.headers.get("Accept-Encoding", "")
    ):
        return response
    response.direct_passthrough = False  # a static file: read it to compress it
    body = response.get_data()
    if len(body) < COMPRESS_MIN:
        return response
    response.set_data(gzip.compress(body, compresslevel=6))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    tag = response.get_etag()[0]
    if tag:  # another representation: another tag
        response.set_etag(tag + "-gzip", weak=True)
    return response


#: the first API's routes and their /api/v1 place (the rest of the path follows)
LEGACY = [
    ("/api/rules", "/api/v1/rules"),
    ("/api/rules/<path:rest>", "/api/v1/rules/{rest}"),
    ("/api/audit", "/api/v1/audit"),
    ("/api/board", "/api/v1/board"),
    ("/api/compare", "/api/v1/compare"),
    ("/api/games", "/api/v1/games"),
    ("/api/games/<ref>", "/api/v1/games/{ref}/board"),
    ("/api/games/<ref>/compare", "/api/v1/games/{ref}/compare"),
]


class OrjsonProvider(JSONProvider):
    """Flask's JSON (``jsonify``, the ``tojson`` filter) through orjson: the same JSON,
    several times faster for a board of hundreds of steps."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


def settings_from_env() -> dict[str, Any]:
    """MAX_BYTES, MAX_EVENTS, WRITE_TOKEN and WORKERS from the environment (a bad number:
    ValueError)."""
    out: dict[str, Any] = {}
    for key, name in ENV.items():
        value = os.environ.get(name)
        if value:
            if key == "WRITE_TOKEN":
                out[key] = value
            else:
                try:
                    out[key] = int(value)
                except ValueError:
                    raise ValueError(f"{name}={value!r}: expected a whole number") from None
                if out[key] < 0:
                    raise ValueError(f"{name}={value!r}: expected a whole number >= 0")
    return out


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """The Flask app (``config`` overrides settings, e.g. ``ARCHIVE`` or ``TESTING``)."""
    app = Flask(__name__)
    app.json = OrjsonProvider(app)
    app.config.update(
        ARCHIVE=default_db(),
        MAX_BYTES=DEFAULT_MAX_BYTES,
        MAX_EVENTS=DEFAULT_MAX_EVENTS,
        WRITE_TOKEN=None,
        ARCHIVE_IDLE=DEFAULT_IDLE,
        CACHE_BYTES=DEFAULT_BYTES,
        WORKERS=0,
    )
    app.config.update(settings_from_env())
    if config:
        app.config.update(config)
    app.config["MAX_CONTENT_LENGTH"] = app.config["MAX_BYTES"]
    app.config["MAX_FORM_MEMORY_SIZE"] = app.config["MAX_BYTES"]
    app.extensions["yaniv_store"] = Store(app.config["ARCHIVE"], app.config["ARCHIVE_IDLE"])
    app.extensions["yaniv_cache"] = AnswerCache(app.config["CACHE_BYTES"])
    if app.config["WORKERS"] > 0:  # posted logs audited on worker processes
        app.extensions["yaniv_workers"] = Workers(int(app.config["WORKERS"]))
    app.url_map.converters["anytext"] = AnyTextConverter
    app.register_blueprint(api_v1)
    live_tables.init_app(app)  # /api/v1/tables: live tables
    app.register_blueprint(viewer)
    i18n.init_app(app)
    app.jinja_env.globals["change_text"] = change_text  # compare's changes, in words
    app.jinja_env.globals["because_text"] = because_text  # and why each happens
    app.jinja_env.globals["unreplayable_text"] = unreplayable_text
    app.jinja_env.globals["ruling_text"] = ruling_text  # the line a table reads aloud
    for old, new in LEGACY:
        app.add_url_rule(old, f"legacy{old}", _redirect_to(new), methods=["GET", "POST", "HEAD"])

    @app.after_request
    def security_headers(response: Response) -> Response:
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if request.path.startswith("/api/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return compressed(response)

    def page(exc: ApiError, said: str | None = None) -> tuple[Any, int]:
        """The error as JSON, or as a page; ``said``: its message in the page's language
        (else the English message is shown, marked as English)."""
        if wants_json():
            return exc.to_json(), exc.status
        return render_template(
            "error.html",
            status=exc.status,
            title=exc.title,
            message=said or exc.message,
            translated=said is not None,
        ), exc.status

    @app.errorhandler(ApiError)
    def bad_input(exc: ApiError) -> tuple[Any, int]:
        return page(exc)

    @app.errorhandler(LogFormatError)
    def unreadable_log(exc: LogFormatError) -> tuple[Any, int]:
        return page(unreadable_error("log", exc))

    @app.errorhandler(RulesError)
    def bad_rules(exc: RulesError) -> tuple[Any, int]:
        return page(ApiError(400, str(exc), "rules", "bad_rules", "Unknown rules"))

    @app.errorhandler(ArchiveError)
    def archive_unusable(exc: ArchiveError) -> tuple[Any, int]:
        return page(
            ApiError(
                503,
                archive_message(exc),
                None,
                "archive_unavailable",
                "The archive cannot be read now",
            )
        )

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(exc: RequestEntityTooLarge) -> tuple[Any, int]:
        return page(too_large_error(int(app.config["MAX_BYTES"])))

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Any:
        status = exc.code or 500
        message = exc.description or exc.name
        said = None
        if status == 404:
            message = f"nothing at {request.path}" + (
                ": the API is described at /api/v1/openapi.json" if wants_json() else ""
            )
            said = i18n.gettext(
                "There is no page at %(path)s: the address may be mistyped, "
                "or the game was never stored here.",
                path=request.path,
            )
        elif status == 405:
            message = f"{request.method} is not allowed on {request.path}"
        body, code = page(ApiError(status, message, None, None, exc.name), said)
        allowed = getattr(exc, "valid_methods", None)
        if status == 405 and allowed:  # RFC 9110: a 405 says what is allowed
            return body, code, {"Allow": ", ".join(sorted(allowed))}
        return body, code

    @app.errorhandler(Exception)
    def internal(exc: Exception) -> tuple[Any, int]:
        app.logger.exception("internal error on %s %s", request.method, request.path)
        return page(
            ApiError(
                500,
                "internal error: the server could not answer this request (it is logged)",
                None,
                "internal_error",
                "Internal error",
            )
        )

    return app


def _redirect_to(target: str) -> Any:
    def view(**parts: str) -> Any:
        url = target.format(**parts)
        query = request.query_string.decode("latin-1")
        return redirect(f"{url}?{query}" if query else url, 308)

    return view
