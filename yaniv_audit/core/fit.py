"""Which rules fit a game: the rule sets under which a log is clean (issue 39).

:func:`fit_log` starts from a rule set (the log's declared rules, or another) and
looks for the smallest changes that make the log's audit clean, guided by the
findings: each finding names, in its ``rule`` param (:mod:`.messages`) or by its code
(:data:`CODE_PARAMS`), the parameters that decided it, and only those are varied.
The values tried come from the log itself (the totals at calls, the points and
scores written down, the sizes of the throws, the scores at which players went
out), never the whole space: numbers are replayed at the bounds of the range the
log allows, not at every value, and every replay is counted.

The answer is data (:class:`Fit`, :meth:`Fit.to_json` the ``rules fit --json``
shape): alternatives, each one concrete rule set that fits and, for each parameter
the log decides, its possible values (a value, a list or an inclusive range) and
the events that decide it; and ``open``, the parameters the log cannot tell (they
never came up: every value tried audits the log alike), kept at the starting value.
When no rule set tried makes the log clean, the alternatives are those with the
fewest findings, each with the findings left.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import JOKER, NAMES, Card
from .engine import INCONSISTENCY, Finding, Replay, StopReplay
from .errors import InconsistentLogError, LogFormatError
from .events import Discard, Draw, Event, GameEnded, RoundEnded, RoundStarted, Showdown, Slap, Yaniv
from .messages import Translate, render
from .rules import (
    PARAM_BY_NAME,
    PARAMS,
    PRESETS,
    SCORE_MAX,
    Reductions,
    RuleSet,
    _combination_problems,
    format_value,
)

#: the parameters a finding's code brings in besides those its ``rule`` param names:
#: the parameters its outcome depends on (a written score depends on the whole scoring)
_SCORING = (
    "assaf_on_tie",
    "assaf_penalty",
    "assaf_adds_hand",
    "assaf_scoring",
    "assaf_multi_penalty",
    "face_values",
    "joker_value",
    "wild_jacks",
)
_ENDING = ("score_limit", "limit_rule", "game_end", "rounds", "reductions")
_MELDS = (
    "set_min",
    "set_max",
    "run_min",
    "run_max",
    "ace_high",
    "run_wrap",
    "jokers_in_runs",
    "jokers_in_sets",
    "wild_jacks",
)
CODE_PARAMS: dict[str, tuple[str, ...]] = {
    "claim.points": _SCORING,
    "claim.scores": (*_SCORING, "reductions"),
    "claim.winner": (*_ENDING, *_SCORING),
    "claim.yaniv_total": ("face_values", "joker_value", "wild_jacks"),
    "claim.showdown": ("reshuffle", *_ENDING),
    "player.out": _ENDING,
    "game.over": (*_ENDING, *_SCORING),
    "yaniv.threshold": ("yaniv_max", "face_values", "joker_value", "wild_jacks"),
    "turn.order": ("starter", "reshuffle", "game_end", "slap_down"),
    "turn.no_throw": ("slap_down", "joker_swap"),
    "turn.no_draw": ("slap_down", "reshuffle"),
    "yaniv.timing": ("slap_down",),
    "deal.starter": ("starter",),
    "deal.hand_size": ("hand_size",),
    "deal.too_big": ("hand_size", "decks", "jokers"),
    "discard.combo": _MELDS,
    "slap.not_allowed": ("slap_down",),
    "slap.no_match": ("slap_down", *_MELDS),
    "draw.pile_card": ("pickup", "pile_needs_combo", "slap_down"),
    "draw.pile_needs_combo": ("pile_needs_combo",),
    "draw.swap": ("joker_swap", "wild_jacks", "pickup"),
    "showdown.no_caller": ("reshuffle",),
    "reshuffle.not_allowed": ("reshuffle",),
    "card.not_in_deck": ("jokers", "decks", "wild_jacks"),
    "card.too_many": ("decks", "jokers"),
    "card.already_seen": ("decks", "jokers"),
    "stock.mismatch": ("decks", "jokers", "hand_size", "reshuffle"),
    "stock.empty": ("reshuffle", "decks", "jokers"),
    "card.not_in_hand": ("decks", "jokers", "slap_down", "joker_swap"),
    "card.not_on_pile": ("pickup", "joker_swap"),
}

#: numbers whose answer is a range: the report only changes where the value crosses one
#: the log shows (a call's total, a throw's size, a score), so the values between two
#: that were replayed audit the log alike
RANGED = frozenset(
    {
        "yaniv_max",
        "set_min",
        "set_max",
        "run_min",
        "run_max",
        "score_limit",
        "decks",
        "jokers",
        "hand_size",
        "rounds",
    }
)

#: how deep the search goes (parameters changed together) and how many partial answers
#: it keeps at each depth
MAX_DEPTH = 6
BEAM = 3
#: the search for a clean rule set stops trying more after this many replays (then
#: the answer is the closest found); describing each alternative takes a few dozen more
SEARCH_REPLAYS = 240
#: and for a long log, after this many events replayed (a posted log of 20,000 events:
#: 50 replays), so that one fit's time stays bounded as one audit's is
SEARCH_EVENTS = 1_000_000
#: at most this many events are named as deciding one parameter
MAX_EVENTS = 8


def deciding_params(finding: Finding) -> list[str]:
    """The parameters that decided ``finding``: those its ``rule`` params name (at any
    depth of its phrases), then those its code depends on (:data:`CODE_PARAMS`)."""
    found: dict[str, None] = {}

    def walk(value: Any) -> None:
        if isinstance(value, Mapping):
            rule = value.get("rule")
            if isinstance(rule, Mapping):
                found.update(dict.fromkeys(k for k in rule if k in PARAM_BY_NAME))
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(finding.params)
    found.update(dict.fromkeys(CODE_PARAMS.get(finding.code, ())))
    return list(found)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One replay of the log under one rule set: what the search compares."""

    rules: RuleSet
    findings: tuple[Finding, ...]
    #: the report's substance: findings (event, code, player), rounds, final
    signature: tuple[Any, ...]
    replay: Replay

    @property
    def clean(self) -> bool:
        return not self.findings

    @property
    def cost(self) -> tuple[int, int, int]:
        """How far from clean: a replay that stopped early (an impossible event, or a game
        decided before the log ends: later events do not count) is worse than any that
        ran to the end (the later it stopped, the better), then the fewer findings."""
        stopped = [f.seq for f in self.findings if f.kind == INCONSISTENCY or f.code == "game.over"]
        return (1, -stopped[0], len(self.findings)) if stopped else (0, 0, len(self.findings))

    def keys(self) -> list[tuple[int, str, str | None]]:
        return [(f.seq, f.code, f.player) for f in self.findings]


