"""The fast path of the reader: event checkers compiled from the marshmallow schemas.

marshmallow is the one definition of what an event may hold, and it writes every
error message; but it checks about 40,000 events a second, and an audit must read
hundreds of thousands. So at import, :func:`compile_reader` turns each event
schema into a plain Python function (generated source, ``exec``-ed once) that
checks a parsed event field by field, exactly as the schema's fields and
validators would, and builds the typed event directly. The generated code is
derived from the schema objects themselves (field classes, ``required``,
``allow_none``, validators, nested schemas, the schema's hooks), so a field
added to a schema is checked by the fast path too; a field of a kind the
compiler does not know makes :func:`compile_reader` raise :class:`Unsupported`
(the reader then keeps that event type on marshmallow, and the tests fail).

A fast checker never produces an error. When it rejects anything, or sees
anything it does not expect (a value of a non-JSON type, such as a tuple or a
str subclass), it returns None and the caller runs marshmallow, which accepts
or writes the detailed error. The fast path therefore only has to be
*sound* (accept only what marshmallow accepts, building the same event); the
tests also show it is *complete* over JSON values (it rejects nothing
marshmallow accepts), so a valid log never pays for marshmallow.

It also tells the reader how to encode the event's leaf
(docs/fingerprints.md): :data:`PLAIN` (every card already canonical and only JSON strings,
integers, booleans, nulls, lists and objects: ``orjson.dumps`` with sorted keys
gives exactly the bytes of the ``json.dumps`` definition), :data:`NORMALIZE`
(the same after writing the cards canonically) or :data:`EXACT` (a float
somewhere in a free value: the exact ``json.dumps`` encoder, see
:func:`canonical_leaf`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import msgspec
import orjson
from marshmallow import EXCLUDE, RAISE, Schema, ValidationError, fields, missing, validate

from .canonical import CARD_FIELDS, CARD_LIST_FIELDS, HANDS_FIELD
from .cards import NAMES, Card, parse_card
from .errors import CardError

#: how a fast-read event's leaf is encoded
PLAIN, NORMALIZE, EXACT = 0, 1, 2
SORT_KEYS = orjson.OPT_SORT_KEYS

#: a checker's answer: the typed event and its leaf encoding, or None (ask marshmallow)
Reader = Callable[[dict[str, Any], int, "int | None"], "tuple[Any, int] | None"]


class Unsupported(Exception):
    """A schema or field the compiler cannot turn into a fast checker."""


_FAIL: Any = object()
_MISSING: Any = object()

#: the canonical spelling of every card -> its code (the common case, one dict lookup)
CANONICAL: dict[str, Card] = {name: code for code, name in enumerate(NAMES)}


def card_code(text: str) -> Card | None:
    """A card in any spelling :func:`~yaniv_audit.cards.parse_card` accepts, else None."""
    try:
        return parse_card(text)
    except CardError:
        return None


def card_codes(texts: list[Any]) -> tuple[Card, ...] | None:
    """A list of cards in any spelling -> codes, or None if one is not a card."""
    out = []
    for text in texts:
        if type(text) is not str:
            return None
        code = card_code(text)
        if code is None:
            return None
        out.append(code)
    return tuple(out)


# --- the leaf encoding -------------------------------------------------------------


def json_plain(value: Any) -> bool:
    """Whether ``value`` holds only str, int, bool, None, lists and str-keyed dicts:
    the values for which ``orjson.dumps(value, option=OPT_SORT_KEYS)`` writes exactly
    the bytes of ``json.dumps(value, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False).encode()`` (floats are written differently; integers beyond
    64 bits make orjson raise, which :func:`canonical_leaf` catches)."""
    try:
        return _plain(value)
    except RecursionError:
        return False


def _plain(value: Any) -> bool:
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return True
    if t is list:
        return all(map(_plain, value))
    if t is dict:
        return all(type(k) is str for k in value) and all(map(_plain, value.values()))
    return False


def canonical_leaf(event: Any) -> bytes:
    """Exactly ``json.dumps(event, sort_keys=True, separators=(",", ":"),
    ensure_ascii=False).encode("utf-8")`` (the leaf of docs/fingerprints.md),
    through orjson where that is provably the same bytes."""
    if json_plain(event):
        try:
            return orjson.dumps(event, option=SORT_KEYS)
        except orjson.JSONEncodeError:
            pass  # an integer beyond 64 bits, a lone surrogate, nesting past orjson's limit
    return json.dumps(
        event, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    ).encode("utf-8")


# --- the compiler -------------------------------------------------------------------

#: marshmallow's own field classes the compiler knows, by exact class
_BASE_KINDS: dict[type, str] = {
    fields.String: "string",
    fields.Dict: "dict",
    fields.List: "list",
    fields.Nested: "nested",
}
#: what kind of value normalize_event rewrites under each top-level key
_NORMALIZED = {**dict.fromkeys(CARD_FIELDS, "card"), **dict.fromkeys(CARD_LIST_FIELDS, "card_list"),
               HANDS_FIELD: "hands"}


def field_kind(field: fields.Field[Any]) -> str:
    """The kind of a field: a marshmallow base class the compiler knows, or a
    project field class that declares ``fast_kind`` itself (not inherited)."""
    kind = type(field).__dict__.get("fast_kind") or _BASE_KINDS.get(type(field))
    if kind is None:
        raise Unsupported(f"no fast checker for a {type(field).__name__} field")
    return kind


class _Compiler:
    def __init__(self) -> None:
        self.ns: dict[str, Any] = {
            "FAIL": _FAIL, "M": _MISSING, "ValidationError": ValidationError,
            "CANON_GET": CANONICAL.get, "card_code": card_code, "card_codes": card_codes,
            "json_plain": json_plain, "fromisoformat": datetime.fromisoformat,
        }
        self.defs: list[str] = []
        self.count = 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}{self.count}"

    def const(self, obj: Any, hint: str = "C") -> str:
        name = self.name(hint)
        self.ns[name] = obj
        return name

    # -- one value ------------------------------------------------------------

    def value(self, field: fields.Field[Any], src: str, dst: str, fail: str, top: bool,
              ind: str, also: str = "") -> list[str]:
        """Statements that check the raw value in ``src`` as ``field.deserialize`` would
        and put the result in ``dst``, running ``fail`` when it would raise (or when the
        condition ``also`` on ``dst`` holds)."""
        _check_field(field)
        kind = field_kind(field)
        simple = {"string": "str", "strict_int": "int"}.get(kind)
        tests = self.tests(field, dst)
        if simple and tests is not None and not field.allow_none:  # one test, no conversion
            if kind == "strict_int" and not getattr(field, "strict", False):
                raise Unsupported("integers must be strict")
            test = " or ".join([f"type({dst}) is not {simple}", *tests, *([also] if also else [])])
            return [f"{ind}{dst} = {src}", f"{ind}if {test}:", f"{ind}    {fail}"]
        if also:
            return [*self.value(field, src, dst, fail, top, ind), f"{ind}if {also}:",
                    f"{ind}    {fail}"]
        if kind == "delegate":  # marshmallow's own deserialize, then a look for floats
            if not top:
                raise Unsupported("a delegated field is checked at the top level only")
            f = self.const(field, "F")
            return [f"{ind}try:", f"{ind}    {dst} = {f}.deserialize({src})",
                    f"{ind}except ValidationError:", f"{ind}    {fail}",
                    f"{ind}if not json_plain({src}):", f"{ind}    free = True"]
        out: list[str] = []
        if field.allow_none:
            out += [f"{ind}if {src} is None:", f"{ind}    {dst} = None", f"{ind}else:"]
            ind += "    "
        out += self.convert(kind, field, src, dst, fail, top, ind)
        out += self.validators(field, dst, fail, ind)
        return out

    def convert(self, kind: str, field: Any, src: str, dst: str, fail: str, top: bool,
                ind: str) -> list[str]:
        if kind == "string":
            return [f"{ind}if type({src}) is not str:", f"{ind}    {fail}", f"{ind}{dst} = {src}"]
        if kind == "strict_int":
            if not getattr(field, "strict", False):
                raise Unsupported("integers must be strict")
            return [f"{ind}if type({src}) is not int:", f"{ind}    {fail}", f"{ind}{dst} = {src}"]
        if kind == "timestamp":  # Timestamp.accepts, inline
            return [f"{ind}if type({src}) is not str:", f"{ind}    {fail}",
                    f"{ind}try:", f"{ind}    if fromisoformat({src}).tzinfo is None:",
                    f"{ind}        {fail}", f"{ind}except ValueError:", f"{ind}    {fail}",
                    f"{ind}{dst} = {src}"]
        if kind == "card":
            if not top:
                raise Unsupported("cards are checked at the top level only")
            return [f"{ind}{dst} = CANON_GET({src}) if type({src}) is str else None",
                    f"{ind}if {dst} is None:",
                    f"{ind}    if type({src}) is not str:", f"{ind}        {fail}",
                    f"{ind}    {dst} = card_code({src})",
                    f"{ind}    if {dst} is None:", f"{ind}        {fail}",
                    f"{ind}    canon = False"]
        if kind == "card_list":
            if not top:
                raise Unsupported("cards are checked at the top level only")
            if field_kind(field.inner) != "card" or field.inner.validators or (
                    field.inner.allow_none):
                raise Unsupported("a card list holds plain cards")
            _check_field(field.inner)
            one = self.name("one")
            return [f"{ind}if type({src}) is not list:", f"{ind}    {fail}",
                    f"{ind}if len({src}) == 1:",  # a single card (most throws): no map
                    f"{ind}    {one} = {src}[0]",
                    f"{ind}    {dst} = (CANON_GET({one}) if type({one}) is str else None,)",
                    f"{ind}else:",
                    f"{ind}    try:", f"{ind}        {dst} = tuple(map(CANON_GET, {src}))",
                    f"{ind}    except TypeError:", f"{ind}        {fail}",
                    f"{ind}if None in {dst}:",
                    f"{ind}    {dst} = card_codes({src})",
                    f"{ind}    if {dst} is None:", f"{ind}        {fail}",
                    f"{ind}    canon = False"]
        if kind == "list":
            acc, item, got = self.name("acc"), self.name("item"), self.name("got")
            return [f"{ind}if type({src}) is not list:", f"{ind}    {fail}",
                    f"{ind}{acc} = []", f"{ind}for {item} in {src}:",
                    *self.value(field.inner, item, got, fail, top, ind + "    "),
                    f"{ind}    {acc}.append({got})", f"{ind}{dst} = {acc}"]
        if kind == "dict":
            out = [f"{ind}if type({src}) is not dict:", f"{ind}    {fail}"]
            if field.key_field is None and field.value_field is None:
                if not top:
                    raise Unsupported("a free object is checked at the top level only")
                return out + [f"{ind}{dst} = dict({src})",
                              f"{ind}if not json_plain({dst}):", f"{ind}    free = True"]
            acc, key, val = self.name("acc"), self.name("key"), self.name("val")
            k2, v2 = self.name("k"), self.name("v")
            body = [f"{ind}{acc} = {{}}", f"{ind}for {key}, {val} in {src}.items():"]
            if field.key_field is None:
                body.append(f"{ind}    {k2} = {key}")
            else:
                body += self.value(field.key_field, key, k2, fail, top, ind + "    ")
            if field.value_field is None:
                if not top:
                    raise Unsupported("free values are checked at the top level only")
                body += [f"{ind}    {v2} = {val}", f"{ind}    if not json_plain({v2}):",
                         f"{ind}        free = True"]
            else:
                body += self.value(field.value_field, val, v2, fail, top, ind + "    ")
            return out + body + [f"{ind}    {acc}[{k2}] = {v2}", f"{ind}{dst} = {acc}"]
        if kind == "either":
            choices = self.const(tuple(self.function(c) for c in field.choices), "CHOICES")
            fn = self.name("fn")
            return [f"{ind}for {fn} in {choices}:", f"{ind}    {dst} = {fn}({src})",
                    f"{ind}    if {dst} is not FAIL:", f"{ind}        break",
                    f"{ind}else:", f"{ind}    {fail}"]
        if kind == "nested":
            if field.many or field.unknown is not None or field.only or field.exclude:
                raise Unsupported("a nested schema is loaded as declared")
            reader = self.const(self.nested(field.schema), "NESTED")
            return [f"{ind}{dst} = {reader}({src})", f"{ind}if {dst} is FAIL:", f"{ind}    {fail}"]
        raise Unsupported(f"no fast checker for fields of kind {kind!r}")

    def tests(self, field: fields.Field[Any], dst: str) -> list[str] | None:
        """The field's validators as conditions on ``dst`` that fail it, or None if one
        of them must be called."""
        out = []
        for v in field.validators:
            test = self.test(field, v, dst)
            if test is None:
                return None
            out.append(test)
        return out

    def test(self, field: fields.Field[Any], v: Any, dst: str) -> str | None:
        sized = field_kind(field) in ("string", "card_list", "list")  # len(x) < 1 is not x
        if type(v) is validate.Length:
            if sized and v.equal is None and v.min == 1 and v.max is None:
                return f"not {dst}"
            if v.equal is not None:
                return f"len({dst}) != {v.equal!r}"
            tests = ([f"len({dst}) < {v.min!r}"] if v.min is not None else []) + (
                [f"len({dst}) > {v.max!r}"] if v.max is not None else [])
            return " or ".join(tests) or "False"
        if type(v) is validate.Range:
            tests = []
            if v.min is not None:
                tests.append(f"{dst} {'<' if v.min_inclusive else '<='} {self.const(v.min)}")
            if v.max is not None:
                tests.append(f"{dst} {'>' if v.max_inclusive else '>='} {self.const(v.max)}")
            return " or ".join(tests) or "False"
        if type(v) is validate.Equal:
            return f"{dst} != {self.const(v.comparable)}"
        if type(v) is validate.OneOf:
            return f"{dst} not in {self.const(v.choices)}"
        return None

    def validators(self, field: fields.Field[Any], dst: str, fail: str, ind: str) -> list[str]:
        out: list[str] = []
        for v in field.validators:
            test = self.test(field, v, dst)
            if test is None:  # any other validator: call it, as marshmallow does
                call = self.const(v, "V")
                out += [f"{ind}try:", f"{ind}    {call}({dst})",
                        f"{ind}except ValidationError:", f"{ind}    {fail}"]
            else:
                out += [f"{ind}if {test}:", f"{ind}    {fail}"]
        return out

    # -- functions ------------------------------------------------------------

    def function(self, field: fields.Field[Any]) -> Callable[[Any], Any]:
        """A standalone checker of one field: the value, or FAIL."""
        name = self.name("field_")
        self.emit([f"def {name}(v):", *self.value(field, "v", "r", "return FAIL", False, "    "),
                   "    return r"])
        return self.ns[name]  # type: ignore[no-any-return]

    def nested(self, schema: Schema) -> Callable[[Any], Any]:
        """A checker of a nested schema's object: the loaded dict, or FAIL."""
        _check_schema(schema)
        if any(schema._hooks.values()):
            raise Unsupported(f"{type(schema).__name__} has hooks")
        if schema.opts.unknown not in (RAISE, EXCLUDE):
            raise Unsupported(f"{type(schema).__name__}: unknown must be RAISE or EXCLUDE")
        name = self.name("nested_")
        lines = [f"def {name}(v):", "    if type(v) is not dict:", "        return FAIL",
                 "    out = {}", "    n = 0"]
        for key, field in schema.load_fields.items():
            raw, got = self.name("raw"), self.name("got")
            lines += [f"    {raw} = v.get({key!r}, M)", f"    if {raw} is not M:", "        n += 1",
                      *self.value(field, raw, got, "return FAIL", False, "        "),
                      f"        out[{key!r}] = {got}"]
            if field.required:
                lines += ["    else:", "        return FAIL"]
        if schema.opts.unknown == RAISE:
            lines += ["    if n != len(v):", "        return FAIL"]
        lines.append("    return out")
        self.emit(lines)
        return self.ns[name]  # type: ignore[no-any-return]

    def emit(self, lines: list[str]) -> None:
        source = "\n".join(lines) + "\n"
        self.defs.append(source)
        exec(compile(source, f"<yaniv_audit.fastpath {lines[0]}>", "exec"), self.ns)


