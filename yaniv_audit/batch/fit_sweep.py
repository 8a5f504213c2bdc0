"""Does ``rules fit`` find the rules a game was played under? (issue 39)

Games simulated under random rule sets drawn from :data:`~.core.rules.PARAMS`, every
recording style, each fitted twice: from its own declared rules (the answer must be
clean, contain the true rule set and fix every parameter at its true value), and from
a rule set one decided parameter away (the answer must find the true value back). A
sample of each answer's rule sets is replayed: every one must audit the log clean.

The test suite runs a few games (tests/core/test_fit.py); ``python -m
yaniv_audit.batch.fit_sweep --games 500 --rule-sets 200`` (or ``YANIV_AUDIT_LONG=1`` for the
test) runs the long sweep and prints how often each parameter was left open.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..core.audit import replay_log
from ..core.cards import deck_size
from ..core.fit import Fit, contains, fit_log, fitted_sets
from ..core.rules import PARAM_BY_NAME, PARAMS, RuleSet, _combination_problems
from ..io.codec import parse_jsonl
from .simulate import RECORD_STYLES, Rng, SimulationError, simulate_game, to_jsonl_bytes

#: the numbers a random rule set draws from: each parameter's own range, narrowed to
#: what a table plays (a score limit of 99,999 is a game of a thousand rounds)
_NUMBERS: dict[str, tuple[int, int]] = {
    "decks": (1, 2),
    "jokers": (0, 4),
    "hand_size": (3, 7),
    "joker_value": (0, 25),
    "set_min": (2, 3),
    "set_max": (3, 5),
    "run_min": (3, 4),
    "run_max": (4, 7),
    "yaniv_max": (3, 12),
    "assaf_penalty": (0, 50),
    "assaf_multi_penalty": (5, 40),
    "score_limit": (60, 250),
    "rounds": (2, 8),
}
_TABLES = ((), ((100, 50), (200, 100)), ((50, 0), (100, 50)), ((150, 75),))


def random_rules(rng: Rng, players: int) -> RuleSet:
    """A rule set whose every parameter is drawn from its values (numbers from
    :data:`_NUMBERS`), valid and with room in the deck for ``players`` hands."""
    while True:
        values: dict[str, Any] = {}
        for p in PARAMS:
            if p.kind == "bool":
                values[p.name] = rng.chance(1, 2)
            elif p.kind == "choice":
                values[p.name] = rng.choice(p.choices)
            elif p.kind == "table":
                values[p.name] = rng.choice(_TABLES)
            else:
                lo, hi = _NUMBERS[p.name]
                value: int | None = lo + rng.below(hi - lo + 1)
                if p.nullable and p.name != "rounds" and rng.chance(1, 2):
                    value = None
                values[p.name] = value
        if values["game_end"] != "rounds":
            values["rounds"] = None
        values["starter"] = rng.choice(("round_winner", "next_seat", "caller"))
        rules = RuleSet(**values, name="israeli")
        if not _combination_problems(rules) and players * rules.hand_size + 1 <= deck_size(rules):
            return rules


@dataclass
class Sweep:
    games: int = 0
    failures: list[str] = field(default_factory=list)
    open: Counter[str] = field(default_factory=Counter)
    replays: list[int] = field(default_factory=list)
    perturbed: int = 0
    sampled: int = 0


def check_game(events: list[dict[str, Any]], truth: RuleSet, sweep: Sweep, tag: str) -> None:
    """Fit one simulated game as the module says, recording what fails in ``sweep``."""
    log = parse_jsonl(to_jsonl_bytes(events), tag)
    fit = fit_log(log)
    sweep.games += 1
    sweep.replays.append(fit.replays)
    sweep.open.update(fit.open)
    problems = _problems(fit, log, truth, sweep)
    # one decided parameter moved off its true value: the fit must find it back
    alt = fit.alternatives[0]
    for name in alt.params:
        value = _elsewhere(fit, name, truth)
        if value is None:
            continue
        start = dataclasses.replace(truth, **{name: value})
        if _combination_problems(start):
            continue
        moved = fit_log(log, start)
        sweep.perturbed += 1
        if not contains(moved, truth):
            problems.append(f"from {start.id}: the answer does not contain the true rules")
        problems += _problems(moved, log, None, sweep)
        break
    sweep.failures += [f"{tag} ({truth.id}): {p}" for p in problems]


def _elsewhere(fit: Fit, name: str, truth: RuleSet) -> Any:
    """A value of ``name`` outside the answer (None: there is none to try)."""
    param = PARAM_BY_NAME[name]
    kind, value = fit.alternatives[0].params[name]
    if param.kind == "bool":
        return not getattr(truth, name)
    if param.kind == "choice":
        others = [c for c in param.choices if c not in (value if kind == "values" else [value])]
        return others[0] if others else None
    if kind == "range" and value[0] > param.minimum:
        return int(value[0]) - 1
    if kind == "fixed" and isinstance(value, int) and value > param.minimum:
        return value - 1
    return None


def _problems(fit: Fit, log: Any, truth: RuleSet | None, sweep: Sweep) -> list[str]:
    problems: list[str] = []
    if truth is not None:
        if not fit.clean:
            problems.append("not clean under its own rules")
        if not contains(fit, truth):
            problems.append("the answer does not contain the true rules")
        for name, (kind, value) in fit.alternatives[0].params.items():
            if kind == "fixed" and getattr(truth, name) != value:
                problems.append(f"{name} fixed at {value!r}, played at {getattr(truth, name)!r}")
    if fit.clean:
        for alt in fit.alternatives:
            for rules in fitted_sets(alt)[:12]:
                sweep.sampled += 1
                if replay_log(log, rules).findings:
                    problems.append(f"{rules.id} is in the answer but does not audit clean")
    return problems


def sweep(games: int, rule_sets: int, seed: int = 1) -> Sweep:
    """Fit ``games`` games played under ``rule_sets`` random rule sets (every recording
    style in turn)."""
    rng = Rng(seed)
    out = Sweep()
    sets: list[tuple[RuleSet, int]] = []
    while len(sets) < rule_sets:
        players = 2 + rng.below(3)
        sets.append((random_rules(rng, players), players))
    for g in range(games):
        truth, players = sets[g % len(sets)]
        style = RECORD_STYLES[g % len(RECORD_STYLES)]
        try:
            events = simulate_game(truth, players, ["careful"], seed, g, record=style)
        except SimulationError:
            continue
        check_game(events, truth, out, f"game {g} ({style})")
    return out


def report(result: Sweep) -> str:
    """The sweep's figures as bench/RESULTS.md quotes them."""
    lines = [
        f"games fitted: {result.games}; from a rule set one parameter off: {result.perturbed}; "
        f"rule sets of the answers replayed: {result.sampled}; failures: {len(result.failures)}",
        f"replays per fit: mean {sum(result.replays) / max(len(result.replays), 1):.0f}, "
        f"max {max(result.replays, default=0)}",
        "left open (the log cannot tell), share of games:",
    ]
    for p in PARAMS:
        share = result.open[p.name] / max(result.games, 1)
        lines.append(f"  {p.name:20} {share:6.1%}")
    lines += [f"FAIL {f}" for f in result.failures[:20]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rule-sets", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(report(sweep(args.games, args.rule_sets, args.seed)))


if __name__ == "__main__":
    main()
