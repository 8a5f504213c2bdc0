"""Reading logs: JSON Lines or a JSON array -> typed events and fingerprint leaves.

The marshmallow schemas below are the one definition of what an event may hold
(docs/log-format.md); ``schemas/log-event.schema.json`` is generated from
them. Every field is strict: nothing is coerced, so ``"5"`` is not a number and
``true`` is not an integer. The structural checks (first event, seated players,
round order...) live in :mod:`yaniv_audit.core.structure`; :func:`read_log` runs both
and raises :class:`~yaniv_audit.core.errors.LogFormatError` at the first problem.

marshmallow is slow (about 40,000 events a second), so msgspec reads the events:
the event structs of :mod:`yaniv_audit.core.events` carry every check of the schemas
that their types can say, and a few lines of plain Python the rest (``seq``
against the position, ``at`` with an offset, the ``_`` fields, the rules). It
reads a line's bytes straight into its event (:func:`wire_event`,
:func:`_read_wire`), or, for what that way refuses, the parsed value
(:func:`msgspec_event`). Whatever msgspec refuses goes to marshmallow, which
accepts it after all or writes the error; ``tests/test_reader.py`` shows that
msgspec accepts exactly what marshmallow accepts and builds the same event.
:data:`MSGSPEC` = False reads through marshmallow alone.

>>> log = parse_jsonl(b'{"type":"game_started","format":"yaniv-log/1",'
...                   b'"players":["dana","omer"],"rules":"classic"}', "<doc>")
>>> log.players, log.game.rules.yaniv_max
(('dana', 'omer'), 5)
"""

from __future__ import annotations

import codecs
import json
import re
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import orjson
from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema
from msgspec import UnsetType

from .core import structure
from .core.canonical import canonical_leaf, normalize_event
from .core.cards import Card, parse_card
from .core.errors import CardError, LogFormatError, RulesError
from .core.events import (
    CODES,
    DECODER,
    ENCODER,
    EVENT_TYPES,
    FORMAT,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PARSED_TYPES,
    Discard,
    Draw,
    Event,
    GameEnded,
    GameEndedWire,
    GameStarted,
    GameStartedWire,
    Log,
    PlayerEntry,
    Withdraw,
    names_to_codes,
)
from .core.rules import PARAMS, PRESETS, parse_rules, rules_from_mapping

__all__ = ["FORMAT", "SCHEMAS", "event_from_dict", "parse_json_array", "parse_jsonl", "read_log"]
#: a JSON Lines line longer than this (without its line end) is refused
MAX_LINE_BYTES = 1 << 20
#: how deep a free value (``meta``, ``_`` fields) may nest, the event being level 1
MAX_DEPTH = 64
UNKNOWN_FIELD = "unknown field (fields starting with _ are allowed)"
MISSING_FIELD = "missing (required)"
CARD_SPELLING = "rank A 2-9 T (or 10) J Q K then suit C D H S (or ♣ ♦ ♥ ♠), or JK"

#: integers beyond 64 bits (from -2**63 - 1 down, from 2**64 up: 19 digits or more),
#: which orjson reads as floats (changing the leaf)
_LONG_DIGITS = re.compile(rb"\d{19}")
#: the largest whole number a log may hold, either sign: a signed 64-bit integer's, what
#: DuckDB's BIGINT and orjson carry (a larger one made every answer about the game fail)
INT_MAX = 2**63 - 1
_MISSING: Any = object()

JsonSchema = dict[str, Any]
Convert = Callable[["fields.Field[Any]"], JsonSchema]


# --- fields --------------------------------------------------------------


def _expect(what: str) -> dict[str, str | list[Any] | dict[Any, Any]]:
    """Error messages of a field: what it expects (the reader appends what it got)."""
    text = f"expected {what}".replace("{", "{{").replace("}", "}}")  # marshmallow formats it
    return {"invalid": text, "null": text, "type": text, "required": MISSING_FIELD}


