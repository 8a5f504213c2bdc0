"""Load of live tables: ``yaniv-audit serve`` on loopback (waitress), 20 tables, 4 phones
at each appending an entry every 2 s, 100 followers on server-sent events (issue 36).

Run from the repository root:

    .venv/bin/python bench/table_load.py                 # 60 s
    .venv/bin/python bench/table_load.py --seconds 30 --tables 10 --followers 50

It starts ``yaniv-audit serve`` on a fresh archive (``--threads``, default 120: each
follower holds one of them, and the server takes all but an eighth for followers, so
100 fit), opens the tables, and runs for ``--seconds``:

- each table's ``--writers`` phones (threads) each append the table's next entry
  (the next line of ``replays/simulated/classic/game-00027.jsonl``) every
  ``--every`` seconds, with ``If-Match`` the count they last saw: four phones at one
  table race, and a loser gets 412 with the count and sends its entry again at once
  (up to twice), as a phone does;
- ``--followers`` clients (spread over the tables) follow them with
  ``Accept: text/event-stream``, reconnecting with ``Last-Event-ID`` when the server
  ends a stream (every 25 s).

- ``--board-clients`` clients (default 20, as ``bench/load.py`` measures the board)
  ask for the board of a stored 600-event game (``GET /api/v1/games/<fp>/board``,
  ``replays/simulated/classic/game-00003.jsonl``, ingested and audited before the
  server starts, its board asked for once before the run), each on its own keep-alive
  connection, one request after another (``--board-every S``: one every S seconds),
  from a process of their own (so that the 200-odd threads of the phones and
  followers do not hold their clock back).

It prints the append latency (an acknowledged append's request to answer), the delay
from an append's answer to every follower of its table having the entry (the latest
follower's arrival minus the answer's; 0 when all had it first), both p50/p95/p99, and
the answers by status: every 5xx is a failure, and the board's requests/s and
p50/p95/p99 (goal p95 50 ms, as bench/load.py's). The clients share the machine's two
cores with the server, so the figures are an upper bound of what the server alone
costs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "replays" / "simulated" / "classic" / "game-00027.jsonl"
#: the stored game whose board is asked for (bench/load.py's)
BOARD_GAME = ROOT / "replays" / "simulated" / "classic" / "game-00003.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Run:
    def __init__(self, port: int, lines: list[bytes], deadline: float) -> None:
        self.port, self.lines, self.deadline = port, lines, deadline
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.latency: list[float] = []
        #: (table, seq) -> when the writer had its answer
        self.acked: dict[tuple[str, int], float] = {}
        #: (table, seq) -> the arrival at each follower
        self.arrived: dict[tuple[str, int], list[float]] = {}
        self.reconnects = 0
        self.followers_of: Counter[str] = Counter()

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def writer(self, table: str, key: str, every: float, offset: float) -> None:
        con = self.connection()
        seen = 1
        time.sleep(offset)
        while time.monotonic() < self.deadline and seen < len(self.lines):
            started = time.monotonic()
            for _ in range(3):  # a 412: the count it gives, and the entry sent again at once
                sent = time.monotonic()
                con.request(
                    "POST",
                    f"/api/v1/tables/{table}/events",
                    body=self.lines[seen],
                    headers={
                        "Authorization": f"Bearer {key}",
                        "If-Match": f'"{seen}"',
                        "Content-Type": "application/x-ndjson",
                    },
                )
                response = con.getresponse()
                body = json.loads(response.read())
                answered = time.monotonic()
                with self.lock:
                    self.statuses[response.status] += 1
                    if response.status == 200:
                        self.latency.append(answered - sent)
                        self.acked[table, body["seq"] - 1] = answered
                if response.status in (200, 412):
                    seen = body["seq"]
                if response.status != 412 or seen >= len(self.lines):
                    break
            time.sleep(max(0.0, every - (time.monotonic() - started)))
        con.close()

    def follower(self, table: str) -> None:
        last: int | None = None
        while time.monotonic() < self.deadline:
            con = self.connection()
            headers = {"Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            con.request("GET", f"/api/v1/tables/{table}/events", headers=headers)
            response = con.getresponse()
            with self.lock:
                self.statuses[response.status] += 1
            if response.status != 200:
                response.read()
                con.close()
                time.sleep(1)
                continue
            try:
                while True:
                    line = response.readline()
                    if not line:
                        break
                    if line.startswith(b"id: "):
                        last = int(line[4:])
                        now = time.monotonic()
                        with self.lock:
                            self.arrived.setdefault((table, last), []).append(now)
            except (TimeoutError, OSError):
                pass
            con.close()
            if time.monotonic() < self.deadline:
                with self.lock:
                    self.reconnects += 1


def board_client(
    port: int, path: str, until: float, every: float, out: multiprocessing.Queue[list[float]]
) -> None:
    """Ask for ``path`` until ``until`` (time.time()), one request after another or one
    every ``every`` s; the latencies (s) put on ``out``."""
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    latencies: list[float] = []
    while time.time() < until:
        started = time.perf_counter()
        con.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = con.getresponse()
        response.read()
        elapsed = time.perf_counter() - started
        if response.status != 200:
            raise SystemExit(f"GET {path}: {response.status}")
        latencies.append(elapsed)
        if every:
            time.sleep(max(0.0, every - elapsed))
    con.close()
    out.put(latencies)


def boards(
    port: int,
    path: str,
    clients: int,
    until: float,
    every: float,
    out: multiprocessing.Queue[list[float]],
) -> None:
    """``clients`` board clients (threads), in a process of their own."""
    inner: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
    threads = [
        threading.Thread(target=board_client, args=(port, path, until, every, inner))
        for _ in range(clients)
    ]
    for thread in threads:
        thread.start()
    found = [x for _ in threads for x in inner.get()]
    for thread in threads:
        thread.join()
    out.put(found)


def board_fingerprint() -> str:
    sys.path.insert(0, str(ROOT))
    from yaniv_audit.core.merkle import tree_hash
    from yaniv_audit.io.codec import read_log

    return tree_hash(read_log(BOARD_GAME).leaves).hex()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--followers", type=int, default=100)
    parser.add_argument("--every", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=120)
    parser.add_argument("--board-clients", type=int, default=20)
    parser.add_argument(
        "--board-every",
        type=float,
        default=0.0,
        help="seconds between one board client's requests (0: none)",
    )
    args = parser.parse_args()
    lines = GAME.read_bytes().splitlines()
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="yaniv-table-load-") as tmp:
        # the server's messages to a file: a pipe nobody reads fills, and the server's
        # next warning (waitress's "task queue depth") would block it
        said = Path(tmp) / "serve.txt"
        db = Path(tmp) / "t.duckdb"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "yaniv_audit.cli",
                "ingest",
                str(BOARD_GAME),
                "--db",
                str(db),
                "--jobs",
                "1",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        subprocess.run(
            [
                sys.executable,
                "-m",
                "yaniv_audit.cli",
                "audit",
                "--db",
                str(db),
                "--jobs",
                "1",
                "--exit-zero",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            cwd=ROOT,
        )
        board_path = f"/api/v1/games/{board_fingerprint()}/board"
        with said.open("w") as log:
            server = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "yaniv_audit.cli",
                    "serve",
                    "--db",
                    str(db),
                    "--port",
                    str(port),
                    "--threads",
                    str(args.threads),
                    "--workers",
                    "0",
                ],
                stderr=log,
                text=True,
                cwd=ROOT,
                env=dict(os.environ),
            )
        while "yaniv-audit on " not in said.read_text():
            time.sleep(0.1)
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            tables = []
            for n in range(args.tables):
                con = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                first = json.loads(lines[0]) | {"game_id": f"load-{n}"}
                con.request("POST", "/api/v1/tables", body=json.dumps(first))
                opened = json.loads(con.getresponse().read())
                con.close()
                tables.append((opened["id"], opened["key"]))
            con = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            for _ in range(20):  # the board built once and cached, as a viewer finds it
                con.request("GET", board_path)
                assert con.getresponse().read()
            con.close()
            board_out: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
            viewers = multiprocessing.Process(
                target=boards,
                args=(
                    port,
                    board_path,
                    args.board_clients,
                    time.time() + args.seconds,
                    args.board_every,
                    board_out,
                ),
            )
            if args.board_clients:
                viewers.start()
            started = time.monotonic()
            run = Run(port, lines, started + args.seconds)
            threads = [
                threading.Thread(
                    target=run.follower, args=(tables[i % len(tables)][0],), daemon=True
                )
                for i in range(args.followers)
            ]
            for i in range(args.followers):
                run.followers_of[tables[i % len(tables)][0]] += 1
            threads += [
                threading.Thread(
                    target=run.writer,
                    args=(table, key, args.every, (w * args.every / args.writers) + 0.01 * n),
                    daemon=True,
                )
                for n, (table, key) in enumerate(tables)
                for w in range(args.writers)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=args.seconds + 60)
            board_latency = board_out.get(timeout=120) if args.board_clients else []
            if args.board_clients:
                viewers.join()
        finally:
            server.terminate()
            server.wait(timeout=30)
            warned = [line for line in said.read_text().splitlines() if "WARNING" in line]
    delays = []
    missing = 0
    for (table, seq), answered in run.acked.items():
        got = run.arrived.get((table, seq), [])
        if len(got) < run.followers_of[table]:
            missing += 1
            continue
        delays.append(max(0.0, max(got) - answered))
    served = sum(run.statuses.values())
    print(
        f"{args.tables} tables x {args.writers} writers (an append each every "
        f"{args.every:g} s), {args.followers} followers, {args.seconds:g} s, waitress "
        f"{args.threads} threads"
    )
    print(
        f"appends acknowledged: {len(run.latency):,} "
        f"({len(run.latency) / args.seconds:.1f}/s); answers: "
        + ", ".join(f"{n} {s}" for s, n in sorted(run.statuses.items()))
        + f"; 5xx: {sum(n for s, n in run.statuses.items() if s >= 500)} of {served}"
    )
    print(
        f"append latency      p50 {pct(run.latency, 0.5) * 1000:7.1f} ms   "
        f"p95 {pct(run.latency, 0.95) * 1000:7.1f} ms   "
        f"p99 {pct(run.latency, 0.99) * 1000:7.1f} ms"
    )
    print(
        f"answer to followers p50 {pct(delays, 0.5) * 1000:7.1f} ms   "
        f"p95 {pct(delays, 0.95) * 1000:7.1f} ms   p99 {pct(delays, 0.99) * 1000:7.1f} ms   "
        f"({len(delays):,} appends every follower had; {missing} not by the end)"
    )
    every = f"one every {args.board_every:g} s each" if args.board_every else "one after another"
    print(
        f"board (GET /api/v1/games/<fp>/board, {args.board_clients} clients, {every}): "
        f"{len(board_latency):,} ({len(board_latency) / args.seconds:.1f}/s)   "
        f"p50 {pct(board_latency, 0.5) * 1000:6.1f} ms   "
        f"p95 {pct(board_latency, 0.95) * 1000:6.1f} ms   "
        f"p99 {pct(board_latency, 0.99) * 1000:6.1f} ms   (goal p95 50 ms)"
    )
    print(
        f"follower reconnects (streams ended after 25 s): {run.reconnects}; mean "
        f"latency {statistics.mean(run.latency) * 1000 if run.latency else 0:.1f} ms; "
        f"server warnings: {len(warned)}" + (f" (the last: {warned[-1]})" if warned else "")
    )


if __name__ == "__main__":
    main()
