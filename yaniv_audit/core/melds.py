"""Throws: which cards may be discarded together, and how they read.

A throw is a *single*, a *set* or a *run* (docs/rules.md, "Throwing"). This module is
pure and sits in the replay's and the bots' hot loop, so everything that
depends only on the rule set is computed once per rule set (:func:`_tables`),
classifications are memoised per rule set, and a single card is answered
from a prebuilt table.

Reading conventions, where the rules leave a choice to the implementation:

* With ``wild_jacks`` a jack is itself unless acting as a joker is needed;
  when a throw reads legally both as a set and as a run, the reading with
  fewer jacks acting as jokers wins (it is then always the run).
* A run's natural cards fix its suit, direction and position; at least two
  natural cards are required, and a run never repeats a rank (at most 13
  cards, even with ``ace_high``).
* A card slapped onto a single or a set must make a legal *set* with it; a
  joker matches any rank there when ``jokers_in_sets`` allows it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from .cards import JACK, JOKER, NAMES, RANK, RANKS, SUIT, Card
from .messages import phrase, render_phrase
from .rules import RuleSet

__all__ = ["SINGLES", "Meld", "classify", "extend", "legal_throws", "swap_target", "throws_finder"]


@dataclass(frozen=True, slots=True)
class Meld:
    """A legal throw as placed, with what each joker stands for in a run.

    ``stands_for[i]`` is the natural card that a joker (or a wild jack acting
    as one) at position ``i`` of a run replaces; it is ``None`` for natural
    cards and for every card of a single or a set. The joker swap and the
    slap-down read it; the pile keeps the cards as placed.

    >>> from yaniv_audit.core.cards import format_cards, parse_card, parse_cards
    >>> from yaniv_audit.core.rules import PRESETS
    >>> meld = classify(parse_cards(["5H", "JK", "7H"]), PRESETS["israeli"])
    >>> meld.kind, format_cards(meld.cards), meld.stands_for == (None, parse_card("6H"), None)
    ('run', '5H JK 7H', True)
    >>> classify(parse_cards(["7H", "8H", "9S"]), PRESETS["israeli"])
    '7H 8H 9S: a run must be one suit'
    """

    kind: str
    cards: tuple[Card, ...]
    stands_for: tuple[Card | None, ...]


#: the reading of each card thrown alone, by its code (what :func:`classify` answers)
SINGLES: tuple[Meld, ...] = tuple(Meld("single", (c,), (None,)) for c in range(JOKER + 1))
_SINGLES = SINGLES
_MEMO_LIMIT = 1 << 16
#: each card's bit in its suit's mask of ranks held (rank 1 = bit 0)
_BIT: tuple[int, ...] = tuple(1 << (RANK[c] - 1) if c != JOKER else 0 for c in range(JOKER + 1))
#: each natural card's bit in a hand's mask of cards: bit ``code`` (13 * suit + rank - 1);
#: the joker has none
_CARD_BIT: tuple[int, ...] = (*tuple(1 << c for c in range(JOKER)), 0)
#: the ranks of one suit in a hand's mask of cards
_SUIT_MASK = (1 << 13) - 1
#: the jacks' bits in a hand's mask
_JACKS = sum(_CARD_BIT[c] for c in range(JOKER) if RANK[c] == JACK)


class _Tables:
    """What the melds need from a rule set, precomputed once per rule set."""

    __slots__ = (
        "ace_high",
        "jokerish",
        "jokers_in_runs",
        "jokers_in_sets",
        "memo",
        "rank_sets",
        "run_cap",
        "run_max",
        "run_min",
        "run_test",
        "runnable",
        "runs_memo",
        "set_max",
        "set_min",
        "sets_memo",
        "top",
        "wild",
        "windows",
        "wrap",
    )

    def __init__(self, key: tuple[object, ...]) -> None:
        (
            wild,
            set_min,
            set_max,
            run_min,
            run_max,
            ace_high,
            wrap,
            jokers_in_runs,
            jokers_in_sets,
        ) = key
        assert isinstance(set_min, int) and isinstance(set_max, int)
        assert isinstance(run_min, int) and (run_max is None or isinstance(run_max, int))
        self.wild = bool(wild)
        self.set_min = set_min
        self.set_max = set_max
        self.run_min = run_min
        self.run_max = run_max
        # a run never repeats a rank, whatever run_max says
        self.run_cap = min(13, run_max) if run_max is not None else 13
        self.ace_high = bool(ace_high)
        self.wrap = bool(wrap)
        self.top = 14 if ace_high else 13
        self.jokers_in_runs = bool(jokers_in_runs)
        self.jokers_in_sets = bool(jokers_in_sets)
        #: cards that may act as a joker: the joker, and jacks with wild_jacks
        self.jokerish: tuple[bool, ...] = tuple(
            c == JOKER or (self.wild and RANK[c] == JACK) for c in range(JOKER + 1)
        )
        self.windows = self._windows()
        self.memo: dict[tuple[Card, ...], Meld | str] = {}
        #: the runs of one suit of a hand (see :func:`_runs`)
        self.runs_memo: dict[tuple[object, ...], list[tuple[Card, ...]]] = {}
        #: whether a suit's ranks held and so many jokers can make a run (see :func:`_runs`)
        self.runnable: dict[int, bool] = {}
        #: the sets of one rank's cards alone (see :func:`_sets`)
        self.sets_memo: dict[tuple[object, ...], list[tuple[Card, ...]]] = {}
        #: the sets of one rank by (rank index, its suits held as 4 bits, the largest size)
        self.rank_sets: dict[tuple[int, int, int], list[tuple[Card, ...]]] = {}
        self.run_test = self._run_test()

    def _run_test(self) -> tuple[tuple[int, ...], int] | None:
        """A test of a hand's naturals for a run without jokers, on the bits of its cards
        (:func:`_legal_throws`): the shifts that find ``k`` ranks in a row, ``k`` the
        shortest run, and the bits where such a stretch may start; None where the ace
        may be high or runs wrap (a run then need not be consecutive bits)."""
        if self.ace_high or self.wrap:
            return None
        length = max(2, self.run_min)
        starts = 0
        if length <= self.run_cap:
            for suit in range(4):
                for rank in range(13 - length + 1):
                    starts |= 1 << (13 * suit + rank)
        return tuple(range(1, length)), starts

    def _windows(self) -> tuple[tuple[int, int, tuple[int, ...]], ...]:
        """Every stretch of consecutive ranks a run may cover, as
        (length, bitmask of rank indices, rank indices 0..12 ascending)."""
        out: list[tuple[int, int, tuple[int, ...]]] = []
        for length in range(max(2, self.run_min), self.run_cap + 1):
            if self.wrap:
                starts: Sequence[int] = range(13, 0, -1)
            else:
                starts = range(self.top - length + 1, 0, -1)
            seen: set[tuple[int, ...]] = set()
            for start in starts:
                idxs = tuple((start + k - 1) % 13 for k in range(length))
                if idxs in seen:
                    continue
                seen.add(idxs)
                mask = 0
                for i in idxs:
                    mask |= 1 << i
                out.append((length, mask, idxs))
        return tuple(out)


@cache
def _tables_for(key: tuple[object, ...]) -> _Tables:
    return _Tables(key)


_BY_ID: dict[int, tuple[RuleSet, _Tables]] = {}


def _tables(rules: RuleSet) -> _Tables:
    """The tables of ``rules``: by identity first, since hashing a RuleSet
    hashes all its fields; equal rule sets share one table."""
    hit = _BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    tables = _tables_for(
        (
            rules.wild_jacks,
            rules.set_min,
            rules.set_max,
            rules.run_min,
            rules.run_max,
            rules.ace_high,
            rules.run_wrap,
            rules.jokers_in_runs,
            rules.jokers_in_sets,
        )
    )
    if len(_BY_ID) >= 256:
        _BY_ID.clear()
    _BY_ID[id(rules)] = (rules, tables)  # the stored reference keeps the id unique
    return tables


# --- readings ---------------------------------------------------------------


def _read_set(t: tuple[Card, ...], T: _Tables) -> int | None:
    """How many jacks act as jokers if ``t`` is a legal set, else None."""
    n = len(t)
    if n < T.set_min or n > T.set_max:
        return None
    rank = 0
    jokers = 0
    jacks = 0
    jokerish = T.jokerish
    for c in t:
        if c == JOKER:
            jokers += 1
        elif jokerish[c]:
            jacks += 1
        else:
            r = RANK[c]
            if rank == 0:
                rank = r
            elif r != rank:
                return None
    wild_jokers = jacks if rank else 0  # with no other rank the jacks are a set of jacks
    if (jokers or wild_jokers) and not T.jokers_in_sets:
        return None
    return wild_jokers


def _read_run(t: tuple[Card, ...], T: _Tables) -> tuple[int, tuple[Card | None, ...]] | None:
    """(jacks acting as jokers, stands_for) of the best run reading, or None.

    The first card that cannot be a joker is natural in every reading, so its
    rank (and, for an ace with ``ace_high``, its two places) and the two
    directions give at most four readings to try.
    """
    n = len(t)
    if n < T.run_min or n > T.run_cap or n < 2:
        return None
    jokerish = T.jokerish
    for i0, c0 in enumerate(t):  # noqa: B007 - the loop finds the anchor
        if not jokerish[c0]:
            break
    else:
        return None  # jokers and wild jacks alone hold at most one natural
    base = SUIT[c0] * 13
    r0 = RANK[c0]
    wrap = T.wrap
    top = T.top
    in_runs = T.jokers_in_runs
    best: tuple[int, tuple[Card | None, ...]] | None = None
    for slot0 in (1, 14) if r0 == 1 and T.ace_high and not wrap else (r0,):
        for d in (1, -1):
            first = slot0 - d * i0
            if not wrap:
                last = first + d * (n - 1)
                if min(first, last) < 1 or max(first, last) > top:
                    continue
            naturals = 0
            wild_jokers = 0
            stands: list[Card | None] = []
            slot = first
            for c in t:
                code = base + (slot - 1) % 13
                slot += d
                if c == code:
                    naturals += 1
                    stands.append(None)
                elif jokerish[c] and in_runs:
                    if c != JOKER:
                        wild_jokers += 1
                    stands.append(code)
                else:
                    break
            else:
                if naturals >= 2 and (best is None or wild_jokers < best[0]):
                    best = (wild_jokers, tuple(stands))
    return best


def _valid_codes(t: tuple[object, ...]) -> bool:
    return all(isinstance(c, int) and 0 <= c <= JOKER for c in t)


def _classify(t: tuple[Card, ...], T: _Tables) -> Meld | str:
    n = len(t)
    if n == 1:
        return _SINGLES[t[0]]
    as_set = _read_set(t, T)
    as_run = _read_run(t, T)
    if as_run is not None and (as_set is None or as_run[0] <= as_set):
        return Meld("run", t, as_run[1])
    if as_set is not None:
        return Meld("set", t, (None,) * n)
    return _explain(t, T)


def classify(cards: Sequence[Card], rules: RuleSet) -> Meld | str:
    """The throw ``cards`` as placed: a :class:`Meld` if legal under ``rules``,
    else one sentence naming the cards and the rule parameter at fault."""
    if len(cards) == 1:
        c = cards[0]
        if type(c) is int and 0 <= c <= JOKER:
            return _SINGLES[c]
    T = _tables(rules)
    t = tuple(cards)
    memo = T.memo
    try:
        hit = memo.get(t)
    except TypeError:  # unhashable junk
        hit = None
    if hit is not None:
        return hit
    if not t:
        return "an empty throw: a throw needs at least one card"
    if not _valid_codes(t):
        bad = next(c for c in t if not isinstance(c, int) or not 0 <= c <= JOKER)
        return f"{bad!r} is not a card code: expected a whole number 0-52"
    result = _classify(t, T)
    if len(memo) >= _MEMO_LIMIT:
        memo.clear()
    memo[t] = result
    return result


# --- why a throw is illegal -------------------------------------------------


def _names(cards: Sequence[Card]) -> list[str]:
    return [NAMES[c] for c in cards]


Phrase = dict[str, Any]


def explain(cards: Sequence[Card], rules: RuleSet) -> Phrase:
    """Why the throw ``cards`` (illegal under ``rules``) is no meld, as data: a phrase of
    :mod:`~yaniv_audit.core.messages` naming the cards and the rule parameters at fault.
    (:func:`classify` gives the same in English.)"""
    if not cards:
        return phrase("meld:empty")
    t = tuple(cards)
    return phrase("meld:cards", cards=_names(t), why=_reason(t, _tables(rules)))


def _wild_note(why: Phrase, jacks: Sequence[Card]) -> Phrase:
    if not jacks:
        return why
    return phrase("meld:wild_jacks", why=why, jacks=_names(jacks), rule={"wild_jacks": True})


def _explain(t: tuple[Card, ...], T: _Tables) -> str:
    """The first rule that ``t`` (two or more cards, illegal) breaks."""
    return render_phrase(phrase("meld:cards", cards=_names(t), why=_reason(t, T)))


def _reason(t: tuple[Card, ...], T: _Tables) -> Phrase:
    n = len(t)
    jokerish = T.jokerish
    plain_jokers = [c for c in t if c == JOKER]
    jacks = [c for c in t if c != JOKER and jokerish[c]]
    definite = [c for c in t if not jokerish[c]]
    ranks = {RANK[c] for c in definite}

    if not definite and not jacks:
        if not T.jokers_in_sets:
            return phrase("meld:jokers_alone", rule={"jokers_in_sets": False})
        return _set_size(n, T) or phrase("meld:not_legal")

    if len(ranks) <= 1:
        # a set: of the one natural rank, or of jacks when there is none
        wild_jacks = jacks if definite else []
        two = len(definite) == 1 and bool(plain_jokers or jacks) and n >= T.run_min

        def extra(why: Phrase) -> Phrase:
            return phrase("meld:two_naturals", why=why) if two else why

        size = _set_size(n, T)
        if n > T.set_max and size:
            return extra(size)
        if (plain_jokers or wild_jacks) and not T.jokers_in_sets:
            return _wild_note(
                extra(phrase("meld:joker_in_set", rule={"jokers_in_sets": False})), wild_jacks
            )
        if size:
            return size
        return extra(phrase("meld:not_legal"))
    run = _run_reason(t, T)
    if n >= T.run_min:
        return run
    # too few cards for a run: say why it is no set either
    if "run_min" not in run.get("rule", ()):
        run = phrase("meld:and_run_min", why=run, rule={"run_min": T.run_min})
    return phrase("meld:no_set_no_run", why=run, rule={"set_min": T.set_min, "set_max": T.set_max})


def _set_size(n: int, T: _Tables) -> Phrase | None:
    if n > T.set_max:
        return phrase("meld:set_max", rule={"set_max": T.set_max})
    if n < T.set_min:
        return phrase("meld:set_min", rule={"set_min": T.set_min})
    return None


def _run_reason(t: tuple[Card, ...], T: _Tables) -> Phrase:
    n = len(t)
    jokerish = T.jokerish
    # a wild jack that may not act as a joker in a run is read as natural when
    # it has the suit of the other natural cards
    definite_suits = {SUIT[c] for c in t if not jokerish[c]}
    if T.jokers_in_runs or len(definite_suits) != 1:

        def is_natural(c: Card) -> bool:
            return not jokerish[c]
    else:

        def is_natural(c: Card) -> bool:
            return c != JOKER and SUIT[c] in definite_suits

    naturals = [(i, c) for i, c in enumerate(t) if is_natural(c)]
    others = [c for c in t if not is_natural(c)]
    suits = {SUIT[c] for _, c in naturals}
    ranks = [RANK[c] for _, c in naturals]
    repeats = len(set(ranks)) < len(ranks)
    if len(suits) > 1:
        return phrase("meld:ranks_and_suits" if repeats else "meld:one_suit")
    if repeats:
        twice = next(c for _, c in naturals if ranks.count(RANK[c]) > 1)
        return phrase("meld:repeats", card=NAMES[twice])
    if others and not T.jokers_in_runs:
        return _wild_note(
            phrase("meld:joker_in_run", rule={"jokers_in_runs": False}),
            [c for c in others if c != JOKER],
        )
    if n < T.run_min:
        return phrase("meld:run_min", rule={"run_min": T.run_min})
    if T.run_max is not None and n > T.run_max:
        return phrase("meld:run_max", rule={"run_max": T.run_max})
    if n > 13:
        return phrase("meld:run_13")
    return _order_reason(t, naturals, T)


def _order_reason(t: tuple[Card, ...], naturals: list[tuple[int, Card]], T: _Tables) -> Phrase:
    """Order, spacing and the ends of a one-suit run with distinct ranks."""
    n = len(t)
    base = SUIT[naturals[0][1]] * 13
    idx_span = naturals[-1][0] - naturals[0][0]
    # readings on the 13-rank cycle: a direction in which the naturals as placed
    # climb less than a full turn; positions then unrolled to whole numbers
    best: tuple[int, bool, int, list[int]] | None = None
    for d in (1, -1):
        pos = [RANK[naturals[0][1]]]
        for (_, a), (_, b) in itertools.pairwise(naturals):
            pos.append(pos[-1] + d * ((RANK[b] - RANK[a]) * d % 13))
        if abs(pos[-1] - pos[0]) >= 13:
            continue
        fits = False
        for shift in (0, 13, -13):
            if all(1 <= p + shift <= 14 for p in pos):
                pos = [p + shift for p in pos]
                fits = True
                break
        mismatch = abs(abs(pos[-1] - pos[0]) - idx_span)
        if not fits and mismatch > 2:
            continue  # read round the corner only when it is what was plainly meant
        if best is None or (mismatch, not fits, -d) < (best[0], not best[1], -best[2]):
            best = (mismatch, fits, d, pos)
    if best is None:
        return phrase("meld:order")
    _, fits, d, pos = best

    def code(slot: int) -> Card:
        return base + (slot - 1) % 13

    def label(lo_slot: int, hi_slot: int) -> str:
        step = 1 if hi_slot >= lo_slot else -1
        return "-".join(RANKS[(s - 1) % 13] for s in range(lo_slot, hi_slot + step, step))

    if not fits and not T.wrap:
        return phrase("meld:corner", ranks=label(pos[0], pos[-1]), rule={"run_wrap": False})

    for k in range(len(naturals) - 1):
        (i, a), (j, b) = naturals[k], naturals[k + 1]
        step = abs(pos[k + 1] - pos[k])
        gap = j - i
        if step == gap:
            continue
        missing = _names([code(pos[k] + d * m) for m in range(1, step)])
        placed = _names(t[i + 1 : j])
        if step > gap and not placed:
            return phrase("meld:missing", missing=missing)
        key = (
            "meld:gap_short" if step > gap else "meld:gap_none" if not missing else "meld:gap_long"
        )
        return phrase(key, missing=missing, placed=placed, low=NAMES[a], high=NAMES[b])

    if T.wrap:
        return phrase("meld:not_legal")
    i_anchor = naturals[0][0]
    slots = [pos[0] + d * (i - i_anchor) for i in range(n)]
    if max(slots) > 14:
        return phrase("meld:corner", ranks=label(slots[0], slots[-1]), rule={"run_wrap": False})
    if max(pos) == 14 and not T.ace_high:
        return phrase("meld:ace_high", ranks=label(slots[0], slots[-1]), rule={"ace_high": False})
    for at, end, inward in (("start", slots[0], 1), ("end", slots[-1], -1)):
        if 1 <= end <= T.top:
            continue
        edge = 0 if at == "start" else n - 1
        count = 0
        while 0 <= edge < n and not 1 <= slots[edge] <= T.top:
            count += 1
            edge += inward
        jokers = "joker" if count == 1 else "jokers"
        if end < 1:
            return phrase(f"meld:{jokers}_below", at=at, jokers=count, rule={"run_wrap": False})
        return phrase(f"meld:{jokers}_above", at=at, jokers=count, rule={"ace_high": False})
    return phrase("meld:not_legal")


# --- slap-down and joker swap -----------------------------------------------


def extend(meld: Meld, card: Card, rules: RuleSet) -> Meld | None:
    """``meld`` with a slapped-down ``card`` joined, if it matches and the throw
    stays legal: last in a single or a set, at the matching end of a run
    (the last end first when both would do)."""
    if not isinstance(card, int) or not 0 <= card <= JOKER:
        return None
    T = _tables(rules)
    if meld.kind == "run":
        for t in ((*meld.cards, card), (card, *meld.cards)):
            reading = _read_run(t, T)
            if reading is not None:
                return Meld("run", t, reading[1])
        return None
    t = (*meld.cards, card)
    if _read_set(t, T) is None:
        return None
    return Meld("set", t, (None,) * len(t))


def swap_target(meld: Meld, joker_position: int) -> Card | None:
    """The natural card that the joker or wild jack at ``joker_position`` of a
    run stands for (the card a joker swap must put in), else None."""
    if meld.kind != "run" or not 0 <= joker_position < len(meld.stands_for):
        return None
    return meld.stands_for[joker_position]


# --- every legal throw of a hand ---------------------------------------------


def _sub_multisets(items: Sequence[tuple[Card, int]]) -> Iterator[tuple[Card, ...]]:
    """Every sub-multiset of ``(card, count)`` pairs, the empty one first."""
    ranges = [range(count + 1) for _, count in items]
    for takes in itertools.product(*ranges):
        out: list[Card] = []
        for (card, _), take in zip(items, takes, strict=True):
            out.extend([card] * take)
        yield tuple(out)


def _cards_from(items: Sequence[tuple[Card, int]]) -> list[int]:
    """How many cards the ``(card, count)`` pairs hold from each position on (one more
    entry, 0, past the last)."""
    rest = [0] * (len(items) + 1)
    for i in range(len(items) - 1, -1, -1):
        rest[i] = rest[i + 1] + items[i][1]
    return rest


def _sized_sub_multisets(
    items: Sequence[tuple[Card, int]],
    low: int,
    high: int,
) -> Iterator[tuple[Card, ...]]:
    """The sub-multisets of ``(card, count)`` pairs of ``low`` to ``high`` cards, in the
    order of :func:`_sub_multisets`: a count of each card, never a position, so that
    identical cards (sixteen jokers) are never told apart, and no branch is entered that
    holds none of the sizes asked for (the work is that of the answer)."""
    rest = _cards_from(items)
    if low > rest[0] or high < 0 or high < low:
        return

    def pick(i: int, low: int, high: int) -> Iterator[tuple[Card, ...]]:
        if i == len(items):
            yield ()
            return
        card, count = items[i]
        after = rest[i + 1]
        for take in range(max(0, low - after), min(count, high) + 1):
            head = (card,) * take
            for tail in pick(i + 1, low - take, high - take):
                yield head + tail

    yield from pick(0, max(low, 0), high)


def _combinations_of_counts(
    items: Sequence[tuple[Card, int]],
    need: int,
) -> Iterator[tuple[Card, ...]]:
    """The distinct ``need``-card choices from ``(card, count)`` pairs sorted by card, in
    the order ``itertools.combinations`` of the cards laid out sorted first meets them
    (ascending tuples): a count of each card, never a position."""
    rest = _cards_from(items)
    if need > rest[0]:
        return

    def pick(i: int, need: int) -> Iterator[tuple[Card, ...]]:
        if need == 0:
            yield ()
            return
        card, count = items[i]
        for take in range(min(count, need), max(0, need - rest[i + 1]) - 1, -1):
            head = (card,) * take
            for tail in pick(i + 1, need - take):
                yield head + tail

    yield from pick(0, need)


def _set_placement(cards: tuple[Card, ...], T: _Tables) -> tuple[Card, ...] | None:
    """A placement of a set multiset that reads as a set: sorted if it does, else
    the first distinct permutation (in lexicographic order) that does (only wild jacks
    can make a sorted set read as a run)."""
    if _classify_kind(cards, T) == "set":
        return cards
    counts = sorted(Counter(cards).items())
    n = len(cards)
    placed: list[Card] = []
    # A sorted set that reads as a run holds one card that cannot act as a joker, X,
    # and a jack of its suit standing as itself where a run through X puts the jack:
    # every other card may act as a joker. So once X and that jack are placed so, every
    # completion reads as a run, and the search leaves that branch (the lexicographic
    # order of the placements it tries is kept: the first found is the same).
    lone = [c for c in cards if not T.jokerish[c]]
    jack = SUIT[lone[0]] * 13 + JACK - 1 if len(lone) == 1 and T.jokers_in_runs else -1
    at = -1  # where X is placed

    def runs_through() -> bool:
        x = lone[0]
        r0 = RANK[x]
        for slot0 in (1, 14) if r0 == 1 and T.ace_high and not T.wrap else (r0,):
            for d in (1, -1):
                first = slot0 - d * at
                if not T.wrap:
                    last = first + d * (n - 1)
                    if min(first, last) < 1 or max(first, last) > T.top:
                        continue
                for k in range(len(placed)):
                    if placed[k] == jack and (first + d * k - 1) % 13 == JACK - 1:
                        return True
        return False

    def search() -> tuple[Card, ...] | None:
        nonlocal at
        if len(placed) == n:
            t = tuple(placed)
            return t if _classify_kind(t, T) == "set" else None
        for i, (card, count) in enumerate(counts):
            if not count:
                continue
            counts[i] = (card, count - 1)
            placed.append(card)
            if jack >= 0 and card == lone[0]:
                at = len(placed) - 1
            if not (jack >= 0 and at >= 0 and runs_through()):
                found = search()
                if found is not None:
                    return found
            if card == lone[0] and jack >= 0:
                at = -1
            placed.pop()
            counts[i] = (card, count)
        return None

    return search()


def _classify_kind(t: tuple[Card, ...], T: _Tables) -> str | None:
    result = T.memo.get(t)
    if result is None:
        result = _classify(t, T)
        if len(T.memo) >= _MEMO_LIMIT:
            T.memo.clear()
        T.memo[t] = result
    return result.kind if isinstance(result, Meld) else None


def legal_throws(
    hand: Sequence[Card],
    rules: RuleSet,
    limit: int | None = None,
) -> list[tuple[Card, ...]]:
    """Every distinct legal throw from ``hand`` (a multiset), once per kind, in a
    canonical placement: singles, then sets (sorted by code where that reads as
    a set), then runs (ascending). With ``limit``, the first ``limit`` of them, found
    without finding the rest (a hand of many jokers has hundreds of thousands)."""
    T = _tables(rules)
    if limit is None:
        return _legal_throws(T, hand)
    return list(itertools.islice(_iter_throws_of_counts(hand, T, False), max(limit, 0)))


def throws_finder(rules: RuleSet) -> Callable[[Sequence[Card]], list[tuple[Card, ...]]]:
    """:func:`legal_throws` under ``rules``, the rule set's tables looked up once (the
    simulator asks for every turn's throws)."""
    return partial(_legal_throws, _tables(rules))  # no Python frame of its own


