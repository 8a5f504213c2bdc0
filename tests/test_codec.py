from __future__ import annotations

import io
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from yaniv_audit.core.canonical import canonical_bytes, normalize_event
from yaniv_audit.core.cards import parse_card, parse_cards
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.events import (
    Discard,
    Draw,
    GameEnded,
    GameStarted,
    Note,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Yaniv,
)
from yaniv_audit.core.rules import make_rules, parse_rules
from yaniv_audit.io.codec import (
    MAX_LINE_BYTES,
    READ_CHUNK,
    LongLineError,
    event_from_dict,
    parse_json_array,
    parse_jsonl,
    read_capped,
    read_log,
)

GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", "lior", "omer"],
    "rules": "israeli",
}
DEAL = {
    "type": "round_started",
    "round": 1,
    "starter": "dana",
    "hands": {"dana": ["5H", "5C", "AS"], "lior": ["2D", "3D", "4D"], "omer": ["KS", "QS", "JS"]},
    "upcard": "7D",
    "stock": ["9H", "8H", "2C"],
}

#: one log holding every event type, with every optional field somewhere
FULL: list[dict[str, Any]] = [
    {
        "type": "game_started",
        "format": "yaniv-log/1",
        "seq": 0,
        "at": "2024-05-01T20:15:00+03:00",
        "players": ["dana", {"id": "lior", "name": "Lior B."}, {"id": "omer"}],
        "rules": {"base": "israeli", "yaniv_max": 5, "slap_down": True},
        "game_id": "haifa-7",
        "meta": {"place": "Haifa", "recorder": {"app": "x", "v": [1, 2]}},
        "_recorder": {"build": 17},
    },
    {
        "type": "round_started",
        "round": 1,
        "starter": "dana",
        "dealer": "omer",
        "hands": {
            "dana": ["5h", "5♣", "10♥", "JK", "as"],
            "lior": ["2D", "3D", "4D", "9C", "9S"],
            "omer": ["KS", "QS", "JS", "TD", "AC"],
        },
        "upcard": "7d",
        "stock": ["9H", "8H", "2C"],
        "at": "2024-05-01T20:16:00Z",
    },
    {"type": "discard", "player": "dana", "cards": ["5H", "5c"]},
    {"type": "draw", "player": "dana", "source": "stock", "card": "9h"},
    {"type": "slap", "player": "dana", "card": "9H"},
    {"type": "discard", "player": "lior", "cards": ["9c", "9S"]},
    {"type": "draw", "player": "lior", "source": "pile", "card": "5C", "swap": "4h"},
    {"type": "reshuffle", "stock": ["3c", "JK"]},
    {"type": "yaniv", "player": "omer", "total": 4},
    {"type": "showdown", "caller": "omer", "hands": {"dana": ["TH"], "lior": [], "omer": ["AC"]}},
    {
        "type": "round_ended",
        "round": 1,
        "points": {"dana": 10, "lior": 0, "omer": 0},
        "scores": {"dana": 10, "lior": 0, "omer": 0},
    },
    {"type": "note", "text": "lior says the slap was late", "player": "lior", "_by": "app"},
    {"type": "game_ended", "winner": ["omer", "lior"], "scores": {"omer": 0}},
]


def jsonl(events: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(e, ensure_ascii=False).encode() + b"\n" for e in events)


def jsonl_error(data: bytes) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        parse_jsonl(data, "t.jsonl")
    return info.value


def field_error(raw: Any, index: int = 4, line: int | None = 5) -> LogFormatError:
    with pytest.raises(LogFormatError) as info:
        event_from_dict(raw, index, line)
    return info.value


# --- reading every event type ----------------------------------------------


