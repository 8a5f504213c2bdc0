from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yaniv_audit.core.cards import parse_card
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.events import (
    EVENT_TYPES,
    Discard,
    Event,
    GameEndedWire,
    GameStarted,
    GameStartedWire,
    Note,
)
from yaniv_audit.core.rules import PRESETS
from yaniv_audit.core.structure import (
    Problem,
    StructureCheck,
    all_seated,
    check_players,
    check_seq,
    first_problem,
    named_players,
)
from yaniv_audit.io.codec import event_from_dict, parse_json_array, parse_jsonl, read_log

GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", "lior", "omer"],
    "rules": "israeli",
}
HANDS = {"dana": ["5H", "5C"], "lior": ["2D", "3D"], "omer": ["KS", "QS"]}
DEAL = {
    "type": "round_started",
    "round": 1,
    "starter": "dana",
    "hands": HANDS,
    "upcard": "7D",
    "stock": ["9H", "8H"],
}
SHEET = {"type": "round_started", "round": 1, "starter": "dana"}  # no moves recorded
THROW = {"type": "discard", "player": "dana", "cards": ["5H"]}
DRAW = {"type": "draw", "player": "dana", "source": "stock", "card": "9H"}
SEATS = '(the players are "dana", "lior", "omer")'


def typed(raws: list[dict[str, Any]]) -> list[Event]:
    return [event_from_dict(raw, i, i + 1) for i, raw in enumerate(raws)]


def problem(raws: list[dict[str, Any]]) -> Problem | None:
    return first_problem(typed(raws))


def unreadable(raws: list[dict[str, Any]]) -> LogFormatError:
    """The error read_log gives for the same events as a .jsonl file."""
    data = "".join(json.dumps(r) + "\n" for r in raws).encode()
    with pytest.raises(LogFormatError) as info:
        parse_jsonl(data, "t.jsonl")
    return info.value


def test_a_well_formed_log_has_no_problem() -> None:
    raws = [
        GAME,
        DEAL,
        THROW,
        DRAW,
        {"type": "slap", "player": "dana", "card": "9H"},
        {"type": "discard", "player": "lior", "cards": ["2D"]},
        {"type": "draw", "player": "lior", "source": "pile", "card": "5H"},
        {"type": "yaniv", "player": "omer"},
        {"type": "showdown", "caller": "omer", "hands": HANDS},
        {"type": "round_ended", "round": 1, "points": {"dana": 5}, "scores": {"omer": 0}},
        {"type": "note", "text": "late", "player": "lior"},
        {**SHEET, "round": 2, "dealer": "lior"},
        {"type": "showdown", "caller": None, "hands": {"dana": []}},
        {"type": "round_ended", "round": 2},
        {"type": "game_ended", "winner": ["omer", "dana"], "scores": {"lior": 3}},
    ]
    assert problem(raws) is None
    assert len(parse_jsonl("".join(json.dumps(r) + "\n" for r in raws).encode(), "t").events) == 15


# --- the game ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "first", [DEAL, THROW, {"type": "note", "text": "before the game"}, {"type": "game_ended"}]
)
def test_the_first_event_must_be_game_started(first: dict[str, Any]) -> None:
    found = problem([first, GAME])
    assert found is not None and found.event is not None and found.event.index == 0
    assert (
        found.message
        == f"{first['type']}: the first event must be game_started, got " + (first["type"])
    )
    err = unreadable([first, GAME])
    assert (err.line, err.index) == (1, 0)


def test_there_is_only_one_game_started() -> None:
    err = unreadable([GAME, DEAL, GAME])
    assert str(err) == "line 3: game_started: a log holds one game, and it started at line 1"
    assert (err.line, err.index, err.messages) == (3, 2, {})


def test_an_empty_log_has_a_problem_without_an_event() -> None:
    found = first_problem([])
    assert found == Problem(None, None, "no events; a log starts with a game_started event")
    assert found.message == found.text


