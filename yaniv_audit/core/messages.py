"""Findings as data: one message template per finding, filled from its ``params``.

The engine records a finding as its code and ``params`` (plain JSON values: player
names, cards in canonical form, numbers, and ``rule``, the rule parameters that
decided it); it writes no English. The message is made here, from
:data:`TEMPLATES`, for any reader: the report's English ``message``, a page in
Hebrew, the command line in German. Nothing reads a message back.

Which template: a code with one wording is its own key (``"turn.no_throw"``); a code
with several names the wording in ``params["case"]`` (``"draw.pile_card:middle"``). A
param that is itself a phrase (why a throw is illegal, where a card is) is a dict
whose ``"phrase"`` names its template, filled from the dict's other keys.

A placeholder is ``{name}`` or ``{name:spec}`` (``{rule[pickup]}`` reads one rule
parameter). The spec says how the value is written, so that every language writes
cards, lists and plurals its own way:

- ``card`` one card, ``cards`` a list of cards (``8H`` in the report, ``8♥`` on pages);
- ``names`` a list joined by commas, ``or`` / ``or_cards`` a list joined by the
  language's "or", ``and`` by its "and";
- ``scores`` a ``{player: score}`` mapping as ``dana 23, omer 40``;
- ``phrases`` a list of phrases, each filled from its own dict, joined by ``"; "``
  (``sentences``: by a space, ``phrases_comma``: by ``", "``, ``concat``: by nothing);
  a value ``{"finding": code, "params": ...}`` is a finding's message;
- ``word`` a value that is itself one of the words of :data:`WORDS` (``upword``: in
  capitals, where the language has them);
- ``#one|many`` picks by the count of the value (a number or a list's length), as
  English does (a catalogue may write its own ``#one|many`` too);
- ``*KEY`` says the count as the plural entry ``KEY`` of :data:`PLURALS` does (``{n}
  time``, ``{n} times``): a catalogue gives it every form its language has (Russian
  three, Korean one), picked by the language's own rule (its ``Plural-Forms``,
  ``ngettext``), so that no language writes "1 games" or "(раз: 3)";
- a trailing ``?WORD`` writes the word of :data:`WORDS` instead of a value that is
  ``None`` or empty, ``!WORD`` only instead of ``None``.

Other values are written as the report writes them: ``true``, ``false``, ``null``.

The English templates live here (the core reads no catalogue and imports no Babel);
every other sentence of a ruling is in :mod:`.sentences`. Their translations are in the
language layer's gettext catalogues (``yaniv_audit/lang/translations``, keyed by the
English template, as every other string of the pages and the command line), and a
reader passes its ``gettext`` to :func:`render` (:class:`yaniv_audit.lang.Words`).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cards import NAMES, Card

Translate = Callable[[str], str]
#: a catalogue's ngettext: the form of (singular, plural) for a count
Plural = Callable[[str, str, int], str]


def N_(text: str) -> str:
    """Marks a text for the catalogues (``python -m yaniv_audit.lang.catalogues update``):
    the one marker of the package (:mod:`yaniv_audit.lang` gives it to the shells)."""
    return text


def NP_(singular: str, plural: str) -> tuple[str, str]:
    """Marks a plural entry for the catalogues (``msgid_plural``): its English forms."""
    return singular, plural


def _same(text: str) -> str:
    return text


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


#: a count said with its noun, by key (``{count:*times}``): each language's forms are in
#: its catalogue, picked by its plural rule; ``{n}`` is the count
PLURALS: dict[str, tuple[str, str]] = {
    "times": NP_("{n} time", "{n} times"),
    "things": NP_("{n} thing", "{n} things"),
    "findings": NP_("{n} finding", "{n} findings"),
    "games": NP_("{n} game", "{n} games"),
    "rounds": NP_("{n} round", "{n} rounds"),
    "cards": NP_("{n} card", "{n} cards"),
    "events": NP_("{n} event", "{n} events"),
    "problems": NP_("{n} problem", "{n} problems"),
    "points": NP_("{n} point", "{n} points"),
    "workers": NP_("{n} worker", "{n} workers"),
    "later events": NP_("{n} later event", "{n} later events"),
    "logs": NP_("{n} log", "{n} logs"),
    "processes": NP_("{n} process", "{n} processes"),
    "tasks": NP_("{n} task", "{n} tasks"),
    "audits": NP_("{n} audit", "{n} audits"),
    "rule sets": NP_("{n} rule set", "{n} rule sets"),
    "replays": NP_("{n} replay", "{n} replays"),
    "simulated games": NP_("{n} simulated game", "{n} simulated games"),
    "impossible games": NP_("{n} impossible game", "{n} impossible games"),
    "more players": NP_("{n} more player", "{n} more players"),
    "standard decks": NP_("{n} standard deck", "{n} standard decks"),
    "jokers": NP_("{n} joker", "{n} jokers"),
    # the word before a list of round numbers (no count: "of rounds 1, 3")
    "of rounds": NP_("of round", "of rounds"),
}


#: the English template of every finding (by ``code`` or ``code:case``) and phrase
TEMPLATES: dict[str, str] = {
    # the game and the players
    "game.over": N_(
        "the game was over after round {last_round} ({winners:names} won); later "
        "events do not count"
    ),
    "player.out": N_(
        "{player} is out (score {score}, score_limit={rule[score_limit]}, "
        "limit_rule={rule[limit_rule]}) but still takes part in round {round}"
    ),
    # withdrawals
    "log.withdraw:twice": N_("the withdrawal takes nothing back: it names {seq} twice"),
    "log.withdraw:itself": N_("the withdrawal takes nothing back: it names itself"),
    "log.withdraw:later": N_("the withdrawal takes nothing back: {seq} comes after it"),
    "log.withdraw:taken_back": N_(
        "the withdrawal takes nothing back: {seq} was already taken back (by {by})"
    ),
    "log.withdraw:not_entry": N_(
        "the withdrawal takes nothing back: {seq} is a {kind}, not an entry"
    ),
    "log.withdraw:not_latest": N_(
        "the withdrawal takes nothing back: it names {seqs:names}, but "
        "the latest entry still standing is {latest:names?none}"
    ),
    "log.withdraw:not_latest_many": N_(
        "the withdrawal takes nothing back: it names "
        "{seqs:names}, but the latest {count} entries still "
        "standing are {latest:names?none}"
    ),
    # turns
    "turn.order:round_over": N_(
        "round {round} is over; moves before the next round_started do not count"
    ),
    "turn.order:turn": N_("it was {expected}'s turn, not {player}'s"),
    "turn.no_throw": N_("{player} drew without throwing first"),
    "turn.no_draw": N_("{player} threw {cards:cards?cards} but did not draw"),
    "yaniv.timing": N_(
        "{player} called Yaniv after {after:word}; Yaniv is called only at the "
        "start of one's turn, before throwing"
    ),
    "discard.combo": N_("{player} threw {reading}"),
    # slaps
    "slap.not_allowed:before_draw": N_(
        "{player} slapped before drawing; a slap follows a stock draw"
    ),
    "slap.not_allowed:out_of_turn": N_(
        "{player} slapped {card:card} out of turn; a slap may "
        "only follow one's own draw from the stock"
    ),
    "slap.not_allowed:slap_down": N_(
        "{player} slapped {card:card}, but slap_down={rule[slap_down]}"
    ),
    "slap.not_allowed:no_stock_draw": N_(
        "{player} slapped {card:card}; a slap may only follow "
        "one's own draw from the stock "
        "(slap_down={rule[slap_down]})"
    ),
    "slap.not_allowed:not_drawn": N_(
        "{player} slapped {card:card}, which is not the card just "
        "drawn ({drawn:card?none}); only the card just drawn from "
        "the stock may be slapped"
    ),
    "slap.not_allowed:reasons": N_(
        "{player} slapped {card:card}, which is not allowed: {reasons:phrases}"
    ),
    "slap.no_match": N_(
        "{player} slapped {card:card}, which does not extend {layer:cards} "
        "(set_max={rule[set_max]}, run_max={rule[run_max]})"
    ),
    "slap.empties_hand": N_("{player} slapped their last card; a slap may not empty the hand"),
    # cards
    "card.not_in_hand": N_("{player} does not hold {missing:cards} (hand: {hand:cards?empty})"),
    "card.not_in_deck:named": N_(
        "{player} names {card:card}, which the deck does not have (jokers={rule[jokers]})"
    ),
    "card.not_in_deck": N_(
        "{at:word} holds {card:card}, which the deck does not have (jokers={rule[jokers]})"
    ),
    "card.too_many": N_(
        "{at:word} holds {count} copies of {card:card}; the deck has {allowed} "
        "(decks={rule[decks]})"
    ),
    "card.already_seen:stock": N_("{player} drew {card:card} from the stock, but {where}"),
    "card.already_seen:upcard": N_("{player} took {card:card} as the upcard, but {where}"),
    "card.already_seen:deduced": N_(
        "{player} took {card:card} as the upcard, but {where}; the "
        "upcard is {upcard:cards?already taken}, the one card in no "
        "hand and not in the stock"
    ),
    "card.not_on_pile:take": N_(
        "{player} took {card:card} from the pile, but it is not there: {where} ({previous})"
    ),
    "card.not_on_pile:swap": N_(
        "{player} swapped {swap:card} for {card:card}, but it is not on "
        "the pile: {where} ({previous})"
    ),
    # the deal
    "deal.hand_size": N_("{player} was dealt {dealt:*cards}; hand_size={rule[hand_size]}"),
    "deal.too_big": N_(
        "{hands} hands of {rule[hand_size]} and an upcard need {needed} cards; "
        "the deck holds {deck} (decks={rule[decks]}, jokers={rule[jokers]})"
    ),
    "deal.starter:round_winner": N_(
        "{player} opened round {round}, but {allowed:or} should "
        "have: round {last_round} was won by {winners:names} "
        "(starter={rule[starter]})"
    ),
    "deal.starter:caller": N_(
        "{player} opened round {round}, but {allowed:or} should have: "
        "{caller} called Yaniv in round {last_round} "
        "(starter={rule[starter]})"
    ),
    "deal.starter:next": N_(
        "{player} opened round {round}, but {allowed:or} should have: "
        "{last_starter} opened round {last_round} "
        "(starter={rule[starter]})"
    ),
    # the stock
    "stock.empty": N_("{player} drew from an empty stock"),
    "stock.mismatch:upcards_left": N_(
        "the recorded hands and stock leave {count} cards for "
        "the one upcard ({left:cards}) (decks={rule[decks]}, "
        "jokers={rule[jokers]})"
    ),
    "stock.mismatch:no_upcard_left": N_(
        "the recorded hands and stock leave no card for the "
        "upcard (decks={rule[decks]}, jokers={rule[jokers]})"
    ),
    "stock.mismatch:not_the_deck": N_(
        "the recorded hands, upcard and stock are not the deck: "
        "{left:cards} {left:#is|are} in no hand, not the upcard "
        "and not in the stock (decks={rule[decks]}, "
        "jokers={rule[jokers]})"
    ),
    "stock.mismatch:top": N_(
        "{player} drew {card:card} from the stock, but its top card is {top:card}"
    ),
    "stock.mismatch:unnamed": N_(
        "{player} drew from the stock without naming the card, and "
        "the stock's order is unknown to this replay"
    ),
    "stock.mismatch:reshuffle": N_(
        "the reshuffled stock ({stock:cards}) is not the pile below "
        "the last throw ({pile:cards?no card})"
    ),
    "stock.mismatch:reshuffle_upcard": N_(
        "the reshuffled stock ({stock:cards}) is not the pile "
        "below the last throw ({pile:cards?no card} and the "
        "unrecorded upcard)"
    ),
    "reshuffle.not_allowed:round_ends": N_(
        "the pile was reshuffled, but "
        "reshuffle={rule[reshuffle]}: the round ends when the "
        "stock runs out"
    ),
    "reshuffle.not_allowed:round_over": N_(
        "the pile was reshuffled after round {round} was "
        "over; a reshuffle comes only when the stock runs "
        "out during play"
    ),
    "reshuffle.not_allowed:stock_left": N_(
        "the pile was reshuffled while the stock still held {stock:*cards}"
    ),
    # draws from the pile
    "draw.pile_needs_combo": N_(
        "{player} drew from the pile after throwing {thrown:*cards} "
        "(pile_needs_combo={rule[pile_needs_combo]})"
    ),
    "draw.pile_card:middle": N_(
        "{player} took {card:card} from the middle of {layer:cards}; "
        "only {ends:or_cards} may be taken (pickup={rule[pickup]})"
    ),
    "draw.pile_card:own": N_(
        "{player} took {card:card} back from their own throw; a draw comes "
        "from the previous player's throw"
    ),
    "draw.pile_card:under": N_(
        "{player} took {card:card} as the upcard from under a later "
        "throw ({layer:cards}); only the previous throw "
        "({previous:cards!none}) may be taken from"
    ),
    "draw.pile_card:older": N_(
        "{player} took {card:card} from an older throw ({layer:cards}); "
        "only the previous throw ({previous:cards!none}) may be taken "
        "from"
    ),
    "draw.pile_card:slapped": N_(
        "{player} took {card:card}, which was slapped where no slap "
        "is allowed and lies beneath a throw; only the previous throw "
        "({previous:cards!none}) may be taken from"
    ),
    "draw.swap:stock": N_(
        "{player} drew from the stock and swapped {swap:card}; a joker swap "
        "takes the joker from the pile in place of the draw, so it is not made "
        "with a stock draw (the swap does not count)"
    ),
    "draw.swap:older": N_(
        "{player} swapped {swap:card} for {card:card} of an older throw "
        "({layer:cards}); a swap takes the joker from the previous throw only "
        "({previous})"
    ),
    "draw.swap:joker_swap": N_(
        "{player} swapped {swap:card} for {card:card}, but joker_swap={rule[joker_swap]}"
    ),
    "draw.swap:not_joker": N_("{player} swapped {swap:card} for {card:card}: it is not a joker"),
    "draw.swap:not_standing": N_(
        "{player} swapped {swap:card} for {card:card}: it does not "
        "stand for {swap:card} in {layer:cards}"
    ),
    # the end of a round
    "yaniv.threshold:hand": N_(
        "{player} called Yaniv at {total} ({hand:cards}); yaniv_max={rule[yaniv_max]}"
    ),
    "yaniv.threshold:written": N_(
        "{player} called Yaniv at {total} (the total written down); yaniv_max={rule[yaniv_max]}"
    ),
    "claim.yaniv_total:hand": N_("{player} announced {announced}, but {hand:cards} makes {total}"),
    "claim.yaniv_total:shown": N_(
        "{player} announced {announced}, but the showdown's {hand:cards} makes {total}"
    ),
    "claim.yaniv_total:written": N_(
        "{player} announced {announced}, but the showdown's total is {total}"
    ),
    "showdown.no_caller:reshuffle": N_(
        "the showdown names no caller, but only reshuffle=round_ends ends a round without a Yaniv"
    ),
    "showdown.no_caller:stock_left": N_(
        "the showdown names no caller, but the stock still "
        "holds {stock:*cards}: under "
        "reshuffle={rule[reshuffle]} only an exhausted stock "
        "ends a round without a Yaniv"
    ),
    "claim.showdown:no_hand": N_("the showdown shows no hand for {player}"),
    "claim.showdown:still_in": N_("the showdown shows no hand for {player}, who is still in"),
    "claim.showdown:caller": N_(
        "the showdown names {named} as the caller, but {caller} called Yaniv"
    ),
    "claim.showdown:ended_by": N_(
        "the showdown names {named:?no caller}, but {caller:?nobody} ended the round"
    ),
    "claim.showdown:hand": N_(
        "{player} showed {shown:cards?nothing}, but holds {held:cards?nothing}"
    ),
    "claim.showdown:total_shown": N_(
        "{player}'s total was written as {written}, but the cards "
        "shown ({shown:cards?none}) make {total}"
    ),
    "claim.showdown:repeated_caller": N_(
        "the showdown names {named:?no caller}, but the "
        "round's first showdown named {caller:?no caller}"
    ),
    "claim.showdown:repeated_hand": N_(
        "{player} showed {shown:cards?nothing}, but "
        "{first:cards?nothing} in the round's first showdown"
    ),
    "claim.showdown:repeated_total": N_(
        "{player}'s total was written as {written:!nothing}, "
        "but as {first:!nothing} in the round's first "
        "showdown"
    ),
    "claim.showdown:total_held": N_(
        "{player}'s total was written as {written}, but {player} "
        "holds {held:cards?nothing} ({total})"
    ),
    # the table's claims
    "claim.points:not_ended": N_(
        "{player} was written down for {written:*points} in round "
        "{round}; the rules give {right} (nothing ended round {round}: "
        "no Yaniv, showdown or exhausted stock, so nobody scores)"
    ),
    "claim.points:unchecked": N_(
        "{player} was written down for {written:*points} in round {round}; they "
        "cannot be checked: the log has neither the round's hands nor its totals "
        "(no showdown), so the replay counts {right}"
    ),
    "claim.points:assafers": N_(
        "{player} was written down for {written:*points} in round "
        "{round}; the rules give {right} ({assafers} Assafers x "
        "{rule[assaf_multi_penalty]} = {penalty}, "
        "assaf_multi_penalty={rule[assaf_multi_penalty]})"
    ),
    "claim.points:hand_assafers": N_(
        "{player} was written down for {written:*points} in round "
        "{round}; the rules give {right} (hand {hand} + {assafers} "
        "Assafers x {rule[assaf_multi_penalty]} = {penalty}, "
        "assaf_multi_penalty={rule[assaf_multi_penalty]})"
    ),
    "claim.points:assaf_penalty": N_(
        "{player} was written down for {written:*points} in round "
        "{round}; the rules give {right} (Assaf penalty, "
        "assaf_penalty={rule[assaf_penalty]})"
    ),
    "claim.points:hand_assaf_penalty": N_(
        "{player} was written down for {written:*points} in "
        "round {round}; the rules give {right} (hand {hand} + "
        "Assaf penalty, assaf_penalty={rule[assaf_penalty]})"
    ),
    "claim.points:caller": N_(
        "{player} was written down for {written:*points} in round {round}; "
        "the rules give {right} (the caller scores 0)"
    ),
    "claim.points:assaf": N_(
        "{player} was written down for {written:*points} in round {round}; "
        "the rules give {right} (Assaf, assaf_scoring={rule[assaf_scoring]})"
    ),
    "claim.points:hand": N_(
        "{player} was written down for {written:*points} in round {round}; "
        "the rules give {right} (hand total {hand})"
    ),
    "claim.scores:round": N_(
        "{player}'s score after round {round} was written as {written}; the rules give {right}"
    ),
    "claim.scores:round_reduced": N_(
        "{player}'s score after round {round} was written as "
        "{written}; the rules give {right} ({reduced_from} drops to "
        "{reduced_to}: reductions)"
    ),
    "claim.scores:end": N_(
        "{player}'s score at the end was written as {written}; the rules give {right}"
    ),
    "claim.scores:end_reduced": N_(
        "{player}'s score at the end was written as {written}; the "
        "rules give {right} ({reduced_from} drops to {reduced_to}: "
        "reductions)"
    ),
    "claim.scores:round_unchecked": N_(
        "{player}'s score after round {round} was written as {written}; it cannot be "
        "checked from round {unchecked[0]} on: the log has neither the hands nor the totals "
        "{unchecked:*of rounds} {unchecked:names}{checked:concat}"
    ),
    "claim.scores:end_unchecked": N_(
        "{player}'s score at the end was written as {written}; it cannot be checked from "
        "round {unchecked[0]} on: the log has neither the hands nor the totals "
        "{unchecked:*of rounds} {unchecked:names}{checked:concat}"
    ),
    "claim.winner:undecided": N_(
        "the game was declared over, but under these rules it is not "
        "decided (scores: {scores:scores})"
    ),
    "claim.winner:other": N_(
        "the table named {named:names} as the winner; the rules give "
        "{winners:names} (scores: {scores:scores})"
    ),
    "claim.scores:round_parts": N_(
        "{player}'s score after round {round} was written as {written}; the rules give "
        "{right} ({parts:phrases})"
    ),
    # phrases: the parts of a score claim that merges several differences
    "part:points": N_(
        "{by:signed} from the points of round {round} ({written} written, the rules give {right})"
    ),
    "part:step": N_("; in round {round}: {parts:phrases}"),
    "part:checked": N_("; the rounds that can be checked give {right}"),
    "part:sum": N_("{by:signed} from a wrong sum ({before} + {points} written as {written})"),
    # the ruling's first line, which a table reads aloud (the report's ruling)
    "ruling:clean": N_("Under {rules} every move and every number the table wrote is right."),
    "ruling:claims": N_(
        "Under {rules} every move is right, but the table wrote down {count:*things} "
        "the rules do not give: {disputes:phrases}."
    ),
    # the same, where some of the numbers cannot be checked (a round with no hands and
    # no totals): the rules do not confirm them, which does not say the table was wrong
    "ruling:claims_unchecked": N_(
        "Under {rules} every move is right, but the rules do not confirm {count:*things} "
        "the table wrote down: {disputes:phrases}."
    ),
    "ruling:violations": N_("Under {rules} the log breaks the rules {count:*times}."),
    "ruling:violations_claims_unchecked": N_(
        "Under {rules} the log breaks the rules {count:*times}, and the rules do not "
        "confirm {claims:*things} the table wrote down: {disputes:phrases}."
    ),
    "ruling:violations_claims": N_(
        "Under {rules} the log breaks the rules {count:*times}, and the "
        "table wrote down {claims:*things} the rules do not give: "
        "{disputes:phrases}."
    ),
    "ruling:corrupt": N_(
        "Under {rules} the log cannot be what happened: event {seq} is impossible."
    ),
    # phrases: one disputed number of the ruling, who is right and by which rule
    "dispute:points": N_("in round {round} {player}'s {right} is right, not {written}: {why}"),
    "dispute:unchecked": N_(
        "in round {round} {player}'s {written} cannot be checked (the log has neither "
        "the round's hands nor its totals)"
    ),
    "dispute:scores": N_("after round {round} {player}'s score is {right}, not {written}"),
    "dispute:scores_why": N_(
        "after round {round} {player}'s score is {right}, not {written}: {why}"
    ),
    "dispute:scores_unchecked": N_(
        "after round {round} {player}'s score of {written} cannot be checked (the log has "
        "neither the hands nor the totals {unchecked:*of rounds} {unchecked:names})"
    ),
    "dispute:scores_end_unchecked": N_(
        "at the end {player}'s score of {written} cannot be checked (the log has neither "
        "the hands nor the totals {unchecked:*of rounds} {unchecked:names})"
    ),
    "dispute:scores_end": N_("at the end {player}'s score is {right}, not {written}"),
    "dispute:scores_end_why": N_("at the end {player}'s score is {right}, not {written}: {why}"),
    "dispute:winner": N_("{winners:names} won, not {named:names}"),
    "dispute:undecided": N_("the game is not over under these rules"),
    "why:rules": N_("{rule:rules}"),
    "why:caller": N_("the caller scores 0"),
    "why:hand": N_("their hand counts"),
    "why:not_ended": N_("nothing ended the round"),
    "why:parts": N_("{parts:phrases}"),
    # the rule that decided a round of the ruling, and a change of compare
    "story:rule": N_("deciding rule: {rule:rules}"),
    "change:because": N_("because under {rules} {rule:rules}"),
    "change:unreplayable": N_("the log cannot be replayed: at event {seq}, {reason}"),
    "result:unreplayable": N_("cannot be replayed: at event {seq}, {reason}"),
    # phrases: where a card is
    "where:held": N_("{players:names} {players:#holds|hold} {card:card}"),
    "where:pile": N_("{card:card} lies on the pile (in {layer:cards})"),
    "where:stock": N_("{card:card} is in the stock"),
    "where:accounted": N_("every {card:card} of the deck is accounted for"),
    # phrases: why a slap is not allowed
    "slap:slap_down": N_("no slap is allowed (slap_down={rule[slap_down]})"),
    "slap:before_draw": N_("it comes before the slapper's draw"),
    "slap:out_of_turn": N_("it does not follow the slapper's own draw"),
    "slap:no_stock_draw": N_("the slapper's draw was not from the stock"),
    "slap:not_drawn": N_("it is not the card just drawn ({drawn:card?none})"),
    # phrases: the previous throw
    "previous:none": N_("there is no previous throw"),
    "previous:empty": N_("nothing is left of the previous throw"),
    "previous:is": N_("the previous throw is {cards:cards}"),
    # phrases: what a throw is (melds.reading)
    "meld:cards": N_("{cards:cards}: {why}"),
    "meld:empty": N_("an empty throw: a throw needs at least one card"),
    "meld:not_legal": N_("not a legal throw"),
    "meld:jokers_alone": N_(
        "a throw of jokers alone is not a set (jokers_in_sets={rule[jokers_in_sets]})"
    ),
    "meld:set_max": N_("a set has at most {rule[set_max]} cards (set_max={rule[set_max]})"),
    "meld:set_min": N_("a set needs at least {rule[set_min]} cards (set_min={rule[set_min]})"),
    "meld:joker_in_set": N_(
        "a joker may not stand in a set (jokers_in_sets={rule[jokers_in_sets]})"
    ),
    "meld:two_naturals": N_("{why}, and a run needs at least two natural cards"),
    "meld:wild_jacks": N_(
        "{why}; {jacks:cards} {jacks:#is a wild jack|are wild jacks} "
        "(wild_jacks={rule[wild_jacks]})"
    ),
    "meld:no_set_no_run": N_(
        "not a set, as its cards are of more than one rank (a set is "
        "{rule[set_min]} to {rule[set_max]} cards of one rank, "
        "set_min={rule[set_min]}, set_max={rule[set_max]}), and not a run: "
        "{why}"
    ),
    "meld:and_run_min": N_(
        "{why} (and a run needs at least {rule[run_min]} cards, run_min={rule[run_min]})"
    ),
    "meld:ranks_and_suits": N_(
        "cards of more than one rank are not a set, and cards of more than one suit are not a run"
    ),
    "meld:one_suit": N_("a run must be one suit"),
    "meld:repeats": N_("a run never repeats a rank ({card:card} twice)"),
    "meld:joker_in_run": N_(
        "a joker may not stand in a run (jokers_in_runs={rule[jokers_in_runs]})"
    ),
    "meld:run_min": N_("a run needs at least {rule[run_min]} cards (run_min={rule[run_min]})"),
    "meld:run_max": N_("a run has at most {rule[run_max]} cards (run_max={rule[run_max]})"),
    "meld:run_13": N_("a run has at most 13 cards: it never repeats a rank"),
    "meld:order": N_("a run must be placed in order, ascending or descending"),
    "meld:corner": N_("{ranks} goes round the corner (run_wrap={rule[run_wrap]})"),
    "meld:ace_high": N_("{ranks} needs the ace above the king (ace_high={rule[ace_high]})"),
    "meld:missing": N_(
        "{missing:cards} {missing:#is|are} missing and no joker fills {missing:#it|them}"
    ),
    "meld:gap_short": N_(
        "{missing:cards} lie between {low:card} and {high:card}, but only "
        "{placed:cards} {placed:#is|are} placed there"
    ),
    "meld:gap_none": N_(
        "nothing lies between {low:card} and {high:card}, but {placed:cards} "
        "{placed:#is|are} placed there"
    ),
    "meld:gap_long": N_(
        "only {missing:cards} {missing:#lies|lie} between {low:card} and "
        "{high:card}, but {placed:cards} {placed:#is|are} placed there"
    ),
    "meld:joker_below": N_(
        "the joker at the {at:word} would stand for a card below the ace "
        "(run_wrap={rule[run_wrap]})"
    ),
    "meld:joker_above": N_(
        "the joker at the {at:word} would stand for a card above the king "
        "(ace_high={rule[ace_high]})"
    ),
    "meld:jokers_below": N_(
        "the {jokers} jokers at the {at:word} would stand for cards below "
        "the ace (run_wrap={rule[run_wrap]})"
    ),
    "meld:jokers_above": N_(
        "the {jokers} jokers at the {at:word} would stand for cards above "
        "the king (ace_high={rule[ace_high]})"
    ),
    # rules fit (core/fit.py): the rule sets a game fits
    "fit:fits": N_("fits {rules}"),
    "fit:closest": N_(
        "no rule set tried makes the log clean; the closest is {rules}, with {count:*findings} left"
    ),
    "fit:or_more": N_("{low} or more"),
    "fit:changed": N_("changed from {start}: {names:names}"),
    "fit:because": N_("under {name}={value}, event {seq}: {message}"),
    "fit:left": N_("left: event {seq}: {message}"),
    "fit:open": N_("the log cannot tell (the starting values are kept): {names:names}"),
    "fit:replays": N_("{replays:*replays} of the log"),
}

#: a rule parameter's value in plain words (the rules page's, docs/rules.md), by
#: ``name=value`` (a choice, true or false, null, an empty table) or by ``name`` (a
#: number, as ``{value}``): what the ``rules`` spec writes before ``(name=value)``
RULE_WORDS: dict[str, str] = {
    "decks": N_("{value:*standard decks} shuffled together"),
    "jokers=0": N_("the deck has no jokers"),
    "jokers": N_("the deck has {value:*jokers} a deck"),
    "hand_size": N_("each player is dealt {value:*cards}"),
    "face_values=flat": N_("jacks, queens and kings count 10"),
    "face_values=ranked": N_("jacks count 11, queens 12, kings 13"),
    "joker_value": N_("a joker in hand counts {value}"),
    "wild_jacks=true": N_("jacks are wild"),
    "wild_jacks=false": N_("jacks are not wild"),
    "set_min": N_("a set needs at least {value} cards"),
    "set_max": N_("a set has at most {value} cards"),
    "run_min": N_("a run needs at least {value} cards"),
    "run_max": N_("a run has at most {value} cards"),
    "run_max=null": N_("a run may be as long as it goes"),
    "ace_high=true": N_("the ace may stand above the king"),
    "ace_high=false": N_("the ace is low only"),
    "run_wrap=true": N_("runs go round the corner"),
    "run_wrap=false": N_("runs do not go round the corner"),
    "jokers_in_runs=true": N_("a joker may stand in a run"),
    "jokers_in_runs=false": N_("a joker may not stand in a run"),
    "jokers_in_sets=true": N_("a joker may stand in a set"),
    "jokers_in_sets=false": N_("a joker may not stand in a set"),
    "pickup=ends": N_("only the first or the last card of the previous throw may be taken"),
    "pickup=any": N_("any card of the previous throw may be taken"),
    "pickup=ends_of_runs": N_("the ends of a run, or any card of a set, may be taken"),
    "pile_needs_combo=true": N_("the pile may be drawn from only after throwing two cards"),
    "pile_needs_combo=false": N_("the pile may be drawn from after any throw"),
    "slap_down=true": N_("a matching card may be slapped down after a stock draw"),
    "slap_down=false": N_("no card may be slapped down"),
    "joker_swap=true": N_("a joker may be swapped out of the previous run"),
    "joker_swap=false": N_("no joker may be swapped out of a run"),
    "reshuffle=keep_last_throw": N_("an empty stock is refilled from the pile"),
    "reshuffle=round_ends": N_("an empty stock ends the round and every hand counts"),
    "yaniv_max": N_("Yaniv may be called at {value} or less"),
    "assaf_on_tie=true": N_("a tie is an Assaf"),
    "assaf_on_tie=false": N_("a tie is no Assaf: the caller wins"),
    "assaf_penalty": N_("an Assafed caller is penalised {value} points"),
    "assaf_multi_penalty": N_("several Assafers penalise the caller {value} points each"),
    "assaf_multi_penalty=null": N_("several Assafers penalise the caller once"),
    "assaf_adds_hand=true": N_("an Assafed caller scores their hand and the penalty"),
    "assaf_adds_hand=false": N_("an Assafed caller scores the penalty alone"),
    "assaf_scoring=lowest_wins": N_(
        "on an Assaf the lowest Assafers score 0 and the others their hands"
    ),
    "assaf_scoring=all_count": N_("on an Assaf everyone but the caller scores their hand"),
    "assaf_scoring=others_zero": N_("on an Assaf only the caller scores"),
    "score_limit": N_("the score limit is {value}"),
    "limit_rule=exceed": N_("a player above the limit is out"),
    "limit_rule=reach": N_("a player who reaches the limit is out"),
    "game_end=elimination": N_("the last player still in wins"),
    "game_end=first_out": N_("the game ends when the first player goes out"),
    "game_end=rounds": N_("the game ends after a fixed number of rounds"),
    "rounds": N_("the game lasts {value} rounds"),
    "rounds=null": N_("the game has no fixed number of rounds"),
    "reductions": N_("a score that lands on a score of the table drops to its value"),
    "reductions={}": N_("no score drops"),
    "starter=round_winner": N_("the round's winner opens the next round"),
    "starter=next_seat": N_("the next seat opens the next round"),
    "starter=caller": N_("the caller opens the next round"),
    "starter=free": N_("anyone may open the next round"),
}


def rule_value(value: Any) -> str:
    """A rule parameter's value as a rule-set id writes it: ``true``, ``null``, ``5``,
    ``{100:50,200:100}`` (a table as the report holds it, or as pairs)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{v}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "{" + ",".join(f"{k}:{v}" for k, v in value) + "}"
    return str(value)