def test_every_event_type_is_read_into_its_typed_event() -> None:
    log = parse_jsonl(jsonl(FULL), "full.jsonl")
    (game, deal, throw, draw, slap, throw2, pile, reshuffle, call, showdown, ended, note, over) = (
        log.events
    )
    assert isinstance(game, GameStarted)
    assert game.players == ("dana", "lior", "omer")
    assert game.names == {"lior": "Lior B."}
    assert game.rules == make_rules("israeli", {"yaniv_max": 5, "slap_down": True})
    assert (game.game_id, game.meta) == ("haifa-7", FULL[0]["meta"])
    assert (game.at, game.index, game.line) == ("2024-05-01T20:15:00+03:00", 0, 1)
    assert isinstance(deal, RoundStarted)
    assert deal.hands == {
        "dana": parse_cards(["5H", "5C", "TH", "JK", "AS"]),
        "lior": parse_cards(["2D", "3D", "4D", "9C", "9S"]),
        "omer": parse_cards(["KS", "QS", "JS", "TD", "AC"]),
    }
    assert (deal.round, deal.starter, deal.dealer) == (1, "dana", "omer")
    assert deal.upcard == parse_card("7D") and deal.stock == parse_cards(["9H", "8H", "2C"])
    assert deal.at == "2024-05-01T20:16:00Z"
    assert throw == Discard("dana", parse_cards(["5H", "5C"]), index=2, line=3)
    assert draw == Draw("dana", "stock", parse_card("9H"), index=3, line=4)
    assert slap == Slap("dana", parse_card("9H"), index=4, line=5)
    assert isinstance(throw2, Discard) and throw2.cards == parse_cards(["9C", "9S"])
    assert pile == Draw("lior", "pile", parse_card("5C"), parse_card("4H"), index=6, line=7)
    assert reshuffle == Reshuffle(parse_cards(["3C", "JK"]), index=7, line=8)
    assert call == Yaniv("omer", 4, index=8, line=9)
    assert showdown == Showdown(
        "omer", {"dana": (parse_card("TH"),), "lior": (), "omer": (0,)}, index=9, line=10
    )
    assert ended == RoundEnded(
        1, {"dana": 10, "lior": 0, "omer": 0}, {"dana": 10, "lior": 0, "omer": 0}, index=10, line=11
    )
    assert note == Note("lior says the slap was late", "lior", index=11, line=12)
    assert over == GameEnded(("omer", "lior"), {"omer": 0}, index=12, line=13)
    assert [e.type for e in log.events] == [e["type"] for e in FULL]


def test_optional_fields_default_to_none() -> None:
    log = parse_jsonl(
        jsonl(
            [
                GAME,
                {"type": "round_started", "round": 1, "starter": "omer"},
                {"type": "yaniv", "player": "omer"},
                {"type": "showdown", "caller": None, "hands": {}},
                {"type": "reshuffle"},
                {"type": "note", "text": ""},
                {"type": "game_ended"},
            ]
        ),
        "t",
    )
    deal, call, showdown, reshuffle, note, over = log.events[1:]
    assert isinstance(deal, RoundStarted)
    assert (deal.hands, deal.upcard, deal.stock, deal.dealer) == (None, None, None, None)
    assert isinstance(call, Yaniv) and call.total is None
    assert isinstance(showdown, Showdown) and showdown.caller is None
    assert isinstance(reshuffle, Reshuffle) and reshuffle.stock is None
    assert isinstance(note, Note) and note.player is None
    assert isinstance(over, GameEnded) and (over.winner, over.scores) == (None, None)


def test_game_ended_winner_string_becomes_a_tuple() -> None:
    event = event_from_dict({"type": "game_ended", "winner": "omer"}, 9, None)
    assert isinstance(event, GameEnded) and event.winner == ("omer",)


def test_rules_string_and_object_give_the_same_rule_set() -> None:
    by_id = event_from_dict({**GAME, "rules": "israeli(yaniv_max=5,pickup=any)"}, 0, 1)
    by_object = event_from_dict(
        {**GAME, "rules": {"base": "israeli", "yaniv_max": 5, "pickup": "any"}}, 0, 1
    )
    assert isinstance(by_id, GameStarted) and isinstance(by_object, GameStarted)
    assert by_id.rules == by_object.rules == parse_rules("classic(pickup=any)")
    assert by_id.rules.id == "israeli(pickup=any,yaniv_max=5)"


