"""Peak memory (RSS) per MB of input of `yaniv-audit validate` and `yaniv-audit audit
--json --jobs 1`: a long clean game (scoresheet rounds, as many as asked), the same as a
JSON array, the same with withdrawals (a round's showdown taken back and written again
every 1,000 rounds, and one that takes nothing back at the end), a line of 300 MB, 30 MB
of ``[{}, {}, ...]``, and a directory of simulated games. Each command is one process,
its peak counted by ``/usr/bin/time -f %M`` (a small parent: a process forked from a
large one starts with the parent's peak).

Run from the repository root (not part of the test suite):

    .venv/bin/python bench/memory.py [--rounds 100000] [--vs DIR]

``--vs`` also runs another tree's package (``python -m yaniv_audit`` from that directory)
with this one's interpreter, on the same inputs: the before of a change. The inputs are
written once, by a process of their own, to a temporary directory (about 600 MB with a
million rounds) and deleted after.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["a", "b"],
    "rules": "israeli(score_limit=99999)",
}


def rounds(count: int) -> list[dict[str, object]]:
    """A clean game of ``count`` scoresheet rounds that never ends: a calls Yaniv on 1 point
    each round and b scores 2, which the reductions take from 100 back to 50."""
    events: list[dict[str, object]] = [GAME]
    for n in range(1, count + 1):
        events += [
            {"type": "round_started", "round": n, "starter": "a"},
            {"type": "showdown", "caller": "a", "hands": {"a": ["AH"], "b": ["2H"]}},
        ]
    return events


def with_withdrawals(events: list[dict[str, object]]) -> list[dict[str, object]]:
    """``events`` with, every 1,000 rounds, the last round's showdown taken back and written
    again, and at the end a withdrawal of the first round's showdown, which takes nothing
    back (an older entry while later ones stand)."""
    out: list[dict[str, object]] = []
    for event in events:
        out.append(event)
        if event["type"] == "showdown" and len(out) % 2000 == 1:
            out += [{"type": "withdraw", "seqs": [len(out) - 1]}, dict(event)]
    return [*out, {"type": "withdraw", "seqs": [2]}]


def write_inputs(tmp: Path, count: int) -> list[tuple[str, str, Path]]:
    """(name, "", path) of each input."""
    events = rounds(count)
    log = tmp / "rounds.jsonl"
    log.write_bytes(b"".join(json.dumps(e).encode() + b"\n" for e in events))
    withdrawn = tmp / "withdrawals.jsonl"
    withdrawn.write_bytes(
        b"".join(json.dumps(e).encode() + b"\n" for e in with_withdrawals(events))
    )
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
    subprocess.run(
        [
            sys.executable,
            "-m",
            "yaniv_audit",
            "simulate",
            "-q",
            "--games",
            "100",
            "--players",
            "4",
            "--seed",
            "3",
            "--jobs",
            "2",
            "--out",
            str(games),
        ],
        check=True,
        cwd=ROOT,
    )
    return [
        (f"{count:,} rounds (.jsonl)", "", log),
        (f"{count:,} rounds (.json)", "", array),
        (f"{count:,} r., withdrawals (.jsonl)", "", withdrawn),
        ("a line of 300 MB (.jsonl)", "", line),
        ("30 MB of [{}, ...] (.json)", "", empty),
        ("100 simulated games (a directory)", "", games),
    ]


def size_of(path: Path) -> int:
    if path.is_dir():
        return sum(p.stat().st_size for p in path.iterdir())
    return path.stat().st_size


def peak(checkout: Path, command: str, path: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, exit status) of one command on ``path``."""
    with tempfile.NamedTemporaryFile("r") as said:
        args = [
            "/usr/bin/time",
            "-f",
            "%M",
            "-o",
            said.name,
            sys.executable,
            "-m",
            "yaniv_audit",
            command,
        ]
        if command == "audit":
            args += ["--json", "--jobs", "1"]
        args += [str(path)] if not path.is_dir() else sorted(str(p) for p in path.iterdir())
        start = time.perf_counter()
        done = subprocess.run(
            args, cwd=checkout, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False
        )
        seconds = time.perf_counter() - start
        kib = int(said.read().split()[-1])
    return kib / 1024, seconds, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument(
        "--rounds",
        type=int,
        default=100_000,
        help="rounds of the long game (a million: about 80 MB)",
    )
    parser.add_argument("--vs", type=Path, help="another tree to measure beside this one")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # the inputs' process
    args = parser.parse_args()
    if args.write:
        for name, _, path in write_inputs(args.write, args.rounds):
            print(f"{name}\t{path}")
        return
    trees = [ROOT] + ([args.vs.resolve()] if args.vs else [])
    with tempfile.TemporaryDirectory() as tmp:
        listed = subprocess.run(
            [sys.executable, __file__, "--rounds", str(args.rounds), "--write", tmp],
            check=True,
            capture_output=True,
            text=True,
        )
        inputs = [line.split("\t") for line in listed.stdout.splitlines()]
        print(
            f"{'input':34} {'MB':>6} {'command':8} "
            + " ".join(f"{'peak MB':>8} {'MB/MB':>6} {'s':>5} {'exit':>4}" for _ in trees)
            + "   ("
            + ", then ".join(str(t) for t in trees)
            + ")"
        )
        for name, where in inputs:
            path = Path(where)
            mb = size_of(path) / 1e6
            for command in ("validate", "audit"):
                row = f"{name:34} {mb:6.1f} {command:8}"
                for tree in trees:
                    rss, seconds, code = peak(tree, command, path)
                    row += f" {rss:8.0f} {rss / mb:6.2f} {seconds:5.1f} {code:4}"
                print(row, flush=True)


if __name__ == "__main__":
    main()
