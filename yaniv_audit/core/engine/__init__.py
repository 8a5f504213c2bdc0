"""The replay engine: a deterministic fold of a log's events into game state.

:class:`Replay` takes the events one by one (:meth:`Replay.apply`), checks
every move against the rule set and records :class:`Finding` values. Rule
violations and claims never stop it; a physically impossible event raises
:class:`~yaniv_audit.core.errors.InconsistentLogError` (after recording its
finding) and the replay stops there. Nothing here reads a clock, a random
generator or a file.

:class:`Replay` is one class put together from the game's parts, a module
each, so that each can be read on its own:

========== ======================================================================
``state``  the values: findings, legal moves, the pile's layers, a round's state
``base``   what every part shares: the game's state, findings, the game being
           over, a player who is out, hand totals, taking cards from a hand
``deal``   ``round_started``: the hands, upcard and stock against the deck, the
           starter
``turns``  whose turn it is and its phases; the throws (``discard``, ``slap``)
``pile``   the draws from the stock and the pile, joker swaps; the stock running
           out and the reshuffle
``ending`` the Yaniv call, the showdown and the round's scoring, the game decided
``claims`` what the table wrote: ``round_ended``'s points and scores,
           ``game_ended``'s winner
``moves``  the legal-move generator (the bots choose from it) and the viewers'
           snapshot
========== ======================================================================

:data:`HANDLERS` is the fold's one table, event type to method: every event
goes through :meth:`Replay.apply`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ..events import (
    Discard,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    Note,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Withdraw,
    Withdrawals,
    Yaniv,
)
from .claims import TableClaims
from .deal import Deal
from .ending import RoundEnd
from .moves import DrawOption, LegalMoves, Throw
from .pile import PileAndStock
from .state import (
    CLAIM,
    DREW,
    INCONSISTENCY,
    START,
    THREW,
    VIOLATION,
    Finding,
    Layer,
    Move,
    RoundRecord,
    RoundState,
    StopReplay,
)
from .turns import Turns

__all__ = [
    "CLAIM",
    "DREW",
    "HANDLERS",
    "INCONSISTENCY",
    "START",
    "THREW",
    "VIOLATION",
    "DrawOption",
    "Finding",
    "Layer",
    "Move",
    "Replay",
    "RoundRecord",
    "RoundState",
    "StopReplay",
    "Throw",
]


class Replay(Deal, Turns, PileAndStock, RoundEnd, TableClaims, LegalMoves):
    """The state of a game being replayed under one rule set."""

    def apply(self, event: Event) -> None:
        """Fold one event into the state (raises InconsistentLogError, StopReplay)."""
        HANDLERS[type(event)](self, event)

    def run(self, events: Iterable[Event], withdrawals: Withdrawals | None = None) -> Replay:
        """Fold every event, as if those ``withdrawals`` take back had never been written
        (:attr:`~yaniv_audit.core.events.Log.withdrawals`), and finish."""
        if withdrawals is not None:
            self.withdrawals = withdrawals
            taken_back = withdrawals.withdrawn
            events = [e for e in events if e.index not in taken_back]
        handlers = HANDLERS  # apply(event), inline: one call less for every event
        for event in events:
            handlers[type(event)](self, event)
        self.finish()
        return self

    def finish(self) -> None:
        """The log ends here: a pending stock exhaustion under round_ends still ends the round."""
        self._end_pending_exhaustion()

    def _game_started(self, event: GameStarted) -> None:
        pass

    def _note(self, event: Note) -> None:
        pass

    def _withdraw(self, event: Withdraw) -> None:
        """A withdrawal that takes entries back was planned before the fold (its entries
        are not folded); one that takes nothing back is ``log.withdraw``."""
        why = self.withdrawals.refused.get(event.index) if self.withdrawals else None
        if why is not None:
            self._violation(event, "log.withdraw", event.player, **why)


#: the method that folds each event type (a class-level table, so that a replay holds
#: no reference cycle and dies by reference counting)
HANDLERS: dict[type[Event], Callable[[Replay, Any], None]] = {
    GameStarted: Replay._game_started,
    RoundStarted: Replay._round_started,
    Discard: Replay._discard,
    Draw: Replay._draw,
    Slap: Replay._slap,
    Yaniv: Replay._yaniv,
    Showdown: Replay._showdown,
    RoundEnded: Replay._round_ended,
    Reshuffle: Replay._reshuffle,
    GameEnded: Replay._game_ended,
    Note: Replay._note,
    Withdraw: Replay._withdraw,
}
