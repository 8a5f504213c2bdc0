from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yaniv_audit.core.errors import RulesError
from yaniv_audit.core.rules import (
    PARAMS,
    PRESETS,
    RuleSet,
    make_rules,
    parse_rules,
)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips_through_its_id(name: str) -> None:
    rules = PRESETS[name]
    assert rules.id == name
    assert parse_rules(rules.id) == rules
    assert parse_rules(f" {name} ( ) ") == rules


def test_presets_differ_as_rules_md_says() -> None:
    assert PRESETS["classic"].yaniv_max == 5
    assert PRESETS["cardgames-zone"] == PRESETS["israeli"]
    namu = PRESETS["namu"]
    assert (namu.jokers, namu.pickup, namu.run_max, namu.limit_rule) == (0, "any", 5, "reach")
    assert namu.reductions == () and namu.game_end == "first_out"
    assert PRESETS["de-wiki"].assaf_multi_penalty == 20 and PRESETS["de-wiki"].joker_swap
    assert PRESETS["mcleod"].assaf_scoring == "all_count"
    assert PRESETS["jhyap"].wild_jacks and PRESETS["jhyap"].score_limit == 100


def test_id_sorts_overrides_and_drops_values_equal_to_the_preset() -> None:
    r = parse_rules('israeli(yaniv_max=5, assaf_penalty=50, pickup="any", jokers=2)')
    assert r.id == "israeli(assaf_penalty=50,pickup=any,yaniv_max=5)"
    assert parse_rules("classic(yaniv_max=7)").id == "classic(yaniv_max=7)"
    assert parse_rules("classic(yaniv_max=5)").id == "classic"


def test_tables_accept_json_spelling_and_print_keys_ascending() -> None:
    r = parse_rules('israeli(reductions={"200": 150, "100": 50, "150": 100})')
    assert r.reductions == ((100, 50), (150, 100), (200, 150))
    assert r.id == "israeli(reductions={100:50,150:100,200:150})"
    assert parse_rules("israeli(reductions={})").id == "israeli(reductions={})"
    assert r.params()["reductions"] == {"100": 50, "150": 100, "200": 150}


def test_equal_parameters_are_equal_rules_whatever_the_name() -> None:
    a, b = parse_rules("cardgames-zone"), parse_rules("israeli")
    assert a == b and hash(a) == hash(b) and a.id != b.id
    assert parse_rules("israeli(yaniv_max=5)") == PRESETS["classic"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yaniv", "unknown preset"),
        ("israeli(colour=red)", 'unknown rule parameter "colour"'),
        ("israeli(yaniv_max=true)", "yaniv_max: expected a whole number"),
        ("israeli(ace_high=1)", "ace_high: expected true or false"),
        ("israeli(pickup=middle)", "pickup: expected one of ends, any, ends_of_runs"),
        ("israeli(set_min=5)", "set_min=5 is above set_max=4"),
        ("israeli(run_min=4,run_max=3)", "run_max=3 is below run_min=4"),
        ("israeli(game_end=rounds)", "game_end=rounds needs rounds"),
        ("israeli(assaf_penalty=-1)", "assaf_penalty"),
        ("israeli(reductions={100:150})", "100 drops to 150"),
        ("israeli(reductions={x:1})", "key"),
        ("israeli(yaniv_max=5,yaniv_max=6)", "given twice"),
        ("israeli(yaniv_max)", "expected parameter=value"),
        ("israeli(", "not a rule-set id"),
        ("israeli(score_limit=2.5)", "score_limit"),
    ],
)
def test_bad_rule_sets_are_refused_naming_the_parameter(text: str, expected: str) -> None:
    with pytest.raises(RulesError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        parse_rules(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("israeli(decks=10000000)", "decks: expected a whole number from 1 to 4, got 10000000"),
        ("israeli(decks=5)", "decks: expected a whole number from 1 to 4"),
        ("israeli(jokers=9)", "jokers: expected a whole number from 0 to 8"),
        ("israeli(hand_size=31)", "hand_size: expected a whole number from 1 to 30"),
        ("israeli(set_max=49)", "set_max: expected a whole number from 2 to 48"),
        ("israeli(run_max=15)", "run_max: expected a whole number from 2 to 14 or null"),
        ("israeli(rounds=1001,game_end=rounds)", "rounds: expected a whole number from 1 to 1000"),
        ("israeli(score_limit=100000)", "score_limit: expected a whole number from 1 to 99999"),
        (
            "israeli(assaf_penalty=9223372036854775808)",
            "assaf_penalty: expected a whole number from 0 to 99999, got 9223372036854775808",
        ),
        ("israeli(joker_value=100000)", "joker_value: expected a whole number from 0 to 99999"),
        ("israeli(reductions={100000:1})", "reductions: key 100000 is not a score"),
        ("israeli(decks=1e23)", 'decks: expected a whole number from 1 to 4, got "1e23"'),
        ("israeli(yaniv_max=" + "9" * 5000 + ")", "yaniv_max: expected a whole number from 0"),
        ("israeli(reductions={" + "9" * 5000 + ":1})", "reductions: key"),
    ],
)
def test_every_number_has_a_range_and_beyond_it_is_refused_with_the_range(
    text: str, expected: str
) -> None:
    """A rule set of ten million decks took 4.3 GB before anything refused it (issue 27);
    a number of 2**63 or more made every JSON answer fail; 5,000 digits made int() fail."""
    with pytest.raises(RulesError) as caught:
        parse_rules(text)
    assert expected in str(caught.value)
    assert len(str(caught.value)) < 200  # a long number is not repeated whole


def test_the_ends_of_every_range_are_accepted() -> None:
    for param in PARAMS:
        if param.kind != "int":
            continue
        for value in (param.minimum, param.maximum):
            overrides = {param.name: value}
            if param.name == "rounds":
                overrides["game_end"] = "rounds"
            if param.name in ("set_min", "run_min"):  # with a maximum at least as high
                overrides[param.name.replace("min", "max")] = value
            if param.name in ("set_max", "run_max"):  # with a minimum at most as high
                overrides[param.name.replace("max", "min")] = 2
            assert getattr(make_rules("israeli", overrides), param.name) == value
    assert make_rules("israeli", {"reductions": {"99999": 99998}}).reductions == ((99999, 99998),)


def _value_strategy(param):  # type: ignore[no-untyped-def]
    if param.kind == "bool":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "table":
        return st.dictionaries(st.integers(1, 400), st.integers(0, 399), max_size=5).map(
            lambda d: {k: min(v, k - 1) for k, v in d.items()}
        )
    ints = st.integers(param.minimum, min(param.maximum, param.minimum + 30))
    return st.one_of(st.none(), ints) if param.nullable else ints


@st.composite
def rule_sets(draw):  # type: ignore[no-untyped-def]
    base = draw(st.sampled_from(list(PRESETS)))
    chosen = draw(st.lists(st.sampled_from(PARAMS), unique_by=lambda p: p.name, max_size=8))
    overrides = {p.name: draw(_value_strategy(p)) for p in chosen}
    try:
        return make_rules(base, overrides)
    except RulesError:
        return PRESETS[base]


@given(rule_sets())
def test_parse_of_id_gives_back_the_rule_set(rules: RuleSet) -> None:
    again = parse_rules(rules.id)
    assert again == rules
    assert again.id == rules.id
    assert parse_rules(" ".join(rules.id)) == rules  # white space is ignored
