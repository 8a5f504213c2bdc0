"""The bulk audit on Dask against ``audit --db``: events/s on this machine.

Run from the repository root (not part of the test suite; needs the ``dask`` extra):

    .venv/bin/python bench/dask_audit.py --games 10000

It builds an archive of ``--games`` games the way ``bench/archive.py`` does
(simulated four-player games written out again as distinct games), exports it by
month, and then runs, interleaved, ``--repeat`` times each, every command a fresh
process: ``audit --db --again`` (the in-process bulk audit, all cores) and
``audit --parquet --scheduler local --workers N`` for each N of ``--workers``. It
prints each run's wall time, and for the Dask runs the audit alone (from the first
task sent to the last result back, as the command prints it) apart from starting
the local cluster. The rule set is each game's declared one (one audit per game).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from archive import CLI, base_games, corpus


def timed(args: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run([*CLI, *args], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--base", type=int, default=500)
    parser.add_argument("--workers", type=int, action="append", default=None)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    workers = args.workers or [1, 2]
    with tempfile.TemporaryDirectory(prefix="yaniv-dask-bench-") as tmp:
        where = Path(tmp)
        events = corpus(base_games(args.base), args.games, where / "logs")
        db = where / "archive.duckdb"
        subprocess.run(
            [*CLI, "ingest", str(where / "logs"), "--db", str(db)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        shutil.rmtree(where / "logs")
        subprocess.run(
            [*CLI, "export", str(where / "export"), "--db", str(db)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        print(
            f"{args.games} games, {events:,} events; each command a fresh process, "
            f"{args.repeat} runs each, interleaved"
        )
        for run in range(args.repeat):
            seconds, _ = timed(["audit", "--db", str(db), "--again", "--exit-zero"])
            print(
                f"run {run + 1}  audit --db --again (all cores)        "
                f"{seconds:7.1f} s  {events / seconds:>9,.0f} events/s"
            )
            for n in workers:
                out = where / f"results-{n}"
                shutil.rmtree(out, ignore_errors=True)
                seconds, text = timed(
                    [
                        "audit",
                        "--parquet",
                        str(where / "export"),
                        "--scheduler",
                        "local",
                        "--workers",
                        str(n),
                        "--out",
                        str(out),
                        "--exit-zero",
                    ]
                )
                found = re.search(r"in ([\d.]+) s on .*?\(([\d,]+) events/s; ([\d.]+) s more", text)
                if not found:
                    sys.exit(f"unexpected output of audit --parquet: {text}")
                audit, rate, start = found.groups()
                print(
                    f"run {run + 1}  audit --parquet, {n} worker{'s' if n > 1 else ' '}     "
                    f"    {seconds:7.1f} s  {events / seconds:>9,.0f} events/s  "
                    f"(audit alone {audit} s, {rate} events/s; cluster start {start} s)"
                )


if __name__ == "__main__":
    main()
