"""What the live table (``/tables/<id>``) and the recorder (``/record``) read, said on
the server in the page's language: every entry of the log (the move list's sentence,
the same as the game page's), the head of every round, the stock.

The scripts make no sentence: an answer carries ``said`` (when the request sends
``Accept-Language``), whose sentences are *parts*, for a script to draw without
knowing any language's grammar: a string is text, a number is a player (a seat: an
index into the game's ``players``, drawn in a ``<bdi>``), ``{"card": "7S"}`` a card
(drawn as a chip). Hebrew says a move with a noun (``דנה: זריקה 7♠ 7♦``), as the game
page does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypedDict

from ..core.cards import canonical
from ..core.events import Log, Note
from ..core.report import AuditReport
from ..core.sentences import move_phrase, round_head
from ..lang import Words
from .i18n import NameMarks


class CardPart(TypedDict):
    """A card within a sentence, by its code (``7S``, ``TH``, ``JK``)."""

    card: str


#: a piece of a sentence: text, a player's seat, or a card
Part = str | int | CardPart


class Said(TypedDict):
    """An answer's sentences in one language (``lang``): ``moves`` one per entry of the
    log, in order; ``rounds`` one per round of the report; ``stock`` the cards left in
    the stock, in words (null before a round of moves)."""

    lang: str
    moves: list[list[Part]]
    rounds: list[list[Part]]
    stock: str | None


#: a card as a sentence says it with suits (8♥, 10♣, JK): the game page finds them so too
CARD = re.compile("(?<![\\w♣♦♥♠])(?:(10|[2-9AJQK])([♣♦♥♠])|JK)(?![\\w♣♦♥♠])")
#: where a table's own words (a note's text) go, kept out of the card finder
OWN = "\ue002"


def _cards(text: str) -> list[Part]:
    out: list[Part] = []
    at = 0
    for match in CARD.finditer(text):
        if match.start() > at:
            out.append(text[at : match.start()])
        out.append(CardPart(card=canonical(match.group(0))))
        at = match.end()
    if at < len(text):
        out.append(text[at:])
    return out


def parts(text: str, marks: NameMarks, own: str | None = None) -> list[Part]:
    """``text`` (players marked by ``marks``) as parts; ``own``: the words that stand in
    ``text`` as the placeholder of a note's own words, kept as they are."""
    out: list[Part] = []
    for piece in marks.parts(text):
        if isinstance(piece, int):
            out.append(piece)
            continue
        for k, chunk in enumerate(piece.split(OWN)):
            if k and own is not None:
                out.append(own)
            out.extend(_cards(chunk))
    return out


def said(
    log: Log,
    report: AuditReport,
    lang: str,
    stock: int | None = None,
    known: list[list[Part]] | None = None,
) -> Said:
    """Every entry and round of ``log`` (its ``report``) said in ``lang``. ``known``: the
    sentences of the log's first entries in ``lang``, said before (a live table's, which
    is only ever appended to: an entry's sentence is its own, whatever follows), extended
    here with the rest."""
    words = Words(lang, suits=True, isolate=True)
    players: Sequence[str] = log.players
    # names by seat: the parts carry seats, the script draws its own ids
    marks = NameMarks(players, {})
    moves: list[list[Part]] = [] if known is None else known
    for event in log.events[len(moves) :]:
        phrase = move_phrase(event, None, players, name=marks.mark)
        own = phrase.get("text") if isinstance(event, Note) else None
        if own is not None:
            phrase = {**phrase, "text": OWN}
        moves.append(parts(words.phrase(phrase), marks, own))
    rounds = [parts(words.phrase(round_head(r, marks.mark)), marks) for r in report["rounds"]]
    return Said(
        lang=words.code,
        moves=list(moves),  # (a copy: ``known`` grows under its table's lock only)
        rounds=rounds,
        stock=None if stock is None else words.say("say.step_cards", count=stock),
    )
