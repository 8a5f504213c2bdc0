"""Typed, frozen events of a game log (LOG_FORMAT.md section 1).

Every event knows its 0-based ``index`` in the log (what ``seq`` must equal),
the ``line`` it came from in a ``.jsonl`` file (None for ``.json``) and its
optional ``at`` timestamp. Cards are codes from :mod:`yaniv_audit.cards`;
players are their id strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from .cards import Card
from .rules import RuleSet

Hands = dict[str, tuple[Card, ...]]


@dataclass(frozen=True, slots=True)
class Event:
    index: int
    line: int | None
    at: str | None

    @property
    def type(self) -> str:
        return EVENT_TYPES_BY_CLASS[type(self)]

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else f"event {self.index}"


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    format: str
    players: tuple[str, ...]
    names: dict[str, str]
    rules: RuleSet
    game_id: str | None = None
    meta: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class RoundStarted(Event):
    round: int
    starter: str
    hands: Hands | None = None
    upcard: Card | None = None
    stock: tuple[Card, ...] | None = None
    dealer: str | None = None


@dataclass(frozen=True, slots=True)
class Discard(Event):
    player: str
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Draw(Event):
    player: str
    source: Literal["stock", "pile"]
    card: Card | None = None
    swap: Card | None = None


@dataclass(frozen=True, slots=True)
class Slap(Event):
    player: str
    card: Card


@dataclass(frozen=True, slots=True)
class Yaniv(Event):
    player: str
    total: int | None = None


@dataclass(frozen=True, slots=True)
class Showdown(Event):
    caller: str | None
    hands: Hands


@dataclass(frozen=True, slots=True)
class RoundEnded(Event):
    round: int
    points: dict[str, int] | None = None
    scores: dict[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Reshuffle(Event):
    stock: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    winner: tuple[str, ...] | None = None
    scores: dict[str, int] | None = None


@dataclass(frozen=True, slots=True)
class Note(Event):
    text: str
    player: str | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    "game_started": GameStarted,
    "round_started": RoundStarted,
    "discard": Discard,
    "draw": Draw,
    "slap": Slap,
    "yaniv": Yaniv,
    "showdown": Showdown,
    "round_ended": RoundEnded,
    "reshuffle": Reshuffle,
    "game_ended": GameEnded,
    "note": Note,
}
EVENT_TYPES_BY_CLASS: dict[type[Event], str] = {cls: name for name, cls in EVENT_TYPES.items()}

#: events that are moves of a turn
MOVES = (Discard, Draw, Slap, Yaniv)


@dataclass(frozen=True, slots=True)
class Log:
    """A readable log: its events, and each event's canonical encoding
    (the Merkle leaves of the fingerprint)."""

    source: str
    events: tuple[Event, ...]
    leaves: tuple[bytes, ...]

    @property
    def game(self) -> GameStarted:
        first = self.events[0]
        assert isinstance(first, GameStarted)
        return first

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players