#: the words a template writes in place of a value (``?WORD``, ``!WORD``) or for a value
#: that is a word (``word``), by the value or word as the templates name it
WORDS: dict[str, str] = {
    "cards": N_("cards"),
    "empty": N_("empty"),
    "none": N_("none"),
    "nothing": N_("nothing"),
    "nobody": N_("nobody"),
    "no caller": N_("no caller"),
    "no card": N_("no card"),
    "already taken": N_("already taken"),
    "deal": N_("the deal"),
    "showdown": N_("the showdown"),
    "throwing": N_("throwing"),
    "drawing": N_("drawing"),
    "start": N_("start"),
    "end": N_("end"),
    "reshuffled stock": N_("the reshuffled stock"),
}
OR = N_(" or ")
AND = N_(" and ")
#: the joins of a list of phrases: sentences, a list, a run of clauses
_JOINS = {"sentences": " ", "phrases_comma": ", ", "concat": ""}
_SUITS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(card: str | None, suits: bool = False) -> str:
    """A card as a reader writes it: ``8H`` (the report's form) or ``8♥`` (the board's)."""
    if card is None:
        return "??"
    if not suits or card == "JK":
        return card
    rank = card[:-1]
    return ("10" if rank == "T" else rank) + _SUITS.get(card[-1], card[-1])


