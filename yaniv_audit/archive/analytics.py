"""Reports over the archive: SQL over the derived tables (see :mod:`yaniv_audit.archive`).

Every report reads the audits of one rule set per game: the rules each game
declared (the default), or one rule set for all (``rules``), by its parameters;
given several rule sets, it reads each in turn and says which in a ``rules``
column. It reads the view ``latest_games``: a game continued after a pause is
stored in both versions; only the latest counts. Corrupt games (physically
impossible logs) are left out: their scores mean nothing. Games audited with
violations count as the engine rescored them.

Each query takes the same first parameters: ``$1`` the rule-set keys to read
(a NULL element: each game's declared rules), ``$2`` their labels (the
``rules`` column), ``$3`` a number of players or NULL (see each report), ``$4``
whether to count the games ``yaniv-audit simulate`` wrote (bots playing): every
report leaves them out unless asked, so that a club's figures are about its people.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.deal_odds import deal_odds
from ..core.rules import RuleSet, parse_rules
from . import SIMULATED, Archive


def _people(asked: str) -> str:
    """SQL: game ``g`` was played by people, or parameter ``asked`` asks for the
    simulated games too."""
    return (
        f"({asked} OR NOT EXISTS (SELECT 1 FROM events e "
        f"WHERE e.game_no = g.game_no AND e.seq = 0 AND {SIMULATED}))"
    )


#: SQL: game ``g`` was played by people, or $4 asks for the simulated games too
PEOPLE = _people("$4")


def _chosen(game_players: bool) -> str:
    """The CTE ``chosen``: the audits a report reads, one per game and rule set asked
    for, with the label of the rule set (``rules``) and the game's number of seated
    players (``seated``); ``game_players``: only games of $3 players when $3 is given;
    the simulated games only when $4 is true."""
    only = " AND ($3 IS NULL OR len(g.players) = $3)" if game_players else ""
    return f"""
chosen AS (
    SELECT w.rules, a.game_no, a.rules_key, a.finished, a.winners, a.verdict,
           g.game_id, g.fingerprint, len(g.players) AS seated
    FROM (SELECT unnest($1::VARCHAR[]) AS want, unnest($2::VARCHAR[]) AS rules) w
    CROSS JOIN latest_games g
    JOIN audits a ON a.game_no = g.game_no
                 AND a.rules_key = coalesce(w.want, g.rules_key)
    WHERE a.verdict <> 'corrupt' AND {PEOPLE}{only}
)"""


#: the audits a report reads (games of $3 players only, when $3 is given)
CHOSEN = _chosen(True)
#: the same, every game ($3 filters the rounds instead)
CHOSEN_ALL = _chosen(False)

#: the games ``yaniv-audit simulate`` wrote (bots playing)
BOTS = f"bots AS (SELECT e.game_no FROM events e WHERE e.seq = 0 AND {SIMULATED})"

#: per player, by wins: games played, finished, won (as the players report and the
#: summary of ``audit --db`` count them)
LEADERBOARD = f"""
WITH {CHOSEN},
calls AS (
    SELECT c.rules, r.caller AS player, count(*) AS yanivs,
           count(*) FILTER (WHERE r.assafed) AS assafed
    FROM rounds r JOIN chosen c USING (game_no, rules_key)
    WHERE r.caller IS NOT NULL AND r."end" = 'yaniv'
    GROUP BY ALL
),
made AS (
    SELECT rules, player, count(*) AS assafs
    FROM (SELECT c.rules, unnest(r.assafers) AS player
          FROM rounds r JOIN chosen c USING (game_no, rules_key) WHERE r.assafed)
    GROUP BY ALL
)
SELECT c.rules, s.player,
       count(*) AS games,
       count(*) FILTER (WHERE c.finished) AS finished,
       count(*) FILTER (WHERE s.won) AS wins,
       round(100.0 * count(*) FILTER (WHERE s.won)
             / nullif(count(*) FILTER (WHERE c.finished), 0), 1) AS win_pct,
       round(avg(s.score) FILTER (WHERE c.finished), 1) AS avg_final_score,
       any_value(coalesce(calls.yanivs, 0)) AS yanivs,
       any_value(coalesce(calls.assafed, 0)) AS assafed,
       any_value(coalesce(made.assafs, 0)) AS assafs_made
