"""The commands that rule on logs: ``validate``, ``audit`` (files, ``--db`` for the
archive's games, ``--parquet`` for an export's on Dask), ``compare`` and ``replay``.

The engine, the codec (marshmallow), DuckDB and Dask are imported by the command that
uses them, when it runs, for start-up time.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..core.errors import LogFormatError, did_you_mean
from ..core.report import AnyReport, audited, is_unreadable
from ..io.files import log_files
from ..lang import CODES, Words, from_environment
from .options import (
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    EXIT_USAGE,
    open_archive,
    read_log_or_exit,
    resolve_or_usage,
    rules_and_origin,
    rules_option,
    rules_or_house,
    unreadable,
    worst,
)
from .render import (
    echo,
    emit_json,
    error_json,
    fail,
    finding_lines,
    note,
    print_reports,
    print_summary,
    render_compare,
    render_line,
    render_report,
    shown,
    unreadable_text,
    verbosity,
    verdict_line,
)

if TYPE_CHECKING:
    from ..core.rules import RuleSet


def lang_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--lang``: the language of the text a command writes."""
    return click.option(
        "--lang",
        type=click.Choice(CODES),
        default=None,
        help="the language of the ruling (default: $LANGUAGE's, $LC_ALL's, $LC_MESSAGES' "
        "or $LANG's, as gettext programs read them, else English); --json keeps the "
        "English message and adds nothing",
    )(f)


@click.command()
@click.argument("logs", nargs=-1, required=True, metavar="LOG...", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="one JSON line per log")
@lang_option
def validate(logs: tuple[str, ...], as_json: bool, lang: str | None) -> None:
    """Check that each LOG is readable (format, fields, cards, players, order).

    LOG is a file or - (standard input). Every problem of an unreadable log is
    listed (the first 50, then how many more), each with its line, its field,
    what was expected and a guess at what was meant. These checks do not depend
    on the rule set; the audit does the rest.
    """
    # heavy (marshmallow): imported when used, for start-up time
    from ..io.codec import count_events
    from ..io.diagnose import diagnose, render

    words = language_of(lang)
    codes = []
    for path in logs:
        try:
            events = count_events(path)  # read as a stream: no event held
        except LogFormatError as exc:
            codes.append(EXIT_BAD_INPUT)
            # its frames hold the file's bytes and what was read of them: freed before
            # the diagnosis reads the file again (else twice the memory)
            exc.__traceback__ = None
            found = diagnose(path, exc)
            if as_json:
                emit_json(
                    {
                        "file": path,
                        "verdict": "unreadable",
                        "error": error_json(exc),
                        "problems": [p.to_json() for p in found.problems],
                        "total": found.total,
                        "stopped": found.stopped,
                    }
                )
            else:
                for line in render(path, found, words=words):
                    echo(shown(line), painted=True)
            continue
        codes.append(EXIT_OK)
        if as_json:
            emit_json({"file": path, "verdict": "readable", "events": events})
        elif verbosity() >= 0:
            ok = words.say("say.word", word="ok")
            echo(
                shown(words.say("say.validate_ok", file=path, verdict=ok, events=events)),
                painted=True,
            )
    sys.exit(worst(codes))


