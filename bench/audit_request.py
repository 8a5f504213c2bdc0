"""The CPU one new log's audit costs the web service: ``POST /api/v1/audit`` with a
600-event log never sent before (bench/load.py's "audit, new logs"), through the WSGI
app in this process, with no HTTP server and no other request meanwhile (not part of
the test suite).

Run from the repository root:

    .venv/bin/python bench/audit_request.py                 # 200 requests, in the server
    .venv/bin/python bench/audit_request.py --workers 2     # on 2 audit processes, as serve
    .venv/bin/python bench/audit_request.py --profile 30    # where the time goes (cProfile)
    .venv/bin/python bench/audit_request.py --instructions  # instructions a request
    .venv/bin/python bench/audit_request.py --stages        # ms of CPU by stage


Each request is the stored game ``replays/simulated/classic/game-00003.jsonl`` with a
field of its own on the first line (a new fingerprint: no cache answers it), posted as
bench/load.py's clients post it (``Accept-Encoding: gzip``, no ``Accept-Language``);
``--warmup`` requests are not counted. It prints the CPU per request (this process's,
and with ``--workers`` the worker processes' too, read from /proc), the wall time per
request, and the size of the answer. ``--check`` also checks that every answer is the
same JSON as the engine's report of that log (``audit_log``, orjson), byte for byte.

``--instructions`` counts instructions instead of time (callgrind, as
bench/instructions.py does: a figure the host's load does not move): this script
under valgrind with 10 and with 30 requests (with ``--workers``, the worker processes
and their fork server counted too), the difference over the 20 requests between.
"""

from __future__ import annotations

import argparse
import cProfile
import gzip
import json
import os
import pstats
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from load import cpu_seconds  # noqa: E402  (the server's CPU, counted as bench/load.py counts it)

GAME = ROOT / "replays" / "simulated" / "classic" / "game-00003.jsonl"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--workers", type=int, default=0, help="audit processes (serve's)")
    parser.add_argument("--no-gzip", action="store_true")
    parser.add_argument("--check", action="store_true", help="check each answer's bytes")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="cProfile N requests instead"
    )
    parser.add_argument("--instructions", action="store_true", help="callgrind's count")
    parser.add_argument("--stages", action="store_true", help="ms of CPU of each stage")
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.instructions:
        return count_instructions(args.warmup, args.workers)
    if args.stages:
        return stages(args.requests)

    import orjson

    from yaniv_audit.core.audit import audit_log
    from yaniv_audit.io.codec import parse_jsonl
    from yaniv_audit.web import create_app

    lines = GAME.read_bytes().decode().splitlines()
    first = json.loads(lines[0])

    def fresh(n: int) -> bytes:  # as bench/load.py's: a new fingerprint each time
        first["_load"] = [os.getpid(), n, time.perf_counter_ns()]
        return ("\n".join([json.dumps(first), *lines[1:]]) + "\n").encode()

    headers = {} if args.no_gzip else {"Accept-Encoding": "gzip"}
    with tempfile.TemporaryDirectory(prefix="yaniv-audit-request-") as tmp:
        app = create_app({"ARCHIVE": str(Path(tmp) / "none.duckdb"), "WORKERS": args.workers})
        pool = app.extensions.get("yaniv_workers")
        if pool is not None:
            pool.start()
        client = app.test_client()

        def post(body: bytes) -> bytes:
            got = client.post("/api/v1/audit", data=body, headers=headers)
            if got.status_code != 200:
                raise SystemExit(f"{got.status_code}: {got.get_data(as_text=True)[:300]}")
            data = got.get_data()
            if got.headers.get("Content-Encoding") == "gzip":
                data = gzip.decompress(data)
            return data

        try:
            for n in range(args.warmup):
                post(fresh(-1 - n))
            bodies = [fresh(n) for n in range(max(args.requests, args.profile))]
            if args.profile:
                profiler = cProfile.Profile()
                profiler.enable()
                for body in bodies[: args.profile]:
                    post(body)
                profiler.disable()
                stats = pstats.Stats(profiler, stream=sys.stdout)
                stats.sort_stats("cumulative").print_stats(45)
                stats.sort_stats("tottime").print_stats(30)
                return 0
            size = 0
            cpu0, wall0 = cpu_seconds(os.getpid()), time.perf_counter()
            own0 = resource.getrusage(resource.RUSAGE_SELF)
            answers = []
            for body in bodies[: args.requests]:
                got = post(body)
                size = len(got)
                if args.check:
                    answers.append((body, got))
            wall = time.perf_counter() - wall0
            own1 = resource.getrusage(resource.RUSAGE_SELF)
            cpu = cpu_seconds(os.getpid()) - cpu0
            own = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
        finally:
            if pool is not None:
                pool.close()
    n = args.requests
    if args.quiet:
        return 0
    print(
        f"POST /api/v1/audit, {n} new {len(lines)}-event logs, workers {args.workers}, "
        f"gzip {'off' if args.no_gzip else 'on'}; answer {size:,} bytes"
    )
    print(
        f"cpu ms/request {cpu / n * 1000:.2f} (this process {own / n * 1000:.2f}); "
        f"wall ms/request {wall / n * 1000:.2f}"
    )
    if args.check:
        for body, got in answers:
            expected = orjson.dumps(
                audit_log(parse_jsonl(body, "request")), option=orjson.OPT_NON_STR_KEYS
            )
            if got != expected:
                raise SystemExit("an answer differs from the engine's report")
        print(f"{len(answers)} answers: the engine's report, byte for byte")
    return 0