FROM standings s
JOIN chosen c USING (game_no, rules_key)
LEFT JOIN calls ON calls.rules = c.rules AND calls.player = s.player
LEFT JOIN made ON made.rules = c.rules AND made.player = s.player
GROUP BY c.rules, s.player
ORDER BY c.rules, wins DESC, win_pct DESC NULLS LAST, s.player
"""
#: the simulated games among those a report would read with $4 true (how many it
#: leaves out without)
SIMULATED_GAMES = f"""
WITH {CHOSEN}, {BOTS}
SELECT count(DISTINCT game_no) FROM chosen WHERE game_no IN (SELECT game_no FROM bots)
"""

ASSAF_RISK = f"""
WITH {CHOSEN_ALL}
SELECT c.rules, r.caller_total AS called_total,
       count(*) AS calls,
       count(*) FILTER (WHERE r.assafed) AS assafed,
       round(100.0 * count(*) FILTER (WHERE r.assafed) / count(*), 1) AS risk_pct
FROM rounds r JOIN chosen c USING (game_no, rules_key)
WHERE r."end" = 'yaniv' AND r.caller_total IS NOT NULL
  AND ($3 IS NULL OR r.players = $3)
GROUP BY ALL
ORDER BY c.rules, called_total
"""

FINDINGS = f"""
WITH {CHOSEN}
SELECT c.rules, f.code, f.kind, count(*) AS findings, count(DISTINCT f.game_no) AS games
FROM findings f JOIN chosen c USING (game_no, rules_key)
GROUP BY ALL
ORDER BY c.rules, findings DESC, f.code
"""

#: per rule set asked for ($1, never NULL here): each latest game compared between its
#: declared rules and that rule set, and how its winner or verdict changes (``change``,
#: NULL: it does not)
RULES_IMPACT_PAIRS = f"""
SELECT w.rules, g.game_id, g.rules_id AS declared, d.verdict AS declared_verdict,
       d.winners AS declared_winners, o.verdict AS other_verdict,
       o.winners AS other_winners,
       CASE WHEN o.verdict = 'corrupt' THEN 'unplayable'
            WHEN o.winners <> d.winners THEN 'winner'
            WHEN o.verdict <> d.verdict THEN 'verdict' END AS change,
       g.game_no
FROM (SELECT unnest($1::VARCHAR[]) AS want, unnest($2::VARCHAR[]) AS rules) w
CROSS JOIN latest_games g
JOIN audits d ON d.game_no = g.game_no AND d.rules_key = g.rules_key
JOIN audits o ON o.game_no = g.game_no AND o.rules_key = w.want
WHERE d.verdict <> 'corrupt' AND ($3 IS NULL OR len(g.players) = $3) AND {PEOPLE}
"""
#: the games that change; ``$5``: at most this many per rule set (the first by game_no;
#: NULL: all)
RULES_IMPACT = f"""
SELECT rules, game_id, declared, declared_verdict, declared_winners, other_verdict,
       other_winners, change
FROM ({RULES_IMPACT_PAIRS}) WHERE change IS NOT NULL
QUALIFY $5 IS NULL OR row_number() OVER (PARTITION BY rules ORDER BY game_no) <= $5
ORDER BY rules, game_no
"""
#: how many games each rule set of $1 was compared on, and how many change and how
RULES_IMPACT_SEEN = f"""
SELECT rules, count(*), count(*) FILTER (WHERE change = 'unplayable'),
       count(*) FILTER (WHERE change = 'winner'), count(*) FILTER (WHERE change = 'verdict')
