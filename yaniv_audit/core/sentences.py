"""Every sentence of a ruling as data: a template's key and its params, as findings are.

The core writes no sentence: it says *which* sentence and with what (a round's story,
the verdict, the result, a move of the replay, a change of ``compare``); a shell says it
in its reader's language (:mod:`yaniv_audit.lang`: ``Words(code).phrase(p)``). The
English templates are here, marked for the catalogues; they join the findings' in
:data:`~yaniv_audit.core.messages.TEMPLATES`, filled by the same renderer.

Plain kinds: each kind of trouble has one name a person reads, in every language
(``WORDS``): a finding is a *rule broken* (``violation``), a *wrong claim* (``claim``:
a number the table wrote that the rules do not give) or *impossible* (``inconsistency``:
no real game could have been played so; its game's verdict is ``corrupt``). The codes
stay in ``--json`` and after a sentence, as a detail a person may skip.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .cards import card_name
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
    Withdraw,
    Yaniv,
)
from .messages import N_, TEMPLATES, WORDS, phrase

#: the person-facing name of each verdict and each kind of finding
KIND_WORDS: dict[str, str] = {
    "verdict.clean": N_("clean"),
    "verdict.claims": N_("wrong claims"),
    "verdict.violations": N_("rules broken"),
    "verdict.corrupt": N_("impossible"),
    "verdict.unreadable": N_("unreadable"),
    "kind.claim": N_("wrong claim"),
    "kind.violation": N_("rule broken"),
    "kind.inconsistency": N_("impossible"),
    "unfinished": N_("unfinished"),
}

SENTENCES: dict[str, str] = {
    # the ruling of one log
    "say.head": N_("{file}: {verdict:upword} under {rules} (game {game})"),
    "say.finding": N_("{kind:upword} at event {seq}: {text} [{code}]"),
    "say.finding_line": N_("{kind:upword} at event {seq} (line {line}): {text} [{code}]"),
    "say.unreadable": N_("{file}: {verdict:upword}: {text}"),
    "say.unreadable_at": N_("{file}: {verdict:upword}: line {line}: {text}"),
    "say.unreadable_event": N_("{file}: {verdict:upword}: event {line}: {text}"),
    # a log that cannot be read (validate, audit): where, what, and a near miss
    "unreadable:one": N_("{file}: {verdict}: {text}"),
    "unreadable:count": N_("{file}: {verdict}: {n:*problems}"),
    "unreadable:count_at_least": N_("{file}: {verdict}: at least {n:*problems}"),
    "unreadable:more": N_("and {n} more (the first {listed} are listed)"),
    "unreadable:more_stopped": N_(
        "and at least {n} more (the first {listed} are listed; the count stops at {most}, "
        "the rest of the log unread)"
    ),
    "unreadable:first_more": N_("{text} (and {n} more: yaniv-audit validate {file} lists them)"),
    "unreadable:first_more_stopped": N_(
        "{text} (and at least {n} more: yaniv-audit validate {file} lists them)"
    ),
    "unreadable:line": N_("line {line}"),
    "unreadable:event": N_("event {index}"),
    "unreadable:log": N_("log"),
    "unreadable:problem": N_("{at}: {text}"),
    "unreadable:problem_hint": N_("{at}: {text}; did you mean {hint}?"),
    "unreadable:of_event": N_("{kind}: {text}"),
    "unreadable:field": N_("{kind}: field {field}: {text}"),
    "unreadable:unknown_field": N_(
        "{kind}: unknown field {field} (fields starting with _ are allowed)"
    ),
    "unreadable:expected": N_("expected {what}"),
    "unreadable:expected_got": N_("expected {what}, got {got}"),
    "unreadable:not_seated": N_("{player} is not seated (the players are {seats})"),
    "unreadable:seated_twice": N_("{player} is seated twice"),
    "unreadable:unknown_type": N_("unknown event type {type}; expected one of {types}"),
    "unreadable:unknown_type_only": N_("unknown event type {type}"),
    "unreadable:missing_type": N_('missing field "type"; expected one of {types}'),
    "unreadable:first_event": N_("the first event must be game_started, got {type}"),
    "unreadable:cannot_read": N_("cannot read the file ({why})"),
    "unreadable:not_json": N_("not valid JSON: {why}"),
    "unreadable:not_utf8": N_("not valid UTF-8 {where}"),
    "unreadable:seq": N_("expected {index}, the event's 0-based position, got {seq}"),
    "unreadable:round_order": N_(
        "expected {expected} (rounds are numbered 1, 2, ... in order), got {got}"
    ),
    "unreadable:round_under_way": N_("expected {expected}, the round under way, got {got}"),
    "unreadable:move_no_deal": N_(
        'a move in round {round}, whose round_started has no "hands"; moves can only be '
        "replayed from a recorded deal"
    ),
    "unreadable:move_before_deal": N_(
        'a move before round 1; moves need a round_started with "hands"'
    ),
    "unreadable:seq_shifted": N_(
        "and {n:*later events} with seq off by the same amount (was a line added or taken out?)"
    ),
    "unreadable:param_expected_got": N_("{param}: expected {what}, got {got}"),
    "unreadable:players": N_("expected {min} to {max} players, got {got}"),
    "unreadable:long_line": N_(
        "the line is {size} bytes long; at most {most} bytes (1 MiB) are allowed"
    ),
    "unreadable:one_game": N_("a log holds one game, and it started at {at}"),
    "unreadable:stock_unknown_deal": N_(
        'required here: round {round}\'s round_started recorded no "stock", so the order of '
        "the stock is unknown"
    ),
    "unreadable:stock_unknown_drawn": N_(
        'required here: every card of round {round}\'s recorded "stock" was drawn and no '
        "reshuffle recorded a new order, so the order of the stock is unknown"
    ),
    "what:range": N_("a whole number from {lo} to {hi}"),
    "what:one_of": N_("one of {names}"),
    "what:or_null": N_("{what} or null"),
    "unreadable:unknown_preset": N_("unknown preset {name}: expected one of {names}"),
    "unreadable:not_a_log": N_(
        "not a JSON Lines log: neither this line nor most of the file's {lines} lines are "
        "JSON; a log is {shape}"
    ),
    "say.validate_ok": N_("{file}: {verdict} ({events:*events})"),
    # the rules a ruling was made under, and where they came from
    "say.rules_declared": N_("rules: {rules} — declared by the log"),
    "say.rules_given": N_("rules: {rules} — given with --rules"),
    "say.rules_variable": N_("rules: {rules} — from {where}"),
    "say.rules_house": N_("rules: {rules} — from the house file {where}"),
    # a round's story
    "say.round": N_("Round {round} (opened by {starter}, {how:word}): {story}"),
    "say.round_unscored": N_("not scored (no Yaniv, showdown or exhausted stock ended it)."),
    "say.round_stopped_strict": N_(
        "not scored: the replay stopped at event {seq} (--strict stops at the first finding)."
    ),
    "say.round_stopped": N_(
        "not scored: the replay stopped at event {seq} (the log is impossible from there on)."
    ),
    "say.round_unchecked": N_(
        "its numbers cannot be checked: the log has neither its hands nor its totals "
        "(no showdown). Scores: {scores:scores}."
    ),
    "say.round_scored": N_("{how}. Hands: {totals:scores}. Points: {points:scores}{drops:concat}."),
    "say.round_scores": N_("Scores: {scores:scores}."),
    "say.round_out": N_("Out: {players:and}."),
    "say.round_head": N_("Round {round}: {how}"),
    "say.round_head_open": N_("Round {round}: not scored yet"),
    "say.caller_out": N_(
        "{caller} called Yaniv but is out, so the call takes no part; lowest hand {winners:and}"
    ),
    "say.stock_out": N_("the stock ran out; lowest hand {winners:and}"),
    "say.assafed": N_("{caller} called Yaniv at {total} and was Assafed by {assaf:and}"),
    "say.caller_won": N_("{caller} called Yaniv at {total} and won"),
    "say.drop": N_("; {player} landed on {from} and drops to {to}"),
    "say.sentences": "{parts:sentences}",
    "say.word": "{word:word}",
    "say.raw": "{text}",
    "say.findings": "{parts:phrases}",
    "say.upword": "{word:upword}",
    # the result
    "say.won": N_("Result: {winners:and} won. Final scores: {scores:scores}."),
    "say.unfinished": N_("Result: unfinished. Scores so far: {scores:scores}."),
    # one line per log, and the summary of many
    "say.line": N_("{file}: {verdict:upword} under {rules}{found}; {result}"),
    "say.line_found": N_(" ({counts}; first: {code} at {at})"),
    "say.count": N_("{n} × {kind:word}"),
    "say.line_won": N_("{winners:and} won"),
    "say.line_unfinished": N_("unfinished after {rounds:*rounds}"),
    "say.at": N_("event {seq}"),
    "say.at_line": N_("event {seq} (line {line})"),
    "say.summary": N_(
        "{games:*games}{under}: {clean} clean, {claims} with wrong claims "
        "only, {violations} with rules broken, {corrupt} impossible, {unreadable} unreadable"
    ),
    "say.summary_under": N_(", {audits:*audits} under {sets:*rule sets} ({names:names})"),
    # audit --db's summary of the archive's games
    "say.summary_not_clean": N_("Not clean ({n:*games}):"),
    "say.summary_not_clean_audits": N_("Not clean ({n:*audits}):"),
    "say.summary_more": N_("and {n} more (--all prints every ruling line)"),
    "say.summary_players": N_("Players of the {n:*games} played by people, by wins:"),
    "say.summary_players_left": N_(
        "Players of the {n:*games} played by people, by wins ({left:and} left out):"
    ),
    "say.summary_simulated": N_("the {n:*simulated games}"),
    "say.summary_impossible": N_("the {n:*impossible games}"),
    "say.summary_more_players": N_(
        "and {n:*more players} (yaniv-audit report leaderboard lists them all)"
    ),
    "say.dask_done": N_(
        "audited {games:*games} ({events:*events}) under {sets:*rule sets} in {seconds} s "
        "on {workers:*workers}, {tasks:*tasks} ({rate} events/s; {startup} s more to "
        "start); results in {out}"
    ),
    "say.auditing_here": N_("auditing {n:*logs} under {rules} in this process"),
    "say.auditing_on": N_("auditing {n:*logs} under {rules} on {processes:*processes}"),
    "say.summary_hint": N_("every ruling line: {every}; more: yaniv-audit report NAME"),
    "say.summary_done": N_(
        "every game of {archive} is audited under {names:names} by this version already "
        "(--again audits them again)"
    ),
    # compare
    "say.compare_head": N_("game {game}: baseline {baseline}"),
    "say.compare_row": N_("winner: {who}  scores: {scores:scores}"),
    "say.compare_changes": N_("What changes:"),
    "say.compare_none": N_("Nothing changes: every rule set gives the same rounds and result."),
    "say.change": N_("under {rules}: {what}"),
    "say.change_verdict": N_("the verdict is {to:word} instead of {from:word}"),
    "say.change_round_played": N_("round {which} is played (only here)"),
    "say.change_rounds_played": N_("rounds {which} are played (only here)"),
    "say.change_round_dropped": N_("round {which} is not played"),
    "say.change_rounds_dropped": N_("rounds {which} are not played"),
    "say.change_round_winners": N_("round {round} is won by {to:and} instead of {from:and}"),
    "say.change_unscored": N_("round {round} is not scored"),
    "say.change_scored": N_("round {round} is scored"),
    "say.change_points": N_("in round {round} {what:phrases_comma}"),
    "say.change_scores": N_("after round {round}: {what:phrases_comma}"),
    "say.change_unfinished": N_("the game is not finished{why}"),
    "say.change_wins_over": N_("{who:and} {who:#wins|win} and the game is over{why}"),
    "say.change_wins": N_("{who:and} {who:#wins|win} instead of {from:and}{why}"),
    "say.change_final": N_("the final scores are {scores:scores}"),
    "say.change_findings_added": N_("findings added: {list:phrases_comma}"),
    "say.change_findings_removed": N_("findings removed: {list:phrases_comma}"),
    "say.finding_at": N_("{code} at event {seq}"),
    "say.finding_at_players": N_("{code} at event {seq} ({players:names})"),
    "say.why": ": {what}",
    "say.score_moved": N_("{player} {to} instead of {from}"),
    "say.points_new": N_("{player} scores {to} (nothing under the baseline)"),
    "say.points_gone": N_("{player} scores nothing (instead of {from})"),
    "say.points_moved": N_("{player} scores {to} instead of {from}"),
    # replay
    "say.replayed": N_("{file}: replayed under {rules}, the rules the log declares"),
    "say.replayed_given": N_(
        "{file}: replayed under {rules} ({given:word}), the rules the log declares"
    ),
    "say.replayed_other": N_(
        "{file}: replayed under {rules} ({given:word}); the log declares {declared}"
    ),
    "say.step_withdrawn": N_("(withdrawn by {by}, not counted) {text}"),
    "say.step_finding": N_("!! {kind:word}{where}: {text} [{code}]"),
    "say.step_line": N_(" (line {line})"),
    "say.step_table": N_("top throw: {top} | stock: {stock} | turn: {turn}"),
    "say.step_cards": N_("{count:*cards}"),
    "say.step_scores": N_("scores: {scores:scores}"),
    "say.step_scores_out": N_("scores: {scores:scores} | out: {out:names}"),
    "say.step_stopped": N_("(the replay stops here: the log is physically impossible)"),
    # a move, as the replay and the move list say it (Hebrew says it with a noun,
    # "דנה: זריקה 7S 7D", never with a verb that has a form for a man or a woman)
    "move.game_started": N_("game starts: {players:names} under {rules}"),
    "move.round_started": N_("round {round} dealt, {starter} opens"),
    "move.round_started_sheet": N_("round {round} dealt, {starter} opens (moves not recorded)"),
    "move.round_started_upcard": N_("round {round} dealt, {starter} opens, upcard {upcard:card}"),
    "move.discard": N_("{player} throws {cards:cards}"),
    "move.draw": N_("{player} draws {card:card} from the {source:word}"),
    "move.draw_hidden": N_("{player} draws a card from the {source:word}"),
    "move.swap": N_("{player} swaps {swap:card} for {card:card}"),
    "move.slap": N_("{player} slaps {card:card}"),
    "move.yaniv": N_("{player} calls Yaniv"),
    "move.yaniv_total": N_("{player} calls Yaniv ({total})"),
    "move.showdown": N_("showdown (caller {caller}): {shown:phrases}"),
    "move.showdown_none": N_("showdown (no caller): {shown:phrases}"),
    "move.hand": N_("{player}: {cards:cards}"),
    "move.total": N_("{player}: {total} (total)"),
    "move.round_ended": N_("round {round} written down"),
    "move.round_ended_scores": N_("round {round} written down: scores {scores:scores}"),
    "move.reshuffle": N_("the pile is reshuffled into a new stock"),
    "move.game_ended": N_("game ends, the table names {winners:names?nobody}"),
    "move.note": N_("note: {text}"),
    "move.note_by": N_("note by {player}: {text}"),
    "move.withdraw": N_("the table takes back {seqs:names}"),
    "move.withdraw_asked": N_("the table takes back {seqs:names} ({player} asked)"),
    "move.withdraw_why": N_("the table takes back {seqs:names}: {reason}"),
    "move.withdraw_asked_why": N_("the table takes back {seqs:names} ({player} asked): {reason}"),
}

SENTENCE_WORDS: dict[str, str] = {
    **KIND_WORDS,
    "moves checked": N_("moves checked"),
    "scoresheet only": N_("scoresheet only"),
    "stock": N_("stock"),
    "pile": N_("pile"),
    "--rules": N_("--rules"),
    "the house rules": N_("the house rules"),
    # audit --db's summary: the columns of its players (as the leaderboard's), and the
    # rule set of a game audited under the rules it declares
    "player": N_("player"),
    "games": N_("games"),
    "finished": N_("finished"),
    "wins": N_("wins"),
    "its declared rules": N_("its declared rules"),
    "the rules each declares": N_("the rules each declares"),
    # validate's verdict on a log it can read
    "ok": N_("ok"),
}

TEMPLATES.update(SENTENCES)
WORDS.update(SENTENCE_WORDS)


def verdict_word(verdict: str) -> str:
    """The key of a verdict's person-facing name (``corrupt``: impossible)."""
    return f"verdict.{verdict}"