def template_key(code: str, params: Mapping[str, Any]) -> str:
    """The key of the template a finding of ``code`` with ``params`` is written with."""
    case = params.get("case")
    return code if case is None else f"{code}:{case}"


class _Formatter(string.Formatter):
    def __init__(self, gettext: Translate, suits: bool, plural: Plural | None = None) -> None:
        super().__init__()
        self.gettext, self.suits = gettext, suits
        # a catalogue's gettext brings its ngettext (a reader that passes only the one,
        # the pages, a fit's lines, still says "1 раз" and "5 раз")
        owner = getattr(gettext, "__self__", None)
        self.plural: Plural = plural or getattr(owner, "ungettext", None) or _english_plural

    def format_field(self, value: Any, format_spec: str) -> str:
        spec, fallback, only_none = format_spec, "", False
        for mark in "?!":
            if mark in spec:
                spec, fallback = spec.split(mark, 1)
                only_none = mark == "!"
                break
        if fallback and (value is None or (not only_none and not value)):
            return self.gettext(WORDS[fallback])
        if spec.startswith("*"):
            count = value if isinstance(value, int) else len(value)
            return self.plural(*PLURALS[spec[1:]], count).replace("{n}", str(count))
        if spec.startswith("#"):
            one, many = spec[1:].split("|")
            count = value if isinstance(value, int) else len(value)
            return one if count == 1 else many
        if spec == "card":
            return card_text(value, self.suits)
        if spec == "cards":
            return " ".join(card_text(c, self.suits) for c in value)
        if spec == "names":
            return ", ".join(map(str, value))
        if spec == "and":
            return self.gettext(AND).join(map(str, value))
        if spec == "upword":
            return self.gettext(WORDS[value]).upper()
        if spec in _JOINS:
            return _JOINS[spec].join(self.fill(item["phrase"], item) for item in value)
        if spec == "or":
            return self.gettext(OR).join(value)
        if spec == "or_cards":
            return self.gettext(OR).join(card_text(c, self.suits) for c in value)
        if spec == "phrases":
            return "; ".join(self.fill(item["phrase"], item) for item in value)
        if spec == "scores":
            return ", ".join(f"{p} {s}" for p, s in value.items())
        if spec == "word":
            return self.gettext(WORDS[value])
        if spec == "signed":
            return f"{value:+d}"
        if spec == "rules":
            return "; ".join(self.rule(name, v) for name, v in value.items())
        if isinstance(value, dict) and "phrase" in value:
            return self.fill(value["phrase"], value)
        if isinstance(value, dict) and "finding" in value:  # a finding within a sentence
            return self.fill(template_key(value["finding"], value["params"]), value["params"])
        if value is True or value is False:
            return "true" if value else "false"
        if value is None:
            return "null"
        return str(value)

    def rule(self, name: str, value: Any) -> str:
        """One rule parameter in plain words, then its id: ``a tie is an Assaf
        (assaf_on_tie=true)``."""
        written = rule_value(value)
        words = RULE_WORDS.get(f"{name}={written}") or RULE_WORDS.get(name)
        if words is None:
            return f"{name}={written}"
        return f"{self.vformat(self.gettext(words), (), {'value': value})} ({name}={written})"

    def fill(self, key: str, params: Mapping[str, Any]) -> str:
        return self.vformat(self.gettext(TEMPLATES[key]), (), params)


