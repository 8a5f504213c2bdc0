"""The API's OpenAPI 3.1 document, generated from the marshmallow schemas with apispec.

``python -m yaniv_audit.schema_export`` writes it to ``schemas/openapi.json`` with
the JSON Schemas (``--check``: exit 1 if it is stale); the server gives it at
``/api/v1/openapi.json``. Each operation below names its parameter schema and its
answer schema; the error answers are all :class:`~yaniv_audit.web.schemas.ErrorSchema`.
"""

from __future__ import annotations

import json
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from marshmallow import Schema

from .. import __version__
from ..io.fit_schema import FitSchema
from . import schemas as s
from .limits import MAX_RULE_SETS

#: the example of a log in the body: docs/template.jsonl, one round of three players
EXAMPLE_LOG: list[dict[str, Any]] = [
    {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "lior", "omer"],
        "rules": "israeli",
        "game_id": "friday-at-dana",
    },
    {"type": "round_started", "round": 1, "starter": "dana"},
    {"type": "yaniv", "player": "omer", "total": 6},
    {
        "type": "showdown",
        "caller": "omer",
        "hands": {"dana": ["AH", "4C"], "lior": ["KS", "9D", "2C"], "omer": ["3S", "3D"]},
    },
    {"type": "round_ended", "round": 1, "points": {"dana": 5, "lior": 21, "omer": 0}},
    {"type": "note", "text": "omer says dana's 5 is no Assaf against his 6", "player": "omer"},
]
EXAMPLE_JSONL = "".join(json.dumps(event) + "\n" for event in EXAMPLE_LOG)

#: a log as text (JSON Lines, or a JSON array of events): something besides blanks
LOG_TEXT = {
    "type": "string",
    "pattern": r"\S",
    "description": "JSON Lines (one event a line), or a JSON array of events",
}
LOG_BODY = {
    "description": "one log: JSON Lines, or a JSON array of events, whatever the content "
    "type (a multipart form: its log file or field). Whether its events "
    "read is the server's to say: a 422 names the line and what is wrong",
    "required": True,
    "content": {
        media: {"schema": LOG_TEXT, "example": EXAMPLE_JSONL}
        for media in ("application/x-ndjson", "text/plain", "application/x-www-form-urlencoded")
    }
    | {
        "application/json": {
            "schema": {
                "description": "a JSON array of events, or one event (a log of one line)",
                "anyOf": [
                    {"type": "array", "minItems": 1, "items": {"type": "object"}},
                    {"type": "object"},
                ],
            },
            "example": EXAMPLE_LOG,
        },
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["log"],
                "properties": {"log": {"type": "string", "format": "binary"}},
            }
        },
    },
}
GAME_REF = {
    "name": "ref",
    "in": "path",
    "required": True,
    "schema": {"type": "string"},
    "description": "a fingerprint, 8 or more of its first hex digits, or a game_id",
}
ERRORS = {
    "400": "a bad parameter (the error's field names it), or no log in the body",
    "404": "no such game, report or archive",
    "409": "an ambiguous game reference (the candidates listed)",
    "413": "the body is over the size limit, the log over the event cap, or (a board) the "
    "answer would be over the answer limit, estimated from the log's events and "
    "seats before the replay (answer_too_large)",
    "422": "the log cannot be read (where, and why)",
    "503": "the archive cannot be read now (another process writes to it), or the worker "
    "process auditing a posted log stopped (send the request again)",
    "401": "a write without the write token (or with a wrong one), or from another machine",
    "403": "a write from another site's page",
}

#: (path, method, summary, parameter schema, answer schema, takes a log, error statuses)
OPERATIONS: list[tuple[str, str, str, type[Schema] | None, Any, bool, str]] = [
    (
        "/api/v1/rules",
        "get",
        "The presets, their sources and parameters",
        None,
        s.RuleSetSchema(many=True),
        False,
        "",
    ),
    (
        "/api/v1/rules/{rule_id}",
        "get",
        "Every parameter of a rule-set id",
        None,
        s.RuleSetSchema,
        False,
        "400",
    ),
    (
        "/api/v1/audit",
        "post",
        "The audit report of the log in the body",
        s.RulesQuery,
        s.AuditReportSchema,
        True,
        "400 413 422 503",
    ),
    (
        "/api/v1/fit",
        "post",
        "Which rules the log in the body fits (the answer of rules fit --json)",
        s.FitQuery,
        FitSchema,
        True,
        "400 413 422 503",
    ),
    (
        "/api/v1/board",
        "post",
        "The report and every step of the log in the body",
        s.BoardQuery,
        s.BoardSchema,
        True,
        "400 413 422",
    ),
    (
        "/api/v1/compare",
        "post",
        "The log in the body under several rule sets",
        s.CompareQuery,
        s.CompareSchema,
        True,
        "400 413 422",
    ),
    (
        "/api/v1/state",
        "post",
        "A game being recorded: the state after the log in the body, "
        "what may come next, the audit so far",
        s.RulesQuery,
        s.TableStateSchema,
        True,
        "400 413 422",
    ),
    (
        "/api/v1/games",
        "get",
        "The archive's games, filtered, sorted, a page at a time",
        s.GamesQuery,
        s.GameListSchema,
        False,
        "400 404 503",
    ),
    (
        "/api/v1/games",
        "post",
        "Store logs in the archive (needs the write token, or a request from this machine)",
        s.IngestQuery,
        s.IngestSchema,
        True,
        "400 401 403 409 413 422 503",
    ),
    ("/api/v1/games/{ref}", "get", "One archived game", None, s.GameSchema, False, "404 409 503"),
    (
        "/api/v1/games/{ref}/events",
        "get",
        "A page of its events",
        s.PageQuery,
        s.EventsSchema,
        False,
        "400 404 409 503",
    ),
    (
        "/api/v1/games/{ref}/board",
        "get",
        "The board data of an archived game",
        s.BoardQuery,
        s.BoardSchema,
        False,
        "400 404 409 422 503",
    ),
    (
        "/api/v1/games/{ref}/audit",
        "get",
        "The audit report of an archived game",
        s.RulesQuery,
        s.AuditReportSchema,
        False,
        "400 404 409 422 503",
    ),
    (
        "/api/v1/games/{ref}/compare",
        "get",
        "An archived game under several rule sets",
        s.CompareQuery,
        s.CompareSchema,
        False,
        "400 404 409 422 503",
    ),
    (
        "/api/v1/games/{ref}/fit",
        "get",
        "Which rules an archived game fits",
        s.FitQuery,
        FitSchema,
        False,
        "400 404 409 422 503",
    ),
    ("/api/v1/reports", "get", "The named reports", None, s.ReportNameSchema(many=True), False, ""),
    (
        "/api/v1/reports/{name}",
        "get",
        "A report over the archive",
        s.ReportQuery,
        s.ReportTableSchema,
        False,
        "400 404 409 503",
    ),
]


def openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of ``/api/v1``."""
    spec = APISpec(
        title="yaniv-audit",
        version=__version__,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "Replay, check and score Yaniv game logs under any "
            "house rules (docs/web.md). A query parameter sent "
            "empty (?sort=) is the same as one left out, as an "
            "HTML form sends a field left unset."
        },
    )
    spec.components.schema("Error", schema=s.ErrorSchema)
    security = {
        "bearerAuth": {
            "type": "http",
            "scheme": "bearer",
            "description": "the server's write token (YANIV_AUDIT_TOKEN). Without a token set on "
            "the server, a write from this machine (a loopback peer, no proxy, "
            "addressed to the server's own name) needs no Authorization",
        }
    }
    spec.components.security_scheme("bearerAuth", security["bearerAuth"])
    paths: dict[str, dict[str, Any]] = {}
    for path, method, summary, query, answer, takes_log, errors in OPERATIONS:
        parameters: list[Any] = []
        if "{ref}" in path:
            parameters.append(GAME_REF)
        for name in ("rule_id", "name"):
            if "{" + name + "}" in path:
                parameters.append(
                    {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                )
        if query is not None:
            parameters.append({"in": "query", "schema": query})
        responses: dict[str, Any] = {
            "200": {"description": summary, "content": {"application/json": {"schema": answer}}}
        }
        if method == "post" and path == "/api/v1/games":
            responses = {
                "201": {
                    "description": "a game was added",
                    "content": {"application/json": {"schema": answer}},
                },
                "200": {
                    "description": "no game was added: every log read was already "
                    "there (some may be refused)",
                    "content": {"application/json": {"schema": answer}},
                },
            }
        for code in errors.split():
            responses[code] = {
                "description": ERRORS[code],
                "content": {"application/json": {"schema": "Error"}},
            }
        if method == "post" and path == "/api/v1/games":
            responses["422"]["description"] = (
                "no log of the body can be read: the first one's reason, and every log's in refused"
            )
            responses["409"]["description"] = (
                "a log was stored as evidence only, never counted, as the command line's "
                "ingest exits 1: it rewrites an archived game (code rewrites_game, each in "
                "rewrites) or continues a game that had ended without reopen=true (code "
                "continues_ended_game, each in after_end); or a log was not stored because it "
                "goes beyond the entries of the open live table its game is played at (code "
                "table_open, each in at_table, naming the table: append there, or store the "
                "log once the table is closed); the error also holds added, duplicates, "
                "refused and total"
            )
        operation: dict[str, Any] = {
            "summary": summary,
            "parameters": parameters,
            "responses": responses,
        }
        if takes_log:
            operation["requestBody"] = LOG_BODY
        if path == "/api/v1/games" and method == "post":
            # {}: no Authorization at all, as a write from this machine is when the server
            # has no token (the document said the header was always required)
            operation["security"] = [{"bearerAuth": []}, {}]
            operation["description"] = (
                "Needs Authorization: Bearer <YANIV_AUDIT_TOKEN> when the server has a "
                "token; without one, a request from this machine (loopback, not forwarded "
                "by a proxy) writes without Authorization and any other is a 401"
            )
        if path == "/api/v1/reports/{name}":
            responses["409"]["description"] = (
                "the archive's games are not all audited under the rules asked for: a GET "
                "never writes, so the error's command (yaniv-audit audit --db FILE --rules "
                "R) audits them, then ask again"
            )
        if query in (s.CompareQuery, s.ReportQuery):
            responses["400"]["description"] += (
                f", or more than {MAX_RULE_SETS} rules values (the most one request takes)"
            )
        paths.setdefault(path, {})[method] = operation
    for path, operations in paths.items():
        spec.path(path=path, operations=operations)
    document = spec.to_dict()
    from .tables_openapi import openapi_paths  # the live tables' operations

    document["paths"].update(openapi_paths())
    for operations in document["paths"].values():
        for operation in operations.values():
            for parameter in operation["parameters"]:
                if parameter["in"] == "query":  # ?sort= is ?sort left out, as a form sends it
                    parameter["allowEmptyValue"] = True
    return document
