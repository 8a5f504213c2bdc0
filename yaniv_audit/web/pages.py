"""The rules page and the analytics page (routes on the ``viewer`` blueprint).

    GET  /rules        every preset and every parameter: its meaning, its values in the
                       presets, what the sources say; ``/rules#pickup`` a parameter,
                       ``/rules#preset-israeli`` a preset
    GET  /analytics    the archive's named reports as tables and charts drawn here
                       (inline SVG, no script): Assaf risk by the total called (with
                       ``?players=N``, of rounds with N players), the leaderboard, the
                       seat advantage, the reductions, and the other reports as tables
    GET  /tables/<id>  a game being played, followed live (board, findings, scores)
    GET  /record/sw.js the recorder's service worker (a reload offline opens /record)
    POST /record/qr    the QR code (SVG) of a table's link, the link in the body

Every text is marked for translation (:mod:`yaniv_audit.web.i18n`); the reports' rows
are the archive's values (names, ids) and stay as they are.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import segno
from flask import Response, render_template, request, url_for
from markupsafe import Markup, escape

from ..archive import analytics
from ..archive.analytics import Odds
from ..core.rules import PARAMS, PRESET_SOURCES, PRESETS, format_value
from ..core.sentences import KIND_WORDS, kind_word
from .api import store
from .errors import ApiError
from .i18n import N_, gettext
from .tables import tables
from .viewer import viewer

# --- the rules page ---------------------------------------------------------------------

PARAM_NAMES = frozenset(p.name for p in PARAMS)

#: the parameters by the part of the game they rule (docs/rules.md's sections)
GROUPS: list[tuple[str, str, list[str]]] = [
    (
        "cards",
        N_("Cards and the deck"),
        ["decks", "jokers", "hand_size", "face_values", "joker_value", "wild_jacks"],
    ),
    (
        "throws",
        N_("Discarding (the throw)"),
        [
            "set_min",
            "set_max",
            "run_min",
            "run_max",
            "ace_high",
            "run_wrap",
            "jokers_in_runs",
            "jokers_in_sets",
        ],
    ),
    (
        "drawing",
        N_("Drawing"),
        ["pickup", "pile_needs_combo", "slap_down", "joker_swap", "reshuffle"],
    ),
    (
        "calling",
        N_("Calling Yaniv and the Assaf"),
        [
            "yaniv_max",
            "assaf_on_tie",
            "assaf_penalty",
            "assaf_multi_penalty",
            "assaf_adds_hand",
            "assaf_scoring",
        ],
    ),
    (
        "scores",
        N_("Scores, reductions and the end of the game"),
        ["score_limit", "limit_rule", "game_end", "rounds", "reductions", "starter"],
    ),
]

#: what each parameter means, and what the sources and programs say of it
MEANING: dict[str, str] = {
    "decks": N_(
        "Standard 52-card decks shuffled together. Two decks (108 cards with "
        "jokers) are used by some tables of four or more players; the Hebrew guide "
        "lists it as a variant."
    ),
    "jokers": N_(
        "Jokers per deck; 0 plays without jokers. The Korean article and Nepal's "
        "Jhyap play without them; one program uses 3."
    ),
    "hand_size": N_(
        "Cards dealt to each player. Seven is a known variant (the Korean "
        "article, the Hebrew guide)."
    ),
    "face_values": N_(
        "flat: jack, queen and king count 10; ranked: jack 11, queen 12, king "
        "13 (a variant in the Korean article and the Hebrew guide). An ace "
        "counts 1, the other cards their number."
    ),
    "joker_value": N_("Points of a joker left in the hand (0 in every source)."),
    "wild_jacks": N_(
        "Nepal (Jhyap): jacks act as jokers, wild and worth joker_value. The "
        "Hebrew guide lists it as a variant."
    ),
    "set_min": N_("The fewest cards of one rank that make a set."),
    "set_max": N_("The most cards of one rank in a set (may be raised with two decks)."),
    "run_min": N_("The fewest cards of one suit in a row that make a run."),
    "run_max": N_("The most cards in a run; null: no bound. The Korean article allows at most 5."),
    "ace_high": N_(
        "Q-K-A is a run too (the ace above the king). The ace is always low as "
        "well: A-2-3 is a run. A variant of the Korean article."
    ),
    "run_wrap": N_(
        "Runs go round the corner: K-A-2 and Q-K-A-2 are runs. One online Yaniv "
        "site plays this way; without it K-A-2 is never a run."
    ),
    "jokers_in_runs": N_(
        "A joker may stand for any missing card of a run, inside it or at an end."
    ),
    "jokers_in_sets": N_(
        "A joker may stand in a set. Without it a throw of jokers alone is "
        "no set: only a single joker may be thrown."
    ),
    "pickup": N_(
        "Which card of the previous player's throw may be taken. ends: only the "
        "first or the last card as placed (of a single or a pair, either); any: any "
        "card (the Korean article); ends_of_runs: the ends of a run, any card of a "
        "set."
    ),
    "pile_needs_combo": N_(
        "Nepal (Dhumbal): a player may draw from the pile only after throwing two cards or more."
    ),
    "slap_down": N_(
        "The quick discard: right after drawing from the stock, a card that "
        "matches the throw just made may be thrown at once; it may not empty the "
        "hand. A variant of the Hebrew guide and the Russian page."
    ),
    "joker_swap": N_(
        "The German variant: after a run with a joker, the next player may "
        "take the joker by putting into the run the card it stands for."
    ),
    "reshuffle": N_(
        "When the stock runs out. keep_last_throw: the last throw stays and the "
        "rest of the pile is shuffled into a new stock; round_ends: the round "
        "ends at once and everybody scores their hand."
    ),
    "yaniv_max": N_(
        "The highest hand total at which Yaniv may be called. 5 in the classic "
        "game, 7 in the fast Israeli game (the Hebrew guide); the Korean "
        "article and McLeod say 5; some apps allow 5 to 10."
    ),
    "assaf_on_tie": N_(
        "A total equal to the caller's counts as an Assaf: all four sources say so."
    ),
    "assaf_penalty": N_(
        "Points added to the caller on an Assaf; variants are 25, 50 and "
        "100 (the Korean article: 50 or 100)."
    ),
    "assaf_multi_penalty": N_(
        "When more than one player Assafs, the caller's penalty is "
        "this much per Assafing player instead (the German article: "
        "20); null: off."
    ),
    "assaf_adds_hand": N_(
        "On an Assaf the caller scores their hand total plus the penalty; false: the penalty alone."
    ),
    "assaf_scoring": N_(
        "How the others score on an Assaf. lowest_wins: the lowest Assafers "
        "score 0, everyone else their hand (Hebrew Wikipedia, the Russian "
        "and German pages); all_count: everyone but the caller scores their "
        "hand (McLeod, the Korean article); others_zero: only the caller "
        "scores (several apps)."
    ),
    "score_limit": N_(
        "The score limit: 200 in the Hebrew guide, 100 in the Korean article and some tables."
    ),
    "limit_rule": N_(
        "exceed: a player is out above the limit (201 in a game to 200); "
        "reach: out at the limit (the Korean article)."
    ),
    "game_end": N_(
        "elimination: players who are out leave and the last one in wins; "
        "first_out: the game ends when the first player is out and the lowest "
        "score wins (the Korean and German articles); rounds: the game ends "
        "after a number of rounds, the lowest score wins."
    ),
    "rounds": N_("The number of rounds played when game_end is rounds."),
    "reductions": N_(
        "A score landing exactly on a key at the end of a round (and only if "
        "the player scored this round) drops to its value, before the limit is "
        "checked. {100:50,200:100} in the Hebrew guide, the Russian page and "
        "McLeod; none in the Korean and German articles. Landing on one on "
        "purpose with an Assaf is called a Victor."
    ),
    "starter": N_(
        "Who opens the rounds after the first. round_winner: the round's winner "
        "(the caller, or the lowest Assafer); next_seat: the seat after the last "
        "opener; caller: the player who called Yaniv, even after an Assaf; free: not "
        "checked."
    ),
}

#: the presets' sources, as rules.PRESET_SOURCES writes them (translated here)
SOURCES: dict[str, str] = {
    "israeli": N_("the Hebrew guide, fast Israeli game"),
    "classic": N_("the Hebrew guide, classic game"),
    "cardgames-zone": N_("the Russian rules page of an online card-game site"),
    "namu": N_("the Korean wiki article"),
    "de-wiki": N_("the German Wikipedia article"),
    "mcleod": N_("John McLeod's description as the Hebrew guide cites it"),
    "jhyap": N_("Nepal, as McLeod describes it"),
}

#: the variants each source lists beside its base rules (docs/rules.md, "The presets")
VARIANTS: list[tuple[str, str, dict[str, str]]] = [
    (
        "namu",
        N_("the Korean wiki article"),
        {
            "face_values": "ranked",
            "ace_high": "true",
            "pickup": "ends",
            "hand_size": "7",
            "score_limit": "50, 200",
            "game_end": "rounds",
            "assaf_penalty": "50, 100",
        },
    ),
    (
        "israeli",
        N_("the Hebrew guide"),
        {
            "slap_down": "true",
            "decks": "2",
            "hand_size": "7",
            "face_values": "ranked",
            "wild_jacks": "true",
            "score_limit": "100",
            "game_end": "first_out",
            "reductions": "{100:50,150:100,200:150}, {50:25,100:50,150:75,200:100}, {50:0,...}",
        },
    ),
    (
        "de-wiki",
        N_("the German Wikipedia article"),
        {
            "yaniv_max": "5",
            "reductions": "{50:25,100:50,150:75,200:100}",
            "game_end": "elimination",
        },
    ),
    (
        "cardgames-zone",
        N_("the Russian rules page"),
        {"slap_down": "true", "yaniv_max": "5", "score_limit": "100"},
    ),
]


def marked_up(text: str, choices: tuple[str, ...]) -> Markup:
    """A meaning with its parameter names linked and its values as code (left to right
    inside a Hebrew sentence too)."""
    words = sorted({*PARAM_NAMES, *choices, "true", "false", "null"}, key=len, reverse=True)
    pattern = re.compile(r"(?<![\w{])(" + "|".join(map(re.escape, words)) + r")(?![\w}])")
    out, last = [], 0
    for match in pattern.finditer(text):
        out.append(escape(text[last : match.start()]))
        word = match.group(1)
        code = Markup('<code dir="ltr">%s</code>') % word
        out.append(Markup('<a href="#%s">%s</a>') % (word, code) if word in PARAM_NAMES else code)
        last = match.end()
    out.append(escape(text[last:]))
    return Markup("").join(out)


def rules_page_data() -> dict[str, Any]:
    defaults = PRESETS["israeli"]
    params = {p.name: p for p in PARAMS}
    groups = []
    for key, title, names in GROUPS:
        rows = []
        for name in names:
            param = params[name]
            values = [
                (
                    preset,
                    format_value(getattr(rules, name)),
                    getattr(rules, name) != getattr(defaults, name),
                )
                for preset, rules in PRESETS.items()
            ]
            variants = [
                (preset, gettext(source), said[name])
                for preset, source, said in VARIANTS
                if name in said
            ]
            rows.append(
                {
                    "name": name,
                    "kind": param.kind,
                    "choices": param.choices,
                    "default": format_value(param.default),
                    "nullable": param.nullable,
                    "minimum": param.minimum,
                    "maximum": param.maximum,
                    "meaning": marked_up(gettext(MEANING[name]), param.choices),
                    "in_presets": values,
                    "variants": variants,
                }
            )
        groups.append({"key": key, "title": gettext(title), "params": rows})
    presets = []
    for name, rules in PRESETS.items():
        changed = [
            (p.name, format_value(getattr(rules, p.name)))
            for p in PARAMS
            if getattr(rules, p.name) != getattr(defaults, p.name)
        ]
        presets.append(
            {
                "name": name,
                "source": gettext(SOURCES.get(name, PRESET_SOURCES[name])),
                "changed": changed,
            }
        )
    return {"groups": groups, "presets": presets}


@viewer.get("/rules")
def rules_page() -> str:
    return render_template("rules.html", **rules_page_data())


# --- the analytics page ------------------------------------------------------------------

#: the reports' names and columns in the page's words
REPORT_TITLES: dict[str, str] = {
    "assaf-risk": N_("Assaf risk by the total called"),
    "leaderboard": N_("Leaderboard"),
    "seat-advantage": N_("Seat advantage"),
    "reductions": N_("Reductions"),
    "players": N_("Players"),
    "rounds": N_("Rounds"),
    "pickups": N_("Pickups"),
    "findings": N_("Findings"),
    "violations": N_("Findings by player"),
}
REPORT_SHOWS: dict[str, str] = {
    "assaf-risk": N_(
        "For each hand total a Yaniv was called at: the calls, how many were "
        "Assafed, and the risk with its 95% interval (Wilson)."
    ),
    "leaderboard": N_(
        "Players by wins: finished games, wins, win %, average final score, "
        "Yaniv calls, times Assafed, Assafs made."
    ),
    "seat-advantage": N_(
        "By the number of players and the seat (0: the first seated): the "
        "win rate, and how often the player who opened a round won it."
    ),
    "reductions": N_(
        "Each reduction: how often, how often it saved a player from "
        "elimination, and Victor calls (an Assafed Yaniv landing on it)."
    ),
    "players": N_(
        "Per player: games, wins, scored rounds, average points a round, Yaniv "
        "calls, Assafs made and suffered, eliminations."
    ),
    "rounds": N_("By rule set and players: rounds per game, how rounds ended, turns per round."),
    "pickups": N_(
        "Draws by the rank of the card: from the pile, from the stock, the pile's share."
    ),
    "findings": N_("Finding codes by how often they occur, and in how many games."),
    "violations": N_("Findings by code and by player, most first."),
}
COLUMNS: dict[str, str] = {
    "player": N_("player"),
    "games": N_("games"),
    "wins": N_("wins"),
    "win_pct": N_("win %"),
    "avg_final_score": N_("average final score"),
    "yanivs": N_("Yaniv calls"),
    "assafed": N_("Assafed"),
    "assafs_made": N_("Assafs made"),
    "called_total": N_("total called"),
    "calls": N_("calls"),
    "risk_pct": N_("risk %"),
    "players": N_("players"),
    "seat": N_("seat"),
    "rounds_opened": N_("rounds opened"),
    "opened_won": N_("opened and won"),
    "opened_win_pct": N_("opened, won %"),
    "rules_key": N_("rules"),
    "reduced_from": N_("from"),
    "reduced_to": N_("to"),
    "reductions": N_("reductions"),
    "saved": N_("saved from elimination"),
    "victor_calls": N_("Victor calls"),
    "victor_saved": N_("Victor calls that saved"),
    "finished": N_("finished"),
    "rounds": N_("rounds"),
    "avg_points": N_("average points"),
    "assafs_suffered": N_("Assafs suffered"),
    "eliminations": N_("eliminations"),
    "rounds_per_game": N_("rounds per game"),
    "yaniv": N_("ended by Yaniv"),
    "stock": N_("stock"),
    "unfinished": N_("unfinished"),
    "turns_per_round": N_("turns per round"),
    "card": N_("card"),
    "pile": N_("pile"),
    "pile_pct": N_("pile %"),
    "code": N_("code"),
    "kind": N_("kind"),
    "findings": N_("findings"),
    "interval": N_("95% interval"),
}
#: the words the reports write as values (a finding's kind, the pickups' total row)
VALUE_WORDS: dict[str, str] = {
    **{k: KIND_WORDS[kind_word(k)] for k in ("violation", "claim", "inconsistency")},
    "all": N_("all"),
    "unknown": N_("unknown"),
}
WORD_COLUMNS = {"kind", "card"}
CHARTED = ["assaf-risk", "leaderboard", "seat-advantage", "reductions"]
TABLES_ONLY = ["players", "rounds", "pickups", "findings", "violations"]


@dataclass(frozen=True)
class Report:
    name: str
    title: str
    shows: str
    columns: list[tuple[str, str]]  # (column, its heading)
    rows: list[list[Any]]
    chart: Markup | None = None


def _report(
    table: analytics.Table, chart: Markup | None = None, extra: dict[str, list[Any]] | None = None
) -> Report:
    columns = [(c, gettext(COLUMNS.get(c, c))) for c in table.columns]
    words = [i for i, c in enumerate(table.columns) if c in WORD_COLUMNS]
    rows = [list(row) for row in table.rows]
    for row in rows:
        for i in words:
            if row[i] in VALUE_WORDS:
                row[i] = gettext(VALUE_WORDS[row[i]])
    for column, values in (extra or {}).items():
        columns.append((column, gettext(COLUMNS[column])))
        for row, value in zip(rows, values, strict=True):
            row.append(value)
    return Report(
        table.name,
        gettext(REPORT_TITLES[table.name]),
        gettext(REPORT_SHOWS[table.name]),
        columns,
        rows,
        chart,
    )


def _percent(value: float) -> str:
    return f"{100 * value:.1f}"


@viewer.get("/analytics", endpoint="analytics")
def analytics_page() -> str:
    players = request.args.get("players", type=int)
    if players is not None and not 2 <= players <= 8:
        players = None
    reports: list[Report] = []
    games = 0
    with store().reading() as r:
        if r is not None:
            games, _ = r.audited(None)
            archive = r.archive
            risk = analytics.report(archive, "assaf-risk", None, players)
            odds = [Odds(row[0], players, row[1], row[2]) for row in risk.rows]
            intervals = [
                f"{_percent(o.interval[0])} – {_percent(o.interval[1])}" if o.interval else ""
                for o in odds
            ]
            reports.append(_report(risk, risk_chart(odds), {"interval": intervals}))
            board = analytics.report(archive, "leaderboard")
            pct = board.columns.index("win_pct")
            reports.append(
                _report(
                    board,
                    bar_chart(
                        [(str(row[0]), row[pct]) for row in board.rows if row[pct] is not None][
                            :12
                        ],
                        gettext("win %"),
                        100,
                    ),
                )
            )
            seats = analytics.report(archive, "seat-advantage")
            reports.append(_report(seats, seat_chart(seats.rows)))
            reductions = analytics.report(archive, "reductions")
            reports.append(
                _report(
                    reductions,
                    bar_chart(
                        [(f"{row[1]} → {row[2]}", row[3]) for row in reductions.rows],
                        gettext("reductions"),
                        None,
                    ),
                )
            )
            for name in TABLES_ONLY:
                reports.append(_report(analytics.report(archive, name)))
    return render_template(
        "analytics.html",
        reports=reports,
        players=players,
        has_archive=bool(reports),
        games=games,
        archive=store().name,
        ingest=Markup("<code>yaniv-audit ingest PATH</code>"),
    )


# --- charts: inline SVG, styled by pages.css classes (no style attributes) ---------------

W, H, LEFT, BOTTOM, TOP = 480, 250, 48, 42, 14


def _svg(body: list[str], label: str, height: int = H) -> Markup:
    return Markup(
        f'<svg class="chart" viewBox="0 0 {W} {height}" role="img" aria-label="{escape(label)}"'
        f' dir="ltr" direction="ltr" xmlns="http://www.w3.org/2000/svg">{"".join(body)}</svg>'
    )


def _axis(top_value: float, unit: str, height: int = H) -> list[str]:
    """The y axis from 0 to ``top_value`` with four grid lines."""
    out = []
    plot = height - BOTTOM - TOP
    for i in range(5):
        value = top_value * i / 4
        y = height - BOTTOM - plot * i / 4
        out.append(f'<line class="grid" x1="{LEFT}" x2="{W - 6}" y1="{y:.1f}" y2="{y:.1f}"/>')
        out.append(
            f'<text class="tick" x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{value:g}{escape(unit)}</text>"
        )
    return out


def risk_chart(odds: list[Odds]) -> Markup | None:
    """Risk % by the total called: a bar each, its Wilson 95% interval as a whisker."""
    if not odds:
        return None
    plot, width = H - BOTTOM - TOP, W - LEFT - 6
    step = width / len(odds)
    body = _axis(100, "%")
    for i, o in enumerate(odds):
        x = LEFT + i * step + step * 0.15
        bar = step * 0.7
        risk = o.risk or 0.0
        y = H - BOTTOM - plot * risk
        body.append(
            f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" '
            f'height="{plot * risk:.1f}"><title>{o.total}: {_percent(risk)}% '
            f"({o.assafed}/{o.calls})</title></rect>"
        )
        if o.interval:
            low, high = o.interval
            mid = x + bar / 2
            y1, y2 = H - BOTTOM - plot * low, H - BOTTOM - plot * high
            body.append(
                f'<line class="whisker" x1="{mid:.1f}" x2="{mid:.1f}" y1="{y1:.1f}" y2="{y2:.1f}"/>'
            )
            for yy in (y1, y2):
                body.append(
                    f'<line class="whisker" x1="{mid - 4:.1f}" x2="{mid + 4:.1f}" '
                    f'y1="{yy:.1f}" y2="{yy:.1f}"/>'
                )
        body.append(
            f'<text class="tick" x="{x + bar / 2:.1f}" y="{H - BOTTOM + 17}" '
            f'text-anchor="middle">{o.total}</text>'
        )
        body.append(
            f'<text class="tick small" x="{x + bar / 2:.1f}" y="{H - BOTTOM + 33}" '
            f'text-anchor="middle">{o.calls}</text>'
        )
    return _svg(body, gettext("Assaf risk by the total called"))


def bar_chart(items: list[tuple[str, float]], label: str, top: float | None) -> Markup | None:
    """Horizontal bars, one a row: a name and its value."""
    if not items:
        return None
    row, name_w = 28, 130
    height = TOP + row * len(items) + 8
    top_value = top or max(v for _, v in items) or 1
    width = W - name_w - 50
    body = []
    for i, (name, value) in enumerate(items):
        y = TOP + i * row
        length = width * float(value) / float(top_value)
        body.append(
            f'<text class="name" unicode-bidi="plaintext" x="{name_w - 8}" y="{y + 19}" '
            'text-anchor="end">'
            f"{escape(name)}</text>"
        )
        body.append(
            f'<rect class="bar" x="{name_w}" y="{y + 3}" width="{length:.1f}" height="{row - 8}"/>'
        )
        body.append(
            f'<text class="value" x="{name_w + length + 6:.1f}" y="{y + 19}">{value:g}</text>'
        )
    return _svg(body, label, height)


def seat_chart(rows: list[tuple[Any, ...]]) -> Markup | None:
    """Win % by seat, a group of bars for each number of players; 100/N % the fair line."""
    rows = [row for row in rows if row[4] is not None]  # players, seat, games, wins, win_pct
    if not rows:
        return None
    plot, width = H - BOTTOM - TOP, W - LEFT - 6
    step = width / len(rows)
    body = _axis(100, "%")
    last_players = None
    for i, (players, seat, _games, _wins, pct, *_rest) in enumerate(rows):
        x = LEFT + i * step + step * 0.15
        bar = step * 0.7
        y = H - BOTTOM - plot * float(pct) / 100
        body.append(
            f'<rect class="bar seat-{int(players) % 4}" x="{x:.1f}" y="{y:.1f}" '
            f'width="{bar:.1f}" height="{plot * float(pct) / 100:.1f}"><title>'
            f"{players}: {seat} = {pct}%</title></rect>"
        )
        fair = H - BOTTOM - plot / int(players)
        body.append(
            f'<line class="fair" x1="{x - step * 0.1:.1f}" x2="{x + bar + step * 0.1:.1f}"'
            f' y1="{fair:.1f}" y2="{fair:.1f}"/>'
        )
        body.append(
            f'<text class="tick" x="{x + bar / 2:.1f}" y="{H - BOTTOM + 17}" '
            f'text-anchor="middle">{seat}</text>'
        )
        if players != last_players:
            seated = escape(gettext("%(n)s players", n=players))
            body.append(
                f'<text class="tick small" unicode-bidi="plaintext" x="{x:.1f}" '
                f'y="{H - BOTTOM + 35}">'
                f"{seated}</text>"
            )
            last_players = players
    return _svg(body, gettext("Seat advantage"))


# --- the live table and the recorder's service worker -------------------------------------

#: the static files the recorder needs offline (kept by its service worker)
RECORDER_FILES = ("style.css", "record.css", "i18n.js", "record.js")


@viewer.get("/tables/<table_id>")
def table_page(table_id: str) -> str:
    """A game being played, followed live (static/table.js reads the table's API and its
    event stream; nothing is read here, so an unknown table is said on the page)."""
    return render_template("table.html", table_id=table_id)


@viewer.get("/tables/<table_id>/log.jsonl")
def table_log_file(table_id: str) -> Response:
    """The table's log so far as a JSON Lines file, each entry in its canonical form (the
    fingerprint of the archived game): to keep, or to audit with ``yaniv-audit audit``."""
    table = tables().get(table_id)
    with table.lock:
        body = b"".join(leaf + b"\n" for leaf in table.kept().leaves)
    return Response(
        body,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''table-{table_id}.jsonl"},
    )


@viewer.get("/record/sw.js")
def recorder_worker() -> Response:
    """The recorder's service worker. Served under /record with ``Service-Worker-Allowed:
    /record`` so that its scope can be the page ``/record`` itself (a worker's default
    scope is its own folder, ``/record/``, which does not hold ``/record``)."""
    assets = [url_for("viewer.static", filename=name) for name in RECORDER_FILES]
    source = (Path(__file__).parent / "static" / "sw.js").read_text(encoding="utf-8")
    response = Response(
        f"const ASSETS = {json.dumps(assets)};\n{source}", mimetype="text/javascript"
    )
    response.headers["Service-Worker-Allowed"] = "/record"
    response.headers["Cache-Control"] = "no-cache"
    return response


@viewer.post("/record/qr")
def recorder_qr() -> Response:
    """The QR code of a table's link, as SVG, for the other phones to scan. The link (its
    key) comes in the body, never in the address, so no access log holds it; nothing is
    kept. Only a recorder's link of this server is drawn."""
    link = request.get_data(cache=False, as_text=True).strip()
    base = request.host_url + "record#table="
    if not link.startswith(base) or len(link) > 400 or "&key=" not in link:
        raise ApiError(400, f"expected a table's link, {base}<id>&key=<key>", "body", "bad_link")
    out = io.BytesIO()
    segno.make(link, error="m").save(
        out,
        kind="svg",
        scale=4,
        border=2,
        xmldecl=False,
        svgns=True,
        title=None,
        dark="#000",
        light="#fff",
    )
    response = Response(out.getvalue(), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response
