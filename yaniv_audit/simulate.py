"""Legal games played by bots: for demos, tests, the archive and benchmarks.

Every game is a pure function of its arguments. All randomness (shuffles,
bot choices, timestamps) comes from one generator, SplitMix64 (Steele, Lea
and Flood, 2014), seeded from the first 8 bytes of
``SHA-256("yaniv-audit-simulate/1|<seed>|<rules id>|<players>|<bots>|<game>")``;
shuffles are Fisher-Yates from the last position down, drawing with
rejection sampling. Nothing depends on Python's ``random`` module, the clock
or hash seeds, so the same arguments give byte-identical logs everywhere.

The simulator keeps its own small state of the game in play (hands, pile,
stock, scores) and offers the bots exactly the moves the engine's
:meth:`~yaniv_audit.engine.Replay.legal_moves` offers, in the same order;
it does not check the moves it makes, since they are legal by construction.
``simulate_game(..., referee=True)`` also replays every event through the
engine and checks at every choice that the moves offered are the engine's
(the tests do), so a simulated game audits clean under the rules it was
played with. Every game depends only on its own arguments, so games can be
played on any number of processes (:func:`simulate_log`) with the same bytes.

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
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from .cards import JOKER, NAMES, Card, card_values, deck_counts
from .errors import YanivAuditError
from .melds import Meld, classify, extend, throws_finder
from .rules import RuleSet
from .scoring import RoundScore, game_result, next_starter, score_round

if TYPE_CHECKING:
    from .engine import Replay

TWO64 = 1 << 64
MASK = TWO64 - 1
T = TypeVar("T")
#: the rejection limit of Rng.below(n) for small n: the largest multiple of n up to 2**64
_LIMITS = (TWO64, *(TWO64 - TWO64 % n for n in range(1, 256)))
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
DEAL_FIELDS = {"full": ("hands", "upcard", "stock"), "no_stock": ("hands", "upcard"),
               "no_upcard": ("hands", "stock"), "hands_only": ("hands",), "scoresheet": ()}
MOVES = frozenset({"discard", "draw", "slap", "yaniv", "reshuffle"})


def derive_seed(*parts: object) -> int:
    text = "|".join(["yaniv-audit-simulate/1", *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


# --- bots -----------------------------------------------------------------

#: a throw: its cards as placed
Throw = tuple[Card, ...]
#: a draw the player may make: (source, card, swap); a stock draw names the top card
#: (the simulator knows the stock's order), a joker swap names the natural card it puts in
DrawOption = tuple[str, Card, "Card | None"]


class Bot:
    """A seat's player: it chooses among the legal moves it is offered.

    ``game`` is the game in play, of which a bot reads what its strategy
    needs: ``values`` (points per card code), ``hands``, ``rotation`` (the
    players dealt in, in seat order), ``out`` and ``picked`` (the cards each
    player took from the pile this round, which everybody saw).
    """

    name = "bot"

    def __init__(self, rng: Rng) -> None:
        self.rng = rng

    def start(self, game: _Game, player: str, throws: list[Throw], can_call: bool,
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

    def start(self, game: _Game, player: str, throws: list[Throw], can_call: bool,
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

    def start(self, game: _Game, player: str, throws: list[Throw], can_call: bool,
              ) -> Throw | None:
        if can_call:
            return None
        values = game.values
        return max(throws, key=lambda t: (sum([values[c] for c in t]), len(t)))

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        values = game.values
        pile = [d for d in draws if d[0] == "pile" and d[2] is None]
        stock = [d for d in draws if d[0] == "stock"]
        best = min(pile, key=lambda d: values[d[1]], default=None)
        if best is not None and (values[best[1]] <= 3 or not stock):
            return best
        return stock[0] if stock else draws[0]


class CarefulBot(Bot):
    """Weighs the Assaf risk from what it has seen before calling; keeps pairs."""

    name = "careful"

    def start(self, game: _Game, player: str, throws: list[Throw], can_call: bool,
              ) -> Throw | None:
        values = game.values
        hand = game.hands[player]
        if can_call and self._safe(game, player, _points(values, hand)):
            return None
        # throw the most points, but keep cards that pair up with the rest of the hand
        ranks = [c % 13 for c in hand if c != JOKER]
        paired = ({r for r in ranks if ranks.count(r) > 1} if len(set(ranks)) < len(ranks)
                  else _NO_RANKS)

        # the first throw of the most worth, as max(throws, key=worth) would give
        best, most = throws[0], (-1 << 30, 0)
        for t in throws:
            if len(t) == 1:  # a single that breaks a pair is worth 5 points less
                c = t[0]
                worth = (values[c] - 5 if c != JOKER and c % 13 in paired else values[c], 1)
            else:
                worth = (sum([values[c] for c in t]), len(t))
            if worth > most:
                best, most = t, worth
        return best

    def _safe(self, game: _Game, me: str, mine: int) -> bool:
        if mine <= 1:
            return True
        hands = game.hands
        for p in game.rotation:
            if p == me or p in game.out:
                continue
            held = hands.get(p, [])
            known = [c for c in game.picked.get(p, []) if c in held]
            unknown = len(held) - len(known)
            # a low guess: seen cards at face value, unseen ones at 2 points each
            if _points(game.values, known) + 2 * unknown <= mine:
                return False
        return True

    def draw(self, game: _Game, player: str, draws: list[DrawOption]) -> DrawOption:
        values = game.values
        ranks = {c % 13 for c in game.hands[player] if c != JOKER}
        for d in draws:
            if d[0] == "pile" and (values[d[1]] <= 2 or (d[1] != JOKER and d[1] % 13 in ranks)):
                return d
        stock = [d for d in draws if d[0] == "stock"]
        return stock[0] if stock else draws[-1]


_NO_RANKS: frozenset[int] = frozenset()

BOTS: dict[str, type[Bot]] = {b.name: b for b in (RandomBot, GreedyBot, CarefulBot)}


# --- games ----------------------------------------------------------------


class SimulationError(YanivAuditError):
    """Arguments that cannot give a game (too many players for the deck...)."""


def check_arguments(rules: RuleSet, players: int, bots: Sequence[str], record: str = "full",
                    ) -> list[str]:
    """The bot of each seat, or SimulationError for arguments that cannot give a game."""
    if record not in RECORD_STYLES:
        raise SimulationError(
            f"unknown recording style {record!r}: expected one of {', '.join(RECORD_STYLES)}")
    if not 2 <= players <= 8:
        raise SimulationError(f"--players must be 2 to 8, not {players}")
    bot_names = [bots[i % len(bots)] for i in range(players)] if bots else ["careful"]
    for b in bot_names:
        if b not in BOTS:
            raise SimulationError(f"unknown bot {b!r}: expected one of {', '.join(BOTS)}")
    if players * rules.hand_size + 1 > sum(deck_counts(rules)):
        raise SimulationError(
            f"{players} hands of {rules.hand_size} do not fit in a deck of "
            f"{sum(deck_counts(rules))} cards (decks={rules.decks}, jokers={rules.jokers})")
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
    *,
    referee: bool = False,
) -> list[dict[str, Any]]:
    """One whole game as a list of log events (dicts, cards in canonical form).

    ``record`` is the recording style, one of :data:`RECORD_STYLES`. With
    ``referee``, the engine replays the game as it is played and every choice
    offered is checked against the engine's legal moves (AssertionError if not).
    """
    from .bulk import no_gc

    bot_names = check_arguments(rules, players, bots, record)
    names = list(PLAYER_NAMES[:players])
    rng = Rng(derive_seed(seed, rules.id, players, ",".join(bot_names), game))
    seat_bots = {p: BOTS[bot_names[i % len(bot_names)]](rng) for i, p in enumerate(names)}
    recorder = _Recorder(record, Rng(derive_seed(
        "record", seed, rules.id, players, ",".join(bot_names), game)))
    sim = _Game(rules, names, seat_bots, rng, seed, game, recorder,
                _Referee(rules) if referee else None)
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


class _Layer:
    """One throw on the pile: its cards as they lie now, and how they read."""

    __slots__ = ("cards", "meld")

    def __init__(self, cards: list[Card], meld: Meld | None) -> None:
        self.cards = cards
        self.meld = meld


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


class _Game:
    """One game being played: the bots' choices folded into the simulator's own state."""

    def __init__(self, rules: RuleSet, names: list[str], bots: dict[str, Bot], rng: Rng,
                 seed: int, game: int, recorder: _Recorder, referee: _Referee | None) -> None:
        self.rules = rules
        self.names = names
        self.bots = bots
        self.rng = rng
        self.recorder = recorder
        self.referee = referee
        self.values = card_values(rules)
        self.deck = [c for c, n in enumerate(deck_counts(rules)) for _ in range(n)]
        self.count = 0  # events of the fully recorded game so far
        # the clock: minutes after midnight of EPOCH's day, and seconds
        self.minute = (game % 365) * 1440 + EPOCH.hour * 60 + EPOCH.minute + rng.below(240)
        self.second = 0
        self.prefix = _minute_text(self.minute)
        self.game_id = f"sim-{seed}-{game}" + ("" if recorder.style == "full" else
                                                f"-{recorder.style}")
        self.scores = {p: 0 for p in names}
        self.out: list[str] = []
        self.winners: tuple[str, ...] | None = None
        self.last_score: RoundScore | None = None  # of the last round played (None: unscored)
        # the round in play, for the bots
        self.hands: dict[str, list[Card]] = {}
        self.rotation: list[str] = []
        self.picked: dict[str, list[Card]] = {}
        self.throws_of: dict[Throw, list[Throw]] = {}
        self.find_throws = throws_finder(rules)

    def emit(self, kind: str, fields: dict[str, Any]) -> None:
        """One event of the fully recorded game, 2 to 16 seconds after the last one;
        the recorder writes what it keeps."""
        second = self.second + 2 + self.rng.below(15)
        if second >= 60:  # at most one minute later
            second -= 60
            self.minute += 1
            self.prefix = _minute_text(self.minute)
        self.second = second
        event = {"type": kind, "seq": self.count, "at": self.prefix + _SECONDS[second], **fields}
        self.count += 1
        self.recorder.write(event)
        if self.referee is not None:
            self.referee.apply(event)

    def still_in(self) -> list[str]:
        return [p for p in self.names if p not in self.out]

    def play(self, max_rounds: int, max_turns: int) -> None:
        self.emit("game_started", {"format": "yaniv-log/1", "players": self.names,
                                   "rules": self.rules.id, "game_id": self.game_id,
                                   "meta": {"recorder": "yaniv-audit simulate",
                                            "bots": {p: b.name for p, b in self.bots.items()}}})
        opener = self.rng.choice(self.names)
        for number in range(1, max_rounds + 1):
            if number > 1:
                opener = self._opener(opener)
            self._round(number, opener, max_turns)
            if self.winners is not None:
                self.emit("game_ended", {"winner": list(self.winners),
                                         "scores": dict(self.scores)})
                break
        if self.referee is not None:
            self.referee.finish(self)

    def _opener(self, previous: str) -> str:
        winners = self.last_score.winners if self.last_score else ()
        still_in = self.still_in()
        allowed = next_starter(self.rules, self.names, still_in, winners, previous)
        if allowed is None:
            return self.rng.choice(still_in)
        return next(p for p in self.names if p in allowed)

    def _round(self, number: int, opener: str, max_turns: int) -> None:
        rules = self.rules
        rng = self.rng
        emit = self.emit
        referee = self.referee
        deck = self.deck.copy()
        rng.shuffle(deck)
        seats = self.still_in()
        first = seats.index(opener)
        order = seats[first:] + seats[:first]
        hands: dict[str, list[Card]] = {p: [] for p in seats}
        for _ in range(rules.hand_size):
            for p in order:
                hands[p].append(deck.pop())
        upcard = deck.pop()
        self.hands, self.rotation, self.last_score = hands, seats, None
        picked: dict[str, list[Card]] = {p: [] for p in seats}
        self.picked = picked
        emit("round_started", {"round": number, "starter": opener,
                               "hands": {p: [NAMES[c] for c in hands[p]] for p in seats},
                               "upcard": NAMES[upcard],
                               "stock": [NAMES[c] for c in reversed(deck)]})
        stock = deck  # top card last
        pile = [_Layer([upcard], None)]
        following = dict(zip(seats, seats[1:] + seats[:1], strict=True))
        values = self.values
        slap_down = rules.slap_down
        yaniv_max = rules.yaniv_max
        throws_of = self.throws_of
        caller: str | None = None
        player = opener
        for _ in range(max_turns):
            bot = self.bots[player]
            hand = hands[player]
            key = tuple(sorted(hand))  # every legal throw, kept per hand for the game
            throws = throws_of.get(key)
            if throws is None:
                throws = throws_of[key] = self.find_throws(key)
            can_call = sum([values[c] for c in hand]) <= yaniv_max
            if referee is not None:
                referee.check_start(player, hand, throws, can_call)
            throw = bot.start(self, player, throws, can_call)
            if throw is None:
                emit("yaniv", {"player": player})
                caller = player
                break
            for c in throw:
                hand.remove(c)
            meld = classify(throw, rules)
            assert isinstance(meld, Meld)  # legal_throws offers legal throws only
            pile.append(_Layer(list(throw), meld))
            emit("discard", {"player": player, "cards": [NAMES[c] for c in throw]})

            draws = self._draws(hand, pile, stock, len(throw))
            if referee is not None:
                referee.check_draws(draws)
            source, card, swap = bot.draw(self, player, draws)
            if source == "stock":
                stock.pop()
                emit("draw", {"player": player, "source": "stock", "card": NAMES[card]})
            else:
                self._take_from_pile(pile[-2], card, swap, hand)
                picked[player].append(card)
                emit("draw", {"player": player, "source": "pile", "card": NAMES[card]}
                     if swap is None else
                     {"player": player, "source": "pile", "card": NAMES[card],
                      "swap": NAMES[swap]})
            hand.append(card)

            top = pile[-1]
            joined = (extend(top.meld, card, rules)
                      if slap_down and source == "stock" and len(hand) > 1
                      and top.meld is not None else None)
            if referee is not None:
                referee.check_slap(card if joined is not None else None)
            if joined is not None and bot.slap(self, player, card):
                hand.remove(card)
                top.cards = list(joined.cards)
                top.meld = joined
                emit("slap", {"player": player, "card": NAMES[card]})
            if source == "stock" and not stock:  # the stock ran out in this turn
                if rules.reshuffle == "round_ends":
                    break
                old = [c for layer in pile[:-1] for c in layer.cards]
                rng.shuffle(old)
                emit("reshuffle", {"stock": [NAMES[c] for c in old]})
                del pile[:-1]
                stock = old[::-1]
            player = following[player]
        else:
            return  # a round that does not end within max_turns stays unscored
        emit("showdown", {"caller": caller,
                          "hands": {p: [NAMES[c] for c in hands[p]] for p in seats}})
        still_in = self.still_in()
        totals = {p: _points(values, hands[p]) for p in seats}
        score = self.last_score = score_round(rules, seats, totals, caller, self.scores)
        self.scores = score.scores
        self.out.extend(score.out)
        self.winners = game_result(rules, self.names, self.scores, still_in, score.out, number)
        emit("round_ended", {"round": number, "points": dict(score.points),
                             "scores": dict(self.scores)})

    def _takeable(self, layer: _Layer) -> range | tuple[int, int]:
        """The positions of ``layer`` a draw may take (the engine's pickup rule)."""
        n = len(layer.cards)
        pickup = self.rules.pickup
        if pickup == "any" or n <= 2 or (
                pickup == "ends_of_runs" and layer.meld is not None and layer.meld.kind == "set"):
            return range(n)
        return (0, n - 1)

    def _draws(self, hand: list[Card], pile: list[_Layer], stock: list[Card],
               throw_size: int) -> list[DrawOption]:
        """Every legal draw after a throw of ``throw_size`` cards, in the engine's order."""
        rules = self.rules
        draws: list[DrawOption] = [("stock", stock[-1], None)] if stock else []
        if len(pile) < 2 or (rules.pile_needs_combo and throw_size < 2):
            return draws
        previous = pile[-2]
        cards = previous.cards
        n = len(cards)
        if n == 1:  # the usual case: a single
            draws.append(("pile", cards[0], None))
        elif n > 2 and rules.pickup == "ends":  # the ends alone
            draws.append(("pile", cards[0], None))
            if cards[-1] != cards[0]:
                draws.append(("pile", cards[-1], None))
        else:
            for i in self._takeable(previous):
                option: DrawOption = ("pile", cards[i], None)
                if option not in draws:
                    draws.append(option)
        meld = previous.meld
        if rules.joker_swap and meld is not None and meld.kind == "run":
            for i, natural in enumerate(meld.stands_for):
                if natural is not None and natural in hand and i < len(cards):
                    draws.append(("pile", cards[i], natural))
        return draws

    def _take_from_pile(self, previous: _Layer, card: Card, swap: Card | None,
                        hand: list[Card]) -> None:
        cards = previous.cards
        if swap is not None:  # a joker swap: the natural card takes the joker's place
            hand.remove(swap)
            meld = previous.meld
            assert meld is not None
            position = next(i for i, c in enumerate(cards)
                            if c == card and meld.stands_for[i] == swap)
            cards[position] = swap
            reading = classify(cards, self.rules)
            previous.meld = reading if isinstance(reading, Meld) else None
            return
        first = cards.index(card)
        if first == 0 or first == len(cards) - 1:
            cards.pop(first)
            return
        allowed = self._takeable(previous)
        cards.pop(next(i for i, c in enumerate(cards) if c == card and i in allowed))


class _Referee:
    """The engine replaying the game as it is played, checking every choice offered."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.replay: Replay | None = None

    def apply(self, event: dict[str, Any]) -> None:
        from .codec import event_from_dict
        from .engine import Replay
        from .events import GameStarted

        typed = event_from_dict(event, event["seq"], None)
        if self.replay is None:
            assert isinstance(typed, GameStarted)
            self.replay = Replay(typed, self.rules)
        self.replay.apply(typed)
        assert not self.replay.findings, self.replay.findings

    def check_start(self, player: str, hand: list[Card], throws: list[Throw],
                    can_call: bool) -> None:
        assert self.replay is not None and self.replay.round is not None
        assert self.replay.round.hands[player] == hand
        moves = self.replay.start_moves(player)
        assert [m.cards for m in moves if m.kind == "discard"] == throws
        assert (moves[0].kind == "yaniv") == can_call

    def check_draws(self, draws: list[DrawOption]) -> None:
        assert self.replay is not None
        offered = [(m.source, m.card, m.swap) for m in self.replay.legal_moves()]
        assert offered == draws, (offered, draws)

    def check_slap(self, card: Card | None) -> None:
        assert self.replay is not None
        assert [m.card for m in self.replay.legal_moves()] == ([] if card is None else [card])

    def finish(self, game: _Game) -> None:
        replay = self.replay
        assert replay is not None
        replay.finish()
        assert not replay.findings, replay.findings
        assert (replay.scores, replay.winners) == (game.scores, game.winners)


def to_jsonl_bytes(events: Sequence[dict[str, Any]]) -> bytes:
    """The log file of ``events``: one compact JSON object a line, UTF-8."""
    dumps = orjson.dumps
    return b"".join([dumps(e) + b"\n" for e in events])


def to_jsonl(events: Sequence[dict[str, Any]]) -> str:
    return to_jsonl_bytes(events).decode()
