"""The board data of a stored game before and after issue 11, interleaved (not part of the
test suite): two source trees of yaniv-audit, each serving the same archive in turn.

    git archive main | tar -x -C /tmp/before
    .venv/bin/python bench/load_before_after.py /tmp/before .

The archive (the 600-event game of bench/load.py) is built by the "after" tree.
The "before" tree is asked for ``/api/games/<fp>`` (its board route), the
"after" one for ``/api/v1/games/<fp>/board``; 20 clients, ``--requests`` after
``--warmup``, ``--rounds`` rounds alternating the two.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import load


def serve(tree: Path, db: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = load.free_port()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "yaniv_audit.cli", "serve", "--db", str(db), "--port", str(port)],
        cwd=tree,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{tree}: serve did not start")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    fp = load.fingerprint(load.GAME)
    with tempfile.TemporaryDirectory(prefix="yaniv-before-after-") as tmp:
        db = Path(tmp) / "games.duckdb"
        env = {**os.environ, "PYTHONPATH": str(args.after.resolve())}
        for command in (
            ["ingest", str(load.GAME), "--jobs", "1"],
            ["audit", "--jobs", "1", "--exit-zero"],
        ):
            subprocess.run(
                [sys.executable, "-m", "yaniv_audit.cli", *command, "--db", str(db)],
                check=True,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        sides = [
            ("before", args.before.resolve(), f"/api/games/{fp}"),
            ("after", args.after.resolve(), f"/api/v1/games/{fp}/board"),
        ]
        for round_no in range(1, args.rounds + 1):
            for name, tree, path in sides:
                proc, port = serve(tree, db)
                try:

                    def make(n: int, path: str = path) -> load.Request:
                        return ("GET", path, None)

                    load.drive(port, make, args.clients, args.warmup, True)
                    latencies, wall = load.drive(port, make, args.clients, args.requests, True)
                finally:
                    proc.terminate()
                    proc.wait(timeout=30)
                print(
                    f"round {round_no} {name:<6} board data: {len(latencies) / wall:7.1f} "
                    f"req/s  p50 {load.percentile(latencies, 0.5):7.1f} ms  p95 "
                    f"{load.percentile(latencies, 0.95):7.1f} ms",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
