"""The audit: one log, one rule set, one report (docs/log-format.md, the audit report).

:func:`audit_log` replays a readable log and builds the report as a plain
dict, exactly the JSON of the contract; :func:`compare_log` does it under
several rule sets and says what changed (``cli/render.py`` turns both into the
text a person reads like a referee's ruling).
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from .. import ENGINE
from .engine import CLAIM, INCONSISTENCY, VIOLATION, Finding, Replay, RoundRecord, StopReplay
from .errors import InconsistentLogError, LogFormatError
from .events import Log
from .merkle import tree_hash
from .messages import player_names, render, rule_of, template_key
from .report import (
    AuditReport,
    Change,
    Comparison,
    Final,
    Round,
    Rules,
    RuleSetResult,
    Ruling,
    Unreadable,
    Withdrawn,
)
from .report import Finding as ReportFinding
from .rules import PRESETS, RuleSet

VERDICTS = ("clean", "claims", "violations", "corrupt")
EXIT_BY_VERDICT = {"clean": 0, "claims": 1, "violations": 1, "corrupt": 3, "unreadable": 3}


def to_json_line(obj: Any) -> str:
    """One compact JSON line, as ``json.dumps(obj, separators=(",", ":"),
    ensure_ascii=False)`` writes it (orjson gives the same text for reports, faster)."""
    try:
        return orjson.dumps(obj, default=_fragment).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _fragment(value: Any) -> orjson.Fragment:
    """The JSON text of a value that holds its own (``json_fragment()``: a block of a long
    game's rounds, kept compressed by the reader that streams, io/streaming.py)."""
    fragment = getattr(value, "json_fragment", None)
    if fragment is None:
        raise TypeError(f"{type(value).__name__} is not JSON")
    return fragment()  # type: ignore[no-any-return]


def verdict_of(findings: Sequence[Finding]) -> str:
    kinds = {f.kind for f in findings}
    if INCONSISTENCY in kinds:
        return "corrupt"
    if VIOLATION in kinds:
        return "violations"
    if CLAIM in kinds:
        return "claims"
    return "clean"


def replay_log(log: Log, rules: RuleSet | None = None, *, strict: bool = False) -> Replay:
    """Replay ``log`` under ``rules`` (default: its declared rules) as far as it goes.

    Raises LogFormatError when the replay finds the log unreadable (a stock
    draw without a card where the log leaves the stock's order unknown).
    """
    replay = Replay(log.game, rules or log.game.rules, strict=strict)
    with contextlib.suppress(InconsistentLogError, StopReplay):
        replay.run(log.events, log.withdrawals)
    return replay


#: what decides that a round is played at all: the end of the game
GAME_END = ("score_limit", "limit_rule", "game_end", "rounds", "reductions")
#: what moves the scores after a round's points
SCORES_ONLY = ("score_limit", "limit_rule", "reductions")
#: what decides a hand's total
CARD_VALUES = ("face_values", "joker_value", "wild_jacks")


def round_rule(record: RoundRecord, params: dict[str, Any]) -> dict[str, Any]:
    """The rule parameters that decided round ``record``'s story, with their values (as
    ``params``, the rule set's JSON, holds them): how it ended (``reshuffle`` when the
    stock ended it), a hand equal to the caller's (``assaf_on_tie``: an Assaf or the
    caller's win), the Assaf's points, a reduction, a player going out."""
    score = record.score
    if score is None:
        return {}
    names: list[str] = []
    if record.end == "stock":
        names.append("reshuffle")
    caller, totals = score.caller, score.totals
    if caller is not None and caller in totals:
        mark = totals[caller]
        if any(t == mark for p, t in totals.items() if p != caller):
            names.append("assaf_on_tie")
    if score.assaf:
        several = params["assaf_multi_penalty"] is not None and len(score.assaf) > 1
        names += [
            "assaf_multi_penalty" if several else "assaf_penalty",
            "assaf_adds_hand",
            "assaf_scoring",
        ]
    if score.reductions:
        names.append("reductions")
    if record.out:
        names += ["score_limit", "limit_rule"]
    return {name: params[name] for name in names}


def round_json(record: RoundRecord, params: dict[str, Any] | None = None) -> Round:
    """A round of the report (``params``: the rule set's, to name the deciding ones)."""
    score = record.score
    return {
        "round": record.round,
        "starter": record.starter,
        "moves_checked": record.moves_checked,
        "end": record.end if score else None,
        "caller": record.caller if score else None,
        "totals": dict(score.totals) if score else {},
        "assaf": list(score.assaf) if score else [],
        "winners": list(score.winners) if score else [],
        "points": dict(score.points) if score else {},
        "reductions": [{"player": p, "from": a, "to": b} for p, a, b in score.reductions]
        if score
        else [],
        "scores": dict(record.scores),
        "out": list(record.out),
        "rule": round_rule(record, params) if params is not None else {},
    }


def final_json(replay: Replay) -> Final:
    return {
        "scores": dict(replay.scores),
        "finished": replay.finished,
        "winners": list(replay.winners or ()),
        "out": list(replay.out),
    }


def rules_json(rules: RuleSet) -> Rules:
    return {"id": rules.id, "params": rules.params()}


def audit_log(
    log: Log,
    rules: RuleSet | None = None,
    *,
    strict: bool = False,
    fingerprint: str | None = None,
) -> AuditReport:
    """The audit report of a readable log.

    Raises LogFormatError if the replay finds the log unreadable.
    """
    return report_of(log, replay_log(log, rules, strict=strict), fingerprint)


#: what gathers a report's long lists from their items as they are made (the findings,
#: the ruling's disputes): a list, or a reader's more compact list (io/streaming.py)
Collect = Callable[[Iterator[Any]], list[Any]]


def report_of(
    log: Log, replay: Replay, fingerprint: str | None = None, collect: Collect = list
) -> AuditReport:
    """The audit report of ``log`` from its finished ``replay`` (``collect``: what gathers
    its findings and the ruling's disputes, each made as it is taken)."""
    fingerprint = fingerprint or tree_hash(log.leaves).hex()
    rules = rules_json(replay.rules)
    verdict = verdict_of(replay.findings)
    report: AuditReport = {
        "engine": ENGINE,
        "game_id": log.game.game_id or fingerprint,
        "fingerprint": fingerprint,
        "rules": rules,
        "verdict": verdict,
        "ruling": ruling_of(verdict, replay.findings, rules["id"], collect),
        "findings": collect(f.to_json() for f in replay.findings),
        "rounds": [round_json(r, rules["params"]) for r in replay.records],
        "final": final_json(replay),
    }
    withdrawn = withdrawn_json(log)
    if withdrawn:
        report["withdrawn"] = withdrawn
    return report


def ruling_of(
    verdict: str, findings: Sequence[Finding], rules: str, collect: Collect = list
) -> Ruling:
    """The ruling's first line, which a table reads aloud, as data: its template's
    ``key`` (``ruling:<verdict>``, core/messages.py) and ``params``: the verdict and, for
    each number the table wrote that the rules do not give, who is right and by which
    rule (a ``dispute`` phrase)."""
    if verdict == "corrupt":
        return {"key": "ruling:corrupt", "params": {"rules": rules, "seq": findings[-1].seq}}
    claims = [f for f in findings if f.kind == CLAIM]
    disputes = collect(map(dispute, claims))
    if verdict == "clean":
        return {"key": "ruling:clean", "params": {"rules": rules}}
    # a number that cannot be checked is not confirmed, which is not to say it is wrong
    unchecked = "_unchecked" if any(_unchecked(f) for f in claims) else ""
    if verdict == "claims":
        params = {"rules": rules, "count": len(claims), "disputes": disputes}
        return {"key": f"ruling:claims{unchecked}", "params": params}
    broken = sum(f.kind == VIOLATION for f in findings)
    if not claims:
        return {"key": "ruling:violations", "params": {"rules": rules, "count": broken}}
    params = {"rules": rules, "count": broken, "claims": len(claims), "disputes": disputes}
    return {"key": f"ruling:violations_claims{unchecked}", "params": params}


def _unchecked(finding: Finding) -> bool:
    """A claim about a round the log cannot check (no hands, no totals), or a score
    after one."""
    params = finding.params
    return params.get("case") == "unchecked" or "unchecked" in params


_WHY = {"caller": "why:caller", "not_ended": "why:not_ended"}


def dispute(finding: Finding) -> dict[str, Any]:
    """One claim of the table as the ruling's first line says it (a phrase of
    core/messages.py): the number the rules give, the one written, and why."""
    params = finding.params
    code, case = finding.code, params.get("case")
    if code == "claim.points" and case == "unchecked":
        return {
            "phrase": "dispute:unchecked",
            **{k: params[k] for k in ("round", "player", "written")},
        }
    if code == "claim.points":
        rule = params.get("rule")
        why = (
            {"phrase": "why:rules", "rule": rule}
            if rule
            else {"phrase": _WHY.get(str(case), "why:hand")}
        )
        return {
            "phrase": "dispute:points",
            **{k: params[k] for k in ("round", "player", "right", "written")},
            "why": why,
        }
    if code == "claim.scores":
        end = "" if params["round"] is not None else "_end"
        if "unchecked" in params:
            return {
                "phrase": f"dispute:scores{end}_unchecked",
                **{k: params[k] for k in ("round", "player", "written", "unchecked")},
            }
        shown = {k: params[k] for k in ("round", "player", "right", "written")}
        if params.get("parts"):
            why = {"phrase": "why:parts", "parts": params["parts"]}
        elif params.get("rule"):
            why = {"phrase": "why:rules", "rule": params["rule"]}
        else:
            return {"phrase": f"dispute:scores{end}", **shown}
        return {"phrase": f"dispute:scores{end}_why", **shown, "why": why}
    if code == "claim.winner":
        if case == "undecided":
            return {"phrase": "dispute:undecided"}
        return {"phrase": "dispute:winner", "winners": params["winners"], "named": params["named"]}
    return {"phrase": template_key(code, params), **params}


def withdrawn_json(log: Log) -> list[Withdrawn]:
    """The report's ``withdrawn`` list (each entry taken back and the withdrawal that took
    it back), for a log that holds withdrawals; empty (no ``withdrawn`` in the report) for
    one that holds none."""
    plan = log.withdrawals
    if plan is None or not plan.withdrawn:
        return []
    return [{"seq": seq, "by": by} for seq, by in sorted(plan.withdrawn.items())]


def unreadable_report(source: str, error: LogFormatError) -> Unreadable:
    return {
        "file": source,
        "verdict": "unreadable",
        "error": {
            "line": error.line if error.line is not None else error.index,
            "message": error.message,
        },
    }


# --- compare ----------------------------------------------------------------


def other_tables(log: Log) -> list[RuleSet]:
    """The log's declared rules, then every preset with other parameters."""
    sets = [log.game.rules]
    for preset in PRESETS.values():
        if preset not in sets:  # rule sets are equal by their parameters
            sets.append(preset)
    return sets


def compare_log(log: Log, rule_sets: Sequence[RuleSet]) -> Comparison:
    """The same log under several rule sets, side by side (the first is the baseline;
    none given: the declared rules against every preset with other parameters)."""
    return compare_with_reports(log, rule_sets)[0]


def compare_with_reports(
    log: Log,
    rule_sets: Sequence[RuleSet],
) -> tuple[Comparison, list[AuditReport]]:
    """:func:`compare_log`'s comparison and the audit report under each rule set."""
    fingerprint = tree_hash(log.leaves).hex()
    sets = list(rule_sets) or other_tables(log)
    results = []
    reports = []
    for rules in sets:
        report = audit_log(log, rules, fingerprint=fingerprint)
        reports.append(report)
        result: RuleSetResult = {
            "rules": report["rules"],
            "verdict": report["verdict"],
            "rounds": [
                {
                    "round": r["round"],
                    "points": r["points"],
                    "scores": r["scores"],
                    "winners": r["winners"],
                }
                for r in report["rounds"]
            ],
            "final": report["final"],
        }
        if report["verdict"] == "corrupt":
            stop = report["findings"][-1]
            result["unreplayable"] = {
                "seq": stop["seq"],
                "code": stop["code"],
                "message": stop["message"],
                "params": stop.get("params", {}),
            }
        results.append(result)
    base = results[0]
    played: dict[int, list[str]] = {}
    for result in results:
        for r in result["rounds"]:
            played.setdefault(r["round"], []).append(result["rules"]["id"])
    changes: list[Change] = []
    for other, report in zip(results[1:], reports[1:], strict=True):
        if "unreplayable" in other and "unreplayable" not in base:
            changes.append(_unreplayable(reports[0], other))
            continue
        found = _finding_changes(reports[0], report)
        more = _changes(base, other, played)
        _because(found + more, reports[0], report)
        changes.extend(found)
        changes.extend(more)
    return {
        "game_id": log.game.game_id or fingerprint,
        "fingerprint": fingerprint,
        "baseline": base["rules"]["id"],
        "results": results,
        "changes": changes,
    }, reports


def _unreplayable(base: AuditReport, other: RuleSetResult) -> Change:
    """The one change of a rule set under which the log cannot be replayed (its replay
    stopped at an impossible event): that, and why; no scores, which would be the
    scores of the part replayed."""
    stop = other["unreplayable"]
    rid = other["rules"]["id"]
    params = {
        "rules": rid,
        "seq": stop["seq"],
        "reason": {"phrase": template_key(stop["code"], stop["params"]), **stop["params"]},
    }
    return {
        "rules": rid,
        "round": None,
        "field": "replay",
        "from": True,
        "to": False,
        "params": params,
        "message": f"under {rid} " + render("change:unreplayable", params),
        "because": _differing(
            rule_of_finding(stop["params"]), base["rules"]["params"], other["rules"]["params"]
        ),
    }


def rule_of_finding(params: dict[str, Any]) -> list[str]:
    """The rule parameters a finding's params name (its ``rule`` and its phrases')."""
    names = list(rule_of(params))
    for value in params.values():
        if isinstance(value, list):
            for item in value:
                if isinstance(item, dict) and "phrase" in item:
                    names += rule_of_finding(item)
    return names


def _differing(names: Any, base: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Of ``names``, those whose values differ between the two rule sets (once each)."""
    return [n for n in dict.fromkeys(names) if base.get(n) != other.get(n)]


def _because(changes: list[Change], base: AuditReport, other: AuditReport) -> None:
    """Give each change of ``other`` against ``base`` its ``because``: the parameters that
    differ between the two rule sets and decide it: the deciding rule of the findings it
    adds or removes, of the round it is about (under either), of a hand's total when the
    totals differ, of the game's end for a round played under one only; the final result
    the reasons of the changes before it."""
    a, b = base["rules"]["params"], other["rules"]["params"]
    rounds_a = {r["round"]: r for r in base["rounds"]}
    rounds_b = {r["round"]: r for r in other["rounds"]}

    def of_round(n: int) -> list[str]:
        names: list[str] = []
        ra, rb = rounds_a.get(n), rounds_b.get(n)
        for r in (ra, rb):
            if r is not None:
                names += r.get("rule", {})
        if ra is not None and rb is not None and ra["totals"] != rb["totals"]:
            names += CARD_VALUES
        return names

    findings: list[str] = []
    said: list[str] = []
    for change in changes:
        field, n = change["field"], change["round"]
        names: list[str] = []
        if field == "findings":
            seen = {
                (f["seq"], f["code"], f.get("player"))
                for f in [*change["params"]["added"], *change["params"]["removed"]]
            }
            for report in (base, other):
                for f in report["findings"]:
                    if (f["seq"], f["code"], f["player"]) in seen:
                        names += rule_of_finding(f["params"])
            findings = names
        elif field == "verdict":
            names = findings
        elif field == "round" and n is not None:
            names = [*GAME_END, *of_round(n - 1)]
        elif n is not None:
            names = of_round(n)
            if field != "scores":  # a reduction or a player out moves scores, not points
                names = [x for x in names if x not in SCORES_ONLY]
        else:  # the final winners and scores: the reasons of the rounds' changes
            names = [*said, *GAME_END] if field == "winners" else said
        change["because"] = _differing(names, a, b)
        if n is not None:
            said += change["because"]


def finding_difference(
    base: list[ReportFinding],
    other: list[ReportFinding],
) -> tuple[list[ReportFinding], list[ReportFinding]]:
    """The findings ``other`` adds to ``base`` and those it removes, each counted once: a
    finding is its event, code and player (its message names the rules' parameters, so it
    is not compared), and the same one twice at an event is matched twice. Two players'
    points wrong at one round_ended are two findings, not one."""

    def unmatched(
        mine: list[ReportFinding],
        theirs: list[ReportFinding],
    ) -> list[ReportFinding]:
        left = Counter(_finding_key(f) for f in theirs)
        out = []
        for f in mine:
            key = _finding_key(f)
            if left[key]:
                left[key] -= 1
            else:
                out.append(f)
        return out

    return unmatched(other, base), unmatched(base, other)


def _finding_key(finding: ReportFinding) -> tuple[int, str, str | None]:
    return finding["seq"], finding["code"], finding.get("player")


def _finding_changes(base: AuditReport, other: AuditReport) -> list[Change]:
    """The findings ``other`` adds and removes against ``base`` (:func:`finding_difference`)."""
    added, removed = finding_difference(base["findings"], other["findings"])
    if not added and not removed:
        return []
    rid = other["rules"]["id"]

    def listed(items: list[ReportFinding]) -> str:
        shown = ", ".join(
            f"{f['code']}{' of ' + str(f['player']) if f['player'] else ''} at event {f['seq']}"
            for f in items[:3]
        )
        return shown + (f" and {len(items) - 3} more" if len(items) > 3 else "")

    parts = []
    if added:
        parts.append(
            f"{len(added)} finding{'s' if len(added) != 1 else ''} added ({listed(added)})"
        )
    if removed:
        what = "" if added else f" finding{'s' if len(removed) != 1 else ''}"
        parts.append(f"{len(removed)}{what} removed ({listed(removed)})")

    def keys(items: list[ReportFinding]) -> list[dict[str, Any]]:
        return [{"seq": f["seq"], "code": f["code"], "player": f.get("player")} for f in items]

    return [
        {
            "rules": rid,
            "round": None,
            "field": "findings",
            "from": [f"{f['code']}@{f['seq']}" for f in base["findings"]],
            "to": [f"{f['code']}@{f['seq']}" for f in other["findings"]],
            "params": {"added": keys(added), "removed": keys(removed)},
            "message": f"under {rid}, " + " and ".join(parts),
            "because": [],  # _because gives it
        }
    ]


def _changes(
    base: RuleSetResult, other: RuleSetResult, played: dict[int, list[str]] | None = None
) -> list[Change]:
    """What ``other`` changes against ``base``: verdict, rounds, winners, final scores.

    Score changes are reported where the difference from the baseline
    changes, so one different round gives one entry, not one per later round.
    """
    rid = other["rules"]["id"]
    out: list[Change] = []
    said: list[str] = []  # each change's message after its "under <rules>"

    def change(
        round_no: int | None,
        name: str,
        a: Any,
        b: Any,
        text: str,
        comma: bool = False,
        **params: Any,
    ) -> None:
        out.append(
            {
                "rules": rid,
                "round": round_no,
                "field": name,
                "from": a,
                "to": b,
                "params": params,
                "message": f"under {rid}{',' if comma else ''} {text}",
                "because": [],  # _because gives it
            }
        )
        said.append(text)

    if base["verdict"] != other["verdict"]:
        change(
            None,
            "verdict",
            base["verdict"],
            other["verdict"],
            f"the verdict is {other['verdict']} instead of {base['verdict']}",
        )
    rounds_a = {r["round"]: r for r in base["rounds"]}
    rounds_b = {r["round"]: r for r in other["rounds"]}
    numbers = sorted(set(rounds_a) | set(rounds_b))
    gap: dict[str, int] = {}
    for n in numbers:
        a, b = rounds_a.get(n), rounds_b.get(n)
        if a is None or b is None:
            later = [m for m in numbers if m >= n]
            which = f"round {n}" if len(later) == 1 else f"rounds {n}-{later[-1]}"
            only = rid if b is not None else base["rules"]["id"]
            # every rule set compared that plays it, not the two of this change only
            under = (played or {}).get(n) or [only]
            where = (
                f"played under {' and '.join(under)}"
                if len(under) > 1
                else f"{'played only' if b is None else 'only played'} under {under[0]}"
            )
            change(
                n,
                "round",
                a is not None,
                b is not None,
                f"{which} {'are' if len(later) > 1 else 'is'} "
                f"{'not played' if b is None else 'played'} ({where})",
                first=n,
                last=later[-1],
            )
            break
        if a["winners"] != b["winners"]:
            change(
                n,
                "winners",
                a["winners"],
                b["winners"],
                f"round {n} is won by {player_names(b['winners'])} instead of "
                f"{player_names(a['winners'])}",
            )
        if a["points"] != b["points"]:
            if not b["points"] or not a["points"]:
                text = f"round {n} is {'not ' if not b['points'] else ''}scored"
            else:
                text = f"in round {n} " + ", ".join(
                    _points_change(p, a["points"].get(p), b["points"].get(p))
                    for p in dict.fromkeys([*a["points"], *b["points"]])
                    if a["points"].get(p) != b["points"].get(p)
                )
            change(n, "points", a["points"], b["points"], text, comma=True)
        moved = {
            p: b["scores"].get(p, 0) - a["scores"].get(p, 0)
            for p in dict.fromkeys([*a["scores"], *b["scores"]])
        }
        shifted = [p for p, d in moved.items() if d != gap.get(p, 0)]
        if shifted:
            change(
                n,
                "scores",
                a["scores"],
                b["scores"],
                f"after round {n}: "
                + ", ".join(
                    f"{p} {b['scores'].get(p)} instead of {a['scores'].get(p)}" for p in shifted
                ),
                comma=True,
                players=shifted,
            )
        gap = moved
    fa, fb = base["final"], other["final"]
    if fa["winners"] != fb["winners"] or fa["finished"] != fb["finished"]:
        first = next(
            (i for i, c in enumerate(out) if c["field"] in ("points", "winners", "round")), None
        )
        why = "" if first is None else ": " + said[first]
        reason: dict[str, Any] = {"finished": fb["finished"], "because": first}
        verb = "wins" if len(fb["winners"]) == 1 else "win"
        if fb["winners"] and fa["winners"]:
            change(
                None,
                "winners",
                fa["winners"],
                fb["winners"],
                f"{player_names(fb['winners'])} {verb} instead of "
                f"{player_names(fa['winners'])}{why}",
                comma=True,
                **reason,
            )
        elif fb["winners"]:
            change(
                None,
                "winners",
                fa["winners"],
                fb["winners"],
                f"{player_names(fb['winners'])} {verb} and the game is over{why}",
                comma=True,
                **reason,
            )
        else:
            change(
                None,
                "winners",
                fa["winners"],
                fb["winners"],
                f"the game is not finished{why}",
                **reason,
            )
    if fa["scores"] != fb["scores"]:
        change(
            None,
            "scores",
            fa["scores"],
            fb["scores"],
            "the final scores are " + ", ".join(f"{p} {s}" for p, s in fb["scores"].items()),
        )
    return out


def _points_change(player: str, before: int | None, after: int | None) -> str:
    if before is None:
        return f"{player} scores {after} (nothing under the baseline)"
    if after is None:
        return f"{player} scores nothing (instead of {before})"
    return f"{player} scores {after} instead of {before}"
