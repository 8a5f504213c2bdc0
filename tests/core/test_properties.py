"""Properties of the engine over simulated games (Hypothesis).

The main properties run over every recording style of the simulator
(``full``, ``no_stock``, ``no_upcard``, ``hands_only``, ``scoresheet``,
``mixed``) crossed with every preset and every house variant in
:data:`VARIANTS` (each on a preset Hypothesis picks), a few examples per
case so that the whole suite stays quick.

The long sweep: ``YANIV_AUDIT_LONG=1 .venv/bin/python -m pytest
tests/core/test_properties.py`` runs every property with :data:`LONG_FACTOR`
times as many examples and longer games (about 30 times the default run's
time: some 20 minutes instead of 40 seconds on two cores).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import LONG
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from yaniv_audit.batch.simulate import RECORD_STYLES, simulate_game, to_jsonl
from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.cards import NAMES
from yaniv_audit.core.engine import Replay
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.rules import PRESETS, parse_rules
from yaniv_audit.io.codec import parse_jsonl

LONG_FACTOR = 25
MAX_ROUNDS = 12 if LONG else 6

#: house variants, each played on a preset that Hypothesis chooses
VARIANTS = (
    "slap_down=true",
    "decks=2",
    "hand_size=7",
    "reshuffle=round_ends",
    "run_wrap=true",
    "joker_swap=true",
    "wild_jacks=true",
    "pile_needs_combo=true",
    "game_end=rounds,rounds=3",
    "game_end=first_out",
    "pickup=ends_of_runs,pile_needs_combo=true",
    "ace_high=true,run_wrap=true",
    "starter=caller",
)
#: every preset as it is, and every variant
CASES = [*PRESETS, *VARIANTS]
#: every recording style crossed with every case in the long sweep; by default each case
#: under two styles, in turn (the n-th case under the n-th style and the one three on),
#: so that every style still meets six or seven cases in each property
STYLE_CASES = (
    [(style, case) for style in RECORD_STYLES for case in CASES]
    if LONG
    else [
        (RECORD_STYLES[(n + turn) % len(RECORD_STYLES)], case)
        for n, case in enumerate(CASES)
        for turn in (0, 3)
    ]
)
BOT_SETS = [["random"], ["greedy"], ["careful"], ["random", "greedy", "careful"]]

Events = list[dict[str, Any]]
Game = tuple[str, int, int, int, str]  # rules id, players, seed, bot set, recording style
_cache: dict[Game, Events] = {}


def simulate(rules_id: str, players: int, seed: int, bots: int, style: str) -> list[dict[str, Any]]:
    return simulate_game(
        parse_rules(rules_id), players, BOT_SETS[bots], seed, max_rounds=MAX_ROUNDS, record=style
    )


def game(rules_id: str, players: int, seed: int, bots: int, style: str = "full") -> Events:
    key = (rules_id, players, seed, bots, style)
    if key not in _cache:
        _cache[key] = simulate(*key)
    return _cache[key]


def rule_sets(case: str) -> st.SearchStrategy[str]:
    """The preset itself, or the variant on any preset."""
    if case in PRESETS:
        return st.just(case)
    return st.sampled_from(list(PRESETS)).map(lambda preset: f"{preset}({case})")


def games(case: str, style: str | st.SearchStrategy[str]) -> st.SearchStrategy[Game]:
    styles = style if isinstance(style, st.SearchStrategy) else st.just(style)
    return st.tuples(
        rule_sets(case),
        st.integers(2, 6),
        st.integers(0, 10**6),
        st.integers(0, len(BOT_SETS) - 1),
        styles,
    )


def any_games() -> st.SearchStrategy[Game]:
    return st.sampled_from(CASES).flatmap(lambda case: games(case, st.sampled_from(RECORD_STYLES)))


def examples(n: int) -> settings:
    """``n`` examples (times LONG_FACTOR in the long sweep), without shrinking: a smaller
    seed is another game, not a simpler one, and shrinking re-plays game after game."""
    return settings(
        max_examples=n * LONG_FACTOR if LONG else n,
        deadline=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
    )


def audit_events(events: list[dict[str, Any]], rules: str | None = None) -> dict[str, Any]:
    log = parse_jsonl(to_jsonl(events).encode(), "sim.jsonl")
    return audit_log(log, parse_rules(rules) if rules else None)


def ruling(report: dict[str, Any]) -> dict[str, Any]:
    """What a table takes from an audit: the verdict, the findings, the rounds, the result."""
    return {
        "verdict": report["verdict"],
        "findings": [(f["seq"], f["code"]) for f in report["findings"]],
        "rounds": report["rounds"],
        "final": report["final"],
    }


def test_every_variant_is_a_rule_set_on_every_preset() -> None:
    for case in VARIANTS:
        for preset in PRESETS:
            parse_rules(f"{preset}({case})")


@pytest.mark.parametrize(("style", "case"), STYLE_CASES)
@examples(2)
@given(data=st.data())
def test_games_of_legal_moves_audit_clean(style: str, case: str, data: st.DataObject) -> None:
    args = data.draw(games(case, style))
    report = audit_events(game(*args))
    assert report["verdict"] == "clean", report["findings"][:3]


@pytest.mark.parametrize("style", RECORD_STYLES)
@examples(6)
@given(data=st.data())
def test_every_style_gives_the_full_records_scores(style: str, data: st.DataObject) -> None:
    args = data.draw(st.sampled_from(CASES).flatmap(lambda case: games(case, style)))
    full = audit_events(game(*args[:4]))
    written = audit_events(game(*args))

    def scores(report: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
        rounds = [{k: v for k, v in r.items() if k != "moves_checked"} for r in report["rounds"]]
        return rounds, report["final"]

    assert scores(written) == scores(full)


@pytest.mark.parametrize("style", RECORD_STYLES)
@examples(4)
@given(data=st.data())
def test_simulation_and_replay_are_deterministic(style: str, data: st.DataObject) -> None:
    args = data.draw(st.sampled_from(CASES).flatmap(lambda case: games(case, style)))
    events = game(*args)
    assert to_jsonl(simulate(*args)) == to_jsonl(events)  # the same bytes again
    assert audit_events(events) == audit_events(json.loads(json.dumps(events)))


MUTATIONS = ("remove", "duplicate", "swap_player", "swap_card", "swap_with_next", "drop_field")
OPTIONAL = ("upcard", "stock", "card", "hands", "swap", "points", "scores", "total")


@pytest.mark.parametrize(("style", "case"), STYLE_CASES)
@examples(3)
@given(
    data=st.data(),
    where=st.integers(1, 10**6),
    how=st.sampled_from(MUTATIONS),
    pick=st.integers(0, 10**6),
)
def test_any_single_event_mutation_is_still_legal_or_flagged_never_a_crash(
    style: str, case: str, data: st.DataObject, where: int, how: str, pick: int
) -> None:
    args = data.draw(games(case, style))
    events = [dict(e) for e in game(*args)]
    i = 1 + where % (len(events) - 1)
    event = events[i]
    players = events[0]["players"]
    if how == "remove":
        del events[i]
    elif how == "duplicate":
        events.insert(i, dict(event))
    elif how == "swap_with_next" and i + 1 < len(events):
        events[i], events[i + 1] = events[i + 1], events[i]
    elif how == "swap_player" and "player" in event:
        event["player"] = players[pick % len(players)]
    elif how == "swap_card" and ("card" in event or "cards" in event):
        deck = [r + s for r in "A23456789TJQK" for s in "CDHS"] + ["JK"]
        if "card" in event:
            event["card"] = deck[pick % len(deck)]
        else:
            event["cards"] = [deck[(pick + k) % len(deck)] for k in range(len(event["cards"]))]
    elif how == "drop_field":
        present = [f for f in OPTIONAL if f in event]
        if present:
            del event[present[pick % len(present)]]
    for e in events:  # keep seq in place so that the structure stays readable
        e.pop("seq", None)
    try:
        log = parse_jsonl(to_jsonl(events).encode(), "mutated.jsonl")
    except LogFormatError:
        return  # unreadable: the validator caught it with a message, no crash
    try:
        report = audit_log(log)
    except LogFormatError:
        return
    original = audit_events([{k: v for k, v in e.items() if k != "seq"} for e in game(*args)])
    if report["verdict"] == "clean":
        return
    assert report["findings"], report
    first = min(f["seq"] for f in report["findings"])
    assert first >= i - 1 or original["verdict"] != "clean", (how, i, report["findings"][:2])


def strip_optional(events: Events, rnd: random.Random) -> tuple[Events, set[str]]:
    """A full log with optional information taken out at random.

    The upcard and a round's stock may go; a reshuffle's stock may go; a stock
    draw's card may go, but only where what is left of the log still fixes
    the stock's order (docs/log-format.md: every other stock draw names its
    card). Returns the log and the kinds of information that were taken out.
    """
    out: list[dict[str, Any]] = []
    taken: set[str] = set()
    known = False  # does the stripped log fix the stock's order here?
    for event in events:
        e = dict(event)
        kind = e["type"]
        if kind == "round_started":
            if "upcard" in e and rnd.random() < 0.5:
                del e["upcard"]
                taken.add("upcard")
            if "stock" in e and rnd.random() < 0.4:
                del e["stock"]
                taken.add("stock")
            known = "stock" in e
        elif kind == "reshuffle":
            if "stock" in e and rnd.random() < 0.5:
                del e["stock"]
                taken.add("reshuffle stock")
            known = "stock" in e
        elif kind == "draw" and e["source"] == "stock":
            if known and rnd.random() < 0.5:
                del e["card"]
                taken.add("draw card")
            assert known or "card" in e, "a full log names every stock draw's card"
        out.append(e)
    return out, taken


@pytest.mark.parametrize("case", CASES)
@examples(4)
@given(data=st.data(), strip_seed=st.integers(0, 2**32 - 1))
def test_leaving_out_optional_information_does_not_change_the_ruling(
    case: str, data: st.DataObject, strip_seed: int
) -> None:
    args = data.draw(games(case, "full"))
    events = game(*args)
    stripped, taken = strip_optional(events, random.Random(strip_seed))
    assert ruling(audit_events(stripped)) == ruling(audit_events(events)), sorted(taken)


@examples(25)
@given(any_games(), st.integers(0, 10**6))
def test_a_log_cut_at_any_point_audits(args: Game, where: int) -> None:
    events = game(*args)
    cut = 1 + where % len(events)
    report = audit_events(events[:cut])
    assert report["verdict"] == "clean", report["findings"][:3]
    assert (
        report["final"]["finished"] is False
        or cut == len(events)
        or any(e["type"] == "round_ended" for e in events[:cut])
    )


HOUSE_RULES: dict[str, list[Any]] = {
    "decks": [1, 2],
    "jokers": [0, 1, 3],
    "hand_size": [4, 7],
    "face_values": ["ranked"],
    "joker_value": [1, 5],
    "wild_jacks": [True],
    "set_min": [3],
    "set_max": [3, 8],
    "run_min": [2, 4],
    "run_max": [4, 5],
    "ace_high": [True],
    "run_wrap": [True],
    "jokers_in_runs": [False],
    "jokers_in_sets": [True],
    "pickup": ["any", "ends_of_runs"],
    "pile_needs_combo": [True],
    "slap_down": [True],
    "joker_swap": [True],
    "reshuffle": ["round_ends"],
    "yaniv_max": [3, 10],
    "assaf_on_tie": [False],
    "assaf_multi_penalty": [20],
    "assaf_adds_hand": [False],
    "assaf_scoring": ["all_count", "others_zero"],
    "score_limit": [50, 100],
    "limit_rule": ["reach"],
    "game_end": ["first_out"],
    "starter": ["next_seat", "free"],
    "reductions": [{}, {50: 25, 100: 50, 150: 75, 200: 100}, {50: 0, 100: 50}],
}


@st.composite
def house_rules(draw):  # type: ignore[no-untyped-def]
    from yaniv_audit.core.errors import RulesError
    from yaniv_audit.core.rules import make_rules

    base = draw(st.sampled_from(list(PRESETS)))
    names = draw(st.lists(st.sampled_from(sorted(HOUSE_RULES)), unique=True, max_size=8))
    overrides = {n: draw(st.sampled_from(HOUSE_RULES[n])) for n in names}
    try:
        return make_rules(base, overrides)
    except RulesError:
        return PRESETS[base]


@examples(30)
@given(house_rules(), st.integers(2, 6), st.integers(0, 10**6), st.sampled_from(RECORD_STYLES))
def test_games_under_any_house_rules_audit_clean(
    rules,
    players: int,
    seed: int,  # type: ignore[no-untyped-def]
    style: str,
) -> None:
    from yaniv_audit.batch.simulate import SimulationError

    try:
        events = simulate_game(
            rules, players, ["random", "greedy", "careful"], seed, max_rounds=4, record=style
        )
    except SimulationError:
        return  # more hands than the deck holds: refused up front
    report = audit_events(events)
    assert report["verdict"] == "clean", (rules.id, style, report["findings"][:2])


def is_entry(event: dict[str, Any]) -> bool:
    """An event a withdrawal may take back (docs/log-format.md, "Withdrawals")."""
    return event["type"] not in ("game_started", "note", "withdraw")


def with_a_withdrawal(
    events: Events, where: int, size: int, slip: bool, pick: int
) -> tuple[Events, list[int], int]:
    """The log with ``size`` entries from a point written, taken back by a ``withdraw``
    and written again, as a table does ("no wait"); with ``slip``, the first of them was
    first written with another card. Returns the log, the positions taken back and the
    withdrawal's position (the events carry no ``seq``: positions name them)."""
    plain = [{k: v for k, v in e.items() if k != "seq"} for e in events]
    i = 1 + where % (len(plain) - 1)
    block = []
    for e in plain[i : i + size]:
        if not is_entry(e):
            break
        block.append(e)
    if not block:
        return plain, [], -1
    written = [dict(e) for e in block]
    if slip:
        deck = [r + s for r in "A23456789TJQK" for s in "CDHS"] + ["JK"]
        first = written[0]
        if "card" in first:
            first["card"] = deck[pick % len(deck)]
        elif "cards" in first:
            first["cards"] = [deck[(pick + k) % len(deck)] for k in range(len(first["cards"]))]
    taken = list(range(i, i + len(block)))
    withdraw = {
        "type": "withdraw",
        "seqs": taken[::-1] if pick % 2 else taken,
        "reason": "written by mistake",
    }
    return [*plain[:i], *written, withdraw, *block, *plain[i + len(block) :]], taken, i + len(block)


