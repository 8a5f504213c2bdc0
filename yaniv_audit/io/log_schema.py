"""The schema of record of a log's events: the marshmallow schemas, their strict
fields, and the errors they write (docs/log-format.md).

The schemas are the one definition of what an event may hold;
``schemas/log-event.schema.json`` and the OpenAPI document are generated from them.
Every field is strict: nothing is coerced, so ``"5"`` is not a number and ``true``
is not an integer. :mod:`yaniv_audit.io.codec` reads a log with msgspec and hands an
event msgspec refuses to :func:`slow_event_from_dict`, which accepts it after all or
writes the error: every field's problem, with what it expected and what it got.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar

import orjson
from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from ..core import structure
from ..core.cards import Card, parse_card
from ..core.errors import CardError, LogFormatError, RulesError
from ..core.events import (
    EVENT_TYPES,
    FORMAT,
    INT_MAX,
    MAX_PLAYER_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Event,
    GameEnded,
    GameStarted,
    Withdraw,
)
from ..core.rules import PARAMS, PRESETS, parse_rules, rules_from_mapping

#: how deep a free value (``meta``, ``_`` fields) may nest, the event being level 1
MAX_DEPTH = 64
UNKNOWN_FIELD = "unknown field (fields starting with _ are allowed)"
MISSING_FIELD = "missing (required)"
CARD_SPELLING = "rank A 2-9 T (or 10) J Q K then suit C D H S (or ♣ ♦ ♥ ♠), or JK"

#: a field the event does not have (marshmallow's messages say what it got otherwise)
MISSING: Any = object()

JsonSchema = dict[str, Any]
Convert = Callable[["fields.Field[Any]"], JsonSchema]


# --- fields --------------------------------------------------------------


def _expect(what: str) -> dict[str, str | list[Any] | dict[Any, Any]]:
    """Error messages of a field: what it expects (the reader appends what it got)."""
    text = f"expected {what}".replace("{", "{{").replace("}", "}}")  # marshmallow formats it
    return {"invalid": text, "null": text, "type": text, "required": MISSING_FIELD}


class StrictInteger(fields.Integer):
    """An integer as JSON writes it: not ``"5"``, not ``5.5``, not ``true``; and within
    ``INT_MAX`` either way, as msgspec's event structs read it (``events.Whole``)."""

    default_error_messages = {  # noqa: RUF012 (marshmallow's own attribute, read not written)
        "huge": f"expected a whole number from -{INT_MAX} to {INT_MAX}",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _validated(self, value: Any) -> int:
        if value is True or value is False:
            raise self.make_error("invalid")
        number = super()._validated(value)
        if not -INT_MAX <= number <= INT_MAX:
            raise self.make_error("huge")
        return number


class CardField(fields.Field[Card]):
    """One card, any spelling :func:`~yaniv_audit.core.cards.parse_card` accepts -> its code."""

    #: the spellings parse_card accepts, for JSON Schema
    PATTERN = r"^\s*(?:(?:[Aa2-9TtJjQqKk]|10)[CcDdHhSs♣♦♥♠♧♢♡♤]|[Jj][Kk])\s*$"

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
        said = None
        for choice in self.choices:
            try:
                return choice.deserialize(value)
            except ValidationError as exc:
                if isinstance(value, str) and isinstance(choice, fields.String):
                    said = exc  # a string's own field says what is wrong with it (too long)
                continue
        raise said or self.make_error("invalid")

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
                s = {
                    "type": "object",
                    "propertyNames": {"pattern": r"^\s*[0-9]{1,5}\s*$"},
                    "additionalProperties": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": p.maximum - 1,
                    },
                }
            else:
                s = {"type": "integer", "minimum": p.minimum, "maximum": p.maximum}
            if p.nullable:
                s = {"anyOf": [s, {"type": "null"}]}
            params[p.name] = {"description": p.help, **s}
        return {
            "anyOf": [
                {"type": "string", "minLength": 1, "description": "a rule-set id"},
                {
                    "type": "object",
                    "required": ["base"],
                    "properties": params,
                    "additionalProperties": False,
                },
            ]
        }


def _player(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=[
            validate.Length(min=1, error="expected a player id (a non-empty string)"),
            validate.Length(
                max=MAX_PLAYER_ID,
                error=f"expected a player id of at most {MAX_PLAYER_ID} characters",
            ),
        ],
        error_messages=_expect("a player id (a non-empty string)"),
        **kwargs,
    )


def _integer(what: str = "a whole number", **kwargs: Any) -> StrictInteger:
    return StrictInteger(error_messages=_expect(what), **kwargs)


def _text(what: str = "a string", **kwargs: Any) -> fields.String:
    return fields.String(error_messages=_expect(what), **kwargs)


def _scores(**kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=_player(),
        values=_integer(),
        error_messages=_expect("an object {player: whole number}"),
        **kwargs,
    )


def _hands(**kwargs: Any) -> fields.Dict:
    return fields.Dict(
        keys=_player(),
        values=CardList(),
        error_messages=_expect("an object {player: list of cards}"),
        **kwargs,
    )


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.Equal(name))


def depth_within(value: Any, levels: int) -> bool:
    """Whether ``value`` nests at most ``levels`` levels of objects and lists."""
    if isinstance(value, dict):
        return levels > 0 and all(depth_within(v, levels - 1) for v in value.values())
    if isinstance(value, list):
        return levels > 0 and all(depth_within(v, levels - 1) for v in value)
    return True


_TOO_DEEP = f"nested too deeply (at most {MAX_DEPTH} levels)"


