"""Exact deal odds (``odds deal``): every count checked against dealing every hand.

The oracle for runs is the engine itself: a hand's longest run is the longest
throw of :func:`legal_throws` that :func:`classify` reads as a run. Ranks and
totals are counted here from the cards, independently of ``deal_odds``.
"""

from __future__ import annotations

import doctest
import itertools
import json
from collections import Counter
from collections.abc import Sequence
from math import comb

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from yaniv_audit.cli import cli
from yaniv_audit.core import deal_odds as deal_odds_module
from yaniv_audit.core.cards import JACK, JOKER, RANK, Card, card_values, deck_counts, parse_card
from yaniv_audit.core.deal_odds import (
    classifier,
    deal_odds,
    longest_run,
    rank_category,
    rank_counts,
    run_counts,
    total_counts,
)
from yaniv_audit.core.deal_odds import classify as classify_deal
from yaniv_audit.core.melds import Meld, classify, legal_throws
from yaniv_audit.core.rules import PRESETS, RuleSet, make_rules, parse_rules


def engine_longest_run(hand: Sequence[Card], rules: RuleSet) -> int:
    """The longest throw the engine accepts as a run; 0 if none."""
    best = 0
    for throw in legal_throws(hand, rules):
        if len(throw) > best:
            meld = classify(throw, rules)
            if isinstance(meld, Meld) and meld.kind == "run":
                best = len(throw)
    return best


def plain_rank_category(hand: Sequence[Card], rules: RuleSet) -> str:
    """Poker's categories over the natural cards, written out the long way."""
    held = Counter(
        RANK[c] for c in hand if c != JOKER and not (rules.wild_jacks and RANK[c] == JACK)
    )
    most = [*sorted(held.values(), reverse=True), 0, 0]
    if most[0] >= 5:
        return "five"
    if most[0] == 4:
        return "four"
    if most[0] == 3:
        return "full_house" if most[1] >= 2 else "three"
    if most[0] == 2:
        return "two_pair" if most[1] == 2 else "pair"
    return "no_pair"


def deck_of(text: str) -> dict[Card, int]:
    """A part of a deck: each card as often as it is named."""
    return dict(Counter(parse_card(name) for name in text.split()))


def every_hand(
    rules: RuleSet, deck: dict[Card, int]
) -> tuple[Counter[str], Counter[str], Counter[int]]:
    """Deal every combination of the deck's physical cards: ranks, runs, totals."""
    physical = [code for code, copies in sorted(deck.items()) for _ in range(copies)]
    values = card_values(rules)
    ranks: Counter[str] = Counter()
    runs: Counter[str] = Counter()
    totals: Counter[int] = Counter()
    seen: dict[tuple[Card, ...], tuple[str, int]] = {}
    for hand in itertools.combinations(physical, rules.hand_size):
        if hand not in seen:  # identical cards of two decks: the same hand, dealt again
            seen[hand] = (plain_rank_category(hand, rules), engine_longest_run(hand, rules))
        category, longest = seen[hand]
        ranks[category] += 1
        runs[f"run{longest}" if longest else "none"] += 1
        totals[sum(values[c] for c in hand)] += 1
    return ranks, runs, totals


def nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


# --- the known figures -----------------------------------------------------------


def test_the_52_card_poker_figures() -> None:
    rules = parse_rules("israeli(jokers=0)")
    odds = deal_odds(rules)
    assert odds.hands == 2_598_960
    assert odds.ranks == {
        "four": 624,
        "full_house": 3744,
        "three": 54912,
        "two_pair": 123552,
        "pair": 1098240,
        "no_pair": 1317888,
    }
    # the straight flushes of poker without the ace on top: A-5 up to 9-K, 9 per suit
    assert odds.runs["run5"] == 36
    # Q-K-A too: poker's 40 straight flushes
    assert run_counts(parse_rules("israeli(jokers=0,ace_high=true)"))["run5"] == 40


def test_every_count_adds_up_to_the_hands_of_every_preset() -> None:
    for name, rules in PRESETS.items():
        odds = deal_odds(rules)
        size = sum(deck_counts(rules))
        assert odds.hands == comb(size, rules.hand_size), name
        assert sum(odds.ranks.values()) == sum(odds.runs.values()) == odds.hands, name
        assert sum(odds.totals.values()) == odds.hands, name
        assert odds.yaniv_able == sum(n for t, n in odds.totals.items() if t <= rules.yaniv_max)
        assert "five" not in odds.ranks