def _legal_throws(T: _Tables, hand: Sequence[Card]) -> list[tuple[Card, ...]]:
    """The throws of a hand of distinct cards (at most one joker), the usual one, read
    from the bits of its naturals (bit ``13 * suit + rank - 1``); any other hand, and
    rules that allow jokers in sets, by :func:`_throws_of_counts`. The same throws in
    the same order either way (the tests compare the two)."""
    n = len(hand)
    if n < 2:
        return [(c,) for c in hand]
    codes = sorted(hand)
    held = sum([_CARD_BIT[c] for c in codes])
    jokers = 1 if codes[-1] == JOKER else 0
    if T.jokers_in_sets or held.bit_count() + jokers != n:  # a sum of bits: copies carry
        return _throws_of_counts(hand, T)
    out: list[tuple[Card, ...]] = [(c,) for c in codes]
    s0 = held & _SUIT_MASK
    s1 = held >> 13 & _SUIT_MASK
    s2 = held >> 26 & _SUIT_MASK
    s3 = held >> 39
    twice = (s0 & s1) | (s2 & s3) | ((s0 | s1) & (s2 | s3))  # ranks held in 2+ suits
    if twice:  # their sets, rank by rank in the order of their lowest code
        set_max = min(T.set_max, n)
        ranks: Sequence[int]
        if twice & (twice - 1):
            ranks = sorted(
                (i for i in range(13) if twice >> i & 1),
                key=lambda i: (0 if s0 >> i & 1 else 1 if s1 >> i & 1 else 2, i),
            )
        else:
            ranks = (twice.bit_length() - 1,)
        rank_sets = T.rank_sets
        for i in ranks:
            suits = (s0 >> i & 1) | (s1 >> i & 1) << 1 | (s2 >> i & 1) << 2 | (s3 >> i & 1) << 3
            found = rank_sets.get((i, suits, set_max))
            if found is None:
                found = rank_sets[i, suits, set_max] = _own_sets(
                    [(13 * s + i, 1) for s in range(4) if suits >> s & 1], set_max, T
                )
            out.extend(found)
    if T.jokers_in_runs and (jokers or (T.wild and held & _JACKS)):
        out.extend(_runs(dict.fromkeys(codes, 1), n, T))  # a joker or a wild jack
        return out
    test = T.run_test
    if test is not None:
        shifts, starts = test
        for k in shifts:
            starts &= held >> k
        if not starts:
            return out  # the usual hand: no stretch of ranks in a row long enough for a run
    out.extend(_natural_runs(held, T))
    return out


