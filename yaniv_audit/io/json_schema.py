"""The JSON Schema (draft 2020-12) of a marshmallow schema: the converter behind
``schemas/`` (:mod:`yaniv_audit.schema_export` writes the files) and the report's
schemas (:mod:`yaniv_audit.io.report_schema`).

It walks marshmallow fields and their validators (``Length``, ``Range``, ``OneOf``,
``Equal``, ``Regexp``). A custom field states its own schema with a
``json_schema(convert)`` method; a schema class may add keywords with a
``json_schema_extra`` class attribute.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from marshmallow import EXCLUDE, INCLUDE, Schema, fields, validate

JsonSchema = dict[str, Any]
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def field_schema(field: fields.Field[Any]) -> JsonSchema:
    """The JSON Schema of one marshmallow field, validators and ``allow_none`` included."""
    hook = getattr(field, "json_schema", None)
    if callable(hook):
        out: JsonSchema = hook(field_schema)
    elif isinstance(field, fields.Nested):
        nested = field.schema
        out = object_schema(nested if isinstance(nested, Schema) else nested())
    elif isinstance(field, fields.List):
        out = {"type": "array", "items": field_schema(field.inner)}
    elif isinstance(field, fields.Dict):
        out = {"type": "object"}
        if field.key_field is not None:
            out["propertyNames"] = field_schema(field.key_field)
        if field.value_field is not None:
            out["additionalProperties"] = field_schema(field.value_field)
    elif isinstance(field, fields.Boolean):
        out = {"type": "boolean"}
    elif isinstance(field, fields.Integer):
        out = {"type": "integer"}
    elif isinstance(field, fields.Number):
        out = {"type": "number"}
    elif isinstance(field, fields.String):
        out = {"type": "string"}
    elif type(field) is fields.Raw:
        out = {}
    else:
        raise TypeError(
            f"no JSON Schema for the field {type(field).__name__}: give it a "
            "json_schema(convert) method"
        )
    for validator in field.validators:
        out.update(_validator_schema(validator, out.get("type")))
    description = field.metadata.get("description")
    if description:
        out = {"description": description, **out}
    if field.allow_none:
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def _validator_schema(validator: Any, kind: str | None) -> JsonSchema:
    if isinstance(validator, validate.Equal):
        return {"const": validator.comparable}
    if isinstance(validator, validate.OneOf):
        return {"enum": list(validator.choices)}
    if isinstance(validator, validate.Regexp):
        return {"pattern": validator.regex.pattern}
    if isinstance(validator, validate.Range):
        out: JsonSchema = {}
        if validator.min is not None:
            out["minimum" if validator.min_inclusive else "exclusiveMinimum"] = validator.min
        if validator.max is not None:
            out["maximum" if validator.max_inclusive else "exclusiveMaximum"] = validator.max
        return out
    if isinstance(validator, validate.Length):
        noun = {"string": "Length", "array": "Items", "object": "Properties"}.get(kind or "")
        if noun is None:
            return {}
        low = validator.equal if validator.equal is not None else validator.min
        high = validator.equal if validator.equal is not None else validator.max
        out = {}
        if low is not None:
            out[f"min{noun}"] = low
        if high is not None:
            out[f"max{noun}"] = high
        return out
    return {}  # a check JSON Schema cannot state


def object_schema(schema: Schema) -> JsonSchema:
    """The JSON Schema of a marshmallow schema's input: its load fields by data key."""
    out: JsonSchema = {"type": "object"}
    doc = inspect.getdoc(type(schema))
    if doc:
        out["description"] = " ".join(doc.split("\n\n")[0].split())
    properties: JsonSchema = {}
    required: list[str] = []
    for name, field in schema.load_fields.items():
        key = field.data_key or name
        properties[key] = field_schema(field)
        if field.required:
            required.append(key)
    out["properties"] = properties
    if required:
        out["required"] = required
    if schema.unknown not in (INCLUDE, EXCLUDE):
        out["additionalProperties"] = False
    out.update(getattr(schema, "json_schema_extra", {}))
    return out


def tagged_union(title: str, schemas: Mapping[str, Schema], tag: str = "type") -> JsonSchema:
    """One document accepting any of ``schemas``, told apart by the ``tag`` field."""
    return {
        "$schema": DRAFT,
        "title": title,
        "type": "object",
        "required": [tag],
        "properties": {tag: {"enum": list(schemas)}},
        "oneOf": [{"$ref": f"#/$defs/{name}"} for name in schemas],
        "$defs": {name: object_schema(schema) for name, schema in schemas.items()},
    }
