"""The deciding rule in plain words (issue 37, items 3 and 4): every round story and
every claim names the rule parameters that decided it, the ruling opens with a line a
table reads aloud, a score claim that merges two differences says each, and compare says
why each change happens and which rule set cannot replay the log at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.builders import LogBuilder, findings, tie_dispute
from yaniv_audit.cli import cli
from yaniv_audit.core.audit import compare_log
from yaniv_audit.core.messages import render, rule_text
from yaniv_audit.core.rules import parse_rules
from yaniv_audit.io.codec import read_log
from yaniv_audit.web.viewer import compare_columns, final_bars

ROOT = Path(__file__).resolve().parents[2]


def read_aloud(report: dict[str, Any]) -> str:
    ruling = report["ruling"]
    return render(ruling["key"], ruling["params"])


def tie_written_as_a_win() -> LogBuilder:
    """Omer calls at 6, dana shows 6 too; the sheet scores it as omer's win."""
    return (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("omer", 6)
        .showdown("omer", {"dana": "AH 5C", "lior": "KS 9D 2C", "omer": "3S 3D"})
        .ended(1, points={"dana": 6, "lior": 21, "omer": 0})
    )


def test_the_rule_words_are_the_rules_page_words_with_the_value() -> None:
    assert rule_text({"assaf_on_tie": True}) == "a tie is an Assaf (assaf_on_tie=true)"
    assert rule_text({"assaf_on_tie": False}) == (
        "a tie is no Assaf: the caller wins (assaf_on_tie=false)"
    )
    assert rule_text({"reductions": {}}) == "no score drops (reductions={})"


def test_a_tie_assaf_names_assaf_on_tie_true_in_the_round_and_the_ruling() -> None:
    report = tie_written_as_a_win().audit()
    (rnd,) = report["rounds"]
    assert rnd["assaf"] == ["dana"]
    assert rnd["rule"]["assaf_on_tie"] is True
    assert {"assaf_penalty", "assaf_adds_hand", "assaf_scoring"} <= set(rnd["rule"])
    dana, omer = (findings(report, "claim.points")[i]["params"] for i in (0, 1))
    assert dana["rule"]["assaf_on_tie"] is True and omer["rule"]["assaf_on_tie"] is True
    line = read_aloud(report)
    assert line.startswith("Under israeli every move is right, but the table wrote down 2 ")
    assert "in round 1 dana's 0 is right, not 6: a tie is an Assaf (assaf_on_tie=true)" in line
    assert "in round 1 omer's 36 is right, not 0: a tie is an Assaf (assaf_on_tie=true)" in line


def test_a_tie_without_assaf_names_assaf_on_tie_false_in_the_round_and_the_ruling() -> None:
    report = tie_dispute().audit("israeli(assaf_on_tie=false)")
    (rnd,) = report["rounds"]
    assert rnd["assaf"] == [] and rnd["rule"] == {"assaf_on_tie": False}
    line = read_aloud(report)
    tie = "a tie is no Assaf: the caller wins (assaf_on_tie=false)"
    assert f"in round 1 dana's 6 is right, not 0: {tie}" in line
    assert f"in round 1 omer's 0 is right, not 36: {tie}" in line


def test_the_text_ruling_opens_with_the_read_aloud_line_and_names_each_rounds_rule(
    tmp_path: Path,
) -> None:
    (tmp_path / "tie.jsonl").write_bytes(tie_dispute().jsonl())
    result = CliRunner().invoke(
        cli, ["audit", str(tmp_path / "tie.jsonl"), "--rules", "israeli(assaf_on_tie=false)"]
    )
    lines = result.output.splitlines()
    assert "tie.jsonl: WRONG CLAIMS under israeli(assaf_on_tie=false)" in lines[0]
    assert lines[1] == "  rules: israeli(assaf_on_tie=false) — given with --rules"
    assert lines[2].startswith("  Under israeli(assaf_on_tie=false) every move is right")
    assert lines[2].endswith("a tie is no Assaf: the caller wins (assaf_on_tie=false).")
    assert lines[3].startswith("  Round 1 ")
    assert lines[4] == (
        "    deciding rule: a tie is no Assaf: the caller wins (assaf_on_tie=false)"
    )
    # each finding, too, with the rule that decided it in plain words
    assert lines[5].startswith("    WRONG CLAIM at event ") and lines[5].endswith("[claim.points]")
    assert lines[6] == (
        "      deciding rule: a tie is no Assaf: the caller wins (assaf_on_tie=false)"
    )


