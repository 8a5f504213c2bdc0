"""What the viewer shows of one game: its report and the table after every event.

One function serves the HTML board and the JSON API alike, so both show the
same replay as ``yaniv-audit replay`` and the same report as ``yaniv-audit audit``.
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..core.audit import report_of
from ..core.cards import format_cards
from ..core.engine import Replay
from ..core.events import (
    Discard,
    Draw,
    Event,
    GameStarted,
    Log,
    Note,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Withdraw,
    Yaniv,
)
from ..core.merkle import tree_hash
from ..core.replay_view import steps
from ..core.report import AuditReport, Finding
from ..core.rules import RuleSet
from ..core.table_state import GameFacts, game_facts

#: throws of the pile kept in each step (the top ones: what can be taken, and before)
PILE_SHOWN = 3
#: what stands for a card the seat being shown cannot see
HIDDEN = "??"


class _Move(TypedDict):
    player: str | None
    cards: list[str]


# (optional keys by total=False, not NotRequired: the annotations here are strings, which
# the runtime's TypedDict does not read NotRequired from)
class Move(_Move, total=False):
    """Who acted in an event and the cards of the move; the rest as the event has it."""

    source: str
    swap: str | None
    total: int | None
    hands: dict[str, list[str]]
    round: int
    recorded: bool
    players: list[str]
    rules: str
    seqs: list[int]
    text: str


class StepRound(TypedDict):
    """The round on the table after a step, its seats by their index in the players."""

    round: int
    moves_checked: bool
    turn: int | None
    phase: str
    hands: list[list[str] | None]
    totals: list[int | None]
    pile: list[list[str]]
    stock: int | None
    ended: bool


class StepState(TypedDict):
    """The game after a step, by seat: ``scores`` in seat order, ``out`` and ``winners``
    seats."""

    scores: list[int | None]
    out: list[int]
    winners: list[int]
    round: StepRound | None


class Step(TypedDict):
    """One event of the board: what it records (``text``, English), the findings it
    raised, the table after it and the move drawn."""

    index: int
    type: str
    text: str
    findings: list[Finding]
    state: StepState
    stopped: bool
    withdrawn_by: int | None
    move: Move


class Board(TypedDict):
    """The board answer (``POST /api/v1/board``, the game page's data)."""

    game: GameFacts
    seat: str | None
    report: AuditReport
    steps: list[Step]


def board(log: Log, rules: RuleSet | None = None, seat: str | None = None) -> Board:
    """The report and every step of ``log`` under ``rules`` (default: its declared rules).

    With ``seat``, the other players' hands show as hidden cards and their
    stock draws as "a card", as that player saw the game. Raises LogFormatError
    when the replay finds the log unreadable. The steps and the report come
    from one replay.

    What every step shares is given once: a step's state names the players by their
    seat, an index into ``game.players`` (its ``scores``, ``hands`` and ``totals`` are
    lists in seat order, null for a seat with nothing there; ``out``, ``winners`` and
    the round's ``turn`` are seats): the ids repeated in every step made a 1 MB log's
    board gigabytes (issue 35).
    """
    fingerprint = tree_hash(log.leaves).hex()
    replay = Replay(log.game, rules or log.game.rules)
    seats = {p: i for i, p in enumerate(log.players)}
    shown = [
        _step(step, seat, event, seats)
        for step, event in zip(steps(log, rules, seat, replay), log.events, strict=True)
    ]
    if not (shown and shown[-1]["stopped"]):
        replay.finish()  # as the audit's replay ends (a stopped one ends where it stopped)
    report = report_of(log, replay, fingerprint)
    return {
        "game": game_facts(log, report),
        "seat": seat,
        "report": report,
        "steps": shown,
    }


def move(event: Event, seat: str | None) -> Move:
    """Who acted in ``event`` and the cards of the move, for drawing it on the table
    (a card drawn from the stock that ``seat`` did not see is left out)."""
    who = getattr(event, "player", None)
    cards: list[str] = []
    if isinstance(event, Discard):
        cards = format_cards(event.cards).split()
    elif isinstance(event, Draw):
        hidden = seat is not None and event.source == "stock" and event.player != seat
        cards = [] if event.card is None or hidden else [format_cards([event.card])]
        return {
            "player": who,
            "cards": cards,
            "source": event.source,
            "swap": format_cards([event.swap]) if event.swap is not None else None,
        }
    elif isinstance(event, Slap):
        cards = [format_cards([event.card])]
    elif isinstance(event, Yaniv):
        return {"player": who, "cards": [], "total": event.total}
    elif isinstance(event, Showdown):  # the hands laid down are seen by everyone
        return {
            "player": event.caller,
            "cards": [],
            "hands": {p: format_cards(cards).split() for p, cards in event.hands.items()},
        }
    elif isinstance(event, RoundStarted):
        return {
            "player": event.starter,
            "cards": [] if event.upcard is None else [format_cards([event.upcard])],
            "round": event.round,
            "recorded": event.hands is not None,
        }
    elif isinstance(event, GameStarted):
        return {
            "player": None,
            "cards": [],
            "players": list(event.players),
            "rules": event.rules.id,
        }
    elif isinstance(event, RoundEnded):
        return {"player": None, "cards": [], "round": event.round}
    elif isinstance(event, Withdraw):
        return {"player": who, "cards": [], "seqs": list(event.seqs)}
    elif isinstance(event, Note):  # the table's own words, shown as written
        return {"player": who, "cards": [], "text": event.text}
    return {"player": who, "cards": cards}


def by_seat(values: dict[str, Any], seats: dict[str, int]) -> list[Any]:
    """``values`` by player as a list in seat order (null where a seat has none)."""
    get = values.get
    return [get(p) for p in seats]


def _step(step: dict[str, Any], seat: str | None, event: Event, seats: dict[str, int]) -> Step:
    state = step["state"]
    table = state["round"]
    shown: StepRound | None = None
    if table is not None:
        hands, totals = table["hands"], table["totals"]
        if seat is not None:
            hands = {p: hand if p == seat else [HIDDEN] * len(hand) for p, hand in hands.items()}
            totals = {p: t for p, t in totals.items() if p == seat}
        turn = table["turn"]
        shown = {
            "round": table["round"],
            "moves_checked": table["moves_checked"],
            "turn": None if turn is None else seats.get(turn),
            "phase": table["phase"],
            "hands": by_seat(hands, seats),
            "totals": by_seat(totals, seats),
            "pile": table["pile"][-PILE_SHOWN:],
            "stock": table["stock"],
            "ended": table["ended"],
        }
    return {
        "index": step["index"],
        "type": step["type"],
        "text": step["text"],
        "findings": step["findings"],
        "state": {
            "scores": by_seat(state["scores"], seats),
            "out": [seats[p] for p in state["out"]],
            "winners": [seats[p] for p in state["winners"]],
            "round": shown,
        },
        "stopped": step["stopped"],
        "withdrawn_by": step["withdrawn_by"],
        "move": move(event, seat),
    }


#: the most bytes of JSON one board answer may take (pages embed it, the cache keeps it)
MAX_BOARD_BYTES = 64 << 20
#: what one step costs at most beside its event and its players (index, type, the
#: round, the pile's top throws, stock, flags), and what a seat adds (its score, total,
#: and hand: a card is at most 5 bytes of JSON)
STEP_BYTES, SEAT_BYTES, CARD_BYTES = 400, 24, 5


def board_size(log: Log, data_bytes: int) -> int:
    """An upper estimate of the JSON of ``board(log)``, in bytes, from the log alone
    (before any replay): every event's own words twice (its text and its move) and, for
    every step, the table of every seat with a full hand, plus the report (a few times
    the log)."""
    rules = log.game.rules
    hand = rules.hand_size + 2
    per_step = STEP_BYTES + len(log.players) * (SEAT_BYTES + CARD_BYTES * hand)
    return 4 * data_bytes + len(log.events) * per_step