def kind_word(kind: str) -> str:
    """The key of a finding kind's person-facing name (``violation``: rule broken)."""
    return f"kind.{kind}"


def round_story(
    r: Mapping[str, Any],
    stop: Mapping[str, Any] | None = None,
    strict: bool = False,
    name: Callable[[str], str] = str,
) -> dict[str, Any]:
    """One round of a ruling (a report's round) as data, the one story the command line
    and the game page say; ``stop``: the finding at which the replay stopped in it; each
    player written as ``name(player)`` (a page marks them there, to isolate them)."""
    how = "moves checked" if r["moves_checked"] else "scoresheet only"
    return phrase(
        "say.round",
        round=r["round"],
        starter=name(r["starter"]),
        how=how,
        story=_story(r, stop, strict, name),
    )


def _story(
    r: Mapping[str, Any],
    stop: Mapping[str, Any] | None,
    strict: bool,
    name: Callable[[str], str] = str,
) -> dict[str, Any]:
    def named(values: Mapping[str, int]) -> dict[str, int]:
        return {name(p): v for p, v in values.items()}

    if r["end"] is None:
        if stop is None and not r["moves_checked"]:  # a scoresheet round without its hands
            return phrase("say.round_unchecked", scores=named(r["scores"]))
        if stop is None:
            return phrase("say.round_unscored")
        cut = strict and stop["kind"] != "inconsistency"
        return phrase("say.round_stopped_strict" if cut else "say.round_stopped", seq=stop["seq"])
    drops = [
        phrase("say.drop", player=name(red["player"]), to=red["to"], **{"from": red["from"]})
        for red in r["reductions"]
    ]
    parts = [
        phrase(
            "say.round_scored",
            how=_how(r, name),
            totals=named(r["totals"]),
            points=named(r["points"]),
            drops=drops,
        ),
        phrase("say.round_scores", scores=named(r["scores"])),
    ]
    if r["out"]:
        parts.append(phrase("say.round_out", players=[name(p) for p in r["out"]]))
    return phrase("say.sentences", parts=parts)