def test_a_score_claim_that_merges_two_differences_says_each() -> None:
    """dana's Assaf is scored 6 instead of 0 (+6), and 0 + 6 is written as 5 (-1)."""
    report = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("omer", 6)
        .showdown("omer", {"dana": "AH 5C", "lior": "KS 9D 2C", "omer": "3S 3D"})
        .ended(
            1,
            points={"dana": 6, "lior": 21, "omer": 36},
            scores={"dana": 5, "lior": 21, "omer": 36},
        )
        .audit()
    )
    (score,) = findings(report, "claim.scores")
    assert [p["by"] for p in score["params"]["parts"]] == [6, -1]
    assert score["message"] == (
        "dana's score after round 1 was written as 5; the rules give 0 (+6 from the points "
        "of round 1 (6 written, the rules give 0); -1 from a wrong sum (0 + 6 written as 5))"
    )
    assert "after round 1 dana's score is 0, not 5: +6 from the points" in read_aloud(report)


def test_a_score_claim_of_one_difference_stays_as_it_was() -> None:
    report = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("omer", 6)
        .showdown("omer", {"dana": "AH 5C", "lior": "KS 9D 2C", "omer": "3S 3D"})
        .ended(
            1,
            points={"dana": 0, "lior": 21, "omer": 36},
            scores={"dana": 0, "lior": 20, "omer": 36},
        )
        .audit()
    )
    (score,) = findings(report, "claim.scores")
    assert score["params"] == {
        "player": "lior",
        "round": 1,
        "written": 20,
        "right": 21,
        "case": "round",
    }


def test_compare_names_the_differing_parameter_that_decides_each_change() -> None:
    log = tie_dispute().log()
    result = compare_log(log, [parse_rules("israeli"), parse_rules("israeli(assaf_on_tie=false)")])
    points = [c for c in result["changes"] if c["field"] == "points"]
    assert points and all(c["because"] == ["assaf_on_tie"] for c in points)
    assert all("because" in c for c in result["changes"])


def compare_three(name: str) -> dict[str, Any]:
    log = read_log(ROOT / "replays" / name)
    return compare_log(log, [parse_rules(r) for r in ("israeli", "classic", "namu")])


def test_a_rule_set_that_cannot_replay_the_log_is_shown_as_such_not_as_scores() -> None:
    result = compare_three("clean-assaf-reduction.jsonl")
    namu = result["results"][2]
    assert namu["unreplayable"]["code"] == "card.not_in_deck"
    (change,) = [c for c in result["changes"] if c["rules"] == "namu"]
    assert change["field"] == "replay" and change["because"] == ["jokers"]
    assert change["message"] == (
        "under namu the log cannot be replayed: at event 45, lior names JK, which the deck "
        "does not have (jokers=0)"
    )
    runner = CliRunner()
    text = runner.invoke(
        cli,
        [
            "compare",
            str(ROOT / "replays" / "clean-assaf-reduction.jsonl"),
            *("--rules", "israeli", "--rules", "classic", "--rules", "namu"),
        ],
    ).output
    (row,) = [line for line in text.splitlines() if line.startswith("  namu ")]
    assert "cannot be replayed: at event 45" in row and "scores:" not in row
    # the page: no scores, nothing coloured better or worse, no bars
    columns = compare_columns(result, [{"findings": []}] * 3, ["dana", "lior", "omer"])
    assert columns[2]["unreplayable"] is not None
    assert all(
        cell["value"] is None and not cell["differs"] for cell in columns[2]["scores"].values()
    )
    assert "namu" not in final_bars(result, ["dana", "lior", "omer"])["sets"]


def test_a_round_not_played_names_every_rule_set_that_plays_it() -> None:
    result = compare_three("double-assaf.jsonl")
    (change,) = [c for c in result["changes"] if c["field"] == "round"]
    assert change["message"] == (
        "under namu rounds 4-5 are not played (played under israeli and classic)"
    )
    assert {"score_limit", "game_end"} <= set(change["because"])
