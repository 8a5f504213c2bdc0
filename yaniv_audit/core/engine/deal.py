"""The deal: ``round_started`` folded into a new round.

The hands, the upcard and the stock as recorded are checked against the deck
(hand sizes, copies of each card, and the whole deck card for card when the stock
is recorded); who opens is checked against the ``starter`` rule; a player who is
out but was dealt in is reported. The usual deal, hands, upcard and stock making
exactly the deck, is recognised with one comparison and skips the card-by-card
checks.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

from ..cards import Card
from ..events import RoundStarted
from ..messages import names
from ..scoring import next_starter, seat_after
from .base import ReplayBase
from .state import Layer, RoundRecord, RoundState


class Deal(ReplayBase):
    """The deal: the round it opens, checked against the deck and the starter rule."""

    def _round_started(self, event: RoundStarted) -> None:
        self._end_pending_exhaustion()
        if self._game_over(event):
            return
        previous = self.records[-1] if self.records else None
        still_in = self.still_in
        if event.hands is not None:
            rotation = [p for p in self.seating if p in event.hands]
        else:
            rotation = list(still_in)
        r = RoundState(event.round, event.starter, event.hands is not None, rotation)
        self.round = r
        self.records.append(
            RoundRecord(event.round, event.starter, r.moves_checked, scores=dict(self.scores))
        )
        if previous is not None:
            self._check_starter(event, previous, still_in)
        if event.hands is None:
            r.current = event.starter
            return
        rules = self.rules
        for p in rotation:
            if p in self.out:
                self._player_out(event, p)
        for p in still_in:
            dealt = len(event.hands.get(p, ()))
            if dealt != rules.hand_size:
                self._violation(
                    event, "deal.hand_size", p, player=p, dealt=dealt, rule=self._rule("hand_size")
                )
        upcard, stock = event.upcard, event.stock
        in_hands = [*chain.from_iterable(event.hands.values())]
        # the impossibilities code by code (docs/log-format.md): cards the deck does not
        # have, too many copies, a deal too big, then the deck card for card
        on_table: Counter[Card] | None = None
        if upcard is None or stock is None or sorted([*in_hands, upcard, *stock]) != self.deck:
            on_table = Counter(in_hands)
            if upcard is not None:
                on_table[upcard] += 1
            if stock is not None:
                on_table.update(stock)
            self._check_counts(event, on_table, "deal")
        # else the usual deal: hands, upcard and stock are the deck card for card, which
        # the checks of on_table would find (and the upcard is the one recorded)
        if len(rotation) * rules.hand_size + 1 > self.deck_size:
            self._impossible(
                event,
                "deal.too_big",
                None,
                hands=len(rotation),
                needed=len(rotation) * rules.hand_size + 1,
                deck=self.deck_size,
                rule=self._rule("hand_size", "decks", "jokers"),
            )
        if on_table is not None and stock is not None:
            upcard = self._check_whole_deck(event, on_table)
            r.upcard_deduced = event.upcard is None
        for p, cards in event.hands.items():
            r.hands[p] = list(cards)
        seen = r.seen
        for c in in_hands:
            seen[c] += 1
        if upcard is not None:
            seen[upcard] += 1
        r.pile.append(Layer(None, [upcard], None))
        if event.stock is not None:
            r.stock = list(reversed(event.stock))
            r.stock_count = len(event.stock)
        else:
            r.stock_count = max(self.deck_size - len(in_hands) - 1, 0)
        # the turn order among the dealt players still in, known now (others are looked up if
        # they move); a player who is out but dealt in (an online table deals everyone) is
        # skipped: their moves are that round's one player.out
        playing = [p for p in rotation if p not in self.out] if self.out else rotation
        r.next_seat = dict(zip(playing, playing[1:] + playing[:1], strict=True))
        # a starter who takes no part (not dealt in, or out) has no turn: the next player
        # who does opens
        starter = event.starter
        r.current = (
            starter
            if starter in r.next_seat or not playing
            else seat_after(self.seating, playing, starter)
        )

    def _check_whole_deck(self, event: RoundStarted, on_table: Counter[Card]) -> Card | None:
        """Recorded hands and stock leave exactly the upcard: the deck, card for card.

        Returns the upcard, deduced when it was not recorded.
        """
        counts = self.counts
        left = [c for c in range(len(counts)) for _ in range(counts[c] - on_table[c])]
        if event.upcard is None:
            if len(left) == 1:
                return left[0]
            case = "upcards_left" if left else "no_upcard_left"
        elif not left:
            return event.upcard
        else:
            case = "not_the_deck"
        self._impossible(
            event,
            "stock.mismatch",
            None,
            case=case,
            count=len(left),
            left=names(left),
            rule=self._rule("decks", "jokers"),
        )
        return None

    def _check_starter(
        self, event: RoundStarted, previous: RoundRecord, still_in: list[str]
    ) -> None:
        rules = self.rules
        if rules.starter == "free":
            return
        if rules.starter in ("round_winner", "caller") and previous.score is None:
            return
        winners = previous.score.winners if previous.score else ()
        caller = previous.caller if rules.starter == "caller" else None
        allowed = next_starter(rules, self.seating, still_in, winners, previous.starter, caller)
        if allowed is not None and event.starter not in allowed:
            self._violation(
                event,
                "deal.starter",
                event.starter,
                case="caller"
                if caller is not None
                else "round_winner"
                if rules.starter in ("round_winner", "caller")
                else "next",
                player=event.starter,
                round=event.round,
                allowed=sorted(allowed),
                last_round=previous.round,
                last_starter=previous.starter,
                winners=list(winners),
                caller=caller,
                rule=self._rule("starter"),
            )
