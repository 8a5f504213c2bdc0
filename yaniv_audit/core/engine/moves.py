"""The legal-move generator and the viewers' snapshot.

:meth:`LegalMoves.legal_moves` lists every move the player whose turn it is may
make now, in a fixed order: the simulator's bots choose from it (by phase:
:meth:`~LegalMoves.start_options` and :meth:`~LegalMoves.draw_options`, the moves of
:meth:`~LegalMoves.start_moves` and :meth:`~LegalMoves.draw_moves` as plain values,
then :meth:`~LegalMoves.slap_moves`), and the recorder's page offers it with, after a
draw, the next player's moves (:meth:`LegalMoves.next_moves`);
:meth:`LegalMoves.snapshot` is the state as the terminal and web viewers show it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from ..cards import Card, format_cards
from ..melds import extend, legal_throws, throws_finder
from .base import ReplayBase
from .state import DREW, START, THREW, Move

#: a throw, its cards as placed
Throw = tuple[Card, ...]
#: a draw as :meth:`LegalMoves.draw_options` offers it: (source, card, swap); the card is
#: None for a stock draw whose card the replay does not know, swap the natural card a
#: joker swap puts in (else None)
DrawOption = tuple[str, "Card | None", "Card | None"]


class LegalMoves(ReplayBase):
    """The legal moves of the player whose turn it is, and a view of the state."""

    # --- the legal-move generator ----------------------------------------

    def legal_moves(self, throws: int | None = None) -> list[Move]:
        """Every move the player whose turn it is may make now (bots and tests use it).

        At the start of a turn: Yaniv (if the hand allows) and every legal
        throw (with ``throws``, the first that many); after a throw: every legal draw;
        after a stock draw: the slaps that are allowed (passing is always allowed then,
        and is no event).
        """
        r = self.round
        if r is None or r.ended or r.closed or not r.moves_checked or self.winners is not None:
            return []
        if r.phase == START:
            return self.start_moves(r.current, throws)
        if r.phase == THREW:
            return self.draw_moves()
        return self.slap_moves()

    def start_moves(self, player: str, throws: int | None = None) -> list[Move]:
        """What ``player`` may do at the start of their turn: Yaniv, or any legal throw
        (with ``throws``, the first that many throws only)."""
        can_call, found = self.start_options(player, throws)
        moves = [Move("yaniv", player)] if can_call else []
        moves += [Move("discard", player, t) for t in found]
        return moves

    def start_options(
        self,
        player: str,
        throws: int | None = None,
    ) -> tuple[bool, list[Throw]]:
        """:meth:`start_moves` as plain values: whether ``player`` may call Yaniv, and every
        legal throw from their hand in order (the simulator's bots choose from these, a
        dozen a turn, without a :class:`Move` built for each); with ``throws``, the first
        that many, the others never looked for (a hand of thirty cards, sixteen of them
        jokers, has tens of thousands)."""
        r = self.round
        hand = r.hands.get(player, ()) if r is not None else ()
        values = self.values
        can_call = sum([values[c] for c in hand]) <= self.rules.yaniv_max
        if throws is not None:
            return can_call, legal_throws(hand, self.rules, throws)
        return can_call, self._find_throws(hand)

    def draw_moves(self) -> list[Move]:
        """The draws of the player who just threw, in order: the stock (its top card when
        its order is known), the cards of the previous throw that ``pickup`` allows, each
        once, then the joker swaps (the natural card each joker of a run stands for, from
        the hand). Call it after a throw (``legal_moves`` does)."""
        p = self.round.current if self.round is not None else ""
        return [
            Move("draw", p, source=source, card=card, swap=swap)
            for source, card, swap in self.draw_options()
        ]

    def draw_options(self) -> list[DrawOption]:
        """:meth:`draw_moves` as plain values, ``(source, card, swap)`` each (for the
        simulator's bots, as :meth:`start_options`)."""
        r = self.round
        assert r is not None
        stock = r.stock
        options: list[DrawOption] = (
            [("stock", stock[-1] if stock else None, None)] if r.stock_count > 0 else []
        )
        pile = r.pile
        rules = self.rules
        if len(pile) < 2 or (rules.pile_needs_combo and r.throw_size < 2):
            return options
        previous = pile[-2]
        cards = previous.cards
        for i in self._takeable(previous):  # each card once (two decks: two alike)
            card = cards[i]
            if card is not None and ("pile", card, None) not in options:
                options.append(("pile", card, None))
        meld = previous.meld
        if rules.joker_swap and meld is not None and meld.kind == "run":
            hand = r.hands.get(r.current, [])
            for i, natural in enumerate(meld.stands_for):
                if natural is not None and natural in hand and i < len(cards):
                    joker = cards[i]
                    if joker is not None:
                        options.append(("pile", joker, natural))
        return options

    def slap_moves(self) -> list[Move]:
        """After a draw: the slap of the card just drawn, if ``slap_down`` allows it (it
        extends the throw just made and does not empty the hand); passing is no event."""
        r = self.round
        assert r is not None
        rules = self.rules
        card = r.last_drawn
        if (
            rules.slap_down
            and r.drew_from_stock
            and card is not None
            and len(r.hands.get(r.current, ())) > 1
            and r.pile[-1].meld is not None
            and extend(r.pile[-1].meld, card, rules) is not None
        ):
            return [Move("slap", r.current, card=card)]
        return []

    def up(self) -> str | None:
        """Who moves next in the round under way: after a draw the turn is over, and the next
        player still in opens theirs (the drawer may still slap first); None between rounds."""
        r = self.round
        if r is None or r.ended or r.closed or not r.moves_checked or self.winners is not None:
            return None
        if r.phase != DREW:
            return r.current
        return r.next_seat.get(r.current) or self._next_player(r, r.current)

    def next_moves(self, throws: int | None = None) -> list[Move]:
        """Every legal move that may come next: :meth:`legal_moves`, and after a draw (when the
        turn has passed) the next player's Yaniv and throws too, which a recorder offers.
        With ``throws``, a player's throws stop after that many (the work is bounded)."""
        moves = self.legal_moves(throws)
        r = self.round
        up = self.up()
        if r is not None and r.phase == DREW and up is not None:
            moves += self.start_moves(up, throws)
        return moves

    @cached_property
    def _find_throws(self) -> Callable[[Sequence[Card]], list[tuple[Card, ...]]]:
        """:func:`~yaniv_audit.core.melds.legal_throws` under this replay's rules, their tables
        looked up once (a bot asks at every turn)."""
        return throws_finder(self.rules)

    # --- views -------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready view of the state now (for the terminal and web viewers)."""
        r = self.round
        view: dict[str, Any] = {
            "scores": dict(self.scores),
            "out": list(self.out),
            "winners": list(self.winners) if self.winners else [],
            "round": None,
        }
        if r is not None:
            view["round"] = {
                "round": r.number,
                "moves_checked": r.moves_checked,
                "turn": self.up() or r.current,  # after a draw, the turn has passed
                "phase": ("start", "threw", "drew")[r.phase],
                "hands": {p: format_cards(h).split() for p, h in r.hands.items()},
                "totals": {p: self._total(h) for p, h in r.hands.items()},
                "pile": [layer.text().split() for layer in r.pile],
                "stock": r.stock_count,
                "ended": r.ended,
            }
        return view
