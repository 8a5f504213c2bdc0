"""The archive's tables: their definitions, the views over them, and what each holds.

``games`` and ``events`` hold what was ingested (append-only), with ``deals``,
``round_turns`` and ``draw_cards`` summarising the events for the reports; the derived
tables (:data:`DERIVED`) hold the audits, one set of rows per game and rule set; the
``latest_*`` views choose the latest version of each game (:data:`LATEST`). An archive
of an older schema (:data:`MIGRATES_FROM`) is brought forward by
:mod:`yaniv_audit.archive.migrate`.
"""

from __future__ import annotations

import duckdb

SCHEMA_VERSION = "5"
#: the older schemas :class:`~yaniv_audit.archive.migrate.Migration` brings forward on open
MIGRATES_FROM = ("1", "2", "3", "4")


#: what marks a log that ``yaniv-audit simulate`` wrote (bots playing), in its first event
SIMULATED = "json_extract_string(e.event, '$.meta.recorder') = 'yaniv-audit simulate'"


#: SQL: game ``g`` is the latest version of its game (no longer one is archived, and
#: it does not rewrite an archived version)
LATEST = (
    "(g.part_of IS NULL AND g.rewrites IS NULL AND NOT EXISTS "
    "(SELECT 1 FROM games later WHERE later.extends = g.fingerprint))"
)

GAME_TABLES = """
CREATE TABLE IF NOT EXISTS archive_info (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_no INTEGER PRIMARY KEY,
    fingerprint VARCHAR NOT NULL UNIQUE,
    game_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    players VARCHAR[] NOT NULL,
    rules_key VARCHAR NOT NULL,
    rules_id VARCHAR NOT NULL,
    events INTEGER NOT NULL,
    extends VARCHAR,
    part_of VARCHAR,
    started_at TIMESTAMPTZ,
    ingested_at TIMESTAMPTZ NOT NULL,
    rewrites VARCHAR,
    opening_md5 VARCHAR
);
CREATE TABLE IF NOT EXISTS checkpoints (
    games INTEGER NOT NULL,
    root VARCHAR NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_no INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    type VARCHAR NOT NULL,
    player VARCHAR,
    event VARCHAR NOT NULL,
    round INTEGER,
    source VARCHAR,
    cards VARCHAR[]
);
CREATE TABLE IF NOT EXISTS deals (
    game_no INTEGER NOT NULL,
    round INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    cards INTEGER NOT NULL,
    ranks VARCHAR NOT NULL,
    run VARCHAR NOT NULL,
    total INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS round_turns (
    game_no INTEGER NOT NULL,
    round INTEGER NOT NULL,
    turns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS draw_cards (
    game_no INTEGER NOT NULL,
    source VARCHAR,
    card VARCHAR NOT NULL,
    draws INTEGER NOT NULL
);
"""

#: the summaries of each game's events that the reports read instead of ``events`` (a
#: hundred times fewer rows), filled at ingest for the games ``$1`` to ``$2``: the turns
#: of each round (a discard or a Yaniv call) and the draws by source and the rank of the
#: card drawn (``JK`` a joker; ``unknown``: a stock draw whose card the log does not say)
SUMMARIES = (
    """
INSERT INTO round_turns
SELECT game_no, round, count(*) FROM events
WHERE game_no BETWEEN $1 AND $2 AND type IN ('discard', 'yaniv') AND round IS NOT NULL
GROUP BY ALL
""",
    """
INSERT INTO draw_cards
SELECT game_no, source,
       CASE WHEN cards IS NULL THEN 'unknown' WHEN cards[1] = 'JK' THEN 'JK'
            ELSE left(cards[1], 1) END,
       count(*)
FROM events WHERE game_no BETWEEN $1 AND $2 AND type = 'draw'
GROUP BY ALL
""",
)

