from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from marshmallow import Schema, fields, validate

from yaniv_audit.core.cards import _LOOKUP, is_card_text
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.io.codec import event_from_dict
from yaniv_audit.io.json_schema import field_schema, object_schema
from yaniv_audit.io.log_schema import CardField
from yaniv_audit.schema_export import (
    DOCUMENTS,
    SCHEMAS_DIR,
    log_event_schema,
    main,
    render,
    stale_files,
)

ROOT = Path(__file__).resolve().parent.parent
GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", {"id": "omer", "name": "Omer"}],
    "rules": "israeli",
}


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    schema = json.loads((SCHEMAS_DIR / "log-event.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_the_checked_in_schemas_are_not_stale() -> None:
    assert stale_files() == [], "run: python -m yaniv_audit.schema_export"
    assert sorted(p.name for p in SCHEMAS_DIR.glob("*.json")) == sorted(DOCUMENTS)


def test_check_exits_1_on_a_stale_or_missing_file_and_0_when_fresh(tmp_path: Path) -> None:
    assert main(["--check", "--dir", str(tmp_path)]) == 1
    assert main(["--dir", str(tmp_path)]) == 0
    assert main(["--check", "--dir", str(tmp_path)]) == 0
    target = tmp_path / "log-event.schema.json"
    target.write_text(target.read_text().replace('"minItems": 2', '"minItems": 1'))
    assert main(["--check", "--dir", str(tmp_path)]) == 1


def test_the_module_runs_as_a_script() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.schema_export", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_the_document_is_a_oneof_told_apart_by_type() -> None:
    doc = log_event_schema()
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert len(doc["oneOf"]) == len(doc["$defs"]) == 12
    for name, branch in doc["$defs"].items():
        assert branch["properties"]["type"]["const"] == name
        assert branch["additionalProperties"] is False
        assert branch["patternProperties"] == {"^_": {}}
    assert render(doc).endswith("}\n")


def sample_events() -> list[dict[str, Any]]:
    events = [
        json.loads(line)
        for path in sorted((ROOT / "replays").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return [
        *events,
        {
            **GAME,
            "rules": {"base": "namu", "yaniv_max": 7, "run_max": None, "reductions": {"100": 50}},
            "meta": {"place": "x"},
            "_r": [1],
        },
        {"type": "round_started", "round": 2, "starter": "omer"},
        {"type": "draw", "player": "dana", "source": "pile", "card": "10♥", "swap": "jk"},
        {"type": "showdown", "caller": None, "hands": {"dana": []}},
        {"type": "game_ended", "winner": "omer"},
        {"type": "game_ended", "winner": ["omer", "dana"], "scores": {"omer": 3}},
        {"type": "note", "text": "x", "at": "2024-05-01T20:15:00+03:00"},
    ]


def test_every_valid_event_passes_the_json_schema(validator: Draft202012Validator) -> None:
    events = sample_events()
    assert len(events) > 200  # the sample replays are there
    for index, event in enumerate(events):
        event_from_dict(event, event.get("seq", index), None)  # the codec accepts it
        errors = [e.message for e in validator.iter_errors(event)]
        assert errors == [], (event, errors)


BROKEN: list[dict[str, Any]] = [
    {"type": "dicard", "player": "dana", "cards": ["5H"]},
    {"player": "dana", "cards": ["5H"]},
    {"type": "discard", "player": "dana", "cards": "5H"},
    {"type": "discard", "player": "dana", "cards": []},
    {"type": "discard", "player": "dana", "cards": ["5X"]},
    {"type": "discard", "player": "dana", "cards": ["5H"], "colour": "red"},
    {"type": "discard", "cards": ["5H"]},
    {"type": "discard", "player": "", "cards": ["5H"]},
    {"type": "draw", "player": "dana", "source": "deck"},
    {"type": "slap", "player": "dana", "card": 5},
    {"type": "yaniv", "player": "dana", "total": "5"},
    {"type": "yaniv", "player": "dana", "total": True},
    {"type": "round_started", "round": 0, "starter": "dana"},
    {"type": "round_started", "round": "1", "starter": "dana"},
    {"type": "round_started", "round": 1, "starter": "dana", "hands": {"dana": "5H"}},
    {"type": "round_started", "round": 1, "starter": "dana", "upcard": None},
    {"type": "showdown", "hands": {}},
    {"type": "round_ended", "round": 1, "points": {"dana": "5"}},
    {"type": "reshuffle", "stock": ["5H", "ZZ"]},
    {"type": "game_ended", "winner": []},
    {"type": "note"},
    {"type": "note", "text": "x", "seq": -1},
    {**GAME, "format": "yaniv-log/2"},
    {**GAME, "players": ["dana"]},
    {**GAME, "players": [f"p{i}" for i in range(9)]},
    {**GAME, "players": ["dana", {"id": "omer", "nick": "O"}]},
    {**GAME, "rules": {"yaniv_max": 5}},
    {**GAME, "rules": {"base": "nope"}},
    {**GAME, "rules": {"base": "israeli", "pickup": "middle"}},
    {**GAME, "rules": 7},
    {**GAME, "meta": []},
]


@pytest.mark.parametrize("event", BROKEN, ids=[json.dumps(e)[:60] for e in BROKEN])
def test_broken_events_fail_both_the_json_schema_and_the_codec(
    validator: Draft202012Validator, event: dict[str, Any]
) -> None:
    assert not validator.is_valid(event)
    with pytest.raises(LogFormatError):
        event_from_dict(event, 0, 1)


@given(st.text(alphabet="AaJjKkTt1023456789CcDdHhSsXx♣♦♥♠♧♢♡♤ ", max_size=5))
def test_the_card_pattern_accepts_what_parse_card_accepts(text: str) -> None:
    assert (re.fullmatch(CardField.PATTERN, text) is not None) == is_card_text(text)


def test_the_card_pattern_accepts_every_spelling() -> None:
    for text in _LOOKUP:
        assert re.fullmatch(CardField.PATTERN, text), text


class _Sample(Schema):
    """A made-up schema: the converter is generic."""

    name = fields.String(required=True, validate=validate.Length(min=1, max=9))
    size = fields.Integer(validate=validate.Range(min=0, max=10, max_inclusive=False))
    kind = fields.String(validate=validate.OneOf(["a", "b"]), allow_none=True)
    tags = fields.List(fields.String(), validate=validate.Length(equal=2))
    extra = fields.Dict(keys=fields.String(), values=fields.Boolean())
    ok = fields.Boolean(metadata={"description": "yes or no"})


def test_the_converter_maps_fields_and_validators() -> None:
    assert object_schema(_Sample()) == {
        "type": "object",
        "description": "A made-up schema: the converter is generic.",
        "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 9},
            "size": {"type": "integer", "minimum": 0, "exclusiveMaximum": 10},
            "kind": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "extra": {
                "type": "object",
                "propertyNames": {"type": "string"},
                "additionalProperties": {"type": "boolean"},
            },
            "ok": {"description": "yes or no", "type": "boolean"},
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_the_converter_refuses_a_field_it_cannot_state() -> None:
    with pytest.raises(TypeError, match="json_schema"):
        field_schema(fields.Function(lambda obj: obj))