@pytest.mark.parametrize(("style", "case"), STYLE_CASES)
@examples(2)
@given(
    data=st.data(),
    where=st.integers(1, 10**6),
    size=st.integers(1, 4),
    slip=st.booleans(),
    pick=st.integers(0, 10**6),
)
def test_an_entry_taken_back_and_written_again_leaves_the_ruling(
    style: str, case: str, data: st.DataObject, where: int, size: int, slip: bool, pick: int
) -> None:
    """A withdrawal of the latest entries, written again after it, reads as the log without
    them: a clean game stays clean with the same rounds and result, even when the entry
    taken back was impossible (a slip of the pen)."""
    args = data.draw(games(case, style))
    events = game(*args)
    retaken, taken, by = with_a_withdrawal(events, where, size, slip, pick)
    report = audit_events(retaken)
    assert ruling(report) == ruling(audit_events(events)), (taken, report["findings"][:2])
    assert report.get("withdrawn", []) == [{"seq": s, "by": by} for s in taken]


@pytest.mark.parametrize(("style", "case"), STYLE_CASES)
@examples(2)
@given(data=st.data(), where=st.integers(2, 10**6))
def test_a_withdrawal_naming_an_older_entry_is_log_withdraw_and_takes_nothing_back(
    style: str, case: str, data: st.DataObject, where: int
) -> None:
    args = data.draw(games(case, style))
    events = [{k: v for k, v in e.items() if k != "seq"} for e in game(*args)]
    at = 2 + where % (len(events) - 1)  # the withdrawal's position: after two entries
    if not (is_entry(events[at - 1]) and is_entry(events[at - 2])):
        return
    wrong = [*events[:at], {"type": "withdraw", "seqs": [at - 2]}, *events[at:]]
    report = audit_events(wrong)
    assert [(f["seq"], f["code"]) for f in report["findings"]] == [(at, "log.withdraw")]
    assert "withdrawn" not in report
    original = audit_events(events)
    assert (report["rounds"], report["final"]) == (original["rounds"], original["final"])


