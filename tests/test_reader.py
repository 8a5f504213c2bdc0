"""The one reader: msgspec agrees with marshmallow, the schema of record. The same
events accepted (from a line's bytes and from a parsed value), the same typed events
built, the same leaves; everything else left to marshmallow's errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import LONG, sweep
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import fields as struct_fields

from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.core.canonical import canonical_bytes, canonical_leaf, json_plain, normalize_event
from yaniv_audit.core.cards import NAMES
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.events import EVENT_TYPES, PARSED_TYPES
from yaniv_audit.core.rules import PRESETS
from yaniv_audit.io import codec
from yaniv_audit.io.codec import event_from_dict, parse_json_array, parse_jsonl, read_log
from yaniv_audit.io.log_schema import SCHEMAS, slow_event_from_dict

INDEX, LINE = 4, 5
AT = "2024-05-01T20:15:00+03:00"

#: one valid event of every type, with every optional field
BASE: dict[str, dict[str, Any]] = {
    "game_started": {
        "type": "game_started",
        "format": "yaniv-log/1",
        "seq": INDEX,
        "at": AT,
        "players": ["dana", {"id": "lior", "name": "Lior B."}, {"id": "omer"}],
        "rules": {"base": "israeli", "yaniv_max": 5},
        "game_id": "g-7",
        "meta": {"place": "Haifa", "v": [1, 2]},
    },
    "round_started": {
        "type": "round_started",
        "seq": INDEX,
        "at": AT,
        "round": 1,
        "starter": "dana",
        "dealer": "omer",
        "hands": {"dana": ["5H", "5C"], "lior": ["2D"], "omer": []},
        "upcard": "7D",
        "stock": ["9H", "8H"],
    },
    "discard": {"type": "discard", "seq": INDEX, "at": AT, "player": "dana", "cards": ["5H", "5C"]},
    "draw": {
        "type": "draw",
        "seq": INDEX,
        "at": AT,
        "player": "dana",
        "source": "pile",
        "card": "9H",
        "swap": "4H",
    },
    "slap": {"type": "slap", "seq": INDEX, "at": AT, "player": "dana", "card": "9H"},
    "yaniv": {"type": "yaniv", "seq": INDEX, "at": AT, "player": "omer", "total": 4},
    "showdown": {
        "type": "showdown",
        "seq": INDEX,
        "at": AT,
        "caller": "omer",
        "hands": {"dana": ["TH"], "omer": ["AC", "JK"]},
        "totals": {"lior": 12},
    },
    "round_ended": {
        "type": "round_ended",
        "seq": INDEX,
        "at": AT,
        "round": 1,
        "points": {"dana": 10, "omer": 0},
        "scores": {"dana": 10, "omer": 0},
    },
    "reshuffle": {"type": "reshuffle", "seq": INDEX, "at": AT, "stock": ["3C", "JK"]},
    "game_ended": {
        "type": "game_ended",
        "seq": INDEX,
        "at": AT,
        "winner": ["omer", "lior"],
        "scores": {"omer": 0},
    },
    "note": {"type": "note", "seq": INDEX, "at": AT, "text": "late slap", "player": "lior"},
    "withdraw": {
        "type": "withdraw",
        "seq": INDEX,
        "at": AT,
        "seqs": [3, 4],
        "player": "lior",
        "reason": "meant the nines",
    },
}

CARD_SPELLINGS: list[Any] = [
    *NAMES,
    *(n.lower() for n in NAMES),
    "10H",
    "10h",
    "10♥",
    "5♣",
    "5♧",
    "q♠",
    "Q♤",
    "a♦",
    "k♢",
    "jk",
    "Jk",
    "jK",
    " 5H",
    "5H ",
    "\t5h\n",
    "\u00a05H",
    "5ſ",
    "５H",
    "XX",
    "11H",
    "1H",
    "0H",
    "T",
    "H",
    "",
    "JKR",
    "JOKER",
    "5HH",
    "5 H",
    "1O♥",
    "ⅤH",
]
TIMESTAMPS: list[Any] = [
    AT,
    "2024-05-01T20:15:00Z",
    "2024-05-01T20:15:00",
    "2024-05-01",
    "2024-05-01T20:15:00.5+03:00",
    "2024-05-01T20:15:00.123456-00:30",
    "2024-05-01 20:15:00+03:00",
    "20240501T201500+0300",
    "2024-05-01T20:15+03",
    "2024-13-01T00:00:00+00:00",
    "2024-02-30T00:00:00+00:00",
    "2024-05-01T24:00:00+00:00",
    "not a date",
    "",
    " 2024-05-01T20:15:00+03:00",
    "2024-05-01T20:15:00+03:00 ",
    "2024-W18-3T20:15:00+03:00",
    "2024-05-01T20:15:00+25:00",
]
SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    4,
    5,
    2,
    8,
    9,
    2**63,
    -(2**63) - 1,
    2**70,
    1.5,
    2.0,
    -0.0,
    1e16,
    "",
    "x",
    "dana",
    "omer",
    "stock",
    "pile",
    "deck",
    "Stock",
    "yaniv-log/1",
    "yaniv-log/2",
    "israeli",
    "israeli(yaniv_max=5)",
    "israeli(yaniv_max=-1)",
    "classic(pickup=any)",
    "nope",
]
OBJECTS: list[Any] = [
    [],
    {},
    {"id": "omer"},
    {"id": "omer", "name": "O"},
    {"id": ""},
    {"id": "omer", "name": 5},
    {"id": "omer", "nick": "O"},
    {"id": "omer", "_n": 1},
    {"name": "Omer"},
    {"id": None},
    {"base": "israeli"},
    {"base": "israeli", "yaniv_max": 5.0},
    {"base": "israeli", "colour": 1},
    {"yaniv_max": 5},
    {"base": 5},
    {"a": 1.5},
    {"a": {"b": [1, None, "x"]}},
    ["dana", "omer"],
    ["dana"],
    ["dana", "dana"],
    ["dana", 7],
    ["dana", {"id": "omer"}],
    ["a", "b", "c", "d", "e", "f", "g", "h"],
    ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
    {"dana": 5},
    {"dana": -3},
    {"dana": "5"},
    {"dana": True},
    {"dana": None},
    {"dana": 5.0},
    {"": 5},
    {"dana": 2**70},
    {"dana": []},
    {"": ["5H"]},
    {"dana": "5H"},
    {"dana": [None]},
]


BARE: list[Any] = [*SCALARS, *OBJECTS, *TIMESTAMPS, *CARD_SPELLINGS]


def wrapped() -> list[Any]:
    """The interesting values inside a list and an object."""
    out: list[Any] = []
    for v in [*SCALARS, *CARD_SPELLINGS, *OBJECTS[:12]]:
        out += [[v], ["5H", v], {"dana": v}, {"dana": [v]}, {"dana": ["5H", v]}]
    for v in CARD_SPELLINGS + SCALARS:
        if isinstance(v, str):
            out += [{v: ["5H"]}, {v: 3}]
    return out


#: every kind of value once, and the interesting ones inside a list and an object
VALUES = BARE + wrapped()
#: each field of an event gets every bare value, and a third of the wrapped ones in turn
#: (field by field, so that each event type's fields between them get every one); the
#: long sweep (YANIV_AUDIT_LONG=1) gives every field every value
TURNS = 1 if LONG else 3


def values_for(nth_field: int) -> list[Any]:
    return BARE + wrapped()[nth_field % TURNS :: TURNS]


def _fast(raw: Any, index: int, line: int | None) -> Any:
    """msgspec on the parsed value (None: it leaves the event to marshmallow)."""
    return codec.msgspec_event(raw, index, line)


def _slow(raw: Any, index: int, line: int | None) -> Any:
    try:
        return slow_event_from_dict(raw, index, line)
    except LogFormatError as exc:
        return exc


def _jsonable(value: Any) -> bool:
    """Whether ``value`` is made of JSON's own types only (what a parser gives)."""
    if type(value) in (str, int, float, bool) or value is None:
        return not (type(value) is float and not math.isfinite(value))
    if type(value) is list:
        return all(map(_jsonable, value))
    return type(value) is dict and all(type(k) is str and _jsonable(v) for k, v in value.items())


