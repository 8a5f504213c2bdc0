"""The ``yaniv-audit`` command line (LOG_FORMAT.md section 6).

Exit status, every command: 0 all fine; 1 something was found; 2 wrong usage;
3 unreadable or corrupt input. With several inputs the worst wins.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__
from .errors import InternalError, LogFormatError, RulesError, YanivAuditError
from .events import Log
from .rules import format_value

EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


def worst(codes: list[int]) -> int:
    """3 beats 1 beats 0 (2 is usage and never mixed in)."""
    for code in (EXIT_BAD_INPUT, EXIT_FOUND):
        if code in codes:
            return code
    return EXIT_OK


def emit_json(obj: Any) -> None:
    from .audit import to_json_line

    click.echo(to_json_line(obj))


def fail(message: str, code: int) -> NoReturn:
    click.echo(f"yaniv-audit: {message}", err=True)
    sys.exit(code)


@contextmanager
def progress(items: Any, length: int, label: str, unit: str = "game") -> Iterator[Any]:
    """A progress bar with its rate (games/s) on standard error, only on a terminal and
    only for more than one item; it is cleared when done, and :func:`say` prints lines
    above it, so that no line is glued to it."""
    from tqdm import tqdm

    shown = length > 1 and sys.stderr.isatty()
    with tqdm(items, total=length, desc=label, unit=unit, file=sys.stderr, leave=False,
              disable=not shown, dynamic_ncols=True) as bar:
        yield bar


def say(line: str) -> None:
    """One line on standard output, above a progress bar if one is shown."""
    from tqdm import tqdm

    tqdm.write(line, file=sys.stdout)


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db", "db", default=None, metavar="FILE",
        help="the archive (default: $YANIV_AUDIT_DB, else yaniv-archive.duckdb here)",
    )(f)


def rules_option(multiple: bool = False) -> Callable[[Any], Any]:
    return click.option(
        "--rules",
        "rules_specs",
        multiple=multiple,
        metavar="R",
        help="a rule-set id (classic, israeli(yaniv_max=5)) or a TOML/JSON rules file",
    )


def resolve_or_usage(spec: str, hint: str = "--rules") -> Any:
    from .rules import resolve_rules

    try:
        return resolve_rules(spec)
    except RulesError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None


class Commands(click.Group):
    """The command group: Ctrl-C anywhere is one line and exit status 130."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\nyaniv-audit: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yaniv-audit")
def cli() -> None:
    """Replay, check and score Yaniv game logs under any house rules."""


# --- foundation commands --------------------------------------------------


@cli.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="one JSON line per log")
def validate(logs: tuple[str, ...], as_json: bool) -> None:
    """Check that each LOG is readable (format, fields, cards, players, order).

    LOG is a file or - (standard input). These checks do not depend on the rule
    set; the audit does the rest.
    """
    from .codec import read_log

    codes = []
    for path in logs:
        try:
            log = read_log(path)
        except LogFormatError as exc:
            codes.append(EXIT_BAD_INPUT)
            if as_json:
                emit_json({"file": path, "verdict": "unreadable", "error": error_json(exc)})
            else:
                click.echo(f"{path}: unreadable: {exc}")
            continue
        codes.append(EXIT_OK)
        if as_json:
            emit_json({"file": path, "verdict": "readable", "events": len(log.events)})
        else:
            click.echo(f"{path}: ok ({len(log.events)} events)")
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
    from .rules import PRESET_SOURCES, PRESETS

    if as_json:
        emit_json([
            {"id": name, "source": PRESET_SOURCES[name], "params": r.params()}
            for name, r in PRESETS.items()
        ])
        return
    default = PRESETS["israeli"]
    for name, r in PRESETS.items():
        changed = [
            f"{k}={format_value(v)}" for k, v in r.values().items() if getattr(default, k) != v
        ]
        click.echo(f"{name:15} {PRESET_SOURCES[name]}")
        click.echo(f"{'':15} {', '.join(changed) if changed else '(the defaults)'}")


