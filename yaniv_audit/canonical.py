"""The canonical encoding of an event: the leaf of the fingerprint (docs/fingerprints.md).

Exactly ``json.dumps(event, sort_keys=True, separators=(",", ":"),
ensure_ascii=False).encode("utf-8")`` after one normalisation: every card
written in canonical form. Everything else stays as given.
"""

from __future__ import annotations

import json
from typing import Any

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
    return json.dumps(
        event, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")
