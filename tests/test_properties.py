"""Properties of the engine over simulated games (Hypothesis)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yaniv_audit.audit import audit_log
from yaniv_audit.codec import parse_jsonl
from yaniv_audit.errors import LogFormatError
from yaniv_audit.rules import PRESETS, parse_rules
from yaniv_audit.simulate import simulate_game, to_jsonl

RULE_IDS = [*PRESETS, "israeli(slap_down=true)", "israeli(reshuffle=round_ends)",
            "israeli(pickup=ends_of_runs,pile_needs_combo=true)", "israeli(decks=2)",
            "jhyap(ace_high=true,run_wrap=true)"]
BOT_SETS = [["random"], ["greedy"], ["careful"], ["random", "greedy", "careful"]]

_cache: dict[tuple[str, int, int, int], list[dict]] = {}


def game(rules_id: str, players: int, seed: int, bots: int) -> list[dict]:
    key = (rules_id, players, seed, bots)
    if key not in _cache:
        _cache[key] = simulate_game(parse_rules(rules_id), players, BOT_SETS[bots], seed,
                                    max_rounds=6)
    return _cache[key]


games = st.tuples(st.sampled_from(RULE_IDS), st.integers(2, 6), st.integers(0, 10**6),
                  st.integers(0, len(BOT_SETS) - 1))
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def audit_events(events: list[dict], rules: str | None = None) -> dict:
    log = parse_jsonl(to_jsonl(events).encode(), "sim.jsonl")
    return audit_log(log, parse_rules(rules) if rules else None)


@FAST
@given(games)
def test_games_of_legal_moves_audit_clean(args: tuple[str, int, int, int]) -> None:
    report = audit_events(game(*args))
    assert report["verdict"] == "clean", report["findings"][:3]


@FAST
@given(games)
def test_replay_is_deterministic(args: tuple[str, int, int, int]) -> None:
    events = game(*args)
    assert audit_events(events) == audit_events(json.loads(json.dumps(events)))


MUTATIONS = ("remove", "duplicate", "swap_player", "swap_card", "swap_with_next")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.integers(1, 10**6), st.sampled_from(MUTATIONS), st.integers(0, 10**6))
def test_any_single_event_mutation_is_still_legal_or_flagged_never_a_crash(
        args: tuple[str, int, int, int], where: int, how: str, pick: int) -> None:
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


@FAST
@given(games, st.integers(0, 10**6))
def test_a_log_cut_at_any_point_audits(args: tuple[str, int, int, int], where: int) -> None:
    events = game(*args)
    cut = 1 + where % len(events)
    report = audit_events(events[:cut])
    assert report["verdict"] == "clean", report["findings"][:3]
    assert report["final"]["finished"] is False or cut == len(events) or any(
        e["type"] == "round_ended" for e in events[:cut])


HOUSE_RULES = {
    "decks": [1, 2], "jokers": [0, 1, 3], "hand_size": [4, 7], "face_values": ["ranked"],
    "joker_value": [1, 5], "wild_jacks": [True], "set_min": [3], "set_max": [3, 8],
    "run_min": [2, 4], "run_max": [4, 5], "ace_high": [True], "run_wrap": [True],
    "jokers_in_runs": [False], "jokers_in_sets": [True], "pickup": ["any", "ends_of_runs"],
    "pile_needs_combo": [True], "slap_down": [True], "joker_swap": [True],
    "reshuffle": ["round_ends"], "yaniv_max": [3, 10], "assaf_on_tie": [False],
    "assaf_multi_penalty": [20], "assaf_adds_hand": [False],
    "assaf_scoring": ["all_count", "others_zero"], "score_limit": [50, 100],
    "limit_rule": ["reach"], "game_end": ["first_out"], "starter": ["next_seat", "free"],
    "reductions": [{}, {50: 25, 100: 50, 150: 75, 200: 100}, {50: 0, 100: 50}],
}


@st.composite
def house_rules(draw):  # type: ignore[no-untyped-def]
    from yaniv_audit.errors import RulesError
    from yaniv_audit.rules import make_rules

    base = draw(st.sampled_from(list(PRESETS)))
    names = draw(st.lists(st.sampled_from(sorted(HOUSE_RULES)), unique=True, max_size=8))
    overrides = {n: draw(st.sampled_from(HOUSE_RULES[n])) for n in names}
    try:
        return make_rules(base, overrides)
    except RulesError:
        return PRESETS[base]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(house_rules(), st.integers(2, 6), st.integers(0, 10**6))
def test_games_under_any_house_rules_audit_clean(rules, players: int, seed: int) -> None:  # type: ignore[no-untyped-def]
    from yaniv_audit.simulate import SimulationError

    try:
        events = simulate_game(rules, players, ["random", "greedy", "careful"], seed,
                               max_rounds=4)
    except SimulationError:
        return  # more hands than the deck holds: refused up front
    report = audit_events(events)
    assert report["verdict"] == "clean", (rules.id, report["findings"][:2])
