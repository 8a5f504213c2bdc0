"""Findings as data: every finding the engine writes is its code's template filled from its
``params``, said in English (the report's message), Hebrew, Russian, German and Korean with
every value kept and no English left; every template has every translation."""

from __future__ import annotations

import re
import string
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from builders import HANDS, STOCK, UPCARD, LogBuilder, standard
from conftest import LONG

from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.messages import (
    AND,
    OR,
    RULE_WORDS,
    TEMPLATES,
    WORDS,
    card_text,
    render,
    template_key,
)
from yaniv_audit.core.rules import PRESETS
from yaniv_audit.io.codec import parse_jsonl
from yaniv_audit.lang import catalogue_of, read_catalogue

LANGS = ("he", "ru", "de", "ko")

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "yaniv_audit" / "core" / "engine"  # the package: one module per part of the game
SLAP_HANDS = {"dana": "4C 4D 9H KS QS", "lior": HANDS["lior"], "omer": HANDS["omer"]}
BIG = {
    "p1": "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "p2": "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS JK",
}


def built() -> list[tuple[LogBuilder, str | None]]:
    """Small games for the findings the sample logs never show."""
    slap = LogBuilder(rules="israeli(slap_down=true)").deal(
        1, "dana", SLAP_HANDS, UPCARD, "4H 6C 6H"
    )
    two = {"dana": "4C 4D", "lior": "7S 8S", "omer": "AD AS"}
    return [
        (standard().draw("dana", "stock"), None),  # turn.no_throw
        (standard().turn("dana", "5C", "pile", "KD"), "israeli(pile_needs_combo=true)"),
        (slap.turn("dana", "9H").slap("dana", "4H"), None),  # slap.no_match
        (
            LogBuilder(rules="israeli(hand_size=2,slap_down=true)")
            .deal(1, "dana", two, "KD", "4H 6C")
            .turn("dana", "4C 4D")
            .slap("dana", "4H"),
            None,
        ),
        (
            standard()
            .turn("dana", "AH 2H 3H", "pile", "KD")
            .turn("lior", "7S 8S 9S")
            .yaniv("omer", 6),
            None,
        ),  # claim.yaniv_total
        (standard(), "israeli(hand_size=20)"),  # deal.too_big
        (
            LogBuilder(("p1", "p2"), "israeli(hand_size=26,jokers=1)")
            .deal(1, "p1", BIG, "KS", "", rest=False)
            .turn("p1", "AC", "stock"),
            None,
        ),
        (LogBuilder().deal(1, "dana", HANDS, UPCARD, STOCK, rest=False), None),
        (standard().turn("dana", "AH 2H 3H", "pile", "QH"), None),  # card.not_on_pile
        (
            standard().discard("dana", "AH 2H 3H").draw("dana", "stock", swap="KD"),
            None,
        ),  # draw.swap with a stock draw
    ]


@cache
def corpus() -> dict[tuple[str, str], tuple[dict[str, Any], tuple[str, ...]]]:
    """Every (code, message) the sample logs, the test cases, the golden reports and the
    games above give, under their declared rules and every preset, with the players."""
    found: dict[tuple[str, str], tuple[dict[str, Any], tuple[str, ...]]] = {}
    logs = []
    for path in sorted([*ROOT.glob("replays/**/*.jsonl"), *ROOT.glob("tests/cases/**/*.jsonl")]):
        if "simulated" in path.parts and path.name != "game-00000.jsonl" and not LONG:
            # played by the rules, they give no finding under their own (4 s of audits:
            # the long sweep reads them all)
            continue
        try:
            # the hand-written samples and a simulated game of each kind under every preset
            every = path.parent.name == "replays" or path.name == "game-00000.jsonl"
            logs.append((parse_jsonl(path.read_bytes(), path.name), every))
        except LogFormatError:
            continue
    reports = []
    for log, every in logs:
        for rules in [None, *PRESETS.values()] if every else [None]:
            try:
                reports.append((audit_log(log, rules), tuple(log.players)))
            except LogFormatError:
                continue
    for builder, spec in built():
        reports.append((builder.audit(spec), builder.players))
    for report, players in reports:
        for finding in report["findings"]:
            found.setdefault((finding["code"], finding["message"]), (finding["params"], players))
    return found


def engine_codes() -> set[str]:
    source = "\n".join(path.read_text("utf-8") for path in sorted(ENGINE.glob("*.py")))
    return set(
        re.findall(r"self\._(?:violation|impossible|claim)\(\s*event,\s*\"([a-z_.]+)\"", source)
    )


def test_every_code_the_engine_writes_is_in_the_corpus() -> None:
    codes = engine_codes()
    assert len(codes) > 30, codes
    assert codes <= {code for code, _ in corpus()}, codes - {code for code, _ in corpus()}


def fields(template: str) -> set[str]:
    return {
        f"{name}:{spec}"
        for _, name, spec, _ in string.Formatter().parse(template)
        if name is not None
    }


