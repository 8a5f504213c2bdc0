"""waitress as ``yaniv-audit serve`` runs it: the errors waitress answers itself, before
the app sees the request, are the API's JSON errors too.

waitress refuses some requests on its own: a body over its ``max_request_body_size``
(twice the server's limit and 1 MiB: a body between the limit and that is the app's
413), headers over ``max_request_header_size``, a request it cannot parse, a transfer
coding it does not know. It answered them in plain text, which an API client could not
read as the document says (schemathesis named the 413, issue 27). Under ``/api/`` they
are now ``{"error": {"status", "code", "message", "field"}}`` as every other error, and
so is one whose address waitress did not keep (headers too large: it drops the request
line); a page's address keeps waitress's text.
"""

from __future__ import annotations

from typing import Any

import orjson
from waitress.channel import HTTPChannel
from waitress.server import BaseWSGIServer, create_server
from waitress.task import ErrorTask

from .api import too_large_error
from .errors import ApiError

#: waitress's errors as the API names them: status, code, message (the field: none)
WAITRESS_ERRORS = {
    400: ("bad_request", "the request cannot be read as HTTP"),
    431: ("headers_too_large", "the request's headers are larger than this server reads"),
    500: ("internal_error", "internal error: the server could not answer this request"),
    501: (
        "not_implemented",
        "the request's Transfer-Encoding is not one this server reads "
        "(send the body with a Content-Length, or chunked)",
    ),
}


def waitress_error(status: int, max_bytes: int, why: str = "") -> ApiError:
    """The API error for a request waitress refused with ``status`` (``why``: waitress's
    words, for a request it cannot read)."""
    if status == 413:
        return too_large_error(max_bytes)
    code, message = WAITRESS_ERRORS.get(status, ("error", "the request cannot be served"))
    return ApiError(status, f"{message}: {why}" if why and status == 400 else message, None, code)


def target(request: Any) -> str | None:
    """The address a request waitress refused was sent to, when it kept it."""
    if int(request.error.code) == 431:  # waitress put "GET /" in place of the request line
        return None
    path = getattr(request, "path", None)
    if path:
        return str(path)
    parts = (getattr(request, "first_line", b"") or b"").split(b" ")
    return parts[1].decode("latin-1") if len(parts) > 1 else None


class JsonErrorTask(ErrorTask):
    """waitress's error answer, as JSON for an address under ``/api/``."""

    def execute(self) -> None:
        request: Any = self.request  # the parsed request (the stubs say an Error)
        address = target(request)
        if address is not None and not address.startswith("/api/"):
            super().execute()
            return
        error = request.error
        config = getattr(self.channel.server.application, "config", {})
        api_error = waitress_error(
            int(error.code), int(config.get("MAX_BYTES", 0)), str(getattr(error, "body", "") or "")
        )
        body = orjson.dumps(api_error.to_json())
        self.status = f"{error.code} {error.reason}"
        headers: list[tuple[str, str]] = self.response_headers  # type: ignore[assignment]
        headers.extend(
            [
                ("Content-Type", "application/json"),
                ("X-Content-Type-Options", "nosniff"),
                ("Cache-Control", "no-store"),
            ]
        )
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class JsonErrorChannel(HTTPChannel):
    """A connection whose errors are :class:`JsonErrorTask`'s."""

    error_task_class = JsonErrorTask


def serve(app: Any, **settings: Any) -> None:
    """waitress's ``serve(app, **settings)``, quiet, its errors as the API's."""
    listening(app, **settings).run()


def listening(app: Any, **settings: Any) -> Any:
    """waitress's server for ``app``, bound to its port (an :class:`OSError` when the port
    is taken or not allowed) and not yet serving: ``.run()`` serves."""
    server = create_server(app, **settings)
    found = (
        getattr(server, "map", {}).values() if not isinstance(server, BaseWSGIServer) else [server]
    )
    for one in found:
        if isinstance(one, BaseWSGIServer):
            one.channel_class = JsonErrorChannel
    return server
