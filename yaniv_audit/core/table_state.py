"""The table of a game being recorded: given the log so far, where the game stands, what
may come next, and what is wrong (the engine of the ``/record`` page, ``POST /api/v1/state``).

:func:`table_state` is pure: a readable log (unfinished, a scoresheet, or anything
between) and a rule set in, a JSON-ready dict out, nothing kept. Every judgement is the
engine's own: the state is a :class:`~yaniv_audit.core.engine.Replay` of the log, the legal
next moves are :meth:`~yaniv_audit.core.engine.Replay.next_moves` (the legal-move generator the
simulator's bots choose from; after a draw, the next player's moves too), and the
report (findings, rounds with their totals, Assaf, points, reductions, running scores
and who went out, the final result) is the one ``yaniv-audit audit`` gives for the same
log: :func:`~yaniv_audit.core.audit.report_of` of the same replay. A recorder that sends its
log with a candidate entry as the last event learns at once what the audit will say of it
(``last``: the findings that entry raised).

>>> from yaniv_audit.io.codec import parse_jsonl
>>> log = parse_jsonl(b"\\n".join([
...     b'{"type": "game_started", "format": "yaniv-log/1", "players": ["a", "b"], '
...     b'"rules": "israeli"}',
...     b'{"type": "round_started", "round": 1, "starter": "a"}',
...     b'{"type": "showdown", "caller": "a", "hands": {"a": ["AH", "2C"]}, "totals": {"b": 3}}',
... ]), "x")
>>> t = table_state(log)
>>> t["report"]["rounds"][0]["assaf"], t["report"]["rounds"][0]["points"]
(['b'], {'a': 33, 'b': 0})
>>> t["next"]["expects"]
['round_ended', 'round_started', 'game_ended', 'note']
"""

from __future__ import annotations

from typing import Any, TypedDict

from .audit import report_of
from .cards import format_cards, hand_total
from .engine import DREW, START, THREW, Replay
from .errors import InconsistentLogError
from .events import Log
from .report import AuditReport, Finding
from .rules import RuleSet
from .scoring import next_starter

PHASES = {START: "start", THREW: "threw", DREW: "drew"}


class GameFacts(TypedDict):
    """What a log says of its game, as the board and the table give it."""

    game_id: str
    fingerprint: str
    players: list[str]
    names: dict[str, str]
    declared_rules: str
    meta: dict[str, Any]
    at: str | None


class TableNow(TypedDict):
    """Where the game stands after the log: the round being played (null fields before
    the first), the seats' hands and totals (a round of moves), the scores."""

    round: int | None
    moves_checked: bool | None
    starter: str | None
    turn: str | None
    phase: str | None
    up: str | None
    hands: dict[str, list[str]]
    totals: dict[str, int]
    pile: list[list[str]]
    stock: int | None
    stock_known: bool | None
    upcard_known: bool | None
    ended: bool
    closed: bool
    caller: str | None
    scores: dict[str, int]
    out: list[str]
    still_in: list[str]
    winners: list[str]
    finished: bool
    stopped: bool


class Next(TypedDict):
    """What the log may hold next."""

    expects: list[str]
    moves: list[dict[str, Any]]
    moves_complete: bool
    round: int | None
    starters: list[str] | None
    deal: list[str]


class TableState(TypedDict):
    """The answer of :func:`table_state` (``POST /api/v1/state``)."""

    game: GameFacts
    events: int
    report: AuditReport
    last: list[Finding]
    state: TableNow
    next: Next


#: the most throws ``next.moves`` lists for a player: a hand of thirty cards with sixteen
#: jokers has 24,637 legal throws (hundreds of thousands with wild jacks), and one
#: request must not make them all; ``next.moves_complete`` is false when some are left out
THROWS_LISTED = 1000
#: what stands for a card on the pile that the log did not record (the upcard)
UNKNOWN = "??"


def table_state(log: Log, rules: RuleSet | None = None) -> TableState:
    """The state after ``log`` under ``rules`` (default: the declared rules), what may come
    next, the audit's report, and the findings of the last event.

    Raises LogFormatError when the replay finds the log unreadable (as the audit does).
    """
    replay = Replay(log.game, rules or log.game.rules)
    replay.withdrawals = log.withdrawals
    withdrawn = log.withdrawals.withdrawn if log.withdrawals else {}
    stopped = False
    try:
        for event in log.events:
            if event.index not in withdrawn:  # an entry taken back is read as never written
                replay.apply(event)
    except InconsistentLogError:
        stopped = True  # the log is impossible from here; the audit stops here too
    return state_after(log, replay, stopped)


