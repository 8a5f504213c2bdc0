"""The ``yaniv-audit`` command line (docs/log-format.md, the README).

Exit status, every command: 0 all fine; 1 something was found; 2 wrong usage;
3 unreadable or corrupt input. With several inputs the worst wins.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shlex
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .. import __version__
from ..errors import InternalError, LogFormatError, RulesError, YanivAuditError
from ..messages import LANGUAGES
from ..rules import format_value

if TYPE_CHECKING:
    from ..events import Log
    from ..rules import RuleSet

EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


def worst(codes: list[int]) -> int:
    """3 beats 1 beats 0 (2 is usage and never mixed in)."""
    for code in (EXIT_BAD_INPUT, EXIT_FOUND):
        if code in codes:
            return code
    return EXIT_OK


def emit_json(obj: Any) -> None:
    from ..audit import to_json_line

    click.echo(to_json_line(obj))  # JSON escapes control characters itself


def fail(message: str, code: int) -> NoReturn:
    echo(f"yaniv-audit: {message}", err=True)
    sys.exit(code)


#: -1 with --quiet (no progress, no notes, only the logs with something to say),
#: 1 with --verbose (notes on what is done), else 0
VERBOSITY = 0


def set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    global VERBOSITY
    if value:
        VERBOSITY = -1 if param.name == "quiet" else 1


def verbosity_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """-q/--quiet and -v/--verbose, before the command name or after it."""
    f = click.option("-v", "--verbose", is_flag=True, expose_value=False, is_eager=True,
                     callback=set_verbosity,
                     help="also say what is done (files, processes, rules) on standard "
                          "error, and show the traceback of an internal error")(f)
    return click.option("-q", "--quiet", is_flag=True, expose_value=False, is_eager=True,
                        callback=set_verbosity,
                        help="no progress bar and no notes on standard error; validate "
                             "and audit list only the logs with something to report")(f)


def note(message: str, *, verbose: bool = False) -> None:
    """A note on standard error: none with --quiet; a ``verbose`` one only with --verbose."""
    if VERBOSITY >= (1 if verbose else 0):
        echo(message, err=True)


def colour_on() -> bool:
    """Colours for verdicts: only on a terminal, and never when NO_COLOR is set
    (https://no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


_COLOURS = {"CLEAN": ("green", False), "OK": ("green", False), "VALID": ("green", False),
            "CLAIMS": ("yellow", False), "CLAIM": ("yellow", False),
            "VIOLATIONS": ("red", False), "VIOLATION": ("red", False),
            "CORRUPT": ("magenta", True), "IMPOSSIBLE": ("magenta", True),
            "UNREADABLE": ("magenta", True), "INVALID": ("red", True)}


def paint(line: str) -> str:
    """A line of a ruling with its verdict word (CLEAN, VIOLATIONS, ...; the mark of a
    finding) in colour when :func:`colour_on` (through :func:`echo`'s ``painted``)."""
    if not colour_on():
        return line
    match = re.search(r"(?:^|: |^    )(CLEAN|CLAIMS?|VIOLATIONS?|CORRUPT|IMPOSSIBLE|"
                      r"UNREADABLE|ok|unreadable|valid|invalid)\b", line)
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
    from tqdm import tqdm

    shown = length > 1 and sys.stderr.isatty() and VERBOSITY >= 0
    with tqdm(items, total=length, desc=label, unit=unit, file=sys.stderr, leave=False,
              disable=not shown, dynamic_ncols=True) as bar:
        yield bar


def say(line: str, *, painted: bool = False, exact: bool = False) -> None:
    """One line on standard output, above a progress bar if one is shown (as
    :func:`echo` writes it)."""
    from tqdm import tqdm

    tqdm.write(line if exact else terminal_text(line, painted), file=sys.stdout)


#: what a terminal would obey rather than show: the C0 controls but tab and line end, DEL,
#: the C1 controls (U+0080-U+009F: CSI, OSC...), and the marks that reorder text
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e"
                     "\u2066-\u2069]")


def terminal_text(text: str, painted: bool = False) -> str:
    """Text as the commands write it: every control character a log, a player's name, a
    note or an archive's value could carry (``ESC [``, ``ESC ]``, a bare CR, ...) shown as
    ``?``, never obeyed by the terminal; then, when ``painted``, the verdict words
    coloured (:func:`paint`), the only escape sequences the commands write."""
    text = _UNSAFE.sub("?", text)
    return "\n".join(map(paint, text.split("\n"))) if painted else text


def echo(message: Any = "", *, err: bool = False, nl: bool = True, painted: bool = False,
         exact: bool = False) -> None:
    """Every line of text the commands write goes through here (:func:`terminal_text`);
    ``exact`` (JSON, whose encoder escapes control characters) is written as it is."""
    text = str(message)
    click.echo(text if exact else terminal_text(text, painted), err=err, nl=nl)


#: the archive ``serve --demo`` serves, in the current directory: the sample games apart
#: from the archive a club keeps its own games in
DEMO_DB = "yaniv-demo.duckdb"


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db", "db", default=None, metavar="FILE",
        help="the archive (default: $YANIV_AUDIT_DB, else yaniv-archive.duckdb here)",
    )(f)


def complete_rules(ctx: click.Context, param: click.Parameter, incomplete: str,
                   ) -> list[click.shell_completion.CompletionItem]:
    """Shell completion of a rule set: the presets that start with what is typed (each
    with its source), then the files there, as a rules file is a path."""
    from click.shell_completion import CompletionItem

    from ..rules import PRESET_SOURCES, PRESETS

    presets = [CompletionItem(name, help=PRESET_SOURCES[name])
               for name in PRESETS if name.startswith(incomplete)]
    return [*presets, CompletionItem(incomplete, type="file")]


def rules_option(multiple: bool = False) -> Callable[[Any], Any]:
    return click.option(
        "--rules",
        "rules_specs",
        multiple=multiple,
        metavar="R",
        shell_complete=complete_rules,
        help="a rule-set id (classic, israeli(yaniv_max=5)) or a TOML/JSON rules file",
    )


def resolve_or_usage(spec: str, hint: str = "--rules") -> Any:
    """The rule set ``spec`` names, or a usage error; a preset's name is the preset, and
    when a file of that name is here too a note says which was taken."""
    from ..rules import names_a_preset, resolve_rules

    try:
        rules = resolve_rules(spec)
    except RulesError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None
    if names_a_preset(spec) and os.path.exists(spec):
        note(f"rules: {spec} is the preset; the file {spec} here is read as "
             f"--rules {shlex.quote(os.path.join('.', spec))}")
    return rules


def house_rules(*, say: bool = True) -> tuple[Any, str] | None:
    """The house rules found by default (``$YANIV_AUDIT_RULES``, else ``yaniv-rules.toml``
    here) and where they were found, or None; a note on stderr says they are used."""
    from ..rules import HOUSE_VARIABLE, house_rules_spec

    found = house_rules_spec()
    if found is None:
        return None
    spec, where = found
    rules = resolve_or_usage(spec, HOUSE_VARIABLE if where.startswith("$") else where)
    if say:
        note(f"rules: {rules.id}, the house rules of {where} (--rules R overrides them; "
             f"{HOUSE_VARIABLE}= with no value turns them off)")
    return rules, where


def rules_or_house(spec: str | None) -> Any:
    """``--rules`` if given, else the house rules if found, else None (each log's own)."""
    if spec:
        return resolve_or_usage(spec)
    found = house_rules()
    return found[0] if found else None


class Commands(click.Group):
    """The command group: Ctrl-C anywhere is one line and exit status 130."""

    def make_context(self, info_name: str | None, args: list[str],
                     parent: click.Context | None = None, **extra: Any) -> click.Context:
        global VERBOSITY
        if parent is None:
            VERBOSITY = 0  # each run starts without --quiet or --verbose
        return super().make_context(info_name, args, parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            echo("\nyaniv-audit: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yaniv-audit")
@verbosity_options
def cli() -> None:
    """Replay, check and score Yaniv game logs under any house rules.

    Shell completion (bash, zsh, fish): eval "$(_YANIV_AUDIT_COMPLETE=bash_source
    yaniv-audit)" in ~/.bashrc (zsh_source in ~/.zshrc; fish_source for fish).
    """


# --- foundation commands --------------------------------------------------


@cli.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="one JSON line per log")
def validate(logs: tuple[str, ...], as_json: bool) -> None:
    """Check that each LOG is readable (format, fields, cards, players, order).

    LOG is a file or - (standard input). Every problem of an unreadable log is
    listed (the first 50, then how many more), each with its line, its field,
    what was expected and a guess at what was meant. These checks do not depend
    on the rule set; the audit does the rest.
    """
    from ..codec import read_log
    from ..diagnose import diagnose, render

    codes = []
    for path in logs:
        try:
            log = read_log(path)
        except LogFormatError as exc:
            codes.append(EXIT_BAD_INPUT)
            found = diagnose(path, exc)
            if as_json:
                emit_json({"file": path, "verdict": "unreadable", "error": error_json(exc),
                           "problems": [p.to_json() for p in found.problems],
                           "total": found.total})
            else:
                for line in render(path, found):
                    echo(line, painted=True)
            continue
        codes.append(EXIT_OK)
        if as_json:
            emit_json({"file": path, "verdict": "readable", "events": len(log.events)})
        elif VERBOSITY >= 0:
            echo(f"{path}: ok ({len(log.events)} events)", painted=True)
    sys.exit(worst(codes))


