"""The rulings of the small logs in tests/cases/fidelity3 (their README says what each must give).

The third set, from a review against an independent referee: impossibilities ordered code
by code across the whole event, a starter who takes no part in the round, an out player
written in a showdown's totals or shown in an impossible showdown, a repeated scoresheet
showdown, and slaps that are not allowed. The findings listed for a case are all of its
findings: none may be missing and none added.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.cli.render import render_report
from yaniv_audit.core.messages import render
from yaniv_audit.lang import CODES as LANGUAGES
from yaniv_audit.lang import catalogue_of

CASES = Path(__file__).resolve().parents[1] / "cases" / "fidelity3"

#: case -> (verdict, [(seq, code), ...]) with every finding of the audit
RULINGS: dict[str, tuple[str, list[tuple[int, str]]]] = {
    "01-deal-not-in-deck-vs-too-many": ("corrupt", [(1, "card.not_in_deck")]),
    "02-showdown-not-in-deck-vs-too-many": ("corrupt", [(2, "card.not_in_deck")]),
    "03-starter-sitting-out-not-skipped": ("violations", [(1, "deal.hand_size")]),
    "04-out-starter-dealt-in-not-skipped": ("violations", [(3, "player.out")]),
    "05-out-player-in-showdown-totals": ("violations", [(4, "player.out")]),
    "06-repeated-scoresheet-showdown-differs": ("claims", [(3, "claim.showdown")]),
    "06b-repeated-scoresheet-showdown-no-caller-twice": ("violations", [(2, "showdown.no_caller")]),
    "07-slap-out-of-time": ("violations", [(5, "slap.not_allowed")]),
    "08-out-player-in-corrupt-showdown": ("corrupt", [(4, "player.out"), (4, "card.too_many")]),
    "09-slap-down-off-other-card": ("violations", [(4, "slap.not_allowed")]),
}


def audit(name: str) -> dict[str, Any]:
    return audit_file(str(CASES / f"{name}.jsonl"))


def findings(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def test_every_case_has_a_ruling() -> None:
    assert sorted(RULINGS) == sorted(p.stem for p in CASES.glob("*.jsonl"))


@pytest.mark.parametrize("name", sorted(RULINGS))
def test_ruling(name: str) -> None:
    verdict, expected = RULINGS[name]
    report = audit(name)
    assert report["verdict"] == verdict, report.get("findings", report)
    assert [(f["seq"], f["code"]) for f in report["findings"]] == expected
    render_report(report)  # the ruling a person reads renders for every case


def test_the_card_the_deck_lacks_comes_first_wherever_it_sits() -> None:
    for name in ("01-deal-not-in-deck-vs-too-many", "02-showdown-not-in-deck-vs-too-many"):
        (finding,) = findings(audit(name), "card.not_in_deck")
        assert "JK" in finding["message"] and "jokers=0" in finding["message"]


def test_a_starter_who_takes_no_part_is_skipped() -> None:
    report = audit("03-starter-sitting-out-not-skipped")
    (first,) = report["rounds"]
    assert first["starter"] == "a"  # as written: the report says what the table wrote
    report = audit("04-out-starter-dealt-in-not-skipped")
    (out,) = findings(report, "player.out")
    assert out["player"] == "a" and out["seq"] == 3


def test_a_repeated_showdown_that_differs_names_the_player_and_both_hands() -> None:
    (claim,) = findings(audit("06-repeated-scoresheet-showdown-differs"), "claim.showdown")
    assert claim["player"] == "b"
    assert "3H 5H" in claim["message"] and "3H 4H" in claim["message"], claim["message"]


def test_a_slap_out_of_time_leaves_the_turn_to_whoever_had_it() -> None:
    report = audit("07-slap-out-of-time")
    (slap,) = findings(report, "slap.not_allowed")
    assert slap["player"] == "a"
    assert not [f for f in report["findings"] if f["code"].startswith("turn.")]


def test_one_slap_not_allowed_names_every_reason_in_every_language() -> None:
    (slap,) = findings(audit("09-slap-down-off-other-card"), "slap.not_allowed")
    reasons = [reason["phrase"] for reason in slap["params"]["reasons"]]
    assert reasons == ["slap:slap_down", "slap:not_drawn"]
    assert "slap_down=false" in slap["message"] and "5S" in slap["message"], slap["message"]
    for language in LANGUAGES[1:]:  # (tests/core/test_messages.py: no English left)
        said = render("slap.not_allowed", slap["params"], catalogue_of(language).ugettext)
        assert "AC" in said and "5S" in said and "slap_down=false" in said, said


def test_a_repeated_showdown_with_another_caller_or_total_is_a_claim_each() -> None:
    from yaniv_audit.core.audit import audit_log
    from yaniv_audit.io.codec import parse_jsonl

    first = '{"type":"showdown","caller":"a","hands":{"a":["AS"]},"totals":{"b":12,"c":9}}'
    again = '{"type":"showdown","caller":"b","hands":{"a":["AS"]},"totals":{"b":12,"c":19}}'
    log = "\n".join(
        [
            '{"type":"game_started","format":"yaniv-log/1","players":["a","b","c"],'
            '"rules":"israeli"}',
            '{"type":"round_started","round":1,"starter":"a"}',
            first,
            again,
        ]
    )
    report = audit_log(parse_jsonl(log.encode(), "again.jsonl"))
    found = [(f["seq"], f["code"], f["params"]["case"], f["player"]) for f in report["findings"]]
    assert found == [
        (3, "claim.showdown", "repeated_caller", "b"),
        (3, "claim.showdown", "repeated_total", "c"),
    ]
    assert report["rounds"][0]["caller"] == "a"  # read once: the first showdown scores
    messages = [f["message"] for f in report["findings"]]
    assert messages == [
        "the showdown names b, but the round's first showdown named a",
        "c's total was written as 19, but as 9 in the round's first showdown",
    ]


def _deciding_round(*repeats: str, yaniv: bool = False) -> list[tuple[int, str]]:
    """A scoresheet round that decides the game (b goes past 10), its showdown then ``repeats``."""
    from yaniv_audit.core.audit import audit_log
    from yaniv_audit.io.codec import parse_jsonl

    lines = [
        '{"type":"game_started","format":"yaniv-log/1","players":["a","b"],'
        '"rules":"israeli(score_limit=10)"}',
        '{"type":"round_started","round":1,"starter":"a"}',
    ]
    if yaniv:
        lines.append('{"type":"yaniv","player":"a","total":3}')
    show = '{"type":"showdown","caller":"a","hands":{"a":["AS","2S"],"b":["KH","%s"]}}'
    lines += [show % "4H", *(show % card for card in repeats)]
    lines.append('{"type":"round_ended","round":1,"points":{"a":0,"b":14}}')
    report = audit_log(parse_jsonl("\n".join(lines).encode(), "deciding.jsonl"))
    assert report["final"]["winners"] == ["a"]
    return [(f["seq"], f["code"]) for f in report["findings"]]


def test_a_repeated_showdown_of_the_deciding_round_is_compared_not_game_over() -> None:
    assert _deciding_round("4H") == []  # an identical copy raises nothing
    assert _deciding_round("5H") == [(3, "claim.showdown")]
    assert _deciding_round("4H", "5H", yaniv=True) == [(5, "claim.showdown")]