class StrictInteger(fields.Integer):
    """An integer as JSON writes it: not ``"5"``, not ``5.5``, not ``true``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if value is True or value is False:
            raise self.make_error("invalid")
        return super()._validated(value)


class CardField(fields.Field[Card]):
    """One card, any spelling :func:`~yaniv_audit.core.cards.parse_card` accepts -> its code."""
    #: the spellings parse_card accepts, for JSON Schema
    PATTERN = (
        r"^\s*(?:(?:[Aa2-9TtJjQqKk]|10)[CcDdHhSs♣♦♥♠♧♢♡♤]|[Jj][Kk])\s*$"
    )

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(error_messages=_expect(f"a card ({CARD_SPELLING})"), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        if not isinstance(value, str):
            raise self.make_error("invalid")
        try:
            return parse_card(value)
        except CardError:
            raise self.make_error("invalid") from None

    def json_schema(self, convert: Convert) -> JsonSchema:
        return {"type": "string", "pattern": self.PATTERN}


class CardList(fields.List[Card]):
    """A list of cards, in the order given -> a tuple of codes."""

    def __init__(self, what: str = "a list of cards", **kwargs: Any) -> None:
        super().__init__(CardField(), error_messages=_expect(what), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        return tuple(super()._deserialize(value, attr, data, **kwargs))


class Either(fields.Field[Any]):
    """A value that one of several fields accepts, tried in order (JSON Schema ``anyOf``)."""

    def __init__(self, *choices: fields.Field[Any], expected: str, **kwargs: Any) -> None:
        super().__init__(error_messages=_expect(expected), **kwargs)
        self.choices = choices

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        for choice in self.choices:
            try:
                return choice.deserialize(value)
            except ValidationError:
                continue
        raise self.make_error("invalid")

    def json_schema(self, convert: Convert) -> JsonSchema:
        return {"anyOf": [convert(choice) for choice in self.choices]}


class Timestamp(fields.String):
    """An ISO-8601 timestamp with an offset; kept as written (it is never ordered)."""

    def __init__(self, **kwargs: Any) -> None:
        what = "an ISO-8601 timestamp with offset, e.g. 2024-05-01T20:15:00+03:00"
        super().__init__(error_messages=_expect(what), **kwargs)

    @staticmethod
    def accepts(value: str) -> bool:
        """Whether a string is a timestamp with an offset (the msgspec reader inlines this)."""
        try:
            return datetime.fromisoformat(value).tzinfo is not None
        except ValueError:
            return False

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        if isinstance(value, str) and self.accepts(value):
            return value
        raise self.make_error("invalid")

    def json_schema(self, convert: Convert) -> JsonSchema:
        return {"type": "string", "format": "date-time"}


class RulesField(fields.Field[Any]):
    """A rule-set id string or a ``{"base": ..., param: value}`` object -> a RuleSet.

    The RuleSet's own error (naming the parameter and what it accepts) becomes
    the field's message.
    """

    def __init__(self, **kwargs: Any) -> None:
        what = 'a rule-set id such as "israeli(yaniv_max=5)" or an object {"base": "israeli", ...}'
        super().__init__(error_messages=_expect(what), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        try:
            if isinstance(value, str):
                return parse_rules(value)
            if isinstance(value, dict):
                return rules_from_mapping(value)
        except RulesError as exc:
            raise ValidationError(exc.problems) from None
        raise self.make_error("invalid")

    def json_schema(self, convert: Convert) -> JsonSchema:
        params: JsonSchema = {"base": {"enum": list(PRESETS)}}
        for p in PARAMS:
            if p.kind == "bool":
                s: JsonSchema = {"type": "boolean"}
            elif p.kind == "choice":
                s = {"enum": list(p.choices)}
            elif p.kind == "table":
                s = {"type": "object", "propertyNames": {"pattern": r"^\s*[0-9]{1,5}\s*$"},
                     "additionalProperties": {"type": "integer", "minimum": 0,
                                              "maximum": p.maximum - 1}}
            else:
                s = {"type": "integer", "minimum": p.minimum, "maximum": p.maximum}
            if p.nullable:
                s = {"anyOf": [s, {"type": "null"}]}
            params[p.name] = {"description": p.help, **s}
        return {"anyOf": [
            {"type": "string", "minLength": 1, "description": "a rule-set id"},
            {"type": "object", "required": ["base"], "properties": params,
             "additionalProperties": False},
        ]}


def _player(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(min=1, error="expected a player id (a non-empty string)"),
        error_messages=_expect("a player id (a non-empty string)"), **kwargs,
    )


def _integer(what: str = "a whole number", **kwargs: Any) -> StrictInteger:
    return StrictInteger(error_messages=_expect(what), **kwargs)


def _text(what: str = "a string", **kwargs: Any) -> fields.String:
    return fields.String(error_messages=_expect(what), **kwargs)


def _scores(**kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=_player(), values=_integer(),
        error_messages=_expect("an object {player: whole number}"), **kwargs,
    )


def _hands(**kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=_player(), values=CardList(),
        error_messages=_expect("an object {player: list of cards}"), **kwargs,
    )


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.Equal(name))


def _depth_within(value: Any, levels: int) -> bool:
    if isinstance(value, dict):
        return levels > 0 and all(_depth_within(v, levels - 1) for v in value.values())
    if isinstance(value, list):
        return levels > 0 and all(_depth_within(v, levels - 1) for v in value)
    return True


_TOO_DEEP = f"nested too deeply (at most {MAX_DEPTH} levels)"


def _shallow(value: Any) -> None:
    """A free value must stay shallow enough to be encoded as a leaf."""
    if not _depth_within(value, MAX_DEPTH - 1):
        raise ValidationError(_TOO_DEEP)


# --- schemas -------------------------------------------------------------


class PlayerSchema(Schema):
    """A seat given as an object rather than a bare id."""

    class Meta:
        unknown = RAISE

    id = _player(required=True)
    name = _text()


class EventSchema(Schema):
    """Fields every event may carry. Fields starting with ``_`` are the recorder's own:
    kept in the leaf, ignored here; any other unknown field is an error."""

    class Meta:
        unknown = EXCLUDE  # unknown fields are named by _no_unknown_fields

    json_schema_extra: ClassVar[JsonSchema] = {
        "patternProperties": {"^_": {}}, "additionalProperties": False,
    }

    type = fields.String(required=True)
    seq = _integer("a whole number >= 0",
                   validate=validate.Range(min=0, error="expected a whole number >= 0"),
                   metadata={"description": "must equal the event's 0-based position"})
    at = Timestamp(metadata={"description": "informational, never checked for order"})

    @validates_schema(pass_original=True, skip_on_field_errors=False)
    def _no_unknown_fields(self, data: Any, original: Any, **kwargs: Any) -> None:
        known = self.fields
        problems: dict[str, list[str]] = {}
        for key, value in original.items():
            if key in known:
                continue
            if not key.startswith("_"):
                problems[key] = [UNKNOWN_FIELD]
            elif not _depth_within(value, MAX_DEPTH - 1):
                problems[key] = [_TOO_DEEP]
        if problems:
            raise ValidationError(problems)


class GameStartedSchema(EventSchema):
    """The table: who sits where, and the rules they agreed on."""

    type = _type("game_started")
    format = _text(f'"{FORMAT}"', required=True,
                   validate=validate.Equal(FORMAT, error=f'expected "{FORMAT}"'))
    players = fields.List(
        Either(_player(), fields.Nested(PlayerSchema),
               expected='a player id or an object {"id": ..., "name": ...}'),
        required=True,
        validate=validate.Length(min=MIN_PLAYERS, max=MAX_PLAYERS,
                                 error="expected 2 to 8 players"),
        error_messages=_expect("a list of players"),
        metadata={"description": "the seating and turn order"},
    )
    rules = RulesField(required=True)
    game_id = _text()
    meta = fields.Dict(validate=_shallow, error_messages=_expect("an object"),
                       metadata={"description": "free: place, date, recorder"})


class RoundStartedSchema(EventSchema):
    """The deal. Without ``hands`` the round's moves were not recorded."""

    type = _type("round_started")
    round = _integer("a round number >= 1", required=True,
                     validate=validate.Range(min=1, error="expected a round number >= 1"))
    starter = _player(required=True)
    hands = _hands(metadata={"description": "every player still in -> their cards"})
    upcard = CardField(metadata={"description": "allowed only with hands"})
    stock = CardList(metadata={"description": "the whole remaining stock, top first; "
                                              "allowed only with hands"})
    dealer = _player()


