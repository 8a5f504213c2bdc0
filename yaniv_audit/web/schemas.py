"""The shapes of the API's answers and parameters, as marshmallow schemas.

They are the one definition the OpenAPI document (:mod:`yaniv_audit.web.openapi`)
is generated from; the audit report and the comparison reuse the schemas of
:mod:`yaniv_audit.io.report_schema`. The tests validate real answers against them.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from ..archive.analytics import REPORTS
from ..core.events import MAX_PLAYERS
from ..io.report_schema import (
    FINGERPRINT,
    VERDICTS,
    AuditReportSchema,
    CompareSchema,
    FindingSchema,
    ParamsSchema,
)
from .limits import MAX_EVENTS_LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_RULE_SETS
from .store import SORTS

SORT_VALUES = [*SORTS, *(f"-{s}" for s in SORTS)]


class ErrorBodySchema(Schema):
    """What went wrong: the HTTP status, a code for programs, the message for people (the
    command line's words), and the request field at fault, if one is."""

    status = fields.Integer(required=True)
    code = fields.String(
        required=True,
        metadata={"description": 'e.g. "bad_parameter", "unreadable_log", "ambiguous"'},
    )
    message = fields.String(required=True)
    field = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the parameter or part of the request"},
    )
    line = fields.Integer(
        allow_none=True, metadata={"description": "unreadable_log: the line of the log"}
    )
    index = fields.Integer(
        allow_none=True, metadata={"description": "unreadable_log: the event index"}
    )
    candidates = fields.List(
        fields.Dict(),
        metadata={"description": "ambiguous: the games the reference names (at most 10)"},
    )
    refused = fields.List(
        fields.Dict(),
        metadata={
            "description": "POST /api/v1/games: every log of the body, each with its source and "
            "its error"
        },
    )
    rewrites = fields.List(
        fields.Dict(),
        metadata={
            "description": "POST /api/v1/games, rewrites_game: the logs that change an archived "
            "game's events (stored as evidence, never counted)"
        },
    )
    after_end = fields.List(
        fields.Dict(),
        metadata={
            "description": "POST /api/v1/games, continues_ended_game: the logs that continue a "
            "game that had ended (stored as evidence, never counted)"
        },
    )
    at_table = fields.List(
        fields.Dict(),
        metadata={
            "description": "POST /api/v1/games, table_open: the logs that go beyond the entries "
            "of the open live table their game is played at (not stored)"
        },
    )
    added = fields.List(
        fields.Dict(),
        metadata={"description": "POST /api/v1/games, a 409: the logs stored (as evidence too)"},
    )
    duplicates = fields.List(
        fields.Dict(),
        metadata={"description": "POST /api/v1/games, a 409: the logs archived already"},
    )
    total = fields.Integer(
        metadata={"description": "POST /api/v1/games, a 409: the games the archive holds now"}
    )


class ErrorSchema(Schema):
    """Every error the API gives."""

    error = fields.Nested(ErrorBodySchema, required=True)


class RuleSetSchema(Schema):
    """A rule set: its id, where the preset comes from, every parameter."""

    id = fields.String(required=True)
    source = fields.String(required=True)
    params = fields.Nested(ParamsSchema, required=True)


class GameSchema(Schema):
    """An archived game, with its audit under its declared rules (if audited)."""

    fingerprint = fields.String(required=True, validate=validate.Regexp(FINGERPRINT))
    game_id = fields.String(required=True)
    source = fields.String(
        required=True, metadata={"description": "the base name of the file it came from"}
    )
    players = fields.List(fields.String(), required=True)
    rules_id = fields.String(required=True, metadata={"description": "the declared rules"})
    events = fields.Integer(required=True)
    started_at = fields.String(required=True, allow_none=True)
    ingested_at = fields.String(required=True)
    verdict = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(VERDICTS),
        metadata={"description": "null while not audited"},
    )
    findings = fields.Integer(required=True, allow_none=True)
    winners = fields.List(fields.String(), required=True, allow_none=True)
    extends = fields.String(
        required=True, allow_none=True, metadata={"description": "the earlier version it continues"}
    )
    part_of = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "a longer version archived before it"},
    )
    rewrites = fields.String(
        required=True,
        allow_none=True,
        metadata={
            "description": "the archived game whose events this log changes: it is kept "
            "as evidence and counted in no report"
        },
    )
    superseded = fields.Boolean(
        required=True,
        metadata={
            "description": "not the latest version: a longer version is archived, or "
            "this log rewrites an archived game"
        },
    )


