from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from yaniv_audit.core.cards import (
    JOKER,
    N_CODES,
    NAMES,
    RANK,
    SUIT,
    canonical,
    card_name,
    card_values,
    deck_counts,
    deck_size,
    format_cards,
    hand_total,
    is_card_text,
    make_card,
    parse_card,
    parse_cards,
)
from yaniv_audit.core.errors import CardError
from yaniv_audit.core.rules import PRESETS, make_rules

RANK_SPELLINGS = {1: ["A"], 10: ["T", "10"], 11: ["J"], 12: ["Q"], 13: ["K"]}
RANK_SPELLINGS.update({r: [str(r)] for r in range(2, 10)})
SUIT_SPELLINGS = {0: ["C", "♣"], 1: ["D", "♦"], 2: ["H", "♥"], 3: ["S", "♠"]}


def spellings(code: int) -> list[str]:
    """Every documented way to write the card ``code``, in every case."""
    if code == JOKER:
        return ["JK", "jk", "Jk", "jK"]
    out = []
    for rank in RANK_SPELLINGS[RANK[code]]:
        for suit in SUIT_SPELLINGS[SUIT[code]]:
            text = rank + suit
            out += [text, text.lower(), rank.lower() + suit, rank + suit.lower()]
    return out


ALL_SPELLINGS = [(code, text) for code in range(N_CODES) for text in spellings(code)]


@pytest.mark.parametrize(("code", "text"), ALL_SPELLINGS)
def test_every_spelling_parses_to_its_card(code: int, text: str) -> None:
    assert parse_card(text) == code
    assert is_card_text(text)
    assert canonical(text) == NAMES[code]


def test_canonical_form_is_upper_case_with_t_for_ten() -> None:
    assert canonical("10h") == "TH"
    assert canonical("t♠") == "TS"
    assert canonical("q♦") == "QD"
    assert canonical("jk") == "JK"
    assert card_name(parse_card("a♣")) == "AC"
    assert format_cards(parse_cards(["10d", "JK", "2♥"])) == "TD JK 2H"


def test_codes_are_suit_major_and_joker_last() -> None:
    assert parse_card("AC") == 0 and parse_card("KC") == 12
    assert parse_card("AD") == 13 and parse_card("KS") == 51
    assert parse_card("JK") == JOKER == 52
    assert make_card(10, 2) == parse_card("TH")
    assert len(set(NAMES)) == N_CODES == 53


@given(st.sampled_from(ALL_SPELLINGS))
def test_card_name_of_parse_card_is_the_canonical_spelling(pair: tuple[int, str]) -> None:
    code, text = pair
    assert card_name(parse_card(text)) == NAMES[code]
    assert parse_card(card_name(parse_card(text))) == code


@given(st.integers(0, N_CODES - 1))
def test_parse_card_of_card_name_is_the_code(code: int) -> None:
    assert parse_card(card_name(code)) == code


@pytest.mark.parametrize("text", ["5X", "1H", "11H", "0S", "JKK", "", "H5", "joker", "10", "♥"])
def test_unknown_cards_give_an_error_naming_the_text(text: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)
    assert "JK" in str(info.value)  # says what a card looks like
    assert not is_card_text(text)


def test_values_flat_and_ranked() -> None:
    flat = card_values(PRESETS["israeli"])
    assert [flat[parse_card(t)] for t in ["AS", "5H", "TC", "JD", "QH", "KS", "JK"]] == [
        1,
        5,
        10,
        10,
        10,
        10,
        0,
    ]
    ranked = card_values(make_rules("israeli", {"face_values": "ranked"}))
    assert [ranked[parse_card(t)] for t in ["TC", "JD", "QH", "KS"]] == [10, 11, 12, 13]


def test_joker_value_and_wild_jacks() -> None:
    values = card_values(make_rules("israeli", {"joker_value": 3}))
    assert values[JOKER] == 3
    jhyap = card_values(PRESETS["jhyap"])
    assert jhyap[parse_card("JH")] == 0 and jhyap[parse_card("QH")] == 10
    ranked_wild = card_values(
        make_rules(
            "israeli",
            {
                "wild_jacks": True,
                "face_values": "ranked",
                "joker_value": 1,
            },
        )
    )
    # a wild jack is worth joker_value, whatever face_values says
    assert ranked_wild[parse_card("JS")] == 1 and ranked_wild[parse_card("QS")] == 12


def test_hand_total() -> None:
    values = card_values(PRESETS["israeli"])
    assert hand_total(parse_cards(["AS", "2S", "JK", "KD"]), values) == 13


@pytest.mark.parametrize(
    ("overrides", "size", "jokers"),
    [
        ({}, 54, 2),
        ({"jokers": 0}, 52, 0),
        ({"jokers": 3}, 55, 3),
        ({"decks": 2}, 108, 4),
        ({"decks": 2, "jokers": 0}, 104, 0),
    ],
)
def test_deck_counts(overrides: dict[str, int], size: int, jokers: int) -> None:
    rules = make_rules("israeli", overrides)
    counts = deck_counts(rules)
    assert len(counts) == N_CODES
    assert counts[JOKER] == jokers
    assert set(counts[:52]) == {rules.decks}
    assert deck_size(rules) == size
