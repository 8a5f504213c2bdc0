"""Everything the commands write: the text (through :func:`echo`, which no control
character of a log passes), the colours of the verdicts, the progress bars, the notes on
standard error and how many there are (``--quiet``, ``--verbose``), JSON, the tables and
the summaries of the audits.

It imports nothing of the commands; they import it.
"""

from __future__ import annotations

import csv
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from decimal import Decimal
from typing import Any, NoReturn
from unicodedata import combining, east_asian_width

import click
import orjson

from ..core.errors import LogFormatError
from ..core.messages import rule_of, template_key
from ..core.report import (
    AnyReport,
    AuditReport,
    Comparison,
    Finding,
    Unreadable,
    audited,
    is_unreadable,
)
from ..core.sentences import finding_line, kind_word, result, round_story, verdict_word
from ..lang import Words

#: English, the rulings' words when no language is asked for
ENGLISH = Words()


class Output:
    """What a run writes, as click's context object (``ctx.obj``): ``verbosity`` is -1
    with --quiet (no progress, no notes, only the logs with something to say), 1 with
    --verbose (notes on what is done), else 0. Each run has its own."""

    def __init__(self) -> None:
        self.verbosity = 0


def verbosity() -> int:
    """The current run's verbosity (0 outside a command)."""
    ctx = click.get_current_context(silent=True)
    output = ctx.find_object(Output) if ctx is not None else None
    return output.verbosity if output is not None else 0


def emit_json(obj: Any) -> None:
    # heavy (the engine): imported when used, for start-up time
    from ..core.audit import to_json_line

    click.echo(to_json_line(obj))  # JSON escapes control characters itself


def fail(message: str, code: int) -> NoReturn:
    """One line on standard error (whatever names it holds, :func:`shown`), and exit."""
    echo(shown(f"yaniv-audit: {message}"), err=True)
    sys.exit(code)


def note(message: str, *, verbose: bool = False) -> None:
    """A note on standard error: none with --quiet; a ``verbose`` one only with --verbose."""
    if verbosity() >= (1 if verbose else 0):
        echo(shown(message), err=True)


