"""The benchmark behind ``yaniv-audit bench`` (see bench/RESULTS.md for figures).

On a corpus of simulated games it measures, in one run and on the same files:

(a) the JSON parse floor: read every file and ``orjson.loads`` every line; and
    the same with each event written back as its canonical leaf and the Merkle
    fingerprint computed: the least any audit does before it validates;
(b) the codec reading path: read, parse, validate against the schema, build
    typed events, structural checks and fingerprint leaves (``read_log``);
    (b) - (a) is the cost of validation alone;
(c) replay alone: the engine, with every legality check and the scoring, over
    logs already read, one file at a time (and the Merkle fingerprint alone);
(d) the end-to-end audit on one core, exactly as ``yaniv-audit audit --jobs 1
    --json`` does it: :func:`yaniv_audit.batch.bulk.audit_stream` and one JSON line
    per report (serialized, not printed);
(e) the same on all cores (the CLI's pool), with a progress bar, and its
    speed-up over (d);
(f) peak memory, and a streaming check: (d) in a fresh process on the corpus
    and on four times as many games (the corpus listed four times), whose peak
    RSS must stay flat;
(g) when python-chess is installed (the ``bench`` extra): python-chess reading
    random legal PGN games and playing every move (:mod:`yaniv_audit.batch.chess_bench`),
    in plies per second, and (d)'s events per second divided by it.

Times are ``time.perf_counter`` wall times, the best of ``repeat`` rounds after a
warm-up on a few files. A round runs every stage once, (a) to (g) in turn
(:func:`interleaved`), so that a machine whose speed changes while the bench runs
(a shared host, a neighbour's load) slows every stage alike and the ratios between
them hold; rounds stop early once the bench has spent its time budget. Events per
second always divide the same event count: the non-blank lines of the corpus.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..core.audit import replay_log, to_json_line
from ..core.merkle import tree_hash
from ..io.codec import read_log
from ..io.files import log_files
from .bulk import audit_stream, mapped
from .chess_bench import CHESS_GAMES, chess_figures, chess_run
from .simulate import simulate_log

DEFAULT_BOTS = ("random", "greedy", "careful")
#: the issue's targets
TARGET_RATE = 250_000  # events/s, audit on one core
TARGET_RATIO = 0.25  # audit / parse floor
TARGET_SPEEDUP_PER_CORE = 0.9  # 1.8x on 2 cores (issue 10: "bulk audit >= 1.8x on 2 cores")
TARGET_CHESS = 8.0  # audit events/s over python-chess plies/s
MEMORY_FACTOR = 4  # the streaming check audits this many times the games
MEMORY_SLACK = 0.10  # ... and its peak RSS may grow by at most this fraction
REPEAT_BUDGET = 20.0  # seconds a stage: no further rounds once the stages have taken this long
WARMUP_FILES = 3
BULK_CORES = 2  # the machine


# --- the corpus -------------------------------------------------------------


def _simulate_one(job: tuple[Any, int, tuple[str, ...], int, int, str]) -> int:
    rules, players, bots, seed, game, path = job
    log = simulate_log((rules, players, bots, seed, game, "full"))
    Path(path).write_bytes(log)
    return log.count(b"\n")


def cache_dir(rules_id: str, players: int, games: int, seed: int, bots: Sequence[str]) -> Path:
    """Where a corpus generated with these arguments is kept between runs."""
    key = f"{__version__}|{rules_id}|{players}|{games}|{seed}|{','.join(bots)}"
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "yaniv-audit-bench" / f"g{games}-p{players}-{digest}"


def generate_corpus(
    target: Path,
    rules: Any,
    players: int,
    games: int,
    seed: int,
    bots: Sequence[str],
    jobs: int,
    progress: Callable[..., Any],
) -> None:
    """Simulate ``games`` games into ``target`` (game-NNNNN.jsonl), on ``jobs`` processes."""
    target.mkdir(parents=True, exist_ok=True)
    work = [
        (rules, players, tuple(bots), seed, g, str(target / f"game-{g:05d}.jsonl"))
        for g in range(games)
    ]
    with (
        mapped(_simulate_one, work, games, jobs) as done,
        progress(done, games, "simulating") as bar,
    ):
        for _ in bar:
            pass


def corpus_files(directory: Path) -> list[str]:
    return log_files((str(directory),))


def ensure_corpus(
    corpus: str | None,
    rules: Any,
    players: int,
    games: int,
    seed: int,
    bots: Sequence[str],
    jobs: int,
    progress: Callable[..., Any],
) -> tuple[Path, bool]:
    """The corpus directory, and whether it was reused rather than generated now.

    With ``corpus`` given and holding logs, they are used as they are; given
    and empty, the games are generated into it. Without it, a corpus cached
    by the arguments under the temp directory is reused or generated.
    """
    if corpus is not None:
        path = Path(corpus)
        if path.is_dir() and corpus_files(path):
            return path, True
        generate_corpus(path, rules, players, games, seed, bots, jobs, progress)
        return path, False
    path = cache_dir(rules.id, players, games, seed, bots)
    if (path / ".complete").is_file():
        return path, True
    if path.exists():
        shutil.rmtree(path)
    partial = path.with_name(path.name + f".partial-{os.getpid()}")
    generate_corpus(partial, rules, players, games, seed, bots, jobs, progress)
    (partial / ".complete").write_text("ok\n")
    try:
        partial.rename(path)
    except OSError:  # another run got there first
        shutil.rmtree(partial, ignore_errors=True)
    return path, False


# --- the stages -------------------------------------------------------------


def parse_floor(files: Sequence[str]) -> int:
    """(a) Read every file and orjson.loads every non-blank line; the number of events."""
    loads = orjson.loads
    events = 0
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        for line in data.split(b"\n"):
            if line and not line.isspace():
                loads(line)
                events += 1
    return events


def hashed_floor(files: Sequence[str]) -> int:
    """(a) and the fingerprint, nothing else: every line parsed, written back as its
    canonical leaf (sorted keys) and hashed into the Merkle tree. Every audit must
    do this much before it validates or replays anything."""
    loads, dumps, sort_keys = orjson.loads, orjson.dumps, orjson.OPT_SORT_KEYS
    events = 0
    for path in files:
        with open(path, "rb") as fh:
            data = fh.read()
        leaves = [
            dumps(loads(line), option=sort_keys)
            for line in data.split(b"\n")
            if line and not line.isspace()
        ]
        tree_hash(leaves)
        events += len(leaves)
    return events


def codec_path(files: Sequence[str]) -> int:
    """(b) The codec reading path: read_log of every file; the number of events."""
    return sum(len(read_log(path).events) for path in files)


def replay_alone(files: Sequence[str]) -> dict[str, float]:
    """(c) Per file: read it (not timed), then time the replay, then the fingerprint."""

    clock = time.perf_counter
    replay = fingerprint = 0.0
    events = 0
    for path in files:
        log = read_log(path)
        events += len(log.events)
        t0 = clock()
        replay_log(log)
        t1 = clock()
        tree_hash(log.leaves)
        t2 = clock()
        replay += t1 - t0
        fingerprint += t2 - t1
    return {"replay": replay, "fingerprint": fingerprint, "events": events}


def audit_corpus(
    files: Sequence[str],
    jobs: int,
    progress: Callable[..., Any] | None = None,
) -> dict[str, int]:
    """(d), (e) ``yaniv-audit audit --json --jobs N`` without printing: verdict counts."""
    counts: dict[str, int] = {}
    with audit_stream(files, None, jobs=jobs) as reports:
        if progress is not None:
            with progress(reports, len(files), "auditing") as bar:
                for report in bar:
                    to_json_line(report)
                    counts[report["verdict"]] = counts.get(report["verdict"], 0) + 1
        else:
            for report in reports:
                to_json_line(report)
                counts[report["verdict"]] = counts.get(report["verdict"], 0) + 1
    return counts


def interleaved(
    runs: dict[str, Callable[[], Any]], repeat: int, budget: float | None = None
) -> dict[str, tuple[float, list[Any], int]]:
    """Each of ``runs`` once a round, in turn, for up to ``repeat`` rounds (no further
    round once ``budget`` seconds are spent; by default REPEAT_BUDGET a run): for each,
    its fastest time, the results of every round and the number of rounds."""
    if budget is None:
        budget = REPEAT_BUDGET * len(runs)
    best = dict.fromkeys(runs, float("inf"))
    results: dict[str, list[Any]] = {name: [] for name in runs}
    rounds = 0
    spent = 0.0
    while rounds < max(1, repeat):
        for name, run in runs.items():
            t0 = time.perf_counter()
            results[name].append(run())
            elapsed = time.perf_counter() - t0
            best[name] = min(best[name], elapsed)
            spent += elapsed
        rounds += 1
        if spent >= budget:
            break
    return {name: (best[name], results[name], rounds) for name in runs}


# --- memory -----------------------------------------------------------------


def maxrss_bytes(who: int = resource.RUSAGE_SELF) -> int:
    """Peak resident set size (ru_maxrss is KiB on Linux, bytes on macOS)."""
    rss = resource.getrusage(who).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024


def probe(directory: str, times: int) -> dict[str, Any]:
    """(d) in this process on the corpus listed ``times`` times: its peak RSS."""
    files = corpus_files(Path(directory)) * times
    t0 = time.perf_counter()
    counts = audit_corpus(files, jobs=1)
    return {
        "games": len(files),
        "seconds": time.perf_counter() - t0,
        "verdicts": counts,
        "maxrss": maxrss_bytes(),
    }


def streaming_check(directory: Path) -> dict[str, Any]:
    """Peak RSS of (d) in a fresh process each: the corpus, then MEMORY_FACTOR times the games.

    The two processes run side by side; peak RSS does not depend on the other.
    """
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "yaniv_audit.batch.bench",
                "--probe",
                str(directory),
                str(times),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for times in (1, MEMORY_FACTOR)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"the memory probe failed: {err.decode(errors='replace')}")
        results.append(json.loads(out))
    small, large = results
    growth = large["maxrss"] / small["maxrss"] - 1
    return {
        "games": small["games"],
        "maxrss": small["maxrss"],
        "games_large": large["games"],
        "maxrss_large": large["maxrss"],
        "growth": growth,
        "flat": growth <= MEMORY_SLACK,
    }


# --- the run ----------------------------------------------------------------


def run_bench(
    directory: Path,
    *,
    jobs: int,
    repeat: int,
    memory: bool,
    progress: Callable[..., Any],
    chess_games: int | None = None,
) -> dict[str, Any]:
    """Every measurement on the logs under ``directory``; the figures as a JSON-ready dict."""
    files = corpus_files(directory)
    if not files:
        raise ValueError(f"no .jsonl or .json logs in {directory}")
    size = sum(os.path.getsize(f) for f in files)
    load_before = load_average()
    warm = files[:WARMUP_FILES]
    parse_floor(files)  # the files into the page cache
    codec_path(warm)
    replay_alone(warm)
    audit_corpus(warm, jobs=1)

    chess_timed, chess_info = chess_run(chess_games or CHESS_GAMES)
    self_rss = 0

    def audit_one_core() -> dict[str, int]:
        nonlocal self_rss
        verdicts = audit_corpus(files, jobs=1)
        self_rss = self_rss or maxrss_bytes()  # before python-chess first runs
        return verdicts

    runs: dict[str, Callable[[], Any]] = {
        "parse": lambda: parse_floor(files),
        "hashed": lambda: hashed_floor(files),
        "codec": lambda: codec_path(files),
        "replay": lambda: replay_alone(files),
        "audit": audit_one_core,
        "bulk": lambda: audit_corpus(files, jobs=jobs, progress=progress),
    }
    if chess_timed is not None:
        runs["chess"] = chess_timed
    timed = interleaved(runs, repeat)
    rounds = timed["parse"][2]

    stages: dict[str, dict[str, Any]] = {
        name: {"seconds": timed[name][0], "runs": rounds} for name in ("parse", "hashed", "codec")
    }
    t_parse = timed["parse"][0]
    events = timed["parse"][1][0]
    for name, what in (("hashed", "the leaves counted"), ("codec", "the codec read")):
        if timed[name][1][0] != events:
            raise RuntimeError(f"{what} {timed[name][1][0]} events, the parser {events}")
    stages["validation"] = {
        "seconds": max(timed["codec"][0] - t_parse, 1e-9),
        "derived": "codec - parse",
    }
    replays = timed["replay"][1]
    stages["replay"] = {"seconds": min(r["replay"] for r in replays), "runs": rounds}
    stages["fingerprint"] = {"seconds": min(r["fingerprint"] for r in replays), "runs": rounds}
    t_audit, audit_verdicts, _ = timed["audit"]
    t_bulk, bulk_verdicts, _ = timed["bulk"]
    verdicts = audit_verdicts[0]
    if any(v != verdicts for v in audit_verdicts + bulk_verdicts):
        raise RuntimeError(f"bulk verdicts {bulk_verdicts[0]} differ from one core's {verdicts}")
    stages["audit"] = {"seconds": t_audit, "runs": rounds, "jobs": 1}
    stages["bulk"] = {"seconds": t_bulk, "runs": rounds, "jobs": jobs}
    worker_rss = maxrss_bytes(resource.RUSAGE_CHILDREN)

    for stage in stages.values():
        stage["events_per_s"] = events / stage["seconds"]
        stage["vs_parse"] = t_parse / stage["seconds"]
    speedup = t_audit / t_bulk

    result: dict[str, Any] = {
        "corpus": {"files": len(files), "events": events, "bytes": size},
        "stages": stages,
        "verdicts": verdicts,
        "bulk_speedup": speedup,
        "memory": {"maxrss": self_rss, "maxrss_workers": worker_rss},
    }
    if chess_timed is None:
        chess = chess_info
    else:
        t_chess, chess_results, _ = timed["chess"]
        chess = chess_figures(chess_info, t_chess, chess_results[-1], rounds)
    if "plies_per_s" in chess:
        chess["ratio"] = stages["audit"]["events_per_s"] / chess["plies_per_s"]
    result["chess"] = chess
    if memory:
        result["memory"]["streaming"] = streaming_check(directory)
    result["load_average"] = {"before": load_before, "after": load_average()}
    result["targets"] = targets(result, jobs)
    return result


def load_average() -> float | None:
    """The 1-minute load average: other work on the machine skews every figure."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def targets(result: dict[str, Any], jobs: int) -> list[dict[str, Any]]:
    audit = result["stages"]["audit"]
    want_speedup = round(TARGET_SPEEDUP_PER_CORE * jobs, 2)
    rows = [
        {
            "target": f"audit, 1 core >= {TARGET_RATE:,} events/s",
            "value": audit["events_per_s"],
            "shown": f"{audit['events_per_s']:,.0f}",
            "pass": audit["events_per_s"] >= TARGET_RATE,
        },
        {
            "target": f"audit / parse floor >= {TARGET_RATIO}x",
            "value": audit["vs_parse"],
            "shown": f"{audit['vs_parse']:.3f}x",
            "pass": audit["vs_parse"] >= TARGET_RATIO,
        },
        {
            "target": f"bulk speed-up on {jobs} cores >= {want_speedup}x",
            "value": result["bulk_speedup"],
            "shown": f"{result['bulk_speedup']:.2f}x",
            "pass": result["bulk_speedup"] >= want_speedup,
        },
    ]
    chess = result.get("chess", {})
    if "ratio" in chess:
        rows.append(
            {
                "target": f"audit / python-chess plies/s >= {TARGET_CHESS:g}x",
                "value": chess["ratio"],
                "shown": f"{chess['ratio']:.2f}x",
                "pass": chess["ratio"] >= TARGET_CHESS,
            }
        )
    streaming = result["memory"].get("streaming")
    if streaming is not None:
        rows.append(
            {
                "target": f"peak RSS flat for {MEMORY_FACTOR}x the games (<= +{MEMORY_SLACK:.0%})",
                "value": streaming["growth"],
                "shown": f"{streaming['growth']:+.1%}",
                "pass": streaming["flat"],
            }
        )
    return rows


