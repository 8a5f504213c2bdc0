"""The table's claims: what it wrote down against what the rules give.

``round_ended``'s points and scores and ``game_ended``'s winner and scores are
claims: a wrong one is a finding of kind ``claim`` that says what the rules give
and why (the caller's zero, an Assaf penalty, a reduction).
"""

from __future__ import annotations

from typing import Any

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
                    why = (
                        self._points_reason(score, p)
                        if score is not None
                        else {"case": "not_ended"}
                    )
                    self._claim(
                        event,
                        "claim.points",
                        p,
                        player=p,
                        written=written,
                        round=r.number,
                        right=right,
                        **why,
                    )
        if event.scores is not None:
            self._check_scores(event, event.scores, r.number)

    def _points_reason(self, score: RoundScore, p: str) -> dict[str, Any]:
        """Why the rules give ``p`` their points: the params of claim.points' case."""
        rules = self.rules
        if p == score.caller and score.assaf:
            hand = "hand_" if rules.assaf_adds_hand else ""
            n = len(score.assaf)
            if rules.assaf_multi_penalty is not None and n > 1:
                return {
                    "case": hand + "assafers",
                    "hand": score.totals[p],
                    "assafers": n,
                    "penalty": n * rules.assaf_multi_penalty,
                    "rule": self._rule("assaf_multi_penalty", "assaf_adds_hand"),
                }
            return {
                "case": hand + "assaf_penalty",
                "hand": score.totals[p],
                "rule": self._rule("assaf_penalty", "assaf_adds_hand"),
            }
        if p == score.caller:
            return {"case": "caller"}
        if p in score.assaf:
            return {"case": "assaf", "rule": self._rule("assaf_scoring")}
        return {"case": "hand", "hand": score.totals.get(p, 0)}

    def _check_scores(self, event: Event, written: dict[str, int], after: int | None) -> None:
        """The scores written after round ``after`` (None: at the end)."""
        for p, value in written.items():
            right = self.scores.get(p, 0)
            diff = value - right
            if diff and diff != self.written_diff.get(p, 0):
                params: dict[str, Any] = {"case": "round" if after is not None else "end"}
                score = self.round.score if self.round else None
                if score is not None:
                    for who, frm, to in score.reductions:
                        if who == p:
                            params = {
                                "case": params["case"].removesuffix("_reduced") + "_reduced",
                                "reduced_from": frm,
                                "reduced_to": to,
                            }
                self._claim(
                    event,
                    "claim.scores",
                    p,
                    player=p,
                    round=after,
                    written=value,
                    right=right,
                    **params,
                )
            self.written_diff[p] = diff

    def _game_ended(self, event: GameEnded) -> None:
        self._end_pending_exhaustion()
        if self.winners is None:
            self._claim(event, "claim.winner", None, case="undecided", scores=dict(self.scores))
        elif event.winner is not None and set(event.winner) != set(self.winners):
            self._claim(
                event,
                "claim.winner",
                None,
                case="other",
                named=list(event.winner),
                winners=list(self.winners),
                scores=dict(self.scores),
            )
        if event.scores is not None:
            self._check_scores(event, event.scores, None)