class DiscardSchema(EventSchema):
    """The throw, in the order placed on the pile."""

    type = _type("discard")
    player = _player(required=True)
    cards = CardList("a non-empty list of cards", required=True,
                     validate=validate.Length(min=1, error="expected a non-empty list of cards"))


class DrawSchema(EventSchema):
    """The draw after a throw, from the stock or from the previous throw."""

    type = _type("draw")
    player = _player(required=True)
    source = _text('"stock" or "pile"', required=True,
                   validate=validate.OneOf(["stock", "pile"], error='expected "stock" or "pile"'))
    card = CardField(metadata={"description": "required for the pile, and for the stock "
                                              "unless its order is known"})
    swap = CardField(metadata={"description": "the natural card put into a run for a joker"})


class SlapSchema(EventSchema):
    """The quick discard of the card just drawn (slap_down)."""

    type = _type("slap")
    player = _player(required=True)
    card = CardField(required=True)


class YanivSchema(EventSchema):
    """The call that ends the round."""

    type = _type("yaniv")
    player = _player(required=True)
    total = _integer(metadata={"description": "the total the caller announced"})


class ShowdownSchema(EventSchema):
    """The hands laid down at the end of a round."""

    type = _type("showdown")
    caller = _player(required=True, allow_none=True,
                     metadata={"description": "null when the stock ran out (round_ends)"})
    hands = _hands(required=True)
    totals = _scores(metadata={"description": "scoresheets only: player -> the total shown, "
                                              "for players whose cards were not kept (a "
                                              "player is in hands or in totals, not both)"})


class RoundEndedSchema(EventSchema):
    """What the table wrote down for the round: checked, never trusted."""

    type = _type("round_ended")
    round = _integer("a round number >= 1", required=True,
                     validate=validate.Range(min=1, error="expected a round number >= 1"))
    points = _scores()
    scores = _scores(metadata={"description": "running scores after reductions"})