def _wire(raw: Any, index: int, line: int | None) -> Any:
    """The msgspec path on ``raw`` written as a line (None: it leaves the line to the
    codec's own path), in compact and in spaced JSON."""
    if not _jsonable(raw):
        return None
    compact = codec.wire_event(json.dumps(raw, ensure_ascii=False).encode(), index, line)
    spaced = codec.wire_event(json.dumps(raw, indent=1).encode(), index, line)
    assert compact == spaced, raw
    return compact


def agree(raw: Any, index: int = INDEX, line: int | None = LINE) -> bool:
    """msgspec on the parsed value, msgspec on the line and marshmallow all refuse
    ``raw`` or accept it with the same typed event and the same leaf (msgspec on the
    line may also leave an event it cannot tell apart to the parsed-value way: a null,
    a ``_`` field, a card not written canonically, game_started); True if accepted."""
    fast = _fast(raw, index, line)
    slow = _slow(raw, index, line)
    wire = _wire(raw, index, line)
    if isinstance(slow, LogFormatError):
        assert fast is None, f"msgspec accepted what marshmallow refuses: {raw!r}: {slow}"
        assert wire is None, f"msgspec accepted what marshmallow refuses: {raw!r}: {slow}"
        with pytest.raises(LogFormatError) as info:
            event_from_dict(raw, index, line)
        assert (str(info.value), info.value.messages) == (str(slow), slow.messages)
        return False
    assert fast is not None, f"msgspec refused what marshmallow accepts: {raw!r}"
    assert type(fast) is type(slow) and fast == slow, raw
    assert event_from_dict(raw, index, line) == slow
    exact = canonical_bytes(normalize_event(raw))
    assert canonical_leaf(normalize_event(raw)) == exact
    if wire is not None:
        assert type(wire[0]) is type(slow) and wire[0] == slow, raw
        assert wire[1] == exact, raw
    return True


