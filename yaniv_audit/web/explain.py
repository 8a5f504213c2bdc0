"""Every score of a game explained in words, and its running scores as a chart.

Both are read from the audit report's rounds (``points``, ``totals``, ``assaf``,
``reductions``, ``out``) and its rule parameters: nothing here scores a round again.
The breakdown of a caller's Assaf points (hand + penalty) is the report's points less
the report's hand total, so it always adds up to what the report says.

The sentences are in the page's language (gettext) and are HTML: player names are
isolated (``<bdi>``) and each deciding rule parameter links to the rules page
(``/rules#<parameter>``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from ..core.messages import render
from ..core.report import AuditReport, Round
from .i18n import bdi, catalogue_of, current, gettext

#: the page that explains the parameters, one anchor per parameter
RULES_PAGE = "/rules"


def param(name: str) -> Markup:
    """A rule parameter, linked to its place on the rules page."""
    return Markup('<a class="param" href="{0}#{1}"><code>{1}</code></a>').format(RULES_PAGE, name)


def _(message: str, **values: Any) -> Markup:
    """``message`` in the page's language, its values escaped (names stay <bdi>)."""
    return Markup(gettext(message)) % values if values else Markup(gettext(message))


def names_list(players: Sequence[str], names: Mapping[str, str]) -> Markup:
    return Markup(", ").join(bdi(names.get(p, p)) for p in players)


@dataclass
class Explained:
    """One round: its sentences, and what the table of rounds shows beside them."""

    round: int
    sentences: list[Markup] = field(default_factory=list)
    params: list[str] = field(default_factory=list)


def explain_round(rnd: Round, params: Mapping[str, Any], names: Mapping[str, str]) -> Explained:
    """The sentences that say how round ``rnd`` (a report's round) was scored."""
    out = Explained(rnd["round"])
    say = out.sentences.append
    who: dict[str, Markup] = {p: bdi(names.get(p, p)) for p in rnd["totals"]}

    def name(p: str) -> Markup:
        return who.get(p) or bdi(names.get(p, p))

    def used(*parameters: str) -> None:
        out.params.extend(p for p in parameters if p not in out.params)

    points: dict[str, int] = rnd["points"]
    totals: dict[str, int] = rnd["totals"]
    caller, assaf = rnd["caller"], list(rnd["assaf"])
    if not rnd["moves_checked"]:
        say(_("From the scoresheet: the moves of this round were not recorded."))
    if rnd["end"] is None or not points:
        say(_("Not scored: the round has no Yaniv and no showdown."))
        return out
    if rnd["end"] == "stock":
        used("reshuffle")
        say(
            _(
                "The stock ran out (%(param)s): every hand counts, the lowest wins the round.",
                param=param("reshuffle"),
            )
        )
        for p, n in points.items():
            say(_hand(name(p), n, totals.get(p)))
    elif caller is not None and not assaf:
        say(
            _(
                "%(caller)s called Yaniv at %(total)s; nobody had as little.",
                caller=name(caller),
                total=totals.get(caller, "?"),
            )
        )
        for p, n in points.items():
            if p == caller:
                say(_("%(player)s scores 0 (the caller).", player=name(p)))
            else:
                say(_hand(name(p), n, totals.get(p)))
    elif caller is not None:
        had = Markup(", ").join(
            _("%(player)s had %(total)s", player=name(p), total=totals[p]) for p in assaf
        )
        say(
            _(
                "%(caller)s called Yaniv at %(total)s; %(had)s: Assaf.",
                caller=name(caller),
                total=totals.get(caller, "?"),
                had=had,
            )
        )
        if any(totals[p] == totals.get(caller) for p in assaf):
            used("assaf_on_tie")
            say(_("An equal total is an Assaf (%(param)s).", param=param("assaf_on_tie")))
        say(
            _caller_on_assaf(
                caller,
                name(caller),
                points[caller],
                totals.get(caller, 0),
                len(assaf),
                params,
                used,
            )
        )
        lowest = min(totals[p] for p in assaf)
        scoring = params.get("assaf_scoring")
        used("assaf_scoring")
        for p, n in points.items():
            if p == caller:
                continue
            if n == 0 and p in assaf and totals[p] == lowest:
                say(
                    _(
                        "%(player)s scores 0 (the lowest Assafer, %(param)s).",
                        player=name(p),
                        param=param("assaf_scoring"),
                    )
                )
            elif n == 0 and scoring == "others_zero":
                say(
                    _(
                        "%(player)s scores 0 (only the caller scores, %(param)s).",
                        player=name(p),
                        param=param("assaf_scoring"),
                    )
                )
            else:
                say(_hand(name(p), n, totals.get(p)))
    for red in rnd["reductions"]:
        used("reductions")
        say(
            _(
                "%(player)s lands on %(from)s and drops to %(to)s (%(param)s).",
                player=name(red["player"]),
                to=red["to"],
                param=param("reductions"),
                **{"from": red["from"]},
            )
        )
    for p in rnd["out"]:
        used("score_limit", "limit_rule")
        say(
            _(
                "%(player)s passes the limit with %(score)s and is out (%(limit)s, %(rule)s).",
                player=name(p),
                score=rnd["scores"].get(p, "?"),
                limit=param("score_limit"),
                rule=param("limit_rule"),
            )
        )
    # the round's deciding rule parameters no sentence above named (a tie that is no
    # Assaf under assaf_on_tie=false), in plain words
    decided = {k: v for k, v in rnd.get("rule", {}).items() if k not in out.params}
    if decided:
        used(*decided)
        gettext_of = catalogue_of(current().code).ugettext
        say(Markup.escape(render("story:rule", {"rule": decided}, gettext_of, suits=True)))
    return out


def _hand(shown: Markup, points: int, total: int | None) -> Markup:
    """What a player who is not the caller scores: their hand, as the report says."""
    if points == total:
        return _("%(player)s scores %(points)s (their hand).", player=shown, points=points)
    return _("%(player)s scores %(points)s.", player=shown, points=points)


def _caller_on_assaf(
    caller: str,
    shown: Markup,
    points: int,
    total: int,
    assafers: int,
    params: Mapping[str, Any],
    used: Any,
) -> Markup:
    """What the Assafed caller scores, as the sum the report's points make."""
    penalty = points - total if params.get("assaf_adds_hand") else points
    multi = params.get("assaf_multi_penalty")
    if multi is not None and assafers > 1 and penalty == multi * assafers:
        used("assaf_multi_penalty")
        extra = _("%(n)s × %(each)s", n=assafers, each=multi)
        why = param("assaf_multi_penalty")
    else:
        used("assaf_penalty")
        extra, why = Markup(penalty), param("assaf_penalty")
    if params.get("assaf_adds_hand"):
        used("assaf_adds_hand")
        return _(
            "%(player)s scores %(hand)s + %(penalty)s = %(points)s (%(param)s).",
            player=shown,
            hand=total,
            penalty=extra,
            points=points,
            param=why,
        )
    used("assaf_adds_hand")
    return _(
        "%(player)s scores the penalty alone: %(points)s (%(param)s, %(rule)s).",
        player=shown,
        points=points,
        param=why,
        rule=param("assaf_adds_hand"),
    )


def explain(report: AuditReport, names: Mapping[str, str]) -> list[Explained]:
    """Every round of ``report`` explained."""
    params = report["rules"]["params"]
    return [explain_round(r, params, names) for r in report["rounds"]]


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