def error_json(exc: LogFormatError) -> dict[str, Any]:
    out: dict[str, Any] = {"line": exc.line, "message": exc.message}
    if exc.line is None:
        out["index"] = exc.index
    if exc.messages:
        out["fields"] = exc.messages
    return out


@cli.group()
def rules() -> None:
    """The rule presets and their parameters."""


@rules.command("list")
@click.option("--json", "as_json", is_flag=True)
def rules_list(as_json: bool) -> None:
    """Every preset, what it changes and where it comes from."""
    from ..rules import PRESET_SOURCES, PRESETS

    # presets equal by their parameters: the same rules, written down by two sources
    same = {name: [other for other, o in PRESETS.items() if o == r and other != name]
            for name, r in PRESETS.items()}
    if as_json:
        emit_json([
            {"id": name, "source": PRESET_SOURCES[name], "params": r.params(),
             "same_as": same[name]}
            for name, r in PRESETS.items()
        ])
        return
    default = PRESETS["israeli"]
    for name, r in PRESETS.items():
        changed = [
            f"{k}={format_value(v)}" for k, v in r.values().items() if getattr(default, k) != v
        ]
        what = ", ".join(changed) if changed else "(the defaults)"
        if same[name]:
            what += (f"; the same rules as {' and '.join(same[name])}, from "
                     f"{'another source' if len(same[name]) == 1 else 'other sources'}")
        echo(f"{name:15} {PRESET_SOURCES[name]}")
        echo(f"{'':15} {what}")


@rules.command("show")
@click.argument("rule_set", metavar="R", required=False, shell_complete=complete_rules)
@click.option("--json", "as_json", is_flag=True)
def rules_show(rule_set: str | None, as_json: bool) -> None:
    """Every parameter of rule set R (a preset, an id or a rules file).

    Without R: the house rules found by default ($YANIV_AUDIT_RULES, else
    yaniv-rules.toml in the current directory), else israeli.
    """
    from ..rules import PARAMS, PRESET_SOURCES

    found = None if rule_set else house_rules(say=False)
    r = found[0] if found else resolve_or_usage(rule_set or "israeli", "R")
    if as_json:
        emit_json({"id": r.id, "source": PRESET_SOURCES[r.name], "params": r.params(),
                   **({"house_rules": found[1]} if found else {})})
        return
    echo(f"{r.id}")
    if found:
        echo(f"house rules: {found[1]} (used when --rules is not given)")
    echo(f"preset {r.name}: {PRESET_SOURCES[r.name]}")
    for p in PARAMS:
        echo(f"  {p.name:20} {format_value(getattr(r, p.name)):24} {p.help}")


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
def fingerprint(log: str) -> None:
    """Print LOG's fingerprint: the RFC 6962 Merkle tree hash of its events."""
    from ..merkle import tree_hash

    echo(tree_hash(read_log_or_exit(log).leaves).hex())


def read_log_or_exit(path: str) -> Log:
    from ..codec import read_log

    try:
        return read_log(path)
    except LogFormatError as exc:
        fail(f"{path}: unreadable: {exc}", EXIT_BAD_INPUT)


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--event", "index", type=int, default=None, help="0-based event index")
@click.option("--since", "old_size", type=int, default=None, metavar="M",
              help="prove instead that the log's first M events are the log fingerprinted "
                   "when it had M events, unchanged")
def prove(log: str, index: int | None, old_size: int | None) -> None:
    """Print an inclusion proof of event N of LOG as JSON (or, with --since M, a
    consistency proof: LOG extends its first M events without changing them)."""
    from ..merkle import make_consistency_proof, make_proof

    if (index is None) == (old_size is None):
        raise click.UsageError("give --event N (an inclusion proof) or --since M (a "
                               "consistency proof)")
    leaves = read_log_or_exit(log).leaves
    if old_size is not None:
        if not 1 <= old_size <= len(leaves):
            raise click.BadParameter(f"the log has {len(leaves)} events; M is 1 to "
                                     f"{len(leaves)}, not {old_size}", param_hint="--since")
        emit_json(make_consistency_proof(leaves, old_size))
        return
    assert index is not None
    if not 0 <= index < len(leaves):
        raise click.BadParameter(
            f"the log has events 0 to {len(leaves) - 1}, not {index}", param_hint="--event"
        )
    emit_json(make_proof(leaves, index))


