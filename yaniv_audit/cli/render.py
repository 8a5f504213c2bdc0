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
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, NoReturn

import click
import orjson

from ..core.errors import LogFormatError
from ..core.messages import Translate, player_names, render, rule_of, template_key
from ..core.report import (
    AnyReport,
    AuditReport,
    Comparison,
    Finding,
    Round,
    Unreadable,
    audited,
    is_unreadable,
)


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
    "CLAIMS": ("yellow", False),
    "CLAIM": ("yellow", False),
    "VIOLATIONS": ("red", False),
    "VIOLATION": ("red", False),
    "CORRUPT": ("magenta", True),
    "IMPOSSIBLE": ("magenta", True),
    "UNREADABLE": ("magenta", True),
    "INVALID": ("red", True),
}


def paint(line: str) -> str:
    """A line of a ruling with its verdict word (CLEAN, VIOLATIONS, ...; the mark of a
    finding) in colour when :func:`colour_on` (through :func:`echo`'s ``painted``)."""
    if not colour_on():
        return line
    match = re.search(
        r"(?:^|: |^    )(CLEAN|CLAIMS?|VIOLATIONS?|CORRUPT|IMPOSSIBLE|"
        r"UNREADABLE|ok|unreadable|valid|invalid)\b",
        line,
    )
    if match is None:
        return line
    word = match.group(1)
    colour, bold = _COLOURS[word.upper()]
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


def verdict_line(games: int, counts: dict[str, int], rule_sets: Sequence[str] = ()) -> str:
    """The summary's first line: the games (each once) and their verdicts, and, under
    several ``rule_sets``, how many audits (a game and a rule set each) that makes."""
    audits = sum(counts.values())
    under = (
        f", {audits} audits under {len(rule_sets)} rule sets ({', '.join(rule_sets)})"
        if len(rule_sets) > 1
        else ""
    )
    return (
        f"{games} game{'s' if games != 1 else ''}{under}: {counts.get('clean', 0)} clean, "
        f"{counts.get('claims', 0)} with claims only, "
        f"{counts.get('violations', 0)} with violations, "
        f"{counts.get('corrupt', 0)} corrupt, {counts.get('unreadable', 0)} unreadable"
    )


