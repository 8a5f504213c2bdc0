"""What saying a game's entries costs (``web/said.py``, issue 37): the sentences the
recorder and the live table read, for the longest simulated game (six players, two
decks, 910 events), in Hebrew, said whole (``POST /api/v1/state``, a table's first
read in a language) and with the entries said before (a live table's next read).

Run from the repository root:

    .venv/bin/python bench/said.py

Each figure is the best of ``--rounds`` runs (default 20).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from yaniv_audit.core.table_state import table_state
from yaniv_audit.io.codec import read_log
from yaniv_audit.web.said import Part, said

GAME = Path("replays/simulated/two-decks/game-00006.jsonl")


def best(rounds: int, run: object) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return min(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    log = read_log(GAME)
    state = table_state(log)
    report = state["report"]
    known: list[list[Part]] = []
    said(log, report, "he", None, known)
    whole = best(args.rounds, lambda: said(log, report, "he"))
    again = best(args.rounds, lambda: said(log, report, "he", None, known))
    alone = best(args.rounds, lambda: table_state(log))
    print(f"{GAME} ({len(log.events)} events), best of {args.rounds}:")
    print(f"  table_state                          {alone:8.1f} ms")
    print(f"  said, every entry (he)               {whole:8.1f} ms")
    print(f"  said, the entries said before (he)   {again:8.1f} ms")


if __name__ == "__main__":
    main()