def _natural_runs(held: int, T: _Tables) -> list[tuple[Card, ...]]:
    """The runs of the naturals ``held`` (their bits) with no card acting as a joker,
    suit by suit, as :func:`_runs` finds them."""
    out: list[tuple[Card, ...]] = []
    runnable = T.runnable
    memo = T.runs_memo
    for suit in range(4):
        suit_held = held >> (13 * suit) & _SUIT_MASK
        if not suit_held & (suit_held - 1):
            continue  # fewer than two ranks held in the suit
        can = runnable.get(suit_held)
        if can is None:
            can = runnable[suit_held] = _runnable(suit_held, 0, T)
        if not can:
            continue
        longest = suit_held.bit_count()
        key = (suit, suit_held, (), longest)
        runs = memo.get(key)
        if runs is None:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            runs = memo[key] = list(_suit_runs(suit, suit_held, (), longest, T))
        out.extend(runs)
    return out


def _throws_of_counts(hand: Sequence[Card], T: _Tables) -> list[tuple[Card, ...]]:
    """The throws of any hand, from the count of each card."""
    return list(_iter_throws_of_counts(hand, T, True))


def _iter_throws_of_counts(
    hand: Sequence[Card],
    T: _Tables,
    keep: bool,
) -> Iterator[tuple[Card, ...]]:
    """The throws of any hand, from the count of each card, one at a time (``keep``: a
    suit's runs found whole are kept for the next hand)."""
    n = len(hand)
    if n < 2:
        yield from [(c,) for c in hand]
        return
    counts: Mapping[Card, int] = dict.fromkeys(hand, 1) if len(set(hand)) == n else Counter(hand)
    codes = sorted(counts)
    yield from [(c,) for c in codes]
    if T.jokers_in_sets:
        yield from _sets(counts, codes, n, T)
        for size in range(T.set_min, min(T.set_max, n, counts.get(JOKER, 0)) + 1):
            yield (JOKER,) * size
    else:
        # sets of one rank alone (jacks too: no joker in a set): the usual hand has none
        ranks = [RANK[c] for c in hand if c != JOKER]
        if len(set(ranks)) < len(ranks):
            yield from _sets(counts, codes, n, T)
    yield from _runs(counts, n, T, keep)


