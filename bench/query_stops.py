"""How soon work that must stop stops: ``yaniv-audit query`` at its ``--timeout`` or its
memory limit, and ``audit`` and ``simulate`` on two workers at Ctrl-C.

The suite checks that each stops, with its one line and exit status
(tests/archive/test_safe_sql.py, tests/test_bulk.py); this measures how long it takes,
which depends on the host and its load (so no test asserts it)::

    .venv/bin/python bench/query_stops.py             # every case once
    .venv/bin/python bench/query_stops.py --repeat 3  # each case's best and worst of 3

Each query is a ``python -m yaniv_audit query`` process on an archive of the sample
games (replays/*.jsonl, ingested and audited), timed from its start to its exit (the
interpreter's start, about 0.3 s, included). Each Ctrl-C is SIGINT to the process
group of an ``audit`` of replays/ twelve times over, or a ``simulate --games 5000``,
sent once their two workers are at work, timed from the signal to the exit.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
#: the statements of tests/archive/test_safe_sql.py, with the --timeout each is given
QUERIES = [
    ("SELECT count(*) FROM range(1000000000) a, range(1000) b", 1),
    (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
        1,
    ),
    ("SELECT count(*) FROM events a, events b, events c, events d, events e", 1),
    ("SELECT len(list_sort(range(300000000)))", 2),
    ("SELECT length(repeat('x', 4000000000))", 2),
    ("SELECT len(list(i)) FROM range(400000000) t(i)", 2),
]
CLI = [sys.executable, "-m", "yaniv_audit"]


def timed(command: list[str]) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode, done.stderr.strip()


def workers(pid: int) -> int:
    """How many processes of ``pid``'s process group there are (Linux /proc)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            count += int(fields[2]) == pid and fields[0] != "Z"
    return count


def ctrl_c(work: str, where: Path) -> tuple[float, int, str]:
    args = (
        [str(REPLAYS)] * 12
        if work == "audit"
        else ["--games", "5000", "--bot", "random", "--out", str(where / f"games-{time.time_ns()}")]
    )
    process = subprocess.Popen(
        [*CLI, work, *args, "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while workers(process.pid) < 4 and time.monotonic() < deadline:  # + fork server, 2 workers
        time.sleep(0.05)
    time.sleep(0.5)  # the workers are at work
    start = time.perf_counter()
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    return time.perf_counter() - start, process.returncode, err.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each case (default 1)")
    repeat = parser.parse_args().repeat
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores, {repeat} run(s) each")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        db = str(where / "games.duckdb")
        subprocess.run([*CLI, "ingest", *map(str, sorted(REPLAYS.glob("*.jsonl"))), "--db", db],
                       check=True, capture_output=True)  # fmt: skip
        subprocess.run([*CLI, "audit", "--db", db, "--exit-zero"], check=True, capture_output=True)
        cases = [
            (
                f"query --timeout {limit}: {sql}",
                [*CLI, "query", sql, "--timeout", str(limit), "--db", db],
            )
            for sql, limit in QUERIES
        ]
        for label, command in cases:
            runs = [timed(command) for _ in range(repeat)]
            took = sorted(t for t, _, _ in runs)
            print(f"{took[0]:6.2f} - {took[-1]:6.2f} s  exit {runs[-1][1]}  {label}")
            print(f"{'':27}{runs[-1][2]}")
        for work in ("audit", "simulate"):
            runs = [ctrl_c(work, where) for _ in range(repeat)]
            took = sorted(t for t, _, _ in runs)
            print(
                f"{took[0]:6.2f} - {took[-1]:6.2f} s  exit {runs[-1][1]}  Ctrl-C to {work} --jobs 2"
            )
            print(f"{'':27}{runs[-1][2]}")


if __name__ == "__main__":
    main()
