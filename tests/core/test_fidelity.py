"""The rulings of the small logs in tests/cases/fidelity (their README says what each must give).

Each log shows one edge of the log format's "what the log leaves out is still there" and
"settled readings", or a bug once found in the audit. The findings listed for a case are all
of its findings: none may be missing and none added.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.cli.render import render_report
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.io.codec import read_log

CASES = Path(__file__).resolve().parents[1] / "cases" / "fidelity"

#: case -> (verdict, [(seq, code), ...]) with every finding of the audit
RULINGS: dict[str, tuple[str, list[tuple[int, str]]]] = {
    "01a-upcard-unrecorded-reshuffle-with-stock": ("clean", []),
    "01b-upcard-unrecorded-reshuffle-without-stock": ("clean", []),
    "01c-upcard-unrecorded-no-reshuffle-event": ("clean", []),
    "01d-stock-recorded-upcard-not-reshuffle": ("clean", []),
    "01e-control-upcard-recorded": ("clean", []),
    "02-claim-scores-corrected": ("claims", [(3, "claim.scores")]),
    "03a-round-ends-no-showdown-next-round": ("clean", []),
    "03b-round-ends-no-showdown-game-ended": ("clean", []),
    "04a-second-discard-same-player": ("violations", [(3, "turn.no_draw"), (3, "turn.order")]),
    "04b-duplicated-discard": (
        "corrupt",
        [(3, "turn.no_draw"), (3, "turn.order"), (3, "card.not_in_hand")],
    ),
    "05-pile-draw-not-on-pile": ("corrupt", [(3, "card.not_on_pile")]),
    "06-undealt-player-still-in": ("violations", [(1, "deal.hand_size")]),
    # a's call at 15 (AC..5C) is over yaniv_max=7 as well: the README's case is about seq 3
    "07-showdown-omits-player": ("violations", [(2, "yaniv.threshold"), (3, "claim.showdown")]),
    "08-deciding-round-closing-after-game-over": (
        "violations",
        [(3, "game.over"), (5, "claim.points")],
    ),
    "10-yaniv-after-own-throw": ("violations", [(3, "yaniv.timing"), (3, "yaniv.threshold")]),
    "11-rounds-counts-round-numbers": ("clean", []),
    "12-round-ended-of-unscored-round": ("claims", [(4, "claim.points"), (4, "claim.scores")]),
    "13-multi-assaf-message": ("claims", [(3, "claim.points")]),
    "14-wildjack-set-or-run": ("violations", [(5, "draw.pile_card")]),
    "15-null-caller-showdown-stock-left": ("violations", [(4, "showdown.no_caller")]),
    "16-slap-other-card": ("violations", [(4, "slap.not_allowed")]),
    "17-swap-joker-not-in-previous-throw": ("violations", [(9, "draw.swap")]),
    "18-upcard-deducible-from-stock": ("corrupt", [(3, "card.already_seen")]),
    # b's written 9 points are wrong too (5H is 5): a claim of its own at seq 3
    "19-duplicate-round-ended-deciding-round": (
        "violations",
        [(3, "claim.points"), (4, "game.over")],
    ),
    "20-recorded-stock-not-rest-of-deck": ("corrupt", [(1, "stock.mismatch")]),
    "21-messages": (
        "violations",
        [
            (2, "discard.combo"),
            (5, "turn.no_draw"),
            (7, "yaniv.threshold"),
            (8, "reshuffle.not_allowed"),
            (9, "turn.order"),
            (10, "claim.winner"),
        ],
    ),
    "22-next-round-closing-taken-as-deciding-round": ("violations", [(3, "game.over")]),
    "23-game-ended-scores-unchecked-when-undecided": (
        "claims",
        [(3, "claim.winner"), (3, "claim.scores")],
    ),
    "24-yaniv-after-own-draw-emptying-stock": (
        "violations",
        [(4, "yaniv.timing"), (4, "yaniv.threshold")],
    ),
    "25-yaniv-after-own-draw-emptying-stock-reshuffle": (
        "violations",
        [(5, "yaniv.timing"), (5, "yaniv.threshold")],
    ),
}
#: the second set (tests/cases/fidelity2, its README): case -> (verdict, findings)
RULINGS2: dict[str, tuple[str, list[tuple[int, str]]]] = {
    "01-upcard-unrecorded-older-throw-draw": ("violations", [(5, "draw.pile_card")]),
    "02-upcard-unrecorded-older-throw-draw-2decks": ("violations", [(5, "draw.pile_card")]),
    "03-game-over-after-stock-decides": ("violations", [(28, "game.over")]),
    "04-joker-drawn-no-jokers": ("corrupt", [(3, "card.not_in_deck")]),
    "05-duplicate-showdown-player-goes-out": ("clean", []),
    "06-out-player-dealt-in-never-moves": ("violations", [(5, "player.out")]),
    "07-withdraw-last-throw": ("clean", []),
    "08-withdraw-older-event": ("violations", [(4, "log.withdraw")]),
    "09-withdraw-scoresheet-round": ("clean", []),
}
UNREADABLE = [
    "09a-unnamed-draw-past-recorded-stock",
    "09b-unnamed-draw-past-recorded-stock-round-ends",
]


def audit(name: str) -> dict[str, Any]:
    return audit_file(str(CASES / f"{name}.jsonl"))


def messages(report: dict[str, Any], code: str) -> list[str]:
    return [f["message"] for f in report["findings"] if f["code"] == code]


def test_every_case_has_a_ruling() -> None:
    assert sorted([*RULINGS, *UNREADABLE]) == sorted(p.stem for p in CASES.glob("*.jsonl"))


#: both sets, by the path of each case under tests/cases/fidelity
EVERY_RULING = RULINGS | {f"../fidelity2/{name}": r for name, r in RULINGS2.items()}


@pytest.mark.parametrize("name", sorted(EVERY_RULING))
def test_ruling(name: str) -> None:
    verdict, expected = EVERY_RULING[name]
    report = audit(name)
    assert report["verdict"] == verdict, report.get("findings", report)
    assert [(f["seq"], f["code"]) for f in report["findings"]] == expected
    render_report(report)  # the ruling a person reads renders for every case


@pytest.mark.parametrize("name", UNREADABLE)
def test_unnamed_stock_draw_past_the_recorded_stock_is_unreadable(name: str) -> None:
    report = audit(name)
    assert report["verdict"] == "unreadable"
    assert report["error"]["line"] == 6
    assert 'field "card": required here' in report["error"]["message"]
    with pytest.raises(LogFormatError):  # validate reads the log the same way
        read_log(CASES / f"{name}.jsonl")


def test_round_ends_without_showdown_is_scored_from_the_replayed_hands() -> None:
    for name in ("03a-round-ends-no-showdown-next-round", "03b-round-ends-no-showdown-game-ended"):
        first = audit(name)["rounds"][0]
        assert (first["end"], first["caller"], first["winners"]) == ("stock", None, ["p2"])
        assert first["points"] == {"p1": 169, "p2": 160}
    assert audit("03b-round-ends-no-showdown-game-ended")["final"]["winners"] == ["p2"]


def test_a_player_missing_from_the_hands_sits_the_round_out() -> None:
    report = audit("06-undealt-player-still-in")
    (first,) = report["rounds"]
    assert first["points"] == {"a": 0, "b": 11}
    assert first["assaf"] == [] and first["winners"] == ["a"]
    assert report["final"]["scores"] == {"a": 0, "b": 11, "c": 0}


def test_game_end_rounds_counts_round_numbers() -> None:
    final = audit("11-rounds-counts-round-numbers")["final"]
    assert final["finished"] and final["winners"] == ["a"]


def test_messages_say_which_rule_and_where() -> None:
    (held,) = messages(audit("05-pile-draw-not-on-pile"), "card.not_on_pile")
    assert "b holds 5H" in held
    (multi,) = messages(audit("13-multi-assaf-message"), "claim.points")
    assert "hand 5 + 2 Assafers x 20 = 40, assaf_multi_penalty=20" in multi
    assert "assaf_penalty=" not in multi
    report = audit("21-messages")
    (combo,) = messages(report, "discard.combo")
    assert "not a set" in combo and "not a run" in combo
    assert "set_min=2" in combo and "run_min=3" in combo
    (reshuffle,) = messages(report, "reshuffle.not_allowed")
    assert "round 1 was over" in reshuffle and "42" not in reshuffle
    (no_draw,) = messages(report, "turn.no_draw")
    assert "b threw 5H" in no_draw
    (seen,) = messages(audit("18-upcard-deducible-from-stock"), "card.already_seen")
    assert "3S is in the stock" in seen and "the upcard is KS" in seen
    (slap,) = messages(audit("16-slap-other-card"), "slap.not_allowed")
    assert "not the card just drawn (9D)" in slap


def test_corrected_score_raises_one_claim() -> None:
    (claim,) = messages(audit("02-claim-scores-corrected"), "claim.scores")
    assert claim == "b's score after round 1 was written as 25; the rules give 20"