FROM ({RULES_IMPACT_PAIRS}) GROUP BY rules
"""

ODDS = f"""
WITH {CHOSEN_ALL}
SELECT count(*) AS calls, count(*) FILTER (WHERE r.assafed) AS assafed
FROM rounds r JOIN chosen USING (game_no, rules_key)
WHERE r."end" = 'yaniv' AND r.caller_total = $5 AND ($3 IS NULL OR r.players = $3)
"""

#: per player: games played, finished, won; scored rounds and the average points a
#: round gave them (penalties included); Yaniv calls; Assafs made (of another's call)
#: and suffered (own call Assafed); eliminations (out in the end)
PLAYERS = f"""
WITH {CHOSEN},
per_round AS (
    SELECT c.rules, p.player,
           count(*) FILTER (WHERE p.points IS NOT NULL) AS rounds,
           avg(p.points) AS avg_points,
           count(*) FILTER (WHERE p.called) AS yanivs,
           count(*) FILTER (WHERE p.assafer) AS assafs_made,
           count(*) FILTER (WHERE p.assafed_caller) AS assafs_suffered
    FROM player_rounds p JOIN chosen c USING (game_no, rules_key)
    GROUP BY ALL
)
SELECT c.rules, s.player,
       count(*) AS games,
       count(*) FILTER (WHERE c.finished) AS finished,
       count(*) FILTER (WHERE s.won) AS wins,
       round(100.0 * count(*) FILTER (WHERE s.won)
             / nullif(count(*) FILTER (WHERE c.finished), 0), 1) AS win_pct,
       any_value(coalesce(pr.rounds, 0)) AS rounds,
       round(any_value(pr.avg_points), 2) AS avg_points,
       any_value(coalesce(pr.yanivs, 0)) AS yanivs,
       any_value(coalesce(pr.assafs_made, 0)) AS assafs_made,
       any_value(coalesce(pr.assafs_suffered, 0)) AS assafs_suffered,
       count(*) FILTER (WHERE s.out) AS eliminations
FROM standings s
JOIN chosen c USING (game_no, rules_key)
LEFT JOIN per_round pr ON pr.rules = c.rules AND pr.player = s.player
GROUP BY c.rules, s.player
ORDER BY c.rules, wins DESC, win_pct DESC NULLS LAST, s.player
"""

#: by the rule set audited under (rules_key) and the players seated: games, rounds,
#: rounds per game, how rounds ended (a Yaniv, Assafed or not; 'stock', without a Yaniv:
#: the stock ran out with reshuffle=round_ends, or a showdown names no caller; not
#: played to the end), and turns per round played to its
#: end whose moves are logged (a turn: a discard or a Yaniv call, from the typed events)
ROUNDS = f"""
WITH {CHOSEN},
games AS (
    SELECT rules, rules_key, seated, count(*) AS games,
           -- a number for the group: the join below carries only numbers (twice as fast)
           row_number() OVER (ORDER BY rules, rules_key, seated) AS kind
    FROM chosen GROUP BY rules, rules_key, seated
),
each AS (
    SELECT g.kind, r.game_no::BIGINT * 4294967296 + r.round AS spot,  -- one number a round
           r."end" IS NOT NULL AS ended,
           r."end" = 'yaniv' AS yaniv, r.assafed, r."end" = 'stock' AS stock
    FROM rounds r JOIN chosen c USING (game_no, rules_key)
    JOIN games g ON g.rules = c.rules AND g.rules_key = c.rules_key AND g.seated = c.seated
),
ended AS (
    SELECT e.kind, count(*) AS rounds,
           count(*) FILTER (WHERE e.yaniv) AS yaniv,
           count(*) FILTER (WHERE e.assafed) AS assafed,
           count(*) FILTER (WHERE e.stock) AS stock,
           count(*) FILTER (WHERE NOT e.ended) AS unfinished,
           avg(t.turns) FILTER (WHERE e.ended) AS turns
    FROM each e
    LEFT JOIN (SELECT game_no::BIGINT * 4294967296 + round AS spot, turns
               FROM round_turns) t USING (spot)
    GROUP BY e.kind
)
SELECT g.rules, g.rules_key, g.seated AS players, g.games,
       coalesce(e.rounds, 0) AS rounds,
       round(coalesce(e.rounds, 0) / g.games, 2) AS rounds_per_game,
       coalesce(e.yaniv, 0) AS yaniv, coalesce(e.assafed, 0) AS assafed,
       coalesce(e.stock, 0) AS stock, coalesce(e.unfinished, 0) AS unfinished,
       round(e.turns, 2) AS turns_per_round
