"""``POST /api/v1/fit`` and ``GET /api/v1/games/<ref>/fit``: which rules a game fits
(issue 39; the answer of ``rules fit --json``, schemas/fit.schema.json).

A posted log is bounded as ``POST /api/v1/audit``'s is (the body's size, the event
cap) and fitted on the server's worker processes when it has them; the search itself
is bounded by its replays (core/fit.py). Answers are kept in the answer cache.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from flask import Response, current_app

from ..core.events import Log
from ..core.fit import fit_lines, fit_log
from ..core.rules import RuleSet
from .api import (
    answer,
    api_v1,
    arg,
    asked_language,
    body_files,
    cache,
    game_facts,
    game_log,
    limits,
    read_log_bytes,
    replayed,
    rules_from,
    rules_key,
    with_texts,
)
from .i18n import catalogue_of
from .workers import Workers


def from_arg() -> RuleSet | None:
    """The rule set to start from (``from``), else the log's declared rules."""
    spec = arg("from")
    return rules_from(spec, "from") if spec else None


def fit_json(log: Log, name: str, start: RuleSet | None, lang: str | None) -> bytes:
    """The fit of ``log`` as JSON; with ``lang``, each finding left has its ``text`` and
    the answer its lines (``text``) in that language."""

    def build() -> dict[str, Any]:
        found = fit_log(log, start)
        data = found.to_json()
        if lang is not None:
            gettext = catalogue_of(lang).ugettext
            data["text"] = [line for line, _ in fit_lines(found, gettext, suits=True)]
        return data

    data = with_texts(replayed(name, build), lang)
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)


def fit_answer(
    data: bytes, name: str, start: RuleSet | None, max_events: int, lang: str | None
) -> bytes:
    """The answer to ``POST /api/v1/fit`` (on a worker process when the server has them)."""
    return fit_json(read_log_bytes(data, name, max_events), name, start, lang)


def _workers() -> Workers | None:
    found: Workers | None = current_app.extensions.get("yaniv_workers")
    return found


@api_v1.post("/fit")
def fit_body() -> Response:
    start = from_arg()
    name, data = body_files()[0]
    lang = asked_language()
    key = ("fit-body", hashlib.sha256(data).digest(), rules_key(start), lang)
    entry = cache().get(key)
    if entry is None:
        workers = _workers()
        args = (data, name, start, limits()[1], lang)
        entry = cache().put(key, workers.run(fit_answer, *args) if workers else fit_answer(*args))
    return answer(entry)


@api_v1.get("/games/<ref>/fit")
def game_fit(ref: str) -> Response:
    start = from_arg()
    lang = asked_language()
    game = game_facts(ref)
    key = ("fit", game["fingerprint"], rules_key(start), lang)

    def build() -> bytes:
        _, log = game_log(game["fingerprint"])
        workers = _workers()
        args = (log, str(game["source"]), start, lang)
        return workers.run(fit_json, *args) if workers else fit_json(*args)

    return answer(cache().build_once(key, build))