def hex_fingerprint(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A fingerprint given on the command line: 64 hex digits, else wrong usage."""
    text = value.strip()
    if len(text) != 64 or not all(c in "0123456789abcdefABCDEF" for c in text):
        shown = text if len(text) <= 70 else text[:67] + "..."
        raise click.BadParameter(f"expected 64 hex digits, got {shown!r} ({len(text)} "
                                 "characters)")
    return text


@cli.command("verify-proof")
@click.argument("proof", type=click.File("rb"))
@click.option("--fingerprint", "fingerprint_hex", required=True, metavar="HEX",
              callback=hex_fingerprint,
              help="the fingerprint you trust (64 hex digits): of the log, or for a "
                   "consistency proof of the earlier log")
@click.option("--json", "as_json", is_flag=True, help="the answer as one JSON object")
def verify_proof_cmd(proof: Any, fingerprint_hex: str, as_json: bool) -> None:
    """Check a PROOF (a file, or - for standard input) against a fingerprint you trust.

    An inclusion proof shows an event is in the log; a consistency proof shows a
    log extends the earlier log with that fingerprint, without changing it.
    """
    from ..merkle import ProofError, is_consistency_proof, verify_consistency_proof, verify_proof

    data = proof.read()
    trusted = fingerprint_hex.strip().lower()
    consistency = is_consistency_proof(data)
    try:
        if consistency:
            ok = verify_consistency_proof(data, fingerprint_hex)
        else:
            ok = verify_proof(data, fingerprint_hex)
    except ProofError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    shown = json.loads(data)  # well-formed: the verifier has checked it
    if as_json:
        answer: dict[str, Any] = {"valid": ok, "proof": "consistency" if consistency
                                  else "inclusion", "trusted": trusted,
                                  "fingerprint": shown["fingerprint"].lower(),
                                  "tree_size": shown["tree_size"]}
        if consistency:
            answer["old_size"] = shown["old_size"]
        else:
            answer |= {"index": shown["index"], "type": shown["event"].get("type")}
        emit_json(answer)
        sys.exit(EXIT_OK if ok else EXIT_FOUND)
    if consistency:
        if not ok:
            echo("invalid: the proof does not show that log extends the log "
                 "with that fingerprint", painted=True)
            sys.exit(EXIT_FOUND)
        echo(f"valid: the log {shown['fingerprint'].lower()} "
             f"({shown['tree_size']} events) extends the log {trusted} "
             f"({shown['old_size']} events) without changing it", painted=True)
        sys.exit(EXIT_OK)
    if not ok:
        echo("invalid: the proof does not show that event in the log with that "
             "fingerprint", painted=True)
        sys.exit(EXIT_FOUND)
    echo(f"valid: event {shown['index']} ({shown['event'].get('type', 'no type')}) is in the "
         f"log {trusted}", painted=True)
    sys.exit(EXIT_OK)


# --- audit, compare, replay ------------------------------------------------


def log_files(paths: tuple[str, ...]) -> list[str]:
    """Files named, and the .jsonl/.json files under directories named, in order.

    A quoted glob (``'logs/**/*.jsonl'``, for a shell that did not expand it, or a
    list too long for one) names the files it matches.
    """
    files: list[str] = []
    for path in paths:
        p = Path(path)
        if not p.exists() and glob.has_magic(path):
            files.extend(sorted(f for f in glob.glob(path, recursive=True)
                                if Path(f).is_file()))
            continue
        if p.is_dir():
            files.extend(sorted(_logs_under(str(p))))
        else:
            files.append(path)
    return files


def _logs_under(top: str) -> Iterator[str]:
    """The .jsonl/.json files under the directory ``top`` (``str(Path(...))``), named as
    ``Path(top) / ...`` names them; symbolic links to directories are not followed.

    ``os.walk`` holds one directory's names at a time, where ``Path.rglob`` keeps every
    path it has yielded (60 MiB for 100,000 logs)."""
    for root, _dirs, names in os.walk(top):
        for name in names:
            if os.path.splitext(name)[1] in (".jsonl", ".json"):
                path = os.path.join(root, name)
                if os.path.isfile(path):
                    yield path[2:] if top == "." else path  # Path(".") / "x" is "x"


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@rules_option(multiple=True)
@click.option("--json", "as_json", is_flag=True, help="one report per line (JSON Lines)")
@click.option("--strict", is_flag=True, help="stop each log at its first finding")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to use (default: all cores)")
@click.option("--exit-zero", is_flag=True,
              help="exit 0 even when findings or bad logs are found (reports still say so)")
@click.option("--db", "db", is_flag=False, flag_value="", default=None, metavar="[FILE]",
              help="audit the games of the archive FILE (default: $YANIV_AUDIT_DB or "
                   "yaniv-archive.duckdb) instead of files, and store the results")
@click.option("--again", is_flag=True,
              help="with --db: audit every game again, not only those not audited yet")
@click.option("--all", "all_lines", is_flag=True,
              help="with --db: a ruling line for every game, not the summary (audits of "
                   "files always print every one)")
@click.option("--parquet", "parquet", default=None, metavar="DIR",
              help="audit the games of an export (yaniv-audit export DIR; a path or an fsspec "
                   "URL) on Dask, and write the results as Parquet under --out")
@click.option("--scheduler", default=None, metavar="ADDRESS|local",
              help="with --parquet: the Dask scheduler (tcp://host:8786), or local to start "
                   "a local cluster (the default)")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="with --scheduler local: worker processes (default: all cores)")
@click.option("--out", "out", default=None, type=click.Path(), metavar="DIR",
              help="with --parquet: the new or empty directory of the results")
@click.option("--lang", type=click.Choice(LANGUAGES), default=None,
              help="the language of the findings in the ruling of one log (default: $LANG's, "
                   "else English); --json keeps the English message and adds nothing")
def audit(paths: tuple[str, ...], rules_specs: tuple[str, ...], as_json: bool, strict: bool,
          jobs: int | None, exit_zero: bool, db: str | None, again: bool,
          all_lines: bool, parquet: str | None, scheduler: str | None, workers: int | None,
          out: str | None, lang: str | None) -> None:
    """Replay each log under R and rule on it.

    R defaults to the house rules ($YANIV_AUDIT_RULES, else yaniv-rules.toml in
    the current directory) when there are some, else to the rules each log
    declares.

    PATH is a log file or a directory of .jsonl/.json logs. With --db, the
    archive's games are audited instead (those not yet audited under R by this
    version, or all with --again) and the results stored for `report` and `query`;
    --rules may then be given several times, to audit under each in one pass. It
    prints a summary: the verdicts, a ruling line for each game that is not
    clean, and the players of the games that were not simulated (--all: a
    ruling line for every game instead). With --parquet, the games of an export
    are audited on Dask and the results written under --out, for
    `ingest-results`.
    """
    from ..audit import render_line, render_report
    from ..bulk import audit_stream, small_work

    if parquet is not None:
        if paths or db is not None or strict or again or as_json or jobs:
            raise click.UsageError("--parquet goes with --rules, --scheduler, --workers, --out "
                                   "and --exit-zero only")
        sys.exit(audit_on_dask(parquet, rules_specs, scheduler or "local", workers, out,
                               exit_zero))
    if scheduler or workers or out:
        raise click.UsageError("--scheduler, --workers and --out go with --parquet")
    if db is not None:
        if paths:
            raise click.UsageError("give either PATH... or --db, not both")
        if strict:
            raise click.UsageError("--strict reports stop at the first finding: they are not "
                                   "stored in the archive; audit files for that")
        sys.exit(audit_archive(db, rules_specs, as_json, jobs, exit_zero, again, all_lines))
    if again:
        raise click.UsageError("--again goes with --db")
    if not paths:
        raise click.UsageError("give a log file or directory (PATH...), or --db")
    if len(rules_specs) > 1:
        raise click.UsageError("several --rules go with --db; to see one log under several "
                               "rule sets, use compare")
    rules = rules_or_house(rules_specs[0] if rules_specs else None)
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    if len(files) == 1:
        said = language_of(lang)

        def render(report: dict[str, Any]) -> str:
            if report["verdict"] == "unreadable":
                return unreadable_text(report, every=True)
            return render_report(report, strict=strict, lines=finding_lines(report),
                                 gettext=said)
    else:
        def render(report: dict[str, Any]) -> str:  # one line per game in bulk
            if report["verdict"] == "unreadable":
                return unreadable_text(report, every=False)
            return render_line(report, finding_lines(report))
    if "-" in files:
        jobs = 1  # standard input is this process's: read it here
    if VERBOSITY > 0:
        where = ("in this process" if jobs == 1 or (jobs is None and small_work(files))
                 else f"on {jobs or os.cpu_count() or 1} processes")
        note(f"auditing {len(files)} log{'s' if len(files) != 1 else ''} under "
             f"{rules.id if rules else 'the rules each declares'} {where}", verbose=True)
    with audit_stream(files, rules, strict=strict, jobs=jobs) as reports:
        codes = print_reports(reports, len(files), as_json, render)
    sys.exit(EXIT_OK if exit_zero else worst(codes))


def language_of(lang: str | None) -> Callable[[str], str] | None:
    """The catalogue's gettext of ``--lang``, else of ``$LANG`` (``he_IL.UTF-8``: Hebrew);
    None for English, the findings' own words."""
    if lang is None:
        wanted = os.environ.get("LANG", "")[:2].lower()
        lang = wanted if wanted in LANGUAGES else "en"
    if lang == "en":
        return None
    from ..web.i18n import translations  # Babel and the catalogues: only for another language

    return translations(lang).ugettext


def finding_lines(report: dict[str, Any]) -> list[int] | None:
    """The file line of each event of a report's log, when it has findings to place."""
    from ..diagnose import event_lines

    return event_lines(report["file"]) if report["findings"] else None


def unreadable_text(report: dict[str, Any], *, every: bool) -> str:
    """An unreadable log's ruling: all its problems (``every``), else the first and how
    many more there are."""
    from ..audit import render_report
    from ..diagnose import diagnose, render

    source = report["file"]
    found = diagnose(source)
    if not found.total:  # unreadable to the replay only: its one error
        return render_report(report)
    if every:
        return "\n".join(render(source, found, "UNREADABLE"))
    more = found.total - 1
    return (f"{source}: UNREADABLE: {found.problems[0].text()}"
            + (f" (and {more} more: yaniv-audit validate {source} lists them)" if more else ""))


def audit_on_dask(parquet: str, rules_specs: tuple[str, ...], scheduler: str,
                  workers: int | None, out: str | None, exit_zero: bool) -> int:
    """``audit --parquet``: the exit status."""
    if out is None:
        raise click.UsageError("--parquet needs --out DIR, the directory of the results")
    if workers is not None and scheduler != "local":
        raise click.UsageError("--workers goes with --scheduler local; a running scheduler "
                               "has the workers it has")
    rule_sets = [resolve_or_usage(spec) for spec in rules_specs]
    try:
        from ..distributed import VERDICTS, DistributedError, run_audit
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("dask", "distributed", "pandas", "pyarrow",
                                                  "fsspec"):
            raise
        fail("audit --parquet needs Dask: pip install 'yaniv-audit[dask]'", EXIT_USAGE)
    try:
        done = run_audit(parquet, rule_sets, scheduler, out, workers=workers,
                         show_progress=sys.stderr.isatty())
    except DistributedError as exc:
        fail(str(exc), EXIT_USAGE if exc.usage else EXIT_BAD_INPUT)
    n = done.counts
    echo(verdict_line(n["games"], {v: n[v] for v in VERDICTS},  # as audit --db says it
                            [name_of(r) for r in rule_sets]))
    echo(f"audited {n['games']} games ({n['events']} events) under {done.rule_sets} "
               f"rule set{'s' if done.rule_sets > 1 else ''} in {done.seconds:.1f} s on "
               f"{done.workers} workers, {done.tasks} tasks ({done.events_per_second:,.0f} "
               f"events/s; {done.startup:.1f} s more to start); results in {out}")
    verdicts = [v for v in ("corrupt", "unreadable", "violations", "claims") if n[v]]
    if exit_zero or not verdicts:
        return EXIT_OK
    return EXIT_BAD_INPUT if verdicts[0] in ("corrupt", "unreadable") else EXIT_FOUND