# --- output -----------------------------------------------------------------

STAGE_LABELS = [
    ("parse", "(a) parse floor: read + orjson.loads per line"),
    ("hashed", "    + canonical leaves + Merkle fingerprint"),
    ("codec", "(b) codec: read + parse + schema + typed events"),
    ("validation", "    = validation alone, (b) - (a)"),
    ("replay", "(c) replay alone: engine, all checks, scoring"),
    ("fingerprint", "    fingerprint alone: Merkle tree_hash"),
    ("audit", "(d) audit end to end, 1 core (audit --jobs 1)"),
    ("bulk", "(e) bulk audit, all cores (audit --jobs {jobs})"),
]


def mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def render(result: dict[str, Any]) -> str:
    info = result["run"]
    corpus = result["corpus"]
    lines = [
        f"yaniv-audit bench: {info['command']}",
        f"corpus: {corpus['files']} games, {corpus['events']:,} events, "
        f"{corpus['bytes'] / 1e6:.1f} MB in {info['corpus_dir']}"
        f" ({'reused' if info['reused'] else 'generated'})",
        f"machine: {info['cpus']} cores, Python {info['python']}, orjson {info['orjson']}, "
        f"yaniv-audit {info['version']}; best of up to {info['repeat']} rounds of all stages",
        "",
        f"{'stage':50} {'seconds':>9} {'events/s':>12} {'vs parse':>9}",
    ]
    jobs = result["stages"]["bulk"]["jobs"]
    for key, label in STAGE_LABELS:
        s = result["stages"][key]
        lines.append(
            f"{label.format(jobs=jobs):50} {s['seconds']:9.3f} "
            f"{s['events_per_s']:12,.0f} {s['vs_parse']:8.3f}x"
        )
    lines.append(f"{'    bulk speed-up over one core':50} {result['bulk_speedup']:9.2f}x")
    chess = result.get("chess", {})
    if "plies_per_s" in chess:
        lines.append(
            f"{'(g) python-chess ' + chess['version'] + ': PGN read + push':50} "
            f"{chess['seconds']:9.3f} {chess['plies_per_s']:12,.0f} plies/s"
        )
        lines.append(
            f"{'    audit (d) events/s over its plies/s':50} {chess['ratio']:9.2f}x"
            f"   ({chess['games']} random games, {chess['plies']:,} plies)"
        )
    elif "skipped" in chess:
        lines.append(f"(g) {chess['skipped']}")
    verdicts = ", ".join(f"{n} {v}" for v, n in sorted(result["verdicts"].items()))
    lines += ["", f"verdicts: {verdicts}"]
    load = result["load_average"]
    if load["before"] is not None and load["after"] is not None:
        lines.append(
            f"load average (1 min): {load['before']:.2f} before, {load['after']:.2f} after"
        )
        if load["before"] > 0.5:
            lines.append(
                "warning: other processes were using the cores when the run began; "
                "the figures, the bulk speed-up above all, are pessimistic"
            )
    lines += ["", "memory (peak RSS)"]
    mem = result["memory"]
    workers = (
        f"largest child process {mib(mem['maxrss_workers'])}"
        if mem["maxrss_workers"]
        else "the bulk audit's workers are the fork server's children, not measured"
    )
    lines.append(f"  this process {mib(mem['maxrss'])}; {workers}")
    streaming = mem.get("streaming")
    if streaming is not None:
        lines.append(
            f"  audit --jobs 1 in a fresh process: {streaming['games']} games "
            f"{mib(streaming['maxrss'])}, {streaming['games_large']} games (the corpus x"
            f"{MEMORY_FACTOR}) {mib(streaming['maxrss_large'])} ({streaming['growth']:+.1%})"
        )
    lines += ["", "targets"]
    for row in result["targets"]:
        lines.append(
            f"  {row['target']:50} {row['shown']:>12}  {'PASS' if row['pass'] else 'MISS'}"
        )
    return "\n".join(lines)


def machine_info() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count() or 1,
        "python": platform.python_version(),
        "orjson": orjson.__version__,
        "version": __version__,
    }


def main(argv: list[str] | None = None) -> None:
    """``python -m yaniv_audit.batch.bench --probe DIR TIMES``: the streaming check's child."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "--probe":
        sys.exit(
            "usage: python -m yaniv_audit.batch.bench --probe DIR TIMES "
            "(the benchmark itself is `yaniv-audit bench`)"
        )
    print(json.dumps(probe(args[1], int(args[2]))))


if __name__ == "__main__":
    main()