def _sets(
    counts: Mapping[Card, int],
    codes: list[Card],
    n: int,
    T: _Tables,
) -> Iterator[tuple[Card, ...]]:
    """The sets of one natural rank (jacks are a rank of their own), plus jokers if
    allowed, rank by rank in the order of ``codes`` (sorted)."""
    set_min = T.set_min
    set_max = min(T.set_max, n)
    if not T.jokers_in_sets:  # a set is one rank's own cards: memoised per rank
        own: dict[int, list[tuple[Card, int]]] = {}
        for c in codes:
            if c != JOKER:
                own.setdefault(RANK[c], []).append((c, counts[c]))
        for items in own.values():
            if len(items) > 1 or items[0][1] > 1:
                yield from _own_sets(items, set_max, T)
        return
    jokerish = T.jokerish
    n_jokers = counts.get(JOKER, 0)
    by_rank: dict[int, list[tuple[Card, int]]] = {}
    held: dict[int, int] = {}  # cards of each rank
    for c in codes:
        if c != JOKER:
            rank = RANK[c]
            k = counts[c]
            by_rank.setdefault(rank, []).append((c, k))
            held[rank] = held.get(rank, 0) + k
    jack_items = [(c, counts[c]) for c in codes if c != JOKER and jokerish[c]]
    n_jacks = sum(k for _, k in jack_items)
    seen: set[tuple[Card, ...]] = set()
    for rank, items in by_rank.items():
        pool: list[tuple[Card, int]] = [(JOKER, n_jokers)] if n_jokers else []
        pooled = n_jokers
        if rank != JACK:
            pool, pooled = jack_items + pool, pooled + n_jacks
        if held[rank] + pooled < set_min:
            continue
        if not pool:
            yield from _own_sets(items, set_max, T)
            continue
        wild_fill = T.wild and rank != JACK
        for group in _sub_multisets(items):
            if not group or len(group) > set_max:
                continue
            # the fillers (jokers, wild jacks) of each size that makes a set with the group
            for fill in _sized_sub_multisets(pool, set_min - len(group), set_max - len(group)):
                cards = tuple(sorted(group + fill))
                if cards in seen:
                    continue
                seen.add(cards)
                # two naturals of one rank never read as a run: sorted, a set is a set
                if wild_fill and len(group) == 1 and any(c != JOKER for c in fill):
                    placed = _set_placement(cards, T)
                    if placed is not None:
                        yield placed
                else:
                    yield cards


