"""Typed, frozen events of a game log (docs/log-format.md).

Every event knows its 0-based ``index`` in the log (what ``seq`` must equal),
the ``line`` it came from in a ``.jsonl`` file (None for ``.json``) and its
optional ``at`` timestamp. Cards are codes from :mod:`yaniv_audit.core.cards`;
players are their id strings.

The events are :class:`msgspec.Struct` types, a union tagged by ``type``, so
that :mod:`yaniv_audit.io.codec` decodes the usual line of a log straight into its
event with :data:`DECODER` and writes its leaf back with :data:`ENCODER`: the
field types below say what msgspec accepts (strictly: no ``"5"`` for 5, no
``true`` for 1, a card only by its canonical name), and msgspec writes the leaf
of what it read while the cards are still those names; the reader then turns
them into codes (:func:`names_to_codes`). That is only the fast way in: the
marshmallow schemas of :mod:`yaniv_audit.io.log_schema` remain the definition of a valid
event, decide every line msgspec refuses and write every error; the tests check
that msgspec accepts nothing they refuse and builds the same event and leaf.

Two fields have JSON names of their own: ``index`` is read from ``seq`` (then
checked against the position) and ``line`` from ``_line``, a name no schema
field can take (a ``_`` field is free), so that whatever a log writes there is
kept in the leaf and never taken for the line number, which the reader sets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

import msgspec
from msgspec import UNSET, Meta, UnsetType, field

from .canonical import CARD_FIELDS, CARD_LIST_FIELDS, HANDS_FIELD
from .cards import NAMES, Card
from .rules import RuleSet

if TYPE_CHECKING:
    CardName = Card
else:
    #: a card as msgspec reads it: its canonical name, which the reader then turns into
    #: its code (:func:`names_to_codes`) once the leaf is written
    CardName = Literal[NAMES]

#: the one format a log may declare in game_started
FORMAT = "yaniv-log/1"
#: how many may sit at a table (what the schema and structure.py allow)
MIN_PLAYERS, MAX_PLAYERS = 2, 8
#: the longest player id, in characters (an id is written at every move it makes: 30,000
#: characters of it made a 1 MB log's board gigabytes)
MAX_PLAYER_ID = 64

#: the code of every canonical card name
CODES: dict[str, Card] = {name: code for code, name in enumerate(NAMES)}

#: the largest whole number a log may hold, either sign: a signed 64-bit integer's, what
#: DuckDB's BIGINT and orjson carry (a larger one made every answer about the game fail)
INT_MAX = 2**63 - 1
#: a whole number of a log: msgspec refuses a larger one as it reads the line (the reader
#: then takes its exact path, which names the field), so no file is searched for long
#: runs of digits first (issue 35: that search was a fifth of the audit's time)
Whole = Annotated[int, Meta(ge=-INT_MAX, le=INT_MAX)]
Player = Annotated[str, Meta(min_length=1, max_length=MAX_PLAYER_ID)]
Cards = tuple[CardName, ...]
Hands = dict[Player, Cards]
Scores = dict[Player, Whole]
RoundNumber = Annotated[int, Meta(ge=1, le=INT_MAX)]


class Event(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    gc=False,
    tag_field="type",
    omit_defaults=True,
    forbid_unknown_fields=True,
):
    index: Annotated[int, Meta(ge=0, le=INT_MAX)] = field(default=-1, name="seq")
    line: Whole | None = field(default=None, name="_line")
    at: str | None = None

    @property
    def type(self) -> str:
        return self.__struct_config__.tag  # type: ignore[return-value]

    @property
    def where(self) -> str:
        return f"line {self.line}" if self.line is not None else f"event {self.index}"


class GameStarted(Event, tag="game_started", frozen=True):
    format: str
    players: tuple[str, ...]
    names: dict[str, str]
    rules: RuleSet
    game_id: str | None = None
    meta: dict[str, Any] | None = None


class RoundStarted(Event, tag="round_started", frozen=True):
    round: RoundNumber
    starter: Player
    hands: Hands | None = None
    upcard: CardName | None = None
    stock: Cards | None = None
    dealer: Player | None = None


class Discard(Event, tag="discard", frozen=True):
    player: Player
    cards: Annotated[Cards, Meta(min_length=1)]


class Draw(Event, tag="draw", frozen=True):
    player: Player
    source: Literal["stock", "pile"]
    card: CardName | None = None
    swap: CardName | None = None


class Slap(Event, tag="slap", frozen=True):
    player: Player
    card: CardName


class Yaniv(Event, tag="yaniv", frozen=True):
    player: Player
    total: Whole | None = None


class Showdown(Event, tag="showdown", frozen=True):
    caller: Player | None
    hands: Hands
    totals: Scores | None = None


class RoundEnded(Event, tag="round_ended", frozen=True):
    round: RoundNumber
    points: Scores | None = None
    scores: Scores | None = None


class Reshuffle(Event, tag="reshuffle", frozen=True):
    stock: Cards | None = None


class GameEnded(Event, tag="game_ended", frozen=True):
    winner: Annotated[tuple[Player, ...], Meta(min_length=1)] | None = None
    scores: Scores | None = None


class Note(Event, tag="note", frozen=True):
    text: str
    player: Player | None = None


class Withdraw(Event, tag="withdraw", frozen=True):
    """The table takes back its latest entries (an undo): ``seqs`` are their positions."""

    seqs: Annotated[tuple[Annotated[int, Meta(ge=0, le=INT_MAX)], ...], Meta(min_length=1)]
    player: Player | None = None
    reason: str | None = None


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
    "withdraw": Withdraw,
}
EVENT_TYPES_BY_CLASS: dict[type[Event], str] = {cls: name for name, cls in EVENT_TYPES.items()}

#: events that are moves of a turn (a set of exact types: ``type(event) in MOVES``)
MOVES = frozenset((Discard, Draw, Slap, Yaniv))


# --- msgspec: the fast way in ------------------------------------------------------


def names_to_codes(event: Event) -> None:
    """The cards of an event msgspec just read, from their names to their codes."""
    code = CODES.__getitem__
    for name in _CARD_FIELDS[type(event)]:
        value: Any = getattr(event, name)
        if value is None:
            continue
        if type(value) is str:
            value = code(value)
        elif type(value) is tuple:
            value = tuple(map(code, value))
        else:  # hands
            value = {player: tuple(map(code, cards)) for player, cards in value.items()}
        _force_setattr(event, name, value)


_force_setattr = msgspec.structs.force_setattr


#: the fields of each event type that hold cards (those normalize_event rewrites)
_CARD_FIELDS: dict[type[Event], tuple[str, ...]] = {
    cls: tuple(
        name
        for name in cls.__struct_fields__
        if name in (*CARD_FIELDS, *CARD_LIST_FIELDS, HANDS_FIELD)
    )
    for cls in EVENT_TYPES.values()
}


# --- msgspec from a parsed value: every event a line of the fast way refuses --------


class PlayerEntry(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat written as an object (``{"id": ..., "name": ...}``) in game_started."""

    id: Player
    name: str | UnsetType = UNSET  # UNSET: an explicit null is refused, as the schema does


