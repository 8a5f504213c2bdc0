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
from collections.abc import Sequence
from typing import Any

import orjson

from .. import ENGINE
from .engine import CLAIM, INCONSISTENCY, VIOLATION, Finding, Replay, RoundRecord, StopReplay
from .errors import InconsistentLogError, LogFormatError
from .events import Log
from .merkle import tree_hash
from .messages import player_names
from .rules import PRESETS, RuleSet

VERDICTS = ("clean", "claims", "violations", "corrupt")
EXIT_BY_VERDICT = {"clean": 0, "claims": 1, "violations": 1, "corrupt": 3, "unreadable": 3}


def to_json_line(obj: Any) -> str:
    """One compact JSON line, as ``json.dumps(obj, separators=(",", ":"),
    ensure_ascii=False)`` writes it (orjson gives the same text for reports, faster)."""
    try:
        return orjson.dumps(obj).decode()
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


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


def round_json(record: RoundRecord) -> dict[str, Any]:
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
    }


def final_json(replay: Replay) -> dict[str, Any]:
    return {
        "scores": dict(replay.scores),
        "finished": replay.finished,
        "winners": list(replay.winners or ()),
        "out": list(replay.out),
    }


def rules_json(rules: RuleSet) -> dict[str, Any]:
    return {"id": rules.id, "params": rules.params()}


def audit_log(
    log: Log,
    rules: RuleSet | None = None,
    *,
    strict: bool = False,
    fingerprint: str | None = None,
) -> dict[str, Any]:
    """The audit report of a readable log.

    Raises LogFormatError if the replay finds the log unreadable.
    """
    return report_of(log, replay_log(log, rules, strict=strict), fingerprint)


def report_of(log: Log, replay: Replay, fingerprint: str | None = None) -> dict[str, Any]:
    """The audit report of ``log`` from its finished ``replay``."""
    fingerprint = fingerprint or tree_hash(log.leaves).hex()
    return {
        "engine": ENGINE,
        "game_id": log.game.game_id or fingerprint,
        "fingerprint": fingerprint,
        "rules": rules_json(replay.rules),
        "verdict": verdict_of(replay.findings),
        "findings": [f.to_json() for f in replay.findings],
        "rounds": [round_json(r) for r in replay.records],
        "final": final_json(replay),
        **withdrawn_json(log),
    }


def withdrawn_json(log: Log) -> dict[str, Any]:
    """The report's ``withdrawn`` list (each entry taken back and the withdrawal that took
    it back), for a log that holds withdrawals; nothing for one that holds none."""
    plan = log.withdrawals
    if plan is None or not plan.withdrawn:
        return {}
    return {"withdrawn": [{"seq": seq, "by": by} for seq, by in sorted(plan.withdrawn.items())]}


def unreadable_report(source: str, error: LogFormatError) -> dict[str, Any]:
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


def compare_log(log: Log, rule_sets: Sequence[RuleSet]) -> dict[str, Any]:
    """The same log under several rule sets, side by side (the first is the baseline;
    none given: the declared rules against every preset with other parameters)."""
    return compare_with_reports(log, rule_sets)[0]


def compare_with_reports(
    log: Log,
    rule_sets: Sequence[RuleSet],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """:func:`compare_log`'s comparison and the audit report under each rule set."""
    fingerprint = tree_hash(log.leaves).hex()
    sets = list(rule_sets) or other_tables(log)
    results = []
    reports = []
    for rules in sets:
        report = audit_log(log, rules, fingerprint=fingerprint)
        reports.append(report)
        results.append(
            {
                "rules": report["rules"],
                "verdict": report["verdict"],
                "rounds": [
                    {k: r[k] for k in ("round", "points", "scores", "winners")}
                    for r in report["rounds"]
                ],
                "final": report["final"],
            }
        )
    base = results[0]
    changes: list[dict[str, Any]] = []
    for other, report in zip(results[1:], reports[1:], strict=True):
        changes.extend(_finding_changes(reports[0], report))
        changes.extend(_changes(base, other))
    return {
        "game_id": log.game.game_id or fingerprint,
        "fingerprint": fingerprint,
        "baseline": base["rules"]["id"],
        "results": results,
        "changes": changes,
    }, reports


def finding_difference(
    base: list[dict[str, Any]],
    other: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The findings ``other`` adds to ``base`` and those it removes, each counted once: a
    finding is its event, code and player (its message names the rules' parameters, so it
    is not compared), and the same one twice at an event is matched twice. Two players'
    points wrong at one round_ended are two findings, not one."""

    def unmatched(
        mine: list[dict[str, Any]],
        theirs: list[dict[str, Any]],
    ) -> list[dict[str, Any]]:
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


def _finding_key(finding: dict[str, Any]) -> tuple[int, str, str | None]:
    return finding["seq"], finding["code"], finding.get("player")


def _finding_changes(base: dict[str, Any], other: dict[str, Any]) -> list[dict[str, Any]]:
    """The findings ``other`` adds and removes against ``base`` (:func:`finding_difference`)."""
    added, removed = finding_difference(base["findings"], other["findings"])
    if not added and not removed:
        return []
    rid = other["rules"]["id"]

    def listed(items: list[dict[str, Any]]) -> str:
        shown = ", ".join(
            f"{f['code']}{' of ' + f['player'] if f.get('player') else ''} at event {f['seq']}"
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

    def keys(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
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
        }
    ]


def _changes(base: dict[str, Any], other: dict[str, Any]) -> list[dict[str, Any]]:
    """What ``other`` changes against ``base``: verdict, rounds, winners, final scores.

    Score changes are reported where the difference from the baseline
    changes, so one different round gives one entry, not one per later round.
    """
    rid = other["rules"]["id"]
    out: list[dict[str, Any]] = []
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
            played = "played only" if b is None else "only played"
            change(
                n,
                "round",
                a is not None,
                b is not None,
                f"{which} {'are' if len(later) > 1 else 'is'} "
                f"{'not played' if b is None else 'played'} "
                f"({played} under {rid if b is not None else base['rules']['id']})",
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
        reason = {"finished": fb["finished"], "because": first}
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
