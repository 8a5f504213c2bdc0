"""What every part of the replay shares: the game's state and the findings.

:class:`ReplayBase` holds the state of the game (the rule set and what follows
from it, the seats, the scores, who is out, the round under way, the findings and
the records of the rounds) and the steps every part takes: recording a finding,
ignoring what comes after the game is decided, a player who is out, a hand's
total, taking cards from a hand, cards against the deck. The parts of the fold
(``deal``, ``turns``, ``pile``, ``ending``, ``claims``, ``moves``) subclass it, and
:class:`~yaniv_audit.core.engine.Replay` puts them together.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ..cards import NAMES, Card, card_values, deck_counts, hand_total
from ..errors import InconsistentLogError
from ..events import (
    Discard,
    Draw,
    Event,
    GameStarted,
    Reshuffle,
    RoundEnded,
    RoundStarted,
    Withdrawals,
    Yaniv,
)
from ..messages import names
from ..rules import RuleSet
from .state import (
    CLAIM,
    INCONSISTENCY,
    VIOLATION,
    Finding,
    Layer,
    RoundRecord,
    RoundState,
    StopReplay,
)


class ReplayBase:
    """The state of a game being replayed, and what every part of the fold shares."""

    # The steps one part of the fold takes from another (declared here for the type
    # checker; each is defined by the part named, and Replay has them all).
    #: turns: the round a move belongs to, or None when it is not replayed
    _move_round: Callable[[Event], RoundState | None]
    #: turns: the turn passes to the next player still in
    _advance: Callable[[RoundState], None]
    #: turns: the next player still in after ``player`` (cached in the round's next_seat)
    _next_player: Callable[[RoundState, str], str]
    #: turns: settle whose turn a move is (a slap settles none)
    _enter: Callable[[RoundState, Discard | Draw | Yaniv], None]
    #: pile: the stock's last card was drawn and the turn is over
    _exhaust: Callable[[Reshuffle | None], None]
    #: pile: under round_ends, the turn that emptied the stock ended the round
    _end_pending_exhaustion: Callable[[], None]
    #: pile: which positions of a throw the next player may take
    _takeable: Callable[[Layer], Sequence[int]]
    #: ending: score the round that ended (caller None: the stock ran out)
    _score: Callable[[RoundState, Event | None, str | None, dict[str, int], str], None]
    #: ending: the round a showdown or round_ended closes, its pending stock end applied
    _ending_round: Callable[[Event], RoundState | None]

    def __init__(self, game: GameStarted, rules: RuleSet, *, strict: bool = False) -> None:
        self.game = game
        self.rules = rules
        self.strict = strict
        self.values = card_values(rules)
        self.counts = deck_counts(rules)
        self.deck_size = sum(self.counts)
        #: the deck, every copy of every card, sorted
        self.deck = [card for card, n in enumerate(self.counts) for _ in range(n)]
        self.seating: tuple[str, ...] = game.players
        self.scores: dict[str, int] = dict.fromkeys(self.seating, 0)
        self.out: list[str] = []
        self.findings: list[Finding] = []
        self.records: list[RoundRecord] = []
        self.round: RoundState | None = None
        self.winners: tuple[str, ...] | None = None
        self.closing_allowed: set[str] = set()
        self.game_over_reported = False
        self.written_diff: dict[str, int] = {}
        #: the scoresheet rounds that ended with neither hands nor totals: the replay
        #: counts them 0 and cannot check a score written after them
        self.unchecked: list[int] = []
        #: what the log's withdrawals take back (set by run, or by a caller folding the
        #: standing events one by one); None: the log has none
        self.withdrawals: Withdrawals | None = None

    @property
    def finished(self) -> bool:
        return self.winners is not None

    @property
    def still_in(self) -> list[str]:
        return [p for p in self.seating if p not in self.out]

    # --- findings ----------------------------------------------------------

    def _find(
        self, event: Event, kind: str, code: str, player: str | None, params: dict[str, Any]
    ) -> None:
        finding = Finding(
            event.index, self.round.number if self.round else None, player, kind, code, params
        )
        self.findings.append(finding)
        if kind == INCONSISTENCY:
            raise InconsistentLogError(finding)
        if self.strict:
            raise StopReplay

    def _violation(self, event: Event, code: str, player: str | None, /, **params: Any) -> None:
        """Record a violation of ``code``; ``params`` fill its template (messages.py)."""
        self._find(event, VIOLATION, code, player, params)

    def _impossible(self, event: Event, code: str, player: str | None, /, **params: Any) -> None:
        self._find(event, INCONSISTENCY, code, player, params)

    def _claim(self, event: Event, code: str, player: str | None, /, **params: Any) -> None:
        self._find(event, CLAIM, code, player, params)

    def _rule(self, *names: str) -> dict[str, Any]:
        """The rule parameters ``names`` with their values, as a finding's ``rule`` param."""
        rules = self.rules
        return {name: getattr(rules, name) for name in names}

    def _game_over(self, event: Event) -> bool:
        """True if the event comes after the game was decided (reported once, not replayed)."""
        if self.winners is None:
            return False
        name = event.type
        if name in self.closing_allowed and not (
            isinstance(event, RoundEnded) and event.round != self.records[-1].round
        ):
            if name == "round_ended":
                self.closing_allowed.clear()
            elif name != "showdown" or self.round is None or self.round.moves_checked:
                self.closing_allowed.discard(name)  # a scoresheet's repeat is compared instead
            return False
        if isinstance(event, RoundStarted):
            self.closing_allowed.clear()  # the deciding round's closing can come no more
        if not self.game_over_reported:
            self.game_over_reported = True
            self._violation(
                event,
                "game.over",
                getattr(event, "player", None),
                last_round=self.records[-1].round,
                winners=list(self.winners),
            )
        return True

    # --- what the parts share -----------------------------------------------

    def _player_out(self, event: Event, player: str) -> None:
        r = self.round
        assert r is not None
        if player in r.out_reported:
            return
        r.out_reported.add(player)
        self._violation(
            event,
            "player.out",
            player,
            player=player,
            score=self.scores[player],
            round=r.number,
            rule=self._rule("score_limit", "limit_rule"),
        )

    def _total(self, cards: Sequence[Card]) -> int:
        return hand_total(cards, self.values)

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
            for card in missing:
                self._check_in_deck(event, card, player)
            self._impossible(
                event,
                "card.not_in_hand",
                player,
                player=player,
                missing=names(sorted(missing.elements())),
                hand=names(hand),
            )

    def _check_in_deck(self, event: Event, card: Card, player: str) -> None:
        """A card the rule set's deck does not have is the first impossibility of an event
        (docs/log-format.md: before a card out of place, already seen or not on the pile)."""
        if self.counts[card] == 0:
            self._impossible(
                event,
                "card.not_in_deck",
                player,
                case="named",
                player=player,
                card=NAMES[card],
                rule=self._rule("jokers"),
            )

    def _check_counts(self, event: Event, cards: Counter[Card], at: str) -> None:
        """The cards ``at`` the deal, the showdown or the reshuffled stock, against the deck's
        copies: code by code across the whole event (docs/log-format.md), a card the deck
        does not have before too many copies of another, wherever each lies."""
        counts = self.counts
        over = [card for card, n in cards.items() if n > counts[card]]
        if not over:
            return
        for card in over:
            if counts[card] == 0:
                self._impossible(
                    event,
                    "card.not_in_deck",
                    None,
                    at=at,
                    card=NAMES[card],
                    rule=self._rule("jokers"),
                )
        card = over[0]
        self._impossible(
            event,
            "card.too_many",
            None,
            at=at,
            count=cards[card],
            card=NAMES[card],
            allowed=counts[card],
            rule=self._rule("decks"),
        )
