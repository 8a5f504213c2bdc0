"""Exact odds of a deal: how many hands of ``hand_size`` cards fall in each category.

A *hand* is a combination of ``hand_size`` physical cards of the rule set's
deck. Two decks hold two 5H: they are the same card in play, but two cards on
the table, so a hand holding "a 5H" can be dealt in two ways. The deck of
``decks=2, jokers=2`` has 108 cards and C(108, 7) hands of seven. Every count
here is an exact integer of such combinations; nothing is enumerated hand by
hand, so ``decks=2, hand_size=7`` (about 2.6e10 hands) takes as long as a
five-card deal.

Three questions are answered, each by a generating function: a polynomial
whose coefficient of x^k counts the ways to take k cards of one part of the
deck, multiplied across the parts of the deck, and read at x^hand_size.

**Ranks** (:func:`rank_counts`). Poker's categories over the *natural* cards:
jokers, and jacks under ``wild_jacks``, are no rank at all. A rank with n
physical cards contributes sum_m C(n, m) x^m, and the product runs over the
13 ranks (12 with wild jacks) as a dynamic programme whose state is the cards
taken so far and the shape of the hand: how many ranks are held exactly twice,
three times, four times, five times or more (the first two capped at 2, the
others at 1, which is all the categories need). The wild cards fill the rest
of the hand: C(wild cards, hand_size - taken). A hand takes the first
category it meets in this order:

* ``five``: five or more cards of one rank (only with ``decks`` >= 2, where a
  rank has more than four cards; the key is absent otherwise);
* ``four``: four of one rank (with one deck that is "four or more");
* ``full_house``: three of one rank and two or more of another, so two threes
  (possible with seven cards) and three-two-two are full houses too;
* ``three``: three of one rank, nothing else paired;
* ``two_pair``: two or more ranks held exactly twice (three pairs of a
  seven-card hand are two pair);
* ``pair``: one rank held twice;
* ``no_pair``: every natural card of a different rank (a hand of jokers only
  included).

**Runs** (:func:`run_counts`). The length of the longest run that could be
thrown from the hand, as the engine reads a run (``yaniv_audit.core.melds``): one
suit, consecutive ranks on the rule set's windows (A-K, also Q-K-A with
``ace_high``, round the corner with ``run_wrap``), ``run_min`` to ``run_max``
cards, never a repeated rank, at least two natural cards, and the hand's
jokers (plus its jacks under ``wild_jacks``, when ``jokers_in_runs``) standing
in the missing places. Only one run is thrown at a time, so every suit may use
*all* of the hand's wild cards, and the longest run is the best suit's.

For one suit that holds the ranks H (a set: a second copy of a rank never
helps a run) and a hand with P wild cards, a window W of L consecutive ranks
is a run when |H & W| >= 2 and the holes number at most the wild cards left:
``L - |H & W| <= P - [the suit's own wild jack is used as itself in W]``
(using a held jack as itself fills its place and leaves the pool one card
shorter; using it as a joker elsewhere comes to the same). So the suit's
longest run g(H, P) depends on H and on the hand's pool P only, and P is a
sum of the jokers and the jacks of the four suits.

The count of hands whose longest run is at most L is then, for each pool size
P, the coefficient of x^hand_size z^P in

    F_1(x, z) F_2(x, z) F_3(x, z) F_4(x, z) Jk(x z)

where F_s sums, over the rank sets H of suit s with g(H, P) <= L, the ways to
take those ranks (each held rank: sum_{k>=1} C(copies, k) x^k, a wild jack
x^k z^k), and Jk(xz) = sum_k C(jokers, k) (xz)^k. The variable z counts the
wild cards, so the coefficient of z^P gathers exactly the hands whose pool is
the P that g was evaluated at. Every suit is a walk over at most 2^13 rank
sets (cut off at ``hand_size`` ranks), and g(H, P) stops growing once P
reaches one less than the longest run allowed (``run_max``, at most 13), so
pools that large are counted together. "At most
L" for every L gives "exactly L" by differences: ``run3``, ``run4``, ... up to
the longest possible run, and ``none`` for hands that can throw no run.

**Totals** (:func:`total_counts`). The hand total is a sum of card values
(``face_values``, ``joker_value``, ``wild_jacks``), so prod over the cards of
(1 + x y^value) read at x^hand_size is the distribution of the total, and the
Yaniv-able deals (total <= ``yaniv_max``) are its head.

Every function takes an optional ``deck``: a mapping of card codes to their
physical copies, a part of the rule set's deck (the default is the whole
deck, :func:`yaniv_audit.core.cards.deck_counts`). The tests count small decks this
way and check the figures against enumerating every hand.

>>> from yaniv_audit.core.rules import parse_rules
>>> odds = deal_odds(parse_rules("israeli(jokers=0)"))
>>> odds.hands, odds.ranks["full_house"], odds.ranks["four"]
(2598960, 3744, 624)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from math import comb
from typing import Any

from .cards import JACK, JOKER, RANK, SUIT, Card, card_values, deck_counts, make_card
from .rules import RuleSet

__all__ = [
    "RANK_CATEGORIES",
    "DealOdds",
    "deal_odds",
    "longest_run",
    "rank_category",
    "rank_counts",
    "run_categories",
    "run_counts",
    "total_counts",
]

#: the rank categories, best first (``five`` only where a rank has five or more cards)
RANK_CATEGORIES: tuple[str, ...] = (
    "five",
    "four",
    "full_house",
    "three",
    "two_pair",
    "pair",
    "no_pair",
)

Deck = Mapping[Card, int]
_JACK_BIT = 1 << (JACK - 1)


# --- one hand --------------------------------------------------------------


def _is_wild(code: Card, rules: RuleSet) -> bool:
    return code == JOKER or (rules.wild_jacks and RANK[code] == JACK)


def _category(twos: int, threes: int, fours: int, fives: int) -> str:
    """The category of a hand that holds ``twos`` ranks exactly twice, and so on."""
    if fives:
        return "five"
    if fours:
        return "four"
    if threes and (threes >= 2 or twos):
        return "full_house"
    if threes:
        return "three"
    if twos >= 2:
        return "two_pair"
    if twos:
        return "pair"
    return "no_pair"


def rank_category(hand: Sequence[Card], rules: RuleSet) -> str:
    """The rank category of one hand (see the module's precedence).

    >>> from yaniv_audit.core.cards import parse_cards
    >>> from yaniv_audit.core.rules import PRESETS
    >>> rank_category(parse_cards(["5H", "5S", "5D", "JK", "9C"]), PRESETS["israeli"])
    'three'
    """
    held: dict[int, int] = defaultdict(int)
    for code in hand:
        if not _is_wild(code, rules):
            held[RANK[code]] += 1
    many = list(held.values())
    return _category(many.count(2), many.count(3), many.count(4), sum(1 for m in many if m >= 5))


@cache
def _windows(run_min: int, run_cap: int, ace_high: bool, wrap: bool) -> tuple[tuple[int, int], ...]:
    """Every stretch of ranks a run may cover, as (length, bitmask of ranks
    A=bit 0 .. K=bit 12), the same stretches as the engine's."""
    top = 14 if ace_high else 13
    out: list[tuple[int, int]] = []
    for length in range(max(2, run_min), run_cap + 1):
        starts = range(1, 14) if wrap else range(1, top - length + 2)
        masks = set()
        for start in starts:
            mask = 0
            for k in range(length):
                mask |= 1 << ((start + k - 1) % 13)
            masks.add(mask)
        out.extend((length, mask) for mask in sorted(masks))
    return tuple(out)


def _run_cap(rules: RuleSet) -> int:
    """The longest run the rules allow: ``run_max``, and never a repeated rank."""
    return min(13, rules.run_max) if rules.run_max is not None else 13


def _wild_in_runs(rules: RuleSet) -> tuple[bool, bool]:
    """(jokers fill runs, jacks fill runs)."""
    return rules.jokers_in_runs, rules.jokers_in_runs and rules.wild_jacks


@cache
def _suit_longest(
    mask: int, windows: tuple[tuple[int, int], ...], jack_wild: bool, top_pool: int
) -> tuple[int, ...]:
    """g(H, P) for P = 0..top_pool: the longest run one suit holding the ranks
    ``mask`` makes with P wild cards in the hand (0: none)."""
    need_by_length: dict[int, int] = {}
    for length, window in windows:
        held = mask & window
        naturals = held.bit_count()
        if naturals < 2:
            continue
        need = length - naturals + (1 if jack_wild and held & _JACK_BIT else 0)
        if need < need_by_length.get(length, length + 1):
            need_by_length[length] = need
    return tuple(
        max((length for length, need in need_by_length.items() if need <= pool), default=0)
        for pool in range(top_pool + 1)
    )


def longest_run(hand: Sequence[Card], rules: RuleSet) -> int:
    """The length of the longest run that could be thrown from ``hand``; 0 if none.

    >>> from yaniv_audit.core.cards import parse_cards
    >>> from yaniv_audit.core.rules import PRESETS
    >>> longest_run(parse_cards(["5H", "7H", "JK", "9H", "2C"]), PRESETS["israeli"])
    3
    >>> longest_run(parse_cards(["5H", "7H", "JK", "JK", "2C"]), PRESETS["israeli"])
    4
    """
    jokers_fill, jacks_fill = _wild_in_runs(rules)
    pool = 0
    masks = [0, 0, 0, 0]
    for code in hand:
        if code == JOKER:
            pool += 1 if jokers_fill else 0
            continue
        if jacks_fill and RANK[code] == JACK:
            pool += 1
        masks[SUIT[code]] |= 1 << (RANK[code] - 1)
    windows = _windows(rules.run_min, _run_cap(rules), rules.ace_high, rules.run_wrap)
    return max(_suit_longest(m, windows, jacks_fill, pool)[pool] for m in masks)


def classifier(rules: RuleSet) -> Callable[[Sequence[Card]], tuple[str, str, int]]:
    """:func:`classify` under ``rules``, with what the rules decide worked out once: for
    the many hands of one log (the archive's ``deals``), where looking the rules up per
    hand would hash the rule set's every field each time."""
    values = card_values(rules)
    jokers_fill, jacks_fill = _wild_in_runs(rules)
    wild_jacks = rules.wild_jacks
    windows = _windows(rules.run_min, _run_cap(rules), rules.ace_high, rules.run_wrap)

    def classify_hand(hand: Sequence[Card]) -> tuple[str, str, int]:
        held: dict[int, int] = {}
        pool = 0
        masks = [0, 0, 0, 0]
        total = 0
        for code in hand:
            total += values[code]
            if code == JOKER:
                if jokers_fill:
                    pool += 1
                continue
            rank = RANK[code]
            if rank == JACK:
                if jacks_fill:
                    pool += 1
                if not wild_jacks:
                    held[rank] = held.get(rank, 0) + 1
            else:
                held[rank] = held.get(rank, 0) + 1
            masks[SUIT[code]] |= 1 << (rank - 1)
        run = max(_suit_longest(m, windows, jacks_fill, pool)[pool] for m in masks)
        many = list(held.values())
        ranks = _category(
            many.count(2), many.count(3), many.count(4), sum(1 for m in many if m >= 5)
        )
        return ranks, f"run{run}" if run else "none", total

    return classify_hand


def classify(hand: Sequence[Card], rules: RuleSet) -> tuple[str, str, int]:
    """One dealt hand's categories, as the counts here name them: its rank category,
    its longest run (``none``, ``run3``, ...) and its total.

    >>> from yaniv_audit.core.cards import parse_cards
    >>> from yaniv_audit.core.rules import PRESETS
    >>> classify(parse_cards(["5H", "6H", "7H", "5S", "KC"]), PRESETS["israeli"])
    ('pair', 'run3', 33)
    """
    run = longest_run(hand, rules)
    values = card_values(rules)
    return rank_category(hand, rules), f"run{run}" if run else "none", sum(values[c] for c in hand)


# --- polynomials: lists of exact coefficients, cut at the hand size ------------


def _mul(a: Sequence[int], b: Sequence[int], top: int) -> list[int]:
    out = [0] * (top + 1)
    for i, ai in enumerate(a):
        if ai:
            for j, bj in enumerate(b[: top + 1 - i]):
                out[i + j] += ai * bj
    return out


def _choose_some(copies: int, top: int) -> list[int]:
    """sum_{k>=1} C(copies, k) x^k: one card or more of ``copies`` identical ones."""
    return [0] + [comb(copies, k) for k in range(1, top + 1)]


Poly2 = list[list[int]]  # [cards][wild cards]


def _mul2(a: Poly2, b: Poly2, top: int, pools: int) -> Poly2:
    """The product of two polynomials in x (cut at ``top``) and z (degrees above
    ``pools`` added into ``pools``: "that many or more")."""
    out = [[0] * (pools + 1) for _ in range(top + 1)]
    for i, row_a in enumerate(a):
        for p, ap in enumerate(row_a):
            if not ap:
                continue
            for j in range(top + 1 - i):
                row_b, row_out = b[j], out[i + j]
                for q, bq in enumerate(row_b):
                    if bq:
                        row_out[min(p + q, pools)] += ap * bq
    return out


# --- the counts --------------------------------------------------------------


def _deck(rules: RuleSet, deck: Deck | None) -> dict[Card, int]:
    counts = deck_counts(rules)
    if deck is None:
        return {code: n for code, n in enumerate(counts) if n}
    for code, n in deck.items():
        if not 0 <= code <= JOKER or not 0 <= n <= counts[code]:
            raise ValueError(f"the deck holds {counts[code]} of card code {code}, not {n}")
    return {code: n for code, n in deck.items() if n}


def rank_counts(rules: RuleSet, deck: Deck | None = None) -> dict[str, int]:
    """Hands by rank category, best first (``five`` only if a rank has 5+ cards)."""
    h = rules.hand_size
    cards = _deck(rules, deck)
    by_rank: dict[int, int] = defaultdict(int)
    wild = 0
    for code, n in cards.items():
        if _is_wild(code, rules):
            wild += n
        else:
            by_rank[RANK[code]] += n
    # state: (cards taken, ranks held twice (<=2), thrice (<=2), four times (<=1), 5+ (<=1))
    states: dict[tuple[int, int, int, int, int], int] = {(0, 0, 0, 0, 0): 1}
    for rank in sorted(by_rank):
        n = by_rank[rank]
        grown: dict[tuple[int, int, int, int, int], int] = defaultdict(int)
        for (taken, twos, threes, fours, fives), ways in states.items():
            for m in range(min(n, h - taken) + 1):
                key = (
                    taken + m,
                    min(2, twos + (m == 2)),
                    min(2, threes + (m == 3)),
                    min(1, fours + (m == 4)),
                    min(1, fives + (m >= 5)),
                )
                grown[key] += ways * comb(n, m)
        states = grown
    five = max(by_rank.values(), default=0) >= 5
    out = {name: 0 for name in RANK_CATEGORIES if five or name != "five"}
    for (taken, twos, threes, fours, fives), ways in states.items():
        out[_category(twos, threes, fours, fives)] += ways * comb(wild, h - taken)
    return out


def run_categories(rules: RuleSet) -> list[str]:
    """The keys of :func:`run_counts`: ``none``, then ``run<L>`` for every length
    from ``run_min`` to the longest a hand of ``hand_size`` may throw."""
    longest = min(_run_cap(rules), rules.hand_size)
    return ["none"] + [f"run{n}" for n in range(max(2, rules.run_min), longest + 1)]


def run_counts(rules: RuleSet, deck: Deck | None = None) -> dict[str, int]:
    """Hands by the longest run they could throw (see the module's method)."""
    h = rules.hand_size
    cards = _deck(rules, deck)
    jokers_fill, jacks_fill = _wild_in_runs(rules)
    run_cap = _run_cap(rules)
    windows = _windows(rules.run_min, run_cap, rules.ace_high, rules.run_wrap)
    jokers = cards.get(JOKER, 0)
    wild_in_deck = (jokers if jokers_fill else 0) + (
        sum(n for c, n in cards.items() if c != JOKER and RANK[c] == JACK) if jacks_fill else 0
    )
    # the pools told apart: past run_cap - 1 wild cards, a suit's runs stop growing
    pools = max(0, min(h, wild_in_deck, run_cap - 1))
    keys = run_categories(rules)
    lengths = [0] + [int(k[3:]) for k in keys[1:]]

    # per suit: for each pool P, the ways (a polynomial in x) of the rank sets
    # whose longest run is g, with and without the suit's wild jack
    suits: list[tuple[list[dict[tuple[int, bool], list[int]]], int]] = []
    for suit in range(4):
        ranks = [(rank, cards.get(make_card(rank, suit), 0)) for rank in range(1, 14)]
        ranks = [(r, n) for r, n in ranks if n]
        jack_copies = next((n for r, n in ranks if r == JACK), 0) if jacks_fill else 0
        by_pool: list[dict[tuple[int, bool], list[int]]] = [
            defaultdict(lambda: [0] * (h + 1)) for _ in range(pools + 1)
        ]

        def walk(
            i: int,
            mask: int,
            held: int,
            ways: list[int],
            jack: bool,
            ranks: list[tuple[int, int]] = ranks,
            by_pool: list[dict[tuple[int, bool], list[int]]] = by_pool,
        ) -> None:
            if i == len(ranks):
                longest = _suit_longest(mask, windows, jacks_fill, pools)
                for pool in range(pools + 1):
                    bucket = by_pool[pool][(longest[pool], jack)]
                    for k, w in enumerate(ways):
                        bucket[k] += w
                return
            walk(i + 1, mask, held, ways, jack)
            if held < h:
                rank, copies = ranks[i]
                bit = 1 << (rank - 1)
                if jacks_fill and rank == JACK:
                    walk(i + 1, mask | bit, held + 1, ways, True)
                else:
                    walk(i + 1, mask | bit, held + 1, _mul(ways, _choose_some(copies, h), h), jack)

        walk(0, 0, 0, [1] + [0] * h, False)
        suits.append((by_pool, jack_copies))

    def wild_poly(copies: int, least: int) -> Poly2:
        """sum_{k>=least} C(copies, k) x^k z^k, as a two-variable polynomial."""
        out = [[0] * (pools + 1) for _ in range(h + 1)]
        for k in range(least, min(copies, h) + 1):
            out[k][min(k, pools)] += comb(copies, k)
        return out

    if jokers_fill:
        joker_part = wild_poly(jokers, 0)
    else:
        joker_part = [[comb(jokers, k)] + [0] * pools for k in range(h + 1)]

    at_most: list[int] = []
    for length in lengths:
        count = 0
        for pool in range(pools + 1):
            product = joker_part
            for by_pool, jack_copies in suits:
                part = [[0] * (pools + 1) for _ in range(h + 1)]
                jack_part = wild_poly(jack_copies, 1)
                for (g, jack), ways in by_pool[pool].items():
                    if g > length:
                        continue
                    if jack:
                        for k, row in enumerate(_mul2([[w] for w in ways], jack_part, h, pools)):
                            for p, v in enumerate(row):
                                part[k][p] += v
                    else:
                        for k, w in enumerate(ways):
                            part[k][0] += w
                product = _mul2(product, part, h, pools)
            count += product[h][pool]
        at_most.append(count)
    out = {keys[0]: at_most[0]}
    for i in range(1, len(keys)):
        out[keys[i]] = at_most[i] - at_most[i - 1]
    return out


def total_counts(rules: RuleSet, deck: Deck | None = None) -> dict[int, int]:
    """Hands by their total, ascending, every total that some hand has."""
    h = rules.hand_size
    values = card_values(rules)
    by_value: dict[int, int] = defaultdict(int)
    for code, n in _deck(rules, deck).items():
        by_value[values[code]] += n
    # ways[k][t]: k cards with total t
    ways: list[dict[int, int]] = [{0: 1}] + [{} for _ in range(h)]
    for value, n in sorted(by_value.items()):
        grown: list[dict[int, int]] = [defaultdict(int) for _ in range(h + 1)]
        for k, row in enumerate(ways):
            for total, w in row.items():
                for m in range(min(n, h - k) + 1):
                    grown[k + m][total + m * value] += w * comb(n, m)
        ways = [dict(row) for row in grown]
    return {t: w for t, w in sorted(ways[h].items()) if w}


# --- everything together --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DealOdds:
    """The exact counts of one rule set's deals (``odds deal``)."""

    rules: RuleSet
    deck_size: int
    hands: int
    ranks: dict[str, int]
    runs: dict[str, int]
    totals: dict[int, int]
    yaniv_able: int

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": {"id": self.rules.id, "params": self.rules.params()},
            "hands": self.hands,
            "ranks": dict(self.ranks),
            "runs": dict(self.runs),
            "totals": {str(t): n for t, n in self.totals.items()},
            "yaniv_able": self.yaniv_able,
        }

    def text(self) -> str:
        """The counts as a report, each with its probability in per cent."""
        n = self.hands
        h = self.rules.hand_size
        width = max(len(f"{n:,}"), 5)
        lines = [
            f"{self.rules.id}: {n:,} deals of {h} card{'s' if h != 1 else ''} "
            f"from {self.deck_size} cards"
        ]

        def block(title: str, rows: Mapping[str, int]) -> None:
            lines.append("")
            lines.append(title)
            label = max(len(k) for k in rows)
            for key, count in rows.items():
                lines.append(f"  {key:<{label}}  {count:>{width},}  {_percent(count, n):>9}")

        block("ranks (natural cards only; jokers and wild jacks are no rank)", self.ranks)
        block("longest run that could be thrown", self.runs)
        block("hand total", {str(t): c for t, c in self.totals.items()})
        lines.append("")
        lines.append(
            f"Yaniv-able (total <= {self.rules.yaniv_max}): {self.yaniv_able:,} "
            f"of {n:,} deals, {_percent(self.yaniv_able, n)}"
        )
        return "\n".join(lines)


