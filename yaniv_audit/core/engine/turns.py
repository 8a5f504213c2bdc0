"""Turns and their order; the throws.

A turn is a throw (``discard``) then a draw, and after a stock draw perhaps a
slap. :meth:`Turns._enter` settles whose turn a move is and in which phase
(``START``, ``THREW``, ``DREW``), reporting moves out of turn, turns without a draw
and Yaniv calls out of place; the usual case, the next seat opening its turn, is
one comparison. ``discard`` and ``slap`` put cards from the hand on the pile.
"""

from __future__ import annotations

from typing import Any

from ..cards import NAMES
from ..events import Discard, Draw, Event, Slap, Yaniv
from ..melds import SINGLES, Meld, classify, explain, extend
from ..messages import names, phrase, rule_of
from ..scoring import seat_after
from .base import ReplayBase
from .state import DREW, START, THREW, Layer, RoundState


class Turns(ReplayBase):
    """Whose turn it is, its phases, and the throws that put cards on the pile."""

    def _move_round(self, event: Event) -> RoundState | None:
        """The round a move belongs to, or None when it is not replayed."""
        r = self.round
        if (
            self.winners is None
            and r is not None
            and not (r.exhaust_pending or r.ended or r.closed)
        ):
            if self.out:
                player = getattr(event, "player", None)
                if player in self.out and player in r.rotation:
                    self._player_out(event, player)
            return r  # the usual case
        return self._move_round_slow(event)

    def _move_round_slow(self, event: Event) -> RoundState | None:
        if self._game_over(event):
            return None
        r = self.round
        assert r is not None
        if r.exhaust_pending and not (isinstance(event, Slap) and r.phase == DREW):
            self._exhaust(None)
            if self._game_over(event):  # the stock's end decided the game
                return None
        if r.ended or r.closed:
            if not r.gap_reported:
                r.gap_reported = True
                self._violation(
                    event,
                    "turn.order",
                    getattr(event, "player", None),
                    case="round_over",
                    round=r.number,
                )
            return None
        if self.out:
            player = getattr(event, "player", None)
            if player in self.out and player in r.rotation:
                self._player_out(event, player)
        return r

    def _advance(self, r: RoundState) -> None:
        r.current = r.next_seat.get(r.current) or self._next_player(r, r.current)
        r.phase = START
        r.throw_size = 0
        r.drew_from_stock = False
        r.last_drawn = None

    def _next_player(self, r: RoundState, player: str) -> str:
        following = r.next_seat.get(player)
        if following is None:
            playing = [p for p in r.rotation if p not in self.out]
            following = r.next_seat[player] = (
                seat_after(self.seating, playing, player) if playing else player
            )
        return following

    def _enter(self, r: RoundState, event: Discard | Draw | Yaniv) -> None:
        """Settle whose turn ``event`` is (a slap never settles one: it takes, ends and
        passes no turn)."""
        p = event.player
        kind = type(event)
        phase = r.phase
        if phase == START and p == r.current and kind is not Draw:
            return  # the usual case: a turn opens with its player's throw or call
        if phase == THREW:
            if p == r.current:
                if kind is Draw:
                    return
                if kind is Yaniv:
                    self._violation(event, "yaniv.timing", p, player=p, after="throwing")
                    return
            # the turn ends without its draw; a second throw by the same player is out of turn
            self._no_draw(r, event)
            self._advance(r)
        elif phase == DREW:
            if p == r.current and kind is Yaniv:
                self._violation(event, "yaniv.timing", p, player=p, after="drawing")
                return
            self._advance(r)
        if p != r.current:
            if not (p in self.out and p in r.rotation):  # else covered by player.out
                self._violation(event, "turn.order", p, case="turn", player=p, expected=r.current)
            r.current = p
        if kind is Draw:
            self._violation(event, "turn.no_throw", p, player=p)

    def _no_draw(self, r: RoundState, event: Event) -> None:
        self._violation(
            event,
            "turn.no_draw",
            r.current,
            player=r.current,
            cards=names(r.pile[-1].cards) if r.pile else [],
        )

    def _discard(self, event: Discard) -> None:
        r = self.round
        if (
            r is None
            or self.winners is not None
            or self.out
            or r.exhaust_pending
            or r.ended
            or r.closed
        ):  # else _move_round's usual case, inline: r is the round
            r = self._move_round(event)
            if r is None:
                return
        p = event.player
        if r.phase == DREW and p != r.current and p == r.next_seat.get(r.current):
            r.current = p  # the usual case: the next player opens their turn
            r.phase = START
            r.throw_size = 0
            r.drew_from_stock = False
            r.last_drawn = None
        else:
            self._enter(r, event)
        cards = event.cards
        hand = r.hands.get(p)
        meld: Meld | None
        if len(cards) == 1 and hand is not None and cards[0] in hand:
            hand.remove(cards[0])  # _take_from_hand's usual case, inline
            meld = SINGLES[cards[0]]  # classify's answer for a card (a card held is one)
        else:
            self._take_from_hand(event, p, cards)
            reading = classify(cards, self.rules)
            meld = reading if isinstance(reading, Meld) else None
        if meld is None:
            why = explain(cards, self.rules)
            self._violation(
                event,
                "discard.combo",
                p,
                player=p,
                cards=names(cards),
                reading=why,
                rule=rule_of(why),
            )
        r.pile.append(Layer(p, list(cards), meld))
        r.phase = THREW
        r.throw_size = len(cards)

    def _slap(self, event: Slap) -> None:
        r = self._move_round(event)
        if r is None:
            return
        p = event.player
        card = event.card
        rules = self.rules
        own = r.phase == DREW and p == r.current  # right after the slapper's own draw
        if rules.slap_down and own and r.drew_from_stock and card == r.last_drawn:
            self._take_from_hand(event, p, [card])
            top = r.pile[-1]
            joined = extend(top.meld, card, rules) if top.meld is not None else None
            if joined is None:
                self._violation(
                    event,
                    "slap.no_match",
                    p,
                    player=p,
                    card=NAMES[card],
                    layer=names(top.cards),
                    rule=self._rule("set_max", "run_max"),
                )
            if not r.hands[p]:
                self._violation(event, "slap.empties_hand", p, player=p)
            if joined is not None:
                top.cards = list(joined.cards)
                top.meld = joined
            else:
                top.cards.append(card)
            r.drew_from_stock = False  # one slap a draw
            r.last_drawn = None
        else:  # refused, it changes nothing else: the card just drawn may still be slapped
            self._slap_not_allowed(r, event, own)

    def _slap_not_allowed(self, r: RoundState, event: Slap, own: bool) -> None:
        """A slap that is not allowed: one ``slap.not_allowed`` naming every reason, and
        nothing else checked of it. Its card leaves the hand for the pile beneath the throw
        on top, where nobody may take it; the turn stays whoever's it was."""
        p = event.player
        card = NAMES[event.card]
        reasons = []
        if not self.rules.slap_down:
            reasons.append("slap_down")
        if not own:
            reasons.append("before_draw" if r.phase == THREW and p == r.current else "out_of_turn")
        elif not r.drew_from_stock:
            reasons.append("no_stock_draw")
        drawn = NAMES[r.last_drawn] if r.last_drawn is not None else None
        if own and event.card != r.last_drawn:
            reasons.append("not_drawn")
        if len(reasons) > 1:
            self._violation(
                event,
                "slap.not_allowed",
                p,
                case="reasons",
                player=p,
                card=card,
                reasons=[self._slap_reason(why, drawn) for why in reasons],
                rule=self._rule("slap_down"),
            )
        elif reasons == ["before_draw"]:
            self._violation(event, "slap.not_allowed", p, case="before_draw", player=p)
        elif reasons == ["out_of_turn"]:
            self._violation(event, "slap.not_allowed", p, case="out_of_turn", player=p, card=card)
        elif reasons == ["not_drawn"]:
            self._violation(
                event, "slap.not_allowed", p, case="not_drawn", player=p, card=card, drawn=drawn
            )
        else:  # slap_down or no_stock_draw
            self._violation(
                event,
                "slap.not_allowed",
                p,
                case=reasons[0],
                player=p,
                card=card,
                rule=self._rule("slap_down"),
            )
        self._take_from_hand(event, p, [event.card])
        r.buried.append(event.card)

    def _slap_reason(self, why: str, drawn: str | None) -> dict[str, Any]:
        """One reason a slap is not allowed, as a phrase param."""
        if why == "slap_down":
            return phrase("slap:slap_down", rule=self._rule("slap_down"))
        if why == "not_drawn":
            return phrase("slap:not_drawn", drawn=drawn)
        return phrase(f"slap:{why}")