def colour_on() -> bool:
    """Colours for verdicts: only on a terminal, and never when NO_COLOR is set
    (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


_COLOURS = {
    "CLEAN": ("green", False),
    "OK": ("green", False),
    "VALID": ("green", False),
    "UNREADABLE": ("magenta", True),
    "INVALID": ("red", True),
}
#: the colour of each verdict and kind of finding, by its key (:mod:`..core.sentences`)
_KIND_COLOURS = {
    "verdict.clean": ("green", False),
    "verdict.claims": ("yellow", False),
    "kind.claim": ("yellow", False),
    "verdict.violations": ("red", False),
    "kind.violation": ("red", False),
    "verdict.corrupt": ("magenta", True),
    "kind.inconsistency": ("magenta", True),
    "verdict.unreadable": ("magenta", True),
}
#: the words painted, in every language a ruling was said in (:func:`painted_words`)
_PAINTED: dict[str, tuple[str, bool]] = {}


def painted_words(words: Words) -> None:
    """Colour the verdict and kind names as ``words`` says them (in capitals, as the
    rulings write them)."""
    for key, colour in _KIND_COLOURS.items():
        for said in {words.say("say.upword", word=key), words.say("say.word", word=key)}:
            _PAINTED.setdefault(said, colour)


def paint(line: str) -> str:
    """A line of a ruling with its verdict word (CLEAN, RULES BROKEN, ...; the kind of a
    finding) in colour when :func:`colour_on` (through :func:`echo`'s ``painted``)."""
    if not colour_on():
        return line
    if not _PAINTED:
        painted_words(ENGLISH)
    names = "|".join(
        re.escape(w)
        for w in sorted(
            {*_PAINTED, *_COLOURS, "ok", "unreadable", "valid", "invalid"}, key=len, reverse=True
        )
    )
    match = re.search(rf"(?:^|: |^    |^      !! )({names})(?=\W|$)", line)
    if match is None:
        return line
    word = match.group(1)
    colour, bold = _PAINTED.get(word) or _COLOURS[word.upper()]
    start, end = match.span(1)
    return line[:start] + click.style(word, fg=colour, bold=bold or None) + line[end:]


@contextmanager
def progress(items: Any, length: int, label: str, unit: str = "game") -> Iterator[Any]:
    """A progress bar with its rate (games/s) on standard error, only on a terminal,
    without --quiet and only for more than one item; it is cleared when done, and
    :func:`say` prints lines above it, so that no line is glued to it."""
    # heavy (tqdm): imported when used, for start-up time
    from tqdm import tqdm

    shown = length > 1 and sys.stderr.isatty() and verbosity() >= 0
    with tqdm(
        items,
        total=length,
        desc=label,
        unit=unit,
        file=sys.stderr,
        leave=False,
        disable=not shown,
        dynamic_ncols=True,
    ) as bar:
        yield bar


def say(line: str, *, painted: bool = False, exact: bool = False) -> None:
    """One line on standard output, above a progress bar if one is shown (as
    :func:`echo` writes it)."""
    # heavy (tqdm): imported when used, for start-up time
    from tqdm import tqdm

    tqdm.write(line if exact else terminal_text(line, painted), file=sys.stdout)


#: what a terminal would obey rather than show: the C0 controls but tab and line end, DEL,
#: the C1 controls (U+0080-U+009F: CSI, OSC, NEL...), the marks that reorder text, and
#: the line and paragraph separators
_MARKS = "\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f{_MARKS}]")
#: the same, and tab and line end: what no name may carry into a line of output
_UNSAFE_IN_A_LINE = re.compile(f"[\x00-\x1f{_MARKS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


def shown(text: object) -> str:
    """A name as every output of the commands writes it (a file's, a player's, a game's,
    or a whole line that holds one): each control character, line end and mark that
    reorders text escaped as ``\\n``, ``\\x1b``, ``\\u202e``, so that a name can neither
    begin a line of its own (a file named ``x\\nfriday.jsonl: CORRUPT``) nor move or
    colour the text around it. JSON needs none of it (its encoder escapes them)."""
    return _UNSAFE_IN_A_LINE.sub(_escaped, str(text))


def terminal_text(text: str, painted: bool = False) -> str:
    """Text as the commands write it: every control character a log, a player's name, a
    note or an archive's value could carry (``ESC [``, ``ESC ]``, a bare CR, ...) escaped
    (``\\x1b``), never obeyed by the terminal, the line ends of a text of several lines
    kept (a name within a line is :func:`shown` first); then, when ``painted``, the
    verdict words coloured (:func:`paint`), the only escape sequences the commands
    write."""
    text = _UNSAFE.sub(_escaped, text)
    return "\n".join(map(paint, text.split("\n"))) if painted else text


def echo(
    message: Any = "",
    *,
    err: bool = False,
    nl: bool = True,
    painted: bool = False,
    exact: bool = False,
) -> None:
    """Every line of text the commands write goes through here (:func:`terminal_text`);
    ``exact`` (JSON, whose encoder escapes control characters) is written as it is."""
    text = str(message)
    click.echo(text if exact else terminal_text(text, painted), err=err, nl=nl)


def error_json(exc: LogFormatError) -> dict[str, Any]:
    out: dict[str, Any] = {"line": exc.line, "message": exc.message}
    if exc.line is None:
        out["index"] = exc.index
    if exc.messages:
        out["fields"] = exc.messages
    return out


def verdict_line(
    games: int, counts: dict[str, int], rule_sets: Sequence[str] = (), words: Words = ENGLISH
) -> str:
    """The summary's first line: the games (each once) and their verdicts, and, under
    several ``rule_sets``, how many audits (a game and a rule set each) that makes."""
    audits = sum(counts.values())
    under = (
        words.say("say.summary_under", audits=audits, sets=len(rule_sets), names=list(rule_sets))
        if len(rule_sets) > 1
        else ""
    )
    return words.say(
        "say.summary",
        games=games,
        under=under,
        **{v: counts.get(v, 0) for v in ("clean", "claims", "violations", "corrupt", "unreadable")},
    )


def print_reports(
    reports: Any,
    count: int,
    as_json: bool,
    render: Callable[[AnyReport], str],
    games: int | None = None,
    rule_sets: Sequence[str] = (),
    words: Words = ENGLISH,
) -> list[int]:
    """Print each report (and a summary when there are several); their exit codes.

    ``games``: how many games the ``count`` reports are of (under ``rule_sets``), when
    that is not one report each."""
    # heavy (the engine): imported when used, for start-up time
    from ..core.audit import EXIT_BY_VERDICT, to_json_line

    counts: dict[str, int] = {}
    codes: list[int] = []
    with progress(reports, count, "auditing") as bar:
        write = echo if bar.disable else say  # lines above the bar, never glued to it
        for report in bar:
            verdict = report["verdict"]
            counts[verdict] = counts.get(verdict, 0) + 1
            codes.append(EXIT_BY_VERDICT[verdict])
            if as_json:
                if not write_pieces(report, bar.disable):
                    write(to_json_line(report), exact=True)
            elif verdict != "clean" or verbosity() >= 0:
                write(render(report), painted=True)
    if count > 1 or not codes:
        echo(
            verdict_line(len(codes) if games is None else games, counts, rule_sets, words),
            err=as_json,
        )
    return codes


def write_pieces(report: AnyReport, plain: bool) -> bool:
    """Write the JSON line of a long game's report (its rounds or findings kept
    compressed, read as a stream: io/streaming.py) a piece at a time, as UTF-8 bytes: the
    line, 40 MB for 200,000 rounds, is never held whole, nor as text. False, and nothing
    written, for any other report, or where standard output is not UTF-8 (``plain``: no
    progress bar is shown, else the pieces are written above it)."""
    # heavy (the engine): imported when used, for start-up time
    from ..io.streaming import json_pieces

    out = getattr(sys.stdout, "buffer", None)
    if out is None or (sys.stdout.encoding or "").lower().replace("-", "") != "utf8":
        return False
    pieces = json_pieces(report)
    if pieces is None:
        return False
    from tqdm import tqdm

    with nullcontext() if plain else tqdm.external_write_mode(sys.stdout):
        sys.stdout.flush()
        for piece in pieces:
            out.write(piece)
        out.write(b"\n")
        out.flush()
    return True


def finding_lines(report: AuditReport) -> list[int] | None:
    """The file line of each event of a report's log, when it has findings to place."""
    # heavy (marshmallow): imported when used, for start-up time
    from ..io.diagnose import event_lines

    return event_lines(report["file"]) if report["findings"] else None


def unreadable_text(report: Unreadable, *, every: bool, words: Words = ENGLISH) -> str:
    """An unreadable log's ruling: all its problems (``every``), else the first and how
    many more there are."""
    # heavy (the engine, marshmallow): imported when used, for start-up time
    from ..io.diagnose import Diagnosis, diagnose, render

    source = report["file"]
    found = diagnose(source)
    if not found.total:  # unreadable to the replay only: its one error
        return render_report(report, words=words)
    if every:
        return "\n".join(map(shown, render(source, found, "UNREADABLE", words)))
    more = found.total - 1
    if words.gettext is not None:  # the reader's language (English: as other programs read it)
        first = render(source, Diagnosis(found.problems[:1], 1), "UNREADABLE", words)[0]
        if not more:
            return shown(first)
        key = "unreadable:first_more_stopped" if found.stopped else "unreadable:first_more"
        return shown(words.say(key, text=first, n=more, file=source))
    return shown(
        f"{source}: UNREADABLE: {found.problems[0].text()}"
        + (
            f" (and {'at least ' if found.stopped else ''}{more} more: yaniv-audit "
            f"validate {source} lists them)"
            if more
            else ""
        )
    )


#: the ruling lines of games that are not clean, and the players, a summary shows at most
SUMMARY_LINES, SUMMARY_PLAYERS = 20, 10


def print_summary(
    games: Any, count: int, rule_sets: Sequence[str], hint: str, words: Words = ENGLISH
) -> list[int]:
    """``audit --db``'s summary of the ``count`` audited games (:class:`AuditedGame`s)
    under ``rule_sets``: the verdicts, a ruling line for each report that is not clean,
    and the players of the games not simulated (each game under its first rule set),
    then ``hint`` on standard error; the exit codes seen. Every word in ``words``'
    language (``audit --db --lang``).

    It keeps counts, not the games: its memory does not grow with them."""
    # heavy (the engine): imported when used, for start-up time
    from ..core.audit import EXIT_BY_VERDICT

    counts: dict[str, int] = {}
    codes: set[int] = set()
    not_clean: list[str] = []
    more = 0
    players: dict[str, list[int]] = {}  # player -> [games, wins, finished games]
    humans = bots = impossible = audited = 0
    with progress(games, count, "auditing") as bar:
        for game in bar:
            audited += 1
            for report in game.reports:
                verdict = report["verdict"]
                counts[verdict] = counts.get(verdict, 0) + 1
                codes.add(EXIT_BY_VERDICT[verdict])
                if verdict != "clean":
                    if len(not_clean) < SUMMARY_LINES:
                        not_clean.append(render_line(report, words=words))
                    else:
                        more += 1
            first = game.reports[0]
            if first["verdict"] == "unreadable":
                continue
            if game.simulated:
                bots += 1
                continue
            if first["verdict"] == "corrupt":  # as the leaderboard: no standings can be
                impossible += 1  # read from an impossible game
                continue
            humans += 1
            final = first["final"]
            for player in final["scores"]:
                tally = players.setdefault(player, [0, 0, 0])
                tally[0] += 1
                tally[1] += player in final["winners"]
                tally[2] += final["finished"]
    echo(verdict_line(audited, counts, rule_sets, words))
    if not_clean:
        # a line per game, or per game and rule set
        several = "say.summary_not_clean_audits" if len(rule_sets) > 1 else "say.summary_not_clean"
        echo(words.say(several, n=len(not_clean) + more))
        for line in not_clean:
            echo("  " + line, painted=True)
        if more:
            echo("  " + words.say("say.summary_more", n=more))
    if players:
        left = [
            words.say(key, n=n)
            for n, key in ((bots, "say.summary_simulated"), (impossible, "say.summary_impossible"))
            if n
        ]
        if left:
            echo(words.say("say.summary_players_left", n=humans, left=left))
        else:
            echo(words.say("say.summary_players", n=humans))
        ranked = sorted(players.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
        table = render_table(
            [words.word(w) for w in ("player", "games", "finished", "wins")],  # as the leaderboard
            [(name, g, f, w) for name, (g, w, f) in ranked[:SUMMARY_PLAYERS]],
        )
        echo("\n".join("  " + line for line in table.split("\n")))
        if len(ranked) > SUMMARY_PLAYERS:
            echo("  " + words.say("say.summary_more_players", n=len(ranked) - SUMMARY_PLAYERS))
    note(hint)
    return sorted(codes)


def cells(text: str) -> int:
    """How many columns of a terminal ``text`` takes: a wide character (Korean, Chinese,
    Japanese) two, a combining mark none."""
    return sum(0 if combining(ch) else 2 if east_asian_width(ch) in "WF" else 1 for ch in text)


def render_table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    """Rows as aligned text columns (lists comma-joined, NULL as -)."""

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, list):
            return shown(",".join(map(str, value))) or "-"
        if isinstance(value, bool):
            return "true" if value else "false"
        return shown(value)

    texts = [[cell(v) for v in row] for row in rows]
    widths = [max([cells(c), *(cells(t[i]) for t in texts)]) for i, c in enumerate(columns)]
    numeric = [
        all(
            isinstance(row[i], (int, float)) and not isinstance(row[i], bool)
            for row in rows
            if row[i] is not None
        )
        and bool(rows)
        for i in range(len(columns))
    ]

    def line(values: list[str]) -> str:
        return "  ".join(
            " " * (w - cells(v)) + v if num else v + " " * (w - cells(v))
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    out = [line(columns), line(["-" * w for w in widths])]
    out.extend(line(t) for t in texts)
    return "\n".join(out)


def shown_rows(rows: Any) -> Any:
    """CSV rows as written: their text cells :func:`shown` (a line end, a control
    character or a mark that reorders text escaped: a line of CSV is a row, whatever reads
    it), then quoted where CSV needs it."""
    return ([shown(v) if isinstance(v, str) else v for v in row] for row in rows)


def json_value(value: Any) -> Any:
    """A SQL value JSON has no type for: DECIMAL as a number, BLOB as DuckDB shows it
    (``\\xNN`` for a byte that is no printable ASCII), dates and times in ISO 8601, the
    rest (INTERVAL, UUID, ...) as text."""
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}" for b in bytes(value))
    if hasattr(value, "isoformat"):  # dates and times, as orjson writes them
        return value.isoformat()
    return str(value)


def print_rows(
    columns: list[str], rows: list[tuple[Any, ...]], *, as_json: bool, as_csv: bool = False
) -> None:
    if as_json:
        for row in rows:
            obj = dict(zip(columns, row, strict=True))
            try:
                line = orjson.dumps(
                    obj, default=json_value, option=orjson.OPT_NON_STR_KEYS
                ).decode()
            except TypeError:  # an integer beyond 64 bits (HUGEINT)
                line = json.dumps(
                    obj, default=json_value, ensure_ascii=False, separators=(",", ":")
                )
            click.echo(line)  # JSON escapes control characters itself
    elif as_csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow([shown(c) for c in columns])
        writer.writerows(shown_rows(rows))
    elif columns:
        echo(render_table(columns, rows))


def csv_cell(value: Any) -> Any:
    """A value for a CSV cell: a list space-joined, NULL empty."""
    if isinstance(value, list):
        return " ".join(map(str, value))
    return "" if value is None else value


# --- rulings: the text of audit and compare reports ---------------------------


def render_report(
    report: AnyReport,
    *,
    strict: bool = False,
    lines: Sequence[int] | None = None,
    words: Words = ENGLISH,
    origin: tuple[str, str] | None = None,
) -> str:
    """A ruling a person reads: round by round, each finding with its rule, every word
    in ``words``' language (``audit --lang``; names, cards and codes as the log has them).
    ``origin``: where the rules came from (the sentence of the log's declaration,
    ``--rules``, the house file or ``$YANIV_AUDIT_RULES``, and its path), said under the
    verdict: ``rules: israeli(yaniv_max=5) — from the house file /club/yaniv-rules.toml``.

    ``strict``: the report was cut at its first finding (``--strict``). ``lines``:
    the file line of each event, to say where a finding is in the file too.
    """
    painted_words(words)
    if is_unreadable(report):
        err = report["error"]
        source: object = report["file"]
        # the "line" of a .json log's error is its event index
        key = "say.unreadable"
        if err.get("line") is not None:
            json_log = str(source).lower().endswith(".json")
            key = "say.unreadable_event" if json_log else "say.unreadable_at"
        text = err["message"]
        if words.gettext is not None:
            # heavy (marshmallow): imported when used, for start-up time
            from ..io.diagnose import said_text

            text = said_text(text, words)
        return shown(
            words.say(
                key,
                file=source,
                verdict=verdict_word("unreadable"),
                line=err.get("line"),
                text=text,
            )
        )
    report = audited(report)
    source = report.get("file", report["game_id"])
    out = [
        words.say(
            "say.head",
            file=source,
            verdict=verdict_word(report["verdict"]),
            rules=report["rules"]["id"],
            game=game_name(report),
        )
    ]
    if origin is not None:
        key, where = origin
        out.append("  " + words.say(key, rules=report["rules"]["id"], where=where))
    ruling = report.get("ruling")
    if ruling is not None:  # the line a table reads aloud
        out.append("  " + words.say(ruling["key"], **ruling["params"]))
    by_round: dict[int | None, list[Finding]] = {}
    for f in report["findings"]:
        by_round.setdefault(f["round"], []).append(f)
    for f in by_round.get(None, []):
        out.extend(_finding_lines(f, lines, words))
    findings = report["findings"]
    stop = (
        findings[-1] if findings and (strict or findings[-1]["kind"] == "inconsistency") else None
    )
    for r in report["rounds"]:
        cut = stop if stop is not None and stop["round"] == r["round"] else None
        out.append("  " + words.phrase(round_story(r, cut, strict)))
        if r.get("rule"):
            out.append("    " + words.say("story:rule", rule=r["rule"]))
        for f in by_round.get(r["round"], []):
            out.extend(_finding_lines(f, lines, words))
    out.append("  " + words.phrase(result(report["final"])))
    return "\n".join(map(shown, out))  # each a line, whatever the names in it


def render_line(
    report: AnyReport, lines: Sequence[int] | None = None, words: Words = ENGLISH
) -> str:
    """One ruling line per game, for audits of many logs (``lines``: as for
    :func:`render_report`)."""
    painted_words(words)
    if is_unreadable(report):
        return render_report(report, words=words)
    report = audited(report)
    source = report.get("file", report["game_id"])
    findings = report["findings"]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["kind"]] = counts.get(f["kind"], 0) + 1
    found = (
        words.say(
            "say.line_found",
            counts=", ".join(
                words.say("say.count", n=n, kind=kind_word(kind)) for kind, n in counts.items()
            ),
            code=findings[0]["code"],
            at=_at(findings[0]["seq"], lines, words),
        )
        if findings
        else ""
    )
    final = report["final"]
    said = (
        words.say("say.line_won", winners=final["winners"])
        if final["finished"]
        else words.say("say.line_unfinished", rounds=len(report["rounds"]))
    )
    return shown(
        words.say(
            "say.line",
            file=source,
            verdict=verdict_word(report["verdict"]),
            rules=report["rules"]["id"],
            found=found,
            result=said,
        )
    )


