"""The rulings of the small logs in tests/cases/fidelity2 (their README says what each must give).

The second set, from games played by three independent Yaniv programs and an independent
reading of the spec: the upcard taken from under a later throw, a game decided by the stock,
a card the deck does not have, a repeated showdown, a player out but dealt in, and the
withdrawals. Their rulings are in tests/core/test_fidelity.py (RULINGS2), checked with the
first set's; here, what their messages and reports say.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_fidelity import RULINGS2 as RULINGS

from yaniv_audit.batch.bulk import audit_file

CASES = Path(__file__).resolve().parents[1] / "cases" / "fidelity2"


def audit(name: str) -> dict[str, Any]:
    return audit_file(str(CASES / f"{name}.jsonl"))


def messages(report: dict[str, Any], code: str) -> list[str]:
    return [f["message"] for f in report["findings"] if f["code"] == code]


def test_every_case_has_a_ruling() -> None:
    assert sorted(RULINGS) == sorted(p.stem for p in CASES.glob("*.jsonl"))


def test_the_unrecorded_upcard_under_a_later_throw_is_on_the_pile() -> None:
    for name, card in (
        ("01-upcard-unrecorded-older-throw-draw", "5H"),
        ("02-upcard-unrecorded-older-throw-draw-2decks", "7C"),
    ):
        report = audit(name)
        (message,) = messages(report, "draw.pile_card")
        assert f"took {card} as the upcard" in message, message
        assert "KD" in message and "holds" not in message and "accounted" not in message
        assert report["rounds"][0]["moves_checked"] is True


def test_a_game_decided_by_the_stock_is_over_for_the_stray_moves() -> None:
    report = audit("03-game-over-after-stock-decides")
    assert report["final"]["winners"] == ["b"]
    (over,) = messages(report, "game.over")
    assert "b won" in over


def test_a_joker_without_jokers_names_the_deck() -> None:
    (message,) = messages(audit("04-joker-drawn-no-jokers"), "card.not_in_deck")
    assert "JK" in message and "jokers=0" in message


def test_a_player_out_but_dealt_in_is_skipped() -> None:
    report = audit("06-out-player-dealt-in-never-moves")
    (out,) = messages(report, "player.out")
    assert out.startswith("a is out")


def test_withdrawn_entries_are_listed_and_read_as_never_written() -> None:
    report = audit("07-withdraw-last-throw")
    assert report["withdrawn"] == [{"seq": 2, "by": 3}]
    report = audit("09-withdraw-scoresheet-round")
    assert report["withdrawn"] == [{"seq": 4, "by": 7}, {"seq": 5, "by": 7}, {"seq": 6, "by": 7}]
    assert report["final"]["scores"] == {"a": 20, "b": 28, "c": 10}
    assert [r["caller"] for r in report["rounds"]] == ["a", "c"]  # round 2 as written again


def test_a_withdrawal_naming_an_older_entry_takes_nothing_back() -> None:
    report = audit("08-withdraw-older-event")
    assert "withdrawn" not in report
    (message,) = messages(report, "log.withdraw")
    assert message == (
        "the withdrawal takes nothing back: it names 2, but the latest entry still standing is 3"
    )
    assert report["rounds"][0]["starter"] == "a"  # a's turn stands