#: the derived tables, keyed by the game's ``game_no`` and the rule set's parameters
DERIVED_TABLES = """
CREATE TABLE IF NOT EXISTS audits (
    game_no INTEGER NOT NULL,
    rules_key VARCHAR NOT NULL,
    rules_id VARCHAR NOT NULL,
    engine VARCHAR NOT NULL,
    verdict VARCHAR NOT NULL,
    finished BOOLEAN NOT NULL,
    winners VARCHAR[] NOT NULL,
    rounds INTEGER NOT NULL,
    findings INTEGER NOT NULL,
    report VARCHAR NOT NULL,
    audited_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (game_no, rules_key)
);
CREATE TABLE IF NOT EXISTS findings (
    game_no INTEGER NOT NULL,
    rules_key VARCHAR NOT NULL,
    seq INTEGER,
    round INTEGER,
    player VARCHAR,
    kind VARCHAR NOT NULL,
    code VARCHAR NOT NULL,
    message VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    game_no INTEGER NOT NULL,
    rules_key VARCHAR NOT NULL,
    round INTEGER NOT NULL,
    players INTEGER NOT NULL,
    starter VARCHAR,
    "end" VARCHAR,
    caller VARCHAR,
    caller_total INTEGER,
    assafed BOOLEAN NOT NULL,
    assafers VARCHAR[] NOT NULL,
    winners VARCHAR[] NOT NULL
);
CREATE TABLE IF NOT EXISTS standings (
    game_no INTEGER NOT NULL,
    rules_key VARCHAR NOT NULL,
    player VARCHAR NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won BOOLEAN NOT NULL,
    out BOOLEAN NOT NULL
);
CREATE TABLE IF NOT EXISTS player_rounds (
    game_no INTEGER NOT NULL,
    rules_key VARCHAR NOT NULL,
    round INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    seat INTEGER NOT NULL,
    total INTEGER,
    points INTEGER,
    score_after INTEGER,
    called BOOLEAN NOT NULL,
    assafed_caller BOOLEAN NOT NULL,
    assafer BOOLEAN NOT NULL,
    won BOOLEAN NOT NULL,
    reduced_from INTEGER,
    went_out BOOLEAN NOT NULL,
    opened BOOLEAN NOT NULL
);
"""
DERIVED = ("findings", "rounds", "standings", "player_rounds", "audits")

#: the views that already choose: the latest version of each game, and its derived rows
#: under the rules it declared (``latest_audits``, ``latest_findings``, ...)
VIEWS = (
    f"CREATE VIEW IF NOT EXISTS latest_games AS SELECT g.* FROM games g WHERE {LATEST};\n"
    + "".join(
        f"CREATE VIEW IF NOT EXISTS latest_{t} AS SELECT t.* FROM {t} t "
        "JOIN latest_games g ON t.game_no = g.game_no AND t.rules_key = g.rules_key;\n"
        for t in DERIVED
    )
)

SCHEMA = GAME_TABLES + DERIVED_TABLES + VIEWS


#: what each table holds, for ``yaniv-audit query --tables`` and the README
TABLES = {
    "games": "one row per ingested log: game_no (its key in every other table), "
    "fingerprint, game_id, source file, players, declared rules (rules_key, "
    "rules_id), events, extends (the earlier version of the same game it continues), "
    "part_of (a longer version archived before it), started_at, ingested_at, "
    "rewrites (the archived version whose events it changes: kept as evidence, "
    "never counted), opening_md5 (the md5 of its first event: the games with the "
    "same game_started are the versions of one game)",
    "latest_games": "(a view) the games rows of the latest version of each game: a game "
    "paused and continued counts once, a rewrite never; count games here",
    "events": "every event: game_no, seq, type, player, event (its canonical JSON), round "
    "(the round it belongs to), source (a draw's stock or pile), cards (a "
    "discard's cards, a draw's or slap's card)",
    "deals": "every hand recorded at a deal: game_no, round, player, cards (how many), "
    "ranks (no_pair, pair, ..., four), run (the longest run it could throw: none, "
    "run3, ...), total, under the rules the game declared (as odds deal counts)",
    "round_turns": "the turns of every round, from the events (a summary the rounds report "
    "reads): game_no, round, turns (its discards and Yaniv calls)",
    "draw_cards": "the draws of every game, from the events (a summary the pickups report "
    "reads): game_no, source (stock or pile), card (the rank drawn: A to K, T "
    "for ten, JK a joker, unknown a stock draw whose card the log does not "
    "say), draws (how many)",
    "audits": "one row per game and rule set audited: game_no, rules_key, rules_id, engine, "
    "verdict, finished, winners, rounds, findings, the full report (JSON), "
    "audited_at",
    "findings": "every finding of those audits: game_no, rules_key, seq, round, player, kind, "
    "code, message",
    "rounds": "every scored round: game_no, rules_key, round, players in it, starter, end, "
    "caller, caller_total, assafed, assafers, winners",
    "standings": "every player of every audited game: game_no, rules_key, player, seat, "
    "final score, won, out",
    "player_rounds": "every player of every round of those audits: game_no, rules_key, round, "
    "player, seat, total (hand), points, score_after, called, "
    "assafed_caller, assafer, won, reduced_from (the score a reduction "
    "lowered), went_out, opened (the player opened the round)",
    **{
        f"latest_{t}": f"(a view) the {t} rows of the latest version of each game under the "
        "rules it declared"
        for t in DERIVED
    },
    "checkpoints": "every checkpoint taken: games (how many), root (the Merkle tree hash "
    "of their fingerprints in ingest order), created_at",
}


def _summarize(con: duckdb.DuckDBPyConnection, first: int, last: int) -> None:
    """Fill the :data:`SUMMARIES` of games ``first`` to ``last`` from their events."""
    for sql in SUMMARIES:
        con.execute(sql, [first, last])
