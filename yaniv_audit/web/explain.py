"""Every round of a game in words, and its running scores as a chart.

Both are read from the audit report's rounds (``points``, ``totals``, ``assaf``,
``reductions``, ``out``, ``rule``) and its rule parameters: nothing here scores a round
again. A round's story is the command line's (:func:`~yaniv_audit.core.sentences.round_story`,
data said by :mod:`yaniv_audit.lang`): the same sentences, in the page's language.

The sentences are HTML: player names are isolated (``<bdi>``) and each deciding rule
parameter links to the rules page (``/rules#<parameter>``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..core.report import AuditReport, Finding, Round
from ..core.sentences import round_story
from ..lang import Words
from .i18n import NameMarks, current

#: the page that explains the parameters, one anchor per parameter
RULES_PAGE = "/rules"


def param(name: str) -> Markup:
    """A rule parameter, linked to its place on the rules page."""
    return Markup('<a class="param" href="{0}#{1}"><code>{1}</code></a>').format(RULES_PAGE, name)


@dataclass
class Explained:
    """One round: its sentences, and the rule parameters that decided it."""

    round: int
    sentences: list[Markup] = field(default_factory=list)
    params: list[str] = field(default_factory=list)


def linked(html: Markup, params: list[str]) -> Markup:
    """Each of ``params`` named in ``html`` as ``name=value`` linked to the rules page."""
    if not params:
        return html
    names = "|".join(re.escape(p) for p in sorted(params, key=len, reverse=True))
    pattern = re.compile(f"(?<![\\w])({names})(?==)")
    return Markup(pattern.sub(lambda m: str(param(m.group(1))), str(html)))


def explain_round(
    rnd: Round,
    names: Mapping[str, str],
    stop: Finding | None = None,
    words: Words | None = None,
) -> Explained:
    """Round ``rnd`` (a report's round) as the command line says it, in the page's
    language (``words``), one sentence an item: the round and how it ended, its scores,
    who went out, and the rule parameters that decided it (``stop``: the finding at
    which the replay stopped in this round)."""
    words = words or Words(current().code, suits=True, isolate=True)
    players = list(dict.fromkeys([rnd["starter"], *rnd["totals"], *rnd["scores"]]))
    marks = NameMarks(players, names)
    story = round_story(rnd, stop, name=marks.mark)
    inner = story["story"]
    parts = inner["parts"] if inner["phrase"] == "say.sentences" else [inner]
    said = [{**story, "story": parts[0]}, *parts[1:]]
    decided = dict(rnd.get("rule", {}))
    out = Explained(rnd["round"], params=list(decided))
    out.sentences = [marks.html(words.phrase(p)) for p in said]
    if decided:
        out.sentences.append(linked(marks.html(words.say("story:rule", rule=decided)), out.params))
    return out


def explain(report: AuditReport, names: Mapping[str, str]) -> list[Explained]:
    """Every round of ``report`` said, as the command line says the ruling (a replay
    stopped at an impossible event says so in its round)."""
    findings = report["findings"]
    stop = findings[-1] if findings and findings[-1]["kind"] == "inconsistency" else None
    words = Words(current().code, suits=True, isolate=True)
    return [
        explain_round(
            r, names, stop if stop is not None and stop["round"] == r["round"] else None, words
        )
        for r in report["rounds"]
    ]


# --- the chart of running scores -------------------------------------------------------


@dataclass
class Chart:
    """An SVG line chart's geometry (the template draws it): one line per player."""

    width: int
    height: int
    left: int
    top: int
    bottom: int
    right: int
    ymax: int
    xs: list[float]
    lines: list[dict[str, Any]]
    guides: list[dict[str, Any]]
    yticks: list[dict[str, Any]]
    labels: list[dict[str, Any]]


def score_chart(
    report: AuditReport, players: Sequence[str], *, width: int = 640, height: int = 260
) -> Chart | None:
    """The running score of every player across the rounds (round 0: everyone at 0),
    with the score limit and the reduction totals as guides; Assafed callers and
    reductions marked. None for a game without a scored round."""
    rounds = [r for r in report["rounds"] if r["scores"]]
    if not rounds:
        return None
    params = report["rules"]["params"]
    left, right, top, bottom = 46, 12, 10, 30  # room for 3-digit scores at 13 px on a phone
    limit = params.get("score_limit") or 0
    reductions = {int(k): v for k, v in (params.get("reductions") or {}).items()}
    top_score = max(max(r["scores"].values(), default=0) for r in rounds)
    # the limit is drawn when the scores come near it (else it would flatten the lines)
    shows_limit = game_uses_limit(params) and limit and top_score >= limit / 2
    ymax = max(top_score, limit if shows_limit else 0, 10)
    ymax = int(-(-ymax * 1.05 // 10) * 10)
    plot_w, plot_h = width - left - right, height - top - bottom
    xs = [left + plot_w * i / len(rounds) for i in range(len(rounds) + 1)]

    def y(value: float) -> float:
        return round(top + plot_h * (1 - value / ymax), 1)

    lines = []
    for k, p in enumerate(players):
        points = [(xs[0], y(0))]
        marks = []
        last = 0
        for i, r in enumerate(rounds, start=1):
            score = r["scores"].get(p, last)
            points.append((round(xs[i], 1), y(score)))
            if r.get("caller") == p and r.get("assaf"):
                marks.append(
                    {"x": round(xs[i], 1), "y": y(score), "kind": "assaf", "round": r["round"]}
                )
            for red in r["reductions"]:
                if red["player"] == p:
                    marks.append(
                        {
                            "x": round(xs[i], 1),
                            "y": y(red["to"]),
                            "kind": "reduction",
                            "round": r["round"],
                            "from_y": y(red["from"]),
                            "to": red["to"],
                        }
                    )
            last = score
        lines.append(
            {
                "player": p,
                "series": k % 8,
                "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in points),
                "marks": marks,
                "end": points[-1],
                "score": last,
            }
        )
    guides = []
    if shows_limit:
        guides.append({"y": y(limit), "value": limit, "kind": "limit"})
    for key in sorted(reductions):
        if key <= ymax:
            guides.append({"y": y(key), "value": key, "kind": "reduction"})
    step = next(s for s in (10, 25, 50, 100, 200, 500, 1000, 10**9) if ymax / s <= 5)
    yticks = [{"y": y(v), "value": v} for v in range(0, ymax + 1, step)]
    labels = [{"x": round(xs[i], 1), "round": r["round"]} for i, r in enumerate(rounds, 1)]
    return Chart(width, height, left, top, bottom, right, ymax, xs, lines, guides, yticks, labels)


def game_uses_limit(params: Mapping[str, Any]) -> bool:
    return params.get("game_end") != "rounds"