#: every preset where the caller opens the next round (even when Assafed), with and
#: without slap-down
CALLER_RULES = [
    f"{preset}(starter=caller{slap})" for preset in PRESETS for slap in ("", ",slap_down=true")
]


@pytest.mark.parametrize("style", RECORD_STYLES)
@pytest.mark.parametrize("rules_id", CALLER_RULES)
def test_games_where_the_caller_opens_audit_clean(rules_id: str, style: str) -> None:
    """Games long enough for a caller to be Assafed (the caller opens all the same), of 2 to
    6 players, a seed and player count of their own for each rule set and style (not
    Hypothesis: its first example, the same for every case, is a 2-player game)."""
    case = CALLER_RULES.index(rules_id) * len(RECORD_STYLES) + RECORD_STYLES.index(style)
    for k in range(3 if LONG else 1):
        seed = 7919 * case + 104729 * k + 1
        report = audit_events(game(rules_id, 2 + seed % 5, seed, len(BOT_SETS) - 1, style))
        assert report["verdict"] == "clean", (seed, report["findings"][:3])


#: the styles that record moves (a mixed log's scoresheet rounds have none: skipped)
MOVE_STYLES = [style for style in RECORD_STYLES if style != "scoresheet"]
MOVES_IN_PLAY = {"discard", "draw", "slap", "reshuffle"}