@pytest.mark.parametrize(
    ("players", "expected"),
    [
        (["dana", "omer"], None),
        ([f"p{i}" for i in range(8)], None),
        (["dana"], ("players", "expected 2 to 8 players, got 1")),
        ([f"p{i}" for i in range(9)], ("players", "expected 2 to 8 players, got 9")),
        (["dana", "omer", "dana"], ("players.2", '"dana" is seated twice')),
    ],
)
def test_players_are_2_to_8_and_unique(players: list[str], expected: Any) -> None:
    assert check_players(players) == expected


def test_a_player_seated_twice_is_unreadable_even_as_an_object() -> None:
    err = unreadable([{**GAME, "players": ["dana", "omer", {"id": "dana", "name": "D2"}]}])
    assert str(err) == 'line 1: game_started: field "players.2": "dana" is seated twice'
    assert err.messages == {"players.2": ['"dana" is seated twice']}


def test_typed_events_from_elsewhere_are_checked_for_the_player_count() -> None:
    game = GameStarted("yaniv-log/1", tuple("abcdefghi"), {}, PRESETS["israeli"], index=0)
    found = first_problem([game])
    assert found is not None and found.message == (
        'game_started: field "players": expected 2 to 8 players, got 9'
    )


# --- seated players -----------------------------------------------------------


@pytest.mark.parametrize(
    ("event", "field"),
    [
        ({**DEAL, "starter": "zoe"}, "starter"),
        ({**DEAL, "dealer": "zoe"}, "dealer"),
        ({**DEAL, "hands": {**HANDS, "zoe": []}}, "hands.zoe"),
        ({**THROW, "player": "zoe"}, "player"),
        ({**DRAW, "player": "zoe"}, "player"),
        ({"type": "slap", "player": "zoe", "card": "9H"}, "player"),
        ({"type": "yaniv", "player": "zoe"}, "player"),
        ({"type": "showdown", "caller": "zoe", "hands": {}}, "caller"),
        ({"type": "showdown", "caller": "dana", "hands": {"zoe": []}}, "hands.zoe"),
        ({"type": "round_ended", "round": 1, "points": {"zoe": 3}}, "points.zoe"),
        ({"type": "round_ended", "round": 1, "scores": {"dana": 1, "zoe": 3}}, "scores.zoe"),
        ({"type": "game_ended", "winner": "zoe"}, "winner.0"),
        ({"type": "game_ended", "winner": ["dana", "zoe"]}, "winner.1"),
        ({"type": "game_ended", "scores": {"zoe": 3}}, "scores.zoe"),
        ({"type": "note", "text": "hi", "player": "zoe"}, "player"),
    ],
)
def test_every_player_naming_field_must_name_a_seated_player(
    event: dict[str, Any], field: str
) -> None:
    raws = [GAME, DEAL, event] if event["type"] != "round_started" else [GAME, event]
    err = unreadable(raws)
    line = len(raws)
    assert str(err) == f'line {line}: {event["type"]}: field "{field}": "zoe" is not seated {SEATS}'
    assert err.messages == {field: [f'"zoe" is not seated {SEATS}']}
    assert (err.line, err.index) == (line, line - 1)


def test_named_players_lists_every_player_naming_field() -> None:
    events = typed(
        [
            GAME,
            {**DEAL, "dealer": "omer"},
            {"type": "round_ended", "round": 1, "points": {"dana": 1}, "scores": {"lior": 2}},
            {"type": "game_ended", "winner": ["omer"], "scores": {"dana": 1}},
            {"type": "note", "text": "x"},
        ]
    )
    assert named_players(events[0]) == []
    assert named_players(events[1]) == [
        ("starter", "dana"),
        ("dealer", "omer"),
        ("hands.dana", "dana"),
        ("hands.lior", "lior"),
        ("hands.omer", "omer"),
    ]
    assert named_players(events[2]) == [("points.dana", "dana"), ("scores.lior", "lior")]
    assert named_players(events[3]) == [("winner.0", "omer"), ("scores.dana", "dana")]
    assert named_players(events[4]) == []


