"""``rules fit`` on a long game: the time of a fit of a 1,000-event game on one core, and
the number of replays it needed (issue 39: under 1 s, and never the whole space).
The target is the usual case, a game fitted from its declared rules or from one
parameter off; from a far rule set the search goes deeper (at most
``SEARCH_REPLAYS`` replays of core/fit.py, then the closest found).

Run from the repository root (not part of the test suite):

    .venv/bin/python bench/fit.py [--events 1000] [--repeat 3]

It simulates four-player games (careful bots, every recording style) under three rule
sets until one has at least ``--events`` events, then fits it three ways: from its
declared rules (the usual case: the log fits them), from a rule set one parameter off
(``yaniv_max`` below the highest call), and from another preset (the search goes
deeper). Each line: the case, the events, the replays, the best of ``--repeat``
timings, and the answer's first line.
"""

from __future__ import annotations

import argparse
import time

from yaniv_audit.batch.simulate import simulate_game, to_jsonl_bytes
from yaniv_audit.core.events import Log
from yaniv_audit.core.fit import Fit, fit_lines, fit_log
from yaniv_audit.core.rules import PARAMS, RuleSet, parse_rules
from yaniv_audit.io.codec import parse_jsonl


def long_game(rules: RuleSet, events: int, record: str) -> Log:
    for seed in range(1, 200):
        game = simulate_game(rules, 4, ["careful"], seed, record=record, max_rounds=200)
        if len(game) >= events:
            return parse_jsonl(to_jsonl_bytes(game), f"seed {seed}")
    raise SystemExit(f"no game of {events} events under {rules.id}")


def timed(log: Log, start: RuleSet | None, repeat: int) -> tuple[float, float, Fit]:
    """The best wall-clock and CPU seconds of ``repeat`` fits (the CPU time is this
    process's alone: the machine's other load does not count in it)."""
    wall = cpu = float("inf")
    fit = None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fit = fit_log(log, start)
        wall = min(wall, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    assert fit is not None
    return wall, cpu, fit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    space = 1
    for p in PARAMS:
        space *= {"bool": 2, "choice": len(p.choices)}.get(p.kind, p.maximum - p.minimum + 1)
    print(f"the whole space: about 10^{len(str(space)) - 1} rule sets")
    print(f"{'case':50} {'events':>6} {'replays':>7} {'wall s':>7} {'cpu s':>6}  answer")
    for spec, record in (
        ("israeli", "full"),
        ("classic(reductions={})", "mixed"),
        ("namu(score_limit=150)", "hands_only"),
    ):
        rules = parse_rules(spec)
        log = long_game(rules, args.events, record)
        off = parse_rules(f"{spec[:-1]},yaniv_max=0)" if "(" in spec else f"{spec}(yaniv_max=0)")
        for label, start in (
            (f"{spec} ({record}) from its own rules", None),
            ("  from yaniv_max=0", off),
            ("  from de-wiki", parse_rules("de-wiki")),
        ):
            wall, cpu, fit = timed(log, start, args.repeat)
            first = fit_lines(fit)[0][0]
            print(f"{label:50} {len(log.events):6} {fit.replays:7} {wall:7.3f} {cpu:6.3f}  {first}")


if __name__ == "__main__":
    main()