# --- leaves ------------------------------------------------------------------


def test_leaves_are_the_canonical_encoding_of_each_event() -> None:
    log = parse_jsonl(jsonl(FULL), "t")
    assert log.leaves == tuple(canonical_bytes(normalize_event(e)) for e in FULL)
    deal = json.loads(log.leaves[1])
    assert deal["hands"]["dana"] == ["5H", "5C", "TH", "JK", "AS"]
    assert deal["upcard"] == "7D"
    # everything but cards stays as given: player objects, _ fields, seq, at
    game = json.loads(log.leaves[0])
    assert game["players"][1] == {"id": "lior", "name": "Lior B."}
    assert game["_recorder"] == {"build": 17} and game["seq"] == 0


def test_json_array_and_jsonl_give_the_same_events_and_leaves() -> None:
    lines = parse_jsonl(jsonl(FULL), "t.jsonl")
    array = parse_json_array(json.dumps(FULL).encode(), "t.json")
    assert array.leaves == lines.leaves
    assert [e.line for e in array.events] == [None] * len(FULL)
    assert [e.index for e in array.events] == list(range(len(FULL)))
    assert array.events[1] == RoundStarted(**{**_fields(lines.events[1]), "line": None})


def _fields(event: Any) -> dict[str, Any]:
    return {name: getattr(event, name) for name in event.__struct_fields__}


def test_integers_of_19_digits_keep_every_digit_in_the_leaf_and_beyond_64_bits_are_refused() -> (
    None
):
    big = 9223372036854775807
    log = parse_jsonl(jsonl([{**GAME, "_serial": big, "meta": {"n": -big}}]), "t")
    assert b'"_serial":9223372036854775807' in log.leaves[0]
    assert b'"n":-9223372036854775807' in log.leaves[0]
    err = jsonl_error(jsonl([{**GAME, "meta": {"n": -big - 1}}]))
    assert str(err) == (
        'line 1: game_started: field "meta.n": expected a whole number from '
        "-9223372036854775807 to 9223372036854775807, got a number of 19 digits"
    )


# --- JSON Lines framing ------------------------------------------------------


def test_bom_crlf_and_blank_lines_are_accepted_and_lines_are_file_lines() -> None:
    data = (
        b"\xef\xbb\xbf"
        + jsonl([GAME]).replace(b"\n", b"\r\n")
        + b"\r\n  \n\n"
        + jsonl([DEAL, {"type": "discard", "player": "dana", "cards": ["5H"]}]).replace(
            b"\n", b"\r\n"
        )
    )
    log = parse_jsonl(data, "t")
    assert [e.line for e in log.events] == [1, 5, 6]
    assert [e.index for e in log.events] == [0, 1, 2]
    assert log.leaves[0] == canonical_bytes(GAME)


def test_an_error_after_blank_lines_names_the_file_line_and_the_event_index() -> None:
    data = jsonl([GAME]) + b"\n\n" + jsonl([{"type": "round_started", "round": "1"}])
    err = jsonl_error(data)
    assert (err.line, err.index) == (4, 1)
    assert str(err).startswith('line 4: round_started: field "round": expected a round number')


def test_a_line_over_one_mebibyte_is_refused_naming_the_line() -> None:
    note = {"type": "note", "text": "x" * MAX_LINE_BYTES}
    err = jsonl_error(jsonl([GAME, note, {"type": "nonsense"}]))
    assert (err.line, err.index) == (2, 1)
    assert str(err) == (
        f"line 2: the line is {len(json.dumps(note))} bytes long; at most "
        f"{MAX_LINE_BYTES} bytes (1 MiB) are allowed"
    )


