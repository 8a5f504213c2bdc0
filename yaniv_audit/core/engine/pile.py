"""The pile, the stock and the stock running out.

The draws: from the stock (its top card when its order is known, otherwise the
card the log names, which must still be unseen) and from the pile (the previous
throw's cards the ``pickup`` rule allows, the unrecorded upcard, joker swaps).
When the stock's last card is drawn the round ends under ``reshuffle=round_ends``
or the pile below the last throw becomes the stock (``reshuffle`` checks a
recorded one against it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..cards import JACK, JOKER, NAMES, RANK, Card
from ..errors import LogFormatError
from ..events import Draw, Reshuffle
from ..melds import Meld, classify
from ..messages import names, phrase
from .base import ReplayBase
from .state import DREW, THREW, Layer, RoundState


class PileAndStock(ReplayBase):
    """The draws from the stock and the pile, and what happens when the stock runs out."""

    # --- the draws ---------------------------------------------------------

    def _draw(self, event: Draw) -> None:
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
        had_throw = r.phase == THREW and event.player == r.current
        if not had_throw:
            self._enter(r, event)
        if event.source == "stock":
            if event.swap is not None:
                self._violation(
                    event,
                    "draw.swap",
                    event.player,
                    case="stock",
                    player=event.player,
                    swap=NAMES[event.swap],
                )
            stock = r.stock
            if stock and r.stock_count > 1 and (event.card is None or event.card == stock[-1]):
                card = stock.pop()  # _draw_stock's usual case, inline: the stock does not end
                r.seen[card] += 1
                r.stock_count -= 1
            else:
                card = self._draw_stock(r, event)
            r.drew_from_stock = True
        else:
            card = self._draw_pile(r, event, had_throw)
            r.drew_from_stock = False
        r.hands.setdefault(event.player, []).append(card)
        r.last_drawn = card
        r.phase = DREW

    def _draw_stock(self, r: RoundState, event: Draw) -> Card:
        p = event.player
        if r.stock_count <= 0:
            self._impossible(event, "stock.empty", p, player=p)
        if r.stock is not None:
            top = r.stock[-1]
            if event.card is not None and event.card != top:
                self._check_in_deck(event, event.card, p)
                self._impossible(
                    event,
                    "stock.mismatch",
                    p,
                    case="top",
                    player=p,
                    card=NAMES[event.card],
                    top=NAMES[top],
                )
            card = r.stock.pop()
        else:
            if event.card is None:
                if r.stock_lost_by_replay:
                    self._impossible(event, "stock.mismatch", p, case="unnamed", player=p)
                raise LogFormatError(
                    'draw: field "card": required, the order of the stock is not recorded '
                    "at this point (no stock in round_started or reshuffle)",
                    line=event.line,
                    index=event.index,
                    messages={"card": ["required: the stock's order is unknown here"]},
                )
            card = event.card
            if r.seen[card] >= self.counts[card]:
                self._check_in_deck(event, card, p)
                self._impossible(
                    event,
                    "card.already_seen",
                    p,
                    case="stock",
                    player=p,
                    card=NAMES[card],
                    where=self._where_is(r, card),
                )
        r.seen[card] += 1
        r.stock_count -= 1
        if r.stock_count == 0:
            r.exhaust_pending = True
        return card

    def _where_is(self, r: RoundState, card: Card) -> dict[str, Any]:
        """Where ``card`` is, as a phrase param: who holds it, the throw it lies in, ..."""
        holders = [p for p, h in r.hands.items() if card in h]
        name = NAMES[card]
        if holders:
            return phrase("where:held", players=holders, card=name)
        for layer in reversed(r.pile):
            if card in layer.cards:
                return phrase("where:pile", card=name, layer=names(layer.cards))
        if r.stock is not None and card in r.stock:
            return phrase("where:stock", card=name)
        return phrase("where:accounted", card=name)

    def _draw_pile(self, r: RoundState, event: Draw, had_throw: bool) -> Card:
        p = event.player
        rules = self.rules
        card = event.card
        assert card is not None
        pile = r.pile
        own = pile[-1] if had_throw else None
        previous = pile[-2] if had_throw and len(pile) >= 2 else (None if had_throw else pile[-1])
        if rules.pile_needs_combo and r.throw_size < 2:
            self._violation(
                event,
                "draw.pile_needs_combo",
                p,
                player=p,
                thrown=r.throw_size,
                rule=self._rule("pile_needs_combo"),
            )
        if event.swap is not None:
            return self._joker_swap(r, event, previous)
        if previous is not None and card in previous.cards:
            first = previous.cards.index(card)
            if first == 0 or first == len(previous.cards) - 1:  # an end: takeable under any pickup
                previous.cards.pop(first)
                return card
            positions = [i for i, c in enumerate(previous.cards) if c == card]
            allowed = self._takeable(previous)
            good = [i for i in positions if i in allowed]
            if not good:
                self._violation(
                    event, "draw.pile_card", p, **self._pickup_params(p, card, previous)
                )
            previous.cards.pop((good or positions)[0])
            return card
        if previous is not None and None in previous.cards:
            self._check_in_deck(event, card, p)
            if r.seen[card] >= self.counts[card] or (r.stock is not None and card in r.stock):
                self._impossible(
                    event,
                    "card.already_seen",
                    p,
                    case="upcard",
                    player=p,
                    card=NAMES[card],
                    where=self._where_is(r, card),
                )
            previous.cards.remove(None)
            r.seen[card] += 1
            return card
        if own is not None and card in own.cards:
            self._violation(event, "draw.pile_card", p, case="own", player=p, card=NAMES[card])
            own.cards.remove(card)
            return card
        for layer in reversed(pile):
            if card in layer.cards:
                self._violation(
                    event,
                    "draw.pile_card",
                    p,
                    case="older",
                    player=p,
                    card=NAMES[card],
                    layer=names(layer.cards),
                    previous=names(previous.cards) if previous else None,
                )
                layer.cards.remove(card)
                return card
        if r.buried and card in r.buried:  # on the pile, beneath a throw: not takeable
            self._violation(
                event,
                "draw.pile_card",
                p,
                case="slapped",
                player=p,
                card=NAMES[card],
                previous=names(previous.cards) if previous else None,
            )
            r.buried.remove(card)
            return card
        name = NAMES[card]
        self._check_in_deck(event, card, p)
        bottom = pile[0] if pile and previous is not pile[0] else None
        if (
            bottom is not None
            and None in bottom.cards
            and r.seen[card] < self.counts[card]
            and (r.stock is None or card not in r.stock)
        ):
            # the unrecorded upcard lies under later throws: on the pile, but not takeable
            self._violation(
                event,
                "draw.pile_card",
                p,
                case="under",
                player=p,
                card=name,
                layer=names(pile[1].cards),
                previous=names(previous.cards) if previous else None,
            )
            bottom.cards.remove(None)
            r.seen[card] += 1
            return card
        if r.upcard_deduced and previous is pile[0]:
            self._impossible(
                event,
                "card.already_seen",
                p,
                case="deduced",
                player=p,
                card=name,
                where=self._where_is(r, card),
                upcard=names(previous.cards),
            )
        self._impossible(
            event,
            "card.not_on_pile",
            p,
            case="take",
            player=p,
            card=name,
            where=self._where_is(r, card),
            previous=self._previous(previous),
        )
        raise AssertionError("unreachable")

    @staticmethod
    def _previous(previous: Layer | None) -> dict[str, Any]:
        """The previous throw, as a phrase param."""
        if previous is None:
            return phrase("previous:none")
        if not previous.cards:
            return phrase("previous:empty")
        return phrase("previous:is", cards=names(previous.cards))

    def _takeable(self, layer: Layer) -> Sequence[int]:
        """The positions of ``layer`` the next player may take, in order."""
        n = len(layer.cards)
        pickup = self.rules.pickup
        if pickup == "any" or n <= 2:
            return range(n)
        if pickup == "ends_of_runs" and layer.meld is not None and layer.meld.kind == "set":
            return range(n)
        return (0, n - 1)

    def _pickup_params(self, player: str, card: Card, layer: Layer) -> dict[str, Any]:
        allowed = self._takeable(layer)
        ends = [c for i, c in enumerate(layer.cards) if i in allowed and c is not None]
        return {
            "case": "middle",
            "player": player,
            "card": NAMES[card],
            "layer": names(layer.cards),
            "ends": names([*dict.fromkeys(ends)]),
            "rule": self._rule("pickup"),
        }

    def _joker_swap(self, r: RoundState, event: Draw, previous: Layer | None) -> Card:
        p = event.player
        card, swap = event.card, event.swap
        assert card is not None and swap is not None
        self._take_from_hand(event, p, [swap])
        target = previous if previous is not None and card in previous.cards else None
        if target is None:
            older = next(
                (
                    layer
                    for layer in reversed(r.pile)
                    if layer is not previous and card in layer.cards
                ),
                None,
            )
            if older is None:
                r.hands[p].append(swap)
                self._impossible(
                    event,
                    "card.not_on_pile",
                    p,
                    case="swap",
                    player=p,
                    swap=NAMES[swap],
                    card=NAMES[card],
                    where=self._where_is(r, card),
                    previous=self._previous(previous),
                )
            assert older is not None
            self._violation(
                event,
                "draw.swap",
                p,
                case="older",
                player=p,
                swap=NAMES[swap],
                card=NAMES[card],
                layer=names(older.cards),
                previous=self._previous(previous),
            )
            older.cards[older.cards.index(card)] = swap
            reading = classify([c for c in older.cards if c is not None], self.rules)
            older.meld = reading if isinstance(reading, Meld) else None
            return card
        meld = target.meld
        position = None
        if meld is not None and meld.kind == "run":
            for i, c in enumerate(target.cards):
                if c == card and meld.stands_for[i] == swap:
                    position = i
                    break
        if not self.rules.joker_swap:
            self._violation(
                event,
                "draw.swap",
                p,
                case="joker_swap",
                player=p,
                swap=NAMES[swap],
                card=NAMES[card],
                rule=self._rule("joker_swap"),
            )
        elif position is None:
            wild = card == JOKER or (self.rules.wild_jacks and RANK[card] == JACK)
            self._violation(
                event,
                "draw.swap",
                p,
                case="not_standing" if wild else "not_joker",
                player=p,
                swap=NAMES[swap],
                card=NAMES[card],
                layer=names(target.cards),
                rule=self._rule("wild_jacks"),
            )
        if position is None:
            position = target.cards.index(card)
        target.cards[position] = swap
        new_meld = classify([c for c in target.cards if c is not None], self.rules)
        target.meld = new_meld if isinstance(new_meld, Meld) else None
        return card

    # --- the stock runs out ------------------------------------------------

    def reshuffle_due(self) -> list[Card] | None:
        """The cards a reshuffle makes the new stock now, or None when none is due.

        A reshuffle is due once the stock's last card was drawn under
        ``reshuffle=keep_last_throw`` (a slap by the player who drew it may still come
        first); its cards are the pile below the last throw, in the order they lie (the
        simulator shuffles them into the ``reshuffle`` it writes, and ``_exhaust`` checks a
        recorded one against them).
        """
        r = self.round
        if r is None or not r.exhaust_pending or self.rules.reshuffle != "keep_last_throw":
            return None
        return _below_top(r)

    def _end_pending_exhaustion(self) -> None:
        """The stock ran out in the last turn: under round_ends that turn ended the round."""
        r = self.round
        if r is not None and r.exhaust_pending and not r.ended and self.winners is None:
            self._exhaust(None)

    def _exhaust(self, event: Reshuffle | None) -> None:
        """The stock's last card was drawn and the turn is over."""
        r = self.round
        assert r is not None
        r.exhaust_pending = False
        if self.rules.reshuffle == "round_ends":
            totals = {p: self._total(r.hands.get(p, [])) for p in r.rotation}
            self._score(r, event, None, totals, "stock")
            return
        old = r.pile[:-1]
        cards = _below_top(r)
        r.pile = r.pile[-1:]
        r.buried = []
        # an upcard nobody recorded or drew lies there all the same
        unknown = sum(layer.cards.count(None) for layer in old)
        seen = r.seen
        for c in cards:
            seen[c] -= 1
        r.stock_count = len(cards) + unknown
        r.stock = None
        if event is not None and event.stock is not None:
            extra = Counter(event.stock)
            extra.subtract(cards)
            named = list(extra.elements())  # the cards that must be the unrecorded upcard
            if (
                min(extra.values(), default=0) < 0
                or len(named) != unknown
                or any(seen[c] >= self.counts[c] for c in named)
            ):
                self._check_counts(event, Counter(event.stock), "reshuffled stock")
                self._impossible(
                    event,
                    "stock.mismatch",
                    None,
                    case="reshuffle_upcard" if unknown else "reshuffle",
                    stock=names(event.stock),
                    pile=names(sorted(cards)),
                )
            r.stock = list(reversed(event.stock))

    def _reshuffle(self, event: Reshuffle) -> None:
        if self._game_over(event):
            return
        r = self.round
        assert r is not None
        if self.rules.reshuffle == "round_ends":
            self._violation(
                event,
                "reshuffle.not_allowed",
                None,
                case="round_ends",
                rule=self._rule("reshuffle"),
            )
        elif r.ended or r.closed:
            self._violation(event, "reshuffle.not_allowed", None, case="round_over", round=r.number)
        elif not r.exhaust_pending:
            self._violation(
                event,
                "reshuffle.not_allowed",
                None,
                case="stock_left",
                stock=r.stock_count,
                rule=self._rule("reshuffle"),
            )
        else:
            self._exhaust(event)
            return
        if event.stock is not None:
            r.stock_lost_by_replay = True


def _below_top(r: RoundState) -> list[Card]:
    """The known cards of the pile below its last throw: what a reshuffle makes the stock."""
    return [*r.buried, *(c for layer in r.pile[:-1] for c in layer.cards if c is not None)]
