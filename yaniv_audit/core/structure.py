"""The structural checks of a log: the "unreadable" class of docs/log-format.md
that holds under every rule set.

Pure code over typed events, with no I/O and no marshmallow, so the codec runs it
while reading and the replay engine can run it on events built any other way.
:class:`StructureCheck` is a fold: feed it the events in order and it returns the
first :class:`Problem`. What depends on the rule set or on the replay (who is
out, whether a reshuffle was allowed, the stock running out) is the engine's.

>>> from yaniv_audit.core.events import GameStarted, Discard
>>> from yaniv_audit.core.rules import PRESETS
>>> game = GameStarted("yaniv-log/1", ("dana", "omer"), {}, PRESETS["israeli"], index=0, line=1)
>>> first_problem([game, Discard("dana", (4,), index=1, line=2)]).message
'discard: a move before round 1; moves need a round_started with "hands"'
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .events import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVES,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    Note,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Withdraw,
    WithdrawalPlan,
    Withdrawals,
    Yaniv,
)


@dataclass(frozen=True, slots=True)
class Problem:
    """What makes a log unreadable, at which event and (if one) which field.

    ``text`` is what is wrong with the field; ``message`` the whole sentence.
    ``event`` is None only for a log without events.
    """

    event: Event | None
    field: str | None
    text: str

    @property
    def message(self) -> str:
        if self.event is None:
            return self.text
        if self.field is None:
            return f"{self.event.type}: {self.text}"
        return f"{self.event.type}: field {_q(self.field)}: {self.text}"


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def check_seq(seq: int, index: int) -> str | None:
    """``seq``, when given, is the event's 0-based position: it catches lost or moved lines."""
    if seq == index:
        return None
    return f"expected {index}, the event's 0-based position, got {seq}"


def check_players(players: Sequence[str]) -> tuple[str, str] | None:
    """2 to 8 seats, no one seated twice -> None, else (field, text)."""
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        return "players", f"expected {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}"
    seen: set[str] = set()
    for seat, player in enumerate(players):
        if player in seen:
            return f"players.{seat}", f"{_q(player)} is seated twice"
        seen.add(player)
    return None


def named_players(event: Event) -> list[tuple[str, str]]:
    """Every (field path, player id) an event names, for the seating check."""
    # type(event) is X, not isinstance: an isinstance that fails costs 80 ns on a
    # msgspec type (its metaclass's __instancecheck__), and events have no subclasses
    named: list[tuple[str, str]] = []
    if type(event) in MOVES:
        named.append(("player", event.player))  # type: ignore[attr-defined]
    elif type(event) is RoundStarted:
        named.append(("starter", event.starter))
        if event.dealer is not None:
            named.append(("dealer", event.dealer))
        named.extend((f"hands.{p}", p) for p in event.hands or ())
    elif type(event) is Showdown:
        if event.caller is not None:
            named.append(("caller", event.caller))
        named.extend((f"hands.{p}", p) for p in event.hands)
        named.extend((f"totals.{p}", p) for p in event.totals or ())
    elif type(event) is RoundEnded:
        named.extend((f"points.{p}", p) for p in event.points or ())
        named.extend((f"scores.{p}", p) for p in event.scores or ())
    elif type(event) is GameEnded:
        named.extend((f"winner.{i}", p) for i, p in enumerate(event.winner or ()))
        named.extend((f"scores.{p}", p) for p in event.scores or ())
    elif (type(event) is Note or type(event) is Withdraw) and event.player is not None:
        named.append(("player", event.player))
    return named


def all_seated(event: Event, seated: frozenset[str]) -> bool:
    """Whether every player of :func:`named_players` is in ``seated``, without building
    their field paths (the common events in set operations; a deal's check is 3x faster)."""
    if type(event) is RoundStarted:
        return (
            event.starter in seated
            and (event.dealer is None or event.dealer in seated)
            and seated.issuperset(event.hands or ())
        )
    if type(event) is Showdown:
        return (
            (event.caller is None or event.caller in seated)
            and seated.issuperset(event.hands)
            and seated.issuperset(event.totals or ())
        )
    if type(event) is RoundEnded:
        return seated.issuperset(event.points or ()) and seated.issuperset(event.scores or ())
    if type(event) is GameEnded:
        return seated.issuperset(event.winner or ()) and seated.issuperset(event.scores or ())
    return all(player in seated for _, player in named_players(event))


class TrailDropped(Exception):
    """A ``withdraw`` met by a fold that let the events before it go
    (:meth:`StructureCheck.drop_trail`): the log must be read whole."""