_ENGLISH = _Formatter(_same, suits=False)


def render(
    code: str,
    params: Mapping[str, Any],
    gettext: Translate | None = None,
    *,
    suits: bool = False,
    plural: Plural | None = None,
) -> str:
    """The message of a finding of ``code`` with ``params``: English with canonical cards
    unless a reader's ``gettext`` (its catalogue, and ``plural`` its ngettext) and
    ``suits`` (8♥) are given."""
    formatter = (
        _ENGLISH if gettext is None and not suits else _Formatter(gettext or _same, suits, plural)
    )
    return formatter.fill(template_key(code, params), params)


def rule_text(
    rule: Mapping[str, Any], gettext: Translate | None = None, *, suits: bool = False
) -> str:
    """Rule parameters in plain words, each with its id: ``a tie is an Assaf
    (assaf_on_tie=true)``, in English unless a reader's ``gettext`` is given."""
    formatter = _ENGLISH if gettext is None and not suits else _Formatter(gettext or _same, suits)
    return "; ".join(formatter.rule(name, value) for name, value in rule.items())


def phrase(key: str, **params: Any) -> dict[str, Any]:
    """A param that is itself a phrase: the template ``key`` filled from ``params``."""
    return {"phrase": key, **params}


def render_phrase(value: Mapping[str, Any]) -> str:
    """A phrase param in English, with canonical cards."""
    return _ENGLISH.fill(value["phrase"], value)


def rule_of(value: Mapping[str, Any]) -> dict[str, Any]:
    """The rule parameters a phrase and the phrases within it name, as one ``rule``."""
    rule: dict[str, Any] = {}
    for item in value.values():
        if isinstance(item, Mapping) and "phrase" in item:
            rule.update(rule_of(item))
    rule.update(value.get("rule", {}))
    return rule


def names(cards: Sequence[Card | None]) -> list[str | None]:
    """Cards as params hold them: canonical names (``None``, a card nobody recorded)."""
    return [None if c is None else NAMES[c] for c in cards]


def player_names(players: Sequence[str]) -> str:
    """Players in the English of the report's messages: ``ana and ben``, ``nobody``."""
    return " and ".join(players) if players else "nobody"