# --- the structs and the schemas --------------------------------------------------------


def test_every_event_type_has_a_struct_with_the_fields_of_its_schema() -> None:
    """A field added to a schema and not to its struct (or the other way) fails here,
    before the agreement tests find the events msgspec then refuses."""
    structs = {cls.__struct_config__.tag: cls for cls in PARSED_TYPES}
    assert list(structs) == list(SCHEMAS) == list(EVENT_TYPES)
    for kind, schema in SCHEMAS.items():
        names = {f.encode_name for f in struct_fields(structs[kind])} - {"_line"}
        assert names | {"type"} == set(schema.fields), kind
        assert set(BASE[kind]) == set(schema.fields), f"BASE[{kind!r}] misses a field"


# --- per field, exhaustively -----------------------------------------------------------


@pytest.mark.parametrize("kind", list(BASE))
def test_every_field_with_every_kind_of_value(kind: str) -> None:
    base = BASE[kind]
    assert agree(base)
    # msgspec reads every event but the first straight into its struct
    assert (_wire(base, INDEX, LINE) is None) == (kind == "game_started")
    accepted = 0
    fields = [field for field in base if field != "type"]
    assert len(fields) >= TURNS  # each wrapped value goes to one field at least
    for nth, field in enumerate(fields):
        assert agree({k: v for k, v in base.items() if k != field}) == (
            not SCHEMAS[kind].fields[field].required
        )
        for value in values_for(nth):
            accepted += agree({**base, field: value})
    assert accepted >= len(base) - 1  # not only refusals


@pytest.mark.parametrize("kind", list(BASE))
def test_cards_in_every_spelling_in_every_card_field(kind: str) -> None:
    base = BASE[kind]
    for field in ("card", "swap", "upcard"):
        if field in base:
            for text in CARD_SPELLINGS:
                agree({**base, field: text})
    for field in ("cards", "stock"):
        if field in base:
            for text in CARD_SPELLINGS:
                agree({**base, field: [text]})
                agree({**base, field: ["5H", text, "jk"]})
    if "hands" in base:
        for text in CARD_SPELLINGS:
            agree({**base, "hands": {"dana": [text], "omer": ["5H"]}})


@pytest.mark.parametrize(
    "seqs",
    [
        [],
        [0],
        [3, 4],
        [4, 3],
        [3, 3],
        [-1],
        [0, -1],
        [True],
        [1.0],
        [2**63 - 1],
        [2**63],
        [2**70],
        ["3"],
        [None],
        3,
        "3",
        {"3": 3},
        [[3]],
        None,
    ],
)
def test_withdraw_seqs_of_every_shape(seqs: Any) -> None:
    """``seqs`` is a non-empty list of whole numbers >= 0; naming a seq twice, itself or
    an older entry is for the replay to refuse (log.withdraw), not the reader."""
    accepted = agree({**BASE["withdraw"], "seqs": seqs})
    assert accepted == (
        type(seqs) is list
        and len(seqs) > 0
        and all(type(s) is int and 0 <= s <= 2**63 - 1 for s in seqs)
    )
    for extra in (
        {"player": None},
        {"reason": None},
        {"reason": 5},
        {"player": ""},
        {"reason": ""},
        {"seqs": seqs, "reason": "x", "player": "omer"},
    ):
        agree({**BASE["withdraw"], "seqs": seqs, **extra})


def test_card_spellings_are_read_and_normalised() -> None:
    raw = {"type": "discard", "player": "dana", "cards": ["10h", " 5♣ ", "JK"]}
    fast = _fast(raw, 2, 3)
    assert fast is not None and [NAMES[c] for c in fast.cards] == ["TH", "5C", "JK"]
    assert codec.wire_event(json.dumps(raw).encode(), 2, 3) is None  # the line way: names only
    log = parse_jsonl(
        _jsonl(
            {k: v for k, v in GAME.items() if k not in ("seq", "at")},
            {
                "type": "round_started",
                "round": 1,
                "starter": "dana",
                "hands": {"dana": ["5C", "TH", "JK"]},
            },
            raw,
        ),
        "t",
    )
    assert log.leaves[2] == b'{"cards":["TH","5C","JK"],"player":"dana","type":"discard"}'


