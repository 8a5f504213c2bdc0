"""The legal-move generator and the viewers' snapshot.

:meth:`LegalMoves.legal_moves` lists every move the player whose turn it is may
make now, in a fixed order (the bots choose from it, and tests hold the
simulator's own generator to it); :meth:`LegalMoves.snapshot` is the state as
the terminal and web viewers show it.
"""

from __future__ import annotations

from typing import Any

from ..cards import format_cards
from ..melds import extend, legal_throws
from .base import ReplayBase
from .state import DREW, START, THREW, Move


class LegalMoves(ReplayBase):
    """The legal moves of the player whose turn it is, and a view of the state."""

    # --- the legal-move generator ----------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every move the player whose turn it is may make now (bots and tests use it).

        At the start of a turn: Yaniv (if the hand allows) and every legal
        throw; after a throw: every legal draw; after a stock draw: the slaps
        that are allowed (passing is always allowed then, and is no event).
        """
        r = self.round
        if r is None or r.ended or r.closed or not r.moves_checked or self.winners is not None:
            return []
        p = r.current
        hand = r.hands.get(p, [])
        rules = self.rules
        if r.phase == START:
            return self.start_moves(p)
        if r.phase == THREW:
            moves = []
            if r.stock_count > 0:
                top = r.stock[-1] if r.stock else None
                moves.append(Move("draw", p, source="stock", card=top))
            previous = r.pile[-2] if len(r.pile) >= 2 else None
            if previous is None or (rules.pile_needs_combo and r.throw_size < 2):
                return moves
            allowed = self._takeable(previous)
            for i in sorted(allowed):
                card = previous.cards[i] if i < len(previous.cards) else None
                if card is not None:
                    move = Move("draw", p, source="pile", card=card)
                    if move not in moves:
                        moves.append(move)
            meld = previous.meld
            if rules.joker_swap and meld is not None and meld.kind == "run":
                for i, natural in enumerate(meld.stands_for):
                    if natural is not None and natural in hand and i < len(previous.cards):
                        joker = previous.cards[i]
                        if joker is not None:
                            moves.append(Move("draw", p, source="pile", card=joker, swap=natural))
            return moves
        if (rules.slap_down and r.drew_from_stock and r.last_drawn is not None
                and len(hand) > 1 and r.pile[-1].meld is not None
                and extend(r.pile[-1].meld, r.last_drawn, rules) is not None):
            return [Move("slap", p, card=r.last_drawn)]
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

    def next_moves(self) -> list[Move]:
        """Every legal move that may come next: :meth:`legal_moves`, and after a draw (when the
        turn has passed) the next player's Yaniv and throws too, which a recorder offers."""
        moves = self.legal_moves()
        r = self.round
        up = self.up()
        if r is not None and r.phase == DREW and up is not None:
            moves += self.start_moves(up)
        return moves

    def start_moves(self, player: str) -> list[Move]:
        """What ``player`` may do at the start of their turn: Yaniv, or any legal throw."""
        hand = self.round.hands.get(player, []) if self.round else []
        moves = [Move("discard", player, t) for t in legal_throws(hand, self.rules)]
        if self._total(hand) <= self.rules.yaniv_max:
            moves.insert(0, Move("yaniv", player))
        return moves

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


