"""What another rule set changes, said in the page's language.

``compare`` reports each change as data (``rules``, ``round``, ``field``, ``from``,
``to`` and ``params``) with an English ``message`` made from them (the report's
contract, which stays English). The compare page says the same from the data, in the
request's language: :func:`change_text`. Nothing here reads a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core.messages import render, template_key
from ..core.report import Change, Ruling, Unreplayable
from .i18n import N_, current, gettext, ngettext, translations

VERDICTS = {
    "clean": N_("clean"),
    "claims": N_("claims"),
    "violations": N_("violations"),
    "corrupt": N_("corrupt"),
    "unreadable": N_("unreadable"),
}


def names(players: Sequence[str] | None) -> str:
    if not players:
        return gettext("nobody")
    return (
        gettext("%(first)s and %(last)s", first=", ".join(players[:-1]), last=players[-1])
        if len(players) > 1
        else str(players[0])
    )


def change_text(change: Change, changes: Iterable[Change] = ()) -> str:
    """One change of a comparison in this request's language (``changes``: all of its
    rule set's, which the final winner's sentence gives its reason from)."""
    return gettext(
        "under %(rules)s: %(what)s", rules=change["rules"], what=clause(change, list(changes))
    )


def said(key: str, params: Mapping[str, Any]) -> str:
    """A template of core/messages.py in this request's language, cards as the board
    draws them."""
    return render(key, params, translations(current().code).ugettext, suits=True)


def because_text(change: Change, params: Mapping[str, Mapping[str, Any]]) -> str:
    """Why a change happens, in this request's language: the parameters it names
    (``because``) with their values under its rule set (``params``: each rule set's
    parameters by id) in plain words; empty when it names none."""
    because = change.get("because")
    if not because or change["field"] == "replay":
        return ""
    values = params[change["rules"]]
    rule = {name: values[name] for name in because}
    return said("change:because", {"rules": change["rules"], "rule": rule})


def ruling_text(ruling: Ruling) -> str:
    """The ruling's first line, which a table reads aloud (a report's ``ruling``), in this
    request's language."""
    return said(ruling["key"], ruling["params"])


def unreplayable_text(stop: Unreplayable) -> str:
    """Why a rule set cannot replay the log (a comparison's ``unreplayable``)."""
    reason = {"phrase": template_key(stop["code"], stop["params"]), **stop["params"]}
    return said("result:unreplayable", {"seq": stop["seq"], "reason": reason})


def clause(change: Change, changes: Sequence[Change] = ()) -> str:
    field, n = change["field"], change["round"]
    before, after, params = change["from"], change["to"], change.get("params", {})
    if field == "replay":
        return said("change:unreplayable", params)
    if field == "verdict":
        return gettext(
            "the verdict is %(to)s instead of %(from)s",
            to=gettext(VERDICTS.get(after, after)),
            **{"from": gettext(VERDICTS.get(before, before))},
        )
    if field == "round":
        first, last = params.get("first", n), params.get("last", n)
        many = last != first
        which = f"{first}-{last}" if many else str(first)
        if after:  # played under this rule set only
            return (
                gettext("rounds %(which)s are played (only here)", which=which)
                if many
                else gettext("round %(which)s is played (only here)", which=which)
            )
        return (
            gettext("rounds %(which)s are not played", which=which)
            if many
            else gettext("round %(which)s is not played", which=which)
        )
    if field == "winners" and n is not None:
        return gettext(
            "round %(n)s is won by %(to)s instead of %(from)s",
            n=n,
            to=names(after),
            **{"from": names(before)},
        )
    if field == "points":
        if not after:
            return gettext("round %(n)s is not scored", n=n)
        if not before:
            return gettext("round %(n)s is scored", n=n)
        parts = [
            points(p, before.get(p), after.get(p))
            for p in dict.fromkeys([*before, *after])
            if before.get(p) != after.get(p)
        ]
        return gettext("in round %(n)s %(what)s", n=n, what=", ".join(parts))
    if field == "scores" and n is not None:
        moved = params.get("players") or [
            p for p in dict.fromkeys([*before, *after]) if before.get(p) != after.get(p)
        ]
        return gettext(
            "after round %(n)s: %(what)s",
            n=n,
            what=", ".join(score_moved(p, after.get(p), before.get(p)) for p in moved),
        )
    if field == "winners":
        first = next(
            (
                c
                for c in changes
                if c["field"] in ("points", "winners", "round") and c["round"] is not None
            ),
            None,
        )
        why = f": {clause(first)}" if first is not None else ""
        if not params.get("finished", bool(after)):
            return gettext("the game is not finished") + why
        if not before:
            return (
                ngettext(
                    "%(who)s wins and the game is over",
                    "%(who)s win and the game is over",
                    len(after),
                    who=names(after),
                )
                + why
            )
        return (
            ngettext(
                "%(who)s wins instead of %(from)s",
                "%(who)s win instead of %(from)s",
                len(after),
                who=names(after),
                **{"from": names(before)},
            )
            + why
        )
    if field == "scores":
        return gettext(
            "the final scores are %(scores)s",
            scores=", ".join(f"{p} {s}" for p, s in after.items()),
        )
    if field == "findings":
        parts = []
        for key, label in (
            ("added", N_("findings added: %(list)s")),
            ("removed", N_("findings removed: %(list)s")),
        ):
            if params.get(key):
                parts.append(
                    gettext(label, list=", ".join(f"{f['code']}@{f['seq']}" for f in params[key]))
                )
        return "; ".join(parts)
    return str(change["message"])


def score_moved(player: str, after: Any, before: Any) -> str:
    return gettext(
        "%(player)s %(to)s instead of %(from)s", player=player, to=after, **{"from": before}
    )


def points(player: str, before: int | None, after: int | None) -> str:
    if before is None:
        return gettext(
            "%(player)s scores %(to)s (nothing under the baseline)", player=player, to=after
        )
    if after is None:
        return gettext(
            "%(player)s scores nothing (instead of %(from)s)", player=player, **{"from": before}
        )
    return gettext(
        "%(player)s scores %(to)s instead of %(from)s", player=player, to=after, **{"from": before}
    )
