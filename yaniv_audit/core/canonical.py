"""The canonical encoding of an event: the leaf of the fingerprint (docs/fingerprints.md).

Exactly ``json.dumps(event, sort_keys=True, separators=(",", ":"),
ensure_ascii=False).encode("utf-8")`` after one normalisation: every card
written in canonical form. Everything else stays as given.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .cards import _LOOKUP, NAMES

#: fields holding one card, a list of cards, or players -> lists of cards
CARD_FIELDS = ("upcard", "card", "swap")
CARD_LIST_FIELDS = ("cards", "stock")
HANDS_FIELD = "hands"


def _canon(value: Any) -> Any:
    if isinstance(value, str):
        code = _LOOKUP.get(value)
        if code is None:
            code = _LOOKUP.get(value.strip().upper())
        if code is not None:
            return NAMES[code]
    return value


def _canon_list(value: Any) -> Any:
    if isinstance(value, list):
        return [_canon(v) for v in value]
    return value


def normalize_event(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``event`` with every card in canonical form (others untouched)."""
    out = dict(event)
    for key in CARD_FIELDS:
        if key in out:
            out[key] = _canon(out[key])
    for key in CARD_LIST_FIELDS:
        if key in out:
            out[key] = _canon_list(out[key])
    hands = out.get(HANDS_FIELD)
    if isinstance(hands, dict):
        out[HANDS_FIELD] = {p: _canon_list(cards) for p, cards in hands.items()}
    return out


def canonical_bytes(event: dict[str, Any]) -> bytes:
    """The leaf encoding of an already normalised event."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def json_plain(value: Any) -> bool:
    """Whether ``value`` holds only str, int, bool, None, lists and str-keyed dicts:
    the values for which ``orjson.dumps(value, option=OPT_SORT_KEYS)`` writes exactly
    the bytes of :func:`canonical_bytes` (floats are written differently; integers
    beyond 64 bits make orjson raise, which :func:`canonical_leaf` catches)."""
    try:
        return _plain(value)
    except RecursionError:
        return False


def _plain(value: Any) -> bool:
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return True
    if t is list:
        return all(map(_plain, value))
    if t is dict:
        return all(type(k) is str for k in value) and all(map(_plain, value.values()))
    return False


def canonical_leaf(event: Any) -> bytes:
    """Exactly :func:`canonical_bytes` (the leaf of docs/fingerprints.md), through
    orjson, ten times faster, where that is provably the same bytes."""
    if json_plain(event):
        try:
            return orjson.dumps(event, option=orjson.OPT_SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # an integer beyond 64 bits, a lone surrogate, nesting past orjson's limit
    return canonical_bytes(event)
