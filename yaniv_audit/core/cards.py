"""Cards as small integers, with lookup tables instead of objects.

A card is an ``int``: ``suit * 13 + (rank - 1)`` for the 52 natural cards
(rank 1 = ace ... 13 = king; suits C, D, H, S) and :data:`JOKER` (52) for a
joker. Two decks hold identical, interchangeable cards, so a card's code is
its whole identity and a hand is a multiset of codes.

>>> parse_card("10h"), card_name(parse_card("10h"))
(35, 'TH')
>>> format_cards(parse_cards(["as", "JK", "q♠"]))
'AS JK QS'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING

from .errors import CardError

if TYPE_CHECKING:
    from .rules import RuleSet

Card = int

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER: Card = 52
N_CODES = 53
JACK = 11

NAMES: tuple[str, ...] = (*tuple(r + s for s in SUITS for r in RANKS), "JK")
#: rank 1..13 of each code; 0 for the joker
RANK: tuple[int, ...] = (*tuple(r for _ in SUITS for r in range(1, 14)), 0)
#: suit index 0..3 of each code; -1 for the joker
SUIT: tuple[int, ...] = (*tuple(s for s in range(4) for _ in range(13)), -1)

_SUIT_ALIASES = {
    "C": 0,
    "D": 1,
    "H": 2,
    "S": 3,
    "♣": 0,
    "♦": 1,
    "♥": 2,
    "♠": 3,
    "♧": 0,
    "♢": 1,
    "♡": 2,
    "♤": 3,
}


def _build_lookup() -> dict[str, Card]:
    table: dict[str, Card] = {}
    for code in range(52):
        rank = RANKS[RANK[code] - 1]
        ranks = [rank, "10"] if rank == "T" else [rank]
        for suit_text, suit in _SUIT_ALIASES.items():
            if suit != SUIT[code]:
                continue
            for r in ranks:
                for text in {r + suit_text, (r + suit_text).lower()}:
                    table[text] = code
    table["JK"] = JOKER
    return table


_LOOKUP: dict[str, Card] = _build_lookup()


def make_card(rank: int, suit: int) -> Card:
    return suit * 13 + rank - 1


def parse_card(text: str) -> Card:
    """The code of a card written ``<rank><suit>`` or ``JK``, any case."""
    code = _LOOKUP.get(text)
    if code is not None:
        return code
    if isinstance(text, str):
        code = _LOOKUP.get(text.strip().upper())
        if code is not None:
            return code
    raise CardError(
        f"{text!r} is not a card: expected a rank A 2-9 T (or 10) J Q K followed by "
        "a suit C D H S (or ♣ ♦ ♥ ♠), or JK for a joker"
    )


def is_card_text(text: object) -> bool:
    return isinstance(text, str) and (text in _LOOKUP or text.strip().upper() in _LOOKUP)


def canonical(text: str) -> str:
    """The canonical spelling of a card: upper case, ``T`` for ten."""
    return NAMES[parse_card(text)]


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in texts)


def card_name(card: Card) -> str:
    return NAMES[card]


def format_cards(cards: Iterable[Card]) -> str:
    return " ".join(NAMES[c] for c in cards)


@cache
def card_values(rules: RuleSet) -> tuple[int, ...]:
    """Points of every card code in a hand under ``rules``."""
    values = []
    for code in range(N_CODES):
        rank = RANK[code]
        if code == JOKER or (rules.wild_jacks and rank == JACK):
            values.append(rules.joker_value)
        elif rank <= 10 or rules.face_values == "ranked":
            values.append(rank)
        else:
            values.append(10)
    return tuple(values)


@cache
def deck_counts(rules: RuleSet) -> tuple[int, ...]:
    """How many copies of each card code the rule set's deck holds."""
    return (rules.decks,) * 52 + (rules.jokers * rules.decks,)


def deck_size(rules: RuleSet) -> int:
    return sum(deck_counts(rules))


def hand_total(cards: Sequence[Card], values: Sequence[int]) -> int:
    return sum(map(values.__getitem__, cards))
