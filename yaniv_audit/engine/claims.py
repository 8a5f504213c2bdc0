"""The table's claims: what it wrote down against what the rules give.

``round_ended``'s points and scores and ``game_ended``'s winner and scores are
claims: a wrong one is a finding of kind ``claim`` that says what the rules give
and why (the caller's zero, an Assaf penalty, a reduction).
"""

from __future__ import annotations

from ..events import Event, GameEnded, RoundEnded
from ..scoring import RoundScore
from .base import ReplayBase


class TableClaims(ReplayBase):
    """What the table wrote down: round_ended's points and scores, game_ended's winner."""

    def _round_ended(self, event: RoundEnded) -> None:
        r = self._ending_round(event)
        if r is None:
            return
        r.closed = True
        score = r.score
        if event.points is not None:
            for p, written in event.points.items():
                right = score.points.get(p, 0) if score is not None else 0
                if written != right:
                    why = (self._points_reason(score, p) if score is not None else
                           f" (nothing ended round {r.number}: no Yaniv, showdown or exhausted "
                           "stock, so nobody scores)")
                    self._claim(event, "claim.points", p,
                                f"{p} was written down for {written} points in round {r.number}; "
                                f"the rules give {right}{why}")
        if event.scores is not None:
            self._check_scores(event, event.scores, f"after round {r.number}")

    def _points_reason(self, score: RoundScore, p: str) -> str:
        rules = self.rules
        if p == score.caller and score.assaf:
            hand = f"hand {score.totals[p]} + " if rules.assaf_adds_hand else ""
            n = len(score.assaf)
            if rules.assaf_multi_penalty is not None and n > 1:
                return (f" ({hand}{n} Assafers x {rules.assaf_multi_penalty} = "
                        f"{n * rules.assaf_multi_penalty}, assaf_multi_penalty="
                        f"{rules.assaf_multi_penalty})")
            return f" ({hand}Assaf penalty, assaf_penalty={rules.assaf_penalty})"
        if p == score.caller:
            return " (the caller scores 0)"
        if p in score.assaf:
            return f" (Assaf, assaf_scoring={rules.assaf_scoring})"
        return f" (hand total {score.totals.get(p, 0)})"

    def _check_scores(self, event: Event, written: dict[str, int], when: str) -> None:
        for p, value in written.items():
            right = self.scores.get(p, 0)
            diff = value - right
            if diff and diff != self.written_diff.get(p, 0):
                reduction = ""
                score = self.round.score if self.round else None
                if score is not None:
                    for who, frm, to in score.reductions:
                        if who == p:
                            reduction = f" ({frm} drops to {to}: reductions)"
                self._claim(event, "claim.scores", p,
                            f"{p}'s score {when} was written as {value}; the rules give "
                            f"{right}{reduction}")
            self.written_diff[p] = diff

    def _game_ended(self, event: GameEnded) -> None:
        self._end_pending_exhaustion()
        if self.winners is None:
            self._claim(event, "claim.winner", None,
                        "the game was declared over, but under these rules it is not decided "
                        f"(scores: {self._scores_text()})")
        elif event.winner is not None and set(event.winner) != set(self.winners):
            self._claim(event, "claim.winner", None,
                        f"the table named {', '.join(event.winner)} as the winner; the rules "
                        f"give {', '.join(self.winners)} (scores: {self._scores_text()})")
        if event.scores is not None:
            self._check_scores(event, event.scores, "at the end")

    def _scores_text(self) -> str:
        return ", ".join(f"{p} {s}" for p, s in self.scores.items())