class StructureCheck:
    """The fold state of the structural checks: the seats, the round under way and
    what its deal recorded. :meth:`check` each event in order, then :meth:`finish`.

    A ``withdraw`` that takes entries back leaves the fold as if they had never been
    written (a round written again after its withdrawal has the same number): the fold
    keeps the events it checked (``trail``) and, at such a withdrawal, folds the entries
    still standing again. Withdrawals are rare; the usual event pays one append.
    """

    __slots__ = (
        "dropped",
        "game",
        "hands",
        "plan",
        "planned",
        "round",
        "seated",
        "stock",
        "stock_from",
        "trail",
    )

    def __init__(self) -> None:
        self.game: GameStarted | None = None
        self.seated: frozenset[str] = frozenset()
        #: the last round started (0 before round 1)
        self.round = 0
        #: whether that round's deal recorded the hands
        self.hands = False
        #: how many stock draws the log's recorded stock order still covers (round_started's
        #: or the last reshuffle's ``stock``); None = the log leaves the order unknown (a
        #: stock recorded empty stays 0: a draw from it is the engine's ``stock.empty``)
        self.stock: int | None = None
        #: where the order was last recorded, for the message
        self.stock_from = ""
        #: every event checked, in order
        self.trail: list[Event] = []
        #: the withdrawals (None until the first withdraw), worked out up to trail[planned]
        self.plan: WithdrawalPlan | None = None
        self.planned = 0
        #: whether :meth:`drop_trail` let events go (a withdrawal then cannot be folded)
        self.dropped = False

    #: what :meth:`state` saves of the fold as it is (the trail, the plan and how far it
    #: was worked out are saved beside them)
    FOLD = ("game", "seated", "round", "hands", "stock", "stock_from", "dropped")

    def state(self) -> tuple[Any, ...]:
        """Everything the fold holds, for :meth:`restore`."""
        return (
            *(getattr(self, name) for name in self.FOLD),
            len(self.trail),
            None if self.plan is None else self.plan.copy(),
            self.planned,
        )

    def restore(self, state: tuple[Any, ...]) -> None:
        size = len(self.FOLD)
        for name, value in zip(self.FOLD, state[:size], strict=True):
            setattr(self, name, value)
        del self.trail[state[size] :]
        self.plan, self.planned = state[size + 1], state[size + 2]

    @property
    def withdrawals(self) -> Withdrawals | None:
        """What the withdrawals of the events checked take back (None: there are none)."""
        return None if self.plan is None else self.plan.result()

    def check(self, event: Event) -> Problem | None:
        """The first structural problem of ``event`` given the events before it."""
        self.trail.append(event)
        if self.game is None:
            return self._first(event)
        kind = type(event)  # not isinstance: see named_players
        if kind in MOVES:
            player: str = event.player  # type: ignore[attr-defined]
            if player not in self.seated:
                return self._not_seated(event, "player", player)
            # a scoresheet round (no hands) may record the call, never the other moves
            if not self.hands and not (kind is Yaniv and self.round > 0):
                return self._no_deal(event, "a move")
            if type(event) is Draw:
                if event.source == "pile":
                    if event.card is None:
                        return Problem(event, "card", "required for a draw from the pile")
                elif self.stock is None:
                    if event.card is None:
                        return Problem(event, "card", self._stock_unknown())
                elif self.stock:
                    self.stock -= 1
                    if not self.stock:
                        self.stock = None  # drawn to the end: the next order is unknown
            return None
        if not all_seated(event, self.seated):
            for field, player in named_players(event):
                if player not in self.seated:
                    return self._not_seated(event, field, player)
        if type(event) is RoundStarted:
            return self._round_started(event)
        if type(event) is RoundEnded:
            if self.round == 0:
                return Problem(event, "round", "no round has started yet")
            if event.round != self.round:
                return Problem(
                    event, "round", f"expected {self.round}, the round under way, got {event.round}"
                )
        elif type(event) is Showdown or type(event) is Reshuffle:
            if self.round == 0:
                return Problem(event, None, "before round 1; it needs a round_started first")
            if type(event) is Reshuffle:
                self.stock = None if event.stock is None else len(event.stock)
                self.stock_from = "reshuffle"
        elif type(event) is GameStarted:
            return Problem(
                event, None, f"a log holds one game, and it started at {self.game.where}"
            )
        elif type(event) is Withdraw:
            self._withdraw(event)
        return None

    def drop_trail(self) -> None:
        """Let the events checked so far go, for a reader that streams a log it holds no
        more of: the fold then keeps no event. A ``withdraw`` met after this raises
        :class:`TrailDropped` (the reader reads the log whole instead)."""
        if self.plan is not None:
            raise TrailDropped
        self.trail = []
        self.planned = 0
        self.dropped = True

    def _withdraw(self, event: Withdraw) -> None:
        """Work out what ``event`` takes back; if anything, fold the standing entries again."""
        if self.dropped:
            raise TrailDropped
        if self.plan is None:
            self.plan = WithdrawalPlan()
        plan, trail = self.plan, self.trail
        for earlier in trail[self.planned : -1]:
            plan.add(earlier)
        self.planned = len(trail)
        if not plan.add(event):
            return
        withdrawn = plan.withdrawn
        self.round, self.hands, self.stock, self.stock_from = 0, False, None, ""
        self.trail = []
        for earlier in trail[1:-1]:  # the standing entries (they were readable before)
            if earlier.index not in withdrawn and type(earlier) is not Withdraw:
                self.check(earlier)
        self.trail = trail

    def finish(self) -> Problem | None:
        """The problem of the log as a whole once every event was checked: it was empty."""
        if self.game is None:
            return Problem(None, None, "no events; a log starts with a game_started event")
        return None

    def _first(self, event: Event) -> Problem | None:
        if not isinstance(event, GameStarted):
            return Problem(event, None, f"the first event must be game_started, got {event.type}")
        problem = check_players(event.players)
        if problem is not None:
            return Problem(event, *problem)
        self.game = event
        self.seated = frozenset(event.players)
        return None

    def _round_started(self, event: RoundStarted) -> Problem | None:
        if event.round != self.round + 1:
            return Problem(
                event,
                "round",
                f"expected {self.round + 1} (rounds are numbered 1, 2, ... in order), "
                f"got {event.round}",
            )
        if event.hands is None:
            for field in ("upcard", "stock"):
                if getattr(event, field) is not None:
                    return Problem(event, field, 'allowed only with "hands"')
        self.round = event.round
        self.hands = event.hands is not None
        self.stock = None if event.stock is None else len(event.stock)
        self.stock_from = "round_started" if event.stock is not None else ""
        return None

    def _stock_unknown(self) -> str:
        if not self.stock_from:
            return (
                f'required here: round {self.round}\'s round_started recorded no "stock", '
                "so the order of the stock is unknown"
            )
        if self.stock_from == "reshuffle":
            return (
                'required here: the last reshuffle recorded no "stock", or every card of '
                "it was drawn, so the order of the stock is unknown"
            )
        return (
            f'required here: every card of round {self.round}\'s recorded "stock" was '
            "drawn and no reshuffle recorded a new order, so the order of the stock is "
            "unknown"
        )

    def _not_seated(self, event: Event, field: str, player: str) -> Problem:
        assert self.game is not None
        seats = ", ".join(map(_q, self.game.players))
        return Problem(event, field, f"{_q(player)} is not seated (the players are {seats})")

    def _no_deal(self, event: Event, what: str) -> Problem:
        if self.round == 0:
            return Problem(
                event, None, f'{what} before round 1; moves need a round_started with "hands"'
            )
        return Problem(
            event,
            None,
            f'{what} in round {self.round}, whose round_started has no "hands"; '
            "moves can only be replayed from a recorded deal",
        )


