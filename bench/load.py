"""Load check of the web service: ``yaniv-audit serve`` on loopback, driven by concurrent
clients (not part of the test suite).

Run from the repository root:

    .venv/bin/python bench/load.py                      # 20 clients, 200 requests each kind
    .venv/bin/python bench/load.py --clients 20 --requests 400 --threads 8

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

Targets (issue 11): p95 < 50 ms at 20 clients for both boards, p95 < 100 ms for
the audit of a 600-event log.
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
TARGETS = {"board, declared": 50.0, "board, israeli": 50.0, "audit, same log": 100.0,
           "audit, new logs": 100.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def fingerprint(path: Path) -> str:
    sys.path.insert(0, str(ROOT))
    from yaniv_audit.codec import read_log
    from yaniv_audit.core.merkle import tree_hash

    return tree_hash(read_log(path).leaves).hex()


def start_server(db: Path, port: int, threads: int, workers: int | None,
                 ) -> subprocess.Popen[str]:
    subprocess.run([sys.executable, "-m", "yaniv_audit.cli", "ingest", str(GAME),
                    *map(str, sorted((ROOT / "replays").glob("*.jsonl"))), "--db", str(db),
                    "--jobs", "1"], check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    subprocess.run([sys.executable, "-m", "yaniv_audit.cli", "audit", "--db", str(db),
                    "--jobs", "1", "--exit-zero"], check=True, stdout=subprocess.DEVNULL,
                   cwd=ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "yaniv_audit.cli", "serve", "--db", str(db),
                             "--port", str(port), "--threads", str(threads),
                             *(["--workers", str(workers)] if workers is not None else [])],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert proc.stderr is not None
    while not proc.stderr.readline().startswith("yaniv-audit on "):
        if proc.poll() is not None:
            raise SystemExit("serve did not start")
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    return proc


Request = tuple[str, str, bytes | None]


def one(conn: http.client.HTTPConnection, request: Request, use_gzip: bool) -> float:
    method, path, body = request
    headers = {"Accept-Encoding": "gzip"} if use_gzip else {}
    if body is not None:
        headers["Content-Type"] = "application/x-ndjson"
    start = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    elapsed = time.perf_counter() - start
    if response.status != 200:
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    if response.getheader("Content-Encoding") == "gzip":
        gzip.decompress(data)
    return elapsed


def drive(port: int, make: Callable[[int], Request], clients: int, total: int,
          use_gzip: bool) -> tuple[list[float], float, float]:
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
    parser.add_argument("--workers", type=int, default=None,
                        help="serve --workers (default: serve's, one per core)")
    parser.add_argument("--no-gzip", action="store_true")
    parser.add_argument("--warmup", type=int, default=100,
                        help="requests per endpoint sent first and not counted")
    args = parser.parse_args()
    fp = fingerprint(GAME)
    data = GAME.read_bytes()
    lines = data.decode().splitlines()

    def fresh(n: int) -> bytes:  # the same game with a recorder field: a new fingerprint
        first = json.loads(lines[0])
        first["_load"] = [os.getpid(), n, time.perf_counter_ns()]
        return ("\n".join([json.dumps(first), *lines[1:]]) + "\n").encode()

    endpoints: dict[str, Callable[[int], Request]] = {
        "board, declared": lambda n: ("GET", f"/api/v1/games/{fp}/board", None),
        "board, israeli": lambda n: ("GET", f"/api/v1/games/{fp}/board?rules=israeli", None),
        "audit, same log": lambda n: ("POST", "/api/v1/audit", data),
        "audit, new logs": lambda n: ("POST", "/api/v1/audit", fresh(n)),
        "games list": lambda n: ("GET", "/api/v1/games?limit=50", None),
    }
    with tempfile.TemporaryDirectory(prefix="yaniv-load-") as tmp:
        port = free_port()
        proc = start_server(Path(tmp) / "load.duckdb", port, args.threads, args.workers)
        try:
            workers = "" if args.workers is None else f" --workers {args.workers}"
            print(f"yaniv-audit serve --threads {args.threads}{workers}; {args.clients} clients, "
                  f"{args.requests} requests per endpoint, gzip {'off' if args.no_gzip else 'on'}"
                  f"; stored game {GAME.relative_to(ROOT)} ({len(lines)} events); "
                  f"{os.cpu_count()} cores")
            print(f"{'endpoint':<18} {'first ms':>9} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} "
                  f"{'p99 ms':>8} {'cpu ms':>8} {'client ms':>9}  target p95")
            firsts = {}
            for name, make in endpoints.items():
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                firsts[name] = one(conn, make(-1), not args.no_gzip) * 1000
                conn.close()
            for make in endpoints.values():  # warm the server's threads and code paths
                drive(port, lambda n, make=make: make(10**6 + n), args.clients, args.warmup,
                      not args.no_gzip)
            for name, make in endpoints.items():
                first = firsts[name]
                cpu = cpu_seconds(proc.pid)
                latencies, wall, own = drive(port, make, args.clients, args.requests,
                                             not args.no_gzip)
                cpu_ms = (cpu_seconds(proc.pid) - cpu) / len(latencies) * 1000
                client_ms = own / len(latencies) * 1000
                p95 = percentile(latencies, 0.95)
                target = TARGETS.get(name)
                verdict = "" if target is None else (
                    f"< {target:g} ms {'met' if p95 < target else 'MISSED'}")
                print(f"{name:<18} {first:9.1f} {len(latencies) / wall:8.1f} "
                      f"{statistics.median(latencies) * 1000:8.1f} {p95:8.1f} "
                      f"{percentile(latencies, 0.99):8.1f} {cpu_ms:8.2f} {client_ms:9.2f}"
                      f"  {verdict}")
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
