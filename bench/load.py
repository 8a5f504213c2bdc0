"""Load check of the web service: ``yaniv-audit serve`` on loopback, driven by concurrent
clients (not part of the test suite).

Run from the repository root:

    .venv/bin/python bench/load.py                      # 20 clients, 200 requests each kind
    .venv/bin/python bench/load.py --clients 20 --requests 400 --threads 8
    .venv/bin/python bench/load.py --clients 40 --writer 2      # 40 readers and a writer

It builds an archive in a temporary directory with a stored 600-event game
(``replays/simulated/classic/game-00003.jsonl``) and the sample games, starts
``yaniv-audit serve`` on it as a subprocess (waitress, ``--threads``), sends each
endpoint one first request (timed alone: the cold cost), then drives it with
``--clients`` threads at once, each on its own keep-alive connection (after
``--warmup`` requests per endpoint that are not counted), until
``--requests`` requests are answered, and prints requests/s and p50/p95/p99 per
endpoint, with the server's CPU time per request ("cpu ms", its audit workers
included: what the figures come to on a machine of its own, where the load of other
programs adds nothing) and the load check's own ("client ms": the clients share
the machine's cores with the server; each request is made before the clock
starts). ``--workers N`` is passed to ``serve``. The
clients ask for gzip as a browser does (``--no-gzip``: not).

    board, declared   GET  /api/v1/games/<fp>/board             (its declared rules)
    board, israeli    GET  /api/v1/games/<fp>/board?rules=israeli  (a second preset)
    audit, same log   POST /api/v1/audit  (the 600-event log, the same bytes each time)
    audit, new logs   POST /api/v1/audit  (each a log never sent before: no cache)
    games list        GET  /api/v1/games?limit=50
    game (API)        GET  /api/v1/games/<fp>
    list page         GET  /                                    (the front page: the list)
    game page         GET  /games/<fp>                          (the board page, HTML)

``--writer S``: meanwhile one more client stores a new game every ``S`` seconds
(``POST /api/v1/games``: the stored game with another ``game_id`` each time, so a
new fingerprint, added and audited), from the first measured request to the last
(at most ``--writer-max`` games), and its latencies are printed as ``writes``.

Targets (issue 11): p95 < 50 ms at 20 clients for both boards, p95 < 100 ms for
the audit of a 600-event log; (issue 35) p95 < 500 ms for the pages and the API's
reads at 40 clients and a writer, the boards still < 50 ms.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "replays" / "simulated" / "classic" / "game-00003.jsonl"
TARGETS = {
    "board, declared": 50.0,
    "board, israeli": 50.0,
    "audit, same log": 100.0,
    "audit, new logs": 100.0,
    "games list": 500.0,
    "game (API)": 500.0,
    "list page": 500.0,
    "game page": 500.0,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fingerprint(path: Path) -> str:
    sys.path.insert(0, str(ROOT))
    from yaniv_audit.core.merkle import tree_hash
    from yaniv_audit.io.codec import read_log

    return tree_hash(read_log(path).leaves).hex()


def start_server(
    db: Path,
    port: int,
    threads: int,
    workers: int | None,
) -> subprocess.Popen[str]:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            "ingest",
            str(GAME),
            *map(str, sorted((ROOT / "replays").glob("*.jsonl"))),
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
    proc = subprocess.Popen(
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
            str(threads),
            *(["--workers", str(workers)] if workers is not None else []),
        ],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    while not proc.stderr.readline().startswith("yaniv-audit on "):
        if proc.poll() is not None:
            raise SystemExit("serve did not start")
    # read what the server says from now on (waitress's "Task queue depth" warnings with
    # more clients than threads): a pipe left unread fills and stops the server
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc


Request = tuple[str, str, bytes | None]


def one(
    conn: http.client.HTTPConnection, request: Request, use_gzip: bool, expect: int = 200
) -> float:
    method, path, body = request
    headers = {"Accept-Encoding": "gzip"} if use_gzip else {}
    if body is not None:
        headers["Content-Type"] = "application/x-ndjson"
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - start
    if response.status != expect:
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    if response.getheader("Content-Encoding") == "gzip":
        gzip.decompress(data)
    return elapsed


def drive(
    port: int, make: Callable[[int], Request], clients: int, total: int, use_gzip: bool
) -> tuple[list[float], float, float]:
    """``total`` requests from ``clients`` threads at once: the latencies, the wall time
    and this process's CPU time while they ran (the requests are made before)."""
    latencies: list[float] = []
    lock = threading.Lock()
    requests = [make(n) for n in range(total)]  # made before the clock starts
    counter = iter(requests)

    def client() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        while True:
            with lock:
                request = next(counter, None)
            if request is None:
                break
            elapsed = one(conn, request, use_gzip)
            with lock:
                latencies.append(elapsed)
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    start, own = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return latencies, time.perf_counter() - start, time.process_time() - own