def _finding_lines(
    f: Finding, lines: Sequence[int] | None = None, words: Words = ENGLISH
) -> list[str]:
    """A finding of the ruling, and under it the rule parameters that decided it in plain
    words (its params' ``rule``, and its phrases')."""
    seq = f["seq"]
    line = lines[seq] if lines is not None and 0 <= seq < len(lines) else None
    out = ["    " + words.phrase(finding_line(f, line))]
    params = f.get("params")
    rule = deciding_rule(params) if params is not None else {}
    if rule:
        out.append("      " + words.say("story:rule", rule=rule))
    return out


def deciding_rule(params: Mapping[str, Any]) -> dict[str, Any]:
    """The rule parameters a finding's params name: its ``rule``, its phrases' and the
    phrases of its lists (a slap's reasons, a score's parts)."""
    rule = rule_of(params)
    for value in params.values():
        if isinstance(value, list):
            for item in value:
                if isinstance(item, Mapping) and "phrase" in item:
                    rule.update(deciding_rule(item))
    return rule


def _at(seq: int, lines: Sequence[int] | None, words: Words = ENGLISH) -> str:
    """``event 17 (line 18)``: where a finding is, in the log and in its file."""
    if lines is None or not 0 <= seq < len(lines):
        return words.say("say.at", seq=seq)
    return words.say("say.at_line", seq=seq, line=lines[seq])


