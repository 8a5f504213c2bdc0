"""Reports over the archive: SQL over the derived tables (see :mod:`yaniv_audit.archive`).

Every report reads the audits of one rule set per game: the rules each game
declared (the default), or one rule set for all (``rules``), by its parameters.
A game continued after a pause is stored in both versions; only the latest counts.
Corrupt games (physically impossible logs) are left out: their scores mean
nothing. Games audited with violations count as the engine rescored them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .archive import LATEST, Archive
from .rules import RuleSet

#: the audits a report reads: one per game, under the declared rules or under $1; a
#: game stored in several versions (paused, then continued) counts once, as the latest
CHOSEN = f"""
chosen AS (
    SELECT a.fingerprint, a.rules_key, a.finished, a.winners, a.verdict, g.game_id
    FROM audits a JOIN games g USING (fingerprint)
    WHERE a.rules_key = coalesce($1, g.rules_key) AND a.verdict <> 'corrupt'
      AND {LATEST}
)"""

LEADERBOARD = f"""
WITH {CHOSEN},
calls AS (
    SELECT r.caller AS player, count(*) AS yanivs,
           count(*) FILTER (WHERE r.assafed) AS assafed
    FROM rounds r JOIN chosen USING (fingerprint, rules_key)
    WHERE r.caller IS NOT NULL AND r."end" = 'yaniv'
    GROUP BY ALL
),
assafers AS (
    SELECT unnest(r.assafers) AS player
    FROM rounds r JOIN chosen USING (fingerprint, rules_key)
    WHERE r.assafed
),
made AS (SELECT player, count(*) AS assafs FROM assafers GROUP BY player)
SELECT s.player,
       count(*) FILTER (WHERE c.finished) AS games,
       count(*) FILTER (WHERE s.won) AS wins,
       round(100.0 * count(*) FILTER (WHERE s.won)
             / nullif(count(*) FILTER (WHERE c.finished), 0), 1) AS win_pct,
       round(avg(s.score) FILTER (WHERE c.finished), 1) AS avg_final_score,
       any_value(coalesce(calls.yanivs, 0)) AS yanivs,
       any_value(coalesce(calls.assafed, 0)) AS assafed,
       any_value(coalesce(made.assafs, 0)) AS assafs_made
FROM standings s
JOIN chosen c USING (fingerprint, rules_key)
LEFT JOIN calls USING (player)
LEFT JOIN made USING (player)
GROUP BY s.player
ORDER BY wins DESC, win_pct DESC NULLS LAST, s.player
"""

ASSAF_RISK = f"""
WITH {CHOSEN}
SELECT r.caller_total AS called_total,
       count(*) AS calls,
       count(*) FILTER (WHERE r.assafed) AS assafed,
       round(100.0 * count(*) FILTER (WHERE r.assafed) / count(*), 1) AS risk_pct
FROM rounds r JOIN chosen USING (fingerprint, rules_key)
WHERE r."end" = 'yaniv' AND r.caller_total IS NOT NULL
  AND ($2 IS NULL OR r.players = $2)
GROUP BY ALL
ORDER BY called_total
"""

FINDINGS = f"""
WITH {CHOSEN}
SELECT f.code, f.kind, count(*) AS findings, count(DISTINCT f.fingerprint) AS games
FROM findings f JOIN chosen USING (fingerprint, rules_key)
GROUP BY ALL
ORDER BY findings DESC, f.code
"""

RULES_IMPACT = f"""
SELECT g.game_id, g.rules_id AS declared, d.verdict AS declared_verdict,
       d.winners AS declared_winners, o.verdict AS other_verdict, o.winners AS other_winners
FROM games g
JOIN audits d ON d.fingerprint = g.fingerprint AND d.rules_key = g.rules_key
JOIN audits o ON o.fingerprint = g.fingerprint AND o.rules_key = $1
WHERE d.verdict <> 'corrupt' AND {LATEST}
ORDER BY g.game_no
"""

ODDS = f"""
WITH {CHOSEN}
SELECT count(*) AS calls, count(*) FILTER (WHERE r.assafed) AS assafed
FROM rounds r JOIN chosen USING (fingerprint, rules_key)
WHERE r."end" = 'yaniv' AND r.caller_total = $2 AND ($3 IS NULL OR r.players = $3)
"""


@dataclass(frozen=True, slots=True)
class Table:
    """A report's rows, with a line that sums it up."""

    name: str
    columns: list[str]
    rows: list[tuple[Any, ...]]
    summary: str

    def to_json(self) -> dict[str, Any]:
        return {"report": self.name, "summary": self.summary, "columns": self.columns,
                "rows": [dict(zip(self.columns, row, strict=True)) for row in self.rows]}