@dataclass
class Alternative:
    """One way the log fits: a concrete rule set, and for each parameter the log decides,
    its values (``("fixed", v)``, ``("values", [..])`` or ``("range", [lo, hi])``), the
    events deciding it and the first finding another value gives (why not)."""

    rules: RuleSet
    findings: tuple[Finding, ...]
    changed: tuple[str, ...]
    params: dict[str, tuple[str, Any]] = field(default_factory=dict)
    events: dict[str, list[int]] = field(default_factory=dict)
    why: dict[str, tuple[Any, Finding]] = field(default_factory=dict)


@dataclass
class Fit:
    """The answer of :func:`fit_log`."""

    start: RuleSet
    alternatives: list[Alternative]
    open: list[str]
    replays: int

    @property
    def clean(self) -> bool:
        return bool(self.alternatives) and not self.alternatives[0].findings

    def to_json(self) -> dict[str, Any]:
        """The ``rules fit --json`` answer (schemas/fit.schema.json)."""
        return {
            "from": self.start.id,
            "alternatives": [
                {
                    "rules": a.rules.id,
                    "findings": len(a.findings),
                    "changed": list(a.changed),
                    "params": {
                        name: {kind: json_value(value)} for name, (kind, value) in a.params.items()
                    },
                    "events": {name: list(seqs) for name, seqs in a.events.items()},
                    "left": [f.to_json() for f in a.findings],
                }
                for a in self.alternatives
            ],
            "open": list(self.open),
            "replays": self.replays,
        }


def json_value(value: Any) -> Any:
    """A parameter's value (or list of values) as JSON carries it (tables as objects)."""
    if isinstance(value, list):
        return [json_value(v) for v in value]
    if isinstance(value, tuple):
        return {str(k): v for k, v in value}
    return value


# --- what the log shows ------------------------------------------------------


@dataclass
class _Facts:
    """What the log itself shows, read once: the numbers the search tries."""

    call_seq: dict[int, int]  # round -> the event of its call (yaniv, else showdown)
    end_seq: dict[int, int]  # round -> its round_ended (else its call)
    taking_part: dict[int, set[str]]  # round -> the players the log shows in it
    throw_sizes: set[int]
    multi_throws: bool
    dealt_sizes: set[int]
    rounds: int
    pile_draws: bool
    swaps: bool
    slaps: bool
    jokers_seen: bool
    jacks_seen: bool
    winner_named: tuple[str, ...] | None


