"""The replay engine: a deterministic fold of a log's events into game state.

:class:`Replay` takes the events one by one (:meth:`Replay.apply`), checks
every move against the rule set and records :class:`Finding` values. Rule
violations and claims never stop it; a physically impossible event raises
:class:`~yaniv_audit.errors.InconsistentLogError` (after recording its
finding) and the replay stops there. Nothing here reads a clock, a random
generator or a file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .cards import (
    JACK,
    JOKER,
    NAMES,
    RANK,
    Card,
    card_values,
    deck_counts,
    format_cards,
    hand_total,
)
from .errors import InconsistentLogError, LogFormatError
from .events import (
    Discard,
    Draw,
    Event,
    GameEnded,
    GameStarted,
    Note,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Showdown,
    Slap,
    Yaniv,
)
from .melds import Meld, classify, extend, legal_throws
from .rules import RuleSet
from .scoring import RoundScore, game_result, next_starter, score_round, seat_after

VIOLATION, INCONSISTENCY, CLAIM = "violation", "inconsistency", "claim"
START, THREW, DREW = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing wrong with a log: which event, which round, who, what rule."""

    seq: int
    round: int | None
    player: str | None
    kind: str
    code: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "round": self.round, "player": self.player,
                "kind": self.kind, "code": self.code, "message": self.message}


@dataclass(frozen=True, slots=True)
class Move:
    """A legal next move, as the legal-move generator offers it."""

    kind: str  # "yaniv", "discard", "draw" or "slap"
    player: str
    cards: tuple[Card, ...] = ()
    source: str | None = None
    card: Card | None = None
    swap: Card | None = None

    def event(self) -> dict[str, Any]:
        """The move as a log event (cards in canonical form)."""
        out: dict[str, Any] = {"type": self.kind, "player": self.player}
        if self.kind == "discard":
            out["cards"] = [NAMES[c] for c in self.cards]
        elif self.kind == "draw":
            out["source"] = self.source
            if self.card is not None:
                out["card"] = NAMES[self.card]
            if self.swap is not None:
                out["swap"] = NAMES[self.swap]
        elif self.kind == "slap":
            out["card"] = NAMES[self.card]  # type: ignore[index]
        return out


class StopReplay(Exception):
    """Raised by ``strict`` replays at the first finding."""


@dataclass(slots=True)
class Layer:
    """One throw on the pile: its cards as placed and how they classify."""

    owner: str | None
    cards: list[Card | None]
    meld: Meld | None

    def text(self) -> str:
        return " ".join("??" if c is None else format_cards([c]) for c in self.cards)


@dataclass(slots=True)
class RoundState:
    number: int
    starter: str
    moves_checked: bool
    rotation: list[str]
    hands: dict[str, list[Card]] = field(default_factory=dict)
    pile: list[Layer] = field(default_factory=list)
    stock: list[Card] | None = None  # known order, top at the end
    stock_count: int = 0
    stock_lost_by_replay: bool = False
    exhaust_pending: bool = False
    upcard_deduced: bool = False  # the upcard was not recorded but follows from hands and stock
    current: str = ""
    phase: int = START
    throw_size: int = 0
    drew_from_stock: bool = False
    last_drawn: Card | None = None
    ended: bool = False  # the round's end happened (yaniv, showdown or stock)
    closed: bool = False  # round_ended was written
    gap_reported: bool = False
    end: str | None = None
    caller: str | None = None
    announced: int | None = None  # the total a scoresheet round's caller announced
    score: RoundScore | None = None
    out_reported: set[str] = field(default_factory=set)
    seen: list[int] = field(default_factory=lambda: [0] * 53)
    next_seat: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class RoundRecord:
    """What the report says of one round."""

    round: int
    starter: str
    moves_checked: bool
    end: str | None = None
    caller: str | None = None
    score: RoundScore | None = None
    scores: dict[str, int] = field(default_factory=dict)
    out: tuple[str, ...] = ()


