"""Step-by-step views of a replay, for the terminal and the web viewer."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from .engine import Finding, Replay, StopReplay
from .errors import InconsistentLogError
from .events import (
    Event,
    Log,
)
from .messages import phrase, render_phrase
from .rules import RuleSet
from .sentences import kind_word, move_phrase


def describe(
    event: Event,
    seat: str | None = None,
    players: tuple[str, ...] = (),
    name: Callable[[str], str] = str,
) -> str:
    """One line in English saying what an event records (as ``seat`` sees it, if given):
    :func:`~.sentences.move_phrase`, the data every shell says in its language."""
    return render_phrase(move_phrase(event, seat, players, name))


def steps(
    log: Log,
    rules: RuleSet | None = None,
    seat: str | None = None,
    replay: Replay | None = None,
    say: Callable[[dict[str, Any]], str] = render_phrase,
) -> Iterator[dict[str, Any]]:
    """After each event: the event (its ``text`` said by ``say``: English by default),
    the state and the findings it raised.

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
            "text": say(move_phrase(event, seat, log.players)),
            "findings": [f.to_json() for f in found],
            "state": replay.snapshot(),
            "stopped": stopped,
            "withdrawn_by": by,
        }


def render_steps(
    log: Log,
    rules: RuleSet | None = None,
    *,
    seat: str | None = None,
    say: Callable[[dict[str, Any]], str] = render_phrase,
) -> Iterator[str]:
    """The terminal replay: every event, the table after it, findings marked with the
    file line of their event (a ``.jsonl`` log's; a ``.json`` array has none); each
    sentence said by ``say`` (a language's renderer; default English)."""
    for step in steps(log, rules, seat, say=say):
        text = step["text"]
        if step["withdrawn_by"] is not None:
            withdrawn = say(phrase("say.step_withdrawn", by=step["withdrawn_by"], text=text))
            yield f"[{step['index']:>3}] {withdrawn}"
            continue
        yield f"[{step['index']:>3}] {text}"
        for f in step["findings"]:
            line = log.events[f["seq"]].line if 0 <= f["seq"] < len(log.events) else None
            where = phrase("say.step_line", line=line) if line is not None else ""
            yield "      " + say(
                phrase(
                    "say.step_finding",
                    kind=kind_word(f["kind"]),
                    where=where,
                    text={"finding": f["code"], "params": f["params"]},
                    code=f["code"],
                )
            )
        state = step["state"]
        rnd = state["round"]
        if (
            rnd is not None
            and rnd["moves_checked"]
            and step["type"] in ("round_started", "discard", "draw", "slap", "yaniv")
        ):
            pile = rnd["pile"]
            yield "      " + say(
                phrase(
                    "say.step_table",
                    top=" ".join(pile[-1]) if pile else "-",
                    stock=rnd["stock"],
                    turn=rnd["turn"],
                )
            )
            for p, hand in rnd["hands"].items():
                if seat is None or p == seat:
                    yield f"      {p:>10}: {' '.join(hand) or '-'} ({rnd['totals'][p]})"
                else:
                    yield f"      {p:>10}: " + say(phrase("say.step_cards", count=len(hand)))
        if (
            step["type"] in ("yaniv", "showdown", "round_ended", "round_started")
            or step["findings"]
        ):
            yield "      " + say(
                phrase("say.step_scores_out", scores=state["scores"], out=state["out"])
                if state["out"]
                else phrase("say.step_scores", scores=state["scores"])
            )
        if step["stopped"] and step["findings"]:
            yield "      " + say(phrase("say.step_stopped"))
