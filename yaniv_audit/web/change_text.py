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

from ..core.sentences import change_phrase
from ..lang import Words
from .i18n import current


def change_text(change: Mapping[str, Any], changes: Iterable[Mapping[str, Any]] = ()) -> str:
    """One change of a comparison in this request's language (``changes``: all of its
    rule set's, which the final winner's sentence gives its reason from)."""
    return Words(current().code).phrase(change_phrase(change, list(changes)))
