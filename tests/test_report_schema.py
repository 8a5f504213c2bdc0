"""The report and compare schemas (schemas/report.schema.json, schemas/compare.schema.json)
against what the audit really prints, and against broken reports."""

from __future__ import annotations

import copy
import json
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from yaniv_audit import ENGINE
from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.cli import cli
from yaniv_audit.core import report as report_types
from yaniv_audit.core.engine import CLAIM, INCONSISTENCY, VIOLATION
from yaniv_audit.core.rules import PARAMS, PRESETS
from yaniv_audit.io.report_schema import ALL_CODES, CODES, COMPARE, REPORT, type_mismatches
from yaniv_audit.schema_export import SCHEMAS_DIR

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
LOGS = sorted(REPLAYS.glob("*.jsonl"))
#: the golden reports (outside replays/, so that auditing that directory finds only logs)
GOLDEN_DIR = ROOT / "tests" / "golden"
GOLDEN = sorted(GOLDEN_DIR.glob("*.json"))
#: docs/log-format.md's finding codes, verbatim, plus the code this project added
SPEC_CODES = {
    "violation": {
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
    },
    "inconsistency": {
        "card.not_in_hand",
        "card.not_in_deck",
        "card.too_many",
        "card.already_seen",
        "stock.mismatch",
        "stock.empty",
        "deal.too_big",
        "card.not_on_pile",
    },
    "claim": {
        "claim.yaniv_total",
        "claim.points",
        "claim.scores",
        "claim.winner",
        "claim.showdown",
    },
}


def load_validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS_DIR / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


@pytest.fixture(scope="module")
def report_validator() -> Draft202012Validator:
    return load_validator("report.schema.json")


@pytest.fixture(scope="module")
def compare_validator() -> Draft202012Validator:
    return load_validator("compare.schema.json")


def errors_of(validator: Draft202012Validator, document: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]


def check_report(validator: Draft202012Validator, report: Any) -> None:
    """Valid for the JSON Schema and for the marshmallow schema it was generated from."""
    assert errors_of(validator, report) == []
    assert REPORT.validate(report) == {}


def audit_json_lines(*args: str) -> tuple[int, list[dict[str, Any]]]:
    result = CliRunner().invoke(cli, ["audit", "--json", "--jobs", "1", *args])
    assert "Traceback" not in result.output
    return result.exit_code, [json.loads(line) for line in result.stdout.splitlines()]


# --- the codes ---------------------------------------------------------------


def test_the_codes_are_those_of_log_format_section_3() -> None:
    assert {kind: set(codes) for kind, codes in CODES.items()} == SPEC_CODES
    assert set(CODES) == {VIOLATION, INCONSISTENCY, CLAIM}
    assert len(ALL_CODES) == len(set(ALL_CODES)) == 32


def test_every_code_the_engine_can_raise_is_in_the_schema() -> None:
    import re

    source = "".join(
        path.read_text(encoding="utf-8")
        for path in sorted((ROOT / "yaniv_audit" / "core" / "engine").glob("*.py"))
    )
    prefixes = "turn|discard|draw|slap|yaniv|deal|reshuffle|showdown|player|game|card|stock|claim"
    raised = set(re.findall(rf'"((?:{prefixes})\.[a-z_]+)"', source))
    assert raised, "no codes found in yaniv_audit/core/engine/"
    assert raised <= set(ALL_CODES), raised - set(ALL_CODES)