def verdict_line(games: int, counts: dict[str, int], rule_sets: Sequence[str] = ()) -> str:
    """The summary's first line: the games (each once) and their verdicts, and, under
    several ``rule_sets``, how many audits (a game and a rule set each) that makes."""
    audits = sum(counts.values())
    under = (f", {audits} audits under {len(rule_sets)} rule sets ({', '.join(rule_sets)})"
             if len(rule_sets) > 1 else "")
    return (f"{games} game{'s' if games != 1 else ''}{under}: {counts.get('clean', 0)} clean, "
            f"{counts.get('claims', 0)} with claims only, "
            f"{counts.get('violations', 0)} with violations, "
            f"{counts.get('corrupt', 0)} corrupt, {counts.get('unreadable', 0)} unreadable")


def print_reports(reports: Any, count: int, as_json: bool,
                  render: Callable[[dict[str, Any]], str], games: int | None = None,
                  rule_sets: Sequence[str] = ()) -> list[int]:
    """Print each report (and a summary when there are several); their exit codes.

    ``games``: how many games the ``count`` reports are of (under ``rule_sets``), when
    that is not one report each."""
    from ..audit import EXIT_BY_VERDICT, to_json_line

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
            elif verdict != "clean" or VERBOSITY >= 0:
                write(render(report), painted=True)
    if count > 1 or not codes:
        echo(verdict_line(len(codes) if games is None else games, counts, rule_sets),
                   err=as_json)
    return codes


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option(multiple=True)
@click.option("--json", "as_json", is_flag=True)
def compare(log: str, rules_specs: tuple[str, ...], as_json: bool) -> None:
    """The same LOG under several rule sets side by side (the first --rules is the baseline)."""
    from ..audit import EXIT_BY_VERDICT, compare_log, render_compare

    sets = [resolve_or_usage(s) for s in rules_specs]
    parsed = read_log_or_exit(log)
    try:
        result = compare_log(parsed, sets)
    except LogFormatError as exc:
        fail(f"{log}: unreadable: {exc}", EXIT_BAD_INPUT)
    if as_json:
        emit_json(result)
    else:
        echo(render_compare(result))
    sys.exit(worst([EXIT_BY_VERDICT[r["verdict"]] for r in result["results"]]))


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option()
@click.option("--seat", metavar="P", help="show only what player P sees")
@click.option("--json", "as_json", is_flag=True,
              help="one JSON line per event: the event, the table after it, its findings")
def replay(log: str, rules_specs: str | None, seat: str | None, as_json: bool) -> None:
    """Show LOG step by step: hands (or one seat's view), the top throw, stock, scores.

    R defaults as for audit: the house rules if any, else the rules LOG declares.
    """
    from ..audit import EXIT_BY_VERDICT, replay_log, verdict_of
    from ..replay_view import render_steps

    rules = rules_or_house(rules_specs)
    parsed = read_log_or_exit(log)
    if seat is not None and seat not in parsed.players:
        raise click.BadParameter(
            f"{seat!r} is not seated; players: {', '.join(parsed.players)}", param_hint="--seat")
    if as_json:
        from ..engine import Replay
        from ..replay_view import steps

        fold = Replay(parsed.game, rules or parsed.game.rules)
        try:
            for step in steps(parsed, rules, seat, replay=fold):
                emit_json(step)
        except LogFormatError as exc:
            fail(f"{log}: unreadable: {exc}", EXIT_BAD_INPUT)
        sys.exit(EXIT_BY_VERDICT[verdict_of(fold.findings)])
    declared = parsed.game.rules.id
    given = "--rules" if rules_specs else "the house rules"
    if rules is None:
        echo(f"{log}: replayed under {declared}, the rules the log declares")
    elif rules.id == declared:
        echo(f"{log}: replayed under {rules.id} ({given}), the rules the log declares")
    else:
        echo(f"{log}: replayed under {rules.id} ({given}); the log declares {declared}")
    try:
        for line in render_steps(parsed, rules, seat=seat):
            echo(line)
        verdict = verdict_of(replay_log(parsed, rules).findings)
    except LogFormatError as exc:
        fail(f"{log}: unreadable: {exc}", EXIT_BAD_INPUT)
    sys.exit(EXIT_BY_VERDICT[verdict])


@cli.command()
@rules_option()
@click.option("--players", type=click.IntRange(2, 8), default=4, show_default=True)
@click.option("--games", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--bot", "bots", multiple=True, metavar="NAME",
              help="random, greedy or careful; repeat to seat several (default: careful)")
@click.option("--record", "record", default="full", show_default=True,
              type=click.Choice(["full", "no_stock", "no_upcard", "hands_only", "scoresheet",
                                 "mixed"]),
              help="what the log writes down of each round (the styles are above)")
@click.option("--out", "out", required=True, type=click.Path(),
              help="a directory (one game-NNNNN.jsonl per game) or, for one game, a .jsonl file")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to play the games on (default: all cores); the logs are the "
                   "same bytes whatever the number")
def simulate(rules_specs: str | None, players: int, games: int, seed: int,
             bots: tuple[str, ...], record: str, out: str, jobs: int | None) -> None:
    """Write legal games played by bots (deterministic for the same arguments).

    The bots always play with everything known; --record chooses what the log
    keeps, as tables write games down:

    \b
      full        hands, upcard, the stock (top first), every move, and each
                  reshuffle with its new stock (the default)
      no_stock    hands and upcard; no stock in round_started or reshuffle, so
                  every stock draw names its card
      no_upcard   hands and stock, no upcard (the pile draw of the upcard
                  names it, as every pile draw does)
      hands_only  hands only; stock draws name their card
      scoresheet  no moves: round_started without hands, then the showdown
                  (caller, or null when the stock ended the round under
                  reshuffle=round_ends; the hands of everyone still in) and
                  round_ended
      mixed       each round one of the five above, chosen by the seed

    Rounds of the other styles that record moves also vary as tables do: a
    stock draw whose card the recorded stock fixes names it or not; a reshuffle
    is written with its stock (when the round records the stock), without it,
    or not at all; one showdown in four and one round_ended in eight are left
    out. The game played is the same in every style; only the record differs.

    Each game is seeded from the arguments and its number alone, so --jobs
    only changes how fast the games come: they are written in game order.
    """
    from ..bulk import mapped
    from ..simulate import BOTS, SimulationError, check_arguments, simulate_log

    rules = rules_or_house(rules_specs) or resolve_or_usage("israeli")
    for name in bots:
        if name not in BOTS:
            raise click.BadParameter(f"unknown bot {name!r}; expected one of {', '.join(BOTS)}",
                                     param_hint="--bot")
    try:
        check_arguments(rules, players, bots, record)
    except SimulationError as exc:
        fail(str(exc), EXIT_USAGE)
    target = Path(out)
    single = target.suffix == ".jsonl"
    if single and games != 1:
        raise click.BadParameter("a .jsonl file holds one game; give a directory for --games > 1",
                                 param_hint="--out")
    if not single:
        target.mkdir(parents=True, exist_ok=True)
    events = 0
    work = ((rules, players, bots, seed, game, record) for game in range(games))
    with mapped(simulate_log, work, games, jobs) as logs, \
            progress(logs, games, "simulating") as bar:
        for game, log in enumerate(bar):
            events += log.count(b"\n")
            path = target if single else target / f"game-{game:05d}.jsonl"
            path.write_bytes(log)
    note(f"wrote {games} game{'s' if games != 1 else ''} ({events} events) to {target}")


@cli.command()
@rules_option()
@click.option("--games", type=click.IntRange(min=1), default=300, show_default=True,
              help="games in the generated corpus")
@click.option("--players", type=click.IntRange(2, 8), default=4, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--bot", "bots", multiple=True, metavar="NAME",
              help="random, greedy or careful; repeat to seat several (default: all three)")
