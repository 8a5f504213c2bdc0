"""The step-through viewer: a game like a chess analysis board, findings marked.

    GET  /                       the archive's games (filter by ?player=) and a form
                                 to open a log file
    POST /view                   the board of an uploaded log (not stored)
    GET  /games/<fingerprint>    the board of an archived game
                                 (?rules=R another rule set, ?seat=P one player's view)
    GET  /games/<fingerprint>/compare
                                 the game under several rule sets side by side
                                 (?rules=A&rules=B..., the first the baseline; default:
                                 the declared rules, then every preset that differs)

    GET  /record                 the table's recorder: a scoresheet or every move, checked
                                 as it is entered (static/record.js, POST /api/v1/state)

    POST /store                  store an uploaded log in the archive (writes need the
                                 token, or a request from this machine)

The board's data is embedded in the page as JSON and drawn by ``static/viewer.js``;
the move list and the findings are rendered on the server too, so the page
reads without JavaScript.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, datetime
from typing import Any
from urllib.parse import quote

from babel.dates import format_date
from flask import Blueprint, Response, current_app, redirect, render_template, request, url_for
from markupsafe import Markup

from ..core.audit import compare_with_reports, finding_difference, other_tables
from ..core.errors import LogFormatError
from ..core.events import Event, Log, Note
from ..core.fit import fit_lines, fit_log
from ..core.merkle import tree_hash
from ..core.report import AuditReport, Comparison
from ..core.rules import PRESETS, RuleSet
from ..core.sentences import KIND_WORDS, kind_word, move_phrase, verdict_word
from ..lang import Words
from .api import (
    answer,
    cache,
    check_board_size,
    check_write_allowed,
    found_game,
    listing_args,
    read_log_bytes,
    rule_specs,
    rules_from,
    store,
    store_logs,
)
from .board import Step, board
from .errors import ApiError
from .explain import explain, score_chart
from .i18n import (
    N_,
    NameMarks,
    bdi,
    catalogue_of,
    current,
    gettext,
    isolated,
    names_isolated,
    names_joined,
)
from .said import CARD, OWN
from .store import base_name

viewer = Blueprint(
    "viewer",
    __name__,
    template_folder="templates",
    static_folder="static",
    static_url_path="/static/viewer",
)

GAMES_PER_PAGE = 50

#: a verdict and a finding's kind as the pages say them: the one plain name of each
#: kind of trouble, as the command line says it (the reports keep their own words)
VERDICT_LABELS = {
    v: KIND_WORDS[verdict_word(v)]
    for v in ("clean", "claims", "violations", "corrupt", "unreadable")
}
KIND_LABELS = {k: KIND_WORDS[kind_word(k)] for k in ("violation", "inconsistency", "claim")}


@viewer.app_context_processor
def page_helpers() -> dict[str, Any]:
    def verdict_label(verdict: str) -> str:
        return gettext(VERDICT_LABELS.get(verdict, verdict))

    def kind_label(kind: str) -> str:
        return gettext(KIND_LABELS.get(kind, kind))

    return {
        "verdict_label": verdict_label,
        "kind_label": kind_label,
        "names_joined": names_joined,
        "name_of": lambda p: p,
        "zip": zip,
        "Markup": Markup,
    }


def requested_rules() -> RuleSet | None:
    spec = (request.values.get("rules") or "").strip()
    return rules_from(spec, title="Unknown rules") if spec else None


def requested_rule_sets(log: Log) -> list[RuleSet]:
    """The ``rules`` given (the first is the baseline), else the declared rules and
    every preset with other parameters: who would have won at the other tables."""
    sets = [
        rules_from(spec, title="Unknown rules")
        for spec in rule_specs(request.values.getlist("rules"))
    ]
    return sets or other_tables(log)


def requested_seat(log: Log) -> str | None:
    seat = (request.values.get("seat") or "").strip() or None
    if seat is not None and seat not in log.players:
        raise ApiError(
            400,
            f"{seat!r} is not seated; the players are {', '.join(log.players)}",
            "seat",
            "bad_parameter",
            "No such seat",
        )
    return seat


def unreadable(source: str, exc: LogFormatError) -> ApiError:
    """The page for a log that cannot be read: where in it, and what is wrong."""
    where = f"{exc.where()}: " if exc.where() != "log" else ""
    return ApiError(
        422, f"{source}: {where}{exc.message}", "log", "unreadable_log", "Unreadable log"
    )


def render_board(log: Log, source: str, **links: Any) -> str:
    rules, seat = requested_rules(), requested_seat(log)
    check_board_size(log, source)
    try:
        data = board(log, rules, seat)
    except LogFormatError as exc:
        raise unreadable(source, exc) from None
    report, game = data["report"], data["game"]
    names = game["names"]
    # every name isolated: marked in the moves' and findings' words, then each in a <bdi>
    # (the page) or given by seat (the script); a name's U+202E reverses only the name
    marks = NameMarks(game["players"], names)
    # the move list in the page's language, cards as chips (the report's JSON keeps the
    # English text); the board's script shows the same sentences, it makes none
    words = Words(current().code, suits=True, isolate=True)
    moves = [move_html(event, seat, log, marks, words) for event in log.events]
    return render_template(
        "board.html",
        data=data,
        source=source,
        presets=list(PRESETS),
        rules_spec=request.values.get("rules", ""),
        title=game_title(
            game["game_id"], game["fingerprint"], game["players"], game["meta"], game["at"], names
        ),
        explained=explain(report, names),
        moves=moves,
        finding_html=lambda f: marks.html(marks.finding(f)),
        finding_texts={
            f"{f['seq']}:{f['code']}": marks.parts(marks.finding(f)) for f in report["findings"]
        },
        chart=score_chart(report, game["players"]),
        round_step=round_steps(data["steps"]),
        finding_params=lambda f: finding_params(f, report["rules"]["params"]),
        name_of=lambda p: names.get(p, p),
        names_joined=lambda ps: names_joined(ps, names),
        token_needed=bool(current_app.config.get("WRITE_TOKEN")),
        can_write=writing_allowed(),
        **links,
    )


def round_steps(steps: list[Step]) -> dict[int, int]:
    """Each round's last step (where its scores are written down): the score chart's
    point of a round steps the board there."""
    last: dict[int, int] = {}
    written: dict[int, int] = {}
    for step in steps:
        table = step["state"].get("round")
        if table:
            last[int(table["round"])] = int(step["index"])
            if step["type"] == "round_ended":
                written[int(table["round"])] = int(step["index"])
    return {**last, **written}


def writing_allowed() -> bool:
    """Whether this request may store a game (the token field is shown when one is set)."""
    try:
        check_write_allowed(token=None)
    except ApiError:
        return bool(current_app.config.get("WRITE_TOKEN"))
    return True


def finding_params(finding: dict[str, Any], params: dict[str, Any]) -> list[str]:
    """The rule parameters that decided a finding (its ``params["rule"]``)."""
    return [p for p in finding.get("params", {}).get("rule", {}) if p in params]


def move_html(event: Event, seat: str | None, log: Log, marks: NameMarks, words: Words) -> Markup:
    """A move in the page's language: names isolated, cards as chips, a note's own words
    isolated in their own direction and kept as the table wrote them."""
    said = move_phrase(event, seat, log.players, name=marks.mark)
    own = said.get("text") if isinstance(event, Note) else None
    if own is not None:
        said = {**said, "text": OWN}
    html = str(chips(marks.html(words.phrase(said))))
    if own is not None:
        html = html.replace(OWN, str(bdi(own)))
    return Markup(html)


_COLOUR = {"♣": "black", "♦": "red", "♥": "red", "♠": "black"}


def chips(html: Markup) -> Markup:
    """The cards of a sentence (escaped HTML) as chips in their colour, as the board
    draws them."""

    def chip(match: re.Match[str]) -> str:
        colour = _COLOUR[match.group(2)] if match.group(2) else "joker"
        return f'<span class="chip {colour}">{match.group(0)}</span>'

    return Markup(CARD.sub(chip, str(html)))


def game_title(
    game_id: str | None,
    fingerprint: str,
    players: list[str],
    meta: dict[str, Any] | None,
    at: str | None,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What a person calls a game: its ``game_id`` (unless it is only the fingerprint),
    else its players; the place and the date from ``meta`` or the start time. ``players``
    for the page to isolate each name, ``isolated`` the title with each name isolated
    by characters, for the ``<title>``."""
    meta = meta or {}
    named = game_id if game_id and game_id != fingerprint else None
    place = meta.get("place") if isinstance(meta.get("place"), str) else None
    when = meta.get("date") if isinstance(meta.get("date"), str) else at
    return {
        "heading": named or ", ".join(players),
        "named": named,
        "place": place,
        "date": local_date(when),
        "players": players,
        "isolated": isolated(named) if named else names_isolated(players, names),
    }


