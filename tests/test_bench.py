"""Smoke test of ``yaniv-audit bench``: it runs and its numbers are sane.

No timing thresholds here: the targets are for the benchmark itself.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from yaniv_audit.batch import bench
from yaniv_audit.batch.bench import interleaved, parse_floor
from yaniv_audit.batch.chess_bench import (
    INSTALL_HINT,
    MAX_PLIES,
    chess_run,
    random_games_pgn,
    replay_pgn,
)

# one worker runs the whole file, so that its module fixtures are made once
# (pyproject: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("bench")


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", "bench", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def corpus_lines(directory: Path) -> tuple[int, int]:
    files = sorted(directory.glob("*.jsonl"))
    lines = sum(1 for f in files for line in f.read_bytes().split(b"\n") if line.strip())
    return len(files), lines


@pytest.fixture(scope="module")
def bench_json(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    corpus = tmp_path_factory.mktemp("bench") / "corpus"
    done = run_bench(
        "--games",
        "3",
        "--players",
        "3",
        "--corpus",
        str(corpus),
        "--jobs",
        "2",
        "--repeat",
        "1",
        "--chess-games",
        "2",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), corpus


def test_bench_generates_the_corpus_and_counts_every_line(bench_json: tuple[dict, Path]) -> None:
    result, corpus = bench_json
    files, lines = corpus_lines(corpus)
    assert files == 3
    assert result["corpus"]["files"] == 3
    assert result["corpus"]["events"] == lines > 0
    assert result["verdicts"] == {"clean": 3}  # simulated games audit clean
    assert result["run"]["reused"] is False
    assert result["run"]["bots"] == ["random", "greedy", "careful"]


def test_bench_numbers_are_sane(bench_json: tuple[dict, Path]) -> None:
    result, _ = bench_json
    stages = result["stages"]
    assert set(stages) == {
        "parse",
        "hashed",
        "codec",
        "validation",
        "replay",
        "fingerprint",
        "audit",
        "bulk",
    }
    for name, stage in stages.items():
        assert stage["seconds"] > 0, name
        assert stage["events_per_s"] > 0, name
        assert stage["vs_parse"] > 0, name
    assert stages["parse"]["vs_parse"] == 1
    # the audit parses every line and does much more: slower than the floor (the codec
    # need not be: msgspec parses and validates a line in one pass, about as fast as
    # orjson parses it, so a noisy run can put it on either side)
    assert 0 < stages["audit"]["vs_parse"] < 1
    assert stages["bulk"]["jobs"] == 2
    assert result["bulk_speedup"] == pytest.approx(
        stages["audit"]["seconds"] / stages["bulk"]["seconds"]
    )
    memory = result["memory"]
    assert memory["maxrss"] > 0
    streaming = memory["streaming"]
    assert streaming["games"] == 3 and streaming["games_large"] == 12
    assert streaming["maxrss"] > 0 and streaming["maxrss_large"] > 0
    assert [t["pass"] in (True, False) for t in result["targets"]] == [True] * 5


def test_bench_compares_with_python_chess(bench_json: tuple[dict, Path]) -> None:
    result, _ = bench_json
    chess = result["chess"]
    assert chess["games"] == 2
    assert chess["plies"] == replay_pgn(random_games_pgn(2))[1] > 0
    assert chess["plies_per_s"] == pytest.approx(chess["plies"] / chess["seconds"])
    assert chess["ratio"] == pytest.approx(
        result["stages"]["audit"]["events_per_s"] / chess["plies_per_s"]
    )
    assert any(t["target"].startswith("audit / python-chess") for t in result["targets"])


def test_random_chess_games_are_legal_and_the_same_every_time() -> None:
    import chess.pgn

    text = random_games_pgn(3, seed=4)
    assert text == random_games_pgn(3, seed=4) != random_games_pgn(3, seed=5)
    games, plies = replay_pgn(text)
    assert games == 3 and 3 <= plies <= 3 * MAX_PLIES
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None and not game.errors
    assert game.end().board().ply() == len(list(game.mainline_moves())) > 0


def test_without_python_chess_the_bench_says_how_to_install_it(
    bench_json: tuple[dict, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "chess", None)  # import chess fails, as when missing
    run, skipped = chess_run(games=2)
    assert run is None and skipped == {"skipped": INSTALL_HINT}
    assert "pip install 'yaniv-audit[bench]'" in INSTALL_HINT
    result, _ = bench_json
    result = {
        **result,
        "chess": skipped,
        "run": {
            "command": "yaniv-audit bench",
            "corpus_dir": "c",
            "reused": True,
            "repeat": 1,
            "cpus": 2,
            "python": "3",
            "orjson": "3",
            "version": "0",
        },
    }
    result["targets"] = bench.targets(result, 2)
    assert not any("python-chess" in t["target"] for t in result["targets"])
    assert f"(g) {INSTALL_HINT}" in bench.render(result)


def test_bench_reuses_the_corpus_and_prints_a_table(bench_json: tuple[dict, Path]) -> None:
    _, corpus = bench_json
    done = run_bench(
        "--corpus",
        str(corpus),
        "--jobs",
        "1",
        "--repeat",
        "1",
        "--no-memory-check",
        "--chess-games",
        "2",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "(reused)" in out
    for needle in (
        "parse floor",
        "codec",
        "replay alone",
        "audit end to end",
        "bulk audit",
        "speed-up",
        "peak RSS",
        "targets",
        "events/s",
        "python-chess",
        "plies/s",
    ):
        assert needle in out
    assert "PASS" in out or "MISS" in out
    assert "4x the games" not in out  # no streaming check asked for


def test_bench_rejects_an_unknown_bot(tmp_path: Path) -> None:
    done = run_bench("--games", "1", "--bot", "nobody", "--corpus", str(tmp_path / "c"))
    assert done.returncode == 2
    assert "unknown bot" in done.stderr


def test_parse_floor_counts_non_blank_lines(tmp_path: Path) -> None:
    log = tmp_path / "a.jsonl"
    log.write_bytes(b'{"type":"note","text":"a"}\n\n  \n{"type":"note","text":"b"}\r\n')
    assert parse_floor([str(log)]) == 2


def test_one_stage_keeps_the_fastest_and_stops_at_the_budget() -> None:
    calls: list[int] = []
    seconds, results, runs = interleaved({"x": lambda: calls.append(1) or len(calls)}, repeat=3)[
        "x"
    ]
    assert runs == 3 and results[-1] == 3 and seconds >= 0
    calls.clear()
    _, _, runs = interleaved({"x": lambda: calls.append(1)}, repeat=5, budget=0.0)["x"]
    assert runs == 1


def test_interleaved_runs_every_stage_once_a_round_and_keeps_each_fastest() -> None:
    order: list[str] = []
    pause = iter([0.02, 0.0, 0.0, 0.02])  # "slow" is slow in round 1, "fast" in round 2

    def stage(name: str) -> Callable[[], int]:
        def run() -> int:
            order.append(name)
            time.sleep(next(pause))
            return len(order)

        return run

    timed = interleaved({"slow": stage("slow"), "fast": stage("fast")}, repeat=2)
    assert order == ["slow", "fast", "slow", "fast"]  # in turn, not one stage's runs together
    assert timed["slow"][1] == [1, 3] and timed["fast"][1] == [2, 4]
    assert timed["slow"][2] == timed["fast"][2] == 2
    assert timed["slow"][0] < 0.015 and timed["fast"][0] < 0.015  # each one's best round
    order.clear()
    assert (
        interleaved(
            {"a": lambda: order.append("a"), "b": lambda: order.append("b")}, repeat=5, budget=0.0
        )["a"][2]
        == 1
    )
    assert order == ["a", "b"]  # the budget ends the rounds, never a round half run