def _facts(events: Sequence[Event]) -> _Facts:
    call_seq: dict[int, int] = {}
    end_seq: dict[int, int] = {}
    part: dict[int, set[str]] = {}
    sizes: set[int] = set()
    dealt: set[int] = set()
    current = 0
    pile = swaps = slaps = jokers = jacks = False
    winner: tuple[str, ...] | None = None

    def cards(codes: Iterable[Card]) -> None:
        nonlocal jokers, jacks
        for code in codes:
            jokers = jokers or code == JOKER
            jacks = jacks or (code != JOKER and NAMES[code][0] == "J")

    for e in events:
        if isinstance(e, RoundStarted):
            current = e.round
            part.setdefault(current, set()).add(e.starter)
            if e.hands:
                part[current].update(e.hands)
                dealt.update(len(h) for h in e.hands.values())
                for h in e.hands.values():
                    cards(h)
        elif isinstance(e, Discard):
            part.setdefault(current, set()).add(e.player)
            sizes.add(len(e.cards))
            cards(e.cards)
        elif isinstance(e, Draw):
            pile = pile or e.source == "pile"
            swaps = swaps or e.swap is not None
        elif isinstance(e, Slap):
            slaps = True
        elif isinstance(e, Yaniv):
            call_seq.setdefault(current, e.index)
            part.setdefault(current, set()).add(e.player)
        elif isinstance(e, Showdown):
            call_seq.setdefault(current, e.index)
            part.setdefault(current, set()).update(e.hands)
            part[current].update(e.totals or {})
            for h in e.hands.values():
                cards(h)
        elif isinstance(e, RoundEnded):
            end_seq.setdefault(e.round, e.index)
            part.setdefault(e.round, set()).update(e.points or {})
        elif isinstance(e, GameEnded) and e.winner is not None:
            winner = tuple(e.winner)
    for number, seq in call_seq.items():
        end_seq.setdefault(number, seq)
    return _Facts(
        call_seq,
        end_seq,
        part,
        sizes,
        any(s >= 2 for s in sizes),
        dealt,
        max(part, default=0),
        pile,
        swaps,
        slaps,
        jokers,
        jacks,
        winner,
    )


# --- the search ----------------------------------------------------------------


class _Probe(Replay):
    """A replay that stops at the first finding the rule set it is compared with does not
    have: enough to tell that a value does not audit the log alike, and where."""

    expected: Counter[tuple[int, str, str | None]]

    def _find(
        self, event: Event, kind: str, code: str, player: str | None, params: dict[str, Any]
    ) -> None:
        key = (event.index, code, player)
        super()._find(event, kind, code, player, params)
        if self.expected[key] > 0:
            self.expected[key] -= 1
        else:
            raise StopReplay