class Endless(io.RawIOBase):
    """``head``, then a line of ``size`` bytes that is never held: the bytes are made as
    they are asked for, and counted."""

    def __init__(self, head: bytes, size: int) -> None:
        self.head, self.left, self.served = head, size, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.head:
            n = min(len(buffer), len(self.head))
            buffer[:n], self.head = self.head[:n], self.head[n:]
        else:
            n = min(len(buffer), self.left)
            buffer[:n] = b"x" * n
            self.left -= n
        self.served += n
        return n


def test_a_line_over_one_mebibyte_is_refused_as_it_is_read_not_after() -> None:
    """A line of a gigabyte held whole took 4.1 GB to refuse (issue 35): the cap is held
    as the file is read, in chunks, and reading stops a chunk past it."""
    head = jsonl([GAME]) + b"\n"
    stream = Endless(head, 1 << 30)
    with pytest.raises(LongLineError) as info:
        read_capped(stream)
    assert str(info.value) == (
        f"line 3: the line is longer than {MAX_LINE_BYTES} bytes; at "
        f"most {MAX_LINE_BYTES} bytes (1 MiB) are allowed, and the file "
        "was read no further"
    )
    assert info.value.before == head
    assert str(pickle.loads(pickle.dumps(info.value))) == str(info.value)
    assert stream.served <= len(head) + MAX_LINE_BYTES + 2 * READ_CHUNK
    assert stream.left > (1 << 30) - 4 * READ_CHUNK


@pytest.mark.parametrize("chunk", [777, 65536])
@pytest.mark.parametrize("end", [b"\n", b"\r\n", b""])
def test_a_line_of_exactly_one_mebibyte_is_read_whatever_the_chunks(chunk: int, end: bytes) -> None:
    data = b"{}\n" + b"y" * MAX_LINE_BYTES + end + (b"{}\n" if end else b"")
    assert read_capped(io.BytesIO(data), chunk) == data
    over = b"{}\n" + b"y" * MAX_LINE_BYTES + b"z" + end
    with pytest.raises(LongLineError) as info:
        read_capped(io.BytesIO(over), chunk)
    assert (info.value.line, info.value.before) == (2, b"{}\n")


def test_a_file_s_long_line_is_refused_after_the_problems_of_the_lines_before_it(
    tmp_path: Path,
) -> None:
    """The lines before a long line are read first: the first problem is still the first."""
    long_line = b'{"type":"note","text":"' + b"x" * (3 * MAX_LINE_BYTES) + b'"}\n'
    path = tmp_path / "long.jsonl"
    path.write_bytes(jsonl([GAME, {"type": "note", "text": "ok"}]) + long_line)
    with pytest.raises(LongLineError) as info:
        read_log(path)
    assert (info.value.line, info.value.index) == (3, 2)
    path.write_bytes(jsonl([GAME, {"type": "note", "txt": "ok"}]) + long_line)
    with pytest.raises(LogFormatError) as refused:
        read_log(path)
    assert refused.value.line == 2 and "txt" in str(refused.value)


def test_a_line_of_exactly_one_mebibyte_is_read() -> None:
    note = {"type": "note", "text": ""}
    note["text"] = "x" * (MAX_LINE_BYTES - len(json.dumps(note)))
    data = jsonl([GAME, note]).replace(b"\n", b"\r\n")
    assert data.index(b"\r\n", len(jsonl([GAME]))) - len(jsonl([GAME])) - 1 == MAX_LINE_BYTES
    log = parse_jsonl(data, "t")
    assert log.events[1] == Note(note["text"], index=1, line=2)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"type": "note", "text": "x"', "not valid JSON: unexpected end of data"),
        (
            b"{'type': 'note'}",
            "not valid JSON: unexpected character, expected a string key (column 2)",
        ),
        (b'{"type": "note"} {}', "not valid JSON: unexpected content after document"),
        (b'{"type": "note", "text": NaN}', "not valid JSON: unexpected character"),
        (b'{"type": "note", "text": "caf\xe9"}', "not valid UTF-8 (byte 0xe9 at offset 29)"),
        (b"[" * 2000 + b"]" * 2000, "not valid JSON: nested too deeply (at most 1024 levels)"),
    ],
)
def test_lines_that_are_not_json_are_unreadable(line: bytes, message: str) -> None:
    err = jsonl_error(jsonl([GAME]) + line + b"\n")
    assert (err.line, err.index) == (2, 1)
    assert str(err).startswith(f"line 2: {message}")