class ReshuffleSchema(EventSchema):
    """The order of the stock made from the pile."""

    type = _type("reshuffle")
    stock = CardList(metadata={"description": "the new stock, top first"})


class GameEndedSchema(EventSchema):
    """What the table concluded: checked."""

    type = _type("game_ended")
    winner = Either(
        _player(),
        fields.List(_player(), validate=validate.Length(min=1)),
        expected="a player id or a non-empty list of player ids",
    )
    scores = _scores()


class NoteSchema(EventSchema):
    """A comment, a correction, a dispute claim; it never changes the game."""

    type = _type("note")
    text = _text(required=True)
    player = _player()


class WithdrawSchema(EventSchema):
    """The table takes back its latest entries (an undo at the table): the replay reads
    the log as if they had never been written; they stay in the log."""

    type = _type("withdraw")
    seqs = fields.List(
        _integer("an event's seq (a whole number >= 0)",
                 validate=validate.Range(min=0, error="expected an event's seq (>= 0)")),
        required=True,
        validate=validate.Length(min=1, error="expected a non-empty list of seqs"),
        error_messages=_expect("a non-empty list of seqs (whole numbers)"),
        metadata={"description": "the seq numbers (0-based event indexes where the log "
                                 "writes no seq) of the latest entries still standing, "
                                 "taken back"})
    player = _player(metadata={"description": "who asked"})
    reason = _text()


#: one schema instance per event type, in the order of docs/log-format.md's events
SCHEMAS: dict[str, EventSchema] = {
    "game_started": GameStartedSchema(),
    "round_started": RoundStartedSchema(),
    "discard": DiscardSchema(),
    "draw": DrawSchema(),
    "slap": SlapSchema(),
    "yaniv": YanivSchema(),
    "showdown": ShowdownSchema(),
    "round_ended": RoundEndedSchema(),
    "reshuffle": ReshuffleSchema(),
    "game_ended": GameEndedSchema(),
    "note": NoteSchema(),
    "withdraw": WithdrawSchema(),
}
assert SCHEMAS.keys() == EVENT_TYPES.keys()
_TYPES_TEXT = ", ".join(SCHEMAS)

#: whether msgspec reads the events (off: marshmallow alone, the reference in the tests)
MSGSPEC = True


# --- events --------------------------------------------------------------


def event_from_dict(raw: dict[str, Any], index: int, line: int | None) -> Event:
    """Validate one parsed event and build its typed event.

    Every problem of the event is reported at once, by field, in one
    :class:`LogFormatError`; ``seq`` is checked against ``index`` here because
    typed events do not carry it. msgspec answers first (:func:`msgspec_event`);
    marshmallow decides whatever it refuses, and writes the error.
    """
    if MSGSPEC:
        event = msgspec_event(raw, index, line)
        if event is not None:
            return event
    return slow_event_from_dict(raw, index, line)


_convert = msgspec.convert
#: the struct msgspec converts each event type into
_PARSED: dict[str, type[Event]] = {cls.__struct_config__.tag: cls  # type: ignore[misc]
                                   for cls in PARSED_TYPES}
#: the schema's own depth limit on a free value (``meta``, a ``_`` field)
_FREE_LEVELS = MAX_DEPTH - 1


def msgspec_event(raw: Any, index: int, line: int | None) -> Event | None:
    """The typed event of a parsed event, read by msgspec into the event structs; None
    when msgspec refuses it (then marshmallow decides, and writes the error).

    What the struct types cannot say is checked here, as the schemas do: a ``_``
    field is the recorder's own (any value, at most :data:`MAX_DEPTH` levels deep)
    and is left out; ``null`` is refused wherever the schema refuses it (every
    field but showdown's ``caller``: the structs' ``None`` defaults would take it
    for a missing field); cards are read in any spelling by writing them
    canonically first (:func:`~yaniv_audit.core.canonical.normalize_event`, the same
    lookup as :func:`~yaniv_audit.core.cards.parse_card`); ``seq`` must equal the
    position, ``at`` must carry an offset, and game_started's rules must parse.
    """
    if type(raw) is not dict:
        return None
    data = {}
    for key, value in raw.items():
        if type(key) is not str:  # not JSON
            return None
        if key[:1] == "_":  # the recorder's own: in the leaf, not in the event
            if not _depth_within(value, _FREE_LEVELS):
                return None
        elif value is None and key != "caller":
            return None
        else:
            data[key] = value
    kind = data.get("type")
    struct = _PARSED.get(kind) if type(kind) is str else None
    if struct is None:
        return None
    try:  # to the struct itself: msgspec builds a union's type info again at every call
        event: Event = _convert(normalize_event(data), struct)
    except msgspec.ValidationError:
        return None
    written, at = event.index, event.at
    if written != -1 and written != index:  # -1: no seq
        return None
    if at is not None and not Timestamp.accepts(at):
        return None
    if type(event) is GameStartedWire:
        return _started(event, index, line)
    if type(event) is GameEndedWire:
        winner = event.winner
        event = GameEnded(winner=(winner,) if isinstance(winner, str) else winner,
                          scores=event.scores, at=at)
    names_to_codes(event)
    _set(event, "index", index)
    _set(event, "line", line)
    return event


