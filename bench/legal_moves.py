"""The cost of one legal-move query at the parameters' limits: the hands that have the most
legal throws (many jokers, wild jacks, four decks, thirty cards) under the rule sets that let
the most of them be thrown, each timed as ``POST /api/v1/state`` computes it
(:func:`~yaniv_audit.core.table_state.table_state`: the replay, ``next_moves`` of at most
``THROWS_LISTED`` throws a player, the report), and the attack of issue 35 item 1
(../shared/attacks/614-bytes-16-jokers.jsonl: 15.5 s before).

Run from the repository root (not part of the test suite; the target is under 50 ms a query):

    .venv/bin/python bench/legal_moves.py [--repeat 5]

Each line: the rule set, the hand, the legal throws it has in all (counted once, by the
generator without a limit, when that takes under a few seconds), the throws listed, and the
best of ``--repeat`` timings of ``next_moves`` alone and of the whole ``table_state``, each
with the generator's per-rule-set memory emptied first.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from yaniv_audit.core import melds
from yaniv_audit.core.cards import parse_cards
from yaniv_audit.core.engine import Replay
from yaniv_audit.core.events import Log
from yaniv_audit.core.melds import legal_throws
from yaniv_audit.core.rules import RuleSet, parse_rules
from yaniv_audit.core.table_state import THROWS_LISTED, table_state
from yaniv_audit.io.codec import parse_jsonl

ROOT = Path(__file__).resolve().parent.parent
ATTACK = ROOT.parent / "shared" / "attacks" / "614-bytes-16-jokers.jsonl"

LIMITS = "decks=4,jokers=8,hand_size=30,set_max=48"
#: (rule set, hand): the hands with the most throws under the rules that allow the most
CASES: list[tuple[str, str]] = [
    (
        f"israeli({LIMITS},jokers_in_sets=true)",
        "JK " * 16 + "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS",
    ),
    (
        f"israeli({LIMITS},jokers_in_sets=true,run_wrap=true,run_min=2)",
        "JK " * 17 + "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    ),
    (
        f"israeli({LIMITS},jokers_in_sets=true,wild_jacks=true,run_wrap=true,run_min=2,set_min=2)",
        "JK " * 10 + "JH JH JS JS JD JD JC JC JH JS " + "5H 5H 5S 5S 5D 5D 5C 5C 5H 5S",
    ),
    (
        f"israeli({LIMITS},jokers_in_sets=true,wild_jacks=true,ace_high=true,run_min=2)",
        "JK " * 8 + "JH JS JD JC " + "AH 2H 3H 4H 5H 6H 7H 8H 9H TH QH KH " + "9S TS QS KS AS 2S",
    ),
    (
        f"israeli({LIMITS},wild_jacks=true,run_wrap=true,run_min=2)",
        "JK " * 13 + "JH JS JD JC " + "AH 2H 3H 4H 5H 6H 7H 8H 9H TH QH KH AS",
    ),
    (f"israeli({LIMITS},jokers_in_sets=true,set_min=20)", "JK " * 30),
    (
        f"israeli({LIMITS},jokers_in_sets=true,wild_jacks=true)",
        "JK " * 14 + "JH JS JD JC " * 2 + "9H 9S 9D 9C 9H 9S 9D 9C",
    ),
]


def log_of(rules: str, hand: str) -> bytes:
    """A game of two whose first round deals ``hand`` to the first player, who is to throw."""
    other = ["2C", "3D", "4S", "6C", "7D"]
    lines = [
        {"type": "game_started", "format": "yaniv-log/1", "players": ["p0", "p1"], "rules": rules},
        {
            "type": "round_started",
            "round": 1,
            "starter": "p0",
            "hands": {"p0": hand.split(), "p1": other},
            "upcard": "8C",
        },
    ]
    return b"\n".join(json.dumps(line).encode() for line in lines) + b"\n"


def cold() -> None:
    """Forget what the legal-move generator keeps per rule set (a hand's runs): each query
    is timed as the first of its kind (a server meets new hands)."""
    melds._tables_for.cache_clear()
    melds._BY_ID.clear()


def best(repeat: int, run: object) -> float:
    assert callable(run)
    times = []
    for _ in range(repeat):
        cold()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--repeat", type=int, default=5, help="timings of each (best kept)")
    parser.add_argument(
        "--no-count",
        action="store_true",
        help="do not count every throw without a limit (the slow part)",
    )
    args = parser.parse_args()
    cases = [(r, h, log_of(r, h)) for r, h in CASES]
    if ATTACK.exists():
        data = ATTACK.read_bytes()
        first = json.loads(data.split(b"\n")[0])
        second = json.loads(data.split(b"\n")[1])
        cases.insert(0, (first["rules"], " ".join(second["hands"]["p0"]), data))
    worst = 0.0
    print(f"at most {THROWS_LISTED} throws listed a player")
    for rules_id, hand, data in cases:
        log = parse_jsonl(data, "bench.jsonl")
        rules = parse_rules(rules_id)
        cards = parse_cards(hand.split())
        total = "-"
        if not args.no_count:
            start = time.perf_counter()
            total = f"{len(legal_throws(cards, rules)):,} ({time.perf_counter() - start:.2f} s)"

        def query(log: Log = log, rules: RuleSet = rules) -> int:
            replay = Replay(log.game, rules)
            for event in log.events:
                replay.apply(event)
            return len(replay.next_moves(THROWS_LISTED + 1))

        moves = query()
        t_moves = best(args.repeat, query)
        t_state = best(args.repeat, lambda log=log: table_state(log))
        worst = max(worst, t_state)
        print(
            f"{rules_id}\n  {len(hand.split())} cards: {' '.join(sorted(set(hand.split())))}"
            f"\n  throws in all {total}; moves listed {min(moves, THROWS_LISTED)}; "
            f"next_moves {t_moves * 1000:.1f} ms; table_state {t_state * 1000:.1f} ms"
        )
    print(f"slowest table_state: {worst * 1000:.1f} ms (target: under 50 ms)")


if __name__ == "__main__":
    main()