@pytest.mark.parametrize(
    ("value", "shown"), [([1, 2], "[1,2]"), ('"note"', '"note"'), ("5", "5"), ("null", "null")]
)
def test_a_line_that_is_not_an_object_is_unreadable(value: Any, shown: str) -> None:
    data = jsonl([GAME]) + (value if isinstance(value, str) else json.dumps(value)).encode()
    err = jsonl_error(data)
    assert str(err) == f'line 2: expected an event object {{"type": ...}}, got {shown}'


def test_deeply_nested_free_values_are_refused() -> None:
    deep: Any = "bottom"
    for _ in range(70):
        deep = {"a": deep}
    err = jsonl_error(jsonl([{**GAME, "meta": deep}]))
    assert str(err) == 'line 1: game_started: field "meta": nested too deeply (at most 64 levels)'
    err = jsonl_error(jsonl([{**GAME, "_extra": [deep]}]))
    assert err.messages == {"_extra": ["nested too deeply (at most 64 levels)"]}
    ok: Any = "bottom"
    for _ in range(62):
        ok = {"a": ok}
    assert parse_jsonl(jsonl([{**GAME, "meta": ok}]), "t").game.meta == ok


def test_an_empty_log_is_unreadable() -> None:
    for data in (b"", b"\n\n  \r\n", b"\xef\xbb\xbf"):
        err = jsonl_error(data)
        assert str(err) == "log: no events; a log starts with a game_started event"
    with pytest.raises(LogFormatError, match="no events"):
        parse_json_array(b"[]", "t.json")


# --- fields --------------------------------------------------------------------

CARD = "expected a card (rank A 2-9 T (or 10) J Q K then suit C D H S (or ♣ ♦ ♥ ♠), or JK)"
PLAYER = "expected a player id (a non-empty string)"


