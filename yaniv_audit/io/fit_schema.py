"""What ``rules fit --json`` prints (issue 39, docs/cli.md), as a marshmallow schema;
``schemas/fit.schema.json`` is generated from it by ``python -m
yaniv_audit.schema_export``. The API's fit answers (``/api/v1/fit``) are the same."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import fields, validate

from ..core.rules import PARAM_BY_NAME
from .json_schema import DRAFT, JsonSchema, object_schema
from .report_schema import FindingSchema, _Closed

_NAME = fields.String(validate=validate.OneOf(list(PARAM_BY_NAME)))


class ValuesSchema(_Closed):
    """The values a parameter may take for the log to fit: exactly one of ``fixed`` (one
    value), ``values`` (a list: values, and for a number that may be null, an inclusive
    range [low, high] among them) or ``range`` (an inclusive range of whole numbers)."""

    fixed = fields.Raw(allow_none=True)
    values = fields.List(fields.Raw(allow_none=True), validate=validate.Length(min=2))
    range = fields.List(fields.Integer(), validate=validate.Length(equal=2))

    json_schema_extra: ClassVar[dict[str, Any]] = {"minProperties": 1, "maxProperties": 1}


class AlternativeSchema(_Closed):
    """One way the log fits (or, when nothing tried fits, comes closest)."""

    rules = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "the id of one rule set of this alternative"},
    )
    findings = fields.Integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "the findings under it: 0 when the log fits"},
    )
    changed = fields.List(
        _NAME,
        required=True,
        metadata={"description": "the parameters changed from the starting rule set"},
    )
    params = fields.Dict(
        keys=_NAME,
        values=fields.Nested(ValuesSchema),
        required=True,
        metadata={"description": "each parameter the log decides, with its possible values"},
    )
    events = fields.Dict(
        keys=_NAME,
        values=fields.List(fields.Integer(validate=validate.Range(min=0))),
        required=True,
        metadata={
            "description": "the events (seq) that decide each parameter: another value "
            "gives a finding there"
        },
    )
    left = fields.List(
        fields.Nested(FindingSchema),
        required=True,
        metadata={"description": "the findings left under the rule set (none when it fits)"},
    )


class FitSchema(_Closed):
    """The rule sets a log fits, as the smallest changes from a starting rule set."""

    from_ = fields.String(
        required=True,
        data_key="from",
        validate=validate.Length(min=1),
        metadata={"description": "the id of the starting rule set"},
    )
    alternatives = fields.List(
        fields.Nested(AlternativeSchema), required=True, validate=validate.Length(min=1)
    )
    open = fields.List(
        _NAME,
        required=True,
        metadata={"description": "the parameters the log cannot tell (kept at the starting value)"},
    )
    replays = fields.Integer(
        required=True,
        validate=validate.Range(min=1),
        metadata={"description": "how many times the search replayed the log"},
    )
    text = fields.List(
        fields.String(),
        metadata={
            "description": "the API only, asked with Accept-Language: the answer's lines "
            "in that language, as `rules fit --lang` writes them"
        },
    )


FIT = FitSchema()


def fit_document() -> JsonSchema:
    doc: JsonSchema = {
        "$schema": DRAFT,
        "title": "The output of `yaniv-audit rules fit --json`",
        "description": (
            "Generated from yaniv_audit/io/fit_schema.py by `python -m yaniv_audit.schema_export`; "
            "do not edit. See docs/cli.md (rules fit)."
        ),
    }
    doc.update({k: v for k, v in object_schema(FIT).items() if k != "description"})
    return doc