def with_a_slap(events: Events, where: int, pick: int) -> tuple[Events, int] | None:
    """The log with a slap that is not allowed written at a point where a round is in play,
    by a player still in, of a card they hold then and do not throw later in the round
    (so that the rest of the log stays possible). None where there is no such slap."""
    plain = [{k: v for k, v in e.items() if k != "seq"} for e in events]
    places = [
        i
        for i in range(2, len(plain))
        if plain[i - 1]["type"] in MOVES_IN_PLAY
        or (plain[i - 1]["type"] == "round_started" and "hands" in plain[i - 1])
    ]
    if not places:
        return None
    at = places[where % len(places)]
    log = parse_jsonl(to_jsonl(plain).encode(), "game.jsonl")
    replay = Replay(log.game, log.game.rules)
    for event in log.events[:at]:
        replay.apply(event)
    r = replay.round
    assert r is not None and r.moves_checked
    later: dict[str, set[str]] = {}
    for e in plain[at:]:
        if e["type"] == "round_started":
            break
        thrown = later.setdefault(e.get("player", ""), set())
        thrown.update(e.get("cards", ()))
        thrown.update(e[key] for key in ("card", "swap") if key in e and e["type"] != "draw")
        if e["type"] == "draw" and "swap" in e:
            thrown.add(e["swap"])
    players = [p for p in r.rotation if p not in replay.out]
    for k in range(len(players)):
        p = players[(pick + k) % len(players)]
        legal = replay.rules.slap_down and r.phase == 2 and p == r.current and r.drew_from_stock
        cards = [
            c
            for c in r.hands.get(p, ())
            if NAMES[c] not in later.get(p, ()) and not (legal and c == r.last_drawn)
        ]
        if cards:
            slap = {"type": "slap", "player": p, "card": NAMES[cards[pick % len(cards)]]}
            return [*plain[:at], slap, *plain[at:]], at
    return None