class KnownWithdrawals(StructureCheck):
    """The structural checks of a log whose withdrawals are known before it is read (a
    first reading of its file: :func:`yaniv_audit.io.codec.withdrawals_in`), for a reader
    that streams it and keeps no event.

    A withdrawal that takes entries back leaves the entries standing before the lowest
    of them (an undo stack: those below it never move while it stands), so the fold
    after it is the fold as it was just before that entry was checked: saved then, put
    back at the withdrawal, the same fold as :class:`StructureCheck`'s folding again of
    the entries still standing. The withdrawals are worked out again as the events come
    and compared with those known: a difference raises :class:`TrailDropped` (the reader
    then reads the log whole)."""

    __slots__ = ("known", "lowest", "saved")

    def __init__(self, known: Withdrawals) -> None:
        super().__init__()
        self.known = known
        self.plan = WithdrawalPlan()
        lowest: dict[int, int] = {}  # each withdrawal's lowest entry taken back
        for seq, by in known.withdrawn.items():
            if seq < lowest.get(by, seq + 1):
                lowest[by] = seq
        #: the lowest entry each withdrawal takes back -> the withdrawal
        self.lowest = {seq: by for by, seq in lowest.items()}
        #: the fold before that entry, by the withdrawal that puts it back
        self.saved: dict[int, tuple[int, bool, int | None, str]] = {}

    def check(self, event: Event) -> Problem | None:
        by = self.lowest.get(event.index)
        if by is not None:
            self.saved[by] = (self.round, self.hands, self.stock, self.stock_from)
        problem = StructureCheck.check(self, event)
        if type(event) is not Withdraw and problem is None:
            self.plan.add(event)  # type: ignore[union-attr]
        return problem

    def drop_trail(self) -> None:
        self.trail = []

    def _withdraw(self, event: Withdraw) -> None:
        plan = self.plan
        assert plan is not None
        took = plan.add(event)
        withdrawn = self.known.withdrawn
        if took != (event.index in self.saved) or (
            took and any(withdrawn.get(seq) != event.index for seq in event.seqs)
        ):
            raise TrailDropped  # not the withdrawals known
        if took:
            self.round, self.hands, self.stock, self.stock_from = self.saved[event.index]

    def confirm(self) -> None:
        """Raise :class:`TrailDropped` unless the withdrawals of the events checked are
        those known (once every event was checked)."""
        found = self.withdrawals or Withdrawals({}, {})
        if found != self.known:
            raise TrailDropped


def first_problem(events: Iterable[Event]) -> Problem | None:
    """The first structural problem of a whole log, or None if it is readable."""
    check = StructureCheck()
    for event in events:
        problem = check.check(event)
        if problem is not None:
            return problem
    return check.finish()