@pytest.mark.parametrize("kind", list(BASE))
def test_type_seq_at_and_unknown_fields(kind: str) -> None:
    base = BASE[kind]
    for seq in (INDEX, INDEX + 1, INDEX - 1, 0, -1, True, False, None, "4", 4.0, 2**70):
        agree({**base, "seq": seq})
    for at in [*TIMESTAMPS, None, 5, ["x"]]:
        agree({**base, "at": at})
    deep: Any = "bottom"
    for _ in range(70):
        deep = {"a": deep}
    shallow: Any = "bottom"
    for _ in range(62):
        shallow = {"a": shallow}
    for extra in (
        {"_x": 1},
        {"_": None},
        {"_x": [1, {"y": "z"}]},
        {"_f": 1.5},
        {"_f": [1e16]},
        {"_big": 2**70},
        {"_deep": deep},
        {"_ok": shallow},
        {"_ok": [shallow]},
        {"colour": 1},
        {"Type": kind},
        {"_x": 1, "colour": 2},
        {"": 1},
        {" _x": 1},
    ):
        assert agree({**base, **extra}) == (
            all(k.startswith("_") for k in extra) and "_deep" not in extra
        )
    # the event is level 1: a free value may hold 63 more levels, not 64
    assert agree({**base, "_ok": shallow}) and agree({**base, "_ok": [shallow]})
    assert not agree({**base, "_x": [{"a": shallow}]}) and not agree({**base, "_deep": deep})
    for other in EVENT_TYPES:
        agree({**base, "type": other})
    for bad in ("Discard", "", None, 5, ["discard"]):
        agree({**base, "type": bad})
    assert not agree({k: v for k, v in base.items() if k != "type"})


def test_what_is_not_an_event_object_goes_to_marshmallow() -> None:
    """msgspec reads only what a JSON parser gives (marshmallow decides the rest), and
    what is not an object is refused with marshmallow's error."""
    base = BASE["discard"]
    assert _fast({**base, 5: "x"}, INDEX, LINE) is None
    assert _fast({**base, "player": b"dana"}, INDEX, LINE) is None
    for raw in ([base], "x", None, 5):
        assert _fast(raw, INDEX, LINE) is None
        with pytest.raises(LogFormatError, match="expected an event object"):
            slow_event_from_dict(raw, INDEX, LINE)  # type: ignore[arg-type]


# --- Hypothesis: valid events and corrupted ones ---------------------------------------

players = st.sampled_from(["dana", "lior", "omer", "a", "é", "דנה", "x y"])
cards = st.sampled_from(CARD_SPELLINGS)
card_lists = st.lists(cards, max_size=5)
ints = st.one_of(st.integers(-5, 200), st.integers(), st.sampled_from([2**63, -(2**63) - 1]))
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    cards,
    players,
    st.sampled_from(TIMESTAMPS),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(players, st.text(max_size=4)), inner, max_size=4),
    ),
    max_leaves=12,
)
optional = st.booleans()


@st.composite
def valid_events(draw: st.DrawFn, kind: str | None = None) -> dict[str, Any]:
    """Events with valid values, mostly (some card spellings and timestamps are not)."""
    kind = kind or draw(st.sampled_from(list(BASE)))
    raw = dict(BASE[kind])
    for name, field in SCHEMAS[kind].fields.items():
        if name == "type":
            continue
        if not field.required and draw(optional):
            raw.pop(name)
            continue
        if name in ("card", "swap", "upcard"):
            raw[name] = draw(cards)
        elif name in ("cards", "stock"):
            raw[name] = draw(card_lists)
        elif name == "hands":
            raw[name] = draw(st.dictionaries(players, card_lists, max_size=4))
        elif name in ("player", "starter", "dealer"):
            raw[name] = draw(players)
        elif name == "caller":
            raw[name] = draw(st.one_of(st.none(), players))
        elif name in ("points", "scores"):
            raw[name] = draw(st.dictionaries(players, ints, max_size=4))
        elif name in ("round", "total"):
            raw[name] = draw(ints)
        elif name == "at":
            raw[name] = draw(st.sampled_from(TIMESTAMPS))
        elif name == "winner":
            raw[name] = draw(st.one_of(players, st.lists(players, max_size=3)))
        elif name == "meta":
            raw[name] = draw(st.dictionaries(st.text(max_size=4), json_values, max_size=3))
        elif name == "players":
            raw[name] = draw(
                st.lists(
                    st.one_of(
                        players,
                        st.fixed_dictionaries(
                            {"id": players}, optional={"name": st.text(max_size=5)}
                        ),
                    ),
                    min_size=1,
                    max_size=9,
                )
            )
        elif name == "source":
            raw[name] = draw(st.sampled_from(["stock", "pile"]))
        elif name in ("text", "game_id", "reason"):
            raw[name] = draw(st.text(max_size=10))
        elif name == "seqs":
            raw[name] = draw(st.lists(ints, max_size=4))
        elif name == "rules":
            raw[name] = draw(
                st.sampled_from(
                    ["israeli", "classic(pickup=any)", {"base": "israeli", "yaniv_max": 7}]
                )
            )
    for key, value in draw(
        st.dictionaries(st.text(max_size=4).map(lambda t: "_" + t), json_values, max_size=2)
    ).items():
        raw[key] = value
    return raw