def _own_sets(
    items: list[tuple[Card, int]],
    set_max: int,
    T: _Tables,
) -> list[tuple[Card, ...]]:
    """The sets of one rank's cards ``items`` (code, count) and no joker, memoised."""
    key = (tuple(items), set_max)
    found = T.sets_memo.get(key)
    if found is None:
        if len(T.sets_memo) >= _MEMO_LIMIT:
            T.sets_memo.clear()
        found = T.sets_memo[key] = list(_sized_sub_multisets(items, T.set_min, set_max))
    return found


def _runs(
    counts: Mapping[Card, int],
    n: int,
    T: _Tables,
    keep: bool = True,
) -> Iterator[tuple[Card, ...]]:
    """Runs of ``counts``, suit by suit (a run's naturals are of one suit, so no run
    is found in two suits); each suit's are memoised per rule set (when ``keep``) by what
    they depend on: the ranks held in the suit, the cards that may act as jokers and
    the longest run the hand can make."""
    jokerish = T.jokerish
    wild = [c for c in counts if jokerish[c]] if T.jokers_in_runs else ()
    pool_items = tuple(sorted([(c, counts[c]) for c in wild])) if wild else ()
    pool_size = sum([counts[c] for c in wild]) if wild else 0
    held_by_suit = [0, 0, 0, 0, 0]  # the last for the joker (SUIT -1), unused
    for c in counts:
        held_by_suit[SUIT[c]] |= _BIT[c]
    held_by_suit.pop()
    runnable = T.runnable
    memo = T.runs_memo
    for suit, held in enumerate(held_by_suit):
        if not held & (held - 1):
            continue  # fewer than two ranks held in the suit
        reach = held | pool_size << 13
        can = runnable.get(reach)
        if can is None:
            can = runnable[reach] = _runnable(held, pool_size, T)
        if not can:
            continue  # the usual case: no window of ranks the suit and the jokers can fill
        longest = min(n, held.bit_count() + pool_size)
        key = (suit, held, pool_items, longest)
        runs = memo.get(key)
        if runs is not None:
            yield from runs
        elif not keep:
            yield from _suit_runs(suit, held, pool_items, longest, T)
        else:
            if len(memo) >= _MEMO_LIMIT:
                memo.clear()
            runs = memo[key] = list(_suit_runs(suit, held, pool_items, longest, T))
            yield from runs


