"""Scoring: pure functions of totals, scores and rules, parametrized over the variants."""

from __future__ import annotations

import pytest

from yaniv_audit.core.rules import PRESETS, parse_rules
from yaniv_audit.core.scoring import (
    apply_points,
    game_result,
    next_starter,
    round_points,
    score_round,
)

TOTALS = {"dana": 23, "lior": 5, "omer": 5, "noa": 3}  # lior calls; omer ties, noa is lower


@pytest.mark.parametrize(
    ("rules", "assaf", "winners", "points"),
    [
        ("israeli", ("omer", "noa"), ("noa",), {"dana": 23, "lior": 35, "omer": 5, "noa": 0}),
        (
            "israeli(assaf_on_tie=false)",
            ("noa",),
            ("noa",),
            {"dana": 23, "lior": 35, "omer": 5, "noa": 0},
        ),
        (
            "israeli(assaf_scoring=all_count)",
            ("omer", "noa"),
            ("noa",),
            {"dana": 23, "lior": 35, "omer": 5, "noa": 3},
        ),
        (
            "israeli(assaf_scoring=others_zero)",
            ("omer", "noa"),
            ("noa",),
            {"dana": 0, "lior": 35, "omer": 0, "noa": 0},
        ),
        (
            "israeli(assaf_multi_penalty=20)",
            ("omer", "noa"),
            ("noa",),
            {"dana": 23, "lior": 45, "omer": 5, "noa": 0},
        ),
        (
            "israeli(assaf_adds_hand=false,assaf_penalty=25)",
            ("omer", "noa"),
            ("noa",),
            {"dana": 23, "lior": 25, "omer": 5, "noa": 0},
        ),
    ],
)
def test_assaf_variants(
    rules: str, assaf: tuple[str, ...], winners: tuple[str, ...], points: dict[str, int]
) -> None:
    got = round_points(parse_rules(rules), TOTALS, "lior")
    assert got == (assaf, winners, points)


def test_lowest_assafers_tied_all_score_zero() -> None:
    totals = {"dana": 4, "lior": 5, "omer": 4}
    assert round_points(PRESETS["israeli"], totals, "lior") == (
        ("dana", "omer"),
        ("dana", "omer"),
        {"dana": 0, "lior": 35, "omer": 0},
    )


def test_no_assaf_the_caller_scores_zero() -> None:
    assert round_points(PRESETS["israeli"], {"a": 3, "b": 9}, "a") == ((), ("a",), {"a": 0, "b": 9})


def test_stock_end_everybody_scores_and_the_lowest_win() -> None:
    assert round_points(PRESETS["israeli"], {"a": 3, "b": 9, "c": 3}, None) == (
        (),
        ("a", "c"),
        {"a": 3, "b": 9, "c": 3},
    )


@pytest.mark.parametrize(
    ("table", "before", "gained", "after"),
    [
        ("{100:50,200:100}", 70, 30, 50),
        ("{100:50,200:100}", 170, 30, 100),
        ("{100:50,200:100}", 100, 0, 100),  # no points this round: no reduction
        ("{100:50,150:100,200:150}", 120, 30, 100),  # never chained: 150 -> 100 only
        ("{50:25,100:50,150:75,200:100}", 25, 25, 25),
        ("{50:0,100:50,200:100}", 20, 30, 0),  # "Racheli"
        ("{}", 70, 30, 100),
    ],
)
def test_reduction_tables(table: str, before: int, gained: int, after: int) -> None:
    rules = parse_rules(f"israeli(reductions={table})")
    scores, _, _ = apply_points(rules, {"p": before}, {"p": gained})
    assert scores["p"] == after


@pytest.mark.parametrize(
    ("rules", "score", "out"),
    [
        ("israeli", 200, False),
        ("israeli", 201, True),
        ("israeli(limit_rule=reach,reductions={})", 200, True),
        ("israeli(limit_rule=reach)", 199, False),
        ("israeli(limit_rule=reach)", 200, False),
        ("namu", 100, True),
        ("israeli(game_end=rounds,rounds=3)", 500, False),
    ],
)
def test_limit_rule(rules: str, score: int, out: bool) -> None:
    r = parse_rules(rules)
    _, _, gone = apply_points(r, {"p": score - 1}, {"p": 1})
    assert (gone == ("p",)) is out


def test_landing_on_200_with_the_table_keeps_a_player_in() -> None:
    r = score_round(PRESETS["israeli"], ["a", "b"], {"a": 30, "b": 2}, "b", {"a": 170, "b": 0})
    assert r.scores == {"a": 100, "b": 0} and r.out == () and r.reductions == (("a", 200, 100),)


@pytest.mark.parametrize(
    ("rules", "went_out", "expected"),
    [
        ("israeli", ["c"], None),
        ("israeli", ["b", "c"], ("a",)),
        ("israeli", ["a", "b", "c"], ("a",)),
        ("israeli(game_end=first_out)", ["c"], ("a",)),
        ("israeli(game_end=rounds,rounds=4)", [], ("a",)),
    ],
)
def test_game_result(rules: str, went_out: list[str], expected: tuple[str, ...] | None) -> None:
    scores = {"a": 150, "b": 210, "c": 220}
    result = game_result(
        parse_rules(rules), ["a", "b", "c"], scores, ["a", "b", "c"], went_out, round_number=4
    )
    assert result == expected


def test_next_starter() -> None:
    seats = ["a", "b", "c", "d"]
    r = PRESETS["israeli"]
    assert next_starter(r, seats, seats, ("c",), "a") == {"c"}
    assert next_starter(r, seats, ["a", "b", "d"], ("c",), "a") == {"d"}  # winner out
    assert next_starter(
        parse_rules("israeli(starter=next_seat)"), seats, ["a", "c", "d"], ("c",), "a"
    ) == {"c"}  # b is out and skipped
    assert next_starter(parse_rules("israeli(starter=free)"), seats, seats, ("c",), "a") is None