def test_every_code_has_a_template() -> None:
    codes = {key.split(":")[0] for key in TEMPLATES if "." in key.split(":")[0]}
    assert engine_codes() <= codes
    for (code, _), (params, _) in corpus().items():
        assert template_key(code, params) in TEMPLATES


def test_every_finding_is_its_template_filled_from_its_params() -> None:
    for (code, message), (params, _) in corpus().items():
        assert render(code, params) == message, (code, params)
        # the params are the data: the rule parameters named in the message are in "rule"
        for name in re.findall(r"\b([a-z_]+)=", message):
            assert name in params.get("rule", {}) or name == "reshuffle", (code, message)


@pytest.mark.parametrize("lang", LANGS)
def test_every_template_has_a_translation_with_the_same_placeholders(lang: str) -> None:
    """Every key, the findings' and every other sentence's of a ruling (the round
    stories, verdicts, compare's changes, moves), is in all five languages (a template
    of placeholders and marks alone, ``{parts:sentences}``, has no words to translate)."""
    catalogue = {str(m.id): m for m in read_catalogue(lang) if m.id}
    assert "say.round" in TEMPLATES and "move.discard" in TEMPLATES  # the sentences too
    for key, english in [
        *TEMPLATES.items(),
        *WORDS.items(),
        *RULE_WORDS.items(),
        ("or", OR),
        ("and", AND),
    ]:
        if not re.search(r"[A-Za-z]", re.sub(r"\{[^}]*\}", "", english)):
            continue
        message = catalogue.get(english)
        assert message is not None and message.string and not message.fuzzy, (lang, key)
        assert fields(str(message.string)) <= fields(english), (lang, key, message.string)
        assert fields(english) - fields(str(message.string)) <= {
            f for f in fields(english) if ":#" in f
        }, (lang, key, message.string)


CARD = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")
SETTING = re.compile(r"\b[a-z_]+=[\w{}:,-]+")
NUMBER = re.compile(r"-?\d+")
#: words the languages share with the English messages, or that are no English: the
#: game's own words, parameter names, the event type, a times sign
SHARED = {
    "in",
    "Hand",
    "Assaf",
    "Assafer",
    "Yaniv",
    "Joker",
    "x",
    "reductions",
    "round_started",
    "Ende",
}


def words(text: str, players: tuple[str, ...]) -> set[str]:
    for name in sorted(players, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", " ", text)
    text = SETTING.sub(" ", CARD.sub(" ", text))
    return set(re.findall(r"[A-Za-z_]{2,}", text))


@pytest.mark.parametrize("lang", LANGS)
def test_every_finding_is_said_in_every_language(lang: str) -> None:
    gettext = catalogue_of(lang).ugettext
    english = set().union(*(words(m, p) for (_, m), (_, p) in corpus().items()))
    for (code, message), (params, players) in corpus().items():
        said = render(code, params, gettext)
        left = words(said, players) & english - SHARED
        if lang != "de":  # German is written in Latin letters: only English words count
            left = words(said, players) - SHARED
        assert not left, f"{lang}: English left in {code}: {said!r} ({left})"
        for pattern in (CARD, SETTING, NUMBER):
            for value in set(pattern.findall(message)):
                assert said.count(value) >= message.count(value), (
                    f"{lang}: {value} lost from {code}: {message!r} -> {said!r}"
                )
        for name in players:  # (a one-letter name is also an English word: "a")
            if len(name) > 1 and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", message):
                assert name in said, f"{lang}: {name} lost: {message!r} -> {said!r}"


def test_cards_are_written_as_the_reader_writes_them() -> None:
    params = {
        "case": "middle",
        "player": "omer",
        "card": "8H",
        "layer": ["7H", "8H", "9H"],
        "ends": ["7H", "9H"],
        "rule": {"pickup": "ends"},
    }
    assert render("draw.pile_card", params) == (
        "omer took 8H from the middle of 7H 8H 9H; only 7H or 9H may be taken (pickup=ends)"
    )
    assert render("draw.pile_card", params, suits=True) == (
        "omer took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or 9♥ may be taken (pickup=ends)"
    )
    assert render("draw.pile_card", params, catalogue_of("he").ugettext, suits=True) == (
        "omer: לקיחת 8♥ מאמצע 7♥ 8♥ 9♥; מותר לקחת רק 7♥ או 9♥ (pickup=ends)"
    )
    assert [card_text(c, True) for c in ("TC", "JK", None)] == ["10♣", "JK", "??"]


def test_no_module_reads_a_message_back() -> None:
    """The messages are written, never parsed: no regular expression over a message."""
    for path in (ROOT / "yaniv_audit").rglob("*.py"):
        source = path.read_text("utf-8")
        assert not re.search(r"re\.\w+\([^()]*\[\"message\"\]", source), path
        assert not re.search(r"\[\"message\"\]\.(?:removeprefix|split|startswith)", source), path