@st.composite
def corrupted_events(draw: st.DrawFn, kind: str | None = None) -> dict[str, Any]:
    raw = draw(valid_events(kind))
    how = draw(st.sampled_from(["change", "remove", "add", "wrap"]))
    keys = sorted(raw)
    if how == "change":
        raw[draw(st.sampled_from(keys))] = draw(st.one_of(json_values, st.sampled_from(VALUES)))
    elif how == "remove":
        raw.pop(draw(st.sampled_from(keys)))
    elif how == "add":
        raw[draw(st.one_of(st.text(max_size=6), st.sampled_from(list(SCHEMAS["draw"].fields))))] = (
            draw(json_values)
        )
    else:
        key = draw(st.sampled_from(keys))
        raw[key] = draw(st.sampled_from([[raw[key]], {"dana": raw[key]}, None]))
    return raw


@pytest.mark.parametrize("kind", list(BASE))
@settings(
    max_examples=sweep(30, long=80), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.data())
def test_valid_events_agree(kind: str, data: st.DataObject) -> None:
    agree(data.draw(valid_events(kind)))


@pytest.mark.parametrize("kind", list(BASE))
@settings(
    max_examples=sweep(50, long=150), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=st.data())
def test_corrupted_events_agree(kind: str, data: st.DataObject) -> None:
    raw = data.draw(corrupted_events(kind))
    agree(raw)
    agree(orjson.loads(json.dumps(raw)))  # as the reader sees it: big integers become floats


# --- the leaf encoding ----------------------------------------------------------------------

unicode_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.sampled_from(
    [
        "\x00",
        "\x1f",
        "\x7f",
        "\u2028\u2029",
        '"\\/',
        "\b\f\n\r\t",
        "\ud7ff\ue000\uffff",
        "\U0001f600",
        "é",
        "\u0301",
    ]
)
arbitrary_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(-(2**80), 2**80),
        st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1]),
        st.floats(allow_nan=False, allow_infinity=False),
        unicode_text,
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(unicode_text, inner, max_size=5)
    ),
    max_leaves=25,
)


