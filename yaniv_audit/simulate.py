"""Legal games played by bots: for demos, tests, the archive and benchmarks.

Every game is a pure function of its arguments. All randomness (shuffles,
bot choices, timestamps) comes from one generator, SplitMix64 (Steele, Lea
and Flood, 2014), seeded from the first 8 bytes of
``SHA-256("yaniv-audit-simulate/1|<seed>|<rules id>|<players>|<bots>|<game>")``;
shuffles are Fisher-Yates from the last position down, drawing with
rejection sampling. Nothing depends on Python's ``random`` module, the clock
or hash seeds, so the same arguments give byte-identical logs everywhere.

The bots choose only among the engine's own legal moves
(:meth:`Replay.legal_moves`), so a simulated game audits clean under the
rules it was played with.

The game is always played with everything known (every deal, the stock's
order, every move); the *recording style* (``record``) only decides what the
written log keeps of it, as real tables write their games down:

``full``
    hands, upcard, the stock (top first), every move and every
    ``reshuffle`` with its new stock, then the showdown and ``round_ended``.
    The default, and the logs in ``replays/simulated/``.
``no_stock``
    hands and upcard, no stock: not in ``round_started``, not in
    ``reshuffle``; so every stock draw names its card.
``no_upcard``
    hands and stock, no upcard (the first pile draw of the upcard names it,
    as every pile draw names its card).
``hands_only``
    hands only (no upcard, no stock); stock draws name their card.
``scoresheet``
    no moves: ``round_started`` without hands, upcard or stock, the
    ``showdown`` (the caller, or null for a round the stock ended under
    ``reshuffle=round_ends``, and the hands of everyone still in) and
    ``round_ended``.
``mixed``
    each round picks one of the five above.

Rounds of the other styles that record moves also vary the way tables do:
a stock draw whose card the log's stock order already fixes names it or not
(even odds); under ``keep_last_throw`` a reshuffle is written with its stock
(only in rounds that record the stock), without it, or not at all (the stock
runs out by itself; later stock draws then name their card); one showdown
in four and one ``round_ended`` in eight are left out. The same play, clock
and scores whatever the style: the style's choices come from a generator of
their own, so ``full`` logs are what they were before styles existed. Outside
``full`` the ``game_id`` ends in ``-<style>`` and ``meta.record`` names the
style, so that the records of one game in two styles are not taken for two
versions of one log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from .cards import JOKER, NAMES, Card, deck_counts
from .codec import event_from_dict
from .engine import DREW, Move, Replay
from .errors import YanivAuditError
from .events import GameStarted
from .rules import RuleSet
from .scoring import next_starter, seat_after

MASK = (1 << 64) - 1
T = TypeVar("T")
PLAYER_NAMES = ("ana", "ben", "carmel", "dov", "eden", "fadi", "gila", "hod")
EPOCH = datetime(2026, 1, 1, 18, 0, tzinfo=UTC)


class Rng:
    """SplitMix64: tiny and identical on every machine and Python version."""

    def __init__(self, seed: int) -> None:
        self.state = seed & MASK

    def next64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chance(self, numerator: int, denominator: int) -> bool:
        return self.below(denominator) < numerator

    def shuffle(self, items: list[Any]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


#: the recording styles of :func:`simulate_game` (see the module docstring)
RECORD_STYLES = ("full", "no_stock", "no_upcard", "hands_only", "scoresheet", "mixed")
#: the styles a round of a ``mixed`` log picks from
ROUND_STYLES = RECORD_STYLES[:-1]
#: what ``round_started`` keeps in each round style
DEAL_FIELDS = {"full": ("hands", "upcard", "stock"), "no_stock": ("hands", "upcard"),
               "no_upcard": ("hands", "stock"), "hands_only": ("hands",), "scoresheet": ()}
MOVES = frozenset({"discard", "draw", "slap", "yaniv", "reshuffle"})


def derive_seed(*parts: object) -> int:
    text = "|".join(["yaniv-audit-simulate/1", *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# --- bots -----------------------------------------------------------------


@dataclass
class Table:
    """What every player can see: the throws and the cards taken from the pile."""

    picked: dict[str, list[Card]] = field(default_factory=dict)

    def reset(self, players: Sequence[str]) -> None:
        self.picked = {p: [] for p in players}


class Bot:
    name = "bot"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def start(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        raise NotImplementedError

    def draw(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        raise NotImplementedError

    def slap(self, replay: Replay, moves: list[Move], table: Table) -> Move | None:
        return moves[0] if moves else None


class RandomBot(Bot):
    """Any legal move, uniformly; calls Yaniv half the times it may."""

    name = "random"

    def start(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        if moves[0].kind == "yaniv" and self.rng.chance(1, 2):
            return moves[0]
        throws = [m for m in moves if m.kind == "discard"]
        return self.rng.choice(throws) if throws else moves[0]

    def draw(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        return self.rng.choice(moves)

    def slap(self, replay: Replay, moves: list[Move], table: Table) -> Move | None:
        return moves[0] if moves and self.rng.chance(1, 2) else None


def _points(replay: Replay, cards: Sequence[Card]) -> int:
    values = replay.values
    return sum(values[c] for c in cards)


class GreedyBot(Bot):
    """Calls Yaniv as soon as allowed, throws the most points, takes low cards."""

    name = "greedy"

    def start(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        if moves[0].kind == "yaniv":
            return moves[0]
        return max((m for m in moves if m.kind == "discard"),
                   key=lambda m: (_points(replay, m.cards), len(m.cards)))

    def draw(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        pile = [m for m in moves if m.source == "pile" and m.swap is None]
        stock = [m for m in moves if m.source == "stock"]
        best = min(pile, key=lambda m: replay.values[m.card], default=None)  # type: ignore[index]
        if best is not None and (replay.values[best.card] <= 3 or not stock):  # type: ignore[index]
            return best
        return stock[0] if stock else moves[0]


class CarefulBot(Bot):
    """Weighs the Assaf risk from what it has seen before calling; keeps pairs."""

    name = "careful"

    def start(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        r = replay.round
        assert r is not None
        me = moves[0].player
        hand = r.hands[me]
        mine = _points(replay, hand)
        if moves[0].kind == "yaniv" and self._safe(replay, me, mine, table):
            return moves[0]
        # throw the most points, but keep cards that pair up with the rest of the hand
        ranks = [c % 13 for c in hand if c != JOKER]

        def worth(m: Move) -> tuple[int, int]:
            breaks_pair = sum(1 for c in m.cards if c != JOKER and ranks.count(c % 13) > 1
                              and len(m.cards) == 1)
            return (_points(replay, m.cards) - 5 * breaks_pair, len(m.cards))

        return max((m for m in moves if m.kind == "discard"), key=worth)

    def _safe(self, replay: Replay, me: str, mine: int, table: Table) -> bool:
        r = replay.round
        assert r is not None
        if mine <= 1:
            return True
        for p in r.rotation:
            if p == me or p in replay.out:
                continue
            known = [c for c in table.picked.get(p, []) if c in r.hands.get(p, [])]
            unknown = len(r.hands.get(p, [])) - len(known)
            # a low guess: seen cards at face value, unseen ones at 2 points each
            if _points(replay, known) + 2 * unknown <= mine:
                return False
        return True

    def draw(self, replay: Replay, moves: list[Move], table: Table) -> Move:
        r = replay.round
        assert r is not None
        ranks = {c % 13 for c in r.hands[r.current] if c != JOKER}
        stock = [m for m in moves if m.source == "stock"]
        for m in moves:
            if m.source == "pile" and m.card is not None and (
                    replay.values[m.card] <= 2 or (m.card != JOKER and m.card % 13 in ranks)):
                return m
        return stock[0] if stock else moves[-1]


BOTS: dict[str, type[Bot]] = {b.name: b for b in (RandomBot, GreedyBot, CarefulBot)}


# --- games ----------------------------------------------------------------


class SimulationError(YanivAuditError):
    """Arguments that cannot give a game (too many players for the deck...)."""


def simulate_game(
    rules: RuleSet,
    players: int,
    bots: Sequence[str],
    seed: int,
    game: int = 0,
    max_rounds: int = 60,
    max_turns: int = 400,
    record: str = "full",
) -> list[dict[str, Any]]:
    """One whole game as a list of log events (dicts, cards in canonical form).

    ``record`` is the recording style, one of :data:`RECORD_STYLES`.
    """
    if record not in RECORD_STYLES:
        raise SimulationError(
            f"unknown recording style {record!r}: expected one of {', '.join(RECORD_STYLES)}")
    if not 2 <= players <= 8:
        raise SimulationError(f"--players must be 2 to 8, not {players}")
    names = list(PLAYER_NAMES[:players])
    bot_names = [bots[i % len(bots)] for i in range(players)] if bots else ["careful"]
    for b in bot_names:
        if b not in BOTS:
            raise SimulationError(f"unknown bot {b!r}: expected one of {', '.join(BOTS)}")
    if players * rules.hand_size + 1 > sum(deck_counts(rules)):
        raise SimulationError(
            f"{players} hands of {rules.hand_size} do not fit in a deck of "
            f"{sum(deck_counts(rules))} cards (decks={rules.decks}, jokers={rules.jokers})")
    rng = Rng(derive_seed(seed, rules.id, players, ",".join(bot_names), game))
    seat_bots = {p: BOTS[bot_names[i % len(bot_names)]](rng) for i, p in enumerate(names)}
    recorder = _Recorder(record, Rng(derive_seed(
        "record", seed, rules.id, players, ",".join(bot_names), game)))
    sim = _Game(rules, names, seat_bots, rng, seed, game, recorder)
    sim.play(max_rounds, max_turns)
    return recorder.events


class _Recorder:
    """Writes the fully known game down as a table using one recording style would."""

    def __init__(self, style: str, rng: Rng) -> None:
        self.style = style
        self.rng = rng
        self.events: list[dict[str, Any]] = []
        self.round_style = "full"
        self.stock_known = True  # whether the written log fixes the stock's order now

    def write(self, event: dict[str, Any]) -> None:
        """Take one event of the fully recorded game (``seq`` its index there)."""
        kind = event["type"]
        if kind == "game_started" and self.style != "full":
            event = {**event, "meta": {**event["meta"], "record": self.style}}
        elif kind == "round_started":
            style = self.rng.choice(ROUND_STYLES) if self.style == "mixed" else self.style
            self.round_style = style
            kept = DEAL_FIELDS[style]
            event = {k: v for k, v in event.items()
                     if k not in ("hands", "upcard", "stock") or k in kept}
            self.stock_known = "stock" in kept
        elif self.round_style == "full":
            pass
        elif self.round_style == "scoresheet":
            if kind in MOVES:
                return
        elif kind == "draw":
            if event["source"] == "stock" and self.stock_known and self.rng.chance(1, 2):
                event = {k: v for k, v in event.items() if k != "card"}
        elif kind == "reshuffle":
            choice = self.rng.below(4) if self.round_style == "no_upcard" else 2 + self.rng.below(2)
            self.stock_known = choice < 2
            if choice == 3:
                return  # not written: the stock runs out by itself
            if choice == 2:
                event = {k: v for k, v in event.items() if k != "stock"}
        elif kind == "showdown" and self.rng.chance(1, 4):
            return
        elif kind == "round_ended" and self.rng.chance(1, 8):
            return
        self.events.append({**event, "seq": len(self.events)})


class _Game:
    def __init__(self, rules: RuleSet, names: list[str], bots: dict[str, Bot], rng: Rng,
                 seed: int, game: int, recorder: _Recorder) -> None:
        self.rules = rules
        self.names = names
        self.bots = bots
        self.rng = rng
        self.recorder = recorder
        self.count = 0  # events of the fully recorded game so far
        self.clock = EPOCH + timedelta(days=game % 365, minutes=rng.below(240))
        self.table = Table()
        self.replay: Replay | None = None
        self.game_id = f"sim-{seed}-{game}" + ("" if recorder.style == "full" else
                                                f"-{recorder.style}")

    def emit(self, event: dict[str, Any]) -> None:
        """Play one event of the fully recorded game; the recorder writes what it keeps."""
        index = self.count
        self.count += 1
        self.clock += timedelta(seconds=2 + self.rng.below(15))
        full = {"type": event["type"], "seq": index,
                "at": self.clock.isoformat(timespec="seconds"), **{
                    k: v for k, v in event.items() if k != "type"}}
        self.recorder.write(full)
        typed = event_from_dict(full, index, None)
        if self.replay is None:
            assert isinstance(typed, GameStarted)
            self.replay = Replay(typed, self.rules)
        self.replay.apply(typed)

    def play(self, max_rounds: int, max_turns: int) -> None:
        self.emit({"type": "game_started", "format": "yaniv-log/1", "players": self.names,
                   "rules": self.rules.id, "game_id": self.game_id,
                   "meta": {"recorder": "yaniv-audit simulate",
                            "bots": {p: b.name for p, b in self.bots.items()}}})
        replay = self.replay
        assert replay is not None
        opener = self.rng.choice(self.names)
        for number in range(1, max_rounds + 1):
            if number > 1:
                opener = self._opener(opener)
            self._round(number, opener, max_turns)
            if replay.finished:
                self.emit({"type": "game_ended", "winner": list(replay.winners or ()),
                           "scores": dict(replay.scores)})
                return

    def _opener(self, previous: str) -> str:
        replay = self.replay
        assert replay is not None
        record = replay.records[-1]
        winners = record.score.winners if record.score else ()
        allowed = next_starter(self.rules, self.names, replay.still_in, winners, previous)
        if allowed is None:
            return self.rng.choice(replay.still_in)
        return next(p for p in self.names if p in allowed)

    def _round(self, number: int, opener: str, max_turns: int) -> None:
        replay = self.replay
        assert replay is not None
        rules = self.rules
        deck = [c for c, n in enumerate(deck_counts(rules)) for _ in range(n)]
        self.rng.shuffle(deck)
        seats = replay.still_in
        order = seats[seats.index(opener):] + seats[:seats.index(opener)]
        hands: dict[str, list[Card]] = {p: [] for p in seats}
        for _ in range(rules.hand_size):
            for p in order:
                hands[p].append(deck.pop())
        upcard = deck.pop()
        self.table.reset(seats)
        self.emit({"type": "round_started", "round": number, "starter": opener,
                   "hands": {p: [NAMES[c] for c in hands[p]] for p in seats},
                   "upcard": NAMES[upcard], "stock": [NAMES[c] for c in reversed(deck)]})
        r = replay.round
        assert r is not None
        caller: str | None = None
        player = opener
        for _ in range(max_turns):
            bot = self.bots[player]
            move = bot.start(replay, replay.start_moves(player), self.table)
            if move.kind == "yaniv":
                self.emit(move.event())
                caller = player
                break
            self._play(move)
            draw = bot.draw(replay, replay.legal_moves(), self.table)
            self._play(draw)
            assert r.phase == DREW
            slap = bot.slap(replay, replay.legal_moves(), self.table)
            if slap is not None:
                self._play(slap)
            if r.exhaust_pending:
                if rules.reshuffle == "round_ends":
                    break
                old = [c for layer in r.pile[:-1] for c in layer.cards if c is not None]
                self.rng.shuffle(old)
                self.emit({"type": "reshuffle", "stock": [NAMES[c] for c in old]})
            player = seat_after(self.names, r.rotation, player)
        else:
            return  # a round that does not end within max_turns stays unscored
        self.emit({"type": "showdown", "caller": caller,
                   "hands": {p: [NAMES[c] for c in r.hands[p]] for p in r.rotation}})
        score = replay.records[-1].score
        if score is not None:
            self.emit({"type": "round_ended", "round": number, "points": dict(score.points),
                       "scores": dict(replay.scores)})

    def _play(self, move: Move) -> None:
        if move.kind == "draw" and move.source == "pile" and move.card is not None:
            self.table.picked.setdefault(move.player, []).append(move.card)
        self.emit(move.event())


def to_jsonl(events: Sequence[dict[str, Any]]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n"
                   for e in events)