def stages(requests: int) -> int:
    """The CPU of each stage of a new log's audit, called one after the other as the
    endpoint calls them (no garbage collection, as on a worker), and of the hand-off
    of the log to a worker and of its answer back (``Workers.run`` of a function that
    returns an answer of the same size at once)."""
    import gc
    import hashlib

    import orjson

    from yaniv_audit.core.audit import replay_log, report_of
    from yaniv_audit.core.merkle import tree_hash
    from yaniv_audit.io.codec import parse_jsonl
    from yaniv_audit.web.cache import Entry
    from yaniv_audit.web.workers import Workers

    lines = GAME.read_bytes().decode().splitlines()
    first = json.loads(lines[0])
    bodies = []
    for n in range(requests):
        first["_load"] = [os.getpid(), n, time.perf_counter_ns()]
        bodies.append(("\n".join([json.dumps(first), *lines[1:]]) + "\n").encode())
    names = [
        "the body's SHA-256 (the cache's key)",
        "reading the log (msgspec, checks, leaves)",
        "the fingerprint (Merkle tree, SHA-256)",
        "the replay (the engine)",
        "the report (data)",
        "JSON (orjson)",
        "gzip (level 5)",
    ]
    spent = [0.0] * len(names)
    answer = b""
    gc.disable()
    for body in bodies:
        clock = [time.process_time()]
        hashlib.sha256(body).digest()
        clock.append(time.process_time())
        log = parse_jsonl(body, "request")
        clock.append(time.process_time())
        fingerprint = tree_hash(log.leaves).hex()
        clock.append(time.process_time())
        replay = replay_log(log, None)
        clock.append(time.process_time())
        report = report_of(log, replay, fingerprint)
        clock.append(time.process_time())
        answer = orjson.dumps(report, option=orjson.OPT_NON_STR_KEYS)
        clock.append(time.process_time())
        Entry(answer).gzipped()
        clock.append(time.process_time())
        for i in range(len(names)):
            spent[i] += clock[i + 1] - clock[i]
    gc.enable()
    workers = Workers(2)
    try:
        workers.start()
        for body in bodies[:20]:
            workers.run(_echo, body, answer)
        before = cpu_seconds(os.getpid())
        for body in bodies:
            workers.run(_echo, body, answer)
        handoff = cpu_seconds(os.getpid()) - before
    finally:
        workers.close()
    names.append("the hand-off to a worker and back (all processes)")
    spent.append(handoff)
    total = sum(spent)
    print(f"a new {len(lines)}-event log's audit, by stage ({requests} logs; ms of CPU each):")
    for name, seconds in zip(names, spent, strict=True):
        print(f"  {name:<52} {seconds / requests * 1000:6.3f}  {seconds / total:6.1%}")
    print(f"  {'in all':<52} {total / requests * 1000:6.3f}")
    return 0


def _echo(body: bytes, answer: bytes) -> bytes:
    """On a worker: ``answer`` at once (what the hand-off costs, with no audit)."""
    return answer


def instructions(requests: int, warmup: int, workers: int) -> int:
    """Instructions of this script under callgrind with ``requests`` requests, its worker
    processes' included (each counted as it exits)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                f"--callgrind-out-file={tmp}/out.%p",
                sys.executable,
                __file__,
                "--quiet",
                "--requests",
                str(requests),
                "--warmup",
                str(warmup),
                "--workers",
                str(workers),
            ],
            env=dict(os.environ, PYTHONHASHSEED="0"),
            capture_output=True,
            text=True,
            check=True,
        )
    found = re.findall(r"Collected : (\d+)", result.stderr)
    if not found:
        raise SystemExit(f"no count in valgrind's output:\n{result.stderr}")
    return sum(map(int, found))


def count_instructions(warmup: int, workers: int) -> int:
    from concurrent.futures import ThreadPoolExecutor

    few, many = 10, 30
    with ThreadPoolExecutor(2) as pool:
        low, high = pool.map(lambda n: instructions(n, warmup, workers), (few, many))
    where = f"on {workers} workers" if workers else "in the server"
    print(
        f"POST /api/v1/audit, new 600-event logs, {where} (all processes): "
        f"{(high - low) / (many - few):,.0f} instructions a request "
        f"(callgrind, {many} requests less {few})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
