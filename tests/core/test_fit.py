"""``rules fit``'s search (core/fit.py): the rule sets a game fits, found from the game."""

from __future__ import annotations

import pytest
from conftest import LONG, REPLAYS

from yaniv_audit.batch.fit_sweep import report, sweep
from yaniv_audit.core import fit
from yaniv_audit.core.audit import replay_log
from yaniv_audit.core.fit import contains, fit_log, fitted_sets
from yaniv_audit.core.rules import parse_rules
from yaniv_audit.io.codec import read_log


def test_a_call_above_the_declared_limit_fits_a_higher_yaniv_max() -> None:
    log = read_log(REPLAYS / "yaniv-over-limit.jsonl")  # classic: gil calls at 6
    fit = fit_log(log)
    assert fit.start.id == "classic"
    [alt] = fit.alternatives
    assert alt.rules.id == "classic(yaniv_max=6)" and not alt.findings
    assert alt.params["yaniv_max"] == ("range", [6, 99_999])
    assert alt.events["yaniv_max"][0] == 22  # the call at 6
    assert "limit_rule" in fit.open
    assert 0 < fit.replays < 200


def test_a_card_from_the_middle_of_a_run_fits_pickup_any() -> None:
    fit = fit_log(read_log(REPLAYS / "middle-card.jsonl"))
    [alt] = fit.alternatives
    assert alt.changed == ("pickup",)
    assert alt.params["pickup"] == ("fixed", "any")
    assert alt.events["pickup"] == [5]


def test_a_clean_game_keeps_its_rules_and_says_what_it_cannot_tell() -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    fit = fit_log(log)
    [alt] = fit.alternatives
    assert alt.rules.id == "israeli" and alt.changed == ()
    # lior stayed in at 183, omer went out at 207 (score_limit exceed)
    assert alt.params["score_limit"] == ("range", [183, 206])
    assert alt.params["assaf_penalty"] == ("fixed", 30)  # omer 6 + 30 = 36
    assert alt.params["reductions"] == ("fixed", ((100, 50), (200, 100)))
    # the tie at the call (round 2) changes nobody's points: the log cannot tell
    assert "assaf_on_tie" in fit.open and "assaf_on_tie" not in alt.params


def test_a_wrong_starting_penalty_is_found_back() -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    fit = fit_log(log, parse_rules("israeli(assaf_penalty=25)"))
    assert fit.clean
    assert [a.changed for a in fit.alternatives] == [("assaf_penalty",)]
    assert fit.alternatives[0].rules.assaf_penalty == 30


def test_trade_offs_come_back_as_alternatives() -> None:
    # omer's 36 for an Assafed call at 6: hand + 30 (assaf_adds_hand), or a flat 36
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    fit = fit_log(log, parse_rules("israeli(assaf_adds_hand=false)"))
    assert fit.clean
    found = {a.changed: a for a in fit.alternatives}
    assert set(found) == {("assaf_adds_hand",), ("assaf_penalty",)}
    assert found[("assaf_adds_hand",)].rules.id == "israeli"
    flat = found[("assaf_penalty",)]
    assert flat.rules.id == "israeli(assaf_adds_hand=false,assaf_penalty=36)"
    assert flat.params["assaf_penalty"] == ("fixed", 36)
    for alt in fit.alternatives:
        assert not replay_log(log, alt.rules).findings


def test_two_assafers_fit_a_penalty_for_each() -> None:
    log = read_log(REPLAYS / "double-assaf.jsonl")
    fit = fit_log(log, parse_rules("israeli"))
    assert fit.clean
    assert any(a.params.get("assaf_multi_penalty") == ("fixed", 20) for a in fit.alternatives)


def test_a_recorders_mistake_fits_nothing_and_says_what_is_left() -> None:
    fit = fit_log(read_log(REPLAYS / "wrong-score.jsonl"))
    assert not fit.clean
    left = {f.code for f in fit.alternatives[0].findings}
    assert left == {"claim.points", "claim.scores"}


def test_every_rule_set_of_an_answer_audits_clean() -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    fit = fit_log(log)
    sample = fitted_sets(fit.alternatives[0])
    assert len(sample) > 5
    for rules in sample:
        assert contains(fit, rules)
        assert not replay_log(log, rules).findings, rules.id


def test_simulated_games_fit_the_rules_they_were_played_under() -> None:
    # the long sweep: YANIV_AUDIT_LONG=1, or python -m yaniv_audit.batch.fit_sweep
    # (bench/RESULTS.md)
    result = sweep(500, 200) if LONG else sweep(12, 6)
    assert not result.failures, report(result)
    assert result.games >= (500 if LONG else 12) * 0.9
    assert result.perturbed >= result.games // 2


def test_the_search_of_a_long_log_stops_sooner(monkeypatch: pytest.MonkeyPatch) -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    far = parse_rules("namu")
    unbounded = fit_log(log, far).replays
    monkeypatch.setattr(fit, "SEARCH_EVENTS", 20 * len(log.events))  # 20 replays' worth
    bounded = fit_log(log, far)
    assert bounded.replays < unbounded
    assert bounded.alternatives  # still the closest found
