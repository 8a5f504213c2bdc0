"""What ``audit --json`` and ``compare --json`` print (docs/log-format.md, "The audit report"), as
marshmallow schemas.

They are the one definition of the report's shape: ``schemas/report.schema.json``
and ``schemas/compare.schema.json`` are generated from them by
:mod:`yaniv_audit.schema_export`, and ``REPORT.validate(report)`` checks a report
in Python. The audit itself builds plain dicts (:mod:`yaniv_audit.core.audit`) and does
not go through these schemas: they describe its output, they do not produce it.

Beyond the field types, both forms state what ties fields together: a finding's
``code`` belongs to its ``kind``, and a verdict is the worst kind among the
findings (``corrupt`` for an inconsistency, else ``violations``, else ``claims``,
else ``clean``).

>>> REPORT.validate({"file": "x.jsonl", "verdict": "unreadable",
...                  "error": {"line": 3, "message": "not valid JSON"}})
{}
"""

from __future__ import annotations

import typing
from typing import Any, ClassVar

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from ..core import report as report_types
from ..core.rules import PARAMS, Param
from .json_schema import DRAFT, object_schema
from .log_schema import StrictInteger

JsonSchema = dict[str, Any]

#: finding codes by kind (docs/log-format.md, "Finding codes", plus ``card.not_on_pile``:
#: a pile draw or joker swap naming a card the previous throw does not hold)
CODES: dict[str, tuple[str, ...]] = {
    "violation": (
        "turn.order",
        "turn.no_throw",
        "turn.no_draw",
        "discard.combo",
        "draw.pile_card",
        "draw.pile_needs_combo",
        "draw.swap",
        "slap.not_allowed",
        "slap.no_match",
        "slap.empties_hand",
        "yaniv.threshold",
        "yaniv.timing",
        "deal.hand_size",
        "deal.starter",
        "reshuffle.not_allowed",
        "showdown.no_caller",
        "player.out",
        "game.over",
        "log.withdraw",
    ),
    "inconsistency": (
        "card.not_in_hand",
        "card.not_in_deck",
        "card.too_many",
        "card.already_seen",
        "stock.mismatch",
        "stock.empty",
        "deal.too_big",
        "card.not_on_pile",
    ),
    "claim": (
        "claim.yaniv_total",
        "claim.points",
        "claim.scores",
        "claim.winner",
        "claim.showdown",
    ),
}
KINDS = tuple(CODES)
ALL_CODES = tuple(code for codes in CODES.values() for code in codes)
VERDICTS = ("clean", "claims", "violations", "corrupt")
#: the kind that makes each verdict, worst first
VERDICT_KIND = {"corrupt": "inconsistency", "violations": "violation", "claims": "claim"}
ROUND_ENDS = ("yaniv", "stock")
CHANGE_FIELDS = ("verdict", "findings", "round", "winners", "points", "scores", "replay")
PARAM_NAMES = tuple(p.name for p in PARAMS)
FINGERPRINT = r"^[0-9a-f]{64}$"
ENGINE_PATTERN = r"^yaniv-audit \S+$"


# --- fields --------------------------------------------------------------


