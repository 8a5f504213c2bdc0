"""The live tables' part of the OpenAPI document (:mod:`yaniv_audit.web.tables` serves
them; :func:`yaniv_audit.web.openapi.openapi` adds these operations to the document)."""

from __future__ import annotations

import re
from typing import Any

import orjson

#: an append's If-Match: the count, quoted (weak or bare taken too)
IF_MATCH = re.compile(r'(?:W/)?"?([0-9]{1,9})"?')

_ERROR = {"$ref": "#/components/schemas/Error"}
_TABLE_ID = {
    "name": "table_id",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "the table's id, as POST /api/v1/tables gave it",
}
_GAME_STARTED = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", "lior", "omer"],
    "rules": "israeli",
    "at": "2026-12-06T20:00:00+02:00",
}
_JSONL = {"type": "string", "pattern": r"\S", "description": "JSON Lines: one event a line"}
_STATE = {"type": "object", "description": "as POST /api/v1/state answers"}
_ENTRIES = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["seq", "event"],
        "properties": {"seq": {"type": "integer"}, "event": {"type": "object"}},
    },
}


def _errors(*codes: str) -> dict[str, Any]:
    said = {
        "400": "an unreadable event (the error names its line and field), or a bad header "
        "or parameter",
        "401": "no key (a table's write), or no write token (opening)",
        "403": "another table's key, or a write from another site's page",
        "404": "no such table",
        "409": "the table is closed, or a game with this very game_started is archived",
        "413": "the body is over the size limit, or has too many events",
        "428": "no If-Match",
        "429": "this client address has opened its most tables a minute (TABLES_OPEN_RATE, "
        "30 by default): Retry-After says when it may open one again",
        "503": "the archive cannot be written now, too many open tables, or every "
        "follower's place is taken (Retry-After)",
    }
    retry = {
        "Retry-After": {
            "description": "seconds to wait before asking again",
            "schema": {"type": "string", "pattern": "^[0-9]+$"},
        }
    }
    return {
        code: {
            "description": said[code],
            "content": {"application/json": {"schema": _ERROR}},
            **({"headers": retry} if code == "429" else {}),
        }
        for code in codes
    }