FROM games g LEFT JOIN ended e USING (kind)
ORDER BY g.rules, g.rules_key, players
"""

#: draws by the rank of the card drawn (JK a joker; 'unknown': a stock draw whose card
#: the log does not say), from the stock and from the pile, most taken from the pile
#: first; the row 'all' counts every draw
PICKUPS = f"""
WITH {CHOSEN},
drawn AS (
    SELECT c.rules, d.source, d.card AS rank, d.draws
    FROM draw_cards d JOIN chosen c USING (game_no)
),
summed AS (
    SELECT rules, grouping(rank) AS every, rank,
           coalesce(sum(draws) FILTER (WHERE source = 'pile'), 0)::BIGINT AS pile,
           coalesce(sum(draws) FILTER (WHERE source = 'stock'), 0)::BIGINT AS stock,
           sum(draws)::BIGINT AS draws
    FROM drawn
    GROUP BY GROUPING SETS ((rules), (rules, rank))
)
SELECT rules, CASE WHEN every = 1 THEN 'all' ELSE rank END AS card, pile, stock,
       round(100.0 * pile / draws, 1) AS pile_pct
FROM summed
ORDER BY rules, every DESC, pile DESC, card
"""

#: by the players seated and the seat (1: the first player of game_started, as a table
#: counts; the archive's own ``seat`` columns count from 0): finished
#: games and wins, and the rounds opened from that seat (played to their end) and won
#: by the player who opened them
SEAT_ADVANTAGE = f"""
WITH {CHOSEN},
seats AS (
    SELECT c.rules, c.seated, s.seat,
           count(*) FILTER (WHERE c.finished) AS games,
           count(*) FILTER (WHERE s.won) AS wins
    FROM standings s JOIN chosen c USING (game_no, rules_key)
    GROUP BY ALL
),
openings AS (
    SELECT c.rules, c.seated, p.seat, count(*) AS rounds_opened,
           count(*) FILTER (WHERE p.won) AS opened_won
    FROM player_rounds p JOIN chosen c USING (game_no, rules_key)
    WHERE p.opened AND p.points IS NOT NULL
    GROUP BY ALL
)
SELECT s.rules, s.seated AS players, s.seat + 1 AS seat, s.games, s.wins,
       round(100.0 * s.wins / nullif(s.games, 0), 1) AS win_pct,
       coalesce(o.rounds_opened, 0) AS rounds_opened,
       coalesce(o.opened_won, 0) AS opened_won,
       round(100.0 * o.opened_won / nullif(o.rounds_opened, 0), 1) AS opened_win_pct
FROM seats s LEFT JOIN openings o USING (rules, seated, seat)
ORDER BY s.rules, players, s.seat
"""

#: by the rule set and the reduction (a score landing on reduced_from dropped to
#: reduced_to): how often, how often it saved the player from elimination (reduced_from
#: itself would have put them out: above score_limit, or at it with limit_rule=reach),
#: and Victor calls (the caller, Assafed, landed on the reduction)
#: ($5, $6, $7: each rule set's key, limit_rule and score_limit, from :data:`LIMITS`)
REDUCTIONS = f"""
WITH {CHOSEN},
limits AS (
    SELECT unnest($5::VARCHAR[]) AS rules_key, unnest($6::VARCHAR[]) AS limit_rule,
           unnest($7::INTEGER[]) AS score_limit
),
reduced AS (
    SELECT c.rules, c.rules_key, p.reduced_from, p.score_after AS reduced_to,
           p.assafed_caller AS victor,
           CASE WHEN l.limit_rule = 'reach' THEN p.reduced_from >= l.score_limit
                ELSE p.reduced_from > l.score_limit END AS saved
    FROM player_rounds p JOIN chosen c USING (game_no, rules_key)
    JOIN limits l USING (rules_key)
    WHERE p.reduced_from IS NOT NULL
)
SELECT rules, rules_key, reduced_from, reduced_to, count(*) AS reductions,
       count(*) FILTER (WHERE saved) AS saved,
       count(*) FILTER (WHERE victor) AS victor_calls,
       count(*) FILTER (WHERE victor AND saved) AS victor_saved
