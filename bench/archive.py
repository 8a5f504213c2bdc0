"""The archive at scale: ingest, audit --db beside the audit of the same files, size, memory
and every report, per archive size.

Run from the repository root (not part of the test suite):

    .venv/bin/python bench/archive.py --games 1000 --games 10000

For each size it builds a fresh archive in a temporary directory and prints one
line per measured step (the bulk audit of the same logs as files beside
audit --db, for comparison). Simulating games is slower than archiving them, so
the archive is built from a base of simulated games (``--base``, default 500,
cached in the temp directory) written out again as many times as needed, each
copy with a recorder field (``"_copy": N`` on its first event) so that every
copy is a distinct game with a fingerprint of its own. Each command runs as a
subprocess of its own, as a user runs it, and its wall time and peak memory
(the command and its workers) are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CLI = [sys.executable, "-m", "yaniv_audit.cli"]
REPORTS = [
    "leaderboard",
    "assaf-risk",
    "findings",
    "players",
    "rounds",
    "pickups",
    "seat-advantage",
    "reductions",
    "violations",
    "deal-odds",
]
#: runs a command and prints the peak RSS (KiB) of it and its workers: its own children
PEAK = (
    "import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=False); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def base_games(count: int) -> Path:
    """A cached directory of ``count`` simulated four-player games."""
    where = Path(tempfile.gettempdir()) / f"yaniv-audit-archive-bench-base-{count}"
    if not (where / ".done").exists():
        subprocess.run(
            [
                *CLI,
                "simulate",
                "--games",
                str(count),
                "--players",
                "4",
                "--seed",
                "11",
                "--out",
                str(where),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (where / ".done").write_text("ok")
    return where


def corpus(base: Path, games: int, out: Path) -> int:
    """Write ``games`` distinct logs into ``out`` from the base; their events."""
    logs = sorted(base.glob("*.jsonl"))
    out.mkdir(parents=True)
    events = 0
    for n in range(games):
        lines = logs[n % len(logs)].read_text().splitlines()
        first = json.loads(lines[0])
        first["_copy"] = n // len(logs)
        lines[0] = json.dumps(first)
        (out / f"g{n:06d}.jsonl").write_text("\n".join(lines) + "\n")
        events += len(lines)
    return events


def timed(args: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS in MiB of one command: the largest of the command and
    its workers, measured by a wrapper process of its own for each command."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *CLI, *args],
        check=False,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    seconds = time.perf_counter() - start
    said = done.stdout.strip().splitlines()
    peak = int(said[-1]) / 1024 if said else float("nan")  # nan: the command was killed
    return seconds, peak


def measure(base: Path, games: int, work: Path, quick: bool = False) -> Path:
    logs = work / "logs"
    events = corpus(base, games, logs)
    db = work / "archive.duckdb"
    print(f"\n{games:,} games, {events:,} events")
    seconds, rss = timed(["ingest", str(logs), "--db", str(db)])
    print(
        f"  ingest                  {seconds:8.2f} s  {events / seconds:>10,.0f} events/s  "
        f"peak RSS {rss:,.0f} MiB"
    )
    seconds, rss = timed(["audit", "--db", str(db), "--exit-zero"])
    print(
        f"  audit --db              {seconds:8.2f} s  {events / seconds:>10,.0f} events/s  "
        f"peak RSS {rss:,.0f} MiB"
    )
    files, rss = timed(["audit", str(logs), "--quiet", "--exit-zero"])  # a summary, as --db
    print(
        f"  audit of the files      {files:8.2f} s  {events / files:>10,.0f} events/s  "
        f"peak RSS {rss:,.0f} MiB  (the bulk audit; audit --db took "
        f"{seconds / files:.2f}x its time)"
    )
    size = os.path.getsize(db)
    print(
        f"  archive size            {size / 2**20:8.1f} MiB  {size / games / 1024:.1f} KiB a game"
    )
    if quick:
        return db
    for name in REPORTS:
        seconds, _ = timed(["report", name, "--db", str(db)])
        print(f"  report {name:16} {seconds:8.2f} s")
    seconds, _ = timed(["report", "rules-impact", "--rules", "classic", "--db", str(db)])
    print(f"  report rules-impact     {seconds:8.2f} s  (audits every game under classic first)")
    seconds, _ = timed(["report", "rules-impact", "--rules", "classic", "--db", str(db)])
    print(f"  report rules-impact     {seconds:8.2f} s  (again, nothing to audit)")
    seconds, _ = timed(["odds", "assaf", "5", "--db", str(db)])
    print(f"  odds assaf 5            {seconds:8.2f} s")
    seconds, _ = timed(["odds", "deal", "--rules", "israeli"])
    print(f"  odds deal               {seconds:8.2f} s  (no archive: exact counts)")
    seconds, _ = timed(["verify", "--db", str(db)])
    print(f"  verify                  {seconds:8.2f} s")
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        type=int,
        action="append",
        help="archive size to measure (repeatable; default 1000 and 10000)",
    )
    parser.add_argument(
        "--base",
        type=int,
        default=500,
        help="simulated games the archive is built from (default 500)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="ingest, audit --db and the audit of the files only (speed, "
        "peak memory): no reports, no verify",
    )
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="keep each archive built, as DIR/archive-GAMES.duckdb",
    )
    args = parser.parse_args()
    sizes = args.games or [1000, 10000]
    base = base_games(args.base)
    print(
        f"yaniv-audit archive bench: sizes {', '.join(f'{n:,}' for n in sizes)}; "
        f"{args.base} simulated base games; {os.cpu_count()} cores; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    for games in sizes:
        with tempfile.TemporaryDirectory(prefix="yaniv-archive-bench-") as work:
            db = measure(base, games, Path(work), args.quick)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.move(db, args.keep / f"archive-{games}.duckdb")


if __name__ == "__main__":
    main()
