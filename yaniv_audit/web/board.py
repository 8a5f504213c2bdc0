"""What the viewer shows of one game: its report and the table after every event.

One function serves the HTML board and the JSON API alike, so both show the
same replay as ``yaniv-audit replay`` and the same report as ``yaniv-audit audit``.
"""

from __future__ import annotations

from typing import Any

from ..audit import report_of
from ..engine import Replay
from ..events import Log
from ..merkle import tree_hash
from ..replay_view import steps
from ..rules import RuleSet

#: throws of the pile kept in each step (the top ones: what can be taken, and before)
PILE_SHOWN = 3
#: what stands for a card the seat being shown cannot see
HIDDEN = "??"


def board(log: Log, rules: RuleSet | None = None, seat: str | None = None) -> dict[str, Any]:
    """The report and every step of ``log`` under ``rules`` (default: its declared rules).

    With ``seat``, the other players' hands show as hidden cards and their
    stock draws as "a card", as that player saw the game. Raises LogFormatError
    when the replay finds the log unreadable. The steps and the report come
    from one replay.
    """
    fingerprint = tree_hash(log.leaves).hex()
    replay = Replay(log.game, rules or log.game.rules)
    shown = [_step(step, seat) for step in steps(log, rules, seat, replay)]
    if not (shown and shown[-1]["stopped"]):
        replay.finish()  # as the audit's replay ends (a stopped one ends where it stopped)
    report = report_of(log, replay, fingerprint)
    return {
        "game": {
            "game_id": report["game_id"],
            "fingerprint": fingerprint,
            "players": list(log.players),
            "names": dict(log.game.names),
            "declared_rules": log.game.rules.id,
        },
        "seat": seat,
        "report": report,
        "steps": shown,
    }


def _step(step: dict[str, Any], seat: str | None) -> dict[str, Any]:
    state = step["state"]
    table = state["round"]
    if table is not None:
        table["pile"] = table["pile"][-PILE_SHOWN:]
        if seat is not None:
            table["hands"] = {p: hand if p == seat else [HIDDEN] * len(hand)
                              for p, hand in table["hands"].items()}
            table["totals"] = {p: t for p, t in table["totals"].items() if p == seat}
    return step