class GameListSchema(Schema):
    """A page of the archive's games and how many match the filters."""

    games = fields.List(fields.Nested(GameSchema), required=True)
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)


class EventsSchema(Schema):
    """A page of a stored game's events, each as its canonical JSON object."""

    fingerprint = fields.String(required=True)
    total = fields.Integer(required=True)
    limit = fields.Integer(required=True)
    offset = fields.Integer(required=True)
    events = fields.List(fields.Dict(), required=True)


class BoardGameSchema(Schema):
    """Who played, under which declared rules."""

    game_id = fields.String(required=True)
    fingerprint = fields.String(required=True)
    players = fields.List(fields.String(), required=True)
    names = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    declared_rules = fields.String(required=True)
    meta = fields.Dict(
        required=True, metadata={"description": "the log's meta (place, date, ...); {} when none"}
    )
    at = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "when the game started, as the log says"},
    )


class MoveSchema(Schema):
    """Who acted in an event and the cards of the move, for drawing it on the table."""

    player = fields.String(required=True, allow_none=True)
    cards = fields.List(
        fields.String(),
        required=True,
        metadata={
            "description": "a discard's cards, a drawn card (left out when the seat shown did "
            "not see it), a slapped card, an upcard"
        },
    )
    source = fields.String(metadata={"description": "a draw's: stock or pile"})
    swap = fields.String(allow_none=True, metadata={"description": "a joker swap's card"})
    total = fields.Integer(allow_none=True, metadata={"description": "a Yaniv's announced total"})
    round = fields.Integer()
    recorded = fields.Boolean(metadata={"description": "a round's moves were recorded"})
    hands = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata={"description": "a showdown's hands laid down"},
    )
    players = fields.List(fields.String(), metadata={"description": "at the start"})
    seqs = fields.List(fields.Integer(), metadata={"description": "a withdraw's entries"})
    text = fields.String(metadata={"description": "a note's words, as the table wrote them"})
    rules = fields.String(metadata={"description": "the declared rules, at the start"})


_SEAT_NO = fields.Integer(
    validate=validate.Range(min=0, max=MAX_PLAYERS - 1),
    metadata={"description": "a seat: the index of the player in game.players"},
)


def _seated(field: fields.Field[Any], what: str) -> fields.List[Any]:
    return fields.List(
        field,
        required=True,
        metadata={"description": f"{what}, one per seat in the order of game.players (null: none)"},
    )


class StepTableSchema(Schema):
    """The round on the table after one event (players by seat: game.players holds the
    ids once for every step)."""

    round = fields.Integer(required=True)
    moves_checked = fields.Boolean(
        required=True, metadata={"description": "false: a scoresheet round"}
    )
    turn = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the seat whose turn it is (after a draw: the next seat)"},
    )
    phase = fields.String(required=True, validate=validate.OneOf(["start", "threw", "drew"]))
    hands = _seated(
        fields.List(fields.String(), allow_none=True),
        "the hands (?? for a card the seat shown cannot see)",
    )
    totals = _seated(
        fields.Integer(allow_none=True), "the hand totals (with seat: only that seat's)"
    )
    pile = fields.List(
        fields.List(fields.String()),
        required=True,
        metadata={"description": "the top 3 throws, the top last"},
    )
    stock = fields.Integer(required=True, allow_none=True)
    ended = fields.Boolean(required=True)


class StepStateSchema(Schema):
    """The game after one event."""

    scores = _seated(fields.Integer(allow_none=True), "the scores")
    out = fields.List(_SEAT_NO, required=True, metadata={"description": "the seats out"})
    winners = fields.List(_SEAT_NO, required=True, metadata={"description": "the seats that won"})
    round = fields.Nested(StepTableSchema, required=True, allow_none=True)