class Writer(threading.Thread):
    """One client storing a new game every ``every`` seconds (``POST /api/v1/games``)
    until stopped or ``most`` games are stored; its latencies in ``latencies``."""

    def __init__(
        self, port: int, make: Callable[[int], bytes], every: float, most: int, use_gzip: bool
    ) -> None:
        super().__init__(daemon=True)
        self.port, self.make, self.every, self.most = port, make, every, most
        self.use_gzip = use_gzip
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        n = 0
        while not self.stop.is_set() and n < self.most:
            body = self.make(n)  # made before the clock starts
            started = time.perf_counter()
            try:
                self.latencies.append(
                    one(conn, ("POST", "/api/v1/games", body), self.use_gzip, expect=201)
                )
            except SystemExit as exc:  # another answer than 201: said at the end
                self.errors.append(str(exc))
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            n += 1
            self.stop.wait(max(0.0, self.every - (time.perf_counter() - started)))
        conn.close()


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` and every process under it (the
    audit workers and their fork server) have used so far (Linux /proc)."""
    parents, ticks = {}, {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # gone meanwhile
            parents[int(entry.name)] = int(fields[1])
            ticks[int(entry.name)] = int(fields[11]) + int(fields[12])
    tree, grown = {pid}, True
    while grown:
        below = {p for p, parent in parents.items() if parent in tree} - tree
        tree |= below
        grown = bool(below)
    return sum(ticks.get(p, 0) for p in tree) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200, help="per endpoint")
    parser.add_argument("--threads", type=int, default=8, help="serve --threads")
    parser.add_argument(
        "--workers", type=int, default=None, help="serve --workers (default: serve's, one per core)"
    )
    parser.add_argument("--no-gzip", action="store_true")
    parser.add_argument(
        "--warmup", type=int, default=100, help="requests per endpoint sent first and not counted"
    )
    parser.add_argument(
        "--writer",
        type=float,
        default=None,
        metavar="SECONDS",
        help="one more client storing a new game every SECONDS meanwhile",
    )
    parser.add_argument(
        "--writer-max", type=int, default=500, help="at most this many games stored by --writer"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="ENDPOINT",
        help="measure only this endpoint (its name as printed; repeatable)",
    )
    args = parser.parse_args()
    fp = fingerprint(GAME)
    data = GAME.read_bytes()
    lines = data.decode().splitlines()

    def fresh(n: int) -> bytes:  # the same game with a recorder field: a new fingerprint
        first = json.loads(lines[0])
        first["_load"] = [os.getpid(), n, time.perf_counter_ns()]
        return ("\n".join([json.dumps(first), *lines[1:]]) + "\n").encode()

    def new_game(n: int) -> bytes:  # the same game under another game_id: a new game
        first = json.loads(lines[0])
        first["game_id"] = f"load-{os.getpid()}-{n}-{time.perf_counter_ns()}"
        return ("\n".join([json.dumps(first), *lines[1:]]) + "\n").encode()

    endpoints: dict[str, Callable[[int], Request]] = {
        "board, declared": lambda n: ("GET", f"/api/v1/games/{fp}/board", None),
        "board, israeli": lambda n: ("GET", f"/api/v1/games/{fp}/board?rules=israeli", None),
        "audit, same log": lambda n: ("POST", "/api/v1/audit", data),
        "audit, new logs": lambda n: ("POST", "/api/v1/audit", fresh(n)),
        "games list": lambda n: ("GET", "/api/v1/games?limit=50", None),
        "game (API)": lambda n: ("GET", f"/api/v1/games/{fp}", None),
        "list page": lambda n: ("GET", "/", None),
        "game page": lambda n: ("GET", f"/games/{fp}", None),
    }
    if args.only:
        unknown = set(args.only) - set(endpoints)
        if unknown:
            parser.error(
                f"--only: no endpoint {', '.join(sorted(unknown))}; "
                f"they are: {', '.join(endpoints)}"
            )
        endpoints = {k: v for k, v in endpoints.items() if k in args.only}
    with tempfile.TemporaryDirectory(prefix="yaniv-load-") as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "load.duckdb", port, args.threads, args.workers)
        try:
            workers = "" if args.workers is None else f" --workers {args.workers}"
            writing = (
                ""
                if args.writer is None
                else f", a writer storing a new game every {args.writer:g} s"
            )
            print(
                f"yaniv-audit serve --threads {args.threads}{workers}; {args.clients} clients"
                f"{writing}, {args.requests} requests per endpoint, gzip "
                f"{'off' if args.no_gzip else 'on'}; stored game {GAME.relative_to(ROOT)} "
                f"({len(lines)} events); {os.cpu_count()} cores; load "
                f"{os.getloadavg()[0]:.2f}"
            )
            print(
                f"{'endpoint':<18} {'first ms':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} "
                f"{'p99 ms':>8} {'cpu ms':>8} {'client ms':>9}  target p95"
            )
            firsts = {}
            for name, make in endpoints.items():
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                firsts[name] = one(conn, make(-1), not args.no_gzip) * 1000
                conn.close()
            for make in endpoints.values():  # warm the server's threads and code paths
                drive(
                    port,
                    lambda n, make=make: make(10**6 + n),
                    args.clients,
                    args.warmup,
                    not args.no_gzip,
                )
            writer = None
            if args.writer is not None:
                writer = Writer(port, new_game, args.writer, args.writer_max, not args.no_gzip)
                writer.start()
            for name, make in endpoints.items():
                first = firsts[name]
                cpu = cpu_seconds(proc.pid)
                latencies, wall, own = drive(
                    port, make, args.clients, args.requests, not args.no_gzip
                )
                cpu_ms = (cpu_seconds(proc.pid) - cpu) / len(latencies) * 1000
                client_ms = own / len(latencies) * 1000
                p95 = percentile(latencies, 0.95)
                target = TARGETS.get(name)
                verdict = (
                    ""
                    if target is None
                    else (f"< {target:g} ms {'met' if p95 < target else 'MISSED'}")
                )
                print(
                    f"{name:<18} {first:9.1f} {len(latencies) / wall:8.1f} "
                    f"{statistics.median(latencies) * 1000:8.1f} {p95:8.1f} "
                    f"{percentile(latencies, 0.99):8.1f} {cpu_ms:8.2f} {client_ms:9.2f}"
                    f"  {verdict}"
                )
            if writer is not None:
                writer.stop.set()
                writer.join()
                w = writer.latencies or [0.0]
                print(
                    f"{'writes':<18} {'':>9} {'':>8} "
                    f"{statistics.median(w) * 1000:8.1f} {percentile(w, 0.95):8.1f} "
                    f"{percentile(w, 0.99):8.1f}  {len(writer.latencies)} games stored "
                    f"(POST /api/v1/games, 201), one every {args.writer:g} s; "
                    f"{len(writer.errors)} other answers"
                )
                for error in writer.errors[:3]:
                    print(f"  {error}")
            print(f"load {os.getloadavg()[0]:.2f} at the end")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