class StrictBoolean(fields.Boolean):
    """``true`` or ``false``, not ``1`` or ``"yes"``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if value is True or value is False:
            return value
        raise self.make_error("invalid")


def _integer(**kwargs: Any) -> StrictInteger:
    return StrictInteger(**kwargs)


def _count(**kwargs: Any) -> StrictInteger:
    return StrictInteger(validate=validate.Range(min=0), **kwargs)


def _player(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.Length(min=1), **kwargs)


def _players(**kwargs: Any) -> fields.List[str]:
    return fields.List(_player(), **kwargs)


def _by_player(**kwargs: Any) -> fields.Dict:
    return fields.Dict(keys=_player(), values=_integer(), **kwargs)


def _round_number(**kwargs: Any) -> StrictInteger:
    return StrictInteger(validate=validate.Range(min=1), **kwargs)


def _param_field(param: Param) -> fields.Field[Any]:
    """One rule parameter as ``rules.params()`` writes it."""
    meta = {"description": param.help}
    field: fields.Field[Any]
    if param.kind == "bool":
        field = StrictBoolean(required=True, metadata=meta)
    elif param.kind == "choice":
        field = fields.String(required=True, validate=validate.OneOf(param.choices), metadata=meta)
    elif param.kind == "table":
        field = fields.Dict(
            keys=fields.String(validate=validate.Regexp(r"^[0-9]{1,5}$")),
            values=StrictInteger(validate=validate.Range(0, param.maximum)),
            required=True,
            metadata=meta,
        )
    else:
        field = StrictInteger(
            required=True,
            allow_none=param.nullable,
            validate=validate.Range(param.minimum, param.maximum),
            metadata=meta,
        )
    return field


class _Closed(Schema):
    class Meta:
        unknown = RAISE


# --- the report ------------------------------------------------------------

ParamsSchema = _Closed.from_dict({p.name: _param_field(p) for p in PARAMS}, name="ParamsSchema")
ParamsSchema.__doc__ = "Every rule parameter of docs/rules.md, with its value in this rule set."


class RulesSchema(_Closed):
    """The rule set the log was replayed under: its id and every parameter."""

    id = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": 'e.g. "israeli(yaniv_max=5)"'},
    )
    params = fields.Nested(ParamsSchema, required=True)


class FindingSchema(_Closed):
    """One thing wrong with the log: which event, which round, who, what rule."""

    json_schema_extra: ClassVar[JsonSchema] = {
        "allOf": [
            {
                "if": {"properties": {"kind": {"const": kind}}},
                "then": {"properties": {"code": {"enum": list(codes)}}},
            }
            for kind, codes in CODES.items()
        ]
    }

    seq = _count(required=True, metadata={"description": "the event's 0-based position"})
    round = _round_number(
        required=True, allow_none=True, metadata={"description": "null before the first round"}
    )
    player = _player(required=True, allow_none=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    code = fields.String(
        required=True,
        validate=validate.OneOf(ALL_CODES),
        metadata={"description": "docs/log-format.md#finding-codes"},
    )
    message = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "in English: the code's template filled from params"},
    )
    params = fields.Dict(
        keys=fields.String(),
        metadata={
            "description": "the values the message is made from: players, cards in "
            'canonical form, numbers, phrases ({"phrase": key, ...}), '
            '"case" (which of the code\'s templates) and "rule" (the '
            "rule parameters that decided it); every report has them, "
            "findings read back from an archive do not (docs/findings.md)"
        },
    )
    text = fields.String(
        metadata={
            "description": "the API only, asked with Accept-Language: the message in "
            "that language, cards as the board draws them (8♥)"
        }
    )

    @validates_schema
    def _code_of_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        kind, code = data.get("kind"), data.get("code")
        if kind in CODES and code in ALL_CODES and code not in CODES[kind]:
            raise ValidationError(f"{code} is not a code of kind {kind}", "code")


class ReductionSchema(_Closed):
    """A score that landed exactly on a reduction key and dropped."""

    player = _player(required=True)
    from_ = _integer(required=True, data_key="from")
    to = _integer(required=True)


class RoundSchema(_Closed):
    """One round as replayed and scored under the rule set."""

    round = _round_number(required=True)
    starter = _player(required=True)
    moves_checked = StrictBoolean(
        required=True, metadata={"description": "false for a scoresheet round"}
    )
    end = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(ROUND_ENDS),
        metadata={"description": "null when the round was not scored"},
    )
    caller = _player(required=True, allow_none=True)
    totals = _by_player(required=True, metadata={"description": "hand totals at the end"})
    assaf = _players(required=True, metadata={"description": "the players who Assafed"})
    winners = _players(required=True)
    points = _by_player(required=True)
    reductions = fields.List(fields.Nested(ReductionSchema), required=True)
    scores = _by_player(required=True, metadata={"description": "running, after reductions"})
    out = _players(required=True, metadata={"description": "who went out in this round"})
    rule = fields.Dict(
        keys=fields.String(validate=validate.OneOf(PARAM_NAMES)),
        metadata={
            "description": "the rule parameters that decided the round's story, with their "
            "values: reshuffle (the stock ended it), assaf_on_tie (a hand equal to the "
            "caller's), the Assaf's assaf_penalty or assaf_multi_penalty, assaf_adds_hand "
            "and assaf_scoring, reductions, score_limit and limit_rule (a player out); "
            "{} when none did (docs/findings.md)"
        },
    )


class RulingSchema(_Closed):
    """The ruling's first line, which a table reads aloud, as data."""

    key = fields.String(
        required=True,
        validate=validate.OneOf(
            [
                f"ruling:{v}"
                for v in (
                    "clean",
                    "claims",
                    "claims_unchecked",
                    "violations",
                    "violations_claims",
                    "violations_claims_unchecked",
                )
            ]
            + ["ruling:corrupt"]
        ),
        metadata={"description": "its template (yaniv_audit/core/messages.py)"},
    )
    params = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={
            "description": "rules (the rule set's id); count (the claims, or the "
            "violations); claims; seq (corrupt: the impossible event); disputes: for each "
            "claim, a phrase saying the number the rules give, the one written and why "
            "(its deciding rule parameters with their values)"
        },
    )


