"""Every score explained in words, read from the report: the sentences say what the
rulings of the sample games and the shared cases say, and the chart draws those scores."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.io.codec import read_log
from yaniv_audit.web import create_app
from yaniv_audit.web.explain import explain, score_chart

ROOT = Path(__file__).resolve().parents[2]


def readable(path: Path) -> bool:
    try:
        audit_log(read_log(path), None)
    except LogFormatError:  # a case the replay refuses has no rounds to explain
        return False
    return True


LOGS = [
    p
    for p in sorted((ROOT / "replays").glob("*.jsonl"))
    + sorted((ROOT / "tests" / "cases" / "fidelity").glob("*.jsonl"))
    if readable(p)
]


@pytest.fixture(scope="module")
def english() -> Iterator[None]:
    app = create_app({"ARCHIVE": "/nonexistent/none.duckdb", "TESTING": True})
    with app.test_request_context("/?lang=en"):
        yield


def words(path: Path) -> dict[int, list[str]]:
    log = read_log(path)
    report = audit_log(log, None)
    return {
        e.round: [re.sub(r"<[^>]+>", "", str(s)) for s in e.sentences]
        for e in explain(report, dict(log.game.names))
    }


def test_an_assaf_a_tie_and_a_reduction_in_words(english: None) -> None:
    rounds = words(ROOT / "replays" / "clean-assaf-reduction.jsonl")
    assert rounds[2] == [
        "omer called Yaniv at 6; dana had 6, lior had 4: Assaf.",
        "An equal total is an Assaf (assaf_on_tie).",
        "omer scores 6 + 30 = 36 (assaf_penalty).",
        "dana scores 6 (their hand).",
        "lior scores 0 (the lowest Assafer, assaf_scoring).",
    ]
    assert "omer lands on 100 and drops to 50 (reductions)." in rounds[3]
    assert rounds[8][-1] == "omer passes the limit with 207 and is out (score_limit, limit_rule)."


def test_the_german_penalty_per_assafer(english: None) -> None:
    rounds = words(ROOT / "tests" / "cases" / "fidelity" / "13-multi-assaf-message.jsonl")
    assert "a scores 5 + 2 × 20 = 45 (assaf_multi_penalty)." in rounds[1]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_every_score_said_is_the_rulings(english: None, path: Path) -> None:
    """Each player the ruling scores is said to score exactly that, once per round."""
    log = read_log(path)
    report = audit_log(log, None)
    for rnd, why in zip(report["rounds"], explain(report, dict(log.game.names)), strict=True):
        text = [re.sub(r"<[^>]+>", "", str(s)) for s in why.sentences]
        for player, points in rnd["points"].items():
            said = [s for s in text if s.startswith(f"{player} scores ")]
            assert len(said) == 1, (rnd["round"], player, text)
            assert re.search(
                rf"(^| ){points}[ .)]|= {points} ", said[0].removeprefix(f"{player} scores ")
            ), (rnd["round"], player, points, said[0])


def test_names_are_isolated_and_parameters_link_to_the_rules_page(english: None) -> None:
    log = read_log(ROOT / "replays" / "clean-assaf-reduction.jsonl")
    why = explain(audit_log(log, None), {})[1]
    html = " ".join(str(s) for s in why.sentences)
    assert "<bdi>omer</bdi>" in html
    assert '<a class="param" href="/rules#assaf_penalty"><code>assaf_penalty</code></a>' in html


def test_the_chart_draws_the_running_scores_with_the_limit() -> None:
    report = audit_log(read_log(ROOT / "replays" / "clean-assaf-reduction.jsonl"), None)
    chart = score_chart(report, ["dana", "lior", "omer"])
    assert chart is not None
    omer = chart.lines[2]
    assert omer["score"] == 207 and len(omer["points"].split()) == len(report["rounds"]) + 1
    assert [m["kind"] for m in omer["marks"]] == ["assaf", "reduction"]
    assert [g["kind"] for g in chart.guides] == ["limit", "reduction", "reduction"]
    assert chart.ymax >= 213


def test_a_tie_that_is_no_assaf_names_its_rule_in_plain_words(english: None) -> None:
    from tests.builders import tie_dispute

    report = tie_dispute().audit("israeli(assaf_on_tie=false)")
    (why,) = explain(report, {})
    assert "assaf_on_tie" in why.params
    assert "deciding rule: a tie is no Assaf: the caller wins (assaf_on_tie=false)" in " ".join(
        str(s) for s in why.sentences
    )
