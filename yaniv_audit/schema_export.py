"""JSON Schema (draft 2020-12) of the files the project reads and writes, generated
from the marshmallow schemas so that the two cannot drift apart.

``python -m yaniv_audit.schema_export`` rewrites ``schemas/``; with ``--check`` it
writes nothing and exits 1 if a checked-in file is stale (CI runs that).

The converter is generic: it walks marshmallow fields and their validators
(``Length``, ``Range``, ``OneOf``, ``Equal``, ``Regexp``). A custom field states its
own schema with a ``json_schema(convert)`` method; a schema class may add keywords
with a ``json_schema_extra`` class attribute. Checks JSON Schema cannot state (a rule
set's combinations, nesting depth, ``seq`` equal to the position) stay in the code.
To publish another document, add a builder to :data:`DOCUMENTS`. The web API's
OpenAPI 3.1 document (``openapi.json``) is generated the same way, by apispec
from the API's marshmallow schemas (:mod:`yaniv_audit.web.openapi`).
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from marshmallow import EXCLUDE, INCLUDE, Schema, fields, validate

JsonSchema = dict[str, Any]
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "schemas"


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
        raise TypeError(f"no JSON Schema for the field {type(field).__name__}: give it a "
                        "json_schema(convert) method")
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


def log_event_schema() -> JsonSchema:
    from .codec import FORMAT, SCHEMAS

    doc = tagged_union(f"An event of a {FORMAT} log (one line of a .jsonl file)", SCHEMAS)
    doc["description"] = (
        "Generated from yaniv_audit/codec.py by `python -m yaniv_audit.schema_export`; "
        "do not edit. See docs/log-format.md. Not stated here: seq equal to the "
        "event's position, rule-set combinations, nesting depth (64), and the structural "
        "checks of yaniv_audit/structure.py."
    )
    return doc


def report_schema() -> JsonSchema:
    from .report_schema import report_document

    return report_document()


def compare_schema() -> JsonSchema:
    from .report_schema import compare_document

    return compare_document()


def openapi_document() -> JsonSchema:
    from .web.openapi import openapi

    return openapi()


#: file name in schemas/ -> the builder of its content
DOCUMENTS: dict[str, Callable[[], JsonSchema]] = {
    "log-event.schema.json": log_event_schema,
    "report.schema.json": report_schema,
    "compare.schema.json": compare_schema,
    "openapi.json": openapi_document,
}


def render(document: JsonSchema) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def stale_files(directory: Path = SCHEMAS_DIR) -> list[str]:
    """The documents whose file in ``directory`` is missing or differs from the code."""
    stale = []
    for name, build in DOCUMENTS.items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(build()):
            stale.append(name)
    return stale


def write_all(directory: Path = SCHEMAS_DIR) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    for name, build in DOCUMENTS.items():
        (directory / name).write_text(render(build()), encoding="utf-8")
    return list(DOCUMENTS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m yaniv_audit.schema_export",
        description="Generate the JSON Schemas in schemas/ from the marshmallow schemas.",
    )
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a checked-in file is stale")
    parser.add_argument("--dir", type=Path, default=SCHEMAS_DIR,
                        help="the schemas directory (default: %(default)s)")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.dir)
        for name in stale:
            print(f"{args.dir / name} is stale: run python -m yaniv_audit.schema_export",
                  file=sys.stderr)
        return 1 if stale else 0
    for name in write_all(args.dir):
        print(f"wrote {args.dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