@click.option("--corpus", type=click.Path(file_okay=False),
              help="use the logs in DIR (generate them into it if it has none); "
                   "default: a corpus cached by the arguments in the temp directory")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes for the bulk audit and the simulation (default: all cores)")
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="take the best of up to this many rounds, each running every stage once in turn")
@click.option("--no-memory-check", "no_memory", is_flag=True,
              help="skip the streaming check (two audits in fresh processes)")
@click.option("--chess-games", type=click.IntRange(min=1), default=200, show_default=True,
              help="random legal PGN games for the python-chess comparison (when installed)")
@click.option("--check", is_flag=True, help="exit 1 if a target is missed")
@click.option("--json", "as_json", is_flag=True, help="the figures as one JSON object")
def bench(rules_specs: str | None, games: int, players: int, seed: int, bots: tuple[str, ...],
          corpus: str | None, jobs: int | None, repeat: int, no_memory: bool, chess_games: int,
          check: bool, as_json: bool) -> None:
    """Measure audit throughput against the JSON parse floor, bulk speed-up and memory.

    On a simulated corpus (or the logs in --corpus): (a) parse floor, (b) codec
    (schema validation), (c) replay alone, (d) audit end to end on one core,
    (e) bulk audit on all cores, (f) peak memory, (g) python-chess replaying
    PGN games, if installed (pip install 'yaniv-audit[bench]'); then the
    targets, PASS or MISS.
    """
    from .. import bench as b
    from ..simulate import BOTS, SimulationError

    rules = resolve_or_usage(rules_specs or "israeli")
    for name in bots:
        if name not in BOTS:
            raise click.BadParameter(f"unknown bot {name!r}; expected one of {', '.join(BOTS)}",
                                     param_hint="--bot")
    bots = bots or b.DEFAULT_BOTS
    jobs = jobs or os.cpu_count() or 1

    try:
        directory, reused = b.ensure_corpus(corpus, rules, players, games, seed, bots, jobs,
                                            progress)
    except SimulationError as exc:
        fail(str(exc), EXIT_USAGE)
    try:
        result = b.run_bench(directory, jobs=jobs, repeat=repeat, memory=not no_memory,
                             progress=progress, chess_games=chess_games)
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    command = ["yaniv-audit", "bench", *sys.argv[2:]] if sys.argv[1:2] == ["bench"] else None
    result["run"] = {
        "command": " ".join(command) if command else "yaniv-audit bench",
        "corpus_dir": str(directory), "reused": reused, "repeat": repeat, "jobs": jobs,
        "games": games, "players": players, "seed": seed, "rules": rules.id,
        "bots": list(bots), **b.machine_info(),
    }
    if as_json:
        emit_json(result)
    else:
        echo(b.render(result))
    sys.exit(EXIT_FOUND if check and not all(t["pass"] for t in result["targets"])
             else EXIT_OK)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@db_option
@click.option("--threads", type=click.IntRange(1, 256), default=8, show_default=True,
              help="requests served at once")
@click.option("--max-bytes", "max_bytes", type=click.IntRange(min=1024), default=None,
              metavar="N", help="the largest request body (default: $YANIV_AUDIT_MAX_BYTES, "
                                "else 4 MiB)")
@click.option("--workers", type=click.IntRange(min=0), default=None, metavar="N",
              help="processes that audit posted logs, so that requests use every core "
                   "(default: $YANIV_AUDIT_WORKERS, else one per core up to --threads; 0: "
                   "in the server, as --dev does by default)")
@click.option("--client-timeout", "client_timeout", type=click.IntRange(1, 3600), default=15,
              show_default=True, metavar="SECONDS",
              help="a connection that sends nothing for this long is closed (slow clients)")
@click.option("--dev", is_flag=True,
              help="Flask's development server, reloading when the code changes")
@click.option("--demo", is_flag=True,
              help=f"serve the demo archive ({DEMO_DB} here, or --db FILE), holding the "
                   "sample games of replays/ (stored on its first start)")
def serve(host: str, port: int, db: str | None, threads: int, max_bytes: int | None,
          workers: int | None, client_timeout: int, dev: bool, demo: bool) -> None:
    """Serve the step-through viewer (/) and the JSON API (/api/v1/).

    The viewer lists the archive's games (--db) and opens any log file; the API
    is described at /api/v1/openapi.json. It runs on waitress (a production WSGI
    server); --dev runs Flask's reloader instead. Writes (storing a log) need
    $YANIV_AUDIT_TOKEN as a bearer token, or come from this machine. The sample
    games are stored only with --demo, in a demo archive of their own, so that
    the archive that becomes the club's holds only its games.
    """
    from ..archive import default_db
    from ..web import create_app, settings_from_env
    from ..web.store import base_name

    path = db or (DEMO_DB if demo else default_db())
    try:
        settings = settings_from_env()
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    if max_bytes is not None:
        settings["MAX_BYTES"] = max_bytes
    if workers is not None:
        settings["WORKERS"] = workers
    # one per core this process may use, no more than requests served at once; none in
    # --dev's reloading parent, which serves nothing
    reloader_parent = dev and os.environ.get("WERKZEUG_RUN_MAIN") != "true"
    settings.setdefault("WORKERS", 0 if dev else min(usable_cores(), threads))
    if reloader_parent:
        settings["WORKERS"] = 0
    if not dev or reloader_parent:  # once, not per reload
        if demo:
            seed_archive(path)
        elif not holds_games(path):
            note(f"the archive {path} holds no games yet: yaniv-audit ingest PATH stores "
                 "your logs (or post them in the viewer); yaniv-audit serve --demo shows the "
                 "sample games, in an archive of their own")
    app = create_app({"ARCHIVE": path, "LISTEN_HOST": host.lower(), **settings})
    token = "writes need the token" if app.config.get("WRITE_TOKEN") else \
        "writes from this machine only"
    pool = app.extensions.get("yaniv_workers")
    audits = f"{pool.processes} audit processes" if pool else "audits in the server"
    # a stop (kill, systemctl, docker) ends the server, its workers closed, with status 0;
    # Ctrl-C as every command ends (waitress itself ends quietly on either)
    interrupted = []

    def on_ctrl_c(*_: object) -> None:
        interrupted.append(True)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        if pool:
            pool.start()
        echo(f"yaniv-audit on http://{host}:{port}/ (archive {base_name(path)}, "
                   f"{'Flask dev server' if dev else f'waitress, {threads} threads'}, "
                   f"{audits}, {token})", err=True)
        if dev:
            app.run(host=host, port=port, debug=False, use_reloader=True)
            return
        from waitress import serve as waitress_serve

        limit = int(app.config["MAX_BYTES"])
        # a posted log read 64 KiB at a time (waitress's default, 8 KiB, took a 600-event
        # log through its read loop eight times, about 30 % of its time in a profile)
        waitress_serve(app, host=host, port=port, threads=threads, ident="yaniv-audit",
                       max_request_body_size=2 * limit + (1 << 20), recv_bytes=1 << 16,
                       _quiet=True, **slow_client_settings(client_timeout))
    finally:
        if pool:
            pool.close()
    if interrupted:
        raise KeyboardInterrupt


#: connections waitress holds at once: its default, 100, let 120 clients sending a byte
#: every 17 s keep every other request waiting (issue 27); each costs a file descriptor
CONNECTION_LIMIT = 1000


def slow_client_settings(client_timeout: int) -> dict[str, Any]:
    """waitress's settings against slow clients: a connection waits in its event loop (no
    thread) until its request is whole, so only their number and idle time need bounds.
    The proxy headers are kept for the app (waitress drops X-Forwarded-For and Forwarded
    unless told otherwise), which refuses a write without a token that a proxy forwarded.
    The file-descriptor limit is raised to the connections' need where the system lets."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = CONNECTION_LIMIT + 100
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (
                want if hard == resource.RLIM_INFINITY else min(want, hard), hard))
    except (ImportError, ValueError, OSError):  # not on Windows; a hard limit below
        pass
    return {"connection_limit": CONNECTION_LIMIT, "channel_timeout": client_timeout,
            "cleanup_interval": max(1, min(5, client_timeout // 2)),
            "max_request_header_size": 64 << 10, "clear_untrusted_proxy_headers": False}


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on macOS or Windows
        return os.cpu_count() or 1


#: the sample games ``serve --demo`` stores
SAMPLES = Path(__file__).resolve().parents[2] / "replays"


def holds_games(path: str) -> bool:
    """Whether the archive at ``path`` exists and holds a game (or cannot be read: the
    server's own error then says why)."""
    from ..archive import Archive
    from ..errors import ArchiveError

    if path == ":memory:" or not Path(path).is_file():
        return False
    try:
        with Archive(path, read_only=True) as archive:
            return bool(archive.count_games())
    except ArchiveError:
        return True


def seed_archive(path: str) -> None:
    """Ingest the sample games (replays/*.jsonl) into a missing or empty demo archive, and
    say so."""
    from ..archive import Archive
    from ..errors import ArchiveError
    from ..web.store import ingest_into

    samples = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))
    if not samples or path == ":memory:" or holds_games(path):
        return
    try:
        with Archive(path) as archive:
            result = ingest_into(archive, samples)
    except ArchiveError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    echo(f"the demo archive was empty: ingested the {result.games} sample games of "
               f"{SAMPLES.name}/ into {path} (and audited them)", err=True)


