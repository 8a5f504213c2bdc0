"""Regenerate the golden rulings, tests/golden/rulings/<case>.<lang>.txt: what a person
reads of six logs in every language (``python tests/golden/regenerate.py``; read the
diff before committing it: tests/test_golden_rulings.py fails on any change).

Each case is a command line of ``yaniv-audit``, run in this process with the file names
relative to the repository, so that the text is the same on every machine.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "tests" / "golden" / "rulings"
LANGS = ("en", "he", "ru", "de", "ko")

#: each case: its name and the command's arguments (before --lang)
CASES: dict[str, list[str]] = {
    # a scoresheet dispute: written points and scores the rules do not give
    "scoresheet-dispute": ["audit", "replays/wrong-score.jsonl"],
    # a tie (6 against 6) under both settings of assaf_on_tie
    "tie-assaf-on-tie": ["audit", "replays/clean-assaf-reduction.jsonl", "--rules", "israeli"],
    "tie-not-assaf": [
        "audit",
        "replays/clean-assaf-reduction.jsonl",
        "--rules",
        "israeli(assaf_on_tie=false)",
    ],
    # a game recorded move by move, with a rule broken
    "moves-rule-broken": ["audit", "replays/middle-card.jsonl"],
    # an impossible (corrupt) log
    "impossible": ["audit", "replays/impossible-draw.jsonl"],
    # one log under three rule sets
    "compare-three": [
        "compare",
        "replays/double-assaf.jsonl",
        "--rules",
        "classic",
        "--rules",
        "israeli",
        "--rules",
        "namu",
    ],
    # the step-by-step replay
    "replay": ["replay", "replays/middle-card.jsonl"],
    # a scoresheet round with points but neither hands nor totals: they cannot be checked
    "scoresheet-unchecked": ["audit", "tests/golden/logs/scoresheet-unchecked.jsonl"],
    # a log that cannot be read: every problem, with its line, field and near miss
    "unreadable": ["validate", "tests/golden/logs/unreadable.jsonl", "replays/middle-card.jsonl"],
}


def ruling(args: list[str], lang: str) -> str:
    """What ``yaniv-audit ARGS --lang LANG`` writes on standard output."""
    from yaniv_audit.cli import cli

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(cli, [*args, "--lang", lang], env={"NO_COLOR": "1"})
    finally:
        os.chdir(here)
    return result.stdout


def main() -> int:
    HERE.mkdir(parents=True, exist_ok=True)
    for name, args in CASES.items():
        for lang in LANGS:
            (HERE / f"{name}.{lang}.txt").write_text(ruling(args, lang), encoding="utf-8")
        print(f"{name}: {len(LANGS)} languages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
