"""The compare page's "what changes" sentences in the page's language, from the fields of
each change (the report keeps its English message)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from yaniv_audit.core.audit import compare_log, other_tables
from yaniv_audit.io.codec import read_log
from yaniv_audit.web import create_app
from yaniv_audit.web.change_text import change_text

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "replays").glob("*.jsonl"))
ENGLISH = re.compile(
    r"\b(under|instead|round|rounds|scores|wins|win|verdict|played|finished"
    r"|nobody|final)\b"
)


def all_changes() -> list[tuple[dict[str, object], list[dict[str, object]]]]:
    out = []
    for path in SAMPLES:
        log = read_log(path)
        changes = compare_log(log, [log.game.rules, *other_tables(log)[1:]])["changes"]
        for c in changes:
            if c["field"] != "findings":  # the page lists findings added and removed itself
                out.append((c, [d for d in changes if d["rules"] == c["rules"]]))
    return out


CHANGES = all_changes()


def test_the_samples_change_every_kind_of_thing() -> None:
    fields = {(c["field"], c["round"] is None) for c, _ in CHANGES}
    assert {
        ("verdict", True),
        ("round", False),
        ("points", False),
        ("scores", False),
        ("winners", True),
        ("scores", True),
    } <= fields


@pytest.mark.parametrize("lang", ["he", "ru", "de", "ko"])
def test_every_change_is_said_in_the_language_with_its_values(lang: str) -> None:
    app = create_app({"TESTING": True, "ARCHIVE": ":memory:"})
    with app.test_request_context(f"/?lang={lang}"):
        for change, changes in CHANGES:
            text = change_text(change, changes)
            english = str(change["message"])
            assert change["rules"] in text
            numbers = set(
                re.findall(
                    r"\d+", english.split(": ", 1)[0] if change["field"] == "winners" else english
                )
            )
            assert numbers <= set(re.findall(r"\d+", text)), (english, text)
            if lang != "de":  # German shares words such as "Runde" with nothing, but "in"
                assert not ENGLISH.search(text.replace(str(change["rules"]), "")), text


def test_in_english_the_sentence_reads_as_the_report_says() -> None:
    app = create_app({"TESTING": True, "ARCHIVE": ":memory:"})
    with app.test_request_context("/?lang=en"):
        verdicts = [(c, cs) for c, cs in CHANGES if c["field"] == "verdict"]
        change, changes = verdicts[0]
        # the verdicts by their plain names, as the command line says them
        plain = {"clean": "clean", "claims": "wrong claims", "violations": "rules broken"}
        assert change_text(change, changes) == (
            f"under {change['rules']}: the verdict is {plain[change['to']]} instead of "
            f"{plain[change['from']]}"
        )


def test_every_change_is_said_from_its_data_not_its_message() -> None:
    """The page reads a change's fields and params, never its English message: with the
    message blanked out, every sentence is the same."""
    app = create_app({"TESTING": True, "ARCHIVE": ":memory:"})
    with app.test_request_context("/?lang=he"):
        for change, changes in CHANGES:
            said = change_text(change, changes)
            blank = [{**c, "message": "?"} for c in changes]
            assert change_text({**change, "message": "?"}, blank) == said, change
    rounds = [c for c, _ in CHANGES if c["field"] == "round"]
    assert rounds and all({"first", "last"} <= set(c["params"]) for c in rounds)