@click.command()
@click.argument("paths", nargs=-1, metavar="[LOG]...", type=click.Path())
@rules_option(multiple=True)
@click.option("--json", "as_json", is_flag=True, help="one report per line (JSON Lines)")
@click.option("--strict", is_flag=True, help="stop each log at its first finding")
@click.option(
    "--jobs", type=click.IntRange(min=1), default=None, help="processes to use (default: all cores)"
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="exit 0 even when findings or bad logs are found (reports still say so)",
)
@click.option(
    "--db",
    "db",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="audit the games of the archive FILE (default: $YANIV_AUDIT_DB or "
    "yaniv-archive.duckdb) instead of files, and store the results",
)
@click.option(
    "--again",
    is_flag=True,
    help="with --db: audit every game again, not only those not audited yet",
)
@click.option(
    "--all",
    "all_lines",
    is_flag=True,
    help="with --db: a ruling line for every game, not the summary (audits of "
    "files always print every one)",
)
@click.option(
    "--parquet",
    "parquet",
    default=None,
    metavar="DIR",
    help="audit the games of an export (yaniv-audit export DIR; a path or an fsspec "
    "URL) on Dask, and write the results as Parquet under --out",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS|local",
    help="with --parquet: the Dask scheduler (tcp://host:8786), or local to start "
    "a local cluster (the default)",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="with --scheduler local: worker processes (default: all cores)",
)
@click.option(
    "--out",
    "out",
    default=None,
    type=click.Path(),
    metavar="DIR",
    help="with --parquet: the new or empty directory of the results",
)
@lang_option
def audit(
    paths: tuple[str, ...],
    rules_specs: tuple[str, ...],
    as_json: bool,
    strict: bool,
    jobs: int | None,
    exit_zero: bool,
    db: str | None,
    again: bool,
    all_lines: bool,
    parquet: str | None,
    scheduler: str | None,
    workers: int | None,
    out: str | None,
    lang: str | None,
) -> None:
    """Replay each log under R and rule on it.

    R defaults to the house rules ($YANIV_AUDIT_RULES, else the nearest
    yaniv-rules.toml, here or above up to the project's root) when there are
    some, else to the rules each log declares; the ruling's line under the
    verdict says which rules, and where they came from.

    Each LOG is a log file or a directory of .jsonl/.json logs. With --db, the
    archive's games are audited instead (those not yet audited under R by this
    version, or all with --again) and the results stored for `report` and `query`;
    --rules may then be given several times, to audit under each in one pass. It
    prints a summary: the verdicts, a ruling line for each game that is not
    clean, and the players of the games that were not simulated (--all: a
    ruling line for every game instead). With --parquet, the games of an export
    are audited on Dask and the results written under --out, for
    `ingest-results`.
    """
    # heavy (the engine): imported when used, for start-up time
    from ..batch.bulk import audit_stream, small_work

    if parquet is not None:
        if paths or db is not None or strict or again or as_json or jobs:
            raise click.UsageError(
                "--parquet goes with --rules, --scheduler, --workers, --out and --exit-zero only"
            )
        sys.exit(
            audit_on_dask(
                parquet,
                rules_specs,
                scheduler or "local",
                workers,
                out,
                exit_zero,
                language_of(lang),
            )
        )
    if scheduler or workers or out:
        raise click.UsageError("--scheduler, --workers and --out go with --parquet")
    if db is not None:
        if paths:
            raise click.UsageError("give either LOG... or --db, not both")
        if strict:
            raise click.UsageError(
                "--strict reports stop at the first finding: they are not "
                "stored in the archive; audit files for that"
            )
        sys.exit(
            audit_archive(
                db, rules_specs, as_json, jobs, exit_zero, again, all_lines, language_of(lang)
            )
        )
    if again:
        raise click.UsageError("--again goes with --db")
    if not paths:
        raise click.UsageError("give a log file or directory (LOG...), or --db")
    if len(rules_specs) > 1:
        raise click.UsageError(
            "several --rules go with --db; to see one log under several rule sets, use compare"
        )
    rules, origin = rules_and_origin(rules_specs[0] if rules_specs else None)
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    words = language_of(lang)
    if len(files) == 1:

        def render(report: AnyReport) -> str:
            if is_unreadable(report):
                return unreadable_text(report, every=True, words=words)
            report = audited(report)
            lines = finding_lines(report)
            return render_report(report, strict=strict, lines=lines, words=words, origin=origin)
    else:

        def render(report: AnyReport) -> str:  # one line per game in bulk
            if is_unreadable(report):
                return unreadable_text(report, every=False, words=words)
            report = audited(report)
            return render_line(report, finding_lines(report), words)

    if "-" in files:
        jobs = 1  # standard input is this process's: read it here
    if verbosity() > 0:
        alone = jobs == 1 or (jobs is None and small_work(files))
        note(
            words.say(
                "say.auditing_here" if alone else "say.auditing_on",
                n=len(files),
                rules=rules.id if rules else words.word("the rules each declares"),
                processes=jobs or os.cpu_count() or 1,
            ),
            verbose=True,
        )
    with audit_stream(files, rules, strict=strict, jobs=jobs) as reports:
        codes = print_reports(reports, len(files), as_json, render, words=words)
    sys.exit(EXIT_OK if exit_zero else worst(codes))