def test_the_event_types_have_no_subclasses() -> None:
    """The reader, the structural checks and the engine test an event's exact type
    (``type(event) is Draw``: an isinstance that fails on a msgspec type is slow), so a
    subclass of an event type would slip past their checks."""

    def below(cls: type) -> list[type]:
        return [c for sub in cls.__subclasses__() for c in (sub, *below(sub))]

    # the two shapes a log may write, which the reader converts to GameStarted, GameEnded
    assert set(below(Event)) == set(EVENT_TYPES.values()) | {GameStartedWire, GameEndedWire}
    assert all(not cls.__subclasses__() for cls in EVENT_TYPES.values())


def test_the_quick_seating_check_agrees_with_named_players() -> None:
    """all_seated (set operations) says what checking named_players one by one says:
    for every event of the sample games, with everyone seated and with each player it
    names left out in turn."""
    root = Path(__file__).resolve().parents[2]
    logs = sorted((root / "replays").glob("*.jsonl"))
    events = [e for path in logs for e in read_log(path).events] + typed(
        [
            GAME,
            {**DEAL, "dealer": "omer"},
            {
                "type": "showdown",
                "caller": "omer",
                "hands": {"dana": ["5H"]},
                "totals": {"lior": 3},
            },  # a total for someone whose hand is not written
            {"type": "note", "text": "x", "player": "lior"},
        ]
    )
    assert len({type(e) for e in events}) >= 8  # every kind that names players, and more
    tried = 0
    for event in events:
        everyone = frozenset(p for _, p in named_players(event))
        for seated in [everyone, *(everyone - {p} for p in everyone)]:
            expected = all(p in seated for _, p in named_players(event))
            assert all_seated(event, seated) == expected, (event, seated)
            tried += not expected
    assert tried > 100  # the left-out cases were met, not only the seated ones


# --- rounds -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rounds", "line", "text"),
    [
        ([2], 2, "expected 1 (rounds are numbered 1, 2, ... in order), got 2"),
        ([1, 3], 3, "expected 2 (rounds are numbered 1, 2, ... in order), got 3"),
        ([1, 2, 2], 4, "expected 3 (rounds are numbered 1, 2, ... in order), got 2"),
        ([1, 2, 1], 4, "expected 3 (rounds are numbered 1, 2, ... in order), got 1"),
    ],
)
def test_rounds_are_consecutive_from_1(rounds: list[int], line: int, text: str) -> None:
    err = unreadable([GAME] + [{**SHEET, "round": r} for r in rounds])
    assert str(err) == f'line {line}: round_started: field "round": {text}'


def test_round_ended_names_the_round_under_way() -> None:
    err = unreadable([GAME, SHEET, {"type": "round_ended", "round": 2}])
    assert str(err) == 'line 3: round_ended: field "round": expected 1, the round under way, got 2'
    err = unreadable([GAME, {"type": "round_ended", "round": 1}])
    assert str(err) == 'line 2: round_ended: field "round": no round has started yet'
    assert (
        problem(
            [
                GAME,
                SHEET,
                {"type": "round_ended", "round": 1},
                {**SHEET, "round": 2},
                {"type": "round_ended", "round": 2},
            ]
        )
        is None
    )


@pytest.mark.parametrize("kind", ["showdown", "reshuffle"])
def test_showdown_and_reshuffle_need_a_round(kind: str) -> None:
    event = (
        {"type": "showdown", "caller": "dana", "hands": {}}
        if kind == "showdown"
        else {"type": "reshuffle"}
    )
    err = unreadable([GAME, event])
    assert str(err) == f"line 2: {kind}: before round 1; it needs a round_started first"


# --- seq ---------------------------------------------------------------------------


def test_check_seq() -> None:
    assert check_seq(3, 3) is None
    assert check_seq(4, 3) == "expected 3, the event's 0-based position, got 4"


def test_a_lost_line_is_caught_by_seq() -> None:
    raws = [{**GAME, "seq": 0}, {**SHEET, "seq": 1}, {"type": "note", "text": "x", "seq": 3}]
    err = unreadable(raws)
    assert str(err) == (
        'line 3: note: field "seq": expected 2, the event\'s 0-based position, got 3'
    )
    with pytest.raises(LogFormatError) as info:
        parse_json_array(json.dumps(raws).encode(), "t.json")
    assert str(info.value) == (
        'event 2: note: field "seq": expected 2, the event\'s 0-based position, got 3'
    )


