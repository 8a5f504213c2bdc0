"""Golden replays: every hand-written log in replays/ against its checked-in report.

To accept a deliberate change of the engine's output, regenerate with
``python tests/regen_golden.py`` and review the diff like code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yaniv_audit.batch.bulk import audit_file

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
GOLDEN = Path(__file__).resolve().parents[1] / "golden"
LOGS = sorted(REPLAYS.glob("*.jsonl"))


def test_there_are_golden_replays_for_every_log() -> None:
    assert len(LOGS) >= 6
    for log in LOGS:
        assert (GOLDEN / f"{log.stem}.json").is_file(), log.name


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_report_matches_the_golden_report_field_by_field(log: Path) -> None:
    expected = json.loads((GOLDEN / f"{log.stem}.json").read_text())
    report = audit_file(str(log))
    assert report.pop("file") == str(log)
    assert report.pop("engine").startswith("yaniv-audit ")
    assert set(report) == set(expected)
    for field in ("game_id", "fingerprint", "rules", "verdict", "final"):
        assert report[field] == expected[field], field
    assert report["findings"] == expected["findings"]
    assert len(report["rounds"]) == len(expected["rounds"])
    for got, want in zip(report["rounds"], expected["rounds"], strict=True):
        assert got == want, f"round {want['round']}"


# The stories the README of replays/ tells, checked under the other rule sets it names.
@pytest.mark.parametrize(
    ("name", "rules", "verdict", "codes"),
    [
        ("middle-card", "israeli", "violations", ["draw.pile_card"]),
        ("middle-card", "namu", "clean", []),
        ("yaniv-over-limit", "classic", "violations", ["yaniv.threshold"]),
        ("yaniv-over-limit", "israeli", "clean", []),
        ("two-decks", "israeli(decks=2)", "clean", []),
        ("two-decks", "israeli", "corrupt", ["card.too_many"]),
        # a slap not allowed leaves its card beneath the throw: udi may not take the 8H
        (
            "slap-down",
            "israeli",
            "violations",
            ["slap.not_allowed", "slap.not_allowed", "draw.pile_card"],
        ),
        ("impossible-draw", "israeli", "corrupt", ["card.not_in_hand"]),
        ("wrong-score", "israeli", "claims", ["claim.points", "claim.scores"]),
    ],
)
def test_replay_stories_under_other_rules(
    name: str, rules: str, verdict: str, codes: list[str]
) -> None:
    from yaniv_audit.core.rules import parse_rules

    report = audit_file(str(REPLAYS / f"{name}.jsonl"), parse_rules(rules))
    assert report["verdict"] == verdict
    assert [f["code"] for f in report["findings"]] == codes


@pytest.mark.parametrize("log", LOGS, ids=[p.stem for p in LOGS])
def test_json_lines_are_exactly_what_json_dumps_writes(log: Path) -> None:
    from yaniv_audit.core.audit import to_json_line

    report = audit_file(str(log))
    assert to_json_line(report) == json.dumps(report, ensure_ascii=False, separators=(",", ":"))
    assert to_json_line({"big": 10**30}) == '{"big":1000000000000000000000000000000}'
