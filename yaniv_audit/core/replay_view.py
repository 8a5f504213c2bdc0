"""Step-by-step views of a replay, for the terminal and the web viewer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .cards import format_cards
from .engine import Finding, Replay, StopReplay
from .errors import InconsistentLogError
from .events import (
    Discard,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    Log,
    Note,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Withdraw,
    Yaniv,
)
from .rules import RuleSet


def describe(
    event: Event,
    seat: str | None = None,
    players: tuple[str, ...] = (),
    name: Callable[[str], str] = str,
) -> str:
    """One line saying what an event records (as ``seat`` sees it, if given); hands
    shown are listed in the order of ``players``, the seating. Each player is written
    as ``name(player)`` (a page marks them there, to isolate them)."""
    if isinstance(event, GameStarted):
        return f"game starts: {', '.join(map(name, event.players))} under {event.rules.id}"
    if isinstance(event, RoundStarted):
        text = f"round {event.round} dealt, {name(event.starter)} opens"
        if event.hands is None:
            return text + " (moves not recorded)"
        if event.upcard is not None:
            text += f", upcard {format_cards([event.upcard])}"
        return text
    if isinstance(event, Discard):
        return f"{name(event.player)} throws {format_cards(event.cards)}"
    if isinstance(event, Draw):
        hidden = seat is not None and event.source == "stock" and event.player != seat
        what = format_cards([event.card]) if event.card is not None and not hidden else "a card"
        if event.swap is not None and event.source == "pile":  # (on a stock draw: draw.swap)
            return f"{name(event.player)} swaps {format_cards([event.swap])} for {what}"
        return f"{name(event.player)} draws {what} from the {event.source}"
    if isinstance(event, Slap):
        return f"{name(event.player)} slaps {format_cards([event.card])}"
    if isinstance(event, Yaniv):
        total = f" ({event.total})" if event.total is not None else ""
        return f"{name(event.player)} calls Yaniv{total}"
    if isinstance(event, Showdown):
        hands = _seated(event.hands, players)
        written = event.totals or {}
        shown = "; ".join(f"{name(p)}: {format_cards(c)}" for p, c in hands.items())
        shown += "".join(
            f"; {name(p)}: {t} (total)"
            for p, t in _seated(written, players).items()
            if p not in event.hands
        )
        return f"showdown (caller {name(event.caller) if event.caller else 'none'}): {shown}"
    if isinstance(event, RoundEnded):
        return f"round {event.round} written down" + (
            f": scores {_pairs(_seated(event.scores, players), name)}" if event.scores else ""
        )
    if isinstance(event, Reshuffle):
        return "the pile is reshuffled into a new stock"
    if isinstance(event, GameEnded):
        who = ", ".join(map(name, event.winner)) if event.winner else "?"
        return f"game ends, the table names {who}"
    if isinstance(event, Note):
        return f"note{' by ' + name(event.player) if event.player else ''}: {event.text}"
    if isinstance(event, Withdraw):
        asked = f" ({name(event.player)} asked)" if event.player else ""
        why = f": {event.reason}" if event.reason else ""
        return f"the table takes back {', '.join(map(str, event.seqs))}{asked}{why}"
    return event.type


def _seated(values: dict[str, Any], players: tuple[str, ...]) -> dict[str, Any]:
    """``values`` by player in seating order (a log may list them in any order)."""
    order = {p: i for i, p in enumerate(players)}
    return dict(sorted(values.items(), key=lambda item: order.get(item[0], len(order))))


def _pairs(values: dict[str, int], name: Callable[[str], str] = str) -> str:
    return ", ".join(f"{name(p)} {v}" for p, v in values.items())


def steps(
    log: Log, rules: RuleSet | None = None, seat: str | None = None, replay: Replay | None = None
) -> Iterator[dict[str, Any]]:
    """After each event: the event, the state and the findings it raised.

    ``replay`` (default: a new one under ``rules``) is the fold the steps come
    from; a caller that passes it can read the whole replay afterwards.
    """
    replay = replay or Replay(log.game, rules or log.game.rules)
    replay.withdrawals = log.withdrawals
    withdrawn = log.withdrawals.withdrawn if log.withdrawals else {}
    stopped = False
    for event in log.events:
        before = len(replay.findings)
        by = withdrawn.get(event.index)
        if not stopped and by is None:  # an entry taken back is read as never written
            try:
                replay.apply(event)
            except (InconsistentLogError, StopReplay):
                stopped = True
        found: list[Finding] = replay.findings[before:]
        yield {
            "index": event.index,
            "type": event.type,
            "text": describe(event, seat, log.players),
            "findings": [f.to_json() for f in found],
            "state": replay.snapshot(),
            "stopped": stopped,
            "withdrawn_by": by,
        }


def render_steps(
    log: Log, rules: RuleSet | None = None, *, seat: str | None = None
) -> Iterator[str]:
    """The terminal replay: every event, the table after it, findings marked with the
    file line of their event (a ``.jsonl`` log's; a ``.json`` array has none)."""
    for step in steps(log, rules, seat):
        if step["withdrawn_by"] is not None:
            yield (
                f"[{step['index']:>3}] (withdrawn by {step['withdrawn_by']}, not counted) "
                f"{step['text']}"
            )
            continue
        yield f"[{step['index']:>3}] {step['text']}"
        for f in step["findings"]:
            line = log.events[f["seq"]].line if 0 <= f["seq"] < len(log.events) else None
            where = f" (line {line})" if line is not None else ""
            yield f"      !! {f['kind']} {f['code']}{where}: {f['message']}"
        state = step["state"]
        rnd = state["round"]
        if (
            rnd is not None
            and rnd["moves_checked"]
            and step["type"] in ("round_started", "discard", "draw", "slap", "yaniv")
        ):
            pile = rnd["pile"]
            yield (
                f"      top throw: {' '.join(pile[-1]) if pile else '-'} | "
                f"stock: {rnd['stock']} | turn: {rnd['turn']}"
            )
            for p, hand in rnd["hands"].items():
                if seat is None or p == seat:
                    yield f"      {p:>10}: {' '.join(hand) or '-'} ({rnd['totals'][p]})"
                else:
                    yield f"      {p:>10}: {len(hand)} cards"
        if (
            step["type"] in ("yaniv", "showdown", "round_ended", "round_started")
            or step["findings"]
        ):
            yield f"      scores: {_pairs(state['scores'])}" + (
                f" | out: {', '.join(state['out'])}" if state["out"] else ""
            )
        if step["stopped"] and step["findings"]:
            yield "      (the replay stops here: the log is physically impossible)"
