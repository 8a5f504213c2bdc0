"""The API's errors: a request that cannot be answered, with its status and code (what
the routes raise and the app's error handlers write as JSON)."""

from __future__ import annotations

from typing import Any

STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_media_type",
    422: "unreadable_log",
    500: "internal_error",
    503: "archive_unavailable",
}


class ApiError(Exception):
    """A request that cannot be answered: its status, a machine-readable ``code``, the
    message (the CLI's words), the request ``field`` at fault, anything more."""

    def __init__(
        self,
        status: int,
        message: str,
        field: str | None = None,
        code: str | None = None,
        title: str | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status, self.message, self.field = status, message, field
        self.code = code or STATUS_CODES.get(status, "error")
        self.title = title or self.code.replace("_", " ").capitalize()
        self.extra = extra

    def to_json(self) -> dict[str, Any]:
        return {
            "error": {
                "status": self.status,
                "code": self.code,
                "message": self.message,
                "field": self.field,
                **self.extra,
            }
        }

    def __reduce__(self) -> tuple[Any, ...]:  # whole through a worker process's pipe
        return (
            _api_error,
            (self.status, self.message, self.field, self.code, self.title, self.extra),
        )


def _api_error(
    status: int, message: str, field: str | None, code: str, title: str, extra: dict[str, Any]
) -> ApiError:
    return ApiError(status, message, field, code, title, **extra)