class Replay:
    """The state of a game being replayed under one rule set."""

    def __init__(self, game: GameStarted, rules: RuleSet, *, strict: bool = False) -> None:
        self.game = game
        self.rules = rules
        self.strict = strict
        self.values = card_values(rules)
        self.counts = deck_counts(rules)
        self.deck_size = sum(self.counts)
        #: the deck as {card: copies} (a Counter of it, without its zeros)
        self.deck = {card: n for card, n in enumerate(self.counts) if n}
        self.seating: tuple[str, ...] = game.players
        self.scores: dict[str, int] = {p: 0 for p in self.seating}
        self.out: list[str] = []
        self.findings: list[Finding] = []
        self.records: list[RoundRecord] = []
        self.round: RoundState | None = None
        self.winners: tuple[str, ...] | None = None
        self.closing_allowed: set[str] = set()
        self.game_over_reported = False
        self.written_diff: dict[str, int] = {}

    # --- driving -----------------------------------------------------------

    def apply(self, event: Event) -> None:
        """Fold one event into the state (raises InconsistentLogError, StopReplay)."""
        HANDLERS[type(event)](self, event)

    def run(self, events: Iterable[Event]) -> Replay:
        for event in events:
            self.apply(event)
        self.finish()
        return self

    def finish(self) -> None:
        """The log ends here: a pending stock exhaustion under round_ends still ends the round."""
        self._end_pending_exhaustion()

    def _end_pending_exhaustion(self) -> None:
        """The stock ran out in the last turn: under round_ends that turn ended the round."""
        r = self.round
        if r is not None and r.exhaust_pending and not r.ended and self.winners is None:
            self._exhaust(None)

    @property
    def finished(self) -> bool:
        return self.winners is not None

    @property
    def still_in(self) -> list[str]:
        return [p for p in self.seating if p not in self.out]

    # --- findings ----------------------------------------------------------

    def _find(self, event: Event, kind: str, code: str, player: str | None, message: str) -> None:
        finding = Finding(event.index, self.round.number if self.round else None,
                          player, kind, code, message)
        self.findings.append(finding)
        if kind == INCONSISTENCY:
            raise InconsistentLogError(finding)
        if self.strict:
            raise StopReplay

    def _violation(self, event: Event, code: str, player: str | None, message: str) -> None:
        self._find(event, VIOLATION, code, player, message)

    def _impossible(self, event: Event, code: str, player: str | None, message: str) -> None:
        self._find(event, INCONSISTENCY, code, player, message)

    def _claim(self, event: Event, code: str, player: str | None, message: str) -> None:
        self._find(event, CLAIM, code, player, message)

    def _game_over(self, event: Event) -> bool:
        """True if the event comes after the game was decided (reported once, not replayed)."""
        if self.winners is None:
            return False
        name = event.type
        if name in self.closing_allowed and not (
                isinstance(event, RoundEnded) and event.round != self.records[-1].round):
            if name == "round_ended":
                self.closing_allowed.clear()
            else:
                self.closing_allowed.discard(name)
            return False
        if isinstance(event, RoundStarted):
            self.closing_allowed.clear()  # the deciding round's closing can come no more
        if not self.game_over_reported:
            self.game_over_reported = True
            self._violation(event, "game.over", getattr(event, "player", None),
                            f"the game was over after round {self.records[-1].round} "
                            f"({', '.join(self.winners)} won); later events do not count")
        return True

    # --- events ------------------------------------------------------------

    def _game_started(self, event: GameStarted) -> None:
        pass

    def _note(self, event: Note) -> None:
        pass

    def _round_started(self, event: RoundStarted) -> None:
        self._end_pending_exhaustion()
        if self._game_over(event):
            return
        previous = self.records[-1] if self.records else None
        still_in = self.still_in
        if event.hands is not None:
            rotation = [p for p in self.seating if p in event.hands]
        else:
            rotation = list(still_in)
        r = RoundState(event.round, event.starter, event.hands is not None, rotation)
        self.round = r
        self.records.append(RoundRecord(event.round, event.starter, r.moves_checked,
                                        scores=dict(self.scores)))
        if previous is not None:
            self._check_starter(event, previous, still_in)
        if event.hands is None:
            r.current = event.starter
            return
        rules = self.rules
        for p in rotation:
            if p in self.out:
                self._player_out(event, p)
        for p in still_in:
            dealt = len(event.hands.get(p, ()))
            if dealt != rules.hand_size:
                self._violation(event, "deal.hand_size", p,
                                f"{p} was dealt {dealt} cards; hand_size={rules.hand_size}")
        dealt_cards = sum(len(c) for c in event.hands.values())
        if len(rotation) * rules.hand_size + 1 > self.deck_size:
            self._impossible(event, "deal.too_big", None,
                             f"{len(rotation)} hands of {rules.hand_size} and an upcard need "
                             f"{len(rotation) * rules.hand_size + 1} cards; the deck holds "
                             f"{self.deck_size} (decks={rules.decks}, jokers={rules.jokers})")
        on_table: Counter[Card] = Counter()
        for cards in event.hands.values():
            on_table.update(cards)
        upcard = event.upcard
        if upcard is not None:
            on_table[upcard] += 1
        if event.stock is not None:
            on_table.update(event.stock)
        if upcard is None or event.stock is None or not dict.__eq__(on_table, self.deck):
            self._check_counts(event, on_table, "the deal")
            if event.stock is not None:
                upcard = self._check_whole_deck(event, on_table)
                r.upcard_deduced = event.upcard is None
        # else the usual deal: hands, upcard and stock are the deck card for card, which
        # both checks above would find (and the upcard is the one recorded)
        for p, cards in event.hands.items():
            r.hands[p] = list(cards)
        seen = r.seen
        for cards in event.hands.values():
            for c in cards:
                seen[c] += 1
        if upcard is not None:
            seen[upcard] += 1
        r.pile.append(Layer(None, [upcard], None))
        if event.stock is not None:
            r.stock = list(reversed(event.stock))
            r.stock_count = len(event.stock)
        else:
            r.stock_count = max(self.deck_size - dealt_cards - 1, 0)
        r.current = event.starter
        # the turn order among the dealt players, known now (others are looked up if they move)
        r.next_seat = dict(zip(rotation, rotation[1:] + rotation[:1], strict=True))

    def _check_whole_deck(self, event: RoundStarted, on_table: Counter[Card]) -> Card | None:
        """Recorded hands and stock leave exactly the upcard: the deck, card for card.

        Returns the upcard, deduced when it was not recorded.
        """
        counts = self.counts
        left = [c for c in range(len(counts)) for _ in range(counts[c] - on_table[c])]
        if event.upcard is None:
            if len(left) == 1:
                return left[0]
            what = (f"the recorded hands and stock leave {len(left)} cards for the one upcard "
                    f"({format_cards(left)})" if left else
                    "the recorded hands and stock leave no card for the upcard")
        elif not left:
            return event.upcard
        else:
            what = (f"the recorded hands, upcard and stock are not the deck: "
                    f"{format_cards(left)} {'is' if len(left) == 1 else 'are'} in no hand, "
                    "not the upcard and not in the stock")
        self._impossible(event, "stock.mismatch", None,
                         f"{what} (decks={self.rules.decks}, jokers={self.rules.jokers})")
        return None

    def _check_counts(self, event: Event, cards: Counter[Card], where: str) -> None:
        for card, n in cards.items():
            allowed = self.counts[card]
            if n > allowed:
                name = format_cards([card])
                if allowed == 0:
                    self._impossible(event, "card.not_in_deck", None,
                                     f"{where} holds {name}, which the deck does not have "
                                     f"(jokers={self.rules.jokers})")
                self._impossible(event, "card.too_many", None,
                                 f"{where} holds {n} copies of {name}; the deck has {allowed} "
                                 f"(decks={self.rules.decks})")

    def _check_starter(self, event: RoundStarted, previous: RoundRecord,
                       still_in: list[str]) -> None:
        rules = self.rules
        if rules.starter == "free":
            return
        if rules.starter == "round_winner" and previous.score is None:
            return
        winners = previous.score.winners if previous.score else ()
        allowed = next_starter(rules, self.seating, still_in, winners, previous.starter)
        if allowed is not None and event.starter not in allowed:
            why = (f"round {previous.round} was won by {', '.join(winners)}"
                   if rules.starter == "round_winner"
                   else f"{previous.starter} opened round {previous.round}")
            self._violation(event, "deal.starter", event.starter,
                            f"{event.starter} opened round {event.round}, but "
                            f"{' or '.join(sorted(allowed))} should have: {why} "
                            f"(starter={rules.starter})")

    def _player_out(self, event: Event, player: str) -> None:
        r = self.round
        assert r is not None
        if player in r.out_reported:
            return
        r.out_reported.add(player)
        rules = self.rules
        self._violation(event, "player.out", player,
                        f"{player} is out (score {self.scores[player]}, score_limit="
                        f"{rules.score_limit}, limit_rule={rules.limit_rule}) but still takes "
                        f"part in round {r.number}")

    # --- turns -------------------------------------------------------------

    def _move_round(self, event: Event) -> RoundState | None:
        """The round a move belongs to, or None when it is not replayed."""
        r = self.round
        if self.winners is None and r is not None and not (
                r.exhaust_pending or r.ended or r.closed):
            if self.out:
                player = getattr(event, "player", None)
                if player in self.out and player in r.rotation:
                    self._player_out(event, player)
            return r  # the usual case
        return self._move_round_slow(event)

    def _move_round_slow(self, event: Event) -> RoundState | None:
        if self._game_over(event):
            return None
        r = self.round
        assert r is not None
        if r.exhaust_pending and not (isinstance(event, Slap) and r.phase == DREW):
            self._exhaust(None)
        if r.ended or r.closed:
            if not r.gap_reported:
                r.gap_reported = True
                self._violation(event, "turn.order", getattr(event, "player", None),
                                f"round {r.number} is over; moves before the next round_started "
                                "do not count")
            return None
        if self.out:
            player = getattr(event, "player", None)
            if player in self.out and player in r.rotation:
                self._player_out(event, player)
        return r

    def _advance(self, r: RoundState) -> None:
        r.current = r.next_seat.get(r.current) or self._next_player(r, r.current)
        r.phase = START
        r.throw_size = 0
        r.drew_from_stock = False
        r.last_drawn = None

    def _next_player(self, r: RoundState, player: str) -> str:
        following = r.next_seat.get(player)
        if following is None:
            following = r.next_seat[player] = (
                seat_after(self.seating, r.rotation, player) if r.rotation else player)
        return following

    def _enter(self, r: RoundState, event: Discard | Draw | Slap | Yaniv) -> bool:
        """Settle whose turn ``event`` is; False for a slap made out of place."""
        p = event.player
        kind = type(event)
        phase = r.phase
        if phase == START and p == r.current and kind is not Draw and kind is not Slap:
            return True  # the usual case: a turn opens with its player's throw or call
        if phase == THREW:
            if p == r.current:
                if kind is Draw:
                    return True
                if kind is Slap:
                    self._violation(event, "slap.not_allowed", p,
                                    f"{p} slapped before drawing; a slap follows a stock draw")
                    return False
                if kind is Yaniv:
                    self._violation(event, "yaniv.timing", p,
                                    f"{p} called Yaniv after throwing; Yaniv is called only at "
                                    "the start of one's turn, before throwing")
                    return True
            # the turn ends without its draw; a second throw by the same player is out of turn
            self._no_draw(r, event)
            self._advance(r)
        elif phase == DREW:
            if p == r.current:
                if kind is Slap:
                    return True
                if kind is Yaniv:
                    self._violation(event, "yaniv.timing", p,
                                    f"{p} called Yaniv after drawing; Yaniv is called only at "
                                    "the start of one's turn, before throwing")
                    return True
            self._advance(r)
        if isinstance(event, Slap):
            self._violation(event, "slap.not_allowed", p,
                            f"{p} slapped {format_cards([event.card])} out of turn; a slap "
                            "may only follow one's own draw from the stock")
            return False
        if p != r.current:
            self._violation(event, "turn.order", p,
                            f"it was {r.current}'s turn, not {p}'s")
            r.current = p
        if kind is Draw:
            self._violation(event, "turn.no_throw", p, f"{p} drew without throwing first")
        return True

    def _no_draw(self, r: RoundState, event: Event) -> None:
        thrown = r.pile[-1].text() if r.pile else ""
        self._violation(event, "turn.no_draw", r.current,
                        f"{r.current} threw {thrown or 'cards'} but did not draw")

    def _take_from_hand(self, event: Event, player: str, cards: Sequence[Card]) -> None:
        r = self.round
        assert r is not None
        hand = r.hands.get(player)
        if hand is None:
            hand = r.hands[player] = []
        if len(cards) == 1 and cards[0] in hand:
            hand.remove(cards[0])
            return
        removed: list[Card] = []
        try:
            for c in cards:
                hand.remove(c)
                removed.append(c)
        except ValueError:
            hand.extend(removed)
            missing = Counter(cards) - Counter(hand)
            self._impossible(event, "card.not_in_hand", player,
                             f"{player} does not hold {format_cards(sorted(missing.elements()))} "
                             f"(hand: {format_cards(hand) or 'empty'})")

    def _discard(self, event: Discard) -> None:
        r = self._move_round(event)
        if r is None:
            return
        p = event.player
        if r.phase == DREW and p != r.current and p == r.next_seat.get(r.current):
            r.current = p  # the usual case: the next player opens their turn
            r.phase = START
            r.throw_size = 0
            r.drew_from_stock = False
            r.last_drawn = None
        else:
            self._enter(r, event)
        self._take_from_hand(event, p, event.cards)
        reading = classify(event.cards, self.rules)
        meld = reading if isinstance(reading, Meld) else None
        if meld is None:
            self._violation(event, "discard.combo", p, f"{p} threw {reading}")
        r.pile.append(Layer(p, list(event.cards), meld))
        r.phase = THREW
        r.throw_size = len(event.cards)

    def _draw(self, event: Draw) -> None:
        r = self._move_round(event)
        if r is None:
            return
        had_throw = r.phase == THREW and event.player == r.current
        if not had_throw:
            self._enter(r, event)
        if event.source == "stock":
            card = self._draw_stock(r, event)
            r.drew_from_stock = True
        else:
            card = self._draw_pile(r, event, had_throw)
            r.drew_from_stock = False
        r.hands.setdefault(event.player, []).append(card)
        r.last_drawn = card
        r.phase = DREW

    def _draw_stock(self, r: RoundState, event: Draw) -> Card:
        p = event.player
        if r.stock_count <= 0:
            self._impossible(event, "stock.empty", p, f"{p} drew from an empty stock")
        if r.stock is not None:
            top = r.stock[-1]
            if event.card is not None and event.card != top:
                self._impossible(event, "stock.mismatch", p,
                                 f"{p} drew {format_cards([event.card])} from the stock, but its "
                                 f"top card is {format_cards([top])}")
            card = r.stock.pop()
        else:
            if event.card is None:
                if r.stock_lost_by_replay:
                    self._impossible(event, "stock.mismatch", p,
                                     f"{p} drew from the stock without naming the card, and the "
                                     "stock's order is unknown to this replay")
                raise LogFormatError(
                    "draw: field \"card\": required, the order of the stock is not recorded "
                    "at this point (no stock in round_started or reshuffle)",
                    line=event.line, index=event.index,
                    messages={"card": ["required: the stock's order is unknown here"]})
            card = event.card
            if r.seen[card] >= self.counts[card]:
                where = self._where_is(r, card)
                self._impossible(event, "card.already_seen", p,
                                 f"{p} drew {format_cards([card])} from the stock, but {where}")
        r.seen[card] += 1
        r.stock_count -= 1
        if r.stock_count == 0:
            r.exhaust_pending = True
        return card

    def _where_is(self, r: RoundState, card: Card) -> str:
        holders = [p for p, h in r.hands.items() if card in h]
        name = format_cards([card])
        if holders:
            return f"{', '.join(holders)} {'holds' if len(holders) == 1 else 'hold'} {name}"
        for layer in reversed(r.pile):
            if card in layer.cards:
                return f"{name} lies on the pile (in {layer.text()})"
        if r.stock is not None and card in r.stock:
            return f"{name} is in the stock"
        return f"every {name} of the deck is accounted for"

    def _draw_pile(self, r: RoundState, event: Draw, had_throw: bool) -> Card:
        p = event.player
        rules = self.rules
        card = event.card
        assert card is not None
        pile = r.pile
        own = pile[-1] if had_throw else None
        previous = pile[-2] if had_throw and len(pile) >= 2 else (None if had_throw else pile[-1])
        if rules.pile_needs_combo and r.throw_size < 2:
            self._violation(event, "draw.pile_needs_combo", p,
                            f"{p} drew from the pile after throwing {r.throw_size} card"
                            f"{'' if r.throw_size == 1 else 's'} (pile_needs_combo=true)")
        if event.swap is not None:
            return self._joker_swap(r, event, previous)
        if previous is not None and card in previous.cards:
            first = previous.cards.index(card)
            if first == 0 or first == len(previous.cards) - 1:  # an end: takeable under any pickup
                previous.cards.pop(first)
                return card
            positions = [i for i, c in enumerate(previous.cards) if c == card]
            allowed = self._takeable(previous)
            good = [i for i in positions if i in allowed]
            if not good:
                self._violation(event, "draw.pile_card", p, self._pickup_message(
                    p, card, previous))
            previous.cards.pop((good or positions)[0])
            return card
        if previous is not None and None in previous.cards:
            if r.seen[card] >= self.counts[card] or (r.stock is not None and card in r.stock):
                self._impossible(event, "card.already_seen", p,
                                 f"{p} took {format_cards([card])} as the upcard, but "
                                 f"{self._where_is(r, card)}")
            previous.cards.remove(None)
            r.seen[card] += 1
            return card
        if own is not None and card in own.cards:
            self._violation(event, "draw.pile_card", p,
                            f"{p} took {format_cards([card])} back from their own throw; a draw "
                            "comes from the previous player's throw")
            own.cards.remove(card)
            return card
        for layer in reversed(pile):
            if card in layer.cards:
                self._violation(event, "draw.pile_card", p,
                                f"{p} took {format_cards([card])} from an older throw "
                                f"({layer.text()}); only the previous throw "
                                f"({previous.text() if previous else 'none'}) may be taken from")
                layer.cards.remove(card)
                return card
        name = format_cards([card])
        if r.upcard_deduced and previous is pile[0]:
            self._impossible(event, "card.already_seen", p,
                             f"{p} took {name} as the upcard, but {self._where_is(r, card)}; "
                             f"the upcard is {previous.text() or 'already taken'}, the one card "
                             "in no hand and not in the stock")
        self._impossible(event, "card.not_on_pile", p,
                         f"{p} took {name} from the pile, but it is not there: "
                         f"{self._where_is(r, card)} ({self._previous_text(previous)})")
        raise AssertionError("unreachable")

    @staticmethod
    def _previous_text(previous: Layer | None) -> str:
        if previous is None:
            return "there is no previous throw"
        if not previous.cards:
            return "nothing is left of the previous throw"
        return f"the previous throw is {previous.text()}"

    def _takeable(self, layer: Layer) -> set[int]:
        n = len(layer.cards)
        pickup = self.rules.pickup
        if pickup == "any" or n <= 2:
            return set(range(n))
        if pickup == "ends_of_runs" and layer.meld is not None and layer.meld.kind == "set":
            return set(range(n))
        return {0, n - 1}

    def _pickup_message(self, player: str, card: Card, layer: Layer) -> str:
        allowed = self._takeable(layer)
        ends = [c for i, c in enumerate(layer.cards) if i in allowed and c is not None]
        return (f"{player} took {format_cards([card])} from the middle of {layer.text()}; only "
                f"{' or '.join(format_cards([c]) for c in dict.fromkeys(ends))} may be taken "
                f"(pickup={self.rules.pickup})")

    def _joker_swap(self, r: RoundState, event: Draw, previous: Layer | None) -> Card:
        p = event.player
        card, swap = event.card, event.swap
        assert card is not None and swap is not None
        self._take_from_hand(event, p, [swap])
        target = previous if previous is not None and card in previous.cards else None
        if target is None:
            older = next((layer for layer in reversed(r.pile)
                          if layer is not previous and card in layer.cards), None)
            if older is None:
                r.hands[p].append(swap)
                self._impossible(event, "card.not_on_pile", p,
                                 f"{p} swapped {format_cards([swap])} for {format_cards([card])}, "
                                 f"but it is not on the pile: {self._where_is(r, card)} "
                                 f"({self._previous_text(previous)})")
            assert older is not None
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])} of "
                            f"an older throw ({older.text()}); a swap takes the joker from the "
                            f"previous throw only ({self._previous_text(previous)})")
            older.cards[older.cards.index(card)] = swap
            reading = classify([c for c in older.cards if c is not None], self.rules)
            older.meld = reading if isinstance(reading, Meld) else None
            return card
        meld = target.meld
        position = None
        if meld is not None and meld.kind == "run":
            for i, c in enumerate(target.cards):
                if c == card and meld.stands_for[i] == swap:
                    position = i
                    break
        if not self.rules.joker_swap:
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])}, "
                            "but joker_swap=false")
        elif position is None:
            wild = card == JOKER or (self.rules.wild_jacks and RANK[card] == JACK)
            reason = ("it is not a joker" if not wild else
                      f"it does not stand for {format_cards([swap])} in {target.text()}")
            self._violation(event, "draw.swap", p,
                            f"{p} swapped {format_cards([swap])} for {format_cards([card])}: "
                            f"{reason}")
        if position is None:
            position = target.cards.index(card)
        target.cards[position] = swap
        new_meld = classify([c for c in target.cards if c is not None], self.rules)
        target.meld = new_meld if isinstance(new_meld, Meld) else None
        return card

    def _slap(self, event: Slap) -> None:
        r = self._move_round(event)
        if r is None:
            return
        p = event.player
        ok = self._enter(r, event)
        rules = self.rules
        if ok and not rules.slap_down:
            self._violation(event, "slap.not_allowed", p,
                            f"{p} slapped {format_cards([event.card])}, but slap_down=false")
        elif ok and not r.drew_from_stock:
            self._violation(event, "slap.not_allowed", p,
                            f"{p} slapped {format_cards([event.card])}; a slap may only follow "
                            "one's own draw from the stock (slap_down=true)")
        self._take_from_hand(event, p, [event.card])
        top = r.pile[-1]
        joined: Meld | None = None
        if event.card != r.last_drawn or not ok:
            if ok:
                drawn = format_cards([r.last_drawn]) if r.last_drawn is not None else "none"
                self._violation(event, "slap.not_allowed", p,
                                f"{p} slapped {format_cards([event.card])}, which is not the card "
                                f"just drawn ({drawn}); only the card just drawn from the stock "
                                "may be slapped")
        else:
            joined = extend(top.meld, event.card, rules) if top.meld is not None else None
            if joined is None:
                self._violation(event, "slap.no_match", p,
                                f"{p} slapped {format_cards([event.card])}, which does not extend "
                                f"{top.text()} (set_max={rules.set_max}, run_max="
                                f"{'null' if rules.run_max is None else rules.run_max})")
        if not r.hands[p]:
            self._violation(event, "slap.empties_hand", p,
                            f"{p} slapped their last card; a slap may not empty the hand")
        if joined is not None:
            top.cards = list(joined.cards)
            top.meld = joined
        else:
            top.cards.append(event.card)
        r.drew_from_stock = False
        r.last_drawn = None

    def _yaniv(self, event: Yaniv) -> None:
        r = self._move_round(event)
        if r is None:
            return
        p = event.player
        if not r.moves_checked:
            r.announced = event.total
            r.caller = p
            return
        self._enter(r, event)
        self._call(r, event, p)

    def _call(self, r: RoundState, event: Event, caller: str) -> None:
        """End a replayed round by ``caller``'s Yaniv at ``event``."""
        total = self._total(r.hands.get(caller, []))
        if total > self.rules.yaniv_max:
            self._violation(event, "yaniv.threshold", caller,
                            f"{caller} called Yaniv at {total} "
                            f"({format_cards(r.hands.get(caller, []))}); yaniv_max="
                            f"{self.rules.yaniv_max}")
        if isinstance(event, Yaniv) and event.total is not None and event.total != total:
            self._claim(event, "claim.yaniv_total", caller,
                        f"{caller} announced {event.total}, but "
                        f"{format_cards(r.hands.get(caller, []))} makes {total}")
        totals = {p: self._total(r.hands.get(p, [])) for p in r.rotation}
        self._score(r, event, caller, totals, "yaniv")

    def _total(self, cards: Sequence[Card]) -> int:
        return hand_total(cards, self.values)

    def _exhaust(self, event: Reshuffle | None) -> None:
        """The stock's last card was drawn and the turn is over."""
        r = self.round
        assert r is not None
        r.exhaust_pending = False
        if self.rules.reshuffle == "round_ends":
            totals = {p: self._total(r.hands.get(p, [])) for p in r.rotation}
            self._score(r, event, None, totals, "stock")
            return
        old = r.pile[:-1]
        r.pile = r.pile[-1:]
        cards = [c for layer in old for c in layer.cards if c is not None]
        # an upcard nobody recorded or drew lies there all the same
        unknown = sum(layer.cards.count(None) for layer in old)
        seen = r.seen
        for c in cards:
            seen[c] -= 1
        r.stock_count = len(cards) + unknown
        r.stock = None
        if event is not None and event.stock is not None:
            extra = Counter(event.stock)
            extra.subtract(cards)
            named = list(extra.elements())  # the cards that must be the unrecorded upcard
            if (min(extra.values(), default=0) < 0 or len(named) != unknown
                    or any(seen[c] >= self.counts[c] for c in named)):
                pile = format_cards(sorted(cards)) or "no card"
                if unknown:
                    pile += " and the unrecorded upcard"
                self._impossible(event, "stock.mismatch", None,
                                 f"the reshuffled stock ({format_cards(event.stock)}) is not the "
                                 f"pile below the last throw ({pile})")
            r.stock = list(reversed(event.stock))

    def _reshuffle(self, event: Reshuffle) -> None:
        if self._game_over(event):
            return
        r = self.round
        assert r is not None
        if self.rules.reshuffle == "round_ends":
            self._violation(event, "reshuffle.not_allowed", None,
                            "the pile was reshuffled, but reshuffle=round_ends: the round ends "
                            "when the stock runs out")
        elif r.ended or r.closed:
            self._violation(event, "reshuffle.not_allowed", None,
                            f"the pile was reshuffled after round {r.number} was over; a "
                            "reshuffle comes only when the stock runs out during play")
        elif not r.exhaust_pending:
            self._violation(event, "reshuffle.not_allowed", None,
                            f"the pile was reshuffled while the stock still held "
                            f"{r.stock_count} card{'' if r.stock_count == 1 else 's'}")
        else:
            self._exhaust(event)
            return
        if event.stock is not None:
            r.stock_lost_by_replay = True

    # --- the end of a round ------------------------------------------------

    def _score(self, r: RoundState, event: Event | None, caller: str | None,
               totals: dict[str, int], end: str) -> None:
        r.ended = True
        r.end = end
        r.caller = caller
        players = [p for p in r.rotation if p not in self.out and p in totals]
        if not players:
            return
        still_in = self.still_in
        # an out caller takes no part: the others score as if the stock had run out
        counted_caller = caller if caller in players else None
        score = score_round(self.rules, players, totals, counted_caller, self.scores)
        r.score = score
        self.scores = score.scores
        self.out.extend(score.out)
        record = self.records[-1]
        record.end, record.caller, record.score = end, caller, score
        record.scores, record.out = dict(self.scores), score.out
        winners = game_result(self.rules, self.seating, self.scores, still_in, score.out,
                              r.number)
        if winners is not None:
            self.winners = winners
            self.closing_allowed = {"round_ended"}
            if not isinstance(event, Showdown):
                self.closing_allowed.add("showdown")

    def _ending_round(self, event: Event) -> RoundState | None:
        """The round a showdown or round_ended closes, its pending stock end applied."""
        if self._game_over(event):
            return None
        r = self.round
        assert r is not None
        if r.exhaust_pending:
            self._exhaust(None)
        return r

    def _showdown(self, event: Showdown) -> None:
        r = self._ending_round(event)
        if r is None:
            return
        rules = self.rules
        caller = event.caller
        if caller is None and rules.reshuffle != "round_ends":
            self._violation(event, "showdown.no_caller", None,
                            "the showdown names no caller, but only reshuffle=round_ends ends a "
                            "round without a Yaniv")
        elif caller is None and r.moves_checked and not r.ended:
            self._violation(event, "showdown.no_caller", None,
                            f"the showdown names no caller, but the stock still holds "
                            f"{r.stock_count} card{'' if r.stock_count == 1 else 's'}: under "
                            "reshuffle=round_ends only an exhausted stock ends a round without "
                            "a Yaniv")
        shown: Counter[Card] = Counter()
        for cards in event.hands.values():
            shown.update(cards)
        self._check_counts(event, shown, "the showdown")
        for p in event.hands:
            if p in self.out and (r.moves_checked is False or p not in r.rotation):
                self._player_out(event, p)
        if r.moves_checked:
            self._showdown_after_moves(r, event)
            return
        if r.ended:
            return
        written = event.totals or {}
        missing = [p for p in self.still_in if p not in event.hands and p not in written]
        for p in missing:
            self._claim(event, "claim.showdown", p, f"the showdown shows no hand for {p}")
        totals = self._shown_totals(event)
        if r.caller is not None and r.caller != caller:
            self._claim(event, "claim.showdown", caller,
                        f"the showdown names {caller} as the caller, but {r.caller} called Yaniv")
        if caller is not None and caller in totals:
            total = totals[caller]
            hand = (format_cards(event.hands[caller]) if caller in event.hands
                    else "the total written down")
            if total > rules.yaniv_max:
                self._violation(event, "yaniv.threshold", caller,
                                f"{caller} called Yaniv at {total} ({hand}); yaniv_max="
                                f"{rules.yaniv_max}")
            announced = r.announced
            if announced is not None and announced != total:
                what = (f"the showdown's {hand} makes {total}" if caller in event.hands
                        else f"the showdown's total is {total}")
                self._claim(event, "claim.yaniv_total", caller,
                            f"{caller} announced {announced}, but {what}")
        r.rotation = [p for p in self.seating if p in totals]
        self._score(r, event, caller, totals, "yaniv" if caller is not None else "stock")

    def _shown_totals(self, event: Showdown) -> dict[str, int]:
        """The hand total of every player the showdown shows: from the cards shown, else
        from the total written down for a player whose cards were not kept (``totals``); a
        written total that the cards shown do not make is ``claim.showdown``."""
        totals = {p: self._total(cards) for p, cards in event.hands.items()}
        for p, written in (event.totals or {}).items():
            if p not in totals:
                totals[p] = written
            elif written != totals[p]:
                self._claim(event, "claim.showdown", p,
                            f"{p}'s total was written as {written}, but the cards shown "
                            f"({format_cards(event.hands[p]) or 'none'}) make {totals[p]}")
        order = {p: i for i, p in enumerate(self.seating)}
        return dict(sorted(totals.items(), key=lambda item: order.get(item[0], 0)))

    def _showdown_after_moves(self, r: RoundState, event: Showdown) -> None:
        if not r.ended:
            if event.caller is not None:
                self._enter(r, Yaniv(event.caller, index=event.index, line=event.line, at=event.at))
                self._call(r, event, event.caller)
            else:
                totals = {p: self._total(r.hands.get(p, [])) for p in r.rotation}
                self._score(r, event, None, totals, "stock")
        elif event.caller != r.caller:
            self._claim(event, "claim.showdown", event.caller,
                        f"the showdown names {event.caller or 'no caller'}, but "
                        f"{r.caller or 'nobody'} ended the round")
        written = event.totals or {}
        for p in r.rotation:
            if p not in event.hands and p not in written and p not in self.out:
                self._claim(event, "claim.showdown", p,
                            f"the showdown shows no hand for {p}, who is still in")
        for p, cards in event.hands.items():
            held = r.hands.get(p, [])
            if sorted(cards) != sorted(held):
                self._claim(event, "claim.showdown", p,
                            f"{p} showed {format_cards(cards) or 'nothing'}, but holds "
                            f"{format_cards(held) or 'nothing'}")
        for p, total in written.items():
            held = r.hands.get(p, [])
            if p not in event.hands and total != self._total(held):
                self._claim(event, "claim.showdown", p,
                            f"{p}'s total was written as {total}, but {p} holds "
                            f"{format_cards(held) or 'nothing'} ({self._total(held)})")
            elif p in event.hands and total != self._total(event.hands[p]):
                self._claim(event, "claim.showdown", p,
                            f"{p}'s total was written as {total}, but the cards shown "
                            f"({format_cards(event.hands[p]) or 'none'}) make "
                            f"{self._total(event.hands[p])}")

    def _round_ended(self, event: RoundEnded) -> None:
        r = self._ending_round(event)
        if r is None:
            return
        r.closed = True
        score = r.score
        if event.points is not None:
            for p, written in event.points.items():
                right = score.points.get(p, 0) if score is not None else 0
                if written != right:
                    why = (self._points_reason(score, p) if score is not None else
                           f" (nothing ended round {r.number}: no Yaniv, showdown or exhausted "
                           "stock, so nobody scores)")
                    self._claim(event, "claim.points", p,
                                f"{p} was written down for {written} points in round {r.number}; "
                                f"the rules give {right}{why}")
        if event.scores is not None:
            self._check_scores(event, event.scores, f"after round {r.number}")

    def _points_reason(self, score: RoundScore, p: str) -> str:
        rules = self.rules
        if p == score.caller and score.assaf:
            hand = f"hand {score.totals[p]} + " if rules.assaf_adds_hand else ""
            n = len(score.assaf)
            if rules.assaf_multi_penalty is not None and n > 1:
                return (f" ({hand}{n} Assafers x {rules.assaf_multi_penalty} = "
                        f"{n * rules.assaf_multi_penalty}, assaf_multi_penalty="
                        f"{rules.assaf_multi_penalty})")
            return f" ({hand}Assaf penalty, assaf_penalty={rules.assaf_penalty})"
        if p == score.caller:
            return " (the caller scores 0)"
        if p in score.assaf:
            return f" (Assaf, assaf_scoring={rules.assaf_scoring})"
        return f" (hand total {score.totals.get(p, 0)})"

    def _check_scores(self, event: Event, written: dict[str, int], when: str) -> None:
        for p, value in written.items():
            right = self.scores.get(p, 0)
            diff = value - right
            if diff and diff != self.written_diff.get(p, 0):
                reduction = ""
                score = self.round.score if self.round else None
                if score is not None:
                    for who, frm, to in score.reductions:
                        if who == p:
                            reduction = f" ({frm} drops to {to}: reductions)"
                self._claim(event, "claim.scores", p,
                            f"{p}'s score {when} was written as {value}; the rules give "
                            f"{right}{reduction}")
            self.written_diff[p] = diff

    def _game_ended(self, event: GameEnded) -> None:
        self._end_pending_exhaustion()
        if self.winners is None:
            self._claim(event, "claim.winner", None,
                        "the game was declared over, but under these rules it is not decided "
                        f"(scores: {self._scores_text()})")
        elif event.winner is not None and set(event.winner) != set(self.winners):
            self._claim(event, "claim.winner", None,
                        f"the table named {', '.join(event.winner)} as the winner; the rules "
                        f"give {', '.join(self.winners)} (scores: {self._scores_text()})")
        if event.scores is not None:
            self._check_scores(event, event.scores, "at the end")

    def _scores_text(self) -> str:
        return ", ".join(f"{p} {s}" for p, s in self.scores.items())

    # --- the legal-move generator ----------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every move the player whose turn it is may make now (bots and tests use it).

        At the start of a turn: Yaniv (if the hand allows) and every legal
        throw; after a throw: every legal draw; after a stock draw: the slaps
        that are allowed (passing is always allowed then, and is no event).
        """
        r = self.round
        if r is None or r.ended or r.closed or not r.moves_checked or self.winners is not None:
            return []
        p = r.current
        hand = r.hands.get(p, [])
        rules = self.rules
        if r.phase == START:
            return self.start_moves(p)
        if r.phase == THREW:
            moves = []
            if r.stock_count > 0:
                top = r.stock[-1] if r.stock else None
                moves.append(Move("draw", p, source="stock", card=top))
            previous = r.pile[-2] if len(r.pile) >= 2 else None
            if previous is None or (rules.pile_needs_combo and r.throw_size < 2):
                return moves
            allowed = self._takeable(previous)
            for i in sorted(allowed):
                card = previous.cards[i] if i < len(previous.cards) else None
                if card is not None:
                    move = Move("draw", p, source="pile", card=card)
                    if move not in moves:
                        moves.append(move)
            meld = previous.meld
            if rules.joker_swap and meld is not None and meld.kind == "run":
                for i, natural in enumerate(meld.stands_for):
                    if natural is not None and natural in hand and i < len(previous.cards):
                        joker = previous.cards[i]
                        if joker is not None:
                            moves.append(Move("draw", p, source="pile", card=joker, swap=natural))
            return moves
        if (rules.slap_down and r.drew_from_stock and r.last_drawn is not None
                and len(hand) > 1 and r.pile[-1].meld is not None
                and extend(r.pile[-1].meld, r.last_drawn, rules) is not None):
            return [Move("slap", p, card=r.last_drawn)]
        return []

    def start_moves(self, player: str) -> list[Move]:
        """What ``player`` may do at the start of their turn: Yaniv, or any legal throw."""
        hand = self.round.hands.get(player, []) if self.round else []
        moves = [Move("discard", player, t) for t in legal_throws(hand, self.rules)]
        if self._total(hand) <= self.rules.yaniv_max:
            moves.insert(0, Move("yaniv", player))
        return moves

    # --- views -------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """A JSON-ready view of the state now (for the terminal and web viewers)."""
        r = self.round
        view: dict[str, Any] = {
            "scores": dict(self.scores),
            "out": list(self.out),
            "winners": list(self.winners) if self.winners else [],
            "round": None,
        }
        if r is not None:
            view["round"] = {
                "round": r.number,
                "moves_checked": r.moves_checked,
                "turn": r.current,
                "phase": ("start", "threw", "drew")[r.phase],
                "hands": {p: format_cards(h).split() for p, h in r.hands.items()},
                "totals": {p: self._total(h) for p, h in r.hands.items()},
                "pile": [layer.text().split() for layer in r.pile],
                "stock": r.stock_count,
                "ended": r.ended,
            }
        return view


#: the method that folds each event type (a class-level table, so that a replay holds
#: no reference cycle and dies by reference counting)
HANDLERS: dict[type[Event], Callable[[Replay, Any], None]] = {
    GameStarted: Replay._game_started,
    RoundStarted: Replay._round_started,
    Discard: Replay._discard,
    Draw: Replay._draw,
    Slap: Replay._slap,
    Yaniv: Replay._yaniv,
    Showdown: Replay._showdown,
    RoundEnded: Replay._round_ended,
    Reshuffle: Replay._reshuffle,
    GameEnded: Replay._game_ended,
    Note: Replay._note,
}