# --- the archive -----------------------------------------------------------


def open_archive(db: str | None, *, read_only: bool = False, create: bool = False,
                 locked: bool = False) -> Any:
    """The archive at ``db`` (or the default), or exit with what is wrong with it.

    Only ``ingest`` creates an archive; the other commands need one. ``locked``:
    read-only, on the connection for a user's SQL (``query``).
    """
    from ..archive import Archive, default_db
    from ..errors import ArchiveError

    try:
        return Archive(db or default_db(), read_only=read_only, create=create, locked=locked)
    except ArchiveError as exc:
        fail(str(exc), EXIT_BAD_INPUT)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@db_option
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to read logs with (default: all cores)")
@click.option("--json", "as_json", is_flag=True,
              help="what was done as one JSON object (games added, refused, ...)")
def ingest(paths: tuple[str, ...], db: str | None, jobs: int | None, as_json: bool) -> None:
    """Store readable logs in the archive (files, or directories of .jsonl/.json logs).

    A game is stored once, by its fingerprint; a log that cannot be read is
    refused with its error and the others go on. Nothing stored is ever changed.
    """
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    with open_archive(db, create=True) as archive:
        result = archive.ingest(files, jobs=1 if "-" in files else jobs, progress=progress,
                                list_added=as_json)
        total = archive.count_games()
        where = archive.path
    code = EXIT_FOUND if result.refused or result.conflicts else EXIT_OK
    if as_json:
        emit_json({
            "archive": str(where), "games": total, "events": result.events,
            "added": [{"file": a.source, "fingerprint": a.fingerprint, "game_id": a.game_id,
                       "events": a.events} for a in result.added],
            "duplicates": [{"file": f, "fingerprint": fp, "first_file": first}
                           for f, fp, first in result.duplicates],
            "refused": [{"file": r.source, "error": error_json(r.error)}
                        for r in result.refused],
            "extensions": [{"file": f, "fingerprint": fp, "game_id": g, "extends": old,
                            "old_size": size} for f, fp, g, old, size in result.extensions],
            "earlier": [{"file": f, "fingerprint": fp, "game_id": g, "longer": longer}
                        for f, fp, g, longer in result.earlier],
            "conflicts": [{"file": f, "fingerprint": fp, "game_id": g, "other": other,
                           "differs_from_event": same}
                          for f, fp, g, other, same in result.conflicts],
        })
        sys.exit(code)
    for refused in result.refused:
        echo(f"{refused.source}: refused, unreadable: {refused.error}")
    for source, _, game_id, old, size in result.extensions:
        echo(f"{source}: continues game {game_id} as archived ({old[:16]}): its first "
                   f"{size} events unchanged")
    for source, _, game_id, longer in result.earlier:
        echo(f"{source}: an earlier part of game {game_id}, whose longer version "
                   f"{longer[:16]} is archived")
    for source, _, game_id, other, same in result.conflicts:
        echo(f"{source}: rewrites game {game_id}, archived before with other events "
                   f"({other[:16]}): they differ from event {same} on; kept as evidence, "
                   "never counted in the reports")
    echo(
        f"ingested {result.games} game{'s' if result.games != 1 else ''} "
        f"({result.events} events) into {where}; {len(result.duplicates)} already there, "
        f"{len(result.refused)} refused; the archive holds {total} games"
    )
    sys.exit(code)


def audit_archive(db: str, rules_specs: tuple[str, ...], as_json: bool, jobs: int | None,
                  exit_zero: bool, again: bool, all_lines: bool = False) -> int:
    """``audit --db``: the exit status."""
    from ..audit import render_line

    rule_sets = (list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs))
                 or [rules_or_house(None)])
    with open_archive(db or None) as archive:
        todo = archive.todo_under(rule_sets, again=again)
        count = sum(len(games) for games in todo.values())
        done = [name_of(r) for r, games in todo.items() if not games]
        if done:
            note(f"every game of {archive.path} is audited under {', '.join(done)} by this "
                 "version already (--again audits them again)")
        if not count:
            return EXIT_OK
        todo = {r: games for r, games in todo.items() if games}
        names = [name_of(r) for r in todo]
        games = len(set().union(*todo.values()))
        if as_json or all_lines:
            codes = print_reports(archive.audit_under(todo, jobs=jobs), count, as_json,
                                  render_line, games, names)
        else:
            where = ["--db", str(archive.path)] if db else ["--db"]
            rules = [arg for spec in rules_specs for arg in ("--rules", spec)]
            every = shlex.join(["yaniv-audit", "audit", *where, *rules, "--again", "--all"])
            codes = print_summary(archive.audit_games(todo, jobs=jobs), games, names,
                                  f"every ruling line: {every}; more: yaniv-audit report NAME")
    return EXIT_OK if exit_zero else worst(codes)


def name_of(rules: RuleSet | None) -> str:
    """How a summary names a rule set of ``audit --db`` (None: each game's own)."""
    return rules.id if rules is not None else "its declared rules"


#: the ruling lines of games that are not clean, and the players, a summary shows at most
SUMMARY_LINES, SUMMARY_PLAYERS = 20, 10


def print_summary(games: Any, count: int, rule_sets: Sequence[str], hint: str) -> list[int]:
    """``audit --db``'s summary of the ``count`` audited games (:class:`AuditedGame`s)
    under ``rule_sets``: the verdicts, a ruling line for each report that is not clean,
    and the players of the games not simulated (each game under its first rule set),
    then ``hint`` on standard error; the exit codes seen.

    It keeps counts, not the games: its memory does not grow with them."""
    from ..audit import EXIT_BY_VERDICT, render_line

    counts: dict[str, int] = {}
    codes: set[int] = set()
    not_clean: list[str] = []
    more = 0
    players: dict[str, list[int]] = {}  # player -> [games, wins, finished games]
    humans = bots = audited = 0
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
        left = f" (the {bots} simulated games left out)" if bots else ""
        echo(f"Players of the {humans} game{'s' if humans != 1 else ''} played by "
                   f"people, by wins{left}:")
        ranked = sorted(players.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
        table = render_table(["player", "games", "finished", "wins"],  # as the leaderboard
                             [(name, g, f, w) for name, (g, w, f) in ranked[:SUMMARY_PLAYERS]])
        echo("\n".join("  " + line for line in table.split("\n")))
        if len(ranked) > SUMMARY_PLAYERS:
            echo(f"  and {len(ranked) - SUMMARY_PLAYERS} more players (yaniv-audit "
                       "report players lists them all)")
    note(hint)
    return sorted(codes)


def render_table(columns: list[str], rows: list[tuple[Any, ...]]) -> str:
    """Rows as aligned text columns (lists comma-joined, NULL as -)."""
    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, list):
            return ",".join(map(str, value)) or "-"
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    texts = [[cell(v) for v in row] for row in rows]
    widths = [max([len(c), *(len(t[i]) for t in texts)]) for i, c in enumerate(columns)]
    numeric = [all(isinstance(row[i], (int, float)) and not isinstance(row[i], bool)
                   for row in rows if row[i] is not None) and bool(rows)
               for i in range(len(columns))]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    out = [line(columns), line(["-" * w for w in widths])]
    out.extend(line(t) for t in texts)
    return "\n".join(out)