def _how(r: Mapping[str, Any], name: Callable[[str], str] = str) -> dict[str, Any]:
    """How a scored round ended: who called, who won or Assafed (each player written as
    ``name(player)``)."""
    totals: dict[str, int] = r["totals"]
    caller = r["caller"]
    winners = [name(p) for p in r["winners"]]
    if caller is not None and caller not in totals:
        return phrase("say.caller_out", caller=name(caller), winners=winners)
    if r["end"] == "stock":
        return phrase("say.stock_out", winners=winners)
    if r["assaf"]:
        return phrase(
            "say.assafed",
            caller=name(caller),
            total=totals[caller],
            assaf=[name(p) for p in r["assaf"]],
        )
    return phrase("say.caller_won", caller=name(caller), total=totals[caller])


def round_head(r: Mapping[str, Any], name: Callable[[str], str] = str) -> dict[str, Any]:
    """A round in one line, as the recorder heads its table of the round: how it ended
    (the first words of its story), or that it is not scored yet."""
    if r["end"] is None:
        return phrase("say.round_head_open", round=r["round"])
    return phrase("say.round_head", round=r["round"], how=_how(r, name))


def result(final: Mapping[str, Any]) -> dict[str, Any]:
    """The last line of a ruling."""
    if final["finished"]:
        return phrase("say.won", winners=final["winners"], scores=final["scores"])
    return phrase("say.unfinished", scores=final["scores"])