class StepSchema(Schema):
    """The table after one event: its text, its findings, the state (hands, totals, the
    top of the pile, stock, turn, scores)."""

    index = fields.Integer(required=True)
    type = fields.String(required=True, metadata={"description": "the event's type"})
    text = fields.String(required=True)
    findings = fields.List(fields.Dict(), required=True)
    stopped = fields.Boolean(required=True)
    withdrawn_by = fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "the withdraw that took this entry back (the replay reads the log "
            "without it), or null"
        },
    )
    state = fields.Nested(StepStateSchema, required=True)
    move = fields.Nested(MoveSchema, required=True)


class BoardSchema(Schema):
    """The report and every step of a game: what the viewer draws."""

    game = fields.Nested(BoardGameSchema, required=True)
    seat = fields.String(required=True, allow_none=True)
    report = fields.Nested(AuditReportSchema, required=True)
    steps = fields.List(fields.Nested(StepSchema), required=True)


class ReportNameSchema(Schema):
    """A named report and what it shows."""

    name = fields.String(required=True, validate=validate.OneOf(list(REPORTS)))
    shows = fields.String(required=True)


class ReportTableSchema(Schema):
    """A report over the archive, as ``yaniv-audit report NAME --json`` prints it."""

    report = fields.String(required=True)
    summary = fields.String(required=True)
    columns = fields.List(fields.String(), required=True)
    rows = fields.List(fields.Dict(), required=True)


class StoredSchema(Schema):
    """A game stored by an ingest."""

    source = fields.String(required=True)
    fingerprint = fields.String(required=True)
    game_id = fields.String()
    events = fields.Integer()


class RefusedSchema(Schema):
    """A log an ingest refused, and why."""

    source = fields.String(required=True)
    error = fields.Nested(ErrorBodySchema, required=True)


class RewriteSchema(Schema):
    """A log stored as evidence only: it changes the events of an archived game."""

    source = fields.String(required=True)
    fingerprint = fields.String(required=True)
    game_id = fields.String(required=True)
    rewrites = fields.String(
        required=True,
        metadata={"description": "the fingerprint of the archived version whose events it changes"},
    )
    differs_from_event = fields.Integer(required=True)


class AfterEndSchema(Schema):
    """A log stored as evidence only: it continues a game that had ended (a withdrawn
    game_ended, moves after it); the ended version stays the game."""

    source = fields.String(required=True)
    fingerprint = fields.String(required=True)
    game_id = fields.String(required=True)
    ended = fields.String(
        required=True,
        metadata={"description": "the fingerprint of the ended version, still counted"},
    )
    ended_size = fields.Integer(required=True, metadata={"description": "its events"})


class AtTableSchema(Schema):
    """A log not stored: it goes beyond the entries of the open live table its game is
    played at (the table is the game while it is open)."""

    source = fields.String(required=True)
    fingerprint = fields.String(required=True)
    game_id = fields.String(required=True)
    table = fields.String(
        required=True, metadata={"description": "the table's id (/api/v1/tables/<id>)"}
    )
    table_entries = fields.Integer(
        required=True, metadata={"description": "the table's entries when the log was posted"}
    )


class IngestSchema(Schema):
    """What an ingest did: the games added, those already there, the logs refused, the
    logs kept as evidence only, and how many games the archive holds now."""

    added = fields.List(fields.Nested(StoredSchema), required=True)
    duplicates = fields.List(fields.Nested(StoredSchema), required=True)
    refused = fields.List(fields.Nested(RefusedSchema), required=True)
    total = fields.Integer(required=True)
    rewrites = fields.List(
        fields.Nested(RewriteSchema),
        required=True,
        metadata={
            "description": "logs that change an archived game's events: stored as evidence, "
            "never counted (the answer is then a 409)"
        },
    )
    after_end = fields.List(
        fields.Nested(AfterEndSchema),
        required=True,
        metadata={
            "description": "logs that continue a game that had ended, posted without "
            "reopen=true: stored as evidence, never counted (a 409)"
        },
    )
    at_table = fields.List(
        fields.Nested(AtTableSchema),
        required=True,
        metadata={
            "description": "logs that go beyond the entries of the open live table their game "
            "is played at: not stored, the table is the game (a 409, code "
            "table_open)"
        },
    )