def _check_field(field: fields.Field[Any]) -> None:
    """The field options the compiler honours: anything else is Unsupported."""
    if field.data_key is not None or field.attribute is not None:
        raise Unsupported(f"{field.name}: data_key and attribute are not supported")
    if field.load_default is not missing:
        raise Unsupported(f"{field.name}: load_default is not supported")
    if field.pre_load or field.post_load or field.dump_only:
        raise Unsupported(f"{field.name}: field processors are not supported")


def _check_schema(schema: Schema) -> None:
    if schema.many or schema.partial or schema.only is not None or schema.exclude:
        raise Unsupported(f"{type(schema).__name__}: many/partial/only/exclude")
    if schema.load_fields.keys() != schema.fields.keys():
        raise Unsupported(f"{type(schema).__name__}: load-only or dump-only fields")


def compile_reader(
    kind: str,
    schema: Schema,
    event_class: type,
    *,
    extras_hook: str,
    extras_ok: Callable[[Any], bool],
    builders: Mapping[str, Callable[..., Any]],
    seq_field: str = "seq",
    at_field: str = "at",
) -> Reader:
    """The fast checker and builder of one event type.

    ``reader(raw, index, line)`` returns ``(event, leaf)`` (``leaf`` one of
    :data:`PLAIN`, :data:`NORMALIZE`, :data:`EXACT`) exactly when
    ``schema.load(raw)``, the ``seq`` check and the typed-event construction of
    the codec succeed with that event; None when it cannot tell (marshmallow then
    decides). ``extras_hook`` names the schema validator that allows unknown fields
    starting with ``_`` whose value passes ``extras_ok``; ``builders`` holds the
    codec's own builders of the event types whose data needs more than the
    event constructor (called as ``builder(data, index, line, at)``).
    """
    _check_schema(schema)
    hooks = {tag: names for tag, names in schema._hooks.items() if names}
    if hooks != {"validates_schema": [(extras_hook, False, {
            "pass_original": True, "skip_on_field_errors": False})]}:
        raise Unsupported(f"{kind}: schema hooks {hooks}")
    if schema.opts.unknown != EXCLUDE:
        raise Unsupported(f"{kind}: unknown fields are named by {extras_hook}")
    known = frozenset(schema.fields)
    c = _Compiler()
    c.ns["EXTRAS"] = _extras_checker(known, extras_ok)
    type_field = schema.fields.get("type")
    if not (type(type_field) is fields.String and type_field.required
            and [(type(v), getattr(v, "comparable", None)) for v in type_field.validators]
            == [(validate.Equal, kind)]):
        raise Unsupported(f"{kind}: the type field must be required and equal {kind!r}")
    loaded = {name: field for name, field in schema.load_fields.items() if name != "type"}
    data_names = [n for n in loaded if n not in (seq_field, at_field)]
    special = kind in builders
    if special:
        c.ns["BUILD"] = builders[kind]
        defaults = dict.fromkeys(data_names, "M")
    else:
        c.ns["CLS"] = event_class
        defaults = _positional(kind, schema, event_class, data_names, c)
    defaults[at_field] = "None"
    required = sum(field.required for field in loaded.values())
    lines = [f"def read_{kind}(raw, index, line):", "    canon = True", "    free = False",
             f"    n = {1 + required}"]
    for name, field in loaded.items():
        want = _NORMALIZED.get(name)
        if want is not None and _value_kind(field) != want:
            raise Unsupported(f"{kind}.{name}: normalize_event rewrites it as {want}")
        raw, var = c.name("raw"), f"f_{name}"
        also = f"{var} != index" if name == seq_field else ""  # the codec's seq check
        if field.required:  # missing: KeyError, caught below
            lines += [f"    {raw} = raw[{name!r}]",
                      *c.value(field, raw, var, "return None", True, "    ", also)]
        else:
            lines += [f"    {raw} = raw.get({name!r}, M)", f"    if {raw} is M:",
                      f"        {var} = {defaults.get(name, 'M')}", "    else:", "        n += 1",
                      *c.value(field, raw, var, "return None", True, "        ", also)]
    lines += ["    if n != len(raw):", "        extra = EXTRAS(raw)", "        if extra is None:",
              "            return None", "        if extra:", "            free = True"]
    at = f"f_{at_field}" if at_field in loaded else "None"
    if special:
        lines += ["    data = {}"]
        for name in data_names:
            lines += [f"    if f_{name} is not M:", f"        data[{name!r}] = f_{name}"]
        lines.append(f"    event = BUILD(data, index, line, {at})")
    else:
        values = {"index": "index", "line": "line", "at": at,
                  **{n: f"f_{n}" for n in defaults if n != at_field}}
        lines.append(f"    event = CLS({', '.join(f'{k}={v}' for k, v in values.items())})")
    lines.append("    return event, (2 if free else 0 if canon else 1)")
    body = ["    " + line for line in lines[1:]]
    lines = [lines[0], "  try:", *body, "  except KeyError:", "    return None"]
    c.emit(lines)
    reader: Reader = c.ns[f"read_{kind}"]
    reader.source = "".join(c.defs)  # type: ignore[attr-defined]
    reader.fields = ("type", *loaded)  # type: ignore[attr-defined]
    return reader