class WithdrawnSchema(_Closed):
    """An entry of the log a withdrawal took back (the replay reads the log without it)."""

    seq = _integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "the entry taken back"},
    )
    by = _integer(
        required=True,
        validate=validate.Range(min=0),
        metadata={"description": "the withdraw that took it back"},
    )


class FinalSchema(_Closed):
    """Where the game stands at the end of the log."""

    scores = _by_player(required=True)
    finished = StrictBoolean(required=True)
    winners = _players(required=True, metadata={"description": "[] while unfinished"})
    out = _players(required=True, metadata={"description": "everyone out"})


def _verdict_matches(verdict: str | None, findings: Any) -> str | None:
    """Why ``verdict`` is not the worst kind among ``findings`` (None if it is)."""
    if verdict not in VERDICTS or not isinstance(findings, list):
        return None
    kinds = {f.get("kind") for f in findings if isinstance(f, dict)}
    expected = next((v for v, k in VERDICT_KIND.items() if k in kinds), "clean")
    return None if verdict == expected else f"the findings make the verdict {expected}"


def _verdict_rules() -> list[JsonSchema]:
    """The verdict as the worst kind found, in JSON Schema."""

    def has(kind: str) -> JsonSchema:
        return {
            "properties": {
                "findings": {
                    "contains": {"properties": {"kind": {"const": kind}}, "required": ["kind"]}
                }
            }
        }

    def verdict(name: str) -> JsonSchema:
        return {"properties": {"verdict": {"const": name}}}

    def lacks(*kinds: str) -> list[JsonSchema]:
        return [{"not": has(k)} for k in kinds]

    return [
        {"if": verdict("corrupt"), "then": has("inconsistency")},
        {
            "if": verdict("violations"),
            "then": {"allOf": [has("violation"), *lacks("inconsistency")]},
        },
        {
            "if": verdict("claims"),
            "then": {"allOf": [has("claim"), *lacks("inconsistency", "violation")]},
        },
        {"if": verdict("clean"), "then": {"properties": {"findings": {"maxItems": 0}}}},
    ]


class AuditReportSchema(_Closed):
    """The audit of one readable log under one rule set."""

    json_schema_extra: ClassVar[JsonSchema] = {"allOf": _verdict_rules()}

    file = fields.String(metadata={"description": "the log's path, when audited from a file"})
    engine = fields.String(
        required=True,
        validate=validate.Regexp(ENGINE_PATTERN),
        metadata={"description": '"yaniv-audit <version>"'},
    )
    game_id = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "the log's game_id, or the fingerprint"},
    )
    fingerprint = fields.String(required=True, validate=validate.Regexp(FINGERPRINT))
    rules = fields.Nested(RulesSchema, required=True)
    verdict = fields.String(
        required=True,
        validate=validate.OneOf(VERDICTS),
        metadata={"description": "the worst kind found"},
    )
    ruling = fields.Nested(
        RulingSchema,
        metadata={"description": "the ruling's first line as data (every report has it)"},
    )
    findings = fields.List(fields.Nested(FindingSchema), required=True)
    rounds = fields.List(fields.Nested(RoundSchema), required=True)
    final = fields.Nested(FinalSchema, required=True)
    withdrawn = fields.List(
        fields.Nested(WithdrawnSchema),
        metadata={
            "description": "the entries withdrawals took back, "
            "in log order (only when there are any)"
        },
    )

    @validates_schema
    def _worst_kind(self, data: dict[str, Any], **kwargs: Any) -> None:
        problem = _verdict_matches(data.get("verdict"), data.get("findings"))
        if problem:
            raise ValidationError(problem, "verdict")


