"""The end of a round: the Yaniv call, the showdown, the scoring.

A Yaniv call is checked against ``yaniv_max`` and the total the caller announced,
then the round is scored (:func:`~yaniv_audit.core.scoring.score_round`: Assaf,
penalties, reductions, who goes out) and the game may be decided. A showdown
ends a round whose moves were not recorded (a scoresheet round) or is checked
against the hands the replay holds.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain

from ..cards import hand_total
from ..events import Event, Showdown, Yaniv
from ..messages import names
from ..scoring import game_result, score_round
from .base import ReplayBase
from .state import DREW, RoundState


class RoundEnd(ReplayBase):
    """The Yaniv call, the showdown and the scoring of a round."""

    def _yaniv(self, event: Yaniv) -> None:
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
        if not r.moves_checked:
            r.announced = event.total
            r.caller = p
            return
        if r.phase == DREW and p != r.current and p == r.next_seat.get(r.current):
            self._advance(r)  # the usual case: the next player calls as their turn opens
        else:
            self._enter(r, event)
        self._call(r, event, p)

    def _call(self, r: RoundState, event: Event, caller: str) -> None:
        """End a replayed round by ``caller``'s Yaniv at ``event``."""
        hands, values = r.hands, self.values
        totals = {p: hand_total(hands.get(p, ()), values) for p in r.rotation}
        total = totals[caller] if caller in totals else hand_total(hands.get(caller, ()), values)
        if total > self.rules.yaniv_max:
            self._violation(
                event,
                "yaniv.threshold",
                caller,
                case="hand",
                player=caller,
                total=total,
                hand=names(r.hands.get(caller, [])),
                rule=self._rule("yaniv_max"),
            )
        if type(event) is Yaniv and event.total is not None and event.total != total:
            self._claim(
                event,
                "claim.yaniv_total",
                caller,
                case="hand",
                player=caller,
                announced=event.total,
                hand=names(r.hands.get(caller, [])),
                total=total,
            )
        self._score(r, event, caller, totals, "yaniv")

    # --- scoring the round -------------------------------------------------

    def _score(
        self,
        r: RoundState,
        event: Event | None,
        caller: str | None,
        totals: dict[str, int],
        end: str,
    ) -> None:
        r.ended = True
        r.end = end
        r.caller = caller
        players = [p for p in r.rotation if p not in self.out and p in totals]
        if not players:
            return
        still_in = self.still_in
        # an out caller takes no part: the others score as if the stock had run out
        counted_caller = caller if caller in players else None
        score = score_round(self.rules, players, totals, counted_caller, self.scores)
        r.score = score
        self.scores = score.scores
        self.out.extend(score.out)
        record = self.records[-1]
        record.end, record.caller, record.score = end, caller, score
        record.scores, record.out = dict(self.scores), score.out
        winners = game_result(self.rules, self.seating, self.scores, still_in, score.out, r.number)
        if winners is not None:
            self.winners = winners
            self.closing_allowed = {"round_ended"}
            # a Yaniv's showdown may follow; a scoresheet's showdown may be written twice (the
            # repeat is compared with the first, as in any round)
            if not isinstance(event, Showdown) or not r.moves_checked:
                self.closing_allowed.add("showdown")

    def _ending_round(self, event: Event) -> RoundState | None:
        """The round a showdown or round_ended closes, its pending stock end applied."""
        if self._game_over(event):
            return None
        r = self.round
        assert r is not None
        if r.exhaust_pending:
            self._exhaust(None)
        return r

    def _showdown(self, event: Showdown) -> None:
        r = self._ending_round(event)
        if r is None:
            return
        rules = self.rules
        caller = event.caller
        # a scoresheet round's showdown read before: this one is compared with it
        first = r.shown if not r.moves_checked else None
        if caller is None and first is None:  # (a repeat raises nothing of the first's)
            if rules.reshuffle != "round_ends":
                self._violation(
                    event,
                    "showdown.no_caller",
                    None,
                    case="reshuffle",
                    rule=self._rule("reshuffle"),
                )
            elif r.moves_checked and not r.ended:
                self._violation(
                    event,
                    "showdown.no_caller",
                    None,
                    case="stock_left",
                    stock=r.stock_count,
                    rule=self._rule("reshuffle"),
                )
        written = event.totals or {}
        if self.out:  # an out player shown or written down takes part: decided before the cards
            went_out = r.score.out if r.score is not None else ()  # in this round: still in it
            for p in chain(event.hands, written):
                if (
                    p in self.out
                    and p not in went_out
                    and (r.moves_checked is False or p not in r.rotation)
                ):
                    self._player_out(event, p)
        if r.moves_checked and not r.ended and caller is not None:
            # the showdown ends the round as the caller's Yaniv: whose turn, before the cards
            self._enter(r, Yaniv(caller, index=event.index, line=event.line, at=event.at))
        hands = r.hands
        as_held = r.moves_checked and all(
            sorted(cards) == sorted(hands.get(p, ())) for p, cards in event.hands.items()
        )
        if not as_held:  # hands shown as the replay holds them are within the deck
            self._check_counts(
                event, Counter(chain.from_iterable(event.hands.values())), "showdown"
            )
        if r.moves_checked:
            self._showdown_after_moves(r, event, as_held)
            return
        if first is not None:
            self._compare_showdowns(event, first)
            return
        if r.ended:
            return
        r.shown = event
        missing = [p for p in self.still_in if p not in event.hands and p not in written]
        for p in missing:
            self._claim(event, "claim.showdown", p, case="no_hand", player=p)
        totals = self._shown_totals(event)
        if r.caller is not None and r.caller != caller:
            self._claim(
                event, "claim.showdown", caller, case="caller", named=caller, caller=r.caller
            )
        if caller is not None and caller in totals:
            total = totals[caller]
            shown = caller in event.hands
            hand = names(event.hands[caller]) if shown else None
            if total > rules.yaniv_max:
                self._violation(
                    event,
                    "yaniv.threshold",
                    caller,
                    case="hand" if shown else "written",
                    player=caller,
                    total=total,
                    hand=hand,
                    rule=self._rule("yaniv_max"),
                )
            announced = r.announced
            if announced is not None and announced != total:
                self._claim(
                    event,
                    "claim.yaniv_total",
                    caller,
                    case="shown" if shown else "written",
                    player=caller,
                    announced=announced,
                    hand=hand,
                    total=total,
                )
        r.rotation = [p for p in self.seating if p in totals]
        self._score(r, event, caller, totals, "yaniv" if caller is not None else "stock")

    def _compare_showdowns(self, event: Showdown, first: Showdown) -> None:
        """A scoresheet round's showdown written again is read once: where it differs from
        the first (the caller, a hand, a total), ``claim.showdown``; a copy raises nothing."""
        if event.caller != first.caller:
            self._claim(
                event,
                "claim.showdown",
                event.caller,
                case="repeated_caller",
                named=event.caller,
                caller=first.caller,
            )
        shown, before = event.hands, first.hands
        for p in self.seating:
            cards, earlier = shown.get(p), before.get(p)
            if (cards is None) != (earlier is None) or (
                cards is not None and earlier is not None and sorted(cards) != sorted(earlier)
            ):
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="repeated_hand",
                    player=p,
                    shown=names(cards or ()),
                    first=names(earlier or ()),
                )
        written, before_written = event.totals or {}, first.totals or {}
        for p in self.seating:
            if written.get(p) != before_written.get(p):
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="repeated_total",
                    player=p,
                    written=written.get(p),
                    first=before_written.get(p),
                )

    def _shown_totals(self, event: Showdown) -> dict[str, int]:
        """The hand total of every player the showdown shows: from the cards shown, else
        from the total written down for a player whose cards were not kept (``totals``); a
        written total that the cards shown do not make is ``claim.showdown``."""
        totals = {p: self._total(cards) for p, cards in event.hands.items()}
        for p, written in (event.totals or {}).items():
            if p not in totals:
                totals[p] = written
            elif written != totals[p]:
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="total_shown",
                    player=p,
                    written=written,
                    shown=names(event.hands[p]),
                    total=totals[p],
                )
        order = {p: i for i, p in enumerate(self.seating)}
        return dict(sorted(totals.items(), key=lambda item: order.get(item[0], 0)))

    def _showdown_after_moves(self, r: RoundState, event: Showdown, as_held: bool) -> None:
        """A showdown after replayed moves: it ends the round if nothing did, and its
        hands (``as_held``: each as the replay holds it) and totals are claims."""
        if not r.ended:
            if event.caller is not None:  # (its turn was entered before the cards were read)
                self._call(r, event, event.caller)
            else:
                totals = {p: self._total(r.hands.get(p, [])) for p in r.rotation}
                self._score(r, event, None, totals, "stock")
        elif event.caller != r.caller:
            self._claim(
                event,
                "claim.showdown",
                event.caller,
                case="ended_by",
                named=event.caller,
                caller=r.caller,
            )
        written = event.totals or {}
        for p in r.rotation:
            if p not in event.hands and p not in written and p not in self.out:
                self._claim(event, "claim.showdown", p, case="still_in", player=p)
        for p, cards in () if as_held else event.hands.items():
            held = r.hands.get(p, [])
            if sorted(cards) != sorted(held):
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="hand",
                    player=p,
                    shown=names(cards),
                    held=names(held),
                )
        for p, total in written.items():
            held = r.hands.get(p, [])
            if p not in event.hands and total != self._total(held):
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="total_held",
                    player=p,
                    written=total,
                    held=names(held),
                    total=self._total(held),
                )
            elif p in event.hands and total != self._total(event.hands[p]):
                self._claim(
                    event,
                    "claim.showdown",
                    p,
                    case="total_shown",
                    player=p,
                    written=total,
                    shown=names(event.hands[p]),
                    total=self._total(event.hands[p]),
                )
