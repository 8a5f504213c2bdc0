"""The cost of one append to a live table at entry 10 and at entry 1,500 (issue 36: within
1.5x), against the whole-log ``POST /api/v1/state`` a recorder sent before tables.

Run from the repository root:

    .venv/bin/python bench/append.py

It opens two tables in a fresh archive (the app in this process, Flask's test client:
no HTTP, no other server) and appends the entries of
``replays/simulated/classic/game-00027.jsonl`` (1,566 events) one at a time, as a phone
does: the first table up to entry 1,489, the second to entry 0; then the 21 appends
around entry 1,500 (1,490 to 1,510) of the one and around entry 10 (0 to 20) of the
other, in turn, so that both meet the same machine and the same archive (the shared
host's load moves from second to second). Each append is timed whole (read,
incremental fold, state and audit so far, the archive's transaction committed, the
answer's JSON). It prints their median and p95, and, for the same two points,
``POST /api/v1/state`` with the whole log so far (the recorder's request before tables:
read and fold from the first event), the median of 5 each; then the fold alone (no
archive, no HTTP) at both points.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402

from yaniv_audit.web import create_app  # noqa: E402

GAME = ROOT / "replays" / "simulated" / "classic" / "game-00027.jsonl"
POINTS = (10, 1500)
AROUND = 10


def main() -> None:
    lines = GAME.read_bytes().splitlines()
    with tempfile.TemporaryDirectory(prefix="yaniv-append-") as tmp:
        app = create_app({"ARCHIVE": str(Path(tmp) / "bench.duckdb")})
        client = app.test_client()
        tables = []
        for point in POINTS:  # each its own game_id: two games with one game_started are one
            first = orjson.loads(lines[0]) | {"game_id": f"bench-{point}"}
            opened = client.post("/api/v1/tables", data=orjson.dumps(first)).get_json()
            tables.append([opened["id"], opened["key"], 1])

        def append(which: int) -> float:
            table = tables[which]
            line = lines[table[2]]
            started = time.perf_counter()
            r = client.post(
                f"/api/v1/tables/{table[0]}/events",
                data=line,
                headers={"Authorization": f"Bearer {table[1]}", "If-Match": f'"{table[2]}"'},
            )
            took = time.perf_counter() - started
            assert r.status_code == 200, r.get_json()
            table[2] = r.get_json()["seq"]
            return took

        for _ in range(POINTS[1] - AROUND - 1):  # the long table brought to its window
            append(1)
        for _ in range(POINTS[0] - AROUND - 1):
            append(0)
        took: dict[int, list[float]] = {0: [], 1: []}
        for _ in range(2 * AROUND + 1):  # in turn, so that both see the same machine
            for which in (0, 1):
                took[which].append(append(which))
        whole: dict[int, float] = {}
        for point in POINTS:
            body = b"\n".join(lines[: point + 1])
            runs = []
            for _ in range(5):
                started = time.perf_counter()
                assert client.post("/api/v1/state", data=body).status_code == 200
                runs.append(time.perf_counter() - started)
            whole[point] = statistics.median(runs)
    print(
        f"{GAME.relative_to(ROOT)}: two tables, appended one entry at a time, the "
        f"{2 * AROUND + 1} appends around each point in turn\n"
    )
    print(f"{'at entry':>10} {'append p50':>12} {'append p95':>12} {'whole-log state':>16}")
    medians = {}
    for which, point in enumerate(POINTS):
        window = took[which]
        medians[point] = statistics.median(window)
        p95 = statistics.quantiles(window, n=20)[-1]
        print(
            f"{point:>10,} {medians[point] * 1000:>9.2f} ms {p95 * 1000:>9.2f} ms "
            f"{whole[point] * 1000:>13.2f} ms"
        )
    ratio = medians[POINTS[1]] / medians[POINTS[0]]
    print(f"\nappend at entry {POINTS[1]:,} / at entry {POINTS[0]}: {ratio:.2f}x (goal: 1.5x)")
    folds = fold_alone(lines)
    print(
        f"the fold alone (read, fold, state and report; no archive, no HTTP): "
        f"{folds[0] * 1000:.2f} ms at entry {POINTS[0]}, {folds[1] * 1000:.2f} ms at "
        f"entry {POINTS[1]:,}: {folds[1] / folds[0]:.2f}x"
    )


def fold_alone(lines: list[bytes]) -> list[float]:
    """The median cost of :class:`~yaniv_audit.io.live.LiveGame`'s append and state around
    each point, the two games in turn."""
    from yaniv_audit.io.live import LiveGame

    games = [LiveGame("short"), LiveGame("long")]
    for game, point in zip(games, POINTS, strict=True):
        game.append(b"\n".join(lines[: max(1, point - AROUND)]))
    took: list[list[float]] = [[], []]
    for _ in range(2 * AROUND + 1):
        for which, game in enumerate(games):
            started = time.perf_counter()
            game.append(lines[game.count])
            orjson.dumps(game.state(), option=orjson.OPT_NON_STR_KEYS)
            took[which].append(time.perf_counter() - started)
    return [statistics.median(t) for t in took]


if __name__ == "__main__":
    main()
