"""The engine's values: findings, legal moves, the pile's layers, a round's state.

Plain data, no behaviour beyond writing itself out: a :class:`Finding` (what is
wrong, where, by whom), a :class:`Move` (what the legal-move generator offers), a
:class:`Layer` (one throw on the pile), :class:`RoundState` (the round being
replayed: hands, pile, stock, whose turn and its phase) and :class:`RoundRecord`
(what the report says of a round).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgspec

from ..cards import NAMES, Card, format_cards
from ..events import Showdown
from ..melds import Meld
from ..messages import render
from ..report import Finding as ReportFinding
from ..scoring import RoundScore

VIOLATION, INCONSISTENCY, CLAIM = "violation", "inconsistency", "claim"
START, THREW, DREW = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with a log: which event, which round, who, what rule.

    Data, not text: ``params`` holds the values (cards in canonical form) and the rule
    parameters that decided it; :attr:`message` is written from them by the code's
    template (:mod:`yaniv_audit.core.messages`), in English for the report.
    """

    seq: int
    round: int | None
    player: str | None
    kind: str
    code: str
    params: dict[str, Any]

    @property
    def message(self) -> str:
        return render(self.code, self.params)

    def to_json(self) -> ReportFinding:
        return {
            "seq": self.seq,
            "round": self.round,
            "player": self.player,
            "kind": self.kind,
            "code": self.code,
            "message": self.message,
            "params": self.params,
        }


class Move(msgspec.Struct, frozen=True, gc=False):
    """A legal next move, as the legal-move generator offers it.

    A frozen :class:`msgspec.Struct`: the simulator's bots are offered a list of them at
    every choice (a dozen throws a turn), and one is built in a tenth of a frozen
    dataclass's time.
    """

    kind: str  # "yaniv", "discard", "draw" or "slap"
    player: str
    cards: tuple[Card, ...] = ()
    source: str | None = None
    card: Card | None = None
    swap: Card | None = None

    def event(self) -> dict[str, Any]:
        """The move as a log event (cards in canonical form)."""
        out: dict[str, Any] = {"type": self.kind, "player": self.player}
        if self.kind == "discard":
            out["cards"] = [NAMES[c] for c in self.cards]
        elif self.kind == "draw":
            out["source"] = self.source
            if self.card is not None:
                out["card"] = NAMES[self.card]
            if self.swap is not None:
                out["swap"] = NAMES[self.swap]
        elif self.kind == "slap":
            out["card"] = NAMES[self.card]  # type: ignore[index]
        return out


class StopReplay(Exception):
    """Raised by ``strict`` replays at the first finding."""


class Layer(msgspec.Struct, gc=False):
    """One throw on the pile: its cards as placed and how they classify.

    A :class:`msgspec.Struct`: one is built for every throw, in a third of a slotted
    dataclass's time. (Not :class:`RoundState`, which is written at every move: setting
    an attribute of a struct costs three times as much.)
    """

    owner: str | None
    cards: list[Card | None]
    meld: Meld | None

    def text(self) -> str:
        return " ".join("??" if c is None else format_cards([c]) for c in self.cards)


@dataclass(slots=True)
class RoundState:
    number: int
    starter: str
    moves_checked: bool
    rotation: list[str]
    hands: dict[str, list[Card]] = field(default_factory=dict)
    pile: list[Layer] = field(default_factory=list)
    #: cards slapped where no slap is allowed: on the pile beneath the top throw, not takeable
    buried: list[Card] = field(default_factory=list)
    stock: list[Card] | None = None  # known order, top at the end
    stock_count: int = 0
    stock_lost_by_replay: bool = False
    exhaust_pending: bool = False
    upcard_deduced: bool = False  # the upcard was not recorded but follows from hands and stock
    current: str = ""
    phase: int = START
    throw_size: int = 0
    drew_from_stock: bool = False
    last_drawn: Card | None = None
    ended: bool = False  # the round's end happened (yaniv, showdown or stock)
    closed: bool = False  # round_ended was written
    gap_reported: bool = False
    end: str | None = None
    caller: str | None = None
    announced: int | None = None  # the total a scoresheet round's caller announced
    shown: Showdown | None = None  # a scoresheet round's showdown, once read
    score: RoundScore | None = None
    out_reported: set[str] = field(default_factory=set)
    seen: list[int] = field(default_factory=lambda: [0] * 53)
    next_seat: dict[str, str] = field(default_factory=dict)


class RoundRecord(msgspec.Struct, gc=False):
    """What the report says of one round (a :class:`msgspec.Struct`, built once a round
    and written once, when the round is scored)."""

    round: int
    starter: str
    moves_checked: bool
    end: str | None = None
    caller: str | None = None
    score: RoundScore | None = None
    scores: dict[str, int] = {}
    out: tuple[str, ...] = ()