@rules.command("show")
@click.argument("rule_set", metavar="R", default="israeli")
@click.option("--json", "as_json", is_flag=True)
def rules_show(rule_set: str, as_json: bool) -> None:
    """Every parameter of rule set R (a preset, an id or a rules file)."""
    from .rules import PARAMS, PRESET_SOURCES

    r = resolve_or_usage(rule_set, "R")
    if as_json:
        emit_json({"id": r.id, "source": PRESET_SOURCES[r.name], "params": r.params()})
        return
    click.echo(f"{r.id}")
    click.echo(f"preset {r.name}: {PRESET_SOURCES[r.name]}")
    for p in PARAMS:
        click.echo(f"  {p.name:20} {format_value(getattr(r, p.name)):24} {p.help}")


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
def fingerprint(log: str) -> None:
    """Print LOG's fingerprint: the RFC 6962 Merkle tree hash of its events."""
    from .merkle import tree_hash

    click.echo(tree_hash(read_log_or_exit(log).leaves).hex())


def read_log_or_exit(path: str) -> Log:
    from .codec import read_log

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
    from .merkle import make_consistency_proof, make_proof

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


@cli.command("verify-proof")
@click.argument("proof", type=click.File("rb"))
@click.option("--fingerprint", "fingerprint_hex", required=True, metavar="HEX",
              help="the fingerprint you trust (64 hex digits): of the log, or for a "
                   "consistency proof of the earlier log")
def verify_proof_cmd(proof: Any, fingerprint_hex: str) -> None:
    """Check a PROOF (a file, or - for standard input) against a fingerprint you trust.

    An inclusion proof shows an event is in the log; a consistency proof shows a
    log extends the earlier log with that fingerprint, without changing it.
    """
    from .merkle import ProofError, is_consistency_proof, verify_consistency_proof, verify_proof

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
    if consistency:
        if not ok:
            click.echo("invalid: the proof does not show that log extends the log with that "
                       "fingerprint")
            sys.exit(EXIT_FOUND)
        click.echo(f"valid: the log {shown['fingerprint'].lower()} ({shown['tree_size']} "
                   f"events) extends the log {trusted} ({shown['old_size']} events) "
                   "without changing it")
        sys.exit(EXIT_OK)
    if not ok:
        click.echo("invalid: the proof does not show that event in the log with that fingerprint")
        sys.exit(EXIT_FOUND)
    click.echo(
        f"valid: event {shown['index']} ({shown['event'].get('type', 'no type')}) is in the log "
        f"{trusted}"
    )
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
            found = sorted(
                str(f) for f in p.rglob("*") if f.suffix in (".jsonl", ".json") and f.is_file()
            )
            files.extend(found)
        else:
            files.append(path)
    return files


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
def audit(paths: tuple[str, ...], rules_specs: tuple[str, ...], as_json: bool, strict: bool,
          jobs: int | None, exit_zero: bool, db: str | None, again: bool, parquet: str | None,
          scheduler: str | None, workers: int | None, out: str | None) -> None:
    """Replay each log under R (default: the rules the log declares) and rule on it.

    PATH is a log file or a directory of .jsonl/.json logs. With --db, the
    archive's games are audited instead (those not yet audited under R by this
    version, or all with --again) and the results stored for `report` and `query`;
    --rules may then be given several times, to audit under each in one pass.
    With --parquet, the games of an export are audited on Dask and the results
    written under --out, for `ingest-results`.
    """
    from .audit import render_line, render_report
    from .bulk import audit_stream

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
        sys.exit(audit_archive(db, rules_specs, as_json, jobs, exit_zero, again))
    if again:
        raise click.UsageError("--again goes with --db")
    if not paths:
        raise click.UsageError("give a log file or directory (PATH...), or --db")
    if len(rules_specs) > 1:
        raise click.UsageError("several --rules go with --db; to see one log under several "
                               "rule sets, use compare")
    rules = resolve_or_usage(rules_specs[0]) if rules_specs else None
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    if len(files) == 1:
        def render(report: dict[str, Any]) -> str:
            return render_report(report, strict=strict)
    else:
        render = render_line  # one line per game in bulk
    if "-" in files:
        jobs = 1  # standard input is this process's: read it here
    with audit_stream(files, rules, strict=strict, jobs=jobs) as reports:
        codes = print_reports(reports, len(files), as_json, render)
    sys.exit(EXIT_OK if exit_zero else worst(codes))


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
        from .distributed import DistributedError, run_audit
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("dask", "distributed", "pandas", "pyarrow",
                                                  "fsspec"):
            raise
        fail("audit --parquet needs Dask: pip install 'yaniv-audit[dask]'", EXIT_USAGE)
    try:
        done = run_audit(parquet, rule_sets, scheduler, out, workers=workers,
                         show_progress=sys.stderr.isatty())
    except DistributedError as exc:
        fail(str(exc), EXIT_USAGE if "not an empty directory" in str(exc) else EXIT_BAD_INPUT)
    n = done.counts
    click.echo(f"{n['audits'] + n['unreadable']} games: {n['clean']} clean, "
               f"{n['claims']} with claims only, {n['violations']} with violations, "
               f"{n['corrupt']} corrupt, {n['unreadable']} unreadable")
    click.echo(f"audited {n['games']} games ({n['events']} events) under {done.rule_sets} "
               f"rule set{'s' if done.rule_sets > 1 else ''} in {done.seconds:.1f} s on "
               f"{done.workers} workers, {done.tasks} tasks ({done.events_per_second:,.0f} "
               f"events/s; {done.startup:.1f} s more to start); results in {out}")
    verdicts = [v for v in ("corrupt", "unreadable", "violations", "claims") if n[v]]
    if exit_zero or not verdicts:
        return EXIT_OK
    return EXIT_BAD_INPUT if verdicts[0] in ("corrupt", "unreadable") else EXIT_FOUND