@pytest.mark.parametrize(
    ("raw", "messages"),
    [
        # common fields
        (
            {"type": "note", "text": "x", "seq": "4"},
            {"seq": ['expected a whole number >= 0, got "4"']},
        ),
        (
            {"type": "note", "text": "x", "seq": -1},
            {"seq": ["expected a whole number >= 0, got -1"]},
        ),
        (
            {"type": "note", "text": "x", "at": "2024-05-01T20:15:00"},
            {
                "at": [
                    "expected an ISO-8601 timestamp with offset, e.g. 2024-05-01T20:15:00+03:00, "
                    'got "2024-05-01T20:15:00"'
                ]
            },
        ),
        (
            {"type": "note", "text": "x", "at": 1714583700},
            {
                "at": [
                    "expected an ISO-8601 timestamp with offset, e.g. 2024-05-01T20:15:00+03:00, "
                    "got 1714583700"
                ]
            },
        ),
        # game_started
        (
            {**GAME, "format": "yaniv-log/2"},
            {"format": ['expected "yaniv-log/1", got "yaniv-log/2"']},
        ),
        (
            {**GAME, "players": "dana,omer"},
            {"players": ['expected a list of players, got "dana,omer"']},
        ),
        ({**GAME, "players": ["dana"]}, {"players": ['expected 2 to 8 players, got ["dana"]']}),
        (
            {**GAME, "players": ["dana", 7]},
            {"players.1": ['expected a player id or an object {"id": ..., "name": ...}, got 7']},
        ),
        (
            {**GAME, "players": ["dana", {"name": "Omer"}]},
            {
                "players.1": [
                    'expected a player id or an object {"id": ..., "name": ...}, '
                    'got {"name":"Omer"}'
                ]
            },
        ),
        (
            {**GAME, "players": ["dana", {"id": "omer", "nick": "O"}]},
            {
                "players.1": [
                    'expected a player id or an object {"id": ..., "name": ...}, '
                    'got {"id":"omer","nick":"O"}'
                ]
            },
        ),
        (
            {**GAME, "rules": "israeli(yaniv_max=-1)"},
            {"rules": ["yaniv_max: expected a whole number from 0 to 99999, got -1"]},
        ),
        (
            {**GAME, "rules": {"yaniv_max": 5}},
            {
                "rules": [
                    "a rules object needs 'base': one of israeli, classic, cardgames-zone, "
                    "namu, de-wiki, mcleod, jhyap"
                ]
            },
        ),
        (
            {**GAME, "rules": {"base": "israeli", "colour": 1}},
            {"rules": ["unknown rule parameter \"colour\"; see 'yaniv-audit rules show'"]},
        ),
        (
            {**GAME, "rules": 5},
            {
                "rules": [
                    'expected a rule-set id such as "israeli(yaniv_max=5)" or an object '
                    '{"base": "israeli", ...}, got 5'
                ]
            },
        ),
        ({**GAME, "game_id": 12}, {"game_id": ["expected a string, got 12"]}),
        ({**GAME, "meta": ["Haifa"]}, {"meta": ['expected an object, got ["Haifa"]']}),
        # round_started
        ({**DEAL, "round": 0}, {"round": ["expected a round number >= 1, got 0"]}),
        ({**DEAL, "round": 1.0}, {"round": ["expected a round number >= 1, got 1.0"]}),
        ({**DEAL, "starter": None}, {"starter": [f"{PLAYER}, got null"]}),
        ({**DEAL, "starter": ""}, {"starter": [f'{PLAYER}, got ""']}),
        (
            {**DEAL, "hands": ["5H"]},
            {"hands": ['expected an object {player: list of cards}, got ["5H"]']},
        ),
        (
            {**DEAL, "hands": {"dana": "5H 5C"}},
            {"hands.dana": ['expected a list of cards, got "5H 5C"']},
        ),
        ({**DEAL, "hands": {"dana": ["5H", "1H"]}}, {"hands.dana.1": [f'{CARD}, got "1H"']}),
        ({**DEAL, "upcard": ["7D"]}, {"upcard": [f'{CARD}, got ["7D"]']}),
        ({**DEAL, "stock": ["9H", None]}, {"stock.1": [f"{CARD}, got null"]}),
        ({**DEAL, "dealer": 3}, {"dealer": [f"{PLAYER}, got 3"]}),
        # discard
        (
            {"type": "discard", "player": "dana", "cards": "5H"},
            {"cards": ['expected a non-empty list of cards, got "5H"']},
        ),
        (
            {"type": "discard", "player": "dana", "cards": []},
            {"cards": ["expected a non-empty list of cards, got []"]},
        ),
        (
            {"type": "discard", "player": "dana", "cards": ["5H", "ZZ", 5]},
            {"cards.1": [f'{CARD}, got "ZZ"'], "cards.2": [f"{CARD}, got 5"]},
        ),
        (
            {"type": "discard", "player": ["dana"], "cards": ["5H"]},
            {"player": [f'{PLAYER}, got ["dana"]']},
        ),
        # draw
        (
            {"type": "draw", "player": "dana", "source": "deck"},
            {"source": ['expected "stock" or "pile", got "deck"']},
        ),
        (
            {"type": "draw", "player": "dana", "source": "pile", "card": "11H"},
            {"card": [f'{CARD}, got "11H"']},
        ),
        (
            {"type": "draw", "player": "dana", "source": "pile", "card": "5H", "swap": True},
            {"swap": [f"{CARD}, got true"]},
        ),
        # slap
        ({"type": "slap", "player": "dana"}, {"card": ["missing (required)"]}),
        # yaniv
        (
            {"type": "yaniv", "player": "dana", "total": "5"},
            {"total": ['expected a whole number, got "5"']},
        ),
        (
            {"type": "yaniv", "player": "dana", "total": True},
            {"total": ["expected a whole number, got true"]},
        ),
        (
            {"type": "yaniv", "player": "dana", "total": 4.5},
            {"total": ["expected a whole number, got 4.5"]},
        ),
        # showdown
        ({"type": "showdown", "hands": {}}, {"caller": ["missing (required)"]}),
        ({"type": "showdown", "caller": "dana"}, {"hands": ["missing (required)"]}),
        (
            {"type": "showdown", "caller": "dana", "hands": {"dana": ["5H", "XX"]}},
            {"hands.dana.1": [f'{CARD}, got "XX"']},
        ),
        # round_ended
        ({"type": "round_ended"}, {"round": ["missing (required)"]}),
        (
            {"type": "round_ended", "round": 1, "points": {"dana": "5"}},
            {"points.dana": ['expected a whole number, got "5"']},
        ),
        (
            {"type": "round_ended", "round": 1, "scores": [10, 20]},
            {"scores": ["expected an object {player: whole number}, got [10,20]"]},
        ),
        # reshuffle
        ({"type": "reshuffle", "stock": "3C"}, {"stock": ['expected a list of cards, got "3C"']}),
        # game_ended
        (
            {"type": "game_ended", "winner": []},
            {"winner": ["expected a player id or a non-empty list of player ids, got []"]},
        ),
        (
            {"type": "game_ended", "winner": ["omer", 2]},
            {"winner": ['expected a player id or a non-empty list of player ids, got ["omer",2]']},
        ),
        (
            {"type": "game_ended", "scores": {"omer": None}},
            {"scores.omer": ["expected a whole number, got null"]},
        ),
        # note
        ({"type": "note"}, {"text": ["missing (required)"]}),
        ({"type": "note", "text": "x", "player": False}, {"player": [f"{PLAYER}, got false"]}),
    ],
)
def test_every_field_error_names_the_field_and_what_it_expected(
    raw: dict[str, Any], messages: dict[str, list[str]]
) -> None:
    err = field_error(raw)
    assert err.messages == messages
    assert (err.line, err.index) == (5, 4)
    parts = "; ".join(f'field "{path}": {"; ".join(texts)}' for path, texts in messages.items())
    assert str(err) == f"line 5: {raw['type']}: {parts}"