def test_asked_again_the_odds_are_the_same_and_each_answer_its_own() -> None:
    """A rule set's counts are worked out once in a process: the second answer equals
    the first, names the rules it was asked with, and changing one answer's counts
    changes no other."""
    first = deal_odds(parse_rules("classic"))
    first.ranks["pair"] = -1
    first.totals.clear()
    again = deal_odds(parse_rules("classic"))
    assert again.ranks["pair"] > 0 and sum(again.totals.values()) == again.hands
    assert again == deal_odds(parse_rules("classic")) and again.rules.id == "classic"
    own = dict(deal_odds_module._deck(parse_rules("classic"), None))
    assert deal_odds(parse_rules("classic"), own) == again  # the deck given: not kept


def test_two_decks_of_seven_cards() -> None:
    rules = parse_rules("israeli(decks=2,hand_size=7)")
    odds = deal_odds(rules)
    assert odds.hands == comb(108, 7) == 27_883_218_168
    assert sum(odds.ranks.values()) == sum(odds.runs.values()) == odds.hands
    assert list(odds.runs) == ["none", "run3", "run4", "run5", "run6", "run7"]
    # seven of one rank: 8 cards of it, C(8, 7) ways, 13 ranks; and 5 of a rank + 2 jokers
    assert odds.ranks["five"] >= 13 * comb(8, 7) + 13 * comb(8, 5) * comb(4, 2)
    # the lowest hands: the 4 jokers and 3 of the 8 aces, total 3
    assert min(odds.totals) == 3 and odds.totals[3] == comb(8, 3)


def test_the_module_examples() -> None:
    assert doctest.testmod(deal_odds_module).failed == 0


# --- against every hand ------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "israeli(hand_size=3)",
        "jhyap(hand_size=3,jokers=1)",
        "israeli(hand_size=2,run_min=2,run_wrap=true,face_values=ranked,joker_value=3)",
    ],
)
def test_small_hands_of_the_whole_deck(spec: str) -> None:
    rules = parse_rules(spec)
    deck = {code: n for code, n in enumerate(deck_counts(rules)) if n}
    ranks, runs, totals = every_hand(rules, deck)
    odds = deal_odds(rules)
    assert nonzero(odds.ranks) == ranks
    assert nonzero(odds.runs) == runs
    assert odds.totals == totals
    assert odds.hands == comb(sum(deck.values()), rules.hand_size)


ONE_DECK = "AH 2H 3H 4H 6H JH QH KH 5S 6S 7S JS JK JK"
TWO_DECKS = "AH AH 2H 3H 3H 5H JH JH QH KH 6S 6S 7S JK JK JK"


@pytest.mark.parametrize(
    ("spec", "cards"),
    [
        ("israeli", ONE_DECK),
        ("israeli(ace_high=true)", ONE_DECK),
        ("israeli(run_wrap=true,run_max=4)", ONE_DECK),
        ("israeli(run_min=2,jokers_in_runs=false)", ONE_DECK),
        ("jhyap(jokers=2)", ONE_DECK),
        ("jhyap(jokers=1,run_wrap=true,run_min=4,face_values=ranked)", ONE_DECK),
        ("israeli(wild_jacks=true,jokers_in_runs=false)", ONE_DECK),
        ("israeli(decks=2)", TWO_DECKS),
        ("israeli(decks=2,hand_size=6,ace_high=true,run_max=5)", TWO_DECKS),
        ("jhyap(decks=2,jokers=2,hand_size=6)", TWO_DECKS),
        ("israeli(decks=2,hand_size=7,run_wrap=true,joker_value=2)", TWO_DECKS),
    ],
)
def test_small_decks_hand_by_hand(spec: str, cards: str) -> None:
    rules = parse_rules(spec)
    deck = deck_of(cards)
    if rules.jokers * rules.decks < deck.get(JOKER, 0):
        deck[JOKER] = rules.jokers * rules.decks
    ranks, runs, totals = every_hand(rules, deck)
    odds = deal_odds(rules, deck)
    assert odds.hands == comb(sum(deck.values()), rules.hand_size) == sum(runs.values())
    assert nonzero(odds.ranks) == ranks
    assert nonzero(odds.runs) == runs
    assert odds.totals == totals


def test_five_of_a_rank_with_two_decks() -> None:
    rules = parse_rules("israeli(decks=2,jokers=0,hand_size=5)")
    deck = deck_of("5C 5C 5D 5D 5H 5S 9S 9S")
    ranks, _, _ = every_hand(rules, deck)
    counts = rank_counts(rules, deck)
    assert list(counts) == ["five", "four", "full_house", "three", "two_pair", "pair", "no_pair"]
    assert nonzero(counts) == ranks and counts["five"] == comb(6, 5)