def language_of(lang: str | None) -> Words:
    """The words of ``--lang``, else of the environment as gettext reads it
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: ``he_IL.UTF-8`` is Hebrew); the
    catalogue is read only for a language other than English, and never Flask."""
    return Words(lang if lang is not None else from_environment(os.environ))


def audit_on_dask(
    parquet: str,
    rules_specs: tuple[str, ...],
    scheduler: str,
    workers: int | None,
    out: str | None,
    exit_zero: bool,
    words: Words | None = None,
) -> int:
    """``audit --parquet``: the exit status; its summary in ``words``' language."""
    words = words or Words()
    if out is None:
        raise click.UsageError("--parquet needs --out DIR, the directory of the results")
    if workers is not None and scheduler != "local":
        raise click.UsageError(
            "--workers goes with --scheduler local; a running scheduler has the workers it has"
        )
    rule_sets = [resolve_or_usage(spec) for spec in rules_specs]
    try:
        # optional and heavy (Dask): imported when used
        from ..batch.distributed import VERDICTS, DistributedError, run_audit
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in (
            "dask",
            "distributed",
            "pandas",
            "pyarrow",
            "fsspec",
        ):
            raise
        fail("audit --parquet needs Dask: pip install 'yaniv-audit[dask]'", EXIT_USAGE)
    try:
        done = run_audit(
            parquet, rule_sets, scheduler, out, workers=workers, show_progress=sys.stderr.isatty()
        )
    except DistributedError as exc:
        fail(str(exc), EXIT_USAGE if exc.usage else EXIT_BAD_INPUT)
    n = done.counts
    echo(
        verdict_line(
            n["games"],
            {v: n[v] for v in VERDICTS},  # as audit --db says it
            [name_of(r, words) for r in rule_sets],
            words,
        )
    )
    echo(
        words.say(
            "say.dask_done",
            games=n["games"],
            events=n["events"],
            sets=done.rule_sets,
            seconds=f"{done.seconds:.1f}",
            workers=done.workers,
            tasks=done.tasks,
            rate=f"{done.events_per_second:,.0f}",
            startup=f"{done.startup:.1f}",
            out=shown(out),
        )
    )
    verdicts = [v for v in ("corrupt", "unreadable", "violations", "claims") if n[v]]
    if exit_zero or not verdicts:
        return EXIT_OK
    return EXIT_BAD_INPUT if verdicts[0] in ("corrupt", "unreadable") else EXIT_FOUND


def audit_archive(
    db: str,
    rules_specs: tuple[str, ...],
    as_json: bool,
    jobs: int | None,
    exit_zero: bool,
    again: bool,
    all_lines: bool = False,
    words: Words | None = None,
) -> int:
    """``audit --db``: the exit status; its text in ``words``' language."""
    words = words or Words()
    rule_sets = list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs)) or [
        rules_or_house(None)
    ]
    with open_archive(db or None) as archive:
        todo = archive.todo_under(rule_sets, again=again)
        count = sum(len(games) for games in todo.values())
        done = [name_of(r, words) for r, games in todo.items() if not games]
        if done:
            note(words.say("say.summary_done", archive=str(archive.path), names=done))
        if not count:
            return EXIT_OK
        todo = {r: games for r, games in todo.items() if games}
        names = [name_of(r, words) for r in todo]
        games = len(set().union(*todo.values()))
        if as_json or all_lines:

            def line(report: AnyReport) -> str:
                return render_line(report, words=words)

            codes = print_reports(
                archive.audit_under(todo, jobs=jobs),
                count,
                as_json,
                line,
                games,
                names,
                words,
            )
        else:
            where = ["--db", str(archive.path)] if db else ["--db"]
            rules = [arg for spec in rules_specs for arg in ("--rules", spec)]
            every = shlex.join(["yaniv-audit", "audit", *where, *rules, "--again", "--all"])
            codes = print_summary(
                archive.audit_games(todo, jobs=jobs),
                games,
                names,
                words.say("say.summary_hint", every=every),
                words,
            )
    return EXIT_OK if exit_zero else worst(codes)