def game_name(result: AuditReport | Comparison | Mapping[str, Any]) -> str:
    """A report's or a comparison's game: its own id, or, for a game named by its
    fingerprint, the fingerprint's first 16 digits."""
    game: str = result["game_id"]
    return game[:16] if game == result["fingerprint"] else game


def render_compare(result: Comparison, words: Words = ENGLISH) -> str:
    # heavy (the engine): imported when used, for start-up time
    from ..core.sentences import change_phrase

    painted_words(words)
    lines = [words.say("say.compare_head", game=game_name(result), baseline=result["baseline"])]
    width = max(len(x["rules"]["id"]) for x in result["results"])
    verdicts = [words.say("say.word", word=verdict_word(x["verdict"])) for x in result["results"]]
    vwidth = max(10, *map(len, verdicts))
    for x, verdict in zip(result["results"], verdicts, strict=True):
        final = x["final"]
        stop = x.get("unreplayable")
        if stop is not None:  # no scores: they would be those of the part replayed
            reason = {"phrase": template_key(stop["code"], stop["params"]), **stop["params"]}
            why = words.say("result:unreplayable", seq=stop["seq"], reason=reason)
            lines.append(f"  {x['rules']['id']:{width}}  {verdict:{vwidth}}  {why}")
            continue
        who = (
            ", ".join(final["winners"])
            if final["finished"]
            else words.say("say.word", word="unfinished")
        )
        lines.append(
            f"  {x['rules']['id']:{width}}  {verdict:{vwidth}}  "
            + words.say("say.compare_row", who=f"{who:12}", scores=final["scores"])
        )
    changes = result["changes"]
    if changes:
        params = {x["rules"]["id"]: x["rules"]["params"] for x in result["results"]}
        lines.append(words.say("say.compare_changes"))
        by_rules: dict[str, list[Any]] = {}
        for c in changes:
            by_rules.setdefault(c["rules"], []).append(c)
        for c in changes:
            # the change's data said (as the compare page says it), never its message
            lines.append("  - " + words.phrase(change_phrase(c, by_rules[c["rules"]])))
            because = c.get("because")
            if because and c["field"] != "replay":
                values = params[c["rules"]]
                rule = {name: values[name] for name in because}
                lines.append("      " + words.say("change:because", rules=c["rules"], rule=rule))
    else:
        lines.append(words.say("say.compare_none"))
    return "\n".join(map(shown, lines))