def _started(wire: GameStartedWire, index: int, line: int | None) -> GameStarted | None:
    """The game_started msgspec read: seats to ids and names, the rules parsed."""
    if wire.meta is not None and not _depth_within(wire.meta, _FREE_LEVELS):
        return None
    try:
        rules = (parse_rules(wire.rules) if type(wire.rules) is str
                 else rules_from_mapping(wire.rules))  # type: ignore[arg-type]
    except RulesError:
        return None
    players: list[str] = []
    names: dict[str, str] = {}
    for seat in wire.players:
        if type(seat) is PlayerEntry:
            players.append(seat.id)
            if not isinstance(seat.name, UnsetType):
                names[seat.id] = seat.name
        else:
            players.append(seat)  # type: ignore[arg-type]
    return GameStarted(format=wire.format, players=tuple(players), names=names, rules=rules,
                       game_id=wire.game_id, meta=wire.meta, index=index, line=line,
                       at=wire.at)


def slow_event_from_dict(raw: dict[str, Any], index: int, line: int | None) -> Event:
    """:func:`event_from_dict` through marshmallow alone (the reference of msgspec's)."""
    if not isinstance(raw, dict):
        raise LogFormatError(
            f'expected an event object {{"type": ...}}, got {show(raw)}', line=line, index=index
        )
    kind = raw.get("type", _MISSING)
    schema = SCHEMAS.get(kind) if isinstance(kind, str) else None
    if schema is None:
        raise _type_error(kind, line, index)
    try:
        data = schema.load(raw)
    except ValidationError as exc:
        raise _field_error(kind, schema, raw, exc.messages, line, index) from None
    del data["type"]
    seq = data.pop("seq", None)
    if seq is not None:
        problem = structure.check_seq(seq, index)
        if problem is not None:
            raise LogFormatError(
                f'{kind}: field "seq": {problem}', line=line, index=index,
                messages={"seq": [problem]},
            )
    at = data.pop("at", None)
    build = _BUILDERS.get(kind)
    if build is not None:
        return build(data, index, line, at)
    return EVENT_TYPES[kind](index=index, line=line, at=at, **data)


def _game_started(data: dict[str, Any], index: int, line: int | None, at: str | None) -> Event:
    players: list[str] = []
    names: dict[str, str] = {}
    for entry in data.pop("players"):
        if isinstance(entry, str):
            players.append(entry)
        else:
            players.append(entry["id"])
            if "name" in entry:
                names[entry["id"]] = entry["name"]
    return GameStarted(index=index, line=line, at=at, players=tuple(players), names=names, **data)


def _game_ended(data: dict[str, Any], index: int, line: int | None, at: str | None) -> Event:
    if "winner" in data:
        winner = data["winner"]
        data["winner"] = (winner,) if isinstance(winner, str) else tuple(winner)
    return GameEnded(index=index, line=line, at=at, **data)


def _withdraw(data: dict[str, Any], index: int, line: int | None, at: str | None) -> Event:
    data["seqs"] = tuple(data["seqs"])
    return Withdraw(index=index, line=line, at=at, **data)


#: the event types whose loaded data needs more than their dataclass constructor
_BUILDERS: dict[str, Callable[[dict[str, Any], int, int | None, str | None], Event]] = {
    "game_started": _game_started,
    "game_ended": _game_ended,
    "withdraw": _withdraw,
}


def _type_error(kind: Any, line: int | None, index: int) -> LogFormatError:
    if kind is _MISSING:
        text = MISSING_FIELD
        message = f'missing field "type"; expected one of {_TYPES_TEXT}'
    elif isinstance(kind, str):
        text = f"unknown event type {show(kind)}"
        message = f"{text}; expected one of {_TYPES_TEXT}"
    else:
        text = f"expected one of {_TYPES_TEXT}, got {show(kind)}"
        message = f'field "type": {text}'
    return LogFormatError(message, line=line, index=index, messages={"type": [text]})


def _field_error(
    kind: str, schema: Schema, raw: dict[str, Any], errors: Any, line: int | None, index: int
) -> LogFormatError:
    """One error for every problem marshmallow found, in the order of the event's fields."""
    position = {key: i for i, key in enumerate(raw)}
    flat: dict[str, list[str]] = {}
    unknown: list[str] = []
    parts: list[str] = []
    for key in sorted(errors, key=lambda k: position.get(k, len(position))):
        field = schema.fields.get(key)
        if field is None and not key.startswith("_"):
            unknown.append(f"unknown field {quote(key)} (fields starting with _ are allowed)")
            flat[key] = [UNKNOWN_FIELD]
            continue
        found: dict[str, list[str]] = {}
        _flatten(errors[key], field, raw.get(key, _MISSING), key, found)
        parts.extend(f"field {quote(path)}: {'; '.join(texts)}" for path, texts in found.items())
        flat.update(found)
    if parts:
        unknown.append(f"{kind}: " + "; ".join(parts))
    return LogFormatError("; ".join(unknown), line=line, index=index, messages=flat)