def name_of(rules: RuleSet | None, words: Words | None = None) -> str:
    """How a summary names a rule set of ``audit --db`` (None: each game's own), in
    ``words``' language."""
    return rules.id if rules is not None else (words or Words()).word("its declared rules")


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option(multiple=True)
@click.option("--json", "as_json", is_flag=True, help="the comparison as one JSON object")
@lang_option
def compare(log: str, rules_specs: tuple[str, ...], as_json: bool, lang: str | None) -> None:
    """The same LOG under several rule sets side by side (the first --rules is the baseline)."""
    # heavy (the engine): imported when used, for start-up time
    from ..core.audit import EXIT_BY_VERDICT, compare_log

    sets = [resolve_or_usage(s) for s in rules_specs]
    words = language_of(lang)
    parsed = read_log_or_exit(log, words)
    try:
        result = compare_log(parsed, sets)
    except LogFormatError as exc:
        unreadable(log, exc, words)
    if as_json:
        emit_json(result)
    else:
        echo(render_compare(result, words))
    sys.exit(worst([EXIT_BY_VERDICT[r["verdict"]] for r in result["results"]]))


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option()
@click.option("--seat", metavar="P", help="show only what player P sees")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="one JSON line per event: the event, the table after it, its findings",
)
@lang_option
def replay(
    log: str, rules_specs: str | None, seat: str | None, as_json: bool, lang: str | None
) -> None:
    """Show LOG step by step: hands (or one seat's view), the top throw, stock, scores.

    R defaults as for audit: the house rules if any, else the rules LOG declares.
    """
    # heavy (the engine): imported when used, for start-up time
    from ..core.audit import EXIT_BY_VERDICT, replay_log, verdict_of
    from ..core.replay_view import render_steps

    rules = rules_or_house(rules_specs)
    words = language_of(lang)
    parsed = read_log_or_exit(log, words)
    if seat is not None and seat not in parsed.players:
        raise click.BadParameter(
            f"{seat!r} is not seated; players: {', '.join(parsed.players)}"
            + did_you_mean(seat, parsed.players),
            param_hint="--seat",
        )
    if as_json:
        # heavy (the engine): imported when used, for start-up time
        from ..core.engine import Replay
        from ..core.replay_view import steps

        fold = Replay(parsed.game, rules or parsed.game.rules)
        try:
            for step in steps(parsed, rules, seat, replay=fold):
                emit_json(step)
        except LogFormatError as exc:
            unreadable(log, exc, words)
        sys.exit(EXIT_BY_VERDICT[verdict_of(fold.findings)])
    declared = parsed.game.rules.id
    given = "--rules" if rules_specs else "the house rules"
    if rules is None:
        echo(shown(words.say("say.replayed", file=log, rules=declared)))
    elif rules.id == declared:
        echo(shown(words.say("say.replayed_given", file=log, rules=rules.id, given=given)))
    else:
        echo(
            shown(
                words.say(
                    "say.replayed_other", file=log, rules=rules.id, given=given, declared=declared
                )
            )
        )
    try:
        for line in render_steps(parsed, rules, seat=seat, say=words.phrase):
            echo(shown(line))
        verdict = verdict_of(replay_log(parsed, rules).findings)
    except LogFormatError as exc:
        unreadable(log, exc, words)
    sys.exit(EXIT_BY_VERDICT[verdict])


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [validate, audit, compare, replay]
