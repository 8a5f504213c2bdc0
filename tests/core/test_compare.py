"""compare: the same log under several rule sets, and what changes."""

from __future__ import annotations

from pathlib import Path

from builders import LogBuilder, tie_dispute

from yaniv_audit.cli.render import render_compare
from yaniv_audit.core.audit import compare_log
from yaniv_audit.core.rules import parse_rules
from yaniv_audit.io.codec import read_log


def assaf_game() -> LogBuilder:
    """Round 1: lior calls at 5 and omer Assafs with 5; round 2 decides under a low limit."""
    return (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("lior", 5)
        .showdown("lior", {"dana": "KS QS 3C", "lior": "AH 4C", "omer": "2C 3D"})
        .deal(2, "omer")
        .yaniv("omer")
        .showdown("omer", {"dana": "KS QS", "lior": "9C 9D", "omer": "AC"})
    )


def test_the_baseline_is_the_first_rule_set_and_changes_say_who_wins_instead() -> None:
    rules = [
        parse_rules("israeli(score_limit=40,game_end=first_out)"),
        parse_rules("israeli(score_limit=40,game_end=first_out,assaf_scoring=all_count)"),
    ]
    result = compare_log(assaf_game().log(), rules)
    assert result["baseline"] == rules[0].id
    a, b = result["results"]
    assert a["rounds"][0]["points"] == {"dana": 23, "lior": 35, "omer": 0}
    assert b["rounds"][0]["points"] == {"dana": 23, "lior": 35, "omer": 5}
    assert a["final"]["winners"] == ["omer"] and b["final"]["winners"] == ["omer"]
    fields = [(c["round"], c["field"]) for c in result["changes"]]
    assert fields == [(1, "points"), (1, "scores"), (None, "scores")]
    assert result["changes"][0]["message"] == (
        f"under {rules[1].id}, in round 1 omer scores 5 instead of 0"
    )


def test_a_different_winner_is_explained_by_the_first_round_that_differs() -> None:
    rules = [
        parse_rules("israeli(score_limit=50,game_end=first_out)"),
        parse_rules("israeli(score_limit=50,game_end=first_out,assaf_penalty=10)"),
    ]
    result = compare_log(assaf_game().log(), rules)
    winners = [c for c in result["changes"] if c["field"] == "winners" and c["round"] is None]
    # israeli: lior 35 + 18 = 53 > 50 ends the game, omer wins; with a 10-point Assaf lior
    # has 15 + 18 = 33 and nobody is out yet
    assert result["results"][0]["final"]["winners"] == ["omer"]
    assert result["results"][1]["final"]["finished"] is False
    assert winners[0]["from"] == ["omer"] and winners[0]["to"] == []
    assert winners[0]["message"] == (
        f"under {rules[1].id} the game is not finished: in round 1 lior scores 15 instead of 35"
    )
    text = render_compare(result)
    assert "baseline" in text and "assaf_penalty=10" in text


def test_the_ruling_names_the_game_by_its_own_id_whole_and_a_fingerprint_cut() -> None:
    """A game's own id is its name (it was cut to 16 characters, as a fingerprint is)."""
    replays = Path(__file__).resolve().parents[2] / "replays"
    rules = [parse_rules("israeli"), parse_rules("classic")]
    named = compare_log(read_log(str(replays / "clean-assaf-reduction.jsonl")), rules)
    assert render_compare(named).splitlines()[0] == (
        "game friday-at-dana-2024-05-17: baseline israeli"
    )
    unnamed = compare_log(assaf_game().log(), rules)
    assert unnamed["game_id"] == unnamed["fingerprint"]
    assert render_compare(unnamed).splitlines()[0] == (
        f"game {unnamed['fingerprint'][:16]}: baseline israeli"
    )


def test_nothing_changes_between_equal_rule_sets() -> None:
    result = compare_log(
        assaf_game().log(), [parse_rules("israeli"), parse_rules("cardgames-zone")]
    )
    assert result["changes"] == []
    assert "Nothing changes" in render_compare(result)


def test_a_rule_set_that_ends_the_game_sooner_reports_the_rounds_not_played() -> None:
    result = compare_log(
        assaf_game().log(), [parse_rules("israeli"), parse_rules("israeli(score_limit=20)")]
    )
    rounds = [c for c in result["changes"] if c["field"] == "round"]
    assert rounds and rounds[0]["round"] == 2
    assert "round 2 is not played" in rounds[0]["message"]
    winners = [c for c in result["changes"] if c["field"] == "winners" and c["round"] is None]
    assert winners[0]["from"] == [] and winners[0]["to"] == ["omer"]
    assert winners[0]["message"].startswith(
        "under israeli(score_limit=20), omer wins and the game is over: "
    )


def test_findings_added_and_removed_are_changes() -> None:
    """A Yaniv at 7 is legal under israeli and a violation under classic: one change each
    way, even though the scores are the same."""
    log = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("lior")
        .showdown("lior", {"dana": "KS QS 3C", "lior": "AH 6C", "omer": "9C 3D"})
    ).log()
    israeli, classic = parse_rules("israeli"), parse_rules("classic")
    stricter = compare_log(log, [israeli, classic])["changes"]
    assert [c["field"] for c in stricter] == ["findings", "verdict"]
    assert stricter[0]["message"] == (
        "under classic, 1 finding added (yaniv.threshold of lior at event 3)"
    )
    looser = compare_log(log, [classic, israeli])["changes"]
    assert looser[0]["message"] == (
        "under israeli, 1 finding removed (yaniv.threshold of lior at event 3)"
    )
    assert "Nothing changes" not in render_compare(compare_log(log, [israeli, classic]))


def test_without_rules_the_declared_rules_meet_every_other_preset() -> None:
    from yaniv_audit.core.rules import PRESETS

    result = compare_log(assaf_game().log(), [])
    ids = [r["rules"]["id"] for r in result["results"]]
    assert ids[0] == "israeli" and "cardgames-zone" not in ids  # the same parameters
    assert set(ids) == set(PRESETS) - {"cardgames-zone"}


def test_a_player_out_under_one_rule_set_never_scores_0_instead_of_0() -> None:
    result = compare_log(
        assaf_game().log(), [parse_rules("israeli"), parse_rules("israeli(score_limit=30)")]
    )
    messages = [c["message"] for c in result["changes"]]
    assert "under israeli(score_limit=30), in round 2 lior scores nothing (instead of 18)" in (
        messages
    )  # lior is out after round 1 under the lower limit
    assert not any("scores 0 instead of" in m for m in messages)


def test_findings_at_one_event_count_one_each_in_what_changes() -> None:
    """Two claim.points at one event (dana's and omer's) are two findings, not one."""
    tie = parse_rules("israeli(assaf_on_tie=false)")
    result = compare_log(tie_dispute().log(), [parse_rules("israeli"), tie])
    messages = [c["message"] for c in result["changes"] if c["field"] == "findings"]
    assert messages == [
        f"under {tie.id}, 2 findings added (claim.points of dana at event 4, "
        "claim.points of omer at event 4)"
    ]
    back = compare_log(tie_dispute().log(), [tie, parse_rules("israeli")])
    assert [c["message"] for c in back["changes"] if c["field"] == "findings"] == [
        "under israeli, 2 findings removed (claim.points of dana at event 4, claim.points of "
        "omer at event 4)"
    ]