def local_date(text: str | None) -> str | None:
    """An ISO date or time as the page's language writes a date (as given if unreadable)."""
    if not text:
        return None
    try:
        day = (
            datetime.fromisoformat(text.replace("Z", "+00:00")).date()
            if "T" in text
            else date.fromisoformat(text[:10])
        )
    except ValueError:
        return text
    return format_date(day, format="medium", locale=current().code)


#: the list's orders, as the page offers them
SORT_CHOICES = [
    ("-ingested", N_("newest stored")),
    ("-started_at", N_("newest played")),
    ("started_at", N_("oldest played")),
    ("-events", N_("most events")),
    ("-findings", N_("most findings")),
    ("game_id", N_("game id")),
]
#: the list's query parameters that filter it (kept by the paging links)
LIST_FILTERS = ("q", "player", "rules", "verdict", "has_findings", "since", "until", "sort")


def cached_page(build: Callable[[], str]) -> Response:
    """A page of the archive built once for what decides it, then sent from the cache
    (issue 35: 40 readers asking for a 600-event game's page spent 70 ms of CPU on each,
    the replay, the move list and the template, and waited seconds for the cores): its
    address (the path and every parameter: the game, ``rules``, ``seat``, ``lang``), the
    language chosen, whether this request may write, and the archive's generation,
    which goes up whenever the archive may hold other games (a write, another file: the
    page's verdict, versions and rewrites), read with the archive opened."""
    with store().reading():
        generation = store().generation  # opening the file notices another process's write
    key = (
        "page",
        request.path,
        request.query_string,
        current().code,
        generation,
        writing_allowed(),
        bool(current_app.config.get("WRITE_TOKEN")),
    )
    entry = cache().build_once(key, lambda: build().encode("utf-8"))
    return answer(entry, mimetype="text/html")