def _by_player(values: fields.Field[Any], description: str) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(), values=values, required=True, metadata={"description": description}
    )


class TableSchema(Schema):
    """Where the game stands after the log so far."""

    round = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the round under way or last played"},
    )
    moves_checked = fields.Boolean(
        required=True, allow_none=True, metadata={"description": "false: a scoresheet round"}
    )
    starter = fields.String(required=True, allow_none=True)
    turn = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "whose turn it is (null: no round in play)"},
    )
    up = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "who throws or calls next (after a draw: the next seat)"},
    )
    phase = fields.String(
        required=True,
        allow_none=True,
        validate=validate.OneOf(["start", "threw", "drew"]),
        metadata={
            "description": "start: a throw or Yaniv is due; threw: "
            "the draw; drew: a slap or the next turn"
        },
    )
    hands = _by_player(fields.List(fields.String()), "the hands, when the moves are recorded")
    totals = _by_player(fields.Integer(), "their totals")
    pile = fields.List(
        fields.List(fields.String()),
        required=True,
        metadata={"description": "the top two throws, the top last (?? for an unrecorded upcard)"},
    )
    stock = fields.Integer(
        required=True, allow_none=True, metadata={"description": "cards left in the stock"}
    )
    stock_known = fields.Boolean(
        required=True,
        allow_none=True,
        metadata={"description": "false: a stock draw names its card"},
    )
    upcard_known = fields.Boolean(required=True, allow_none=True)
    ended = fields.Boolean(required=True, metadata={"description": "the round is over"})
    closed = fields.Boolean(required=True, metadata={"description": "round_ended is written"})
    caller = fields.String(required=True, allow_none=True)
    scores = _by_player(fields.Integer(), "the running scores")
    out = fields.List(fields.String(), required=True)
    still_in = fields.List(fields.String(), required=True)
    winners = fields.List(fields.String(), required=True)
    finished = fields.Boolean(required=True)
    stopped = fields.Boolean(
        required=True,
        metadata={"description": "the log is physically impossible: the replay stopped (corrupt)"},
    )


class NextSchema(Schema):
    """What the log may hold next."""

    expects = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the event types that fit here (note always does)"},
    )
    moves = fields.List(
        fields.Dict(),
        required=True,
        metadata={
            "description": "the legal moves of the player whose turn it is, as log events (a "
            "stock draw without card: the stock's order is unknown, name it); at "
            "most 1,000 throws a player"
        },
    )
    moves_complete = fields.Boolean(
        required=True,
        metadata={
            "description": "false: a player has more than 1,000 legal throws, and moves lists "
            "the first 1,000 (singles, then sets, then runs)"
        },
    )
    round = fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the number of the next round_started"},
    )
    starters = fields.List(
        fields.String(),
        required=True,
        allow_none=True,
        metadata={"description": "who may open the next round (null: anyone)"},
    )
    deal = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the players the next round deals in"},
    )


class SaidSchema(Schema):
    """Every entry and round said in the language ``Accept-Language`` asks for (the
    pages' scripts draw them and make no sentence): each sentence a list of parts, a
    string text, a number a player (an index into ``game.players``), ``{"card": "7S"}``
    a card."""

    lang = fields.String(required=True, metadata={"description": "the language said in"})
    moves = fields.List(
        fields.List(fields.Raw()),
        required=True,
        metadata={"description": "each entry of the log, in order, as the game page says it"},
    )
    rounds = fields.List(
        fields.List(fields.Raw()),
        required=True,
        metadata={"description": "each round of the report in one line: how it ended"},
    )
    stock = fields.String(
        required=True,
        allow_none=True,
        metadata={"description": "the cards left in the stock, in words"},
    )