def _runnable(held: int, pool_size: int, T: _Tables) -> bool:
    """Whether some window of ranks holds two of ``held`` and ``pool_size`` jokers fill
    the rest: else the suit has no run, whatever the hand's size."""
    for length, mask, _ in T.windows:
        avail = (held & mask).bit_count()
        if avail >= 2 and length - avail <= pool_size:
            return True
    return False


def _suit_runs(
    suit: int, held: int, pool_items: tuple[tuple[Card, int], ...], longest: int, T: _Tables
) -> Iterator[tuple[Card, ...]]:
    """The runs of one suit: each window of consecutive ranks, each choice of which
    held naturals to use (at least two), the cards that may act as jokers (``pool_items``,
    by count: sixteen jokers are one card sixteen times, never sixteen cards to choose
    among) in the other places."""
    seen: set[tuple[Card, ...]] = set()
    pool_size = sum(k for _, k in pool_items)
    base = suit * 13
    jack = base + JACK - 1  # the one card of the pool a run of this suit may hold as itself
    # the fills of ``need`` places, by whether that jack is used as itself (the pool is
    # then one card smaller): the same for every window and every choice of naturals
    fills: dict[tuple[int, bool], list[tuple[Card, ...]]] = {}
    for length, mask, idxs in T.windows:
        if length > longest:
            break
        avail = (held & mask).bit_count()
        if avail < 2 or length - avail > pool_size:
            continue
        codes = [base + r for r in idxs]
        places = [k for k, r in enumerate(idxs) if held >> r & 1]
        jack_place = idxs.index(JACK - 1) if JACK - 1 in idxs else -1
        for used_count in range(len(places), 1, -1):
            need = length - used_count
            if need > pool_size:
                break
            for used in itertools.combinations(places, used_count):
                holes = [k for k in range(length) if k not in used]
                as_itself = jack_place in used
                found = fills.get((need, as_itself))
                if found is None:
                    pool = [(c, k - 1 if as_itself and c == jack else k) for c, k in pool_items]
                    found = fills[need, as_itself] = list(
                        _combinations_of_counts([p for p in pool if p[1] > 0], need)
                    )
                for fill in found:
                    throw = codes.copy()
                    for k, c in zip(holes, fill, strict=True):
                        throw[k] = c
                    key = tuple(sorted(throw))
                    if key not in seen:
                        seen.add(key)
                        yield tuple(throw)