def test_the_documents_are_draft_2020_12_and_closed(
    report_validator: Draft202012Validator, compare_validator: Draft202012Validator
) -> None:
    report = report_validator.schema
    assert report["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(report["$defs"]) == {"report", "unreadable"}
    full = report["$defs"]["report"]
    assert full["additionalProperties"] is False
    assert set(full["required"]) == {
        "engine",
        "game_id",
        "fingerprint",
        "rules",
        "verdict",
        "findings",
        "rounds",
        "final",
    }
    assert "file" in full["properties"]
    params = full["properties"]["rules"]["properties"]["params"]
    assert params["required"] == [p.name for p in PARAMS]
    finding = full["properties"]["findings"]["items"]
    assert sorted(finding["properties"]["code"]["enum"]) == sorted(ALL_CODES)
    assert finding["properties"]["kind"]["enum"] == ["violation", "inconsistency", "claim"]
    assert compare_validator.schema["required"] == [
        "game_id",
        "fingerprint",
        "baseline",
        "results",
        "changes",
    ]


# --- what the audit prints validates ---------------------------------------------


@pytest.mark.parametrize("golden", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_every_golden_report_validates(
    report_validator: Draft202012Validator, golden: Path
) -> None:
    report = json.loads(golden.read_text(encoding="utf-8"))
    # the golden files leave out the one field that changes with each release (and the path)
    assert "engine" not in report
    assert not report_validator.is_valid(report)
    assert set(REPORT.validate(report)) == {"engine"}
    check_report(report_validator, {"engine": ENGINE, **report})
    check_report(report_validator, {"engine": ENGINE, "file": str(golden), **report})


def test_the_golden_reports_cover_every_verdict() -> None:
    assert len(GOLDEN) == len(LOGS) >= 8
    verdicts = {json.loads(p.read_text())["verdict"] for p in GOLDEN}
    assert verdicts == {"clean", "claims", "violations", "corrupt"}


def test_every_audit_json_line_of_the_replays_validates(
    report_validator: Draft202012Validator,
) -> None:
    code, reports = audit_json_lines(*map(str, LOGS))
    assert code == 3  # impossible-draw is corrupt
    assert len(reports) == len(LOGS)
    for report in reports:
        check_report(report_validator, report)
    assert [r["file"] for r in reports] == [str(p) for p in LOGS]


@pytest.mark.parametrize(
    ("rules", "strict"),
    [
        ("namu", False),
        ("classic", True),
        ("israeli(decks=2,slap_down=true)", False),
    ],
)
def test_audit_json_under_other_rules_and_strict_validates(
    report_validator: Draft202012Validator, rules: str, strict: bool
) -> None:
    _, reports = audit_json_lines(
        "--rules", rules, *(["--strict"] if strict else []), *map(str, LOGS)
    )
    assert len(reports) == len(LOGS)
    for report in reports:
        check_report(report_validator, report)
        assert report["rules"]["id"] == rules


@pytest.mark.parametrize("preset", ["israeli", "classic", "namu", "de-wiki", "jhyap"])
def test_simulated_games_audit_json_validates(
    report_validator: Draft202012Validator, preset: str, tmp_path: Path
) -> None:
    for game in range(2):
        events = simulate_game(PRESETS[preset], 3 + game, ["careful"], seed=11, game=game)
        (tmp_path / f"g{game}.jsonl").write_text(to_jsonl(events), encoding="utf-8")
    code, reports = audit_json_lines(str(tmp_path))
    assert code == 0
    assert len(reports) == 2
    for report in reports:
        check_report(report_validator, report)
        assert report["verdict"] == "clean"
        assert report["rounds"], "a simulated game plays rounds"


def test_the_unreadable_form_validates(
    report_validator: Draft202012Validator, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game_started"}\n', encoding="utf-8")
    array = tmp_path / "bad.json"
    array.write_text('{"not": "an array"}', encoding="utf-8")
    code, reports = audit_json_lines(str(bad), str(array))
    assert code == 3
    assert [r["verdict"] for r in reports] == ["unreadable", "unreadable"]
    assert reports[0]["error"]["line"] == 1
    assert reports[1]["error"]["line"] is None  # the whole file, no line
    for report in reports:
        check_report(report_validator, report)


def test_a_compare_output_validates(compare_validator: Draft202012Validator) -> None:
    outputs = []
    for args in (
        ["middle-card", "israeli", "namu"],
        ["double-assaf", "de-wiki", "israeli", "classic"],
        ["two-decks", "israeli(decks=2)", "israeli"],
        ["clean-assaf-reduction"],
    ):
        log, *rules = args
        flags = [x for r in rules for x in ("--rules", r)]
        result = CliRunner().invoke(
            cli, ["compare", str(REPLAYS / f"{log}.jsonl"), *flags, "--json"]
        )
        assert "Traceback" not in result.output
        out = json.loads(result.stdout)
        assert errors_of(compare_validator, out) == []
        assert COMPARE.validate(out) == {}
        outputs.append(out)
    fields = {c["field"] for out in outputs for c in out["changes"]}
    assert {"verdict", "findings", "points", "scores", "winners"} <= fields  # all exercised
    assert len(outputs[-1]["results"]) > 1  # no --rules: the declared rules and the others


# --- broken reports are refused ----------------------------------------------------


def golden(name: str = "middle-card") -> dict[str, Any]:
    report = json.loads((GOLDEN_DIR / f"{name}.json").read_text(encoding="utf-8"))
    return {"engine": ENGINE, **report}


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(report: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = report
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value

    return apply


def _del(path: str) -> Callable[[dict[str, Any]], None]:
    def apply(report: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        target: Any = report
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        del target[last]

    return apply


BROKEN: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "missing fingerprint": ("middle-card", _del("fingerprint")),
    "missing final": ("middle-card", _del("final")),
    "missing finding message": ("middle-card", _del("findings.0.message")),
    "missing round caller": ("middle-card", _del("rounds.0.caller")),
    "missing rule parameter": ("middle-card", _del("rules.params.pickup")),
    "missing final.finished": ("middle-card", _del("final.finished")),
    "wrong verdict": ("middle-card", _set("verdict", "dirty")),
    "verdict unreadable with a report": ("middle-card", _set("verdict", "unreadable")),
    "verdict not the worst kind": ("middle-card", _set("verdict", "claims")),
    "clean with findings": ("middle-card", _set("verdict", "clean")),
    "violations without findings": ("clean-assaf-reduction", _set("verdict", "violations")),
    "corrupt without an inconsistency": ("middle-card", _set("verdict", "corrupt")),
    "unknown code": ("middle-card", _set("findings.0.code", "draw.middle_card")),
    "code of another kind": ("middle-card", _set("findings.0.code", "claim.points")),
    "unknown kind": ("middle-card", _set("findings.0.kind", "warning")),
    "seq as a string": ("middle-card", _set("findings.0.seq", "5")),
    "unknown field": ("middle-card", _set("colour", "red")),
    "unknown round field": ("middle-card", _set("rounds.0.bonus", 1)),
    "bad fingerprint": ("middle-card", _set("fingerprint", "ABC")),
    "bad engine": ("middle-card", _set("engine", "someone else 1.0")),
    "bad round end": ("middle-card", _set("rounds.0.end", "timeout")),
    "round 0": ("middle-card", _set("rounds.0.round", 0)),
    "points as strings": ("middle-card", _set("rounds.0.points.noa", "7")),
    "moves_checked as 1": ("middle-card", _set("rounds.0.moves_checked", 1)),
    "bad pickup": ("middle-card", _set("rules.params.pickup", "middle")),
    "unknown parameter": ("middle-card", _set("rules.params.bonus", 3)),
    "reduction without to": ("clean-assaf-reduction", _del("rounds.2.reductions.0.to")),
    "winners not a list": ("middle-card", _set("final.winners", "ariel")),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_broken_report_is_refused(report_validator: Draft202012Validator, name: str) -> None:
    log, breaks = BROKEN[name]
    report = golden(log)
    check_report(report_validator, report)  # fine before
    broken = copy.deepcopy(report)
    breaks(broken)
    assert json.dumps(broken) != json.dumps(report)
    assert errors_of(report_validator, broken) != []
    assert REPORT.validate(broken) != {}


@pytest.mark.parametrize(
    "unreadable",
    [
        {"file": "x.jsonl", "verdict": "unreadable"},
        {"file": "x.jsonl", "verdict": "unreadable", "error": {"line": 3}},
        {"file": "x.jsonl", "verdict": "unreadable", "error": {"line": "3", "message": "x"}},
        {"verdict": "unreadable", "error": {"line": 3, "message": "x"}},
        {"file": "x.jsonl", "verdict": "unreadble", "error": {"line": 3, "message": "x"}},
        {
            "file": "x.jsonl",
            "verdict": "unreadable",
            "error": {"line": 3, "message": "x"},
            "findings": [],
        },
        [],
    ],
)
def test_a_broken_unreadable_report_is_refused(
    report_validator: Draft202012Validator, unreadable: Any
) -> None:
    assert errors_of(report_validator, unreadable) != []
    assert REPORT.validate(unreadable) != {}


def test_a_broken_compare_output_is_refused(compare_validator: Draft202012Validator) -> None:
    result = CliRunner().invoke(
        cli,
        [
            "compare",
            str(REPLAYS / "middle-card.jsonl"),
            "--rules",
            "israeli",
            "--rules",
            "namu",
            "--json",
        ],
    )
    good = json.loads(result.stdout)
    assert errors_of(compare_validator, good) == []
    for breaks in (
        _del("baseline"),
        _set("results", []),
        _del("changes.0.message"),
        _set("changes.0.field", "mood"),
        _set("results.0.verdict", "unreadable"),
        _del("results.1.rules.params.pickup"),
        _set("changes.0.round", "1"),
    ):
        broken = copy.deepcopy(good)
        breaks(broken)
        assert errors_of(compare_validator, broken) != [], broken
        assert COMPARE.validate(broken) != {}


def test_the_schemas_describe_the_report_type_key_by_key() -> None:
    """schemas/ is generated from report_schema.py, which is checked against the one
    definition of the report (core/report.py): every key, whether it is required, its
    kind and whether it may be null."""
    assert type_mismatches() == []
    assert "because" in typing.get_type_hints(report_types.Change)
    assert "ruling" in report_types.AuditReport.__optional_keys__


def test_a_schema_that_disagrees_with_the_type_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    from yaniv_audit.io import report_schema

    monkeypatch.setattr(
        report_schema,
        "TYPED",
        (
            (report_types.Final, report_schema.FinalSchema),
            (report_types.Round, report_schema.CompareRoundSchema),
        ),
    )
    problems = report_schema.type_mismatches()
    assert "Round.starter: only in the type" in problems