# --- the deal and the moves ------------------------------------------------------


@pytest.mark.parametrize("field", ["upcard", "stock"])
def test_upcard_and_stock_only_with_hands(field: str) -> None:
    err = unreadable([GAME, {**SHEET, field: DEAL[field]}])
    assert str(err) == f'line 2: round_started: field "{field}": allowed only with "hands"'
    assert err.messages == {field: ['allowed only with "hands"']}


@pytest.mark.parametrize(
    "move",
    [
        THROW,
        DRAW,
        {"type": "slap", "player": "dana", "card": "9H"},
        {"type": "yaniv", "player": "dana"},
    ],
)
def test_moves_before_round_1_are_unreadable(move: dict[str, Any]) -> None:
    err = unreadable([GAME, move])
    assert str(err) == (
        f'line 2: {move["type"]}: a move before round 1; moves need a round_started with "hands"'
    )


@pytest.mark.parametrize("move", [THROW, DRAW, {"type": "slap", "player": "dana", "card": "9H"}])
def test_moves_in_a_round_without_hands_are_unreadable(move: dict[str, Any]) -> None:
    err = unreadable([GAME, DEAL, {"type": "round_ended", "round": 1}, {**SHEET, "round": 2}, move])
    assert str(err) == (
        f"line 5: {move['type']}: a move in round 2, whose round_started has "
        'no "hands"; moves can only be replayed from a recorded deal'
    )


def test_a_scoresheet_round_may_record_the_yaniv_call() -> None:
    call = {"type": "yaniv", "player": "omer", "total": 3}
    showdown = {"type": "showdown", "caller": "omer", "hands": HANDS}
    assert problem([GAME, SHEET, call, showdown, {"type": "round_ended", "round": 1}]) is None


def test_moves_between_rounds_are_left_to_the_engine() -> None:
    assert problem([GAME, DEAL, {"type": "round_ended", "round": 1}, THROW]) is None


def test_a_pile_draw_names_its_card() -> None:
    err = unreadable([GAME, DEAL, THROW, {"type": "draw", "player": "dana", "source": "pile"}])
    assert str(err) == 'line 4: draw: field "card": required for a draw from the pile'


def test_a_stock_draw_without_card_needs_a_recorded_stock() -> None:
    blind = {"type": "draw", "player": "dana", "source": "stock"}
    assert problem([GAME, DEAL, THROW, blind]) is None
    no_stock = {k: v for k, v in DEAL.items() if k != "stock"}
    err = unreadable([GAME, no_stock, THROW, blind])
    assert str(err) == (
        'line 4: draw: field "card": required here: round 1\'s round_started '
        'recorded no "stock", so the order of the stock is unknown'
    )
    assert problem([GAME, no_stock, THROW, DRAW]) is None
    # a reshuffle that records the new stock makes the order known again
    assert problem([GAME, no_stock, {"type": "reshuffle", "stock": ["3C"]}, THROW, blind]) is None
    # a new round forgets the previous round's stock
    err = unreadable(
        [GAME, DEAL, {"type": "round_ended", "round": 1}, {**no_stock, "round": 2}, THROW, blind]
    )
    assert err.line == 6 and "round 2's round_started recorded no" in str(err)


# --- the fold ------------------------------------------------------------------------


def test_the_check_is_a_fold_over_typed_events_built_anywhere() -> None:
    game = GameStarted("yaniv-log/1", ("dana", "omer"), {}, PRESETS["israeli"], index=0)
    check = StructureCheck()
    assert check.check(game) is None
    assert check.check(Note("a note", index=1)) is None
    throw = Discard("dana", (parse_card("5H"),), index=2)
    found = check.check(throw)
    assert found == Problem(
        throw, None, 'a move before round 1; moves need a round_started with "hands"'
    )
    assert check.finish() is None