def print_reports(
    reports: Any,
    count: int,
    as_json: bool,
    render: Callable[[AnyReport], str],
    games: int | None = None,
    rule_sets: Sequence[str] = (),
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
                write(to_json_line(report), exact=True)
            elif verdict != "clean" or verbosity() >= 0:
                write(render(report), painted=True)
    if count > 1 or not codes:
        echo(verdict_line(len(codes) if games is None else games, counts, rule_sets), err=as_json)
    return codes


def finding_lines(report: AuditReport) -> list[int] | None:
    """The file line of each event of a report's log, when it has findings to place."""
    # heavy (marshmallow): imported when used, for start-up time
    from ..diagnose import event_lines

    return event_lines(report["file"]) if report["findings"] else None


def unreadable_text(report: Unreadable, *, every: bool) -> str:
    """An unreadable log's ruling: all its problems (``every``), else the first and how
    many more there are."""
    # heavy (the engine, marshmallow): imported when used, for start-up time
    from ..diagnose import diagnose, render

    source = report["file"]
    found = diagnose(source)
    if not found.total:  # unreadable to the replay only: its one error
        return render_report(report)
    if every:
        return "\n".join(map(shown, render(source, found, "UNREADABLE")))
    more = found.total - 1
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


def print_summary(games: Any, count: int, rule_sets: Sequence[str], hint: str) -> list[int]:
    """``audit --db``'s summary of the ``count`` audited games (:class:`AuditedGame`s)
    under ``rule_sets``: the verdicts, a ruling line for each report that is not clean,
    and the players of the games not simulated (each game under its first rule set),
    then ``hint`` on standard error; the exit codes seen.

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
                        not_clean.append(render_line(report))
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
    echo(verdict_line(audited, counts, rule_sets))
    if not_clean:
        several = " audits" if len(rule_sets) > 1 else ""  # a line per game and rule set
        echo(f"Not clean ({len(not_clean) + more}{several}):")
        for line in not_clean:
            echo("  " + line, painted=True)
        if more:
            echo(f"  and {more} more (--all prints every ruling line)")
    if players:
        out = [
            f"the {n} {what} game{'s' if n != 1 else ''}"
            for n, what in ((bots, "simulated"), (impossible, "corrupt"))
            if n
        ]
        left = f" ({' and '.join(out)} left out)" if out else ""
        echo(
            f"Players of the {humans} game{'s' if humans != 1 else ''} played by "
            f"people, by wins{left}:"
        )
        ranked = sorted(players.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
        table = render_table(
            ["player", "games", "finished", "wins"],  # as the leaderboard
            [(name, g, f, w) for name, (g, w, f) in ranked[:SUMMARY_PLAYERS]],
        )
        echo("\n".join("  " + line for line in table.split("\n")))
        if len(ranked) > SUMMARY_PLAYERS:
            echo(
                f"  and {len(ranked) - SUMMARY_PLAYERS} more players (yaniv-audit "
                "report leaderboard lists them all)"
            )
    note(hint)
    return sorted(codes)


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
    widths = [max([len(c), *(len(t[i]) for t in texts)]) for i, c in enumerate(columns)]
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
            v.rjust(w) if num else v.ljust(w)
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

#: a finding's kind (the report's ``kind``) as the ruling marks it
MARK = {"violation": "VIOLATION", "inconsistency": "IMPOSSIBLE", "claim": "CLAIM"}


def render_report(
    report: AnyReport,
    *,
    strict: bool = False,
    lines: Sequence[int] | None = None,
    gettext: Translate | None = None,
) -> str:
    """A ruling a person reads: round by round, each finding with its rule.

    ``strict``: the report was cut at its first finding (``--strict``). ``lines``:
    the file line of each event, to say where a finding is in the file too. ``gettext``:
    a language's catalogue, to say the findings in it (``audit --lang``).
    """
    if is_unreadable(report):
        err = report["error"]
        source: object = report["file"]
        # the "line" of a .json log's error is its event index
        word = "event" if str(source).lower().endswith(".json") else "line"
        where = f"{word} {err['line']}: " if err.get("line") is not None else ""
        return shown(f"{source}: UNREADABLE: {where}{err['message']}")
    report = audited(report)
    source = report.get("file", report["game_id"])
    out = [
        f"{source}: {report['verdict'].upper()} under {report['rules']['id']}"
        f" (game {game_name(report)})"
    ]
    ruling = report.get("ruling")
    if ruling is not None:  # the line a table reads aloud
        out.append("  " + render(ruling["key"], ruling["params"], gettext))
    by_round: dict[int | None, list[Finding]] = {}
    for f in report["findings"]:
        by_round.setdefault(f["round"], []).append(f)
    for f in by_round.get(None, []):
        out.extend(_finding_lines(f, lines, gettext))
    findings = report["findings"]
    stop = (
        findings[-1] if findings and (strict or findings[-1]["kind"] == "inconsistency") else None
    )
    for r in report["rounds"]:
        cut = stop if stop is not None and stop["round"] == r["round"] else None
        out.append("  " + _round_line(r, cut, strict))
        if r.get("rule"):
            out.append("    " + render("story:rule", {"rule": r["rule"]}, gettext))
        for f in by_round.get(r["round"], []):
            out.extend(_finding_lines(f, lines, gettext))
    final = report["final"]
    scores = ", ".join(f"{p} {s}" for p, s in final["scores"].items())
    if final["finished"]:
        out.append(f"  Result: {player_names(final['winners'])} won. Final scores: {scores}.")
    else:
        out.append(f"  Result: unfinished. Scores so far: {scores}.")
    return "\n".join(map(shown, out))  # each a line, whatever the names in it


def render_line(report: AnyReport, lines: Sequence[int] | None = None) -> str:
    """One ruling line per game, for audits of many logs (``lines``: as for
    :func:`render_report`)."""
    if is_unreadable(report):
        return render_report(report)
    report = audited(report)
    source = report.get("file", report["game_id"])
    findings = report["findings"]
    counts: dict[str, int] = {}
    for f in findings:
        counts[f["kind"]] = counts.get(f["kind"], 0) + 1
    what = ", ".join(f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in counts.items())
    first = (
        f"; first: {findings[0]['code']} at {_at(findings[0]['seq'], lines)}" if findings else ""
    )
    final = report["final"]
    played = len(report["rounds"])
    result = (
        f"{player_names(final['winners'])} won"
        if final["finished"]
        else f"unfinished after {played} round{'' if played == 1 else 's'}"
    )
    return shown(
        f"{source}: {report['verdict'].upper()} under {report['rules']['id']}"
        f"{' (' + what + first + ')' if findings else ''}; {result}"
    )


def _finding_lines(
    f: Finding, lines: Sequence[int] | None = None, gettext: Translate | None = None
) -> list[str]:
    """A finding of the ruling, and under it the rule parameters that decided it in plain
    words (its params' ``rule``, and its phrases')."""
    params = f.get("params")
    said = f["message"] if gettext is None or params is None else render(f["code"], params, gettext)
    out = [f"    {MARK[f['kind']]} {f['code']} at {_at(f['seq'], lines)}: {said}"]
    rule = deciding_rule(params) if params is not None else {}
    if rule:
        out.append("      " + render("story:rule", {"rule": rule}, gettext))
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


def _at(seq: int, lines: Sequence[int] | None) -> str:
    """``event 17 (line 18)``: where a finding is, in the log and in its file."""
    if lines is None or not 0 <= seq < len(lines):
        return f"event {seq}"
    return f"event {seq} (line {lines[seq]})"


def _round_line(r: Round, stop: Finding | None = None, strict: bool = False) -> str:
    """One round of the ruling; ``stop``: the finding at which the replay stopped in it."""
    head = f"Round {r['round']} (opened by {r['starter']}"
    head += ", moves checked)" if r["moves_checked"] else ", scoresheet only)"
    if r["end"] is None:
        if stop is None:
            return head + ": not scored (no Yaniv, showdown or exhausted stock ended it)."
        why = (
            "--strict stops at the first finding"
            if strict and stop["kind"] != "inconsistency"
            else "the log is impossible from there on"
        )
        return head + f": not scored: the replay stopped at event {stop['seq']} ({why})."
    totals = ", ".join(f"{p} {t}" for p, t in r["totals"].items())
    caller = r["caller"]
    if caller is not None and caller not in r["totals"]:
        how = (
            f"{caller} called Yaniv but is out, so the call takes no part; lowest hand "
            f"{player_names(r['winners'])}"
        )
    elif r["end"] == "stock":
        how = f"the stock ran out; lowest hand {player_names(r['winners'])}"
    elif r["assaf"]:
        assert caller is not None  # a Yaniv ended it
        how = (
            f"{caller} called Yaniv at {r['totals'][caller]} and was Assafed by "
            f"{player_names(r['assaf'])}"
        )
    else:
        assert caller is not None  # a Yaniv ended it
        how = f"{caller} called Yaniv at {r['totals'][caller]} and won"
    text = f"{head}: {how}. Hands: {totals}. Points: " + ", ".join(
        f"{p} {v}" for p, v in r["points"].items()
    )
    for red in r["reductions"]:
        text += f"; {red['player']} landed on {red['from']} and drops to {red['to']}"
    text += ". Scores: " + ", ".join(f"{p} {s}" for p, s in r["scores"].items()) + "."
    if r["out"]:
        text += f" Out: {player_names(r['out'])}."
    return text


def game_name(result: AuditReport | Comparison | Mapping[str, Any]) -> str:
    """A report's or a comparison's game: its own id, or, for a game named by its
    fingerprint, the fingerprint's first 16 digits."""
    game: str = result["game_id"]
    return game[:16] if game == result["fingerprint"] else game


def render_compare(result: Comparison) -> str:
    lines = [f"game {game_name(result)}: baseline {result['baseline']}"]
    width = max(len(x["rules"]["id"]) for x in result["results"])
    for x in result["results"]:
        final = x["final"]
        stop = x.get("unreplayable")
        if stop is not None:  # no scores: they would be those of the part replayed
            why = render(
                "result:unreplayable",
                {
                    "seq": stop["seq"],
                    "reason": {
                        "phrase": template_key(stop["code"], stop["params"]),
                        **stop["params"],
                    },
                },
            )
            lines.append(f"  {x['rules']['id']:{width}}  {x['verdict']:10}  {why}")
            continue
        who = player_names(final["winners"]) if final["finished"] else "unfinished"
        scores = ", ".join(f"{p} {s}" for p, s in final["scores"].items())
        lines.append(
            f"  {x['rules']['id']:{width}}  {x['verdict']:10}  winner: {who:12}  scores: {scores}"
        )
    if result["changes"]:
        params = {x["rules"]["id"]: x["rules"]["params"] for x in result["results"]}
        lines.append("What changes:")
        for c in result["changes"]:
            lines.append(f"  - {c['message']}")
            because = c.get("because")
            if because and c["field"] != "replay":
                values = params[c["rules"]]
                rule = {name: values[name] for name in because}
                lines.append(
                    "      " + render("change:because", {"rules": c["rules"], "rule": rule})
                )
    else:
        lines.append("Nothing changes: every rule set gives the same rounds and result.")
    return "\n".join(map(shown, lines))