@pytest.mark.parametrize("preset", list(PRESETS))
@examples(3)
@given(
    data=st.data(), slap_down=st.booleans(), where=st.integers(0, 10**6), pick=st.integers(0, 10**6)
)
def test_a_slap_that_is_not_allowed_is_one_finding_and_takes_no_turn(
    preset: str, data: st.DataObject, slap_down: bool, where: int, pick: int
) -> None:
    """docs/log-format.md, "Slaps that are not allowed": one slap.not_allowed at the slap,
    and whoever's turn it was goes on (no turn.* finding anywhere). What the missing card
    changes later (a shown hand, the points) may be a claim."""
    rules_id = f"{preset}(slap_down={'true' if slap_down else 'false'})"
    args = data.draw(
        st.tuples(
            st.just(rules_id),
            st.integers(2, 6),
            st.integers(0, 10**6),
            st.integers(0, len(BOT_SETS) - 1),
            st.sampled_from(MOVE_STYLES),
        )
    )
    slapped = with_a_slap(game(*args), where, pick)
    if slapped is None:
        return
    events, at = slapped
    report = audit_events(events)
    found = [(f["seq"], f["code"]) for f in report["findings"]]
    assert [f for f in found if f[1] == "slap.not_allowed"] == [(at, "slap.not_allowed")], found
    assert not [f for f in found if f[1].startswith("turn.")], found
    assert all(seq >= at for seq, _ in found), found


def test_a_refused_slap_leaves_the_card_just_drawn_to_slap() -> None:
    """Found by the property above: ana draws 9H from the stock, slaps KH (refused: not
    the card drawn), then slaps 9H. The refused slap changes nothing else, so the 9H slap
    is allowed: one slap.not_allowed, at the KH."""
    plain = game("namu(slap_down=true)", 3, 7621, 0, "full")
    slapped = with_a_slap(plain, 540, 0)
    assert slapped is not None
    events, at = slapped
    assert events[at]["card"] == "KH" and events[at + 1] == {**events[at + 1], "card": "9H"}
    report = audit_events(events)
    refused = [(f["seq"], f["code"]) for f in report["findings"] if f["code"].startswith("slap.")]
    assert refused == [(at, "slap.not_allowed")]
