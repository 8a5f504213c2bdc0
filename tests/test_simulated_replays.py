"""The simulated games shipped in replays/simulated/ audit clean and are reproducible."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.core.rules import parse_rules

FOLDER = Path(__file__).resolve().parent.parent / "replays" / "simulated"
GAMES = sorted(FOLDER.rglob("*.jsonl"))


def test_there_are_a_few_hundred_games_across_presets() -> None:
    assert len(GAMES) >= 200
    assert {p.parent.name for p in GAMES} >= {
        "israeli",
        "classic",
        "cardgames-zone",
        "namu",
        "de-wiki",
        "mcleod",
        "jhyap",
    }


@pytest.mark.parametrize("folder", sorted({p.parent for p in GAMES}), ids=lambda p: p.name)
def test_every_simulated_game_audits_clean(folder: Path) -> None:
    for game in sorted(folder.glob("*.jsonl")):
        report = audit_file(str(game))
        assert report["verdict"] == "clean", (game.name, report.get("findings", [])[:2])
        assert report["final"]["finished"], game.name


def test_make_sh_reproduces_the_games_byte_for_byte() -> None:
    cases = (
        ("namu", "namu", 3),
        ("slap-down", "israeli(slap_down=true)", 4),
        ("caller-starts", "israeli(starter=caller)", 4),
    )
    for folder, rules, players in cases:
        events = simulate_game(
            parse_rules(rules), players, ["careful", "greedy", "random"], seed=2026, game=1
        )
        assert (FOLDER / folder / "game-00001.jsonl").read_text() == to_jsonl(events)


def test_the_caller_starts_games_open_rounds_with_an_assafed_caller() -> None:
    """Under starter=caller the caller opens the next round even when Assafed (the round's
    winner is then an Assafer): the sample games show it, every one audited clean."""
    opened = 0
    for game in sorted((FOLDER / "caller-starts").glob("*.jsonl")):
        report = audit_file(str(game))
        assert report["rules"]["params"]["starter"] == "caller", game.name
        rounds = report["rounds"]
        for this, after in itertools.pairwise(rounds):
            if this["assaf"] and after["starter"] == this["caller"]:
                assert this["caller"] not in this["winners"]
                opened += 1
    assert opened >= 10