def _percent(count: int, hands: int) -> str:
    if not hands:
        return "-"
    if not count:
        return "0%"
    share = 100 * count / hands
    if share < 0.0001:
        return "<0.0001%"
    return f"{share:.4f}%"


def deal_odds(rules: RuleSet, deck: Deck | None = None) -> DealOdds:
    """Every count of :func:`rank_counts`, :func:`run_counts` and
    :func:`total_counts`, with the number of hands and the Yaniv-able ones.

    The counts of a rule set's own deck are worked out once in a process (0.25 s of
    CPU for a rule set: a report's page asked again, a report of several rule sets);
    each call gets its own copy."""
    if deck is None:
        size, hands, ranks, runs, totals, able = _own_deck_counts(rules)
        return DealOdds(rules, size, hands, dict(ranks), dict(runs), dict(totals), able)
    return DealOdds(rules, *_counts(rules, deck))


@lru_cache(maxsize=64)
def _own_deck_counts(
    rules: RuleSet,
) -> tuple[int, int, dict[str, int], dict[str, int], dict[int, int], int]:
    return _counts(rules, None)


def _counts(
    rules: RuleSet, deck: Deck | None
) -> tuple[int, int, dict[str, int], dict[str, int], dict[int, int], int]:
    """:class:`DealOdds`' fields but the rules."""
    cards = _deck(rules, deck)
    size = sum(cards.values())
    totals = total_counts(rules, cards)
    return (
        size,
        comb(size, rules.hand_size),
        rank_counts(rules, cards),
        run_counts(rules, cards),
        totals,
        sum(n for t, n in totals.items() if t <= rules.yaniv_max),
    )