class ErrorSchema(_Closed):
    """Where and why the log cannot be read."""

    line = _count(
        required=True,
        allow_none=True,
        metadata={
            "description": "the line of a .jsonl log, the event index of a .json log, or null "
            "when the problem is the whole file"
        },
    )
    message = fields.String(required=True, validate=validate.Length(min=1))


class UnreadableSchema(_Closed):
    """A log that cannot be read: no report, only the error."""

    file = fields.String(required=True)
    verdict = fields.String(required=True, validate=validate.Equal("unreadable"))
    error = fields.Nested(ErrorSchema, required=True)


class ReportSchema:
    """Either form of one ``audit --json`` line, told apart by ``verdict``."""

    forms: ClassVar[dict[str, Schema]] = {
        "report": AuditReportSchema(),
        "unreadable": UnreadableSchema(),
    }

    def validate(self, data: Any) -> dict[str, Any]:
        """marshmallow-style errors of one report (``{}`` when it is valid)."""
        if not isinstance(data, dict):
            return {"_schema": ["expected an object"]}
        form = "unreadable" if data.get("verdict") == "unreadable" else "report"
        errors: dict[str, Any] = self.forms[form].validate(data)
        return errors


# --- compare -----------------------------------------------------------------


class CompareRoundSchema(_Closed):
    """One round's result under one rule set."""

    round = _round_number(required=True)
    points = _by_player(required=True)
    scores = _by_player(required=True)
    winners = _players(required=True)


class CompareResultSchema(_Closed):
    """The log under one rule set."""

    rules = fields.Nested(RulesSchema, required=True)
    verdict = fields.String(required=True, validate=validate.OneOf(VERDICTS))
    rounds = fields.List(fields.Nested(CompareRoundSchema), required=True)
    final = fields.Nested(FinalSchema, required=True)
    unreplayable = fields.Nested(
        "UnreplayableSchema",
        metadata={
            "description": "only when the log cannot be replayed under this rule set: where "
            "and why; its rounds and final are then those of the part replayed"
        },
    )


class UnreplayableSchema(_Closed):
    """Where the replay under a rule set stopped: the impossible event's finding."""

    seq = _count(required=True)
    code = fields.String(required=True, validate=validate.OneOf(CODES["inconsistency"]))
    message = fields.String(required=True, validate=validate.Length(min=1))
    params = fields.Dict(keys=fields.String(), required=True)


class ChangeSchema(_Closed):
    """One thing that differs from the baseline under another rule set."""

    rules = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "the id of the rule set that differs"},
    )
    round = _round_number(
        required=True, allow_none=True, metadata={"description": "null for the whole game"}
    )
    field = fields.String(
        required=True,
        validate=validate.OneOf(CHANGE_FIELDS),
        metadata={
            "description": "what differs; for findings, from and to list each finding as code@seq"
        },
    )
    from_ = fields.Raw(
        required=True, data_key="from", metadata={"description": "the baseline's value"}
    )
    to = fields.Raw(required=True, metadata={"description": "the value under this rule set"})
    params = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={
            "description": "what the message says beyond from and to, as data: round: "
            "first and last, the rounds played under one rule set only; "
            "scores of a round: players, whose running score moved; "
            "the final winners: finished, and because (the index in "
            "changes of the change that decided it, or null); findings: "
            "added and removed, each {seq, code, player}; replay (the rule set cannot "
            "replay the log): rules, seq and reason, the finding that stopped it"
        },
    )
    message = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "in English, from the fields and params"},
    )
    because = fields.List(
        fields.String(validate=validate.OneOf(PARAM_NAMES)),
        required=True,
        metadata={
            "description": "the rule parameters that differ between the two rule sets and "
            "decide this change (the deciding rule of the findings, of the round, of the "
            "game's end); [] when none is named"
        },
    )


class CompareSchema(_Closed):
    """The same log under several rule sets, side by side; the first is the baseline."""

    game_id = fields.String(required=True, validate=validate.Length(min=1))
    fingerprint = fields.String(required=True, validate=validate.Regexp(FINGERPRINT))
    baseline = fields.String(
        required=True,
        validate=validate.Length(min=1),
        metadata={"description": "the id of the first rule set"},
    )
    results = fields.List(
        fields.Nested(CompareResultSchema), required=True, validate=validate.Length(min=1)
    )
    changes = fields.List(fields.Nested(ChangeSchema), required=True)