def test_a_deck_too_small_for_the_hand_has_no_deals() -> None:
    rules = parse_rules("israeli(hand_size=3)")
    deck = deck_of("AH 2H")
    assert deal_odds(rules, deck).hands == 0
    assert sum(run_counts(rules, deck).values()) == 0 and total_counts(rules, deck) == {}
    with pytest.raises(ValueError, match="the deck holds 1 of card code"):
        rank_counts(rules, {parse_card("AH"): 2})


# --- one hand, against the engine ------------------------------------------------------

RULE_CHANGES = st.fixed_dictionaries(
    {
        "decks": st.sampled_from([1, 2]),
        "jokers": st.integers(0, 3),
        "wild_jacks": st.booleans(),
        "ace_high": st.booleans(),
        "run_wrap": st.booleans(),
        "jokers_in_runs": st.booleans(),
        "run_min": st.integers(2, 5),
        "run_extra": st.sampled_from([None, 0, 1, 3]),
    }
)


@settings(max_examples=300, deadline=None)
@given(RULE_CHANGES, st.data())
def test_longest_run_is_the_engines(changes: dict[str, object], data: st.DataObject) -> None:
    extra = changes.pop("run_extra")
    run_min = changes["run_min"]
    assert isinstance(run_min, int)
    rules = make_rules(
        "israeli", {**changes, "run_max": None if extra is None else run_min + extra}
    )
    deck = [c for c, n in enumerate(deck_counts(rules)) for _ in range(n)]
    suit = data.draw(st.integers(0, 3))
    # mostly one suit, the jacks and the jokers, so that runs are common
    likely = [c for c in deck if c == JOKER or c // 13 == suit or RANK[c] == JACK]
    pool = likely if data.draw(st.booleans()) else deck
    size = data.draw(st.integers(2, min(9, len(pool))))
    picks = data.draw(
        st.lists(st.integers(0, len(pool) - 1), min_size=size, max_size=size, unique=True)
    )
    hand = [pool[i] for i in picks]
    assert longest_run(hand, rules) == engine_longest_run(hand, rules)
    assert rank_category(hand, rules) == plain_rank_category(hand, rules)
    # the archive's deals rows classify each hand with the rules worked out once
    assert classifier(rules)(hand) == classify_deal(hand, rules)


def test_jokers_are_shared_by_the_suits_not_added_up() -> None:
    rules = PRESETS["israeli"]
    hand = [parse_card(c) for c in ("5H", "7H", "5S", "7S", "JK")]
    assert longest_run(hand, rules) == engine_longest_run(hand, rules) == 3
    # two naturals at the ends of a window too long for run_max: no shorter run either
    rules = parse_rules("israeli(decks=2,run_max=5)")
    hand = [parse_card(c) for c in ("5H", "TH", "JK", "JK", "JK", "JK")]
    assert longest_run(hand, rules) == engine_longest_run(hand, rules) == 0
    assert longest_run(hand, parse_rules("israeli(decks=2)")) == 6


# --- the command ------------------------------------------------------------------------


def test_odds_deal_prints_json_with_exact_integers() -> None:
    result = CliRunner().invoke(cli, ["odds", "deal", "--rules", "israeli(jokers=0)", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert list(data) == ["rules", "hands", "ranks", "runs", "totals", "yaniv_able"]
    assert data["rules"]["id"] == "israeli(jokers=0)"
    assert data["rules"]["params"]["jokers"] == 0
    assert data["hands"] == 2598960 and data["ranks"]["pair"] == 1098240
    assert data["runs"]["run5"] == 36 and data["yaniv_able"] == 32
    assert data["totals"]["6"] == 4 and sum(data["totals"].values()) == data["hands"]


def test_odds_deal_prints_each_count_with_its_percentage() -> None:
    result = CliRunner().invoke(cli, ["odds", "deal", "--rules", "namu"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "namu: 2,598,960 deals of 5 cards from 52 cards"
    assert any(line.split() == ["four", "624", "0.0240%"] for line in lines)
    assert any(line.split() == ["full_house", "3,744", "0.1441%"] for line in lines)
    assert lines[-1] == "Yaniv-able (total <= 5): 0 of 2,598,960 deals, 0%"


def test_odds_deal_defaults_to_israeli_and_refuses_bad_rules() -> None:
    result = CliRunner().invoke(cli, ["odds", "deal"])
    assert result.exit_code == 0 and result.output.startswith("israeli: 3,162,510 deals")
    result = CliRunner().invoke(cli, ["odds", "deal", "--rules", "israeli(hand_size=x)"])
    assert result.exit_code == 2 and "hand_size" in result.output