def test_the_example_of_the_format_reads_as_promised() -> None:
    err = field_error({"type": "discard", "player": "dana", "cards": "5H"}, 6, 7)
    assert str(err) == (
        'line 7: discard: field "cards": expected a non-empty list of cards, got "5H"'
    )


def test_all_problems_of_a_line_are_reported_at_once_in_field_order() -> None:
    err = field_error(
        {
            "type": "draw",
            "colour": "red",
            "source": 5,
            "card": "5X",
            "_note": "fine",
            "player": None,
        }
    )
    assert str(err) == (
        'line 5: unknown field "colour" (fields starting with _ are allowed); '
        'draw: field "source": expected "stock" or "pile", got 5; '
        f'field "card": {CARD}, got "5X"; field "player": {PLAYER}, got null'
    )
    assert set(err.messages) == {"colour", "source", "card", "player"}


def test_unknown_fields_are_named_and_underscore_fields_are_kept() -> None:
    err = field_error(
        {"type": "round_started", "round": 1, "starter": "dana", "colour": "red"}, 2, 3
    )
    assert str(err) == 'line 3: unknown field "colour" (fields starting with _ are allowed)'
    assert err.messages == {"colour": ["unknown field (fields starting with _ are allowed)"]}
    event = event_from_dict({"type": "note", "text": "x", "_x": [1], "_": None}, 4, 5)
    assert event == Note("x", index=4, line=5)


def test_a_typo_in_a_field_name_reports_the_unknown_and_the_missing_field() -> None:
    err = field_error({"type": "discard", "player": "dana", "crads": ["5H"]})
    assert str(err) == (
        'line 5: unknown field "crads" (fields starting with _ are allowed); '
        'discard: field "cards": missing (required)'
    )