def _flatten(errors: Any, field: Any, raw: Any, path: str, out: dict[str, list[str]]) -> None:
    """marshmallow's nested messages -> ``{"hands.dana.2": [text]}``, each with what it got."""
    if not isinstance(errors, dict):
        out[path] = [_with_got(str(text), raw) for text in errors]
        return
    for key, sub in errors.items():
        sub_path = f"{path}.{key}"
        if isinstance(field, fields.Dict):
            sub_raw = raw.get(key, _MISSING) if isinstance(raw, dict) else _MISSING
            if "key" in sub:
                out[sub_path] = ["key: " + "; ".join(map(str, sub["key"]))]
            if "value" in sub:
                _flatten(sub["value"], field.value_field, sub_raw, sub_path, out)
        elif isinstance(field, fields.List):
            ok = isinstance(raw, list) and isinstance(key, int) and key < len(raw)
            _flatten(sub, field.inner, raw[key] if ok else _MISSING, sub_path, out)
        else:
            nested = field.schema.fields if isinstance(field, fields.Nested) else {}
            sub_raw = raw.get(key, _MISSING) if isinstance(raw, dict) else _MISSING
            _flatten(sub, nested.get(key), sub_raw, sub_path, out)


def _with_got(text: str, raw: Any) -> str:
    if raw is _MISSING or not text.startswith("expected "):
        return text
    return f"{text}, got {show(raw)}"