def _value_kind(field: fields.Field[Any]) -> str:
    kind = field_kind(field)
    values = getattr(field, "value_field", None)
    if kind == "dict" and values is not None and field_kind(values) == "card_list":
        return "hands"
    return kind


def _positional(kind: str, schema: Schema, event_class: type, data_names: list[str],
                c: _Compiler) -> dict[str, str]:
    """The event struct's fields after (index, line, at), each with the expression of
    its default (for optional schema fields)."""
    if not (isinstance(event_class, type) and issubclass(event_class, msgspec.Struct)):
        raise Unsupported(f"{kind}: {event_class.__name__} is not a msgspec Struct")
    info = msgspec.structs.fields(event_class)
    if [f.name for f in info[-3:]] != ["index", "line", "at"]:
        raise Unsupported(f"{kind}: {event_class.__name__} ends with index, line, at")
    rest = {f.name: f for f in info[:-3]}
    if set(rest) != set(data_names):
        raise Unsupported(f"{kind}: the schema's fields {sorted(data_names)} are not "
                          f"{event_class.__name__}'s {sorted(rest)}")
    args: dict[str, str] = {}
    for name, f in rest.items():
        if schema.fields[name].required:
            args[name] = "M"
        elif f.required:
            raise Unsupported(f"{kind}.{name}: optional in the schema, no default in the event")
        else:
            args[name] = c.const(f.default, "DEFAULT")
    return args


def _extras_checker(known: frozenset[str], extras_ok: Callable[[Any], bool]
                    ) -> Callable[[dict[str, Any]], bool | None]:
    """The schema hook on the unknown fields: None if one is refused, else whether
    one holds something other than plain JSON values (a float)."""

    def extras(raw: dict[str, Any]) -> bool | None:
        free = False
        for key, value in raw.items():
            if key in known:
                continue
            if type(key) is not str or not key.startswith("_") or not extras_ok(value):
                return None
            if not free and not json_plain(value):
                free = True
        return free

    return extras
