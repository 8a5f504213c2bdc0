"""What another rule set changes, said in the page's language.

``compare`` reports each change as data (``rules``, ``round``, ``field``, ``from``,
``to`` and ``params``) with an English ``message`` made from them (the report's
contract, which stays English). The compare page says the same from the data, in the
request's language, with the one sentence maker the command line uses too
(:func:`yaniv_audit.core.sentences.change_phrase`). Nothing here reads a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..core.messages import template_key
from ..core.report import Change, Ruling, Unreplayable
from ..core.sentences import change_phrase
from ..lang import Words
from .i18n import current


def change_text(change: Change, changes: Iterable[Change] = ()) -> str:
    """One change of a comparison in this request's language (``changes``: all of its
    rule set's, which the final winner's sentence gives its reason from)."""
    return said_in_page(change_phrase(change, list(changes)))


def said_in_page(value: Mapping[str, Any]) -> str:
    """A sentence kept as data (``{"phrase": key, ...}``) in this request's language,
    cards as the board draws them."""
    return Words(current().code, suits=True, isolate=True).phrase(value)


def because_text(change: Change, params: Mapping[str, Mapping[str, Any]]) -> str:
    """Why a change happens, in this request's language: the parameters it names
    (``because``) with their values under its rule set (``params``: each rule set's
    parameters by id) in plain words; empty when it names none."""
    because = change.get("because")
    if not because or change["field"] == "replay":
        return ""
    values = params[change["rules"]]
    rule = {name: values[name] for name in because}
    return said_in_page({"phrase": "change:because", "rules": change["rules"], "rule": rule})


def ruling_text(ruling: Ruling) -> str:
    """The ruling's first line, which a table reads aloud (a report's ``ruling``), in this
    request's language."""
    return said_in_page({"phrase": ruling["key"], **ruling["params"]})


def unreplayable_text(stop: Unreplayable) -> str:
    """Why a rule set cannot replay the log (a comparison's ``unreplayable``)."""
    reason = {"phrase": template_key(stop["code"], stop["params"]), **stop["params"]}
    return said_in_page({"phrase": "result:unreplayable", "seq": stop["seq"], "reason": reason})
