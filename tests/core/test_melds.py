"""Throws (docs/rules.md, "Throwing"): classification, reasons, slap-down, joker swap
and the legal-move generator, checked against a brute-force reading of the
rules."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

import pytest
from conftest import sweep
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yaniv_audit.core.cards import JACK, JOKER, RANK, SUIT, Card, format_cards, parse_cards
from yaniv_audit.core.melds import (
    Meld,
    _legal_throws,
    _tables,
    _throws_of_counts,
    classify,
    extend,
    legal_throws,
    swap_target,
)
from yaniv_audit.core.rules import PRESETS, RuleSet, parse_rules


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text.split())


def kind_of(text: str, rules: RuleSet) -> str:
    result = classify(cards(text), rules)
    return result.kind if isinstance(result, Meld) else "illegal: " + result


# --- a brute-force reading of the rules, independent of the module's shortcuts --


def oracle_kinds(throw: Sequence[Card], rules: RuleSet) -> set[str]:
    """Every kind ``throw`` (as placed) may be read as, straight from docs/rules.md:
    runs by trying every suit, every stretch of ranks and both directions."""
    n = len(throw)
    if n == 0:
        return set()
    if n == 1:
        return {"single"}

    def wild(c: Card) -> bool:
        return c == JOKER or (rules.wild_jacks and RANK[c] == JACK)

    kinds: set[str] = set()
    if rules.set_min <= n <= rules.set_max:
        # each wild jack is either a jack or a joker
        jacks = [i for i, c in enumerate(throw) if c != JOKER and wild(c)]
        for as_joker in itertools.product((False, True), repeat=len(jacks)):
            jokered = {i for i, j in zip(jacks, as_joker, strict=True) if j}
            naturals = [c for i, c in enumerate(throw) if c != JOKER and i not in jokered]
            n_jokers = n - len(naturals)
            if len({RANK[c] for c in naturals}) <= 1 and (n_jokers == 0 or rules.jokers_in_sets):
                kinds.add("set")
    run_max = min(13, rules.run_max if rules.run_max is not None else 13)
    if rules.run_min <= n <= run_max:
        if rules.run_wrap:
            stretches = [[(a + i) % 13 + 1 for i in range(n)] for a in range(13)]
        else:
            top = 14 if rules.ace_high else 13
            stretches = [list(range(a, a + n)) for a in range(1, top - n + 2)]
        for suit in range(4):
            for stretch in stretches:
                for slots in (stretch, stretch[::-1]):
                    n_natural = 0
                    for c, slot in zip(throw, slots, strict=True):
                        natural = suit * 13 + (slot - 1) % 13
                        if c == natural:
                            n_natural += 1
                        elif not (wild(c) and rules.jokers_in_runs):
                            break
                    else:
                        if n_natural >= 2:
                            kinds.add("run")
    return kinds


# --- the rule variants the tests run under ------------------------------------

VARIANTS = [
    "israeli",
    "namu",
    "jhyap",
    "israeli(ace_high=true)",
    "israeli(run_wrap=true)",
    "israeli(ace_high=true,run_wrap=true,run_min=2)",
    "israeli(jokers_in_sets=true,jokers_in_runs=false)",
    "israeli(decks=2,set_min=3,set_max=6,run_max=4)",
    "jhyap(jokers=2,jokers_in_sets=true,run_min=2)",
    "jhyap(jokers=2,jokers_in_runs=false,ace_high=true,run_wrap=true)",
]
RULES = {v: parse_rules(v) for v in VARIANTS}

# --- the table: (rule set, throw as placed, expected kind or reason fragment) ---

TABLE: list[tuple[str, str, str]] = [
    # singles: any one card, a joker too
    ("israeli", "5H", "single"),
    ("israeli", "JK", "single"),
    ("jhyap", "JC", "single"),
    # sets
    ("israeli", "5H 5D", "set"),
    ("israeli", "5H 5D 5S 5C", "set"),
    ("israeli", "5S 5H 5C", "set"),
    ("israeli", "5H 5D 5S 5C 5H", "a set has at most 4 cards (set_max=4)"),
    ("israeli(decks=2)", "5H 5H", "set"),
    ("israeli(decks=2,set_max=8)", "5H 5D 5S 5C 5H", "set"),
    ("israeli(set_min=3)", "5H 5D", "a set needs at least 3 cards (set_min=3)"),
    ("israeli(set_min=3)", "5H 5D 5C", "set"),
    ("israeli(set_max=3)", "5H 5D 5C 5S", "a set has at most 3 cards (set_max=3)"),
    ("israeli", "5H 6D", "a run must be one suit"),
    ("israeli", "5H 5D 6H", "are not a set"),
    # jokers in sets
    ("israeli", "5H JK", "a joker may not stand in a set (jokers_in_sets=false)"),
    ("israeli(jokers_in_sets=true)", "5H JK", "set"),
    ("israeli(jokers_in_sets=true)", "JK 5H 5D JK", "set"),
    ("israeli(jokers_in_sets=true)", "JK 5H 5D JK 5C", "a set has at most 4 cards (set_max=4)"),
    ("israeli", "JK JK", "a throw of jokers alone is not a set (jokers_in_sets=false)"),
    ("israeli(jokers_in_sets=true)", "JK JK", "set"),
    ("israeli(jokers_in_sets=true,set_min=3)", "JK JK", "set needs at least 3"),
    ("israeli", "5H JK JK", "a run needs at least two natural cards"),
    # runs: one suit, in order, ascending or descending
    ("israeli", "5H 6H 7H", "run"),
    ("israeli", "7H 6H 5H", "run"),
    ("israeli", "5H 6H 7H 8H 9H TH JH QH KH", "run"),
    ("israeli", "3H 5H 4H", "a run must be placed in order, ascending or descending"),
    ("israeli", "5H 7H 6H", "placed in order"),
    ("israeli", "7H 8H 9S", "a run must be one suit"),
    ("israeli", "5H 7H 8H", "6H is missing and no joker fills it"),
    ("israeli", "5H 8H 9H", "6H 7H are missing and no joker fills them"),
    ("israeli", "5H 6H", "a run needs at least 3 cards (run_min=3)"),
    ("israeli(run_min=2)", "5H 6H", "run"),
    ("israeli(run_min=2)", "6H 5H", "run"),
    ("israeli(run_min=4)", "5H 6H 7H", "a run needs at least 4 cards (run_min=4)"),
    ("namu", "5H 6H 7H 8H 9H", "run"),
    ("namu", "5H 6H 7H 8H 9H TH", "a run has at most 5 cards (run_max=5)"),
    ("israeli(decks=2)", "5H 6H 5H", "a run never repeats a rank"),
    ("israeli(decks=2)", "5H 5H 6H 7H", "never repeats a rank"),
    # jokers in runs
    ("israeli", "5H JK 7H", "run"),
    ("israeli", "JK 6H 7H", "run"),
    ("israeli", "5H 6H JK", "run"),
    ("israeli", "7H JK 5H", "run"),
    ("israeli", "JK JK 7H 8H", "run"),
    ("israeli", "5H JK JK 8H", "run"),
    ("israeli", "5H JK 8H", "6H 7H lie between 5H and 8H, but only JK is placed there"),
    ("israeli", "5H JK JK 7H", "only 6H lies between 5H and 7H"),
    ("israeli", "5H JK 6H", "nothing lies between 5H and 6H"),
    ("israeli", "JK 5H JK", "a run needs at least two natural cards"),
    ("israeli", "JK 5D 6H", "a run must be one suit"),
    (
        "israeli(jokers_in_runs=false)",
        "5H JK 7H",
        "a joker may not stand in a run (jokers_in_runs=false)",
    ),
    ("israeli(jokers_in_runs=false)", "5H 6H 7H", "run"),
    ("israeli", "JK 2H 3H", "run"),
    ("israeli", "JK AH 2H", "the joker at the start would stand for a card below the ace"),
    ("israeli", "2H AH JK", "the joker at the end would stand for a card below the ace"),
    ("israeli", "JK JK AH 2H", "the 2 jokers at the start"),
    ("israeli", "QH KH JK", "above the king (ace_high=false)"),
    ("israeli", "JK QH KH", "run"),
    # the ace: always low; high only with ace_high; never round the corner unless run_wrap
    ("israeli", "AH 2H 3H", "run"),
    ("israeli", "3H 2H AH", "run"),
    ("israeli", "QH KH AH", "Q-K-A needs the ace above the king (ace_high=false)"),
    ("israeli", "AH KH QH", "ace_high=false"),
    ("israeli", "KH AH 2H", "K-A-2 goes round the corner (run_wrap=false)"),
    ("israeli", "2H AH KH", "2-A-K goes round the corner (run_wrap=false)"),
    ("israeli", "KH 2H 3H", "goes round the corner (run_wrap=false)"),
    ("israeli(ace_high=true)", "QH KH AH", "run"),
    ("israeli(ace_high=true)", "AH KH QH", "run"),
    ("israeli(ace_high=true)", "AH 2H 3H", "run"),
    ("israeli(ace_high=true)", "JK KH AH", "run"),
    ("israeli(ace_high=true)", "QH KH JK", "run"),
    ("israeli(ace_high=true)", "KH AH 2H", "K-A-2 goes round the corner (run_wrap=false)"),
    ("israeli(ace_high=true)", "KH AH JK", "K-A-2 goes round the corner (run_wrap=false)"),
    ("israeli(ace_high=true)", "QH KH AH 2H", "Q-K-A-2 goes round the corner"),
    ("israeli(ace_high=true)", "JK AH 2H", "below the ace (run_wrap=false)"),
    ("israeli(ace_high=true)", "AH QH KH", "are missing"),
    ("israeli(run_wrap=true)", "KH AH 2H", "run"),
    ("israeli(run_wrap=true)", "QH KH AH 2H", "run"),
    ("israeli(run_wrap=true)", "2H AH KH QH", "run"),
    ("israeli(run_wrap=true)", "QH KH AH", "run"),
    ("israeli(run_wrap=true)", "JK AH 2H", "run"),
    ("israeli(run_wrap=true)", "KH JK 2H", "run"),
    ("israeli(run_wrap=true)", "3H 5H 4H", "placed in order"),
    ("israeli(run_wrap=true)", "KH AH 3H", "2H is missing"),
    ("israeli(run_wrap=true)", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", "run"),
    ("israeli(run_wrap=true)", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK", "at most 13 cards"),
    (
        "israeli(run_wrap=true,decks=2)",
        "KH AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
        "never repeats a rank",
    ),
    ("israeli(ace_high=true)", "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK", "at most 13 cards"),
    # wild jacks (Nepal): a jack is itself or a joker, whichever makes the throw legal
    ("jhyap", "JH QH KH", "run"),
    ("jhyap", "5H JC 7H", "run"),
    ("jhyap", "JD 6H 7H", "run"),
    ("jhyap", "9H TH JC", "run"),
    ("jhyap", "JH JD", "set"),
    ("jhyap", "JH JD JC JS", "set"),
    ("jhyap", "JH 5H", "a joker may not stand in a set (jokers_in_sets=false)"),
    ("jhyap", "5H 5D JC", "JC is a wild jack (wild_jacks=true)"),
    ("jhyap(jokers_in_sets=true)", "5H 5D JC", "set"),
    ("jhyap(jokers_in_sets=true)", "JC JD JK", "set"),
    ("jhyap", "JC JD JK", "a joker may not stand in a set"),
    ("jhyap", "5H JC JD", "a run needs at least two natural cards"),
    ("jhyap(jokers_in_runs=false)", "9H TH JH", "run"),
    ("jhyap(jokers_in_runs=false)", "9H TH JC", "jokers_in_runs=false"),
    ("jhyap(jokers_in_runs=false)", "9H TH JC JD", "JC JD are wild jacks"),
    ("jhyap(jokers_in_runs=false)", "5H JC 7H", "jokers_in_runs=false"),
    ("jhyap(jokers_in_runs=false)", "9H TH JH KH", "QH is missing"),
    ("israeli", "5H JC 7H", "a run must be one suit"),
    ("israeli", "JH JD", "set"),
    # a wild jack as a joker is not a natural: two natural cards are still needed
    ("jhyap", "JC 5H JD", "a run needs at least two natural cards"),
    # set and run both legal: the jack stays a jack, so the run wins
    ("jhyap(jokers_in_sets=true,run_min=2)", "JH QH", "run"),
    ("jhyap(jokers_in_sets=true)", "QH JH JK", "run"),
    ("jhyap(jokers_in_sets=true)", "QH JK JH", "set"),
]


@pytest.mark.parametrize(("rules_id", "throw", "expected"), TABLE)
def test_table(rules_id: str, throw: str, expected: str) -> None:
    rules = parse_rules(rules_id)
    result = classify(cards(throw), rules)
    if expected in ("single", "set", "run"):
        assert isinstance(result, Meld), result
        assert result.kind == expected
        assert result.cards == cards(throw)
        assert len(result.stands_for) == len(result.cards)
    else:
        assert isinstance(result, str), f"{throw} read as {result}"
        assert result.startswith(throw + ": ")
        assert expected in result, result
    assert (expected in ("single", "set", "run")) == bool(oracle_kinds(cards(throw), rules))


def test_examples_of_the_brief_word_for_word() -> None:
    r = PRESETS["israeli"]
    assert classify(cards("5H 7H 8H"), r) == "5H 7H 8H: 6H is missing and no joker fills it"
    assert classify(cards("7H 8H 9S"), r) == "7H 8H 9S: a run must be one suit"
    assert classify(cards("KH AH 2H"), r) == (
        "KH AH 2H: K-A-2 goes round the corner (run_wrap=false)"
    )
    assert classify(cards("JK JK"), r) == (
        "JK JK: a throw of jokers alone is not a set (jokers_in_sets=false)"
    )
    assert classify(cards("5H 5D 5S 5C 5H"), r) == (
        "5H 5D 5S 5C 5H: a set has at most 4 cards (set_max=4)"
    )
    assert classify(cards("3H 5H 4H"), r) == (
        "3H 5H 4H: a run must be placed in order, ascending or descending"
    )


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_reads_the_plain_throws(name: str) -> None:
    rules = PRESETS[name]
    assert kind_of("9C", rules) == "single"
    assert kind_of("JK", rules) == "single"
    assert kind_of("9C 9D", rules) == "set"
    assert kind_of("9C 9D 9H 9S", rules) == "set"
    assert kind_of("3S 4S 5S", rules) == "run"
    assert kind_of("5S 4S 3S", rules) == "run"
    assert kind_of("3S 4S 5S 6S 7S", rules) == "run"
    assert kind_of("3S 5S 4S", rules).startswith("illegal")
    assert kind_of("3S 4S 5D", rules).startswith("illegal")
    assert kind_of("KS AS 2S", rules).startswith("illegal")
    assert kind_of("JK JK", rules).startswith("illegal")
    assert kind_of("9C 9D 9H 9S 9C", rules).startswith("illegal")
    assert kind_of("JK 4S 5S", rules) == "run"
    assert kind_of("3S JK 5S", rules) == "run"


@pytest.mark.parametrize("rules_id", VARIANTS)
def test_the_same_throw_is_cached_and_stable(rules_id: str) -> None:
    rules = RULES[rules_id]
    first = classify([40, 41, 42], rules)
    assert classify((40, 41, 42), rules) == first
    assert classify([40, 41, 42], parse_rules(rules_id)) == first


# --- what jokers stand for, and the joker swap --------------------------------

SWAPS: list[tuple[str, str, list[str | None]]] = [
    ("israeli", "5H JK 7H", [None, "6H", None]),
    ("israeli", "7H JK 5H", [None, "6H", None]),
    ("israeli", "JK 2H 3H", ["AH", None, None]),
    ("israeli", "2H 3H JK", [None, None, "4H"]),
    ("israeli", "4H 3H JK", [None, None, "2H"]),
    ("israeli", "JK JK 7H 8H", ["5H", "6H", None, None]),
    ("israeli", "5H JK JK 8H", [None, "6H", "7H", None]),
    ("israeli", "JK QH KH", ["JH", None, None]),
    ("israeli", "JK 5C 6C JK", ["4C", None, None, "7C"]),
    ("israeli(ace_high=true)", "QH KH JK", [None, None, "AH"]),
    ("israeli(ace_high=true)", "JK KH AH", ["QH", None, None]),
    ("israeli(run_wrap=true)", "KH JK 2H", [None, "AH", None]),
    ("israeli(run_wrap=true)", "JK AH 2H", ["KH", None, None]),
    ("jhyap", "5H JC 7H", [None, "6H", None]),
    ("jhyap", "JH QH KH", [None, None, None]),
    ("jhyap", "9H TH JC", [None, None, "JH"]),
    ("jhyap", "JD QH KH", ["JH", None, None]),
]


@pytest.mark.parametrize(("rules_id", "throw", "stands"), SWAPS)
def test_stands_for_and_swap_target(rules_id: str, throw: str, stands: list[str | None]) -> None:
    meld = classify(cards(throw), parse_rules(rules_id))
    assert isinstance(meld, Meld) and meld.kind == "run"
    expected = tuple(None if s is None else parse_cards([s])[0] for s in stands)
    assert meld.stands_for == expected
    for position, target in enumerate(expected):
        assert swap_target(meld, position) == target
    assert swap_target(meld, -1) is None
    assert swap_target(meld, len(meld.cards)) is None


def test_swap_target_is_none_outside_runs() -> None:
    rules = parse_rules("israeli(jokers_in_sets=true)")
    for throw in ("JK", "5H JK", "JK JK"):
        meld = classify(cards(throw), rules)
        assert isinstance(meld, Meld) and meld.kind != "run"
        assert all(swap_target(meld, i) is None for i in range(len(meld.cards)))
        assert set(meld.stands_for) == {None}


# --- slap-down ---------------------------------------------------------------

EXTENDS: list[tuple[str, str, str, str | None]] = [
    # single or set: same rank, appended last
    ("israeli", "5H", "5D", "5H 5D"),
    ("israeli", "5H", "6H", None),
    ("israeli", "5H 5D", "5S", "5H 5D 5S"),
    ("israeli", "5H 5D 5S 5C", "5H", None),
    ("israeli(decks=2,set_max=5)", "5H 5D 5S 5C", "5H", "5H 5D 5S 5C 5H"),
    ("israeli", "5H 5D", "JK", None),
    ("israeli(jokers_in_sets=true)", "5H 5D", "JK", "5H 5D JK"),
    ("israeli(jokers_in_sets=true)", "JK", "5D", "JK 5D"),
    ("israeli", "JK", "JK", None),
    ("israeli(jokers_in_sets=true)", "JK", "JK", "JK JK"),
    ("jhyap", "JH", "JD", "JH JD"),
    ("jhyap", "5H 5D", "JC", None),
    ("jhyap(jokers_in_sets=true)", "5H 5D", "JC", "5H 5D JC"),
    # run: at the end it extends, in the direction as placed
    ("israeli", "5H 6H 7H", "8H", "5H 6H 7H 8H"),
    ("israeli", "5H 6H 7H", "4H", "4H 5H 6H 7H"),
    ("israeli", "7H 6H 5H", "8H", "8H 7H 6H 5H"),
    ("israeli", "7H 6H 5H", "4H", "7H 6H 5H 4H"),
    ("israeli", "5H 6H 7H", "9H", None),
    ("israeli", "5H 6H 7H", "8D", None),
    ("israeli", "5H 6H 7H", "6H", None),
    ("israeli", "5H JK 7H", "8H", "5H JK 7H 8H"),
    ("israeli", "5H JK 7H", "6H", None),
    ("israeli", "5H 6H 7H", "JK", "5H 6H 7H JK"),
    ("israeli", "JH QH KH", "JK", "JK JH QH KH"),
    ("israeli(jokers_in_runs=false)", "5H 6H 7H", "JK", None),
    ("israeli", "AH 2H 3H", "KH", None),
    ("israeli", "JK QH KH", "AH", None),
    ("israeli(ace_high=true)", "JH QH KH", "AH", "JH QH KH AH"),
    ("israeli(ace_high=true)", "QH KH AH", "2H", None),
    ("israeli(ace_high=true)", "QH KH AH", "JK", "JK QH KH AH"),
    ("israeli(run_wrap=true)", "QH KH AH", "2H", "QH KH AH 2H"),
    ("namu", "5H 6H 7H 8H 9H", "TH", None),
    ("namu", "5H 6H 7H 8H", "9H", "5H 6H 7H 8H 9H"),
    ("jhyap", "5H 6H 7H", "JC", "5H 6H 7H JC"),
    ("jhyap", "9H TH JH", "QH", "9H TH JH QH"),
]


@pytest.mark.parametrize(("rules_id", "throw", "card", "expected"), EXTENDS)
def test_extend(rules_id: str, throw: str, card: str, expected: str | None) -> None:
    rules = parse_rules(rules_id)
    meld = classify(cards(throw), rules)
    assert isinstance(meld, Meld), meld
    result = extend(meld, parse_cards([card])[0], rules)
    if expected is None:
        assert result is None
    else:
        assert result is not None
        assert format_cards(result.cards) == expected
        again = classify(result.cards, rules)
        assert isinstance(again, Meld) and again.kind == result.kind
        assert again.stands_for == result.stands_for


def test_extend_keeps_what_jokers_stand_for() -> None:
    rules = PRESETS["israeli"]
    meld = classify(cards("5H JK 7H"), rules)
    assert isinstance(meld, Meld)
    longer = extend(meld, cards("JK")[0], rules)
    assert longer is not None
    assert longer.stands_for == (None, cards("6H")[0], None, cards("8H")[0])


# --- the legal-move generator -------------------------------------------------


def keyed(throws: Sequence[Sequence[Card]], rules: RuleSet) -> set[tuple[tuple[Card, ...], str]]:
    out = set()
    for throw in throws:
        meld = classify(throw, rules)
        assert isinstance(meld, Meld), meld
        out.add((tuple(sorted(throw)), meld.kind))
    return out


def brute_force(hand: Sequence[Card], rules: RuleSet) -> set[tuple[tuple[Card, ...], str]]:
    """Every (multiset, kind) that some placement of some sub-multiset reads as."""
    counts = Counter(hand)
    items = sorted(counts.items())
    out = set()
    for takes in itertools.product(*(range(k + 1) for _, k in items)):
        sub = [c for (c, _), t in zip(items, takes, strict=True) for _ in range(t)]
        if not sub:
            continue
        for perm in set(itertools.permutations(sub)):
            meld = classify(perm, rules)
            if isinstance(meld, Meld):
                out.add((tuple(sorted(perm)), meld.kind))
    return out


def test_legal_throws_of_a_hand() -> None:
    rules = PRESETS["israeli"]
    hand = cards("5H 6H 7H 5D JK")
    throws = legal_throws(hand, rules)
    expected = {
        "5D",
        "5H",
        "6H",
        "7H",
        "JK",
        "5H 5D",
        "5H 6H 7H",
        "5H JK 7H",
        "5H 6H JK",
        "6H 7H JK",
        "5H 6H 7H JK",
    }
    as_multisets = {format_cards(sorted(t)) for t in throws}
    assert as_multisets == {format_cards(sorted(cards(e))) for e in expected}
    assert len(throws) == len(expected)
    assert keyed(throws, rules) == brute_force(hand, rules)


def test_legal_throws_runs_are_ascending_and_counted_once() -> None:
    rules = PRESETS["israeli"]
    throws = legal_throws(cards("3C 4C 5C 6C"), rules)
    runs = [format_cards(t) for t in throws if len(t) > 1]
    assert sorted(runs) == sorted(["3C 4C 5C", "4C 5C 6C", "3C 4C 5C 6C"])
    assert len(throws) == 4 + 3


def test_legal_throws_two_decks() -> None:
    rules = parse_rules("israeli(decks=2)")
    throws = [format_cards(t) for t in legal_throws(cards("5H 5H 6H 7H"), rules)]
    assert sorted(throws) == sorted(["5H", "6H", "7H", "5H 5H", "5H 6H 7H"])


def test_legal_throws_wild_jacks_set_placed_as_a_set() -> None:
    rules = parse_rules("jhyap(jokers=2,jokers_in_sets=true)")
    hand = cards("QH JH JK")
    found = keyed(legal_throws(hand, rules), rules)
    assert (tuple(sorted(hand)), "set") in found
    assert (tuple(sorted(hand)), "run") in found
    assert found == brute_force(hand, rules)


def test_legal_throws_jokers_alone() -> None:
    off = PRESETS["israeli"]
    on = parse_rules("israeli(jokers_in_sets=true)")
    assert legal_throws(cards("JK JK"), off) == [(JOKER,)]
    assert sorted(legal_throws(cards("JK JK"), on)) == [(JOKER,), (JOKER, JOKER)]


# --- properties ---------------------------------------------------------------

# cards near each other make runs and sets likely; any code may still turn up
NEAR = cards("AH 2H 3H 4H 5H 6H 7H QH KH JH TH 5D 5C 3S JC JD JK JK JK")
some_card = st.one_of(st.sampled_from(NEAR), st.integers(min_value=0, max_value=JOKER))
variant = st.sampled_from(VARIANTS)


@settings(max_examples=300, deadline=None)
@given(rules_id=variant, throw=st.lists(some_card, min_size=1, max_size=8))
def test_classify_matches_the_rules(rules_id: str, throw: list[Card]) -> None:
    rules = RULES[rules_id]
    result = classify(throw, rules)
    kinds = oracle_kinds(throw, rules)
    if isinstance(result, Meld):
        assert result.kind in kinds
        assert result.cards == tuple(throw)
        for c, s in zip(result.cards, result.stands_for, strict=True):
            if s is not None:
                assert result.kind == "run"
                assert c != s and 0 <= s < JOKER
                assert c == JOKER or (rules.wild_jacks and RANK[c] == JACK)
                assert (
                    SUIT[s]
                    == SUIT[
                        next(
                            x
                            for x, y in zip(result.cards, result.stands_for, strict=True)
                            if y is None and x != JOKER
                        )
                    ]
                )
    else:
        assert not kinds, f"{format_cards(throw)} is a {kinds} but: {result}"
        assert result.startswith(format_cards(throw) + ": ")


@settings(max_examples=200, deadline=None)
@given(
    rules_id=variant,
    throw=st.lists(st.integers(min_value=0, max_value=JOKER), min_size=1, max_size=8),
)
def test_classify_never_raises_and_runs_read_back(rules_id: str, throw: list[Card]) -> None:
    rules = RULES[rules_id]
    result = classify(throw, rules)
    assert isinstance(result, (Meld, str))
    if isinstance(result, Meld) and result.kind == "run":
        back = classify(result.cards[::-1], rules)
        assert isinstance(back, Meld) and back.kind == "run"
        if result.cards[::-1] != result.cards:  # a palindrome (J T J) reads the same way
            assert back.stands_for == result.stands_for[::-1]


def test_classify_refuses_junk_without_raising() -> None:
    rules = PRESETS["israeli"]
    assert "not a card code" in str(classify([53], rules))
    assert "not a card code" in str(classify([-1, 3], rules))
    assert "not a card code" in str(classify(["5H", "6H", "7H"], rules))  # type: ignore[list-item]
    assert "empty" in str(classify([], rules))


hands = st.lists(st.sampled_from(NEAR), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules_id=variant, hand=hands)
def test_legal_throws_is_exactly_every_legal_throw(rules_id: str, hand: list[Card]) -> None:
    rules = RULES[rules_id]
    throws = legal_throws(hand, rules)
    assert len(throws) == len(set(throws))
    for throw in throws:
        assert not Counter(throw) - Counter(hand), "a throw uses cards the hand lacks"
        meld = classify(throw, rules)
        assert isinstance(meld, Meld), meld
        if meld.kind == "run":
            slots = [s if s is not None else c for c, s in zip(throw, meld.stands_for, strict=True)]
            ranks = [RANK[c] for c in slots]
            assert ranks == sorted(ranks) or rules.run_wrap or rules.ace_high
    found = keyed(throws, rules)
    assert len(found) == len(throws), "a multiset is listed twice under one kind"
    assert found == brute_force(hand, rules)


@settings(max_examples=40, deadline=None)
@given(rules_id=variant, hand=st.lists(st.sampled_from(NEAR), min_size=7, max_size=10))
def test_legal_throws_on_big_hands_are_all_legal(rules_id: str, hand: list[Card]) -> None:
    rules = RULES[rules_id]
    for throw in legal_throws(hand, rules):
        assert oracle_kinds(throw, rules)
        assert not Counter(throw) - Counter(hand)


#: rule sets whose runs the bit test of the usual hand reads (no ace high, no wrap), and
#: those it leaves to the loop over suits
ORDER_VARIANTS = [
    *VARIANTS,
    "israeli(run_min=2)",
    "israeli(run_min=5,set_min=3)",
    "israeli(wild_jacks=true,jokers_in_runs=false)",
    "classic(set_max=2)",
]


@pytest.mark.parametrize("rules_id", ORDER_VARIANTS)
def test_legal_throws_of_distinct_cards_are_those_counted_in_the_same_order(rules_id: str) -> None:
    """A hand of distinct cards (the usual one) is read from the bits of its cards; the
    throws and their order (which the bots' choices, and so the simulated logs, depend
    on) are those of the count of each card, the reading of any hand."""
    rules = parse_rules(rules_id)
    tables = _tables(rules)
    deck = [*list(range(JOKER)), JOKER]
    rng = random.Random(rules_id)
    near = list(range(13, 26)) + [c % 13 + 26 for c in range(3, 9)] + [JOKER]
    for size in range(2, 9):
        for _ in range(300):
            hand = rng.sample(deck if size % 2 else near, size)
            assert _legal_throws(tables, hand) == _throws_of_counts(hand, tables), hand


@settings(max_examples=200, deadline=None)
@given(rules_id=variant, throw=st.lists(some_card, min_size=1, max_size=6), card=some_card)
def test_extend_is_a_legal_throw_with_the_card_at_an_end(
    rules_id: str, throw: list[Card], card: Card
) -> None:
    rules = RULES[rules_id]
    meld = classify(throw, rules)
    if not isinstance(meld, Meld):
        return
    result = extend(meld, card, rules)
    if meld.kind == "run":
        options = [(*tuple(throw), card), (card, *tuple(throw))]
        legal = [o for o in options if "run" in oracle_kinds(o, rules)]
    else:
        options = [(*tuple(throw), card)]
        legal = [o for o in options if "set" in oracle_kinds(o, rules)]
    if result is None:
        assert not legal
    else:
        assert result.cards in legal
        assert result.kind == ("run" if meld.kind == "run" else "set")


# --- identical cards are counted, never told apart (issue 35) -------------------

#: a deck of many copies: jokers, wild jacks and naturals twice over
COPIES = cards("JK JK JK JK JK JH JH JS JC 5H 5H 5S 6H 7H 9H TH QH")


@settings(
    max_examples=sweep(40, long=150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    rules_id=st.sampled_from(
        [
            *VARIANTS,
            "israeli(jokers_in_sets=true,set_max=8)",
            "jhyap(jokers_in_sets=true,set_max=8,run_wrap=true)",
        ]
    ),
    hand=st.lists(st.sampled_from(COPIES), min_size=1, max_size=7),
    limit=st.integers(0, 40),
)
def test_legal_throws_of_copies_are_every_legal_throw_and_a_limit_is_their_start(
    rules_id: str, hand: list[Card], limit: int
) -> None:
    """Five jokers or two jacks of hearts are one card several times: the throws are still
    exactly those some placement of some part of the hand reads as, each once, and a
    limit gives the first of the same list."""
    rules = parse_rules(rules_id)
    throws = legal_throws(hand, rules)
    found = keyed(throws, rules)
    assert len(found) == len(throws)
    assert found == brute_force(hand, rules)
    assert legal_throws(hand, rules, limit) == throws[:limit]


def test_sixteen_jokers_and_a_run_of_hearts_give_every_throw_counted_by_hand() -> None:
    """The deal of ../shared/attacks/614-bytes-16-jokers.jsonl: the generator listed every
    combination of sixteen identical jokers (15.5 s a request). Counted here by hand: each
    distinct card alone; a set of a rank's naturals with any number of jokers, or jokers
    alone; a run of a set S of at least two hearts and jokers filling a window of L ranks
    that holds S (span(S) <= L <= 13, L >= run_min)."""
    rules = parse_rules("israeli(decks=4,jokers=8,hand_size=30,jokers_in_sets=true,set_max=48)")
    hand = cards("JK " * 16 + "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS")
    singles = 15
    sets = (3 * 17 - 2) + 12 * 16 + 15  # aces: AH, AS or both; other ranks; jokers alone
    # runs: S by its lowest and highest heart (span s), 2^(s-2) choices between them
    runs = sum((14 - s) * 2 ** (s - 2) * (13 - max(rules.run_min, s) + 1) for s in range(2, 14))
    throws = legal_throws(hand, rules)
    assert len(throws) == len(set(throws)) == singles + sets + runs == 24_637
    assert legal_throws(hand, rules, 300) == throws[:300]


def test_a_long_wild_set_that_sorted_reads_as_a_run_is_placed_as_a_set() -> None:
    """Sorted, 9H JH JH and ten jokers read as a run round the corner (the second JH as
    itself); the set's placement is the first ordering that reads as a set, found without
    trying the 13! orderings of its cards one by one."""
    rules = parse_rules("jhyap(decks=2,jokers=8,jokers_in_sets=true,set_max=13,run_wrap=true)")
    whole = tuple(sorted(cards("9H JH JH " + "JK " * 10)))
    sorted_reading = classify(whole, rules)
    assert isinstance(sorted_reading, Meld) and sorted_reading.kind == "run"
    throws = legal_throws(whole, rules)
    placed = [t for t in throws if sorted(t) == list(whole)]
    kinds = [m.kind for m in (classify(t, rules) for t in placed) if isinstance(m, Meld)]
    assert sorted(kinds) == ["run", "set"]
    as_set = next(t for t in placed if t != whole)
    assert format_cards(as_set) == "9H JH JK JH " + " ".join(["JK"] * 9)