@pytest.mark.parametrize(
    ("raw", "message", "messages"),
    [
        (
            {"type": "dicard", "player": "dana"},
            'unknown event type "dicard"; expected one of game_started, round_started, discard, '
            "draw, slap, yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw",
            {"type": ['unknown event type "dicard"']},
        ),
        (
            {"player": "dana"},
            'missing field "type"; expected one of game_started, round_started, discard, draw, '
            "slap, yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw",
            {"type": ["missing (required)"]},
        ),
        (
            {"type": ["discard"]},
            'field "type": expected one of game_started, round_started, discard, draw, slap, '
            'yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw, got ["discard"]',
            {
                "type": [
                    "expected one of game_started, round_started, discard, draw, slap, yaniv, "
                    "showdown, round_ended, reshuffle, game_ended, note, withdraw, "
                    'got ["discard"]'
                ]
            },
        ),
        (
            {"type": "Discard", "player": "dana", "cards": ["5H"]},
            'unknown event type "Discard"; expected one of game_started, round_started, discard, '
            "draw, slap, yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw",
            {"type": ['unknown event type "Discard"']},
        ),
    ],
)
def test_event_types(raw: dict[str, Any], message: str, messages: dict[str, list[str]]) -> None:
    err = field_error(raw, 11, 12)
    assert str(err) == f"line 12: {message}"
    assert err.messages == messages


def test_seq_must_be_the_position() -> None:
    event = event_from_dict({"type": "note", "text": "x", "seq": 4}, 4, 5)
    assert event == Note("x", index=4, line=5)
    err = field_error({"type": "note", "text": "x", "seq": 5}, 4, 5)
    assert str(err) == (
        'line 5: note: field "seq": expected 4, the event\'s 0-based position, got 5'
    )
    assert err.messages == {"seq": ["expected 4, the event's 0-based position, got 5"]}


def test_json_errors_name_the_event_index_and_no_line() -> None:
    events = [GAME, {"type": "discard", "player": "dana", "cards": "5H"}]
    with pytest.raises(LogFormatError) as info:
        parse_json_array(json.dumps(events).encode(), "t.json")
    assert (info.value.line, info.value.index) == (None, 1)
    assert str(info.value) == (
        'event 1: discard: field "cards": expected a non-empty list of cards, got "5H"'
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b'{"type": "game_started"}',
            'log: a .json log holds a top-level array of events, got {"type":"game_started"}',
        ),
        (b"[1, 2", "log: not valid JSON: unexpected end of data (line 1, column 6)"),
        (b" \n", "log: no events; a log starts with a game_started event"),
        (b"[\n{}\n", "log: not valid JSON: unexpected end of data (line 3, column 1)"),
    ],
)
def test_json_arrays_that_cannot_be_read(data: bytes, message: str) -> None:
    with pytest.raises(LogFormatError) as info:
        parse_json_array(data, "t.json")
    assert str(info.value) == message


# --- files --------------------------------------------------------------------


def test_read_log_picks_the_format_by_suffix(tmp_path: Path) -> None:
    (tmp_path / "g.jsonl").write_bytes(jsonl(FULL))
    (tmp_path / "g.JSON").write_text(json.dumps(FULL, indent=1))
    lines, array = read_log(tmp_path / "g.jsonl"), read_log(str(tmp_path / "g.JSON"))
    assert lines.leaves == array.leaves
    assert lines.source == str(tmp_path / "g.jsonl")
    assert array.events[0].line is None and lines.events[0].line == 1


def test_read_log_refuses_directories_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(LogFormatError) as info:
        read_log(tmp_path)
    assert str(info.value) == "log: is a directory, not a log file"
    with pytest.raises(LogFormatError) as info:
        read_log(tmp_path / "nope.jsonl")
    assert str(info.value) == "log: no such file"
