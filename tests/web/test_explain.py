"""Every round in words, read from the report: the game page says each round as the
command line's ruling says it (one story, in every language), names isolated and the
deciding parameters linked; the chart draws those scores."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from yaniv_audit.cli.render import render_report
from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.io.codec import read_log
from yaniv_audit.lang import Words
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
def app() -> Flask:
    return create_app({"ARCHIVE": "/nonexistent/none.duckdb", "TESTING": True})


@pytest.fixture(scope="module")
def english(app: Flask) -> Iterator[None]:
    with app.test_request_context("/?lang=en"):
        yield


def text(html: object) -> str:
    return re.sub(r"<[^>]+>", "", str(html))


@pytest.mark.parametrize("lang", ["en", "he", "de"])
@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_the_page_says_each_round_as_the_ruling_does(app: Flask, path: Path, lang: str) -> None:
    """One story of a round: the game page's sentences, joined, are the command line's
    ruling of the round, in every language (the page only isolates names and links the
    parameters)."""
    log = read_log(path)
    report = audit_log(log, None)
    ruling = render_report(report, words=Words(lang)).splitlines()
    with app.test_request_context(f"/?lang={lang}"):
        explained = explain(report, {})
    for why in explained:
        said = [text(s) for s in why.sentences]
        at = next(i for i, line in enumerate(ruling) if line.startswith("  ") and said[0] in line)
        story = " ".join(said[:-1] if why.params else said)
        assert ruling[at] == "  " + story
        if why.params:
            assert ruling[at + 1] == "    " + said[-1]


def test_an_assaf_a_tie_and_a_reduction_in_words(english: None) -> None:
    rounds = {
        e.round: [text(s) for s in e.sentences]
        for e in explain(
            audit_log(read_log(ROOT / "replays" / "clean-assaf-reduction.jsonl"), None), {}
        )
    }
    assert rounds[2][0] == (
        "Round 2 (opened by dana, moves checked): omer called Yaniv at 6 and was Assafed by "
        "dana and lior. Hands: dana 6, lior 4, omer 6. Points: dana 6, lior 0, omer 36."
    )
    assert rounds[2][-1].startswith("deciding rule: a tie is an Assaf (assaf_on_tie=true)")
    assert "omer landed on 100 and drops to 50" in rounds[3][0]
    assert rounds[8][-2] == "Out: omer."


def test_names_are_isolated_and_parameters_link_to_the_rules_page(english: None) -> None:
    log = read_log(ROOT / "replays" / "clean-assaf-reduction.jsonl")
    why = explain(audit_log(log, None), {})[1]
    html = " ".join(str(s) for s in why.sentences)
    assert "<bdi>omer</bdi> called Yaniv at 6" in html
    assert '<a class="param" href="/rules#assaf_penalty"><code>assaf_penalty</code></a>=30' in html
    assert why.params == ["assaf_on_tie", "assaf_penalty", "assaf_adds_hand", "assaf_scoring"]


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
        text(s) for s in why.sentences
    )