FROM reduced
GROUP BY ALL
ORDER BY rules, rules_key, reduced_from
"""

#: one audit of each rule set audited (the lowest game_no), whose report gives the rule
#: set's parameters: every audit of a rules_key has the same (the key is made of them)
ONE_AUDIT_EACH = "SELECT rules_key, min(game_no) FROM audits GROUP BY rules_key"
#: the limit_rule and score_limit of the report of audit ($1, $2)
LIMITS = """
SELECT json_extract_string(report, '$.rules.params.limit_rule'),
       CAST(json_extract(report, '$.rules.params.score_limit') AS INTEGER)
FROM audits WHERE game_no = $1 AND rules_key = $2
"""

#: findings by code and by player (NULL: a finding of no one player), most first
VIOLATIONS = f"""
WITH {CHOSEN}
SELECT c.rules, f.code, f.kind, f.player, count(*) AS findings,
       count(DISTINCT f.game_no) AS games
FROM findings f JOIN chosen c USING (game_no, rules_key)
GROUP BY ALL
ORDER BY c.rules, findings DESC, f.code, f.player NULLS LAST
"""

#: report name -> what it shows
#: the recorded deals of the latest version of each game, by the rules it declared
#: (``$1``: rule-set keys, a NULL element for every game; ``$2``: players seated; ``$3``:
#: the simulated games too)
DEALS = f"""
SELECT g.rules_id, g.rules_key, d.cards, d.ranks, d.run, d.total, count(*) AS hands
FROM deals d JOIN latest_games g USING (game_no)
WHERE ($1 IS NULL OR list_contains($1::VARCHAR[], g.rules_key))
  AND ($2 IS NULL OR len(g.players) = $2) AND {_people("$3")}
GROUP BY ALL
"""

REPORTS = {
    "players": "per player: games, finished, wins, win %, scored rounds, average points "
    "per round, Yaniv calls, Assafs made and suffered, eliminations",
    "rounds": "by rule set and players seated: games, rounds per game, how rounds ended "
    "(Yaniv, Assafed, stock, unfinished), turns per round",
    "pickups": "draws by the rank of the card: from the pile, from the stock, the pile's "
    "share; the ranks taken from the pile most first",
    "seat-advantage": "by players seated and seat: win rate, and the round win rate of the "
    "player who opened the round",
    "reductions": "each reduction: how often, how often it saved a player from "
    "elimination, Victor calls (an Assafed Yaniv landing on it)",
    "violations": "findings by code and by player, most first",
    "leaderboard": "players by wins: games, finished games, wins, win %, average final "
    "score, Yaniv calls, times Assafed, Assafs made",
    "assaf-risk": "for each hand total a Yaniv was called at: calls, how many were Assafed, "
    "the risk in %",
    "findings": "finding codes by how often they occur, and in how many games",
    "rules-impact": "the games whose winner or verdict changes under --rules R "
    "(against each game's declared rules)",
    "deal-odds": "the recorded deals beside their exact odds: per rank category, longest "
    "run and hand total, the hands observed, their share, the exact share "
    "and the hands expected",
    "house-rules": "per table or club (meta), else per players: the rule set their games "
    "fit together (rules fit), and the games that do not fit it",
}

_SQL = {
    "players": PLAYERS,
    "rounds": ROUNDS,
    "pickups": PICKUPS,
    "seat-advantage": SEAT_ADVANTAGE,
    "reductions": REDUCTIONS,
    "violations": VIOLATIONS,
    "leaderboard": LEADERBOARD,
    "assaf-risk": ASSAF_RISK,
    "findings": FINDINGS,
}


@dataclass(frozen=True, slots=True)
class Table:
    """A report's rows, with a line that sums it up."""

    name: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    summary: str
    #: rows left out (rules-impact with a ``limit``)
    more: int = 0
    #: simulated games left out (unless asked to count them)
    bots_left_out: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "report": self.name,
            "summary": self.summary,
            "columns": self.columns,
            "rows": [dict(zip(self.columns, row, strict=True)) for row in self.rows],
        }