def show(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of a value for a one-line message."""
    if isinstance(value, (list, dict)):
        text = None
        if len(value) <= 8:
            try:
                text = orjson.dumps(value).decode()
            except orjson.JSONEncodeError:
                pass
        if text is None or len(text) > limit:
            if isinstance(value, list):
                return f"a list of {len(value)} items"
            return f"an object with {len(value)} fields"
        return text
    if isinstance(value, str):
        return quote(value, limit)
    return json.dumps(value)


def quote(text: str, limit: int = 60) -> str:
    """A name or value in double quotes, escaped, cut short if long."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return json.dumps(text, ensure_ascii=False)


# --- reading -------------------------------------------------------------


class _LogBuilder:
    """Typed events, their leaves and the structural checks, one event at a time."""

    __slots__ = ("source", "events", "leaves", "checker")

    def __init__(self, source: str) -> None:
        self.source = source
        self.events: list[Event] = []
        self.leaves: list[bytes] = []
        self.checker = structure.StructureCheck()

    def add(self, raw: Any, line: int | None) -> None:
        """One event, parsed exactly (big integers kept), its leaf by the definition."""
        event = event_from_dict(raw, len(self.events), line)
        problem = self.checker.check(event)
        if problem is not None:
            raise problem_error(problem)
        self.events.append(event)
        # a copy of the exact size: keeping orjson's own buffers (allocated large, then
        # shrunk) makes the C allocator trim and grow the heap at every event, 5x slower
        self.leaves.append(b"%b" % canonical_leaf(normalize_event(raw)))

    def finish(self) -> Log:
        problem = self.checker.finish()
        if problem is not None:
            raise problem_error(problem)
        return Log(self.source, tuple(self.events), tuple(self.leaves),
                   self.checker.withdrawals)


def problem_error(problem: structure.Problem) -> LogFormatError:
    """A structural problem as the error that makes the log unreadable."""
    event = problem.event
    return LogFormatError(
        problem.message,
        line=event.line if event is not None else None,
        index=event.index if event is not None else None,
        messages={problem.field: [problem.text]} if problem.field else None,
    )


def _loads(text: bytes) -> Any:
    value = orjson.loads(text)
    if _LONG_DIGITS.search(text) is not None:
        value = json.loads(text)  # exact big integers, as the leaf must keep them
    return value


def _exact(text: bytes, raw: Any, line: int | None, index: int) -> Any:
    """A line orjson read, read again by ``json`` if it may hold an integer beyond 64 bits
    (which orjson reads as a float), and refused if it does (:func:`check_numbers`)."""
    if _LONG_DIGITS.search(text) is None:
        return raw
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise LogFormatError("not valid JSON: a number or nesting too large to read",
                             line=line, index=index) from None
    check_numbers(raw, line, index)
    return raw


def check_numbers(raw: Any, line: int | None, index: int | None) -> None:
    """Refuse an event holding a whole number beyond ``INT_MAX`` either way, anywhere in it
    (``meta`` and ``_`` fields too), naming the field: such a number cannot be stored,
    written in an answer or compared. Called only when a run of 19 digits was seen."""
    found = _huge_number(raw, "")
    if found is None:
        return
    path, number = found
    text = (f"expected a whole number from -{INT_MAX} to {INT_MAX}, got a number of "
            f"{len(str(abs(number)))} digits")
    kind = raw.get("type") if isinstance(raw, dict) else None
    prefix = f"{kind}: " if isinstance(kind, str) and kind in EVENT_TYPES else ""
    raise LogFormatError(f"{prefix}field {quote(path)}: {text}" if path else text,
                         line=line, index=index, messages={path: [text]})


def _huge_number(value: Any, path: str) -> tuple[str, int] | None:
    """The path (``scores.dana``) and value of the first whole number beyond INT_MAX."""
    if type(value) is int:
        return (path, value) if abs(value) > INT_MAX else None
    items: Any = value.items() if type(value) is dict else (
        enumerate(value) if type(value) is list else ())
    for key, item in items:
        found = _huge_number(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def _json_problem(text: bytes, exc: orjson.JSONDecodeError, in_file: bool) -> str:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"not valid UTF-8 (byte 0x{text[err.start]:02x} at offset {err.start})"
    if "depth" in exc.msg or "ecursion" in exc.msg:
        return "not valid JSON: nested too deeply (at most 1024 levels)"
    where = f"line {exc.lineno}, column {exc.colno}" if in_file else f"column {exc.colno}"
    return f"not valid JSON: {exc.msg} ({where})"


_decode, _encode, _set = DECODER.decode, ENCODER.encode, msgspec.structs.force_setattr


def wire_event(text: bytes, index: int, line: int | None) -> tuple[Event, bytes] | None:
    """The event on one JSON line and its leaf, read by msgspec straight into the event
    struct; None when msgspec does not accept it exactly as the schemas would (the
    reader then takes the codec's own path, and marshmallow decides).

    Refused here, whatever the schemas say of them: a ``null`` anywhere (the structs
    cannot tell an explicit null from a missing field, which the leaf keeps apart),
    a card not written canonically, a field starting with ``_`` (the leaf keeps it,
    the struct has no place for it), a ``seq`` other than ``index``, game_started.
    """
    if b"null" in text or _LONG_DIGITS.search(text) is not None:  # big: the exact path
        return None
    try:
        event = _decode(text)
    except msgspec.DecodeError:  # and its ValidationError
        return None
    if event.index != index and event.index != -1:  # -1: no seq
        return None
    at = event.at
    if at is not None:  # Timestamp.accepts, inline
        try:
            if datetime.fromisoformat(at).tzinfo is None:
                return None
        except ValueError:
            return None
    leaf = _encode(event)  # while index and line hold what the line wrote (if anything)
    names_to_codes(event)
    _set(event, "index", index)
    _set(event, "line", line)
    return event, leaf


def parse_jsonl(data: bytes, source: str) -> Log:
    """A JSON Lines log: one event object per line; blank lines, a BOM and CRLF accepted.

    The first event (game_started) is read line by line; then, for speed, msgspec
    reads all the other lines at once (:func:`_read_wire`); if it refuses any of
    them, they are read line by line after all, each through :func:`wire_event`
    first and the codec's own path when msgspec refuses it.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    builder = _LogBuilder(source)
    lines = data.split(b"\n")
    first = 0
    while first < len(lines) and (not lines[first] or lines[first].isspace()):
        first += 1
    rest = min(first + 1, len(lines))  # the position of the line after the first event
    _read_lines(builder, lines, 0, rest)
    if not (MSGSPEC and _read_wire(builder, data, lines, rest)):
        _read_lines(builder, lines, rest, len(lines))
    return builder.finish()


def _read_wire(builder: _LogBuilder, data: bytes, lines: list[bytes], start: int) -> bool:
    """``lines[start:]`` (of ``data``) read by msgspec all at once, exactly as
    :func:`wire_event` reads each (and checked as :func:`_read_lines` would): False,
    and nothing read, if msgspec refuses one of them or one is blank or too long."""
    rest = lines[start:]
    if rest and not rest[-1]:
        rest.pop()  # the end of the last line
    if not rest:
        return True
    begin = sum(map(len, lines[:start])) + start  # where rest begins in data
    if (max(map(len, rest)) > MAX_LINE_BYTES or data.find(b"null", begin) >= 0
            or _LONG_DIGITS.search(data, begin) is not None):  # read exactly, line by line
        return False
    try:
        events = list(map(_decode, rest))  # no blank line: msgspec refuses it
    except msgspec.DecodeError:
        return False
    leaves = list(map(_encode, events))  # while the cards, index and line are as written
    checker = builder.checker
    saved = checker.state()
    check, fromisoformat, code = checker.check, datetime.fromisoformat, CODES.__getitem__
    index = len(builder.events)
    line = start + 1
    for event in events:
        written, at = event.index, event.at
        try:
            ok = (written == index or written == -1) and (
                at is None or fromisoformat(at).tzinfo is not None)
        except ValueError:
            ok = False
        if not ok:  # read again line by line
            checker.restore(saved)
            return False
        if written != index:  # no seq written
            _set(event, "index", index)
        # names_to_codes(event), inline for the moves (msgspec read names, typed as codes);
        # type(event) is X, not isinstance, which costs 80 ns on a msgspec type it is not
        if type(event) is Discard:
            cards = event.cards  # most throws are one card: a 1-tuple is built 5x faster
            _set(event, "cards", (CODES[cards[0]],) if len(cards) == 1  # type: ignore[index]
                 else tuple(map(code, cards)))  # type: ignore[arg-type]
        elif type(event) is Draw:
            if event.card is not None:
                _set(event, "card", CODES[event.card])  # type: ignore[index]
            if event.swap is not None:
                _set(event, "swap", CODES[event.swap])  # type: ignore[index]
        else:
            names_to_codes(event)
        _set(event, "line", line)
        problem = check(event)
        if problem is not None:
            raise problem_error(problem)
        index += 1
        line += 1
    builder.events.extend(events)
    builder.leaves.extend(leaves)
    return True


def _read_lines(builder: _LogBuilder, lines: list[bytes], start: int, stop: int) -> None:
    """``lines[start:stop]`` read one at a time (``start`` is the 0-based position)."""
    events, leaves, check, add = builder.events, builder.leaves, builder.checker.check, builder.add
    loads, exact = orjson.loads, _exact
    for number in range(start + 1, stop + 1):
        text = lines[number - 1]
        if len(text) > MAX_LINE_BYTES:
            size = len(text) - text.endswith(b"\r")
            if size > MAX_LINE_BYTES:
                raise LogFormatError(
                    f"the line is {size} bytes long; at most {MAX_LINE_BYTES} bytes (1 MiB) "
                    "are allowed", line=number, index=len(events),
                )
        if not text or text.isspace():
            continue
        wired = wire_event(text, len(events), number) if MSGSPEC else None
        if wired is not None:
            problem = check(wired[0])
            if problem is not None:
                raise problem_error(problem)
            events.append(wired[0])
            leaves.append(wired[1])
            continue
        try:
            raw = loads(text)
        except orjson.JSONDecodeError as exc:
            raise LogFormatError(
                _json_problem(text, exc, False), line=number, index=len(events)
            ) from None
        except (ValueError, RecursionError):
            raise LogFormatError("not valid JSON: a number or nesting too large to read",
                                 line=number, index=len(events)) from None
        add(exact(text, raw, number, len(events)), number)


def parse_json_array(data: bytes, source: str) -> Log:
    """A ``.json`` log: one top-level array of event objects; errors name the event index."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    if not data or data.isspace():
        return _LogBuilder(source).finish()  # no events
    try:
        raw = _loads(data)
    except orjson.JSONDecodeError as exc:
        raise LogFormatError(_json_problem(data, exc, True)) from None
    except (ValueError, RecursionError):
        raise LogFormatError("not valid JSON: a number or nesting too large to read") from None
    if not isinstance(raw, list):
        raise LogFormatError(
            f"a .json log holds a top-level array of events, got {show(raw)}"
        )
    builder = _LogBuilder(source)
    if _LONG_DIGITS.search(data) is not None:
        for index, item in enumerate(raw):
            check_numbers(item, None, index)
    for item in raw:
        builder.add(item, None)
    return builder.finish()


#: the path that names standard input, and how messages and reports name it
STDIN, STDIN_NAME = "-", "<stdin>"
_stdin: bytes | None = None


def stdin_bytes() -> bytes:
    """Standard input, read once (a command may name ``-`` more than once)."""
    global _stdin
    if _stdin is None:
        _stdin = sys.stdin.buffer.read()
    return _stdin


def read_log(path: str | Path) -> Log:
    """Read and check a log file: ``.json`` is an array of events, anything else JSON Lines.

    ``-`` is standard input: a JSON array if it starts with ``[``, else JSON Lines.
    """
    if str(path) == STDIN:
        data = stdin_bytes()
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            return parse_json_array(data, STDIN_NAME)
        return parse_jsonl(data, STDIN_NAME)
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise LogFormatError("is a directory, not a log file") from None
    except FileNotFoundError:
        raise LogFormatError("no such file") from None
    except OSError as exc:
        raise LogFormatError(f"cannot read the file ({exc.strerror or exc})") from None
    if path.suffix.lower() == ".json":
        return parse_json_array(data, str(path))
    return parse_jsonl(data, str(path))
