"""Scoring a round and deciding the game: pure functions of totals, scores and rules.

>>> from yaniv_audit.core.rules import PRESETS
>>> r = score_round(PRESETS["israeli"], ["dana", "lior", "omer"],
...                 {"dana": 23, "lior": 5, "omer": 4}, "lior", {"dana": 77, "lior": 65, "omer": 0})
>>> r.assaf, r.winners, r.points
(('omer',), ('omer',), {'dana': 23, 'lior': 35, 'omer': 0})
>>> r.reductions, r.scores
((('dana', 100, 50), ('lior', 100, 50)), {'dana': 50, 'lior': 50, 'omer': 0})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import msgspec

from .rules import RuleSet


class RoundScore(msgspec.Struct, frozen=True, gc=False):
    """What a round gives: who Assafed, who won, points, reductions, new scores, who went out.

    A frozen :class:`msgspec.Struct` (built once a round: a tenth of a frozen
    dataclass's cost); it holds only names and numbers, so it is not tracked by
    the garbage collector.
    """

    caller: str | None
    totals: dict[str, int]
    assaf: tuple[str, ...]
    winners: tuple[str, ...]
    points: dict[str, int]
    reductions: tuple[tuple[str, int, int], ...]
    scores: dict[str, int]
    out: tuple[str, ...]


def assafers(rules: RuleSet, totals: Mapping[str, int], caller: str) -> tuple[str, ...]:
    """Players whose total is equal to (with ``assaf_on_tie``) or below the caller's."""
    mark = totals[caller]
    if rules.assaf_on_tie:
        return tuple(p for p, t in totals.items() if p != caller and t <= mark)
    return tuple(p for p, t in totals.items() if p != caller and t < mark)


def lowest(totals: Mapping[str, int], among: Sequence[str]) -> tuple[str, ...]:
    best = min(totals[p] for p in among)
    return tuple(p for p in among if totals[p] == best)


def round_points(
    rules: RuleSet, totals: Mapping[str, int], caller: str | None
) -> tuple[tuple[str, ...], tuple[str, ...], dict[str, int]]:
    """(assafers, round winners, points) of a round ended by ``caller``.

    ``caller`` None: the stock ran out and everybody scores their hand.
    """
    players = list(totals)
    if caller is None:
        return (), lowest(totals, players), dict(totals)
    assaf = assafers(rules, totals, caller)
    if not assaf:
        return (), (caller,), {p: 0 if p == caller else totals[p] for p in players}
    winners = lowest(totals, assaf)
    if rules.assaf_multi_penalty is not None and len(assaf) > 1:
        penalty = rules.assaf_multi_penalty * len(assaf)
    else:
        penalty = rules.assaf_penalty
    points: dict[str, int] = {}
    for p in players:
        if p == caller:
            points[p] = (totals[p] if rules.assaf_adds_hand else 0) + penalty
        elif rules.assaf_scoring == "others_zero" or (
            rules.assaf_scoring == "lowest_wins" and p in winners
        ):
            points[p] = 0
        else:
            points[p] = totals[p]
    return assaf, winners, points


class _Scoring(NamedTuple):
    """What scoring needs of a rule set, worked out once per rule set."""

    reductions: dict[int, int]  # rules.reductions as {score: reduced to}; read only
    out_at: int | None  # the lowest score that puts a player out (None: nobody goes out)


_BY_ID: dict[int, tuple[RuleSet, _Scoring]] = {}


def _scoring(rules: RuleSet) -> _Scoring:
    """The scoring table of ``rules``, found by identity (hashing a RuleSet hashes every
    field, which would cost more than what is looked up)."""
    hit = _BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if rules.game_end == "rounds":
        out_at = None
    else:
        out_at = rules.score_limit if rules.limit_rule == "reach" else rules.score_limit + 1
    table = _Scoring(dict(rules.reductions), out_at)
    if len(_BY_ID) >= 256:
        _BY_ID.clear()
    _BY_ID[id(rules)] = (rules, table)  # the stored reference keeps the id unique
    return table


def is_out(rules: RuleSet, score: int) -> bool:
    out_at = _scoring(rules).out_at
    return out_at is not None and score >= out_at


def apply_points(
    rules: RuleSet, scores: Mapping[str, int], points: Mapping[str, int]
) -> tuple[dict[str, int], tuple[tuple[str, int, int], ...], tuple[str, ...]]:
    """New scores after this round's points and reductions, and who goes out."""
    table, out_at = _scoring(rules)
    new = dict(scores)
    reductions = []
    for p, gained in points.items():
        score = new.get(p, 0) + gained
        if gained > 0 and score in table:
            reductions.append((p, score, table[score]))
            score = table[score]
        new[p] = score
    out = () if out_at is None else tuple(p for p in points if new[p] >= out_at)
    return new, tuple(reductions), out


def score_round(
    rules: RuleSet,
    players: Sequence[str],
    totals: Mapping[str, int],
    caller: str | None,
    scores: Mapping[str, int],
) -> RoundScore:
    """Score one round among ``players`` (those still in, in seat order)."""
    in_totals = {p: totals[p] for p in players}
    assaf, winners, points = round_points(rules, in_totals, caller)
    new, reductions, out = apply_points(rules, scores, points)
    return RoundScore(caller, in_totals, assaf, winners, points, reductions, new, out)


def game_result(
    rules: RuleSet,
    seating: Sequence[str],
    scores: Mapping[str, int],
    still_in: Sequence[str],
    went_out: Sequence[str],
    round_number: int,
) -> tuple[str, ...] | None:
    """The winners if the game is decided after round ``round_number`` was scored, else None.

    ``still_in`` are the players in before this round; ``went_out`` those who
    went out in it. ``game_end="rounds"`` counts round numbers, not scored rounds.
    """
    if rules.game_end == "rounds":
        if rules.rounds is not None and round_number >= rules.rounds:
            return lowest(scores, seating)
        return None
    if rules.game_end == "first_out":
        if went_out:
            return lowest(scores, seating)
        return None
    remaining = [p for p in still_in if p not in went_out]
    if len(remaining) == 1:
        return (remaining[0],)
    if not remaining:
        return lowest(scores, list(still_in))
    return None


def next_starter(
    rules: RuleSet,
    seating: Sequence[str],
    still_in: Sequence[str],
    winners: Sequence[str],
    previous_opener: str,
    caller: str | None = None,
) -> set[str] | None:
    """Who may open the next round (None: not checked).

    Under ``starter="caller"`` the player who called Yaniv opens even after an Assaf (as
    online tables play); a round the stock ended has no caller, and its winners open. A
    caller or winners who are all out pass the opening to the next player still in.
    """
    if rules.starter == "free":
        return None
    if rules.starter in ("round_winner", "caller"):
        chosen = (caller,) if rules.starter == "caller" and caller is not None else winners
        alive = [w for w in chosen if w in still_in]
        if alive:
            return set(alive)
        first = chosen[0] if chosen else previous_opener
        return {seat_after(seating, still_in, first)}
    return {seat_after(seating, still_in, previous_opener)}


def seat_after(seating: Sequence[str], still_in: Sequence[str], player: str) -> str:
    """The next player still in after ``player`` in seat order."""
    n = len(seating)
    start = seating.index(player)
    for step in range(1, n + 1):
        candidate = seating[(start + step) % n]
        if candidate in still_in:
            return candidate
    return player