def is_utf8(text: str) -> bool:
    """False for an argument whose bytes were no UTF-8 (Python keeps them as surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def finite_seconds(ctx: click.Context, param: click.Parameter, value: float) -> float:
    """A time limit is a finite number: FloatRange lets ``nan``, ``inf`` and ``1e400``
    (which is inf) by, and a timer of inf seconds raised OverflowError."""
    import math

    if not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a number of seconds: expected a finite "
                                 "number above 0, such as 30 or 2.5", ctx, param)
    return value


@cli.command()
@click.argument("sql", required=False)
@db_option
@click.option("--json", "as_json", is_flag=True, help="one JSON object per row (JSON Lines)")
@click.option("--csv", "as_csv", is_flag=True, help="CSV with a header row")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30,
              show_default=True, metavar="SECONDS", callback=finite_seconds,
              help="stop the statement when it runs longer than this")
def query(sql: str | None, db: str | None, as_json: bool, as_csv: bool,
          timeout: float) -> None:
    """Run one SELECT statement on the archive's tables (without SQL: list them).

    Tables: games, events (the logs as ingested), audits, findings, rounds,
    standings, player_rounds (what the audits derived), checkpoints; the view
    latest_games (each game once, as its latest version). The statement can only
    read them: the archive is opened read-only on a connection that reaches no
    file, network, extension or setting, and anything but one SELECT (COPY,
    ATTACH, SET, CREATE, several statements, read_csv(), ...) is refused with
    what and why (exit 2). A statement still running after --timeout seconds is
    stopped (exit 2).
    """
    from ..archive import TABLES
    from ..errors import QueryError

    if as_json and as_csv:
        raise click.UsageError("--json or --csv, not both")
    if sql is not None and not is_utf8(sql):
        raise click.BadParameter("the SQL is not valid UTF-8 text (a byte of another "
                                 "encoding?): write it in UTF-8", param_hint="SQL")
    if sql is None:
        for name, text in TABLES.items():
            echo(f"{name:10} {text}")
        return
    with open_archive(db, locked=True) as archive:
        try:
            columns, rows = archive.user_query(sql, timeout=timeout)
        except QueryError as exc:
            fail(str(exc), EXIT_USAGE)
    print_rows(columns, rows, as_json=as_json, as_csv=as_csv)


def shown_rows(rows: Any) -> Any:
    """CSV rows as written: exact into a file or a pipe, their text cells through
    :func:`terminal_text` on a terminal."""
    if not sys.stdout.isatty():
        return rows
    return ([terminal_text(v) if isinstance(v, str) else v for v in row] for row in rows)


def json_value(value: Any) -> Any:
    """A SQL value JSON has no type for: DECIMAL as a number, BLOB as DuckDB shows it
    (``\\xNN`` for a byte that is no printable ASCII), dates and times in ISO 8601, the
    rest (INTERVAL, UUID, ...) as text."""
    from decimal import Decimal

    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "".join(chr(b) if 32 <= b < 127 and b != 92 else f"\\x{b:02X}"
                       for b in bytes(value))
    if hasattr(value, "isoformat"):  # dates and times, as orjson writes them
        return value.isoformat()
    return str(value)


def print_rows(columns: list[str], rows: list[tuple[Any, ...]], *, as_json: bool,
               as_csv: bool = False) -> None:
    if as_json:
        import orjson

        for row in rows:
            obj = dict(zip(columns, row, strict=True))
            try:
                line = orjson.dumps(obj, default=json_value,
                                    option=orjson.OPT_NON_STR_KEYS).decode()
            except TypeError:  # an integer beyond 64 bits (HUGEINT)
                line = json.dumps(obj, default=json_value, ensure_ascii=False,
                                  separators=(",", ":"))
            click.echo(line)  # JSON escapes control characters itself
    elif as_csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(shown_rows(rows))
    elif columns:
        echo(render_table(columns, rows))


def ensure_audited(archive: Any, rules: Any) -> None:
    """Audit the games a report needs that are not audited yet (said on stderr)."""
    todo = archive.games_to_audit(rules)
    if todo:
        under = rules.id if rules else "their declared rules"
        echo(f"auditing {len(todo)} games under {under} first", err=True)
        for _ in archive.audit(rules, games=todo, progress=progress):
            pass


def archive_for_report(db: str | None, rule_sets: list[Any]) -> Any:
    """The archive open for a report: read-only (so that several can run at once) unless
    games must first be audited under ``rule_sets``, which the archive then stores."""
    archive = open_archive(db, read_only=True)
    if not any(archive.games_to_audit(rules) for rules in rule_sets):
        return archive
    archive.close()
    archive = open_archive(db)
    for rules in rule_sets:
        ensure_audited(archive, rules)
    return archive


REPORT_NAMES = ["players", "rounds", "pickups", "seat-advantage", "reductions", "violations",
                "leaderboard", "assaf-risk", "findings", "rules-impact", "deal-odds"]


def csv_cell(value: Any) -> Any:
    """A value for a CSV cell: a list space-joined, NULL empty."""
    if isinstance(value, list):
        return " ".join(map(str, value))
    return "" if value is None else value


#: games of each rule set that ``report rules-impact`` lists in a table, without --all
IMPACT_SHOWN = 50


@cli.command()
@click.argument("name", type=click.Choice(REPORT_NAMES))
@db_option
@rules_option(multiple=True)
@click.option("--players", type=click.IntRange(2, 8), default=None,
              help="only games of N players (assaf-risk: only rounds with N players)")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default=None,
              help="a table (the default) with a summary line, one JSON object, or CSV")
@click.option("--json", "as_json", is_flag=True, help="the same as --format json")
@click.option("--all", "every", is_flag=True,
              help=f"rules-impact: every game in the table (else the first {IMPACT_SHOWN} of "
                   "each rule set; csv and json give every one)")
@click.option("--simulated", is_flag=True,
              help="leaderboard: count the games bots played (yaniv-audit simulate) too")
def report(name: str, db: str | None, rules_specs: tuple[str, ...], players: int | None,
           fmt: str | None, as_json: bool, every: bool, simulated: bool) -> None:
    """An analytics report over the archive (games not audited yet are audited first).

    Each game counts once (its latest version), under its declared rules or
    under --rules R; several --rules give the report under each, with a rules
    column. Corrupt games are left out, and so are the games bots played from the
    leaderboard (--simulated counts them).

    \b
    players         per player: games, wins, points per round, Yanivs, Assafs, eliminations
    rounds          rounds per game and how they end, by rule set and players
    pickups         stock against pile draws, and the cards taken from the pile most
    seat-advantage  win rate by seat, and the round win rate of the player who opens
    reductions      reductions that saved a player from elimination; Victor calls
    violations      findings by code and by player
    leaderboard     players by wins, with Yaniv calls and Assafs (people's games)
    assaf-risk      how often a Yaniv at each total was Assafed
    findings        which rules get broken, how often
    rules-impact    which games change winner under --rules R
    deal-odds       the recorded deals beside their exact odds (no audit needed: the
                    games that declared --rules R, else every game by its own rules)
    """
    import csv

    from .. import analytics

    if as_json and fmt not in (None, "json"):
        raise click.UsageError("--json is --format json: give one of them")
    fmt = "json" if as_json else (fmt or "table")
    rule_sets = list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs)) or [None]
    if name == "rules-impact" and None in rule_sets:
        raise click.UsageError("rules-impact needs --rules R, the rule set to compare with")
    if every and name != "rules-impact":
        raise click.UsageError(f"--all is for rules-impact (report {name} lists every row)")
    if simulated and name != "leaderboard":
        raise click.UsageError(f"--simulated is for the leaderboard (report {name} counts "
                               "every game)")
    needed = ([None, *rule_sets] if name == "rules-impact"
              else [] if name == "deal-odds" else rule_sets)
    with archive_for_report(db, list(dict.fromkeys(needed))) as archive:
        table = analytics.report(archive, name, rule_sets, players,
                                 None if every or fmt != "table" else IMPACT_SHOWN,
                                 simulated=simulated)
    if fmt == "json":
        emit_json(table.to_json())
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(shown_rows([csv_cell(v) for v in row] for row in table.rows))
    else:
        echo(table.summary + ("; --simulated counts them" if table.bots_left_out else ""))
        if table.rows:
            echo(render_table(table.columns, table.rows))
        if table.more:
            echo(f"... and {table.more:,} more game{'s' if table.more != 1 else ''}: "
                       "--all lists every one (so do --format csv and json)")


class OddsGroup(click.Group):
    """``odds``: a group whose old spelling ``odds TOTAL ...`` (a number or an option
    first) still means ``odds assaf TOTAL ...``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        first = args[0] if args else ""
        if first not in ctx.help_option_names and (
            first.lstrip("-").isdigit() or (first.startswith("-") and first not in self.commands)
        ):
            args = ["assaf", *args]
        return super().parse_args(ctx, args)


@cli.group(cls=OddsGroup)
def odds() -> None:
    """Odds: the Assaf risk seen in the archive, or the exact odds of a deal.

    \b
    odds assaf TOTAL  how often a Yaniv at TOTAL was Assafed in the archive
                      (odds TOTAL says the same)
    odds deal         exact counts of the possible deals under a rule set
    """


@odds.command("assaf", short_help="the Assaf risk of a Yaniv at TOTAL, from the archive")
@click.argument("total", type=click.IntRange(min=0))
@db_option
@rules_option()
@click.option("--players", type=click.IntRange(2, 8), default=None,
              help="only rounds with this many players")
@click.option("--json", "as_json", is_flag=True)
def odds_assaf(total: int, db: str | None, rules_specs: str | None, players: int | None,
               as_json: bool) -> None:
    """How often a Yaniv called at TOTAL was Assafed in the archive's games."""
    from .. import analytics

    rules = resolve_or_usage(rules_specs) if rules_specs else None
    with archive_for_report(db, [rules]) as archive:
        result = analytics.odds(archive, total, players, rules)
    if as_json:
        emit_json(result.to_json())
    else:
        echo(result.text())


@odds.command("deal", short_help="exact counts of the possible deals under a rule set")
@rules_option()
@click.option("--json", "as_json", is_flag=True, help="the counts as one JSON object")
def odds_deal(rules_specs: str | None, as_json: bool) -> None:
    """Exact counts of the possible deals of hand_size cards under --rules R
    (default israeli): by rank category, by the longest run that could be
    thrown, and by hand total, with the Yaniv-able deals. No archive needed.

    Every combination of physical cards counts once: two decks hold two 5H.
    """
    from ..deal_odds import deal_odds

    rules = resolve_or_usage(rules_specs or "israeli")
    result = deal_odds(rules)
    if as_json:
        emit_json(result.to_json())
    else:
        echo(result.text())


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
@click.option("--by", type=click.Choice(["month", "rules"]), default="month", show_default=True,
              help="partition by the month a game started (year=/month=) or by rule set "
                   "(rules=)")
def export(directory: str, db: str | None, by: str) -> None:
    """Write every archive table as partitioned Parquet under DIRECTORY (new or empty).

    DuckDB, Spark, pandas and the rest read it back, e.g.
    read_parquet('DIRECTORY/games/**/*.parquet', hive_partitioning = true).
    """
    from ..errors import ArchiveError

    with open_archive(db, read_only=True) as archive:
        try:
            counts = archive.export(directory, by)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
    for table, rows in counts.items():
        echo(f"{table:10} {rows:>9} rows" + ("" if rows else " (no file)"))
    echo(f"exported to {directory}, partitioned by {by}")


@cli.command("ingest-results")
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
def ingest_results(directory: str, db: str | None) -> None:
    """Store the results of `audit --parquet --out DIRECTORY` in the archive.

    Each result replaces the archive's rows of its game and rule set, so that
    `report`, `query` and the viewer use it; ingesting again changes nothing.
    Results of games not in the archive, or of another version, are left out.
    """
    from .. import ENGINE
    from ..errors import ArchiveError

    with open_archive(db) as archive:
        try:
            n = archive.ingest_results(directory, progress=progress)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
        where = archive.path
    echo(f"stored {n['stored']} results (game and rule set) into {where}")
    if n["other_engine"]:
        echo(f"left out {n['other_engine']} results of another version than {ENGINE}: "
                   "audit --db audits those games again")
    if n["unknown"]:
        echo(f"left out {n['unknown']} results of games not in {where}")
    sys.exit(EXIT_FOUND if n["other_engine"] or n["unknown"] else EXIT_OK)


@cli.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="the checkpoint as one JSON line")
def checkpoint(db: str | None, as_json: bool) -> None:
    """Record the archive's checkpoint: its games and the Merkle root of their fingerprints.

    Keep the printed line somewhere else (send it, print it): `verify --checkpoint`
    shows later that the archive only grew since, no game removed or changed.
    """
    with open_archive(db) as archive:
        point = archive.checkpoint()
    if as_json:
        emit_json(point.to_json())
    else:
        echo(f"checkpoint {point.created_at}: {point.games} games, root {point.root}")