class _Search:
    def __init__(self, log: Any, start: RuleSet) -> None:
        self.log = log
        self.start = start
        self.facts = _facts(log.events)
        #: the replays the search for a clean rule set may make (:data:`SEARCH_REPLAYS`,
        #: fewer for a long log: :data:`SEARCH_EVENTS`)
        self.budget = min(SEARCH_REPLAYS, max(10, SEARCH_EVENTS // max(len(log.events), 1)))
        self.cache: dict[RuleSet, Outcome] = {}
        self.quick_cache: dict[tuple[RuleSet, RuleSet], Outcome] = {}
        self.replays = 0

    # replaying

    def outcome(self, rules: RuleSet) -> Outcome:
        found = self.cache.get(rules)
        if found is not None:
            return found
        self.replays += 1
        replay = Replay(self.log.game, rules)
        self._run(replay, rules)
        findings = tuple(replay.findings)
        signature = (
            tuple(sorted((f.seq, f.code, f.player or "") for f in findings)),
            tuple(
                (r.round, tuple(sorted(r.score.points.items())) if r.score else (), r.out)
                for r in replay.records
            ),
            tuple(sorted(replay.scores.items())),
            replay.winners,
        )
        found = Outcome(rules, findings, signature, replay)
        self.cache[rules] = found
        return found

    def quick(self, rules: RuleSet, at: Outcome) -> Outcome:
        """``rules``' outcome as far as it audits the log like ``at``: the replay stops at
        the first finding ``at`` does not have (its findings are then ``at``'s up to there
        and that one)."""
        found = self.cache.get(rules)
        if found is not None:
            return found
        key = (rules, at.rules)
        found = self.quick_cache.get(key)
        if found is not None:
            return found
        self.replays += 1
        replay = _Probe(self.log.game, rules)
        replay.expected = Counter(at.keys())
        self._run(replay, rules)
        found = Outcome(rules, tuple(replay.findings), (), replay)
        self.quick_cache[key] = found
        return found

    def _run(self, replay: Replay, rules: RuleSet) -> None:
        """Fold the log into ``replay`` as far as it goes. Under another rule set than
        the start, a stock draw the replay cannot follow (the log unreadable under it:
        a draw without its card where the stock's order is unknown) stops it as the
        impossible ``stock.mismatch`` it is; under the start it is the log's error."""
        try:
            replay.run(self.log.events, self.log.withdrawals)
        except (InconsistentLogError, StopReplay):
            pass
        except LogFormatError as exc:
            if rules == self.start or exc.index is None:
                raise
            event = self.log.events[exc.index] if exc.index < len(self.log.events) else None
            player = getattr(event, "player", None)
            replay.findings.append(
                Finding(
                    exc.index,
                    replay.round.number if replay.round else None,
                    player,
                    INCONSISTENCY,
                    "stock.mismatch",
                    {"case": "unnamed", "player": player},
                )
            )

    def with_value(self, base: RuleSet, name: str, value: Any) -> RuleSet | None:
        """``base`` with ``name`` set to ``value``, or None when the set is not valid."""
        changes: dict[str, Any] = {name: value}
        if name == "game_end" and value == "rounds" and base.rounds is None:
            changes["rounds"] = max(self.facts.rounds, 1)
        rules = dataclasses.replace(base, **changes)
        if _combination_problems(rules):
            return None
        return rules

    # the values tried for each parameter

    def present(self, name: str) -> bool:
        """Whether the log holds an event that may decide ``name`` (else it is open
        without a replay)."""
        f = self.facts
        if name in ("set_min", "set_max", "run_min", "run_max", "ace_high", "run_wrap"):
            return f.multi_throws
        if name in ("jokers_in_runs", "jokers_in_sets"):
            return f.multi_throws and (f.jokers_seen or f.jacks_seen)
        if name == "joker_value":
            return f.jokers_seen or f.jacks_seen
        if name == "wild_jacks":
            return f.jacks_seen
        if name in ("pickup", "pile_needs_combo"):
            return f.pile_draws
        if name == "joker_swap":
            return f.swaps
        if name == "slap_down":
            return f.slaps
        if name == "starter":
            return f.rounds >= 2
        if name == "yaniv_max":
            return bool(f.call_seq)
        if name in ("assaf_on_tie", "assaf_penalty", "assaf_adds_hand", "assaf_scoring"):
            return bool(self._near_assaf(2 if name == "assaf_on_tie" else 1))
        if name == "assaf_multi_penalty":
            return bool(self._near_assaf(3))
        return True

    def _near_assaf(self, kind: int, outcome: Outcome | None = None) -> list[int]:
        """The rounds (their number) with a tie at a call (kind 2), another total at or
        below the caller's (1), or two of them (3)."""
        rounds = []
        for r in (outcome or self.outcome(self.start)).replay.records:
            s = r.score
            if s is None or s.caller is None or s.caller not in s.totals:
                continue
            mark = s.totals[s.caller]
            others = [t for p, t in s.totals.items() if p != s.caller]
            if (
                (kind == 2 and mark in others)
                or (kind == 1 and any(t <= mark for t in others))
                or (kind == 3 and sum(t <= mark for t in others) >= 2)
            ):
                rounds.append(r.round)
        return rounds

    def candidates(self, name: str, at: Outcome) -> list[Any]:
        """The values of ``name`` worth replaying from ``at``: every value of a choice, the
        other of a flag, and numbers the log shows (sorted, ``at``'s own value among them)."""
        param = PARAM_BY_NAME[name]
        here = getattr(at.rules, name)
        values: list[Any]
        if param.kind == "bool":
            values = [False, True]
        elif param.kind == "choice":
            values = list(param.choices)
        elif param.kind == "table":
            values = self._tables(at)
        else:
            numbers = {n for n in self._numbers(name, at) if param.minimum <= n <= param.maximum}
            if name in RANGED:
                numbers |= {param.minimum, param.maximum}
            if isinstance(here, int):
                # a number the log decides changes the report one step away
                numbers |= {
                    n for n in (here - 1, here, here + 1) if param.minimum <= n <= param.maximum
                }
            values = sorted(numbers)
            if param.nullable:
                values = [None, *values]
        if here not in values:
            values.append(here)
        return values

    def _numbers(self, name: str, at: Outcome) -> set[int]:
        f = self.facts
        records = at.replay.records
        if name == "yaniv_max":
            calls = [
                r.score.totals[r.score.caller]
                for r in records
                if r.score and r.score.caller in r.score.totals and r.end == "yaniv"
            ]
            return {max(calls), max(calls) - 1} if calls else set()
        if name in ("set_min", "set_max", "run_min", "run_max"):
            return {s + d for s in f.throw_sizes if s >= 2 for d in (-1, 0, 1)}
        if name == "hand_size":
            return {s + d for s in f.dealt_sizes for d in (-1, 0, 1)}
        if name == "decks":
            return {1, 2, 3, 4}
        if name == "jokers":
            return set(range(9))
        if name == "rounds":
            return {f.rounds - 1, f.rounds, f.rounds + 1}
        if name == "score_limit":
            return self._limits(at)
        if name in ("assaf_penalty", "assaf_multi_penalty", "joker_value"):
            return self._from_points(name, at)
        return set()

    def _limits(self, at: Outcome) -> set[int]:
        """Scores around those at which players stayed in and went out, as the log shows
        who takes part in each round (under ``at``'s scoring)."""
        part = self.facts.taking_part
        stayed: list[int] = []
        left: list[int] = []
        last: list[int] = []
        for r in at.replay.records:
            nxt = part.get(r.round + 1)
            for p, s in r.scores.items():
                if nxt is None:
                    last.append(s)
                elif p in nxt:
                    stayed.append(s)
                elif p in part.get(r.round, ()):
                    left.append(s)
        out: set[int] = set()
        for s in [*([max(stayed)] if stayed else []), *([min(left)] if left else []), *last]:
            out |= {s - 1, s, s + 1}
        return out

    def _from_points(self, name: str, at: Outcome) -> set[int]:
        """The values that would give the points written down where ``at`` disagrees."""
        here = getattr(at.rules, name)
        base = here if isinstance(here, int) else 0
        out: set[int] = set()
        for finding in at.findings:
            if finding.code != "claim.points":
                continue
            p = finding.params
            written, right = p.get("written"), p.get("right")
            if not isinstance(written, int) or not isinstance(right, int):
                continue
            diff = written - right
            if name == "assaf_penalty":
                out |= {base + diff, written, written - p.get("hand", 0)}
            elif name == "assaf_multi_penalty":
                n = p.get("assafers") or len(self._near_assaf(1, at)) or 1
                for v in (written - p.get("hand", 0), written):
                    if v % max(n, 1) == 0:
                        out.add(v // max(n, 1))
                out |= {base + diff}
            else:  # joker_value: a hand's jokers (1 to 4) each worth the difference's share
                for k in (1, 2, 3, 4):
                    if diff % k == 0:
                        out.add(base + diff // k)
        return out

    def _tables(self, at: Outcome) -> list[Any]:
        tables: list[Reductions] = [(), PRESETS["israeli"].reductions, at.rules.reductions]
        for finding in at.findings:
            if finding.code != "claim.scores":
                continue
            p = finding.params
            table = dict(at.rules.reductions)
            if "reduced_from" in p:
                table.pop(p["reduced_from"], None)
            written, right = p.get("written"), p.get("right")
            # a table's keys are round scores (50, 100, 150...): a score written lower
            # than the rules give elsewhere is a mistake to report, not a reduction
            if (
                isinstance(written, int)
                and isinstance(right, int)
                and 0 <= written < right
                and right % 50 == 0
            ):
                table[right] = written
            tables.append(tuple(sorted(table.items())))
        return list(dict.fromkeys(tables))

    # one parameter's values from a rule set

    def values_of(self, name: str, at: Outcome) -> list[tuple[Any, Outcome]]:
        """Each value of ``name`` tried from ``at`` (in the order of :meth:`candidates`),
        with its outcome."""
        out: list[tuple[Any, Outcome]] = []
        for value in self.candidates(name, at):
            rules = self.with_value(at.rules, name, value)
            if rules is None:
                continue
            out.append((value, at if value == getattr(at.rules, name) else self.quick(rules, at)))
        return out

    def probe(self, name: str, at: Outcome) -> list[tuple[Any, Outcome]]:
        """A number's values from ``at`` replayed at the bounds only: on each side of its
        value, the farthest value tried first; when it audits the log alike, so do all
        between (the report changes only where the number crosses one the log shows),
        else the nearest value that does not is found by halving. Null, for a number that
        may be null, is replayed too."""
        here = getattr(at.rules, name)
        mine = sorted(at.keys())
        values = self.candidates(name, at)
        out: list[tuple[Any, Outcome]] = []

        def run(value: Any) -> Outcome | None:
            if value == here:
                return at
            rules = self.with_value(at.rules, name, value)
            if rules is None:
                return None
            outcome = self.quick(rules, at)
            out.append((value, outcome))
            return outcome

        if None in values and here is not None:
            run(None)
        numbers = sorted(
            v for v in values if v is not None and self.with_value(at.rules, name, v) is not None
        )
        if here is None:
            for v in numbers:
                run(v)
        else:
            out.append((here, at))
            below = [v for v in reversed(numbers) if v < here]
            above = [v for v in numbers if v > here]
            for side in (below, above):
                if not side:
                    continue
                far = run(side[-1])
                if far is None or sorted(far.keys()) == mine:
                    continue
                lo, hi = -1, len(side) - 1  # side[lo] alike (or here), side[hi] not
                while hi - lo > 1:
                    mid = (lo + hi) // 2
                    got = run(side[mid])
                    if got is not None and sorted(got.keys()) == mine:
                        lo = mid
                    else:
                        hi = mid
        order = {v: i for i, v in enumerate([None, *numbers])}
        return sorted(out, key=lambda t: order.get(t[0], -1))


def fit_log(log: Any, start: RuleSet | None = None) -> Fit:
    """The rule sets under which ``log`` (a readable :class:`~.events.Log`) is clean, as
    the smallest changes from ``start`` (default: the log's declared rules)."""
    search = _Search(log, start or log.game.rules)
    base = search.outcome(search.start)
    fits = _search(search, base)
    alternatives = [_describe(search, o, changed) for o, changed in fits]
    opened: set[str] = set(PARAM_BY_NAME)
    for a in alternatives:
        opened -= set(a.params)
    open_ = [p.name for p in PARAMS if p.name in opened]
    return Fit(search.start, alternatives, open_, search.replays)


def _search(search: _Search, base: Outcome) -> list[tuple[Outcome, tuple[str, ...]]]:
    """The outcomes of the smallest changes that make the log clean (else those with the
    fewest findings), each with the parameters changed."""
    if base.clean:
        return [(base, ())]
    frontier: list[tuple[Outcome, tuple[str, ...]]] = [(base, ())]
    best: list[tuple[Outcome, tuple[str, ...]]] = [(base, ())]
    seen: set[RuleSet] = {base.rules}
    for _ in range(MAX_DEPTH):
        children: list[tuple[Outcome, tuple[str, ...]]] = []
        for outcome, changed in frontier:
            names: dict[str, None] = {}
            for finding in outcome.findings:
                names.update(dict.fromkeys(deciding_params(finding)))
            for name in names:
                if name in changed or not search.present(name):
                    continue
                for value in search.candidates(name, outcome):
                    if search.replays >= search.budget:
                        break
                    if value == getattr(outcome.rules, name):
                        continue
                    rules = search.with_value(outcome.rules, name, value)
                    if rules is None or rules in seen:
                        continue
                    seen.add(rules)
                    child = search.outcome(rules)
                    if child.cost < outcome.cost:
                        children.append((child, (*changed, name)))
        clean = [c for c in children if c[0].clean]
        if clean:
            return _distinct(clean)
        if not children:
            break
        children.sort(key=lambda c: (c[0].cost, len(c[1])))
        if children[0][0].cost < best[0][0].cost:
            best = children
        elif children[0][0].cost == best[0][0].cost:
            best = best + children
        frontier = _distinct(children)[:BEAM]
    least = min(o.cost for o, _ in best)
    return _distinct([b for b in best if b[0].cost == least])[:BEAM]


def _distinct(
    found: list[tuple[Outcome, tuple[str, ...]]],
) -> list[tuple[Outcome, tuple[str, ...]]]:
    """One of each set of changed parameters (the first found), in the order found."""
    out: dict[frozenset[str], tuple[Outcome, tuple[str, ...]]] = {}
    for item in found:
        out.setdefault(frozenset(item[1]), item)
    return list(out.values())


def _describe(search: _Search, at: Outcome, changed: tuple[str, ...]) -> Alternative:
    """For each parameter, the values tried from ``at`` that audit the log alike (the
    parameter is decided when some value tried does not)."""
    alt = Alternative(at.rules, at.findings, changed)
    mine = sorted(at.keys())
    known = set(mine)
    for p in PARAMS:
        name = p.name
        if not search.present(name) and name not in changed:
            continue
        tried = search.probe(name, at) if name in RANGED else search.values_of(name, at)
        alike = [sorted(o.keys()) == mine for _, o in tried]
        if all(alike):
            continue  # every value tried audits it alike: the log cannot tell
        alt.params[name] = _written(name, [v for v, _ in tried], alike, getattr(at.rules, name))
        seqs: list[int] = []
        here = getattr(at.rules, name)
        # the value nearest the alternative's says why first (yaniv_max=5 before 0)
        for (value, other), same in sorted(
            zip(tried, alike, strict=True), key=lambda t: _distance(t[0][0], here)
        ):
            if same:
                continue
            extra = [f for f in other.findings if (f.seq, f.code, f.player) not in known]
            if extra and name not in alt.why:
                alt.why[name] = (value, extra[0])
            for f in extra:
                if f.seq not in seqs:
                    seqs.append(f.seq)
        alt.events[name] = sorted(seqs)[:MAX_EVENTS]
    _check_together(search, alt)
    return alt


def _distance(value: Any, here: Any) -> int:
    """How far a value tried is from the alternative's (numbers; 0 for the others)."""
    if isinstance(value, int) and isinstance(here, int):
        return abs(int(value) - int(here))
    return 0


def _written(name: str, values: list[Any], alike: list[bool], here: Any) -> tuple[str, Any]:
    """A parameter's values as the answer writes them: one value, a list, or for a number
    the range of values around ``here`` that audit the log alike (values between two
    tried alike numbers audit it alike too: the report changes only where a number
    crosses one the log shows)."""
    kept = [v for v, same in zip(values, alike, strict=True) if same]
    if name in RANGED:
        numbers = [(v, s) for v, s in zip(values, alike, strict=True) if v is not None]
        if isinstance(here, int):
            i = [v for v, _ in numbers].index(here)
            lo = hi = i
            while lo > 0 and numbers[lo - 1][1]:
                lo -= 1
            while hi + 1 < len(numbers) and numbers[hi + 1][1]:
                hi += 1
            span = [numbers[lo][0], numbers[hi][0]]
            none_too = None in kept
        else:  # here is null (no bound): null, and no number alike unless tried alike
            runs = [v for v, s in numbers if s]
            if not runs:
                return ("fixed", None)
            return ("values", [None, *runs])
        if span[0] == span[1]:
            return ("values", [None, span[0]]) if none_too else ("fixed", span[0])
        return ("values", [None, span]) if none_too else ("range", span)
    if len(kept) == 1:
        return ("fixed", kept[0])
    return ("values", kept)


def _corners(alt: Alternative) -> list[dict[str, Any]]:
    """Two rule sets of the answer far from its concrete one: every parameter with
    several values at its lowest (first), then at its highest (last)."""
    out: list[dict[str, Any]] = []
    for pick in (0, -1):
        changes: dict[str, Any] = {}
        for name, (kind, value) in alt.params.items():
            if kind == "range":
                changes[name] = value[pick]
            elif kind == "values":
                v = value[pick]
                changes[name] = v[0] if isinstance(v, list) else v
        out.append(changes)
    return out


def _check_together(search: _Search, alt: Alternative) -> None:
    """Each parameter's values were tried one at a time: replay two rule sets that change
    them together; a parameter whose values do not hold together is fixed at the
    concrete rule set's value."""
    for changes in _corners(alt):
        for _ in range(len(changes) + 1):
            try:
                rules = dataclasses.replace(alt.rules, **changes)
            except (TypeError, ValueError):
                break
            if _combination_problems(rules):
                break
            other = search.outcome(rules)
            if sorted(other.keys()) == sorted(_keys(alt.findings)):
                break
            # narrow the parameter that moved furthest: the first still changed
            moved = next((n for n, v in changes.items() if v != getattr(alt.rules, n)), None)
            if moved is None:
                break
            alt.params[moved] = ("fixed", getattr(alt.rules, moved))
            changes[moved] = getattr(alt.rules, moved)


def _keys(findings: Sequence[Finding]) -> list[tuple[int, str, str | None]]:
    return [(f.seq, f.code, f.player) for f in findings]


def fitted_sets(alt: Alternative) -> list[RuleSet]:
    """A sample of the rule sets an alternative stands for (each bound of a range, each
    value of a list, one parameter at a time, from its concrete rule set), for checks."""
    out = [alt.rules]
    for name, (kind, value) in alt.params.items():
        values = value if kind in ("range", "values") else [value]
        for v in values:
            vs = [v[0], v[-1]] if isinstance(v, list) else [v]
            for one in vs:
                rules = dataclasses.replace(alt.rules, **{name: one})
                if not _combination_problems(rules) and rules not in out:
                    out.append(rules)
    return out


def contains(fit: Fit, rules: RuleSet) -> bool:
    """Whether ``rules`` is among the rule sets ``fit`` stands for (open parameters take
    any value)."""
    return any(_alt_contains(a, rules) for a in fit.alternatives)


def _alt_contains(alt: Alternative, rules: RuleSet) -> bool:
    for name, (kind, value) in alt.params.items():
        mine = getattr(rules, name)
        if kind == "fixed" and mine != value:
            return False
        if kind == "range" and not (isinstance(mine, int) and value[0] <= mine <= value[1]):
            return False
        if kind == "values":
            ok = False
            for v in value:
                if isinstance(v, list):
                    ok = ok or (isinstance(mine, int) and v[0] <= mine <= v[1])
                else:
                    ok = ok or mine == v
            if not ok:
                return False
    return True


# --- the answer in words ----------------------------------------------------------


def values_text(
    kind: str, value: Any, name: str | None = None, or_more: Callable[[int], str] | None = None
) -> str:
    """A parameter's values as the text writes them: ``5``, ``5..7``, ``any, ends``; a
    range up to the bound of every score (:data:`SCORE_MAX`, no bound a table has:
    ``6..99999``) as a person says it, ``6 or more`` (``or_more``: in a reader's
    language). A bound the rules do set (``decks=2..4``) is said as it is."""
    unbounded = name in PARAM_BY_NAME and PARAM_BY_NAME[name].maximum >= SCORE_MAX

    def span(lo: int, hi: int) -> str:
        if unbounded and hi >= SCORE_MAX:
            return or_more(lo) if or_more is not None else f"{lo} or more"
        return f"{lo}..{hi}"

    if kind == "range":
        return span(*value)
    if kind == "values":
        return ", ".join(span(*v) if isinstance(v, list) else format_value(v) for v in value)
    return format_value(value)


def fit_lines(
    fit: Fit, gettext: Translate | None = None, *, suits: bool = False
) -> list[tuple[str, list[int]]]:
    """The answer as lines of text, each with the events it names (a page links them to
    the board's steps): in English, or in a reader's language with its ``gettext``."""

    def line(key: str, **params: Any) -> str:
        return render(key, params, gettext, suits=suits)

    out: list[tuple[str, list[int]]] = []
    for alt in fit.alternatives:
        if not alt.findings:
            out.append((line("fit:fits", rules=alt.rules.id), []))
        else:
            out.append(
                (
                    line("fit:closest", rules=alt.rules.id, count=len(alt.findings)),
                    [],
                )
            )
        if alt.changed:
            out.append((line("fit:changed", start=fit.start.id, names=list(alt.changed)), []))
        for name, (kind, value) in alt.params.items():
            said = values_text(kind, value, name, lambda low: line("fit:or_more", low=low))
            text = f"{name}={said}"
            why = alt.why.get(name)
            seqs = alt.events.get(name, [])
            if why is not None:
                other, finding = why
                text += " — " + line(
                    "fit:because",
                    name=name,
                    value=format_value(other),
                    seq=finding.seq,
                    message=render(finding.code, finding.params, gettext, suits=suits),
                )
            out.append(("  " + text, seqs))
        for finding in alt.findings[:MAX_EVENTS]:
            message = render(finding.code, finding.params, gettext, suits=suits)
            out.append(("  " + line("fit:left", seq=finding.seq, message=message), [finding.seq]))
    if fit.open:
        out.append((line("fit:open", names=fit.open), []))
    out.append((line("fit:replays", replays=fit.replays), []))
    return out


# --- several games together ---------------------------------------------------------


def _allows(alt: Alternative, name: str, value: Any) -> bool:
    """Whether ``alt`` lets ``name`` be ``value`` (a parameter it does not decide: yes)."""
    found = alt.params.get(name)
    if found is None:
        return True
    kind, allowed = found
    if kind == "fixed":
        return bool(value == allowed)
    if kind == "range":
        return isinstance(value, int) and allowed[0] <= value <= allowed[1]
    return any(
        (isinstance(v, list) and isinstance(value, int) and v[0] <= value <= v[1]) or v == value
        for v in allowed
    )


def fit_together(fits: Sequence[Fit], base: RuleSet) -> RuleSet:
    """One rule set for several games (a table's, a club's): each parameter at the value
    the most games allow (their fit's first alternative; ``base``'s value when as many
    allow it), from the values their answers name."""
    alts = [f.alternatives[0] for f in fits if f.alternatives]
    chosen: dict[str, Any] = {}
    for p in PARAMS:
        name = p.name
        here = getattr(base, name)
        values: list[Any] = [here]
        for alt in alts:
            found = alt.params.get(name)
            if found is None:
                continue
            kind, allowed = found
            if kind == "fixed":
                values.append(allowed)
            elif kind == "range":
                values += list(allowed)
            else:
                for v in allowed:
                    values += v if isinstance(v, list) else [v]
        best = max(
            dict.fromkeys(values, 0),
            key=lambda v: (sum(_allows(a, name, v) for a in alts), v == here),
        )
        chosen[name] = best
    together = dataclasses.replace(base, **chosen)
    if _combination_problems(together):
        return base
    return together
