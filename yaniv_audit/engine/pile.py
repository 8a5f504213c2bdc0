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

from ..cards import JACK, JOKER, RANK, Card, format_cards
from ..errors import LogFormatError
from ..events import Draw, Reshuffle
from ..melds import Meld, classify
from .base import ReplayBase
from .state import DREW, THREW, Layer, RoundState


class PileAndStock(ReplayBase):
    """The draws from the stock and the pile, and what happens when the stock runs out."""

    # --- the draws ---------------------------------------------------------

    def _draw(self, event: Draw) -> None:
        r = self._move_round(event)
        if r is None:
            return
        had_throw = r.phase == THREW and event.player == r.current
        if not had_throw:
            self._enter(r, event)
        if event.source == "stock":
            if event.swap is not None:
                self._violation(event, "draw.swap", event.player,
                                f"{event.player} drew from the stock and swapped "
                                f"{format_cards([event.swap])}; a joker swap takes the joker from "
                                "the pile in place of the draw, so it is not made with a stock "
                                "draw (the swap does not count)")
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
            self._impossible(event, "stock.empty", p, f"{p} drew from an empty stock")
        if r.stock is not None:
            top = r.stock[-1]
            if event.card is not None and event.card != top:
                self._check_in_deck(event, event.card, p)
                self._impossible(event, "stock.mismatch", p,
                                 f"{p} drew {format_cards([event.card])} from the stock, but its "
                                 f"top card is {format_cards([top])}")
            card = r.stock.pop()
        else:
            if event.card is None:
                if r.stock_lost_by_replay:
                    self._impossible(event, "stock.mismatch", p,
                                     f"{p} drew from the stock without naming the card, and the "
                                     "stock's order is unknown to this replay")
                raise LogFormatError(
                    "draw: field \"card\": required, the order of the stock is not recorded "
                    "at this point (no stock in round_started or reshuffle)",
                    line=event.line, index=event.index,
                    messages={"card": ["required: the stock's order is unknown here"]})
            card = event.card
            if r.seen[card] >= self.counts[card]:
                self._check_in_deck(event, card, p)
                where = self._where_is(r, card)
                self._impossible(event, "card.already_seen", p,
                                 f"{p} drew {format_cards([card])} from the stock, but {where}")
        r.seen[card] += 1
        r.stock_count -= 1
        if r.stock_count == 0:
            r.exhaust_pending = True
        return card

    def _where_is(self, r: RoundState, card: Card) -> str:
        holders = [p for p, h in r.hands.items() if card in h]
        name = format_cards([card])
        if holders:
            return f"{', '.join(holders)} {'holds' if len(holders) == 1 else 'hold'} {name}"
        for layer in reversed(r.pile):
            if card in layer.cards:
                return f"{name} lies on the pile (in {layer.text()})"
        if r.stock is not None and card in r.stock:
            return f"{name} is in the stock"
        return f"every {name} of the deck is accounted for"

    def _draw_pile(self, r: RoundState, event: Draw, had_throw: bool) -> Card:
        p = event.player
        rules = self.rules
        card = event.card
        assert card is not None
        pile = r.pile
        own = pile[-1] if had_throw else None
        previous = pile[-2] if had_throw and len(pile) >= 2 else (None if had_throw else pile[-1])
        if rules.pile_needs_combo and r.throw_size < 2:
            self._violation(event, "draw.pile_needs_combo", p,
                            f"{p} drew from the pile after throwing {r.throw_size} card"
                            f"{'' if r.throw_size == 1 else 's'} (pile_needs_combo=true)")
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
                self._violation(event, "draw.pile_card", p, self._pickup_message(
                    p, card, previous))
            previous.cards.pop((good or positions)[0])
            return card
        if previous is not None and None in previous.cards:
            self._check_in_deck(event, card, p)
            if r.seen[card] >= self.counts[card] or (r.stock is not None and card in r.stock):
                self._impossible(event, "card.already_seen", p,
                                 f"{p} took {format_cards([card])} as the upcard, but "
                                 f"{self._where_is(r, card)}")
            previous.cards.remove(None)
            r.seen[card] += 1
            return card
        if own is not None and card in own.cards:
            self._violation(event, "draw.pile_card", p,
                            f"{p} took {format_cards([card])} back from their own throw; a draw "
                            "comes from the previous player's throw")
            own.cards.remove(card)
            return card
        for layer in reversed(pile):
            if card in layer.cards:
                self._violation(event, "draw.pile_card", p,
                                f"{p} took {format_cards([card])} from an older throw "
                                f"({layer.text()}); only the previous throw "
                                f"({previous.text() if previous else 'none'}) may be taken from")
                layer.cards.remove(card)
                return card
        name = format_cards([card])
        self._check_in_deck(event, card, p)
        bottom = pile[0] if pile and previous is not pile[0] else None
        if bottom is not None and None in bottom.cards and r.seen[card] < self.counts[card] and (
                r.stock is None or card not in r.stock):
            # the unrecorded upcard lies under later throws: on the pile, but not takeable
            self._violation(event, "draw.pile_card", p,
                            f"{p} took {name} as the upcard from under a later throw "
                            f"({pile[1].text()}); only the previous throw "
                            f"({previous.text() if previous else 'none'}) may be taken from")
            bottom.cards.remove(None)
            r.seen[card] += 1
            return card
        if r.upcard_deduced and previous is pile[0]:
            self._impossible(event, "card.already_seen", p,
                             f"{p} took {name} as the upcard, but {self._where_is(r, card)}; "
                             f"the upcard is {previous.text() or 'already taken'}, the one card "
                             "in no hand and not in the stock")
        self._impossible(event, "card.not_on_pile", p,
                         f"{p} took {name} from the pile, but it is not there: "
                         f"{self._where_is(r, card)} ({self._previous_text(previous)})")
        raise AssertionError("unreachable")

    @staticmethod
    def _previous_text(previous: Layer | None) -> str:
        if previous is None:
            return "there is no previous throw"
        if not previous.cards:
            return "nothing is left of the previous throw"
        return f"the previous throw is {previous.text()}"

    def _takeable(self, layer: Layer) -> set[int]:
        n = len(layer.cards)
        pickup = self.rules.pickup
        if pickup == "any" or n <= 2:
            return set(range(n))
        if pickup == "ends_of_runs" and layer.meld is not None and layer.meld.kind == "set":
            return set(range(n))
        return {0, n - 1}

    def _pickup_message(self, player: str, card: Card, layer: Layer) -> str:
        allowed = self._takeable(layer)
        ends = [c for i, c in enumerate(layer.cards) if i in allowed and c is not None]
        return (f"{player} took {format_cards([card])} from the middle of {layer.text()}; only "
                f"{' or '.join(format_cards([c]) for c in dict.fromkeys(ends))} may be taken "
                f"(pickup={self.rules.pickup})")

    def _joker_swap(self, r: RoundState, event: Draw, previous: Layer | None) -> Card:
        p = event.player
        card, swap = event.card, event.swap
        assert card is not None and swap is not None
        self._take_from_hand(event, p, [swap])
        target = previous if previous is not None and card in previous.cards else None
        if target is None:
            older = next((layer for layer in reversed(r.pile)
                          if layer is not previous and card in layer.cards), None)
            if older is None:
                r.hands[p].append(swap)
                self._impossible(event, "card.not_on_pile", p,
                                 f"{p} swapped {format_cards([swap])} for {format_cards([card])}, "
                                 f"but it is not on the pile: {self._where_is(r, card)} "
                                 f"({self._previous_text(previous)})")
            assert older is not None
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])} of "
                            f"an older throw ({older.text()}); a swap takes the joker from the "
                            f"previous throw only ({self._previous_text(previous)})")
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
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])}, "
                            "but joker_swap=false")
        elif position is None:
            wild = card == JOKER or (self.rules.wild_jacks and RANK[card] == JACK)
            reason = ("it is not a joker" if not wild else
                      f"it does not stand for {format_cards([swap])} in {target.text()}")
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])}: "
                            f"{reason}")
        if position is None:
            position = target.cards.index(card)
        target.cards[position] = swap
        new_meld = classify([c for c in target.cards if c is not None], self.rules)
        target.meld = new_meld if isinstance(new_meld, Meld) else None
        return card

    # --- the stock runs out ------------------------------------------------

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
        r.pile = r.pile[-1:]
        cards = [c for layer in old for c in layer.cards if c is not None]
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
            if (min(extra.values(), default=0) < 0 or len(named) != unknown
                    or any(seen[c] >= self.counts[c] for c in named)):
                self._check_counts(event, Counter(event.stock), "the reshuffled stock")
                pile = format_cards(sorted(cards)) or "no card"
                if unknown:
                    pile += " and the unrecorded upcard"
                self._impossible(event, "stock.mismatch", None,
                                 f"the reshuffled stock ({format_cards(event.stock)}) is not the "
                                 f"pile below the last throw ({pile})")
            r.stock = list(reversed(event.stock))

    def _reshuffle(self, event: Reshuffle) -> None:
        if self._game_over(event):
            return
        r = self.round
        assert r is not None
        if self.rules.reshuffle == "round_ends":
            self._violation(event, "reshuffle.not_allowed", None,
                            "the pile was reshuffled, but reshuffle=round_ends: the round ends "
                            "when the stock runs out")
        elif r.ended or r.closed:
            self._violation(event, "reshuffle.not_allowed", None,
                            f"the pile was reshuffled after round {r.number} was over; a "
                            "reshuffle comes only when the stock runs out during play")
        elif not r.exhaust_pending:
            self._violation(event, "reshuffle.not_allowed", None,
                            f"the pile was reshuffled while the stock still held "
                            f"{r.stock_count} card{'' if r.stock_count == 1 else 's'}")
        else:
            self._exhaust(event)
            return
        if event.stock is not None:
            r.stock_lost_by_replay = True