REPORT = ReportSchema()
COMPARE = CompareSchema()


# --- JSON Schema documents ---------------------------------------------------


def report_document() -> JsonSchema:
    return {
        "$schema": DRAFT,
        "title": "One line of `yaniv-audit audit --json`: the audit report of one log",
        "description": (
            "Generated from yaniv_audit/io/report_schema.py by `python -m "
            "yaniv_audit.schema_export`; do not edit. See docs/log-format.md#the-audit-report. "
            "Either a report (verdict clean, claims, violations or corrupt) or, for a log that "
            'cannot be read, {file, verdict: "unreadable", error}.'
        ),
        "type": "object",
        "required": ["verdict"],
        "oneOf": [{"$ref": "#/$defs/report"}, {"$ref": "#/$defs/unreadable"}],
        "$defs": {name: object_schema(schema) for name, schema in ReportSchema.forms.items()},
    }


def compare_document() -> JsonSchema:
    doc: JsonSchema = {
        "$schema": DRAFT,
        "title": "The output of `yaniv-audit compare --json`",
        "description": (
            "Generated from yaniv_audit/io/report_schema.py by `python -m "
            "yaniv_audit.schema_export`; do not edit. See docs/log-format.md#the-audit-report."
        ),
    }
    doc.update({k: v for k, v in object_schema(COMPARE).items() if k != "description"})
    return doc


# --- the types the schemas describe --------------------------------------------------

#: each type of :mod:`yaniv_audit.core.report` and the schema that describes it
TYPED: tuple[tuple[Any, type[Schema]], ...] = (
    (report_types.Rules, RulesSchema),
    (report_types.Ruling, RulingSchema),
    (report_types.Finding, FindingSchema),
    (report_types.Reduction, ReductionSchema),
    (report_types.Round, RoundSchema),
    (report_types.Final, FinalSchema),
    (report_types.Withdrawn, WithdrawnSchema),
    (report_types.AuditReport, AuditReportSchema),
    (report_types.Error, ErrorSchema),
    (report_types.Unreadable, UnreadableSchema),
    (report_types.CompareRound, CompareRoundSchema),
    (report_types.Unreplayable, UnreplayableSchema),
    (report_types.RuleSetResult, CompareResultSchema),
    (report_types.Change, ChangeSchema),
    (report_types.Comparison, CompareSchema),
)

_KINDS: dict[type, tuple[type[fields.Field[Any]], ...]] = {
    bool: (fields.Boolean,),
    int: (fields.Integer,),
    str: (fields.String,),
    list: (fields.List,),
    dict: (fields.Dict, fields.Nested),
}


def _kind(hint: Any) -> tuple[type | None, bool]:
    """A type hint's JSON kind (None: any) and whether it allows null."""
    args = typing.get_args(hint)
    nullable = type(None) in args
    if nullable:
        (hint,) = [a for a in args if a is not type(None)]
    if hint is Any:
        return None, nullable
    if typing.is_typeddict(hint):
        return dict, nullable
    origin = typing.get_origin(hint) or hint
    return origin, nullable


def type_mismatches() -> list[str]:
    """Where a schema and the type it describes disagree: a key one has and the other
    lacks, a key required in one only, a value of another kind or nullability."""
    out: list[str] = []
    for typed, schema_class in TYPED:
        schema = schema_class()
        declared = {f.data_key or name: f for name, f in schema.fields.items()}
        hints = typing.get_type_hints(typed)
        name = typed.__name__
        for key in sorted(set(declared) ^ set(hints)):
            where = "the type" if key in hints else schema_class.__name__
            out.append(f"{name}.{key}: only in {where}")
        for key in sorted(set(declared) & set(hints)):
            field = declared[key]
            required = key in typed.__required_keys__
            if required != field.required:
                out.append(
                    f"{name}.{key}: required in {'the type' if required else 'the schema'} only"
                )
            kind, nullable = _kind(hints[key])
            if kind is not None and not isinstance(field, _KINDS.get(kind, (fields.Raw,))):
                out.append(f"{name}.{key}: {kind.__name__} in the type, {type(field).__name__}")
            if nullable != bool(field.allow_none) and kind is not None:
                out.append(
                    f"{name}.{key}: null {'allowed' if nullable else 'refused'} in the type only"
                )
    return out