#: report name -> what it shows
REPORTS = {
    "leaderboard": "players by wins: finished games, wins, win %, average final score, "
                   "Yaniv calls, times Assafed, Assafs made",
    "assaf-risk": "for each hand total a Yaniv was called at: calls, how many were Assafed, "
                  "the risk in %",
    "findings": "finding codes by how often they occur, and in how many games",
    "rules-impact": "the games whose winner or verdict changes under --rules R "
                    "(against each game's declared rules)",
}


def _key(rules: RuleSet | None) -> str | None:
    return None if rules is None else rules.key


def _under(rules: RuleSet | None) -> str:
    return "each game's declared rules" if rules is None else f"rules {rules.id}"


def report(archive: Archive, name: str, rules: RuleSet | None = None,
           players: int | None = None) -> Table:
    """Report ``name`` of :data:`REPORTS` (the games must be audited under the rules)."""
    if name == "leaderboard":
        columns, rows = archive.query(LEADERBOARD, [_key(rules)])
        return Table(name, columns, rows, f"{len(rows)} players, under {_under(rules)}")
    if name == "assaf-risk":
        columns, rows = archive.query(ASSAF_RISK, [_key(rules), players])
        calls = sum(row[1] for row in rows)
        assafed = sum(row[2] for row in rows)
        who = f" with {players} players in the round" if players else ""
        return Table(name, columns, rows,
                     f"{calls} Yaniv calls{who}, {assafed} Assafed, under {_under(rules)}")
    if name == "findings":
        columns, rows = archive.query(FINDINGS, [_key(rules)])
        total = sum(row[2] for row in rows)
        return Table(name, columns, rows,
                     f"{total} findings of {len(rows)} kinds, under {_under(rules)}")
    if name == "rules-impact":
        if rules is None:
            raise ValueError("rules-impact needs --rules R: the rule set to compare with")
        columns, rows = archive.query(RULES_IMPACT, [rules.key])
        changed: list[tuple[Any, ...]] = []
        counts = {"winner": 0, "unplayable": 0, "verdict": 0}
        for row in rows:
            _, _, declared_verdict, declared_winners, verdict, winners = row
            if verdict == "corrupt":
                change = "unplayable"  # e.g. a card the other deck does not have
            elif winners != declared_winners:
                change = "winner"
            elif verdict != declared_verdict:
                change = "verdict"
            else:
                continue
            counts[change] += 1
            changed.append((*row, change))
        return Table(name, [*columns, "change"], changed,
                     f"under {rules.id}, of {len(rows)} games: {counts['winner']} have another "
                     f"winner, {counts['verdict']} another verdict only, "
                     f"{counts['unplayable']} cannot be played (corrupt under those rules)")
    raise ValueError(f"unknown report {name!r}; expected one of {', '.join(REPORTS)}")


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
        return {"total": self.total, "players": self.players, "calls": self.calls,
                "assafed": self.assafed, "risk": self.risk,
                "interval95": list(self.interval) if self.interval else None}

    def text(self) -> str:
        who = f" with {self.players} players" if self.players else ""
        if not self.calls:
            return f"no Yaniv was called at {self.total}{who} in this archive"
        low, high = self.interval or (0.0, 0.0)
        return (f"Yaniv at {self.total}{who}: Assafed {self.assafed} times in {self.calls} "
                f"calls, {self.risk or 0:.1%} (95% interval {low:.1%} to {high:.1%})")


def odds(archive: Archive, total: int, players: int | None = None,
         rules: RuleSet | None = None) -> Odds:
    """The archive's Assaf risk of calling Yaniv at ``total``."""
    _, rows = archive.query(ODDS, [_key(rules), total, players])
    calls, assafed = rows[0] if rows else (0, 0)
    return Odds(total, players, int(calls), int(assafed))
