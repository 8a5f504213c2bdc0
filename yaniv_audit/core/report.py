"""The audit report and the comparison as types: what ``audit --json`` and ``compare
--json`` print (docs/log-format.md, the audit report), one definition for every reader.

:mod:`yaniv_audit.core.audit` builds them (plain dicts: these are :class:`TypedDict`\\ s,
so ``--json`` is the JSON of the dict, byte for byte), and the command line
(``cli/render``), the pages (``web/explain``, ``web/change_text``) and the archive
(``archive/rows``) read them through these types. The marshmallow schemas of
:mod:`yaniv_audit.io.report_schema`, which the JSON Schemas of ``schemas/`` are generated
from, are checked against them field by field (:func:`yaniv_audit.io.report_schema.
type_mismatches`; ``schema_export`` refuses to write a schema that disagrees).

A key spelt ``from`` (a reduction's, a change's) is a keyword in Python: those types
are written in TypedDict's call form.
"""

# no ``from __future__ import annotations``: TypedDict reads NotRequired from the
# annotations when the class is made, which it cannot from strings
from typing import Any, NotRequired, TypedDict, TypeGuard, cast


class Rules(TypedDict):
    """The rule set: its id and every parameter (``RuleSet.params()``)."""

    id: str
    params: dict[str, Any]


class Ruling(TypedDict):
    """The ruling's first line as data: its template and what fills it."""

    key: str
    params: dict[str, Any]


class Finding(TypedDict):
    """One thing wrong with the log (``Finding.to_json``)."""

    seq: int
    round: int | None
    player: str | None
    kind: str
    code: str
    message: str
    params: NotRequired[dict[str, Any]]
    text: NotRequired[str]


Reduction = TypedDict("Reduction", {"player": str, "from": int, "to": int})


class Round(TypedDict):
    """One round as replayed and scored."""

    round: int
    starter: str
    moves_checked: bool
    end: str | None
    caller: str | None
    totals: dict[str, int]
    assaf: list[str]
    winners: list[str]
    points: dict[str, int]
    reductions: list[Reduction]
    scores: dict[str, int]
    out: list[str]
    #: the rule parameters that decided the round's story, with their values
    rule: NotRequired[dict[str, Any]]


class Final(TypedDict):
    """Where the game stands at the end of the log."""

    scores: dict[str, int]
    finished: bool
    winners: list[str]
    out: list[str]


class Withdrawn(TypedDict):
    """An entry a withdrawal took back, and the withdrawal."""

    seq: int
    by: int


class AuditReport(TypedDict):
    """The audit of one readable log under one rule set."""

    file: NotRequired[str]
    engine: str
    game_id: str
    fingerprint: str
    rules: Rules
    verdict: str
    ruling: NotRequired[Ruling]
    findings: list[Finding]
    rounds: list[Round]
    final: Final
    withdrawn: NotRequired[list[Withdrawn]]


class Error(TypedDict):
    """Where and why a log cannot be read."""

    line: int | None
    message: str


class Unreadable(TypedDict):
    """A log that cannot be read: no report, only the error."""

    file: str
    verdict: str
    error: Error


#: one line of ``audit --json``: a report, or a log that cannot be read
AnyReport = AuditReport | Unreadable


def is_unreadable(report: AnyReport) -> TypeGuard[Unreadable]:
    """The line is a log that cannot be read (no report)."""
    return report["verdict"] == "unreadable"


def audited(report: AnyReport) -> AuditReport:
    """The report of a line that is not :func:`is_unreadable`."""
    assert report["verdict"] != "unreadable"
    return cast(AuditReport, report)


class CompareRound(TypedDict):
    """One round's result under one rule set."""

    round: int
    points: dict[str, int]
    scores: dict[str, int]
    winners: list[str]


class Unreplayable(TypedDict):
    """Where the replay under a rule set stopped: the impossible event's finding."""

    seq: int
    code: str
    message: str
    params: dict[str, Any]


class RuleSetResult(TypedDict):
    """The log under one rule set of a comparison."""

    rules: Rules
    verdict: str
    rounds: list[CompareRound]
    final: Final
    unreplayable: NotRequired[Unreplayable]


Change = TypedDict(
    "Change",
    {
        "rules": str,
        "round": int | None,
        "field": str,
        "from": Any,
        "to": Any,
        "params": dict[str, Any],
        "message": str,
        # the rule parameters that differ between the two rule sets and decide it
        "because": list[str],
    },
)


class Comparison(TypedDict):
    """The same log under several rule sets; the first is the baseline."""

    game_id: str
    fingerprint: str
    baseline: str
    results: list[RuleSetResult]
    changes: list[Change]