def openapi_paths() -> dict[str, Any]:
    """The tables' operations, for :func:`yaniv_audit.web.openapi.openapi`."""
    body = {
        "required": True,
        "content": {
            "application/x-ndjson": {
                "schema": _JSONL,
                "example": orjson.dumps(_GAME_STARTED).decode() + "\n",
            },
            "application/json": {"schema": {"type": "object"}, "example": _GAME_STARTED},
        },
    }
    appended = {
        "type": "object",
        "required": ["seq", "state", "findings"],
        "properties": {
            "seq": {"type": "integer"},
            "state": _STATE,
            "findings": {"type": "array", "items": {"type": "object"}},
        },
    }
    stale = {
        "type": "object",
        "required": ["error", "seq", "entries"],
        "properties": {
            "error": {"type": "object"},
            "seq": {"type": "integer"},
            "entries": _ENTRIES,
        },
    }
    table = {
        "type": "object",
        "required": ["id", "seq", "closed", "state", "report"],
        "properties": {
            "id": {"type": "string"},
            "seq": {"type": "integer"},
            "closed": {"type": "boolean"},
            "state": _STATE,
            "report": {"type": "object"},
            "fingerprint": {"type": ["string", "null"]},
            "said": {
                "type": "object",
                "description": "with Accept-Language: every entry and round in words, "
                "as POST /api/v1/state says them",
            },
        },
    }
    entries = {
        "type": "object",
        "required": ["id", "seq", "closed", "entries"],
        "properties": {
            "id": {"type": "string"},
            "seq": {"type": "integer"},
            "closed": {"type": "boolean"},
            "entries": _ENTRIES,
        },
    }
    closed = {
        "type": "object",
        "required": ["id", "seq", "closed"],
        "properties": {
            "id": {"type": "string"},
            "seq": {"type": "integer"},
            "closed": {"type": "boolean"},
        },
    }
    return {
        "/api/v1/tables": {
            "post": {
                "summary": "Open a live table with its game_started event (needs the write "
                "token, or a request from this machine)",
                "parameters": [],
                "requestBody": body,
                "security": [{"bearerAuth": []}],
                "responses": {
                    "201": {
                        "description": "the table: its id, its key (the only time it is said) and "
                        "seq 1",
                        "headers": {"Location": {"schema": {"type": "string"}}},
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["id", "key", "seq"],
                                    "properties": {
                                        "id": {"type": "string"},
                                        "key": {"type": "string"},
                                        "seq": {"type": "integer"},
                                    },
                                }
                            }
                        },
                    },
                    **_errors("400", "401", "403", "409", "413", "429", "503"),
                },
            }
        },
        "/api/v1/tables/{table_id}": {
            "get": {
                "summary": "A live table: its count, state, the audit so far, and its archived "
                "game's fingerprint once the game is over",
                "parameters": [_TABLE_ID],
                "responses": {
                    "200": {
                        "description": "the table",
                        "content": {"application/json": {"schema": table}},
                    },
                    **_errors("404", "503"),
                },
            }
        },
        "/api/v1/tables/{table_id}/events": {
            "post": {
                "summary": "Append entries (JSON Lines) at the count you have seen: all or "
                "none, stored before the answer",
                "parameters": [
                    _TABLE_ID,
                    {
                        "name": "If-Match",
                        "in": "header",
                        "required": True,
                        "description": 'the entries you have seen, quoted: "12"',
                        "schema": {"type": "string", "pattern": IF_MATCH.pattern},
                    },
                    {
                        "name": "Idempotency-Key",
                        "in": "header",
                        "required": False,
                        "description": "a retried append with the same key returns the first "
                        "answer and appends nothing",
                        "schema": {"type": "string"},
                    },
                ],
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/x-ndjson": {
                            "schema": _JSONL,
                            "example": '{"type": "round_started", "round": 1, "starter": "dana"}\n',
                        }
                    },
                },
                "security": [{"bearerAuth": []}],
                "responses": {
                    "200": {
                        "description": "the new count, the state after, the "
                        "findings the entries raised",
                        "content": {"application/json": {"schema": appended}},
                    },
                    "412": {
                        "description": "If-Match is not the table's count: "
                        "the count and the entries since",
                        "content": {"application/json": {"schema": stale}},
                    },
                    **_errors("400", "401", "403", "404", "409", "413", "428", "503"),
                },
            },
            "get": {
                "summary": "Follow a table: with Accept: text/event-stream, every entry as an "
                "event (id: its seq) and each append's as it comes, with a "
                "summary after each (Last-Event-ID resumes; the stream ends after "
                "25 s); otherwise the entries after ?after as JSON",
                "parameters": [
                    _TABLE_ID,
                    {
                        "name": "after",
                        "in": "query",
                        "required": False,
                        "description": "the seq of the last entry you have (-1: none, the default)",
                        "schema": {"type": "integer", "minimum": -1, "maximum": 999_999_999},
                    },
                ],
                "responses": {
                    "200": {
                        "description": "the entries after ``after``",
                        "content": {
                            "application/json": {"schema": entries},
                            "text/event-stream": {"schema": {"type": "string"}},
                        },
                    },
                    **_errors("400", "404", "503"),
                },
            },
        },
        "/api/v1/tables/{table_id}/close": {
            "post": {
                "summary": "Close a table (its key): no more appends",
                "parameters": [_TABLE_ID],
                "security": [{"bearerAuth": []}],
                "responses": {
                    "200": {
                        "description": "closed",
                        "content": {"application/json": {"schema": closed}},
                    },
                    **_errors("401", "403", "404", "503"),
                },
            }
        },
    }