@cli.command()
@db_option
@click.option("--checkpoint", "checkpoint_file", type=click.File("rb"), default=None,
              metavar="FILE", help="also check a checkpoint kept outside the archive (the "
                                   "line `checkpoint --json` printed; - for standard input)")
@click.option("--audits", "audits", is_flag=True,
              help="also audit every game again and compare the stored results (verdicts, "
                   "winners, findings, rounds, standings)")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to check the stored events (and with --audits, audit) with "
                   "(default: all cores)")
@click.option("--json", "as_json", is_flag=True, help="one JSON line per game that fails")
def verify(db: str | None, checkpoint_file: Any, audits: bool, jobs: int | None,
           as_json: bool) -> None:
    """Check that every archived game's stored events still give its fingerprint, and
    that the archive still begins with the games of every checkpoint; with --audits,
    that the stored audit results are what a new audit gives."""
    from ..archive import Checkpoint
    from ..errors import ArchiveError

    outside = None
    if checkpoint_file is not None:
        try:
            outside = Checkpoint.from_json(checkpoint_file.read())
        except ArchiveError as exc:
            fail(str(exc), EXIT_BAD_INPUT)
    with open_archive(db, read_only=True) as archive:
        games, mismatches = archive.verify(jobs=jobs, progress=progress)
        points = archive.checkpoints() + ([outside] if outside else [])
        broken = [(p, problem) for p in points
                  if (problem := archive.check_checkpoint(p)) is not None]
        where = archive.path
        rewrites = archive.rewrites()
        if audits:
            checked, stale, altered = archive.verify_audits(jobs=jobs, progress=progress)
            mismatches += altered
    for m in mismatches:
        if as_json:
            emit_json({"fingerprint": m.fingerprint, "game_id": m.game_id, "problem": m.problem})
        else:
            echo(f"game {m.game_id} ({m.fingerprint[:16]}): {m.problem}")
    for r in rewrites:
        if as_json:
            emit_json({"fingerprint": r.fingerprint, "game_id": r.game_id, "source": r.source,
                       "rewrites": r.rewrites, "differs_at": r.differs_at})
        else:
            echo(f"game {r.game_id} ({r.fingerprint[:16]}, from {r.source}): rewrites "
                       f"the archived game ({r.rewrites[:16]}, from {r.rewrites_source}) from "
                       f"event {r.differs_at} on; kept as evidence, never counted")
    for point, problem in broken:
        if as_json:
            emit_json({"checkpoint": point.to_json(), "problem": problem})
        else:
            echo(f"checkpoint {point.root[:16]}: {problem}")
    games_altered = len({m.fingerprint for m in mismatches})
    summary = (f"{where}: {games} games, {games - games_altered} verified, {games_altered} "
               f"altered; {len(points) - len(broken)} of {len(points)} checkpoints hold"
               + (f"; {len(rewrites)} rewritten game{'s' if len(rewrites) != 1 else ''} kept "
                  "as evidence" if rewrites else ""))
    if audits:
        summary += (f"; {checked} audits re-checked, {len(altered)} differ"
                    + (f", {stale} by another engine version not checked (audit --db --again "
                       "renews them)" if stale else ""))
    echo(summary, err=as_json)
    sys.exit(EXIT_FOUND if mismatches or broken else EXIT_OK)


def _every_command(group: click.Group) -> Iterator[click.Command]:
    for command in group.commands.values():
        yield command
        if isinstance(command, click.Group):
            yield from _every_command(command)


for _command in _every_command(cli):
    verbosity_options(_command)


def main(argv: list[str] | None = None) -> None:
    """Entry point: never a traceback for a user's input."""
    try:
        cli.main(args=argv, prog_name="yaniv-audit", standalone_mode=True)
    except YanivAuditError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(EXIT_OK)
    except InternalError as exc:
        if VERBOSITY > 0:
            import traceback

            traceback.print_exc()
        fail(f"internal error while reading {exc.source} ({exc.detail}); this is a bug in "
             "yaniv-audit: please send us that log", EXIT_INTERNAL)
    except Exception as exc:
        import duckdb

        if VERBOSITY > 0:
            import traceback

            traceback.print_exc()
        if isinstance(exc, (duckdb.IOException, duckdb.SerializationException,
                            duckdb.OutOfMemoryException)):
            from ..archive import damaged  # a damaged block found after the archive opened,
            fail(str(damaged(None, exc)), EXIT_BAD_INPUT)  # or too little memory
        fail(f"internal error ({type(exc).__name__}: {exc}); this is a bug in yaniv-audit: "
             "please send us the command and the log", EXIT_INTERNAL)