RuleSets = RuleSet | None | Sequence[RuleSet | None]


def rule_sets_of(rules: RuleSets) -> list[RuleSet | None]:
    """One rule set (None: each game's declared rules) or several, as a list, once each."""
    if rules is None or isinstance(rules, RuleSet):
        return [rules]
    return list(dict.fromkeys(rules)) or [None]


def label(rules: RuleSet | None) -> str:
    """The ``rules`` column's name for a rule set."""
    return "declared" if rules is None else rules.id


def _under(rule_sets: Sequence[RuleSet | None]) -> str:
    if len(rule_sets) == 1:
        rules = rule_sets[0]
        return "each game's declared rules" if rules is None else f"rules {rules.id}"
    return "each of " + ", ".join(label(r) for r in rule_sets)


def _run(
    archive: Archive,
    sql: str,
    rule_sets: Sequence[RuleSet | None],
    players: int | None,
    simulated: bool,
    *extra: Any,
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Columns and rows of a report's SQL, rule set by rule set in the order asked;
    without the ``rules`` column when there is one rule set."""
    labels = [label(r) for r in rule_sets]
    columns, rows = archive.query(
        sql,
        [[None if r is None else r.key for r in rule_sets], labels, players, simulated, *extra],
    )
    if len(rule_sets) == 1:
        return columns[1:], [row[1:] for row in rows]
    order = {name: i for i, name in enumerate(labels)}
    return columns, sorted(rows, key=lambda row: order[row[0]])  # stable: each query's order


def report(
    archive: Archive,
    name: str,
    rules: RuleSets = None,
    players: int | None = None,
    limit: int | None = None,
    *,
    simulated: bool = False,
) -> Table:
    """Report ``name`` of :data:`REPORTS` under one rule set or several (the games must
    be audited under them; for rules-impact under the declared rules too). ``limit``:
    rules-impact lists at most that many games of each rule set (the summary counts all).
    ``simulated``: count the games bots played too (else every report leaves them out
    and its summary says how many: a club's figures are about its people)."""
    if name not in REPORTS:
        raise ValueError(f"unknown report {name!r}; expected one of {', '.join(REPORTS)}")
    rule_sets = rule_sets_of(rules)
    if name == "rules-impact":
        if None in rule_sets:
            raise ValueError("rules-impact needs --rules R: the rule set to compare with")
        table = _rules_impact(archive, rule_sets, players, limit, simulated)
    elif name == "deal-odds":
        table = _deal_odds(archive, rule_sets, players, simulated)
    elif name == "house-rules":
        from .house_rules import house_rules  # the engine's search: only for this report

        columns, rows = house_rules(archive, players, simulated)
        fitting = sum(row[2] for row in rows)
        summary = (
            f"{sum(row[1] for row in rows)} games in {len(rows)} groups; {fitting} fit "
            "their group's rule set"
        )
        table = Table(name, columns, rows, summary)
    else:
        table = _report(archive, name, rule_sets, players, simulated)
    if simulated:
        return table
    keys = [[None if r is None else r.key for r in rule_sets], [label(r) for r in rule_sets]]
    ((left,),) = archive.query(SIMULATED_GAMES, [*keys, players, True])[1]
    if not left:
        return table
    summary = f"{table.summary} (the {left} simulated game{'s' if left != 1 else ''} left out)"
    return Table(table.name, table.columns, table.rows, summary, table.more, left)


def _report(
    archive: Archive,
    name: str,
    rule_sets: list[RuleSet | None],
    players: int | None,
    simulated: bool,
) -> Table:
    """A report of :data:`_SQL`, with its summary."""
    under = _under(rule_sets)
    extra: tuple[Any, ...] = _limits(archive) if name == "reductions" else ()
    columns, rows = _run(archive, _SQL[name], rule_sets, players, simulated, *extra)
    col = {c: i for i, c in enumerate(columns)}
    who = f" with {players} players" if players else ""

    def total(column: str) -> int:
        return sum(row[col[column]] or 0 for row in rows)

    if name == "assaf-risk":
        summary = (
            f"{total('calls')} Yaniv calls{who + ' in the round' if who else ''}, "
            f"{total('assafed')} Assafed, under {under}"
        )
    elif name == "findings":
        summary = f"{total('findings')} findings of {len(rows)} kinds, under {under}"
    elif name in ("leaderboard", "players"):
        names = {row[col["player"]] for row in rows}
        summary = f"{len(names)} players, in games{who} under {under}"
    elif name == "rounds":
        summary = (
            f"{total('rounds')} rounds of {total('games')} games{who}: "
            f"{total('yaniv')} ended by a Yaniv ({total('assafed')} Assafed), "
            f"{total('stock')} by the stock, {total('unfinished')} unfinished, "
            f"under {under}"
        )
    elif name == "pickups":
        alls = [row for row in rows if row[col["card"]] == "all"]
        pile = sum(row[col["pile"]] for row in alls)
        stock = sum(row[col["stock"]] for row in alls)
        share = f" ({100 * pile / (pile + stock):.1f}%)" if pile + stock else ""
        summary = (
            f"{pile + stock} draws in games{who}: {stock} from the stock, "
            f"{pile} from the pile{share}, under {under}"
        )
    elif name == "seat-advantage":
        opened, won = total("rounds_opened"), total("opened_won")
        share = f" ({100 * won / opened:.1f}%)" if opened else ""
        summary = (
            f"the player who opened the round won {won} of {opened} rounds{share}, "
            f"in games{who} under {under}"
        )
    elif name == "reductions":
        summary = (
            f"{total('reductions')} reductions, {total('saved')} saved a player "
            f"from elimination, {total('victor_calls')} Victor calls (an Assafed "
            f"Yaniv landing on a reduction), in games{who} under {under}"
        )
    else:  # violations
        summary = (
            f"{total('findings')} findings, {len(rows)} by code and player, in "
            f"games{who} under {under}"
        )
    return Table(name, columns, rows, summary)


def _limits(archive: Archive) -> tuple[list[str], list[str | None], list[int | None]]:
    """The parameters of :data:`REDUCTIONS` (``$5``, ``$6``, ``$7``): each audited rule
    set's key, limit_rule and score_limit, read from the report of one of its audits
    (reading them from every report took most of the report's time)."""
    keys, rules, limits = [], [], []
    for key, game_no in archive.query(ONE_AUDIT_EACH)[1]:
        ((limit_rule, score_limit),) = archive.query(LIMITS, [game_no, key])[1]
        keys.append(key)
        rules.append(limit_rule)
        limits.append(score_limit)
    return keys, rules, limits


def _rules_impact(
    archive: Archive,
    rule_sets: list[RuleSet | None],
    players: int | None,
    limit: int | None,
    simulated: bool,
) -> Table:
    columns, rows = _run(archive, RULES_IMPACT, rule_sets, players, simulated, limit)
    keys = [None if r is None else r.key for r in rule_sets]
    labels = [label(r) for r in rule_sets]
    asked = [keys, labels, players, simulated]
    counts = {under: counted for under, *counted in archive.query(RULES_IMPACT_SEEN, asked)[1]}
    parts = []
    for name in labels:
        seen, unplayable, winner, verdict = counts.get(name, (0, 0, 0, 0))
        parts.append(
            f"under {name}, of {seen} games: {winner} have another winner, "
            f"{verdict} another verdict only, {unplayable} cannot be played "
            "(corrupt under those rules)"
        )
    changed = sum(
        unplayable + winner + verdict for _, unplayable, winner, verdict in counts.values()
    )
    return Table("rules-impact", columns, rows, "; ".join(parts), changed - len(rows))


def _deal_odds(
    archive: Archive, rule_sets: list[RuleSet | None], players: int | None, simulated: bool
) -> Table:
    """Each rule set's recorded deals (the games that declared it; None: every game, by
    the rules it declared) beside the exact odds of :func:`yaniv_audit.core.deal_odds.deal_odds`.
    Only whole hands count (``hand_size`` cards)."""
    keys = None if None in rule_sets else [r.key for r in rule_sets if r is not None]
    _, found = archive.query(DEALS, [keys, players, simulated])
    groups: dict[str, tuple[RuleSet, str]] = {}  # rules_key -> (rules, the rules column)
    for rules in rule_sets:
        if rules is not None:
            groups[rules.key] = (rules, rules.id)
    for rules_id, key, *_ in found:
        if key not in groups and None in rule_sets:
            groups[key] = (parse_rules(rules_id), rules_id)
    columns = ["rules", "kind", "category", "hands", "share_pct", "exact_pct", "expected"]
    rows: list[tuple[Any, ...]] = []
    hands_seen = 0
    for key, (rules, name) in sorted(groups.items(), key=lambda kv: kv[1][1]):
        mine = [row for row in found if row[1] == key and row[2] == rules.hand_size]
        hands = sum(row[6] for row in mine)
        hands_seen += hands
        exact = deal_odds(rules)
        for kind, counts, column in (
            ("ranks", exact.ranks, 3),
            ("runs", exact.runs, 4),
            ("totals", exact.totals, 5),
        ):
            seen: dict[Any, int] = {}
            for row in mine:
                seen[row[column]] = seen.get(row[column], 0) + row[6]
            for category, ways in counts.items():
                share = ways / exact.hands
                count = seen.get(category, 0)
                rows.append(
                    (
                        name,
                        kind,
                        str(category),
                        count,
                        round(100 * count / hands, 2) if hands else None,
                        round(100 * share, 4),
                        round(hands * share, 1),
                    )
                )
    names = ", ".join(sorted(name for _, name in groups.values())) or "no rule set"
    who = f" in games with {players} players" if players else ""
    summary = (
        f"{hands_seen} recorded deals{who}, each category beside its exact odds, under {names}"
    )
    return Table("deal-odds", columns, rows, summary)


@dataclass(frozen=True, slots=True)
class Odds:
    """How often a Yaniv called at one total was Assafed, in the archive."""

    total: int
    players: int | None
    calls: int
    assafed: int

    @property
    def risk(self) -> float | None:
        return self.assafed / self.calls if self.calls else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The Wilson 95% interval of the risk (honest for few calls and for 0 or 100%)."""
        if not self.calls:
            return None
        z, n, p = 1.96, self.calls, self.assafed / self.calls
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "players": self.players,
            "calls": self.calls,
            "assafed": self.assafed,
            "risk": self.risk,
            "interval95": list(self.interval) if self.interval else None,
        }

    def text(self) -> str:
        who = f" with {self.players} players" if self.players else ""
        if not self.calls:
            return f"no Yaniv was called at {self.total}{who} in this archive"
        low, high = self.interval or (0.0, 0.0)
        return (
            f"Yaniv at {self.total}{who}: Assafed {self.assafed} "
            f"time{'' if self.assafed == 1 else 's'} in {self.calls} "
            f"call{'' if self.calls == 1 else 's'}, {self.risk or 0:.1%} "
            f"(95% interval {low:.1%} to {high:.1%})"
        )


def odds(
    archive: Archive,
    total: int,
    players: int | None = None,
    rules: RuleSet | None = None,
    *,
    simulated: bool = False,
) -> Odds:
    """The archive's Assaf risk of calling Yaniv at ``total``, in the games people played
    (``simulated``: the bots' too)."""
    _, rows = archive.query(
        ODDS, [[None if rules is None else rules.key], [label(rules)], players, simulated, total]
    )
    calls, assafed = rows[0] if rows else (0, 0)
    return Odds(total, players, int(calls), int(assafed))
