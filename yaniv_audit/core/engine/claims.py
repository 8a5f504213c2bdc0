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
        if score is None and not r.moves_checked:
            self.unchecked.append(r.number)
        if event.points is not None:
            for p, written in event.points.items():
                right = score.points.get(p, 0) if score is not None else 0
                if written != right:
                    why = (
                        self._points_reason(score, p)
                        if score is not None
                        # a scoresheet round with neither hands nor totals: the replay
                        # cannot tell its points (it counts 0), it does not deny them
                        else {"case": "not_ended" if r.moves_checked else "unchecked"}
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
            self._check_scores(event, event.scores, r.number, event.points)

    def _points_reason(self, score: RoundScore, p: str) -> dict[str, Any]:
        """Why the rules give ``p`` their points: the params of claim.points' case, its
        ``rule`` the parameters that decided them (``assaf_on_tie`` first where a hand
        equal to the caller's decided whether there was an Assaf)."""
        rules = self.rules
        caller = score.caller
        mark = score.totals.get(caller) if caller is not None else None
        # a tie with the caller: assaf_on_tie decided the round (the caller's, and the tied)
        tied = mark is not None and any(t == mark for q, t in score.totals.items() if q != caller)
        tie = ("assaf_on_tie",) if tied and (p == caller or score.totals.get(p) == mark) else ()
        if p == caller and score.assaf:
            hand = "hand_" if rules.assaf_adds_hand else ""
            n = len(score.assaf)
            if rules.assaf_multi_penalty is not None and n > 1:
                return {
                    "case": hand + "assafers",
                    "hand": score.totals[p],
                    "assafers": n,
                    "penalty": n * rules.assaf_multi_penalty,
                    "rule": self._rule(*tie, "assaf_multi_penalty", "assaf_adds_hand"),
                }
            return {
                "case": hand + "assaf_penalty",
                "hand": score.totals[p],
                "rule": self._rule(*tie, "assaf_penalty", "assaf_adds_hand"),
            }
        if p == caller:
            return {"case": "caller", "rule": self._rule(*tie)} if tie else {"case": "caller"}
        if p in score.assaf:
            return {"case": "assaf", "rule": self._rule(*tie, "assaf_scoring")}
        why = {"case": "hand", "hand": score.totals.get(p, 0)}
        if score.assaf:  # the others' points on an Assaf are assaf_scoring's
            return {**why, "rule": self._rule(*tie, "assaf_scoring")}
        return {**why, "rule": self._rule(*tie)} if tie else why

    def _check_scores(
        self,
        event: Event,
        written: dict[str, int],
        after: int | None,
        points: dict[str, int] | None = None,
    ) -> None:
        """The scores written after round ``after`` (None: at the end), beside the round's
        ``points`` written with them (a wrong score that merges a wrong point count and a
        wrong sum is said as its parts)."""
        for p, value in written.items():
            right = self.scores.get(p, 0)
            diff = value - right
            before = self.written_diff.get(p, 0)
            if diff and diff != before:
                params: dict[str, Any] = {"case": "round" if after is not None else "end"}
                score = self.round.score if self.round else None
                reduced = False
                if score is not None:
                    for who, frm, to in score.reductions:
                        if who == p:
                            reduced = True
                            params = {
                                "case": params["case"].removesuffix("_reduced") + "_reduced",
                                "reduced_from": frm,
                                "reduced_to": to,
                                "rule": self._rule("reductions"),
                            }
                if self.unchecked:
                    params = self._unchecked_score(params["case"], right)
                    if not reduced and after is not None and score is not None and points:
                        # this round was checked: a wrong step in it is said still
                        step = self._step_parts(p, value, right, diff - before, score, points)
                        if step:
                            params["checked"].append(
                                {"phrase": "part:step", "round": after, "parts": step}
                            )
                elif not reduced and after is not None and score is not None and points:
                    params = self._score_parts(p, value, right, diff - before, score, points)
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

    def _unchecked_score(self, case: str, right: int) -> dict[str, Any]:
        """claim.scores' params after a scoresheet round the replay could not check (no
        hands, no totals): the score cannot be checked, the rounds that could not be, and
        (where some round could be) what the checked rounds give."""
        params: dict[str, Any] = {
            "case": case.removesuffix("_reduced") + "_unchecked",
            "unchecked": list(self.unchecked),
        }
        # every round started so far but these was checked
        some_checked = len(self.records) > len(self.unchecked)
        params["checked"] = [{"phrase": "part:checked", "right": right}] if some_checked else []
        return params

    def _score_parts(
        self,
        p: str,
        value: int,
        right: int,
        moved: int,
        score: RoundScore,
        points: dict[str, int],
    ) -> dict[str, Any]:
        """claim.scores' params after a round whose points were written too: when the
        score's new difference (``moved``) is not the points' own, its parts (the
        round's points, the sum of the written score and points)."""
        parts = self._step_parts(p, value, right, moved, score, points)
        if len(parts) < 2:
            return {"case": "round"}
        return {"case": "round_parts", "parts": parts}

    def _step_parts(
        self,
        p: str,
        value: int,
        right: int,
        moved: int,
        score: RoundScore,
        points: dict[str, int],
    ) -> list[dict[str, Any]]:
        """How far the score written after a checked round moved from the rules', each
        cause apart: the round's points written (``part:points``), the sum of the written
        score and points (``part:sum``); the causes that moved it."""
        if p not in points:
            return []
        rules_points = score.points.get(p, 0)
        by_points = points[p] - rules_points
        by_sum = moved - by_points
        # the score written before this round: the rules' less this round's points,
        # and the difference the table carried from before
        earlier = right - rules_points + (self.written_diff.get(p, 0))
        why = self._points_reason(score, p)
        parts: list[dict[str, Any]] = []
        if by_points:
            parts.append(
                {
                    "phrase": "part:points",
                    "by": by_points,
                    "round": self.round.number if self.round else None,
                    "written": points[p],
                    "right": rules_points,
                    **({"rule": why["rule"]} if "rule" in why else {}),
                }
            )
        if by_sum:
            parts.append(
                {
                    "phrase": "part:sum",
                    "by": by_sum,
                    "before": earlier,
                    "points": points[p],
                    "written": value,
                }
            )
        return parts

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
