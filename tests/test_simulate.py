"""The simulator: legal, varied and byte-for-byte deterministic games."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from yaniv_audit.audit import audit_file
from yaniv_audit.cli import cli
from yaniv_audit.codec import read_log
from yaniv_audit.rules import PRESETS, parse_rules
from yaniv_audit.simulate import BOTS, Rng, SimulationError, simulate_game, to_jsonl


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("bot", list(BOTS))
def test_simulated_games_audit_clean_under_their_own_rules(preset: str, bot: str,
                                                          tmp_path: Path) -> None:
    events = simulate_game(PRESETS[preset], 4, [bot], seed=3)
    path = tmp_path / "game.jsonl"
    path.write_text(to_jsonl(events))
    report = audit_file(str(path))
    assert report["verdict"] == "clean", report["findings"][:3]
    assert report["rules"]["id"] == preset
    assert report["final"]["finished"], "a simulated game is played to its end"
    assert report["final"]["winners"] == events[-1]["winner"]


def test_games_exercise_the_rules_they_are_played_under() -> None:
    kinds: Counter[str] = Counter()
    for g in range(6):
        events = simulate_game(parse_rules("de-wiki(slap_down=true)"), 5,
                               ["random", "greedy", "careful"], seed=11, game=g)
        kinds.update(e["type"] for e in events)
        kinds.update("swap" for e in events if "swap" in e)
        kinds.update("assaf" for e in events if e["type"] == "round_ended"
                     and any(v >= 30 for v in e["points"].values()))
    assert kinds["slap"] > 0 and kinds["reshuffle"] > 0 and kinds["assaf"] > 0
    assert kinds["yaniv"] == kinds["showdown"] == kinds["round_ended"]


def test_rng_is_splitmix64() -> None:
    # reference values of SplitMix64 seeded with 1234567 (Vigna's splitmix64.c)
    rng = Rng(1234567)
    assert [rng.next64() for _ in range(3)] == [
        6457827717110365317, 3203168211198807973, 9817491932198370423]


def test_same_arguments_give_identical_logs_in_two_processes(tmp_path: Path) -> None:
    script = ("import sys, hashlib; from yaniv_audit.simulate import simulate_game, to_jsonl;"
              "from yaniv_audit.rules import parse_rules;"
              "t = ''.join(to_jsonl(simulate_game(parse_rules('classic'), 3, "
              "['random', 'careful'], 42, g)) for g in range(3));"
              "print(hashlib.sha256(t.encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True, env={"PYTHONHASHSEED": str(seed)}).stdout
               for seed in (1, 2)}
    local = hashlib.sha256("".join(
        to_jsonl(simulate_game(parse_rules("classic"), 3, ["random", "careful"], 42, g))
        for g in range(3)).encode()).hexdigest()
    assert digests == {local + "\n"}


def test_a_different_seed_gives_a_different_game() -> None:
    a = simulate_game(PRESETS["israeli"], 3, ["random"], seed=1)
    b = simulate_game(PRESETS["israeli"], 3, ["random"], seed=2)
    assert a != b


def test_impossible_arguments_are_refused() -> None:
    with pytest.raises(SimulationError, match="do not fit"):
        simulate_game(parse_rules("israeli(hand_size=20)"), 8, ["random"], 1)
    with pytest.raises(SimulationError, match="unknown bot"):
        simulate_game(PRESETS["israeli"], 3, ["psychic"], 1)


def test_simulate_command_writes_valid_logs(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "games"
    result = runner.invoke(cli, ["simulate", "--rules", "namu", "--players", "3", "--games", "4",
                                 "--seed", "9", "--bot", "greedy", "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.jsonl"))
    assert [f.name for f in files] == [f"game-{i:05d}.jsonl" for i in range(4)]
    for f in files:
        assert read_log(f).game.rules == PRESETS["namu"]
    again = tmp_path / "again"
    runner.invoke(cli, ["simulate", "--rules", "namu", "--players", "3", "--games", "4",
                        "--seed", "9", "--bot", "greedy", "--out", str(again)])
    assert [f.read_bytes() for f in files] == [
        f.read_bytes() for f in sorted(again.glob("*.jsonl"))]
    audit = runner.invoke(cli, ["audit", str(out), "--jobs", "2"])
    assert audit.exit_code == 0, audit.output
    assert "4 games: 4 clean" in audit.output


def test_simulate_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    bad_bot = runner.invoke(cli, ["simulate", "--bot", "psychic", "--out", str(tmp_path)])
    assert bad_bot.exit_code == 2 and "unknown bot 'psychic'" in bad_bot.output
    bad_rules = runner.invoke(cli, ["simulate", "--rules", "israeli(yaniv_max=x)",
                                    "--out", str(tmp_path)])
    assert bad_rules.exit_code == 2 and "yaniv_max" in bad_rules.output
    two_in_one = runner.invoke(cli, ["simulate", "--games", "2", "--out",
                                     str(tmp_path / "one.jsonl")])
    assert two_in_one.exit_code == 2