def state_after(
    log: Log,
    replay: Replay,
    stopped: bool,
    fingerprint: str | None = None,
) -> TableState:
    """:func:`table_state` of ``log`` from its ``replay``, folded over every event not taken
    back (``stopped``: the fold stopped at an impossible event; ``fingerprint``: the log's,
    if known); finishes the replay, as the
    audit's replay ends (a live table folds a copy when that changes it:
    :mod:`yaniv_audit.io.live`)."""
    moves = [] if stopped else replay.next_moves(THROWS_LISTED + 1)
    complete = True
    listed: dict[str, int] = {}
    kept: list[Any] = []
    for move in moves:
        if move.kind == "discard":
            listed[move.player] = listed.get(move.player, 0) + 1
            if listed[move.player] > THROWS_LISTED:
                complete = False
                continue
        kept.append(move)
    exhaust_pending = replay.round is not None and replay.round.exhaust_pending
    if not stopped:
        replay.finish()  # as the audit's replay ends
    report = report_of(log, replay, fingerprint)
    last = len(log.events) - 1
    return {
        "game": game_facts(log, report),
        "events": len(log.events),
        "report": report,
        "last": [f for f in report["findings"] if f["seq"] == last],
        "state": _state(replay, stopped),
        "next": _next(replay, stopped, kept, complete, exhaust_pending),
    }


def game_facts(log: Log, report: AuditReport) -> GameFacts:
    """What ``log`` says of its game (its id and fingerprint as ``report`` gives them)."""
    return {
        "game_id": report["game_id"],
        "fingerprint": report["fingerprint"],
        "players": list(log.players),
        "names": dict(log.game.names),
        "declared_rules": log.game.rules.id,
        "meta": dict(log.game.meta or {}),
        "at": log.game.at,
    }


def _state(replay: Replay, stopped: bool) -> TableNow:
    r = replay.round
    out: TableNow = {
        "round": None,
        "moves_checked": None,
        "starter": None,
        "turn": None,
        "phase": None,
        "up": None,
        "hands": {},
        "totals": {},
        "pile": [],
        "stock": None,
        "stock_known": None,
        "upcard_known": None,
        "ended": False,
        "closed": False,
        "caller": None,
        "scores": dict(replay.scores),
        "out": list(replay.out),
        "still_in": replay.still_in,
        "winners": list(replay.winners or ()),
        "finished": replay.finished,
        "stopped": stopped,
    }
    if r is None:
        return out
    in_play = not (r.ended or r.closed) and replay.winners is None
    out["round"] = r.number
    out["moves_checked"] = r.moves_checked
    out["starter"] = r.starter
    out["turn"] = r.current if in_play else None
    out["phase"] = PHASES[r.phase] if in_play and r.moves_checked else None
    out["ended"] = r.ended
    out["closed"] = r.closed
    out["caller"] = r.caller
    if in_play and r.moves_checked:
        # who opens the next turn: after a draw, the next seat (a slap may still come first)
        out["up"] = replay.up()
    if r.moves_checked:
        out["hands"] = {p: format_cards(h).split() for p, h in r.hands.items()}
        out["totals"] = {p: hand_total(h, replay.values) for p, h in r.hands.items()}
        # the top two throws, the top last: what was just thrown and what lies under it
        out["pile"] = [
            [UNKNOWN if c is None else format_cards([c]) for c in layer.cards]
            for layer in r.pile[-2:]
        ]
        out["stock"] = r.stock_count
        out["stock_known"] = r.stock is not None
        out["upcard_known"] = not any(None in layer.cards for layer in r.pile)
    return out


def _next(
    replay: Replay, stopped: bool, moves: list[Any], complete: bool, exhaust_pending: bool
) -> Next:
    """What the log may hold next: the event types that fit here, the legal moves (whether
    all of them), and who may open the next round."""
    out: Next = {
        "expects": ["note"],
        "moves": [m.event() for m in moves],
        "moves_complete": complete,
        "round": None,
        "starters": None,
        "deal": [],
    }
    if stopped:
        return out
    r = replay.round
    if replay.winners is not None:
        closing = [t for t in ("showdown", "round_ended") if t in replay.closing_allowed]
        out["expects"] = [*closing, "game_ended", "note"]
        return out
    expects: list[str] = []
    if r is not None and not (r.ended or r.closed):
        if not r.moves_checked:
            expects += (["yaniv"] if r.caller is None else []) + ["showdown"]
        else:
            expects += list(dict.fromkeys(m["type"] for m in out["moves"]))
            # what is always expressible here, legal or not (the audit judges it)
            for kind in ("draw",) if r.phase == THREW else ("discard", "yaniv"):
                if kind not in expects:
                    expects.append(kind)
            if exhaust_pending and replay.rules.reshuffle == "keep_last_throw":
                expects.append("reshuffle")
            expects.append("showdown")
    elif r is not None and not r.closed:
        expects += (["showdown"] if r.moves_checked else []) + ["round_ended"]
    if r is None or r.ended or r.closed:
        expects += ["round_started", "game_ended"]
        out["round"] = 1 if r is None else r.number + 1
        out["deal"] = replay.still_in
        if r is not None:
            record = replay.records[-1]
            winners = record.score.winners if record.score else ()
            if not (replay.rules.starter in ("round_winner", "caller") and record.score is None):
                allowed = next_starter(
                    replay.rules,
                    replay.seating,
                    replay.still_in,
                    winners,
                    record.starter,
                    record.caller,
                )
                if allowed is not None:
                    out["starters"] = [p for p in replay.seating if p in allowed]
    out["expects"] = [*expects, "note"]
    return out
