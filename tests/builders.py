"""Writing small logs in tests the way a recorder would: one JSON object per event."""

from __future__ import annotations

import json
from typing import Any

from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.cards import NAMES, deck_counts, parse_card
from yaniv_audit.core.events import Log
from yaniv_audit.core.rules import parse_rules, rules_from_mapping
from yaniv_audit.io.codec import parse_jsonl


def cards(text: str) -> list[str]:
    return text.split()


class LogBuilder:
    """Events of one game, appended in order; ``audit()`` replays them."""

    def __init__(
        self, players: tuple[str, ...] = ("dana", "lior", "omer"), rules: Any = "israeli"
    ) -> None:
        self.players = players
        self.rules = rules
        self.events: list[dict[str, Any]] = [
            {
                "type": "game_started",
                "format": "yaniv-log/1",
                "players": list(players),
                "rules": rules,
            }
        ]

    def add(self, **event: Any) -> LogBuilder:
        self.events.append({k: v for k, v in event.items() if v is not None})
        return self

    def deal(
        self,
        round: int,
        starter: str,
        hands: dict[str, str] | None = None,
        upcard: str | None = None,
        stock: str | None = None,
        *,
        rest: bool = True,
    ) -> LogBuilder:
        """A round_started. ``stock`` names the top of the stock; with ``rest`` the rest of
        the deck follows it in deck order, as a recorded stock is the whole stock."""
        dealt = {p: cards(h) for p, h in hands.items()} if hands is not None else None
        pile = cards(stock) if stock is not None else None
        if pile is not None and dealt is not None and rest:
            pile += rest_of_deck(
                self.rules,
                [*(c for h in dealt.values() for c in h), *pile, *([upcard] if upcard else [])],
            )
        return self.add(
            type="round_started",
            round=round,
            starter=starter,
            hands=dealt,
            upcard=upcard,
            stock=pile,
        )

    def discard(self, player: str, thrown: str) -> LogBuilder:
        return self.add(type="discard", player=player, cards=cards(thrown))

    def draw(
        self, player: str, source: str = "stock", card: str | None = None, swap: str | None = None
    ) -> LogBuilder:
        return self.add(type="draw", player=player, source=source, card=card, swap=swap)

    def turn(
        self, player: str, thrown: str, source: str = "stock", card: str | None = None
    ) -> LogBuilder:
        return self.discard(player, thrown).draw(player, source, card)

    def slap(self, player: str, card: str) -> LogBuilder:
        return self.add(type="slap", player=player, card=card)

    def yaniv(self, player: str, total: int | None = None) -> LogBuilder:
        return self.add(type="yaniv", player=player, total=total)

    def showdown(self, caller: str | None, hands: dict[str, str]) -> LogBuilder:
        self.events.append(
            {"type": "showdown", "caller": caller, "hands": {p: cards(h) for p, h in hands.items()}}
        )
        return self

    def ended(
        self, round: int, points: dict[str, int] | None = None, scores: dict[str, int] | None = None
    ) -> LogBuilder:
        return self.add(type="round_ended", round=round, points=points, scores=scores)

    def reshuffle(self, stock: str | None = None) -> LogBuilder:
        return self.add(type="reshuffle", stock=cards(stock) if stock is not None else None)

    def game_ended(self, winner: Any = None, scores: dict[str, int] | None = None) -> LogBuilder:
        return self.add(type="game_ended", winner=winner, scores=scores)

    def note(self, text: str) -> LogBuilder:
        return self.add(type="note", text=text)

    def jsonl(self) -> bytes:
        return "\n".join(json.dumps(e, ensure_ascii=False) for e in self.events).encode()

    def log(self) -> Log:
        return parse_jsonl(self.jsonl(), "test.jsonl")

    def audit(self, rules: str | None = None, strict: bool = False) -> dict[str, Any]:
        return audit_log(self.log(), parse_rules(rules) if rules else None, strict=strict)


def rest_of_deck(rules: Any, used: list[str]) -> list[str]:
    """The cards of the rules' deck that ``used`` leaves, in deck order."""
    rule_set = parse_rules(rules) if isinstance(rules, str) else rules_from_mapping(rules)
    left = list(deck_counts(rule_set))
    for name in used:
        left[parse_card(name)] -= 1
    return [NAMES[c] for c in range(len(left)) for _ in range(max(left[c], 0))]


def codes(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"]]


def findings(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


# A standard deal for three players used across tests.
HANDS = {
    "dana": "AH 2H 3H 4C 5C",  # 15
    "lior": "7S 8S 9S TD 2C",  # 36
    "omer": "AD AS 2D 3D JK",  # 7
}
UPCARD = "KD"
STOCK = "6C 6H 6D QC 9H 8D 7D 5S 4S 3S 2S"


def standard(rules: Any = "israeli") -> LogBuilder:
    return LogBuilder(rules=rules).deal(1, "dana", HANDS, UPCARD, STOCK)


def tie_dispute() -> LogBuilder:
    """Omer calls at 6 and dana shows 6 too; the sheet scores it as an Assaf on a tie, so
    under assaf_on_tie=false two points at one event are wrong: dana's and omer's."""
    return (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("omer", 6)
        .showdown("omer", {"dana": "AH 5C", "lior": "KS 9D 2C", "omer": "3S 3D"})
        .ended(1, points={"dana": 0, "lior": 21, "omer": 36})
    )
