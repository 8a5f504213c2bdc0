"""Legal games played by bots: for demos, tests, the archive and benchmarks.

Every game is a pure function of its arguments. All randomness (shuffles,
bot choices, timestamps) comes from one generator, SplitMix64 (Steele, Lea
and Flood, 2014), seeded from the first 8 bytes of
``SHA-256("yaniv-audit-simulate/1|<seed>|<rules id>|<players>|<bots>|<game>")``;
shuffles are Fisher-Yates from the last position down, drawing with
rejection sampling. Nothing depends on Python's ``random`` module, the clock
or hash seeds, so the same arguments give byte-identical logs everywhere.

The simulator plays through the engine: the game's state is a strict
:class:`~yaniv_audit.core.engine.Replay` (hands, pile, stock, turn, scores, who is
out), the bots choose among its legal moves (``start_moves``, ``draw_moves``,
``slap_moves``, in their order), and a move is made by applying its event, so
there is one implementation of the rules and every simulated game audits clean
under the rules it was played with (a move the engine found fault with would
raise :class:`SimulationBug` instead of being written). What the simulator adds
is what a log does not decide: the shuffles, the clock, the bots and what each
player saw taken from the pile. Every game depends only on its own arguments,
so games can be played on any number of processes (:func:`simulate_log`) with
the same bytes.

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
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import orjson

from ..core.cards import JOKER, NAMES, Card, deck_counts
from ..core.engine import HANDLERS, DrawOption, Replay, StopReplay, Throw
from ..core.errors import InconsistentLogError, YanivAuditError
from ..core.events import (
    Discard,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Yaniv,
)
from ..core.rules import RuleSet
from ..core.scoring import next_starter
from .bulk import no_gc

TWO64 = 1 << 64
MASK = TWO64 - 1
T = TypeVar("T")
#: the rejection limit of Rng.below(n) for small n: the largest multiple of n up to 2**64
_LIMITS = (TWO64, *(TWO64 - TWO64 % n for n in range(1, 256)))
_LIMIT_15 = _LIMITS[15]
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
        """A uniform integer in [0, n) (``next64`` inlined: the simulator's hottest call)."""
        limit = _LIMITS[n] if n < 256 else TWO64 - TWO64 % n
        while True:
            s = self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            x = z ^ (z >> 31)
            if x < limit:
                return x % n

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def chance(self, numerator: int, denominator: int) -> bool:
        return self.below(denominator) < numerator

    def shuffle(self, items: list[Any]) -> None:
        """Fisher-Yates from the last position down, ``below`` inlined (a deal's 50-odd draws)."""
        s = self.state
        for i in range(len(items) - 1, 0, -1):
            n = i + 1
            limit = _LIMITS[n] if n < 256 else TWO64 - TWO64 % n
            while True:
                s = (s + 0x9E3779B97F4A7C15) & MASK
                z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & MASK
                z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
                x = z ^ (z >> 31)
                if x < limit:
                    break
            j = x % n
            items[i], items[j] = items[j], items[i]
        self.state = s


#: the recording styles of :func:`simulate_game` (see the module docstring)
RECORD_STYLES = ("full", "no_stock", "no_upcard", "hands_only", "scoresheet", "mixed")
#: the styles a round of a ``mixed`` log picks from
ROUND_STYLES = RECORD_STYLES[:-1]
#: what ``round_started`` keeps in each round style
DEAL_FIELDS = {
    "full": ("hands", "upcard", "stock"),
    "no_stock": ("hands", "upcard"),
    "no_upcard": ("hands", "stock"),
    "hands_only": ("hands",),
    "scoresheet": (),
}
MOVES = frozenset({"discard", "draw", "slap", "yaniv", "reshuffle"})


def derive_seed(*parts: object) -> int:
    text = "|".join(["yaniv-audit-simulate/1", *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# --- bots -----------------------------------------------------------------


class Bot:
    """A seat's player: it chooses among the legal moves the engine offers.

    The moves are the engine's, as plain values and in its order
    (:meth:`Replay.start_options <yaniv_audit.core.engine.Replay.start_options>` and
    :meth:`~yaniv_audit.core.engine.Replay.draw_options`, the legal moves by phase): at
    the start of a turn, whether Yaniv may be called and every
    legal throw; after the throw, every legal draw (the stock's top card first, which the
    simulator knows, then the cards of the previous throw and the joker swaps), each a
    ``(source, card, swap)``. ``game`` is the game in play, of which a bot reads what its
    strategy needs: ``values`` (points per card code), ``hands``, ``rotation`` (the players
    dealt in, in seat order), ``out`` and ``picked`` (the cards each player took from the
    pile this round, which everybody saw).
    """

    name = "bot"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def start(
        self,
        game: _Game,
        player: str,
        throws: list[Throw],
        can_call: bool,
    ) -> Throw | None:
        """The throw that opens the turn, or None to call Yaniv (offered when ``can_call``)."""
        raise NotImplementedError

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        raise NotImplementedError

    def slap(self, game: _Game, player: str, card: Card) -> bool:
        """Whether to slap down ``card``, just drawn from the stock (asked only when legal)."""
        return True


class RandomBot(Bot):
    """Any legal move, uniformly; calls Yaniv half the times it may."""

    name = "random"

    def start(
        self,
        game: _Game,
        player: str,
        throws: list[Throw],
        can_call: bool,
    ) -> Throw | None:
        if can_call and self.rng.chance(1, 2):
            return None
        return self.rng.choice(throws) if throws else None

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        return self.rng.choice(draws)

    def slap(self, game: _Game, player: str, card: Card) -> bool:
        return self.rng.chance(1, 2)


def _points(values: Sequence[int], cards: Sequence[Card]) -> int:
    return sum([values[c] for c in cards])


class GreedyBot(Bot):
    """Calls Yaniv as soon as allowed, throws the most points, takes low cards."""

    name = "greedy"

    def start(
        self,
        game: _Game,
        player: str,
        throws: list[Throw],
        can_call: bool,
    ) -> Throw | None:
        if can_call:
            return None
        values = game.values
        return max(throws, key=lambda t: (sum([values[c] for c in t]), len(t)))

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        values = game.values
        pile = [d for d in draws if d[0] == "pile" and d[2] is None]
        stock = [d for d in draws if d[0] == "stock"]
        best = min(pile, key=lambda d: values[d[1]], default=None)  # type: ignore[index]
        if best is not None and (values[best[1]] <= 3 or not stock):  # type: ignore[index]
            return best
        return stock[0] if stock else draws[0]


class CarefulBot(Bot):
    """Weighs the Assaf risk from what it has seen before calling; keeps pairs."""

    name = "careful"

    def start(
        self,
        game: _Game,
        player: str,
        throws: list[Throw],
        can_call: bool,
    ) -> Throw | None:
        values = game.values
        hand = game.hands[player]
        if can_call and self._safe(game, player, _points(values, hand)):
            return None
        # throw the most points, but keep cards that pair up with the rest of the hand
        ranks = [c % 13 for c in hand if c != JOKER]
        paired = (
            {r for r in ranks if ranks.count(r) > 1} if len(set(ranks)) < len(ranks) else _NO_RANKS
        )

        # the first throw of the most worth (points, then cards), as max(throws, key=worth)
        # would give: compared without a tuple built for each
        best, most, size = throws[0], -1 << 30, 0
        for t in throws:
            n = len(t)
            if n == 1:  # a single that breaks a pair is worth 5 points less
                c = t[0]
                points = values[c] - 5 if c != JOKER and c % 13 in paired else values[c]
            else:
                points = sum([values[c] for c in t])
            if points > most or (points == most and n > size):
                best, most, size = t, points, n
        return best

    def _safe(self, game: _Game, me: str, mine: int) -> bool:
        if mine <= 1:
            return True
        hands = game.hands
        picked = game.picked
        out = game.out
        for p in game.rotation:
            if p == me or p in out:
                continue
            held = hands.get(p, [])
            known = [c for c in picked.get(p, []) if c in held]
            unknown = len(held) - len(known)
            # a low guess: seen cards at face value, unseen ones at 2 points each
            if _points(game.values, known) + 2 * unknown <= mine:
                return False
        return True

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        values = game.values
        ranks = {c % 13 for c in game.hands[player] if c != JOKER}
        for d in draws:
            card: Card = d[1]  # type: ignore[assignment]
            if d[0] == "pile" and (values[card] <= 2 or (card != JOKER and card % 13 in ranks)):
                return d
        # the stock, offered first when it is offered, else the last draw
        return draws[0] if draws[0][0] == "stock" else draws[-1]


_NO_RANKS: frozenset[int] = frozenset()

BOTS: dict[str, type[Bot]] = {b.name: b for b in (RandomBot, GreedyBot, CarefulBot)}


# --- games ----------------------------------------------------------------


class SimulationError(YanivAuditError):
    """Arguments that cannot give a game (too many players for the deck...)."""


def check_arguments(
    rules: RuleSet,
    players: int,
    bots: Sequence[str],
    record: str = "full",
) -> list[str]:
    """The bot of each seat, or SimulationError for arguments that cannot give a game."""
    if record not in RECORD_STYLES:
        raise SimulationError(
            f"unknown recording style {record!r}: expected one of {', '.join(RECORD_STYLES)}"
        )
    if not 2 <= players <= 8:
        raise SimulationError(f"--players must be 2 to 8, not {players}")
    bot_names = [bots[i % len(bots)] for i in range(players)] if bots else ["careful"]
    for b in bot_names:
        if b not in BOTS:
            raise SimulationError(f"unknown bot {b!r}: expected one of {', '.join(BOTS)}")
    if players * rules.hand_size + 1 > sum(deck_counts(rules)):
        raise SimulationError(
            f"{players} hands of {rules.hand_size} do not fit in a deck of "
            f"{sum(deck_counts(rules))} cards (decks={rules.decks}, jokers={rules.jokers})"
        )
    return bot_names


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
    bot_names = check_arguments(rules, players, bots, record)
    names = list(PLAYER_NAMES[:players])
    rng = Rng(derive_seed(seed, rules.id, players, ",".join(bot_names), game))
    seat_bots = {p: BOTS[bot_names[i % len(bot_names)]](rng) for i, p in enumerate(names)}
    recorder = _Recorder(
        record, Rng(derive_seed("record", seed, rules.id, players, ",".join(bot_names), game))
    )
    sim = _Game(rules, names, seat_bots, rng, seed, game, recorder)
    with no_gc():  # a game makes no reference cycles
        sim.play(max_rounds, max_turns)
    return recorder.events


#: the arguments of one game: rules, players, bots, seed, game number, recording style
Job = tuple[RuleSet, int, tuple[str, ...], int, int, str]


def simulate_log(job: Job) -> bytes:
    """One game as the bytes of its log file (a worker's task in ``simulate --jobs N``)."""
    rules, players, bots, seed, game, record = job
    return to_jsonl_bytes(simulate_game(rules, players, bots, seed, game, record=record))


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
        if self.style == "full":
            self.events.append(event)  # every event is kept: its seq is its index here
            return
        kind = event["type"]
        if kind == "game_started":
            event = {**event, "meta": {**event["meta"], "record": self.style}}
        elif kind == "round_started":
            style = self.rng.choice(ROUND_STYLES) if self.style == "mixed" else self.style
            self.round_style = style
            kept = DEAL_FIELDS[style]
            event = {
                k: v for k, v in event.items() if k not in ("hands", "upcard", "stock") or k in kept
            }
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
        elif (kind == "showdown" and self.rng.chance(1, 4)) or (
            kind == "round_ended" and self.rng.chance(1, 8)
        ):
            return
        self.events.append({**event, "seq": len(self.events)})


_EPOCH_DAY = EPOCH.date()
_DATES: dict[int, str] = {}  # days after EPOCH's date -> its ISO date
_MINUTES = tuple(f"T{h:02d}:{m:02d}" for h in range(24) for m in range(60))
_SECONDS = tuple(f":{s:02d}+00:00" for s in range(60))


def _minute_text(minute: int) -> str:
    """``minute`` (after midnight of EPOCH's day) in ISO 8601, up to its seconds."""
    day, minute = divmod(minute, 1440)
    when = _DATES.get(day)
    if when is None:
        when = _DATES[day] = (_EPOCH_DAY + timedelta(days=day)).isoformat()
    return when + _MINUTES[minute]


class SimulationBug(RuntimeError):
    """The engine refused a move the simulator made: a bug in yaniv-audit, never a user's
    error (so not a :class:`YanivAuditError`: the command line reports it as internal)."""


class _Game:
    """One game being played: the bots' choices applied to the engine, whose state is the game.

    The simulator keeps no state of the play itself: the hands, the pile, the stock, whose
    turn it is, the scores and who is out are the :class:`~yaniv_audit.core.engine.Replay`'s,
    the moves a bot may choose are its :meth:`~yaniv_audit.core.engine.Replay.legal_moves`, and
    a move is made by applying its event. The replay is strict, so a move the engine found
    fault with would stop the game (:class:`SimulationBug`) instead of being written.
    What the simulator adds is what the log does not say: the shuffles, the clock, the
    bots, and what each player saw taken from the pile (``picked``, for the bots).
    """

    def __init__(
        self,
        rules: RuleSet,
        names: list[str],
        bots: dict[str, Bot],
        rng: Rng,
        seed: int,
        game: int,
        recorder: _Recorder,
    ) -> None:
        self.rules = rules
        self.names = names
        self.bots = bots
        self.rng = rng
        self.recorder = recorder
        # what keeps each event: in the full record, the list of events itself
        self.write = recorder.events.append if recorder.style == "full" else recorder.write
        self.count = 0  # events of the fully recorded game so far
        # the clock: minutes after midnight of EPOCH's day, and seconds
        self.minute = (game % 365) * 1440 + EPOCH.hour * 60 + EPOCH.minute + rng.below(240)
        self.second = 0
        self.prefix = _minute_text(self.minute)
        self.game_id = f"sim-{seed}-{game}" + (
            "" if recorder.style == "full" else f"-{recorder.style}"
        )
        meta = {"recorder": "yaniv-audit simulate", "bots": {p: b.name for p, b in bots.items()}}
        self.replay = Replay(
            GameStarted(
                format="yaniv-log/1",
                players=tuple(names),
                names={},
                rules=rules,
                game_id=self.game_id,
                meta=meta,
            ),
            rules,
            strict=True,
        )
        self.values = self.replay.values
        #: the hands this round: the engine's own (it changes them in place)
        self.hands: dict[str, list[Card]] = {}
        #: the cards each player took from the pile this round (everybody saw them)
        self.picked: dict[str, list[Card]] = {}

    # --- what the bots read -------------------------------------------------

    @property
    def rotation(self) -> list[str]:
        r = self.replay.round
        return r.rotation if r is not None else []

    @property
    def out(self) -> list[str]:
        return self.replay.out

    # --- the play -----------------------------------------------------------

    def emit(self, record: dict[str, Any], event: Event) -> None:
        """One event of the fully recorded game, 2 to 16 seconds after the last one: the
        recorder writes what it keeps of the log event ``record`` (cards in canonical form;
        its ``seq`` and ``at`` are given here, so it is written with them as placeholders,
        right after its ``type``) and the engine applies ``event``, the same event typed."""
        rng = self.rng  # second = self.second + 2 + rng.below(15), below inlined
        while True:
            z = rng.state = (rng.state + 0x9E3779B97F4A7C15) & MASK
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            z ^= z >> 31
            if z < _LIMIT_15:
                break
        second = self.second + 2 + z % 15
        if second >= 60:  # at most one minute later
            second -= 60
            self.minute += 1
            self.prefix = _minute_text(self.minute)
        self.second = second
        record["seq"] = self.count
        record["at"] = self.prefix + _SECONDS[second]
        self.write(record)
        self.count += 1
        HANDLERS[type(event)](self.replay, event)  # Replay.apply, one call less an event

    def play(self, max_rounds: int, max_turns: int) -> None:
        replay = self.replay
        game = replay.game
        try:
            self.emit(
                {
                    "type": "game_started",
                    "seq": 0,
                    "at": "",
                    "format": game.format,
                    "players": self.names,
                    "rules": self.rules.id,
                    "game_id": self.game_id,
                    "meta": game.meta,
                },
                game,
            )
            opener = self.rng.choice(self.names)
            for number in range(1, max_rounds + 1):
                if number > 1:
                    opener = self._opener(opener)
                self._round(number, opener, max_turns)
                if replay.winners is not None:
                    winners, scores = replay.winners, dict(replay.scores)
                    self.emit(
                        {
                            "type": "game_ended",
                            "seq": 0,
                            "at": "",
                            "winner": list(winners),
                            "scores": scores,
                        },
                        GameEnded(winner=winners, scores=scores, index=self.count),
                    )
                    break
        except (StopReplay, InconsistentLogError):
            raise SimulationBug(
                f"the engine refused a move the simulator made in "
                f"{self.game_id}: {replay.findings[-1]}"
            ) from None

    def _opener(self, previous: str) -> str:
        """Who opens the next round: the one the ``starter`` rule names, else any player
        still in (the engine checks the choice against the same rule)."""
        record = self.replay.records[-1]
        winners = record.score.winners if record.score else ()
        still_in = self.replay.still_in
        # under starter="caller" the caller opens even when Assafed (as the engine checks)
        caller = record.caller if self.rules.starter == "caller" else None
        allowed = next_starter(self.rules, self.names, still_in, winners, previous, caller)
        if allowed is None:
            return self.rng.choice(still_in)
        return next(p for p in self.names if p in allowed)

    def _round(self, number: int, opener: str, max_turns: int) -> None:
        rules = self.rules
        rng = self.rng
        emit = self.emit
        replay = self.replay
        # the engine's legal moves, phase by phase (legal_moves would still offer the
        # previous player's slap when a turn starts: passing it is no event)
        start_options, draw_options, slap_moves = (
            replay.start_options,
            replay.draw_options,
            replay.slap_moves,
        )
        slap_down = rules.slap_down  # else no slap is ever legal: not asked
        deck = replay.deck.copy()
        rng.shuffle(deck)
        seats = replay.still_in
        first = seats.index(opener)
        order = seats[first:] + seats[:first]
        dealt: dict[str, list[Card]] = {p: [] for p in seats}
        for _ in range(rules.hand_size):
            for p in order:
                dealt[p].append(deck.pop())
        upcard = deck.pop()
        stock = deck[::-1]  # top card first, as the log writes it
        picked: dict[str, list[Card]] = {p: [] for p in seats}
        self.picked = picked
        emit(
            {
                "type": "round_started",
                "seq": 0,
                "at": "",
                "round": number,
                "starter": opener,
                "hands": {p: [NAMES[c] for c in dealt[p]] for p in seats},
                "upcard": NAMES[upcard],
                "stock": [NAMES[c] for c in stock],
            },
            RoundStarted(
                round=number,
                starter=opener,
                upcard=upcard,
                stock=tuple(stock),
                hands={p: tuple(h) for p, h in dealt.items()},
                index=self.count,
            ),
        )
        r = replay.round
        assert r is not None
        self.hands = r.hands
        following = r.next_seat
        bots = self.bots
        caller: str | None = None
        player = opener
        for _ in range(max_turns):
            bot = bots[player]
            can_call, throws = start_options(player)
            throw = bot.start(self, player, throws, can_call)
            if throw is None:
                emit(
                    {"type": "yaniv", "seq": 0, "at": "", "player": player},
                    Yaniv(player=player, index=self.count),
                )
                caller = player
                break
            emit(
                {
                    "type": "discard",
                    "seq": 0,
                    "at": "",
                    "player": player,
                    "cards": [NAMES[throw[0]]] if len(throw) == 1 else [NAMES[c] for c in throw],
                },
                Discard(player=player, cards=throw, index=self.count),
            )
            source, card, swap = bot.draw(self, player, draw_options())
            assert card is not None  # the simulator knows the stock's order
            if swap is None:
                emit(
                    {
                        "type": "draw",
                        "seq": 0,
                        "at": "",
                        "player": player,
                        "source": source,
                        "card": NAMES[card],
                    },
                    Draw(
                        player=player,
                        source=source,  # type: ignore[arg-type]
                        card=card,
                        index=self.count,
                    ),
                )
            else:  # a joker swap
                emit(
                    {
                        "type": "draw",
                        "seq": 0,
                        "at": "",
                        "player": player,
                        "source": source,
                        "card": NAMES[card],
                        "swap": NAMES[swap],
                    },
                    Draw(
                        player=player,
                        source=source,  # type: ignore[arg-type]
                        card=card,
                        swap=swap,
                        index=self.count,
                    ),
                )
            if source == "pile":
                picked[player].append(card)
            # a slap may follow a stock draw: the one move then legal, if any, is that card's
            elif slap_down and slap_moves() and bot.slap(self, player, card):
                emit(
                    {"type": "slap", "seq": 0, "at": "", "player": player, "card": NAMES[card]},
                    Slap(player=player, card=card, index=self.count),
                )
            if r.exhaust_pending:  # the stock ran out in this turn
                old = replay.reshuffle_due()
                if old is None:  # reshuffle=round_ends: the round is over
                    break
                rng.shuffle(old)
                emit(
                    {"type": "reshuffle", "seq": 0, "at": "", "stock": [NAMES[c] for c in old]},
                    Reshuffle(stock=tuple(old), index=self.count),
                )
            player = following[player]
        else:
            return  # a round that does not end within max_turns stays unscored
        hands = r.hands
        emit(
            {
                "type": "showdown",
                "seq": 0,
                "at": "",
                "caller": caller,
                "hands": {p: [NAMES[c] for c in hands[p]] for p in seats},
            },
            Showdown(caller=caller, hands={p: tuple(hands[p]) for p in seats}, index=self.count),
        )
        score = r.score
        assert score is not None  # the Yaniv call or the empty stock scored the round
        points, scores = dict(score.points), dict(replay.scores)
        emit(
            {
                "type": "round_ended",
                "seq": 0,
                "at": "",
                "round": number,
                "points": points,
                "scores": scores,
            },
            RoundEnded(round=number, points=points, scores=scores, index=self.count),
        )


def to_jsonl_bytes(events: Sequence[dict[str, Any]]) -> bytes:
    """The log file of ``events``: one compact JSON object a line, UTF-8."""
    dumps = orjson.dumps
    return b"".join([dumps(e, option=orjson.OPT_APPEND_NEWLINE) for e in events])


def to_jsonl(events: Sequence[dict[str, Any]]) -> str:
    return to_jsonl_bytes(events).decode()