def _shallow(value: Any) -> None:
    """A free value must stay shallow enough to be encoded as a leaf."""
    if not depth_within(value, MAX_DEPTH - 1):
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
        "patternProperties": {"^_": {}},
        "additionalProperties": False,
    }

    type = fields.String(required=True)
    seq = _integer(
        "a whole number >= 0",
        validate=validate.Range(min=0, error="expected a whole number >= 0"),
        metadata={"description": "must equal the event's 0-based position"},
    )
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
            elif not depth_within(value, MAX_DEPTH - 1):
                problems[key] = [_TOO_DEEP]
        if problems:
            raise ValidationError(problems)


class GameStartedSchema(EventSchema):
    """The table: who sits where, and the rules they agreed on."""

    type = _type("game_started")
    format = _text(
        f'"{FORMAT}"', required=True, validate=validate.Equal(FORMAT, error=f'expected "{FORMAT}"')
    )
    players = fields.List(
        Either(
            _player(),
            fields.Nested(PlayerSchema),
            expected='a player id or an object {"id": ..., "name": ...}',
        ),
        required=True,
        validate=validate.Length(min=MIN_PLAYERS, max=MAX_PLAYERS, error="expected 2 to 8 players"),
        error_messages=_expect("a list of players"),
        metadata={"description": "the seating and turn order"},
    )
    rules = RulesField(required=True)
    game_id = _text()
    meta = fields.Dict(
        validate=_shallow,
        error_messages=_expect("an object"),
        metadata={"description": "free: place, date, recorder"},
    )


class RoundStartedSchema(EventSchema):
    """The deal. Without ``hands`` the round's moves were not recorded."""

    type = _type("round_started")
    round = _integer(
        "a round number >= 1",
        required=True,
        validate=validate.Range(min=1, error="expected a round number >= 1"),
    )
    starter = _player(required=True)
    hands = _hands(metadata={"description": "every player still in -> their cards"})
    upcard = CardField(metadata={"description": "allowed only with hands"})
    stock = CardList(
        metadata={"description": "the whole remaining stock, top first; allowed only with hands"}
    )
    dealer = _player()


class DiscardSchema(EventSchema):
    """The throw, in the order placed on the pile."""

    type = _type("discard")
    player = _player(required=True)
    cards = CardList(
        "a non-empty list of cards",
        required=True,
        validate=validate.Length(min=1, error="expected a non-empty list of cards"),
    )


class DrawSchema(EventSchema):
    """The draw after a throw, from the stock or from the previous throw."""

    type = _type("draw")
    player = _player(required=True)
    source = _text(
        '"stock" or "pile"',
        required=True,
        validate=validate.OneOf(["stock", "pile"], error='expected "stock" or "pile"'),
    )
    card = CardField(
        metadata={
            "description": "required for the pile, and for the stock unless its order is known"
        }
    )
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
    caller = _player(
        required=True,
        allow_none=True,
        metadata={"description": "null when the stock ran out (round_ends)"},
    )
    hands = _hands(required=True)
    totals = _scores(
        metadata={
            "description": "scoresheets only: player -> the total shown, "
            "for players whose cards were not kept (a "
            "player is in hands or in totals, not both)"
        }
    )


class RoundEndedSchema(EventSchema):
    """What the table wrote down for the round: checked, never trusted."""

    type = _type("round_ended")
    round = _integer(
        "a round number >= 1",
        required=True,
        validate=validate.Range(min=1, error="expected a round number >= 1"),
    )
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
        _integer(
            "an event's seq (a whole number >= 0)",
            validate=validate.Range(min=0, error="expected an event's seq (>= 0)"),
        ),
        required=True,
        validate=validate.Length(min=1, error="expected a non-empty list of seqs"),
        error_messages=_expect("a non-empty list of seqs (whole numbers)"),
        metadata={
            "description": "the seq numbers (0-based event indexes where the log "
            "writes no seq) of the latest entries still standing, "
            "taken back"
        },
    )
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


def slow_event_from_dict(raw: dict[str, Any], index: int, line: int | None) -> Event:
    """:func:`event_from_dict` through marshmallow alone (the reference of msgspec's)."""
    if not isinstance(raw, dict):
        raise LogFormatError(
            f'expected an event object {{"type": ...}}, got {show(raw)}', line=line, index=index
        )
    kind = raw.get("type", MISSING)
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
                f'{kind}: field "seq": {problem}',
                line=line,
                index=index,
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
    if kind is MISSING:
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
        _flatten(errors[key], field, raw.get(key, MISSING), key, found)
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
            sub_raw = raw.get(key, MISSING) if isinstance(raw, dict) else MISSING
            if "key" in sub:
                out[sub_path] = ["key: " + "; ".join(map(str, sub["key"]))]
            if "value" in sub:
                _flatten(sub["value"], field.value_field, sub_raw, sub_path, out)
        elif isinstance(field, fields.List):
            ok = isinstance(raw, list) and isinstance(key, int) and key < len(raw)
            _flatten(sub, field.inner, raw[key] if ok else MISSING, sub_path, out)
        else:
            nested = field.schema.fields if isinstance(field, fields.Nested) else {}
            sub_raw = raw.get(key, MISSING) if isinstance(raw, dict) else MISSING
            _flatten(sub, nested.get(key), sub_raw, sub_path, out)


def _with_got(text: str, raw: Any) -> str:
    if raw is MISSING or not text.startswith("expected "):
        return text
    return f"{text}, got {show(raw)}"


def show(value: Any, limit: int = 60) -> str:
    """A short JSON rendering of a value for a one-line message."""
    if isinstance(value, (list, dict)):
        text = None
        if len(value) <= 8:
            with contextlib.suppress(orjson.JSONEncodeError):
                text = orjson.dumps(value).decode()
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
