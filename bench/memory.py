"""Peak memory (RSS) per MB of input of `yaniv-audit validate` and `yaniv-audit audit
--json --jobs 1`: a long clean game (scoresheet rounds, as many as asked), the same as a
JSON array, a line of 300 MB, 30 MB of ``[{}, {}, ...]``, and a directory of simulated
games. Each command is one process, its peak the kernel's count for it (``wait4``).

Run from the repository root (not part of the test suite):

    .venv/bin/python bench/memory.py [--rounds 100000] [--checkout DIR]

``--checkout`` runs another tree's package (``python -m yaniv_audit`` from that directory)
with this one's interpreter: the before of a change. The inputs are written once to a
temporary directory (about 400 MB with the defaults) and deleted after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = {"type": "game_started", "format": "yaniv-log/1", "players": ["a", "b"],
        "rules": "israeli(score_limit=99999)"}


def rounds(count: int) -> list[dict[str, object]]:
    """A clean game of ``count`` scoresheet rounds that never ends: a calls Yaniv on 1 point
    each round and b scores 2, which the reductions take from 100 back to 50."""
    events: list[dict[str, object]] = [GAME]
    for n in range(1, count + 1):
        events += [{"type": "round_started", "round": n, "starter": "a"},
                   {"type": "showdown", "caller": "a", "hands": {"a": ["AH"], "b": ["2H"]}}]
    return events


def write_inputs(tmp: Path, count: int) -> list[tuple[str, str, Path]]:
    """(name, commands, path) of each input."""
    events = rounds(count)
    log = tmp / "rounds.jsonl"
    log.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events))
    array = tmp / "rounds.json"
    array.write_bytes(json.dumps(events).encode())
    line = tmp / "line.jsonl"
    with line.open("wb") as out:
        out.write(json.dumps(GAME).encode() + b'\n{"type":"note","text":"')
        block = b"x" * (1 << 20)
        for _ in range(300):
            out.write(block)
        out.write(b'"}\n')
    empty = tmp / "empty-objects.json"
    empty.write_bytes(b"[" + b",".join([b"{}"] * 10_000_000) + b"]")
    games = tmp / "games"
    subprocess.run([sys.executable, "-m", "yaniv_audit", "simulate", "-q", "--games", "100",
                    "--players", "4", "--seed", "3", "--jobs", "2", "--out", str(games)],
                   check=True, cwd=ROOT)
    return [(f"{count:,} rounds (.jsonl)", "validate audit", log),
            (f"{count:,} rounds (.json)", "validate audit", array),
            ("a line of 300 MB", "validate audit", line),
            ("30 MB of [{}, ...]", "validate audit", empty),
            ("100 simulated games (a directory)", "validate audit", games)]


def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size


def peak(checkout: Path, command: str, path: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, exit status) of one command on ``path``."""
    args = [sys.executable, "-m", "yaniv_audit", command]
    if command == "audit":
        args += ["--json", "--jobs", "1"]
    args += [str(path)] if not path.is_dir() else sorted(str(p) for p in path.iterdir())
    start = time.perf_counter()
    process = subprocess.Popen(args, cwd=checkout, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    return usage.ru_maxrss / 1024, time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--rounds", type=int, default=100_000,
                        help="rounds of the long game (a million: about 80 MB)")
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="the tree whose package is measured")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        inputs = write_inputs(Path(tmp), args.rounds)
        print(f"{args.checkout}")
        print(f"{'input':36} {'MB':>7} {'command':9} {'peak MB':>8} {'MB/MB':>7} "
              f"{'s':>6} exit")
        for name, commands, path in inputs:
            mb = size_of(path) / 1e6
            for command in commands.split():
                rss, seconds, code = peak(args.checkout.resolve(), command, path)
                print(f"{name:36} {mb:7.1f} {command:9} {rss:8.0f} {rss / mb:7.2f} "
                      f"{seconds:6.1f} {code}")


if __name__ == "__main__":
    main()