class TableStateSchema(Schema):
    """A game being recorded: where it stands, what may come next, and the audit's report
    of the log so far (the findings exactly as the audit gives them)."""

    game = fields.Nested(BoardGameSchema, required=True)
    events = fields.Integer(required=True)
    report = fields.Nested(AuditReportSchema, required=True)
    last = fields.List(
        fields.Nested(FindingSchema),
        required=True,
        metadata={"description": "the findings of the log's last event"},
    )
    state = fields.Nested(TableSchema, required=True)
    next = fields.Nested(NextSchema, required=True)
    said = fields.Nested(
        SaidSchema,
        metadata={"description": "with Accept-Language: every entry and round in words"},
    )


# --- parameters -------------------------------------------------------------------------

#: a date or a time, as ``since`` and ``until`` take them
WHEN = [{"format": "date"}, {"format": "date-time"}]

_RULES = fields.String(
    metadata={"description": "a rule-set id: classic, israeli(yaniv_max=5); default: the declared"}
)
_SEAT = fields.String(metadata={"description": "show only what this player saw"})


def _rules(many: bool = False) -> fields.Field[Any]:
    if many:
        return fields.List(
            fields.String(),
            validate=validate.Length(max=MAX_RULE_SETS),
            metadata={
                "description": "rule-set ids (repeat the parameter); "
                "the first is the baseline; at most "
                f"{MAX_RULE_SETS}"
            },
        )
    return _RULES


class GamesQuery(Schema):
    player = fields.String(metadata={"description": "only games this player sat in"})
    rules = fields.String(
        metadata={"description": "only games declaring a rule set with these parameters"}
    )
    verdict = fields.String(
        validate=validate.OneOf(VERDICTS), metadata={"description": "under the declared rules"}
    )
    has_findings = fields.Boolean()
    since = fields.String(
        metadata={
            "description": "started at or after (a date, or an RFC 3339 time; without offset: UTC)",
            "anyOf": WHEN,
        }
    )
    until = fields.String(
        metadata={
            "description": "started before (a date, or an RFC 3339 time; without offset: UTC)",
            "anyOf": WHEN,
        }
    )
    q = fields.String(
        metadata={"description": "a player, part of a game_id, or the start of a fingerprint"}
    )
    sort = fields.String(
        validate=validate.OneOf(SORT_VALUES),
        metadata={"description": "default: ingested (a - for descending)"},
    )
    limit = fields.Integer(validate=validate.Range(min=1, max=MAX_LIMIT))
    offset = fields.Integer(validate=validate.Range(min=0, max=MAX_OFFSET))


class PageQuery(Schema):
    limit = fields.Integer(validate=validate.Range(min=1, max=MAX_EVENTS_LIMIT))
    offset = fields.Integer(validate=validate.Range(min=0, max=MAX_OFFSET))


class RulesQuery(Schema):
    rules = _rules()


class FitQuery(Schema):
    from_ = fields.String(
        data_key="from",
        metadata={
            "description": "the rule-set id to start from: classic, israeli(yaniv_max=5); "
            "default: the declared"
        },
    )


class IngestQuery(Schema):
    reopen = fields.Boolean(
        metadata={
            "description": "true: a log that continues a game that had ended (its game_ended "
            "withdrawn, moves after it) becomes the game; without it such a log "
            "is kept as evidence only and the answer is a 409"
        }
    )


class BoardQuery(Schema):
    rules = _rules()
    seat = _SEAT


class CompareQuery(Schema):
    rules = _rules(many=True)


class ReportQuery(Schema):
    rules = _rules(many=True)
    players = fields.Integer(
        validate=validate.Range(min=2, max=8), metadata={"description": "only games of N players"}
    )
    simulated = fields.Boolean(
        metadata={
            "description": "count the games bots played (yaniv-audit simulate) too; by "
            "default every report counts the games people played and its summary says how "
            "many simulated games it left out"
        }
    )


__all__ = ["AuditReportSchema", "CompareSchema"]