def finding_line(f: Mapping[str, Any], line: int | None) -> dict[str, Any]:
    """A finding as a ruling says it: its kind's plain name, where, what, and its code
    last, as a detail."""
    where = {"seq": f["seq"]} if line is None else {"seq": f["seq"], "line": line}
    return phrase(
        "say.finding" if line is None else "say.finding_line",
        kind=kind_word(f["kind"]),
        text={"finding": f["code"], "params": f["params"]},
        code=f["code"],
        **where,
    )


def change_phrase(
    change: Mapping[str, Any], changes: Sequence[Mapping[str, Any]] = ()
) -> dict[str, Any]:
    """One change of a comparison (``compare``'s data: ``rules``, ``round``, ``field``,
    ``from``, ``to``, ``params``) as a sentence; ``changes``: all of its rule set's,
    which the final winner's sentence gives its reason from."""
    return phrase("say.change", rules=change["rules"], what=_clause(change, changes))


def _clause(change: Mapping[str, Any], changes: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    field, n = change["field"], change["round"]
    before, after, params = change["from"], change["to"], change.get("params", {})
    if field == "replay":  # the rule set cannot replay the log: why, never scores
        return phrase("change:unreplayable", **params)
    if field == "verdict":
        return phrase(
            "say.change_verdict", to=verdict_word(after), **{"from": verdict_word(before)}
        )
    if field == "round":
        first, last = params.get("first", n), params.get("last", n)
        many = last != first
        which = f"{first}-{last}" if many else str(first)
        if after:  # played under this rule set only
            return phrase(
                "say.change_rounds_played" if many else "say.change_round_played", which=which
            )
        return phrase(
            "say.change_rounds_dropped" if many else "say.change_round_dropped", which=which
        )
    if field == "winners" and n is not None:
        return phrase("say.change_round_winners", round=n, to=after, **{"from": before})
    if field == "points":
        if not after:
            return phrase("say.change_unscored", round=n)
        if not before:
            return phrase("say.change_scored", round=n)
        parts = [
            _points(p, before.get(p), after.get(p))
            for p in dict.fromkeys([*before, *after])
            if before.get(p) != after.get(p)
        ]
        return phrase("say.change_points", round=n, what=parts)
    if field == "scores" and n is not None:
        moved = params.get("players") or [
            p for p in dict.fromkeys([*before, *after]) if before.get(p) != after.get(p)
        ]
        return phrase(
            "say.change_scores",
            round=n,
            what=[
                phrase("say.score_moved", player=p, to=after.get(p), **{"from": before.get(p)})
                for p in moved
            ],
        )
    if field == "winners":
        first = next(
            (
                c
                for c in changes
                if c["field"] in ("points", "winners", "round") and c["round"] is not None
            ),
            None,
        )
        why = phrase("say.why", what=_clause(first)) if first is not None else ""
        if not params.get("finished", bool(after)):
            return phrase("say.change_unfinished", why=why)
        if not before:
            return phrase("say.change_wins_over", who=after, why=why)
        return phrase("say.change_wins", who=after, why=why, **{"from": before})
    if field == "scores":
        return phrase("say.change_final", scores=after)
    if field == "findings":
        parts = [
            phrase(key, list=_findings_at(params[name]))
            for name, key in (
                ("added", "say.change_findings_added"),
                ("removed", "say.change_findings_removed"),
            )
            if params.get(name)
        ]
        return phrase("say.findings", parts=parts)
    return phrase("say.raw", text=change["message"])


def _findings_at(findings: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each finding code@seq of a change once, with the players it is of (a score claim
    of four players at one event is one ``claim.scores at event 16 (anna, jonas, ...)``)."""
    players: dict[tuple[str, int], list[str]] = {}
    for f in findings:
        who = players.setdefault((f["code"], f["seq"]), [])
        if f.get("player") and f["player"] not in who:
            who.append(f["player"])
    return [
        phrase("say.finding_at_players", code=code, seq=seq, players=who)
        if who
        else phrase("say.finding_at", code=code, seq=seq)
        for (code, seq), who in players.items()
    ]


def _points(player: str, before: int | None, after: int | None) -> dict[str, Any]:
    if before is None:
        return phrase("say.points_new", player=player, to=after)
    if after is None:
        return phrase("say.points_gone", player=player, **{"from": before})
    return phrase("say.points_moved", player=player, to=after, **{"from": before})


def move_phrase(
    event: Event,
    seat: str | None = None,
    players: Sequence[str] = (),
    name: Callable[[str], str] = str,
) -> dict[str, Any]:
    """What an event records (as ``seat`` sees it, if given), as data; hands shown are
    listed in the order of ``players``, the seating; each player written as
    ``name(player)`` (a page marks them there, to isolate them)."""

    def card(c: Any) -> str | None:
        return None if c is None else card_name(c)

    def cards(cs: Any) -> list[str | None]:
        return [card(c) for c in cs]

    if isinstance(event, GameStarted):
        return phrase(
            "move.game_started", players=[name(p) for p in event.players], rules=event.rules.id
        )
    if isinstance(event, RoundStarted):
        base = {"round": event.round, "starter": name(event.starter)}
        if event.hands is None:
            return phrase("move.round_started_sheet", **base)
        if event.upcard is not None:
            return phrase("move.round_started_upcard", upcard=card(event.upcard), **base)
        return phrase("move.round_started", **base)
    if isinstance(event, Discard):
        return phrase("move.discard", player=name(event.player), cards=cards(event.cards))
    if isinstance(event, Draw):
        hidden = seat is not None and event.source == "stock" and event.player != seat
        who = name(event.player)
        if event.swap is not None and event.source == "pile":  # (on a stock draw: draw.swap)
            return phrase("move.swap", player=who, swap=card(event.swap), card=card(event.card))
        if event.card is None or hidden:
            return phrase("move.draw_hidden", player=who, source=event.source)
        return phrase("move.draw", player=who, card=card(event.card), source=event.source)
    if isinstance(event, Slap):
        return phrase("move.slap", player=name(event.player), card=card(event.card))
    if isinstance(event, Yaniv):
        if event.total is not None:
            return phrase("move.yaniv_total", player=name(event.player), total=event.total)
        return phrase("move.yaniv", player=name(event.player))

    def seated(values: Mapping[str, Any]) -> list[tuple[str, Any]]:
        """``values`` by player, in the order of the seating (anyone unseated last)."""
        order = {p: i for i, p in enumerate(players)}
        return sorted(values.items(), key=lambda item: order.get(item[0], len(order)))

    if isinstance(event, Showdown):
        shown = [
            phrase("move.hand", player=name(p), cards=cards(c)) for p, c in seated(event.hands)
        ] + [
            phrase("move.total", player=name(p), total=t)
            for p, t in seated(event.totals or {})
            if p not in event.hands
        ]
        if event.caller:
            return phrase("move.showdown", caller=name(event.caller), shown=shown)
        return phrase("move.showdown_none", shown=shown)
    if isinstance(event, RoundEnded):
        if event.scores:
            scores = {name(p): s for p, s in seated(event.scores)}
            return phrase("move.round_ended_scores", round=event.round, scores=scores)
        return phrase("move.round_ended", round=event.round)
    if isinstance(event, Reshuffle):
        return phrase("move.reshuffle")
    if isinstance(event, GameEnded):
        return phrase("move.game_ended", winners=[name(p) for p in event.winner or ()])
    if isinstance(event, Note):
        if event.player:
            return phrase("move.note_by", player=name(event.player), text=event.text)
        return phrase("move.note", text=event.text)
    if isinstance(event, Withdraw):
        key = (
            "move.withdraw" + ("_asked" if event.player else "") + ("_why" if event.reason else "")
        )
        extra: dict[str, Any] = {}
        if event.player:
            extra["player"] = name(event.player)
        if event.reason:
            extra["reason"] = event.reason
        return phrase(key, seqs=[str(s) for s in event.seqs], **extra)
    return phrase("say.raw", text=event.type)