class GameStartedWire(Event, tag="game_started", frozen=True):
    """game_started as a log writes it: seats as ids or objects, the rules as an id or
    an object; :func:`yaniv_audit.io.codec.msgspec_event` builds the :class:`GameStarted`."""

    format: Literal["yaniv-log/1"]  # FORMAT (a Literal takes no name)
    players: Annotated[
        tuple[Player | PlayerEntry, ...], Meta(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    ]
    rules: str | dict[str, Any]
    game_id: str | None = None
    meta: dict[str, Any] | None = None


class GameEndedWire(Event, tag="game_ended", frozen=True):
    """game_ended as a log writes it: the winner an id or a non-empty list of ids."""

    winner: Player | Annotated[tuple[Player, ...], Meta(min_length=1)] | None = None
    scores: Scores | None = None


#: what msgspec converts a parsed event into (its ``type`` picks the struct)
PARSED_TYPES = tuple(
    GameStartedWire if cls is GameStarted else GameEndedWire if cls is GameEnded else cls
    for cls in EVENT_TYPES.values()
)


#: the types msgspec reads from a line: every event but game_started, whose rule set
#: and free ``meta`` only the codec's own path reads (once per log)
WIRE_TYPES = tuple(cls for cls in EVENT_TYPES.values() if cls is not GameStarted)
DECODER: msgspec.json.Decoder[Event] = msgspec.json.Decoder(Union[WIRE_TYPES])  # noqa: UP007
#: the leaf of an event DECODER read (before its cards, index and line are set)
ENCODER = msgspec.json.Encoder(order="sorted")


@dataclass(frozen=True, slots=True)
class Withdrawals:
    """What a log's ``withdraw`` events take back (docs/log-format.md, "Withdrawals").

    ``withdrawn`` maps the index of every event taken back to the index of the withdrawal
    that took it back; ``refused`` maps each withdrawal that takes nothing back (the
    violation ``log.withdraw``) to why. Both follow from the events alone, whatever the
    rules, so the reader works them out once (:class:`WithdrawalPlan`).
    """

    withdrawn: dict[int, int]
    refused: dict[int, dict[str, Any]]


class WithdrawalPlan:
    """The withdrawals of a log, worked out event by event: an undo stack of the entries
    still standing (every event but ``note`` and ``withdraw``; ``game_started`` is the
    game itself and is never taken back), held as runs of consecutive positions, so that
    a reader that streams a long log holds a few numbers, not one for each event."""

    __slots__ = ("others", "refused", "starts", "stops", "withdrawn")

    def __init__(self) -> None:
        #: the entries standing: the runs ``range(starts[i], stops[i])``, in log order
        self.starts: list[int] = []
        self.stops: list[int] = []
        #: the events that are not entries (the game's start, notes, withdrawals): their type
        self.others: dict[int, str] = {}
        self.withdrawn: dict[int, int] = {}
        self.refused: dict[int, dict[str, Any]] = {}

    def add(self, event: Event) -> bool:
        """Take ``event`` (the next one of the log) into account; True if it is a
        withdrawal that takes entries back."""
        if type(event) is Withdraw:
            return self.add_withdraw(event.index, event.seqs)
        if type(event) is Note or type(event) is GameStarted:
            self.others[event.index] = event.type
        else:
            self.entries(event.index, event.index + 1)
        return False

    def entries(self, start: int, stop: int) -> None:
        """The events from ``start`` to ``stop - 1`` are entries (the next ones of the log)."""
        if start >= stop:
            return
        if self.stops and self.stops[-1] == start:
            self.stops[-1] = stop
        else:
            self.starts.append(start)
            self.stops.append(stop)

    def add_withdraw(self, index: int, seqs: tuple[int, ...]) -> bool:
        """The withdrawal at ``index`` naming ``seqs`` (the next event of the log); True if
        it takes entries back."""
        self.others[index] = "withdraw"
        why = self._refusal(index, seqs)
        if why is not None:
            self.refused[index] = why
            return False
        count = len(seqs)
        starts, stops = self.starts, self.stops
        while count:
            size = stops[-1] - starts[-1]
            if size > count:
                stops[-1] -= count
                break
            count -= size
            del starts[-1], stops[-1]
        for seq in seqs:
            self.withdrawn[seq] = index
        return True

    def latest(self, count: int) -> list[int]:
        """The last ``count`` entries standing (all of them, when fewer stand), in order."""
        found: list[int] = []
        for start, stop in zip(reversed(self.starts), reversed(self.stops), strict=True):
            if count <= 0:
                break
            first = max(start, stop - count)
            found[:0] = range(first, stop)
            count -= stop - first
        return found

    def _refusal(self, index: int, seqs: tuple[int, ...]) -> dict[str, Any] | None:
        """Why the withdrawal at ``index`` of ``seqs`` takes nothing back, as the params of
        ``log.withdraw``, or None."""
        for i, seq in enumerate(seqs):
            if seq in seqs[:i]:
                return {"case": "twice", "seq": seq}
            if seq == index:
                return {"case": "itself", "seq": seq}
            if seq > index:
                return {"case": "later", "seq": seq}
            if seq in self.withdrawn:
                return {"case": "taken_back", "seq": seq, "by": self.withdrawn[seq]}
            if seq in self.others:
                return {"case": "not_entry", "seq": seq, "kind": self.others[seq]}
        latest = self.latest(len(seqs))
        if sorted(seqs) == latest:
            return None
        return {
            "case": "not_latest" if len(seqs) == 1 else "not_latest_many",
            "seqs": sorted(seqs),
            "count": len(seqs),
            "latest": latest,
        }

    def copy(self) -> WithdrawalPlan:
        plan = WithdrawalPlan()
        plan.starts, plan.stops = list(self.starts), list(self.stops)
        plan.withdrawn = dict(self.withdrawn)
        plan.others = dict(self.others)
        plan.refused = dict(self.refused)
        return plan

    def result(self) -> Withdrawals | None:
        """The withdrawals so far, or None when the log has none."""
        if not self.withdrawn and not self.refused:
            return None
        return Withdrawals(dict(self.withdrawn), dict(self.refused))


def withdrawals_of(events: Sequence[Event]) -> Withdrawals | None:
    """The withdrawals of a whole log (None: it has none)."""
    plan = WithdrawalPlan()
    for event in events:
        plan.add(event)
    return plan.result()


@dataclass(frozen=True, slots=True)
class Log:
    """A readable log: its events, and each event's canonical encoding
    (the Merkle leaves of the fingerprint), and what its withdrawals take back."""

    source: str
    events: tuple[Event, ...]
    leaves: tuple[bytes, ...]
    withdrawals: Withdrawals | None = None

    @property
    def game(self) -> GameStarted:
        first = self.events[0]
        assert isinstance(first, GameStarted)
        return first

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players