def json_definition(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


@settings(max_examples=sweep(300, long=1500), deadline=None)
@given(arbitrary_json)
def test_canonical_leaf_is_the_json_dumps_definition(value: Any) -> None:
    assert canonical_leaf(value) == json_definition(value)
    if json_plain(value) and not _beyond_64_bits(value):
        assert orjson.dumps(value, option=orjson.OPT_SORT_KEYS) == json_definition(value)


def _beyond_64_bits(value: Any) -> bool:
    if isinstance(value, dict):
        return any(map(_beyond_64_bits, value.values()))
    if isinstance(value, list):
        return any(map(_beyond_64_bits, value))
    return type(value) is int and not -(2**63) <= value < 2**64


def test_canonical_leaf_edge_cases() -> None:
    for value in (
        {"b": 1, "a": [1.0, 1e16, -0.0, 5e-324, 1.7976931348623157e308]},
        {"\U0001f600": 1, "\uffff": 2, "\ue000": 3},
        2**64,
        -(2**63) - 1,
        2**64 - 1,
        [[[[]]]],
        {"x": {"y": {}}},
        "\x00\x01\x1f\x7f\u2028",
        True,
        None,
        (1, 2),
        {"t": (1.5,)},
    ):
        assert canonical_leaf(value) == json_definition(value)
    deep: Any = []
    for _ in range(300):  # deeper than orjson writes
        deep = [deep]
    assert canonical_leaf(deep) == json_definition(deep)
    with pytest.raises(UnicodeEncodeError):
        canonical_leaf({"x": "\ud800"})
    with pytest.raises(TypeError):
        canonical_leaf({1: 2, "a": 3})


# --- whole logs ----------------------------------------------------------------------------


def _read_both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    fast = read_log(path)
    monkeypatch.setattr(codec, "MSGSPEC", False)
    slow = read_log(path)
    monkeypatch.setattr(codec, "MSGSPEC", True)
    return fast, slow


@pytest.mark.parametrize("preset", ["israeli", "de-wiki", "jhyap"])
def test_simulated_games_read_the_same_with_msgspec_and_with_marshmallow(
    preset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for game in range(4):
        events = simulate_game(
            PRESETS[preset], 3 + game, ["random", "greedy", "careful"], seed=5, game=game
        )
        path = tmp_path / f"g{game}.jsonl"
        path.write_text(to_jsonl(events))
        fast, slow = _read_both(path, monkeypatch)
        assert fast.events == slow.events and fast.leaves == slow.leaves
        assert fast.leaves == tuple(canonical_bytes(normalize_event(e)) for e in events)
        lines = path.read_bytes().splitlines()
        assert all(
            codec.wire_event(text, i, i + 1) is not None
            for i, text in enumerate(lines)
            if i > 0 and b"null" not in text
        ), "msgspec left an event to the slow path"
        array = tmp_path / f"g{game}.json"
        array.write_text(json.dumps(events))
        fast_array, slow_array = _read_both(array, monkeypatch)
        assert fast_array.leaves == slow_array.leaves == fast.leaves
        assert fast_array.events == slow_array.events


def test_corpus_reads_the_same_with_msgspec_and_with_marshmallow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replays = Path(__file__).resolve().parent.parent / "replays"
    corpus = sorted(replays.glob("*.jsonl"))
    corpus += sorted(replays.glob("simulated/*/game-0000[0-2].jsonl"))
    assert len(corpus) > 30
    for path in corpus:
        fast, slow = _read_both(path, monkeypatch)
        assert fast.events == slow.events and fast.leaves == slow.leaves


def test_the_cases_read_the_same_with_msgspec_and_with_marshmallow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fidelity cases, withdrawals among them: the same events, leaves and
    withdrawals, or the same error."""
    cases = sorted((Path(__file__).resolve().parent / "cases").glob("*/*.jsonl"))
    assert sum(b'"withdraw"' in path.read_bytes() for path in cases) >= 3
    for path in cases:
        data = path.read_bytes()
        assert _read_either(data, monkeypatch, True) == _read_either(data, monkeypatch, False)


GAME = BASE["game_started"]


def _jsonl(*events: Any) -> bytes:
    return b"".join(
        (e if isinstance(e, bytes) else json.dumps(e, ensure_ascii=False).encode()) + b"\n"
        for e in events
    )


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"note","text":"x","_n":1234567890123456789}',
        b'{"type":"note","text":"x","_n":-9223372036854775807,"_m":9223372036854775807}',
        b'{"type":"note","text":"x","_f":1e16,"_g":[1.0,0.1,-0.0]}',
        b'{"type":"note","text":"x","_s":"12345678901234567890123"}',
        b'{"type":"yaniv","player":"dana","total":-9223372036854775807}',
        b'{"type":"round_ended","round":1,"points":{"dana":1234567890123456789}}',
        b'{"type":"note","text":"\\u00e9\\n\\t\\"\\\\\\u0000\\ud83d\\ude00 caf\xc3\xa9"}',
        b'{"type":"discard","player":"dana","cards":["5h","10\xe2\x99\xa5"]}',
        b'{"type":"discard","cards":["5H"],"player":"dana","_x":{"b":1,"a":[true,null]}}',
    ],
)
def test_lines_with_big_numbers_floats_and_escapes_read_exactly(
    line: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = {k: v for k, v in GAME.items() if k not in ("seq", "at")}
    data = _jsonl(
        game,
        {"type": "round_started", "round": 1, "starter": "dana", "hands": {"dana": ["5H", "TH"]}},
        line,
    )
    fast = parse_jsonl(data, "t")
    monkeypatch.setattr(codec, "MSGSPEC", False)
    slow = parse_jsonl(data, "t")
    assert fast.events == slow.events and fast.leaves == slow.leaves
    exact = json.loads(line)
    assert fast.leaves[2] == json_definition(normalize_event(exact))
    array = parse_json_array(b"[" + b",".join(data.split(b"\n")[:3]) + b"]", "t.json")
    assert array.leaves == fast.leaves


def test_the_largest_integers_keep_their_digits() -> None:
    """19 digits can be int64's ends, which orjson reads as integers (exact)."""
    game = {k: v for k, v in GAME.items() if k not in ("seq", "at")}
    data = _jsonl(game, b'{"type":"note","text":"x","_n":-9223372036854775807}')
    log = parse_jsonl(data, "t")
    assert log.leaves[1] == b'{"_n":-9223372036854775807,"text":"x","type":"note"}'


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (b'{"type":"note","text":"x","_n":123456789012345678901234567890}', "_n"),
        (b'{"type":"note","text":"x","_m":[1,{"k":9223372036854775808}]}', "_m.1.k"),
        (b'{"type":"yaniv","player":"dana","total":-9223372036854775808}', "total"),
        (b'{"type":"yaniv","player":"dana","total":18446744073709551615}', "total"),
        (b'{"type":"round_ended","round":1,"points":{"dana":9223372036854775808}}', "points.dana"),
        (b'{"type":"note","text":"x","seq":9223372036854775808}', "seq"),
    ],
)
@pytest.mark.parametrize("fast", [True, False])
def test_integers_beyond_64_bits_are_refused_on_every_path(
    line: bytes, field: str, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A number of 2**63 or more was read, then made every answer about the game a 500
    (orjson refuses it) and a stored game unviewable (issue 27): refused where it comes in,
    in a .jsonl and a .json log alike, naming the line or event and the field."""
    monkeypatch.setattr(codec, "MSGSPEC", fast)
    game = {k: v for k, v in GAME.items() if k not in ("seq", "at")}
    data = _jsonl(
        game,
        {"type": "round_started", "round": 1, "starter": "dana", "hands": {"dana": ["5H", "TH"]}},
        line,
    )
    expected = (
        f'field "{field}": expected a whole number from -9223372036854775807 to '
        "9223372036854775807, got a number of "
    )
    with pytest.raises(LogFormatError) as raised:
        parse_jsonl(data, "t")
    err = raised.value
    assert err.line == 3 and err.index == 2 and expected in str(err), str(err)
    assert err.messages.keys() == {field}
    array = b"[" + b",".join(data.split(b"\n")[:3]) + b"]"
    with pytest.raises(LogFormatError) as raised:
        parse_json_array(array, "t.json")
    err = raised.value
    assert err.index == 2 and expected in str(err), str(err)


@pytest.mark.parametrize("on", [True, False])
def test_errors_are_marshmallows_with_msgspec_on_or_off(
    on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(codec, "MSGSPEC", on)
    game = {k: v for k, v in GAME.items() if k not in ("seq", "at")}
    with pytest.raises(LogFormatError) as err:
        parse_jsonl(
            _jsonl(
                game,
                {
                    "type": "draw",
                    "colour": "red",
                    "source": 5,
                    "card": "5X",
                    "_note": "fine",
                    "player": None,
                },
            ),
            "t",
        )
    assert str(err.value).startswith(
        'line 2: unknown field "colour" (fields starting with _ '
        'are allowed); draw: field "source": expected "stock" or '
        '"pile", got 5; field "card": expected a card'
    )
    with pytest.raises(LogFormatError) as err:
        parse_jsonl(_jsonl(game, {"type": "note", "text": "x", "seq": 5}), "t")
    assert str(err.value) == (
        'line 2: note: field "seq": expected 1, the event\'s 0-based position, got 5'
    )


def test_floats_are_json_numbers_not_integers() -> None:
    assert not agree({**BASE["yaniv"], "total": 4.0})
    assert not agree({**BASE["round_ended"], "round": 1.0})
    assert math.isclose(1.0, 1)  # equal in Python, refused by the schema all the same


def test_events_read_any_way_are_the_same_frozen_struct() -> None:
    raw = {"type": "discard", "player": "dana", "cards": ["5H"]}
    fast = _fast(raw, 2, 3)
    wire = codec.wire_event(json.dumps(raw).encode(), 2, 3)
    assert fast is not None and wire is not None
    built = EVENT_TYPES["discard"](index=2, line=3, at=None, player="dana", cards=(parse(),))
    for event in (fast, wire[0]):
        assert event == built and hash(event) == hash(built) and repr(event) == repr(built)
        with pytest.raises(AttributeError):
            event.player = "omer"  # type: ignore[misc]


def parse() -> int:
    from yaniv_audit.core.cards import parse_card

    return parse_card("5H")


def _read_either(data: bytes, monkeypatch: pytest.MonkeyPatch, fast: bool) -> Any:
    monkeypatch.setattr(codec, "MSGSPEC", fast)
    try:
        log = parse_jsonl(data, "t")
        return log.events, log.leaves, log.withdrawals
    except LogFormatError as exc:
        return str(exc), exc.messages
    finally:
        monkeypatch.setattr(codec, "MSGSPEC", True)


@pytest.mark.parametrize(
    "change",
    [
        "none",
        "blank line",
        "crlf",
        "spaces",
        "bom",
        "underscore field",
        "spelling",
        "null",
        "seq",
        "no seq",
        "bad at",
        "naive at",
        "unknown field",
        "bad json",
        "not seated",
        "round",
        "float",
        "big integer",
        "long line",
        "last line",
        "no final newline",
        "withdraw",
        "refused withdraw",
        "bad withdraw",
    ],
)
def test_a_log_reads_the_same_whichever_path_reads_each_line(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """msgspec reads all the lines after the first at once; any line it refuses sends
    them all through the line-by-line reader, and either way the log reads the same."""
    events = simulate_game(PRESETS["israeli"], 3, ["random", "greedy", "careful"], seed=2, game=1)
    lines = [json.dumps(e, ensure_ascii=False).encode() for e in events]
    k = len(lines) // 2  # a move in the middle
    move = json.loads(lines[k])
    edits: dict[str, Any] = {
        "blank line": lambda: lines.insert(k, b"  "),
        "crlf": lambda: lines.__setitem__(slice(None), [x + b"\r" for x in lines]),
        "spaces": lambda: lines.__setitem__(
            k, json.dumps(move, indent=None, separators=(" , ", " : ")).encode()
        ),
        "bom": lambda: lines.__setitem__(0, codecs_bom() + lines[0]),
        "underscore field": lambda: lines.__setitem__(k, json.dumps({**move, "_x": 1}).encode()),
        "spelling": lambda: lines.__setitem__(k, lines[k].replace(b'H"', b'\\u2665"')),
        "null": lambda: lines.__setitem__(k, json.dumps({**move, "at": None}).encode()),
        "seq": lambda: lines.__setitem__(k, json.dumps({**move, "seq": k + 1}).encode()),
        "no seq": lambda: lines.__setitem__(
            slice(None),
            [
                json.dumps({f: v for f, v in json.loads(x).items() if f != "seq"}).encode()
                for x in lines
            ],
        ),
        "bad at": lambda: lines.__setitem__(
            k, json.dumps({**move, "at": "2024-13-01T00:00:00Z"}).encode()
        ),
        "naive at": lambda: lines.__setitem__(
            k, json.dumps({**move, "at": "2024-05-01T10:00:00"}).encode()
        ),
        "unknown field": lambda: lines.__setitem__(k, json.dumps({**move, "colour": 1}).encode()),
        "bad json": lambda: lines.__setitem__(k, lines[k][:-1]),
        "not seated": lambda: lines.__setitem__(k, json.dumps({**move, "player": "zed"}).encode()),
        "round": lambda: lines.__setitem__(1, lines[1].replace(b'"round": 1', b'"round": 2')),
        "float": lambda: lines.__setitem__(k, json.dumps({**move, "seq": float(k)}).encode()),
        "big integer": lambda: lines.__setitem__(k, json.dumps({**move, "seq": 2**70}).encode()),
        "long line": lambda: lines.__setitem__(
            k, json.dumps({**move, "_pad": "x" * (1 << 20)}).encode()
        ),
        "last line": lambda: lines.__setitem__(
            -1, json.dumps({"type": "note", "text": 5}).encode()
        ),
        # the last entry taken back, or one that is not the latest (log.withdraw), or none
        "withdraw": lambda: lines.append(
            json.dumps(
                {
                    "type": "withdraw",
                    "seq": len(lines),
                    "seqs": [len(lines) - 1],
                    "player": events[0]["players"][0],
                    "reason": "misheard",
                }
            ).encode()
        ),
        "refused withdraw": lambda: lines.append(
            json.dumps({"type": "withdraw", "seq": len(lines), "seqs": [k]}).encode()
        ),
        "bad withdraw": lambda: lines.append(
            json.dumps({"type": "withdraw", "seq": len(lines), "seqs": []}).encode()
        ),
    }
    if change in edits:
        edits[change]()
    data = b"\n".join(lines) + (b"" if change == "no final newline" else b"\n")
    fast = _read_either(data, monkeypatch, True)
    assert fast == _read_either(data, monkeypatch, False)
    if change in (
        "none",
        "crlf",
        "no final newline",
        "no seq",
        "withdraw",
        "refused withdraw",
    ):  # msgspec read them all
        builder = codec._LogBuilder("t")
        split = data.split(b"\n")
        codec._read_lines(builder, split, 0, 1)
        assert codec._read_wire(builder, data, split, 1)
        assert (tuple(builder.events), tuple(builder.leaves), builder.checker.withdrawals) == fast
    if change == "withdraw":
        assert fast[2] is not None and list(fast[2].withdrawn) == [len(lines) - 2]
    elif change == "refused withdraw":
        assert fast[2] is not None and not fast[2].withdrawn and fast[2].refused
    elif change == "bad withdraw":
        assert fast[1] == {"seqs": ["expected a non-empty list of seqs, got []"]}, fast


def codecs_bom() -> bytes:
    import codecs

    return codecs.BOM_UTF8