def print_reports(reports: Any, count: int, as_json: bool,
                  render: Callable[[dict[str, Any]], str]) -> list[int]:
    """Print each report (and a summary when there are several); their exit codes."""
    from .audit import EXIT_BY_VERDICT, to_json_line

    counts: dict[str, int] = {}
    codes: list[int] = []
    with progress(reports, count, "auditing") as bar:
        echo = click.echo if bar.disable else say  # lines above the bar, never glued to it
        for report in bar:
            verdict = report["verdict"]
            counts[verdict] = counts.get(verdict, 0) + 1
            codes.append(EXIT_BY_VERDICT[verdict])
            echo(to_json_line(report) if as_json else render(report))
    if count > 1 or not codes:
        summary = (f"{len(codes)} games: {counts.get('clean', 0)} clean, "
                   f"{counts.get('claims', 0)} with claims only, "
                   f"{counts.get('violations', 0)} with violations, "
                   f"{counts.get('corrupt', 0)} corrupt, {counts.get('unreadable', 0)} unreadable")
        click.echo(summary, err=as_json)
    return codes


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option(multiple=True)
@click.option("--json", "as_json", is_flag=True)
def compare(log: str, rules_specs: tuple[str, ...], as_json: bool) -> None:
    """The same LOG under several rule sets side by side (the first --rules is the baseline)."""
    from .audit import EXIT_BY_VERDICT, compare_log, render_compare

    sets = [resolve_or_usage(s) for s in rules_specs]
    parsed = read_log_or_exit(log)
    try:
        result = compare_log(parsed, sets)
    except LogFormatError as exc:
        fail(f"{log}: unreadable: {exc}", EXIT_BAD_INPUT)
    if as_json:
        emit_json(result)
    else:
        click.echo(render_compare(result))
    sys.exit(worst([EXIT_BY_VERDICT[r["verdict"]] for r in result["results"]]))


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@rules_option()
@click.option("--seat", metavar="P", help="show only what player P sees")
def replay(log: str, rules_specs: str | None, seat: str | None) -> None:
    """Show LOG step by step: hands (or one seat's view), the top throw, stock, scores."""
    from .audit import EXIT_BY_VERDICT, replay_log, verdict_of
    from .replay_view import render_steps

    rules = resolve_or_usage(rules_specs) if rules_specs else None
    parsed = read_log_or_exit(log)
    if seat is not None and seat not in parsed.players:
        raise click.BadParameter(
            f"{seat!r} is not seated; players: {', '.join(parsed.players)}", param_hint="--seat")
    try:
        for line in render_steps(parsed, rules, seat=seat):
            click.echo(line)
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
def simulate(rules_specs: str | None, players: int, games: int, seed: int,
             bots: tuple[str, ...], record: str, out: str) -> None:
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
    """
    from .simulate import BOTS, SimulationError, simulate_game, to_jsonl

    rules = resolve_or_usage(rules_specs or "israeli")
    for name in bots:
        if name not in BOTS:
            raise click.BadParameter(f"unknown bot {name!r}; expected one of {', '.join(BOTS)}",
                                     param_hint="--bot")
    target = Path(out)
    single = target.suffix == ".jsonl"
    if single and games != 1:
        raise click.BadParameter("a .jsonl file holds one game; give a directory for --games > 1",
                                 param_hint="--out")
    if not single:
        target.mkdir(parents=True, exist_ok=True)
    events = 0
    try:
        with progress(range(games), games, "simulating") as bar:
            for game in bar:
                log = simulate_game(rules, players, list(bots), seed, game, record=record)
                events += len(log)
                path = target if single else target / f"game-{game:05d}.jsonl"
                path.write_text(to_jsonl(log), encoding="utf-8")
    except SimulationError as exc:
        fail(str(exc), EXIT_USAGE)
    click.echo(f"wrote {games} game{'s' if games != 1 else ''} ({events} events) to {target}",
               err=True)


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
              help="take the best of up to this many runs of each stage")
@click.option("--no-memory-check", "no_memory", is_flag=True,
              help="skip the streaming check (two audits in fresh processes)")
@click.option("--check", is_flag=True, help="exit 1 if a target is missed")
@click.option("--json", "as_json", is_flag=True, help="the figures as one JSON object")
def bench(rules_specs: str | None, games: int, players: int, seed: int, bots: tuple[str, ...],
          corpus: str | None, jobs: int | None, repeat: int, no_memory: bool, check: bool,
          as_json: bool) -> None:
    """Measure audit throughput against the JSON parse floor, bulk speed-up and memory.

    On a simulated corpus (or the logs in --corpus): (a) parse floor, (b) codec
    (schema validation), (c) replay alone, (d) audit end to end on one core,
    (e) bulk audit on all cores, (f) peak memory; then the targets, PASS or MISS.
    """
    from . import bench as b
    from .simulate import BOTS, SimulationError

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
                             progress=progress)
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
        click.echo(b.render(result))
    sys.exit(EXIT_FOUND if check and not all(t["pass"] for t in result["targets"])
             else EXIT_OK)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True)
@db_option
def serve(host: str, port: int, db: str | None) -> None:
    """Serve the step-through viewer (/) and the JSON API (/api/...).

    The viewer lists the archive's games (--db) and opens any log file. This is
    Flask's development server; behind a real web server use ``wsgi:app``.
    """
    from .archive import default_db
    from .web import create_app

    click.echo(f"yaniv-audit viewer on http://{host}:{port}/ (archive: {db or default_db()})",
               err=True)
    create_app({"ARCHIVE": db or default_db()}).run(host=host, port=port)


# --- the archive -----------------------------------------------------------


def open_archive(db: str | None, *, read_only: bool = False, create: bool = False,
                 locked: bool = False) -> Any:
    """The archive at ``db`` (or the default), or exit with what is wrong with it.

    Only ``ingest`` creates an archive; the other commands need one. ``locked``:
    read-only, on the connection for a user's SQL (``query``).
    """
    from .archive import Archive, default_db
    from .errors import ArchiveError

    try:
        return Archive(db or default_db(), read_only=read_only, create=create, locked=locked)
    except ArchiveError as exc:
        fail(str(exc), EXIT_BAD_INPUT)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@db_option
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to read logs with (default: all cores)")
def ingest(paths: tuple[str, ...], db: str | None, jobs: int | None) -> None:
    """Store readable logs in the archive (files, or directories of .jsonl/.json logs).

    A game is stored once, by its fingerprint; a log that cannot be read is
    refused with its error and the others go on. Nothing stored is ever changed.
    """
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    with open_archive(db, create=True) as archive:
        result = archive.ingest(files, jobs=1 if "-" in files else jobs, progress=progress)
        total = archive.count_games()
        where = archive.path
    for refused in result.refused:
        click.echo(f"{refused.source}: refused, unreadable: {refused.error}")
    for source, _, game_id, old, size in result.extensions:
        click.echo(f"{source}: continues game {game_id} as archived ({old[:16]}): its first "
                   f"{size} events unchanged")
    for source, _, game_id, longer in result.earlier:
        click.echo(f"{source}: an earlier part of game {game_id}, whose longer version "
                   f"{longer[:16]} is archived")
    for source, _, game_id, other, same in result.conflicts:
        click.echo(f"{source}: rewrites game {game_id}, archived before with other events "
                   f"({other[:16]}): they differ from event {same} on; kept as evidence, "
                   "never counted in the reports")
    click.echo(
        f"ingested {len(result.added)} game{'s' if len(result.added) != 1 else ''} "
        f"({result.events} events) into {where}; {len(result.duplicates)} already there, "
        f"{len(result.refused)} refused; the archive holds {total} games"
    )
    sys.exit(EXIT_FOUND if result.refused or result.conflicts else EXIT_OK)


def audit_archive(db: str, rules_specs: tuple[str, ...], as_json: bool, jobs: int | None,
                  exit_zero: bool, again: bool) -> int:
    """``audit --db``: the exit status."""
    from .audit import render_line

    rule_sets = list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs)) or [None]
    with open_archive(db or None) as archive:
        todo = archive.todo_under(rule_sets, again=again)
        count = sum(len(games) for games in todo.values())
        if not count:
            under = ", ".join(r.id if r else "its declared rules" for r in rule_sets)
            click.echo(f"every game of {archive.path} is audited under {under} by this "
                       "version already (--again audits them again)", err=True)
            return EXIT_OK
        codes = print_reports(archive.audit_under(todo, jobs=jobs), count, as_json,
                              render_line)
    return EXIT_OK if exit_zero else worst(codes)


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


@cli.command()
@click.argument("sql", required=False)
@db_option
@click.option("--json", "as_json", is_flag=True, help="one JSON object per row (JSON Lines)")
@click.option("--csv", "as_csv", is_flag=True, help="CSV with a header row")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=30,
              show_default=True, metavar="SECONDS",
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
    from .archive import TABLES
    from .errors import QueryError

    if as_json and as_csv:
        raise click.UsageError("--json or --csv, not both")
    if sql is None:
        for name, text in TABLES.items():
            click.echo(f"{name:10} {text}")
        return
    with open_archive(db, locked=True) as archive:
        try:
            columns, rows = archive.user_query(sql, timeout=timeout)
        except QueryError as exc:
            fail(str(exc), EXIT_USAGE)
    print_rows(columns, rows, as_json=as_json, as_csv=as_csv)


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
            click.echo(line)
    elif as_csv:
        import csv

        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)
    elif columns:
        click.echo(render_table(columns, rows))


def ensure_audited(archive: Any, rules: Any) -> None:
    """Audit the games a report needs that are not audited yet (said on stderr)."""
    todo = archive.games_to_audit(rules)
    if todo:
        under = rules.id if rules else "their declared rules"
        click.echo(f"auditing {len(todo)} games under {under} first", err=True)
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


@cli.command()
@click.argument("name", type=click.Choice(REPORT_NAMES))
@db_option
@rules_option(multiple=True)
@click.option("--players", type=click.IntRange(2, 8), default=None,
              help="only games of N players (assaf-risk: only rounds with N players)")
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default=None,
              help="a table (the default) with a summary line, one JSON object, or CSV")
@click.option("--json", "as_json", is_flag=True, help="the same as --format json")
def report(name: str, db: str | None, rules_specs: tuple[str, ...], players: int | None,
           fmt: str | None, as_json: bool) -> None:
    """An analytics report over the archive (games not audited yet are audited first).

    Each game counts once (its latest version), under its declared rules or
    under --rules R; several --rules give the report under each, with a rules
    column. Corrupt games are left out.

    \b
    players         per player: games, wins, points per round, Yanivs, Assafs, eliminations
    rounds          rounds per game and how they end, by rule set and players
    pickups         stock against pile draws, and the cards taken from the pile most
    seat-advantage  win rate by seat, and the round win rate of the player who opens
    reductions      reductions that saved a player from elimination; Victor calls
    violations      findings by code and by player
    leaderboard     players by wins, with Yaniv calls and Assafs
    assaf-risk      how often a Yaniv at each total was Assafed
    findings        which rules get broken, how often
    rules-impact    which games change winner under --rules R
    deal-odds       the recorded deals beside their exact odds (no audit needed: the
                    games that declared --rules R, else every game by its own rules)
    """
    import csv

    from . import analytics

    if as_json and fmt not in (None, "json"):
        raise click.UsageError("--json is --format json: give one of them")
    fmt = "json" if as_json else (fmt or "table")
    rule_sets = list(dict.fromkeys(resolve_or_usage(s) for s in rules_specs)) or [None]
    if name == "rules-impact" and None in rule_sets:
        raise click.UsageError("rules-impact needs --rules R, the rule set to compare with")
    needed = ([None, *rule_sets] if name == "rules-impact"
              else [] if name == "deal-odds" else rule_sets)
    with archive_for_report(db, list(dict.fromkeys(needed))) as archive:
        table = analytics.report(archive, name, rule_sets, players)
    if fmt == "json":
        emit_json(table.to_json())
    elif fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows([csv_cell(v) for v in row] for row in table.rows)
    else:
        click.echo(table.summary)
        if table.rows:
            click.echo(render_table(table.columns, table.rows))


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
    from . import analytics

    rules = resolve_or_usage(rules_specs) if rules_specs else None
    with archive_for_report(db, [rules]) as archive:
        result = analytics.odds(archive, total, players, rules)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.text())


@odds.command("deal", short_help="exact counts of the possible deals under a rule set")
@rules_option()
@click.option("--json", "as_json", is_flag=True, help="the counts as one JSON object")
def odds_deal(rules_specs: str | None, as_json: bool) -> None:
    """Exact counts of the possible deals of hand_size cards under --rules R
    (default israeli): by rank category, by the longest run that could be
    thrown, and by hand total, with the Yaniv-able deals. No archive needed.

    Every combination of physical cards counts once: two decks hold two 5H.
    """
    from .deal_odds import deal_odds

    rules = resolve_or_usage(rules_specs or "israeli")
    result = deal_odds(rules)
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(result.text())


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
    from .errors import ArchiveError

    with open_archive(db, read_only=True) as archive:
        try:
            counts = archive.export(directory, by)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
    for table, rows in counts.items():
        click.echo(f"{table:10} {rows:>9} rows" + ("" if rows else " (no file)"))
    click.echo(f"exported to {directory}, partitioned by {by}")


@cli.command("ingest-results")
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
def ingest_results(directory: str, db: str | None) -> None:
    """Store the results of `audit --parquet --out DIRECTORY` in the archive.

    Each result replaces the archive's rows of its game and rule set, so that
    `report`, `query` and the viewer use it; ingesting again changes nothing.
    Results of games not in the archive, or of another version, are left out.
    """
    from . import ENGINE
    from .errors import ArchiveError

    with open_archive(db) as archive:
        try:
            n = archive.ingest_results(directory, progress=progress)
        except ArchiveError as exc:
            fail(str(exc), EXIT_USAGE)
        where = archive.path
    click.echo(f"stored {n['stored']} results (game and rule set) into {where}")
    if n["other_engine"]:
        click.echo(f"left out {n['other_engine']} results of another version than {ENGINE}: "
                   "audit --db audits those games again")
    if n["unknown"]:
        click.echo(f"left out {n['unknown']} results of games not in {where}")
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
        click.echo(f"checkpoint {point.created_at}: {point.games} games, root {point.root}")


@cli.command()
@db_option
@click.option("--checkpoint", "checkpoint_file", type=click.File("rb"), default=None,
              metavar="FILE", help="also check a checkpoint kept outside the archive (the "
                                   "line `checkpoint --json` printed; - for standard input)")
@click.option("--audits", "audits", is_flag=True,
              help="also audit every game again and compare the stored results (verdicts, "
                   "winners, findings, rounds, standings)")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="with --audits: processes to audit with (default: all cores)")
@click.option("--json", "as_json", is_flag=True, help="one JSON line per game that fails")
def verify(db: str | None, checkpoint_file: Any, audits: bool, jobs: int | None,
           as_json: bool) -> None:
    """Check that every archived game's stored events still give its fingerprint, and
    that the archive still begins with the games of every checkpoint; with --audits,
    that the stored audit results are what a new audit gives."""
    from .archive import Checkpoint
    from .errors import ArchiveError

    outside = None
    if checkpoint_file is not None:
        try:
            outside = Checkpoint.from_json(checkpoint_file.read())
        except ArchiveError as exc:
            fail(str(exc), EXIT_BAD_INPUT)
    with open_archive(db, read_only=True) as archive:
        games, mismatches = archive.verify(progress=progress)
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
            click.echo(f"game {m.game_id} ({m.fingerprint[:16]}): {m.problem}")
    for r in rewrites:
        if as_json:
            emit_json({"fingerprint": r.fingerprint, "game_id": r.game_id, "source": r.source,
                       "rewrites": r.rewrites, "differs_at": r.differs_at})
        else:
            click.echo(f"game {r.game_id} ({r.fingerprint[:16]}, from {r.source}): rewrites "
                       f"the archived game ({r.rewrites[:16]}, from {r.rewrites_source}) from "
                       f"event {r.differs_at} on; kept as evidence, never counted")
    for point, problem in broken:
        if as_json:
            emit_json({"checkpoint": point.to_json(), "problem": problem})
        else:
            click.echo(f"checkpoint {point.root[:16]}: {problem}")
    games_altered = len({m.fingerprint for m in mismatches})
    summary = (f"{where}: {games} games, {games - games_altered} verified, {games_altered} "
               f"altered; {len(points) - len(broken)} of {len(points)} checkpoints hold"
               + (f"; {len(rewrites)} rewritten game{'s' if len(rewrites) != 1 else ''} kept "
                  "as evidence" if rewrites else ""))
    if audits:
        summary += (f"; {checked} audits re-checked, {len(altered)} differ"
                    + (f", {stale} by another engine version not checked (audit --db --again "
                       "renews them)" if stale else ""))
    click.echo(summary, err=as_json)
    sys.exit(EXIT_FOUND if mismatches or broken else EXIT_OK)


def main(argv: list[str] | None = None) -> None:
    """Entry point: never a traceback for a user's input."""
    try:
        cli.main(args=argv, prog_name="yaniv-audit", standalone_mode=True)
    except YanivAuditError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(EXIT_OK)
    except InternalError as exc:
        fail(f"internal error while reading {exc.source} ({exc.detail}); this is a bug in "
             "yaniv-audit: please send us that log", EXIT_INTERNAL)
    except Exception as exc:
        import duckdb

        if isinstance(exc, (duckdb.IOException, duckdb.SerializationException)):
            from .archive import damaged  # a damaged block found after the archive opened
            fail(str(damaged(None, exc)), EXIT_BAD_INPUT)
        fail(f"internal error ({type(exc).__name__}: {exc}); this is a bug in yaniv-audit: "
             "please send us the command and the log", EXIT_INTERNAL)


if __name__ == "__main__":
    main()