@viewer.get("/")
def index() -> Response:
    return cached_page(list_page)


def list_page() -> str:
    # the page opens on the games stored last (a game just stored from /record is on
    # top); the API keeps its stable order, the first stored first
    filters, sort = listing_args(default_sort="-ingested")
    page = max(1, min(request.args.get("page", 1, type=int) or 1, 1 << 20))
    per_page = int(current_app.config.get("GAMES_PER_PAGE", GAMES_PER_PAGE))
    with store().reading() as reader:
        listing = (
            None
            if reader is None
            else reader.games(filters, sort=sort, limit=per_page, offset=(page - 1) * per_page)
        )
    asked = {k: (request.args.get(k) or "").strip() for k in LIST_FILTERS}
    kept = {k: v for k, v in asked.items() if v}
    pages = 0 if listing is None else -(-listing["total"] // per_page)
    return render_template(
        "index.html",
        listing=listing,
        asked=asked,
        page=page,
        pages=pages,
        page_url=lambda n: url_for("viewer.index", **{**kept, "page": n}),
        filtered=any(v for k, v in asked.items() if k != "sort"),
        sort=sort,
        sorts=[(value, gettext(label)) for value, label in SORT_CHOICES],
        verdicts=[(v, gettext(label)) for v, label in VERDICT_LABELS.items() if v != "unreadable"],
        list_title=list_title,
        presets=list(PRESETS),
        archive=store().name,
    )


def list_title(game: dict[str, Any]) -> dict[str, str | None]:
    """A listed game's readable title (its game_id, else its players) and date."""
    return game_title(
        game["game_id"], game["fingerprint"], list(game["players"]), None, game.get("started_at")
    )


def uploaded_log() -> tuple[Log, str]:
    upload = request.files.get("log")
    if upload is not None and upload.filename:
        data, name = upload.read(), upload.filename.replace("\\", "/").rsplit("/", 1)[-1]
    else:
        data, name = (request.form.get("text") or "").encode("utf-8"), "pasted log"
    if not data.strip():
        raise ApiError(400, "choose a log file (or paste one) to view", "log", "no_log", "No log")
    # as every way in reads a log: the same caps (events), the same errors (issue 35: a
    # page of 155,002 events was 270 MB, 3.84 GB of memory)
    return read_log_bytes(data, name), name


@viewer.get("/games")
def games_list() -> Response:
    """The list of games is the front page: ``/games`` (what a user tries, as a game is
    ``/games/<fingerprint>``) goes there, with its search and language."""
    query = request.query_string.decode("latin-1")  # as it came, percent-encoded
    target = url_for("viewer.index") + (f"?{query}" if query else "")
    return redirect(target, 301)  # type: ignore[return-value]


@viewer.get("/record")
def record() -> str:
    """The table's recorder: the game written down as it is played, every entry checked
    by ``POST /api/v1/state`` (the page keeps the log in the browser, nothing here)."""
    return render_template(
        "record.html",
        presets=list(PRESETS),
        token_needed=bool(current_app.config.get("WRITE_TOKEN")),
    )


@viewer.post("/view")
def view_upload() -> str:
    log, name = uploaded_log()
    log_text = "\n".join(leaf.decode("utf-8") for leaf in log.leaves)  # canonical: reads the same
    return render_board(log, name, uploaded=True, log_text=log_text)


@viewer.post("/store")
def store_upload() -> Response:
    """Store the log the board page shows, then show it from the archive."""
    check_write_allowed(token=request.form.get("token"))
    log, name = uploaded_log()
    data = "".join(leaf.decode("utf-8") + "\n" for leaf in log.leaves).encode("utf-8")
    store_logs([(name, data)])
    target = url_for("viewer.view_game", fingerprint=tree_hash(log.leaves).hex())
    return redirect(target, 303)  # type: ignore[return-value]


def archived(ref: str) -> tuple[Log, str, dict[str, Any]]:
    """An archived game (by fingerprint, prefix or game_id), the file it came from, and
    its row of the listing, with ``rewritten_by``: the logs that rewrite it."""
    with store().reading() as reader:
        game = found_game(reader, ref)
        assert reader is not None
        game = {**game, "rewritten_by": reader.rewritten_by(game["fingerprint"])}
        try:
            return reader.log(game["fingerprint"], game["source"]), game["source"], game
        except LogFormatError as exc:  # the stored events were altered (yaniv-audit verify)
            raise unreadable(f"game {game['fingerprint']}", exc) from None


def fit_section(log: Log) -> list[tuple[str, list[int]]] | None:
    """ "Which rules fit this game?": the lines of ``rules fit`` in the reader's language,
    each with the events it names (linked to the board's steps); None for a log whose
    replay finds it unreadable (the board says so)."""
    try:
        found = fit_log(log)
    except LogFormatError:
        return None
    return fit_lines(found, catalogue_of(current().code).ugettext, suits=True)


@viewer.get("/games/<fingerprint>")
def view_game(fingerprint: str) -> Response:
    def build() -> str:
        log, source, stored = archived(fingerprint)
        return render_board(log, source, uploaded=False, stored=stored, fit=fit_section(log))

    return cached_page(build)


@viewer.get("/games/<fingerprint>/log.jsonl")
def game_log_file(fingerprint: str) -> Response:
    """The archived log as a JSON Lines file, each event in its canonical form (the same
    fingerprint): to keep, replay or audit elsewhere."""
    log, source, _ = archived(fingerprint)
    name = base_name(source)
    if not name.endswith(".jsonl"):
        name = (name.rsplit(".", 1)[0] if name.endswith(".json") else name) + ".jsonl"
    body = b"\n".join(log.leaves) + b"\n"
    return Response(
        body,
        mimetype="application/x-ndjson",
        headers={"Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}"},
    )


@viewer.get("/compare/<fingerprint>")
def compare_elsewhere(fingerprint: str) -> Response:
    """``/compare/<fingerprint>``, where a user tries it: the game's comparison page."""
    query = request.query_string.decode("ascii", "replace")  # every rules=, kept as sent
    target = url_for("viewer.compare_game", fingerprint=fingerprint) + (
        f"?{query}" if query else ""
    )
    return redirect(target, 301)  # type: ignore[return-value]


@viewer.get("/games/<fingerprint>/compare")
def compare_game(fingerprint: str) -> str:
    log, source, _ = archived(fingerprint)
    try:
        result, reports = compare_with_reports(log, requested_rule_sets(log))
    except LogFormatError as exc:
        raise unreadable(source, exc) from None
    players = list(log.players)
    names = dict(log.game.names)
    return render_template(
        "compare.html",
        result=result,
        players=players,
        source=source,
        presets=list(PRESETS),
        columns=compare_columns(result, reports, players),
        finding_changes=finding_changes(reports),
        rule_params={x["rules"]["id"]: x["rules"]["params"] for x in result["results"]},
        bars=final_bars(result, players),
        title=game_title(
            log.game.game_id, result["fingerprint"], players, dict(log.game.meta or {}), log.game.at
        ),
        name_of=lambda p: names.get(p, p),
        names_joined=lambda ps: names_joined(ps, names),
    )


def compare_columns(
    result: Comparison, reports: Sequence[AuditReport], players: list[str]
) -> list[dict[str, Any]]:
    """Each rule set's column of the comparison, every cell marked where it differs
    from the baseline (the first): a score lower than the baseline's is better."""
    base = result["results"][0]
    columns = []
    for res, report in zip(result["results"], reports, strict=True):
        scores = {}
        # a rule set that cannot replay the log has no scores (what it replayed is no game)
        stop = res.get("unreplayable") if "unreplayable" not in base else None
        for p in players:
            a, b = base["final"]["scores"].get(p), res["final"]["scores"].get(p)
            if stop is not None:
                b = None
            trend = "" if a == b or a is None or b is None else (" better" if b < a else " worse")
            scores[p] = {
                "value": b,
                "base": a,
                "differs": a != b and stop is None,
                "trend": trend,
                "out": p in res["final"]["out"],
            }
        columns.append(
            {
                "id": res["rules"]["id"],
                "unreplayable": stop,
                "verdict": res["verdict"],
                "verdict_differs": res["verdict"] != base["verdict"],
                "winners": res["final"]["winners"],
                "finished": res["final"]["finished"],
                "winners_differ": (res["final"]["winners"], res["final"]["finished"])
                != (base["final"]["winners"], base["final"]["finished"]),
                "scores": scores,
                "rounds": len(res["rounds"]),
                "rounds_differ": len(res["rounds"]) != len(base["rounds"]),
                "findings": len(report["findings"]),
                "findings_differ": len(report["findings"]) != len(reports[0]["findings"]),
            }
        )
    return columns


def finding_changes(reports: Sequence[AuditReport]) -> list[dict[str, Any]]:
    """Per rule set after the baseline: the findings it adds and removes, each with its
    message (:func:`yaniv_audit.core.audit.finding_difference`: one each, two at one event
    are two)."""
    out = []
    for report in reports[1:]:
        added, removed = finding_difference(reports[0]["findings"], report["findings"])
        out.append({"rules": report["rules"]["id"], "added": added, "removed": removed})
    return out


def final_bars(result: Comparison, players: list[str], width: int = 640) -> dict[str, Any]:
    """A grouped bar chart's geometry: per player, one bar per rule set (its final score),
    with each rule set's score limit marked on the bars."""
    replayed = "unreplayable" in result["results"][0]
    # a rule set that cannot replay the log has no final scores to draw
    sets = [r for r in result["results"] if replayed or "unreplayable" not in r]
    top = max([max(r["final"]["scores"].values(), default=0) for r in sets] + [10])
    top = int(-(-top * 1.1 // 10) * 10)
    left, right, head, foot, height = 10, 10, 10, 36, 240
    plot_h = height - head - foot
    group = (width - left - right) / max(1, len(players))
    bar = min(28.0, (group - 16) / max(1, len(sets)))
    bars = []
    for i, p in enumerate(players):
        x0 = left + i * group + (group - bar * len(sets)) / 2
        for k, r in enumerate(sets):
            value = r["final"]["scores"].get(p)
            if value is None:
                continue
            h = plot_h * value / top
            bars.append(
                {
                    "x": round(x0 + k * bar, 1),
                    "y": round(head + plot_h - h, 1),
                    "w": round(bar - 2, 1),
                    "h": round(h, 1),
                    "series": k % 8,
                    "value": value,
                    "rules": r["rules"]["id"],
                    "player": p,
                }
            )
    labels = [{"x": round(left + (i + 0.5) * group, 1), "player": p} for i, p in enumerate(players)]
    return {
        "width": width,
        "height": height,
        "base": head + plot_h,
        "bars": bars,
        "labels": labels,
        "sets": [r["rules"]["id"] for r in sets],
        "left": left,
        "right": width - right,
    }
