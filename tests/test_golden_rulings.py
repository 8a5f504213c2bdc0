"""The rulings a person reads, in every language: golden text for six logs (a scoresheet
dispute, a tie under both settings of assaf_on_tie, a game recorded move by move with a
rule broken, an impossible log, compare under three rule sets, a replay), each in
English, Hebrew, Russian, German and Korean (tests/golden/regenerate.py writes them);
a ruling not in English has no English word but the names a log or the rules give."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

from regenerate import CASES, HERE, LANGS, ROOT, ruling

from yaniv_audit.core.messages import TEMPLATES
from yaniv_audit.core.rules import PRESETS

CARD = re.compile(r"(?<![A-Za-z0-9])(?:[A2-9TJQK][CDHS]|JK)(?![A-Za-z0-9])")
#: the game's own words, kept by a catalogue that writes them in Latin letters (German)
GAME_WORDS = {"de": {"Yaniv", "Assaf", "geassaft"}}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", list(CASES))
def test_the_ruling_is_as_read_and_kept(name: str, lang: str) -> None:
    """Any change of a ruling's words shows here: run tests/golden/regenerate.py, read
    the diff, and commit it."""
    kept = (HERE / f"{name}.{lang}.txt").read_text(encoding="utf-8")
    assert ruling(CASES[name], lang) == kept


def allowed_words(args: list[str]) -> set[str]:
    """What a ruling may write in Latin letters whatever its language: every word of the
    log (player names, the game's id, the rule set it declares, a note's text), the
    arguments (file names, rule sets), the rule parameters' ids and the finding codes."""
    words: set[str] = set()
    for arg in args:
        words |= set(re.findall(r"[A-Za-z_]+", arg))
        path = ROOT / arg
        if path.suffix in (".jsonl", ".json") and path.exists():
            words |= set(re.findall(r"[A-Za-z_]+", path.read_text(encoding="utf-8")))
    for rules in PRESETS.values():
        words |= set(rules.params()) | {rules.id}
        words |= set(re.findall(r"[A-Za-z_]+", rules.id))
    words |= {part for key in TEMPLATES for part in re.findall(r"[a-z_]+", key.split(":")[0])}
    return words


def english_vocabulary() -> set[str]:
    """Every word of the English templates and of the pages' strings (lower case)."""
    from yaniv_audit.lang import read_catalogue

    return {
        w.lower()
        for m in read_catalogue("de")
        if m.id
        for text in (m.id if isinstance(m.id, tuple) else (m.id,))
        for w in re.findall(r"[A-Za-z]{2,}", re.sub(r"\{[^}]*\}|%\(\w+\)[sd]", " ", text))
    }


def german_vocabulary() -> set[str]:
    """Every word the German catalogue writes (``in``, ``Zeile``): German, whether or not
    English has it too."""
    from yaniv_audit.lang import read_catalogue

    return {
        w.lower()
        for m in read_catalogue("de")
        if m.string
        for text in (m.string if isinstance(m.string, tuple) else (m.string,))
        for w in re.findall(r"[^\W\d_]{2,}", text)
    }


def english_left(text: str, allowed: set[str], lang: str = "he") -> list[str]:
    text = CARD.sub(" ", text)
    text = re.sub(r"\[[a-z_.]+\]", " ", text)  # a finding's code, the detail after it
    text = re.sub(r"\b[a-z_]+=[\w.\-]+", " ", text)  # a rule parameter and its value
    text = re.sub(r"\b[a-z_]+\.[a-z_]+(@\d+)?", " ", text)  # a finding code
    text = re.sub(r"\b[0-9a-f]{16}\b", " ", text)  # a game's fingerprint
    text = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b", " ", text)  # an id of the format (game_started)
    if lang == "de":  # written in Latin letters: an English word is one German has not
        english, german = english_vocabulary(), german_vocabulary()
        return [
            w
            for w in re.findall(r"[^\W\d_]{2,}", text)
            if w not in allowed and w.lower() in english and w.lower() not in german
        ]
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in allowed]


@pytest.mark.parametrize("lang", [code for code in LANGS if code != "en"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_ruling_in_another_language_writes_no_english_word(name: str, lang: str) -> None:
    allowed = allowed_words(CASES[name]) | GAME_WORDS.get(lang, set())
    text = (HERE / f"{name}.{lang}.txt").read_text(encoding="utf-8")
    assert english_left(text, allowed, lang) == []
    # and the check finds English when there is some
    english = (HERE / f"{name}.en.txt").read_text(encoding="utf-8")
    assert english_left(english, allowed, lang) != []


def test_audit_in_another_language_imports_neither_flask_nor_duckdb() -> None:
    """``audit --lang he`` reads the catalogue with Babel, never through the web app."""
    code = (
        "import sys\n"
        "from yaniv_audit.cli import main\n"
        "try:\n"
        "    main(['audit', 'replays/middle-card.jsonl', '--lang', 'he'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in ('flask', 'duckdb') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert "הפרות כללים" in lines[0]  # it did speak Hebrew
    assert lines[-1] == "[]"


@pytest.mark.parametrize(
    ("environ", "lang"),
    [
        ({"LANG": "he_IL.UTF-8"}, "he"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "he_IL.UTF-8", "LC_ALL": "de_DE.UTF-8"}, "de"),
        ({"LANG": "he_IL.UTF-8", "LANGUAGE": "fr:ko"}, "ko"),
        ({}, "en"),
    ],
)
def test_the_language_comes_from_the_environment_as_gettext_reads_it(
    environ: dict[str, str], lang: str
) -> None:
    from yaniv_audit.lang import from_environment

    assert from_environment(environ) == lang
