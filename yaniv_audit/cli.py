"""The ``yaniv-audit`` command line (LOG_FORMAT.md section 6).

Exit status, every command: 0 all fine; 1 something was found; 2 wrong usage;
3 unreadable or corrupt input. With several inputs the worst wins.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__
from .errors import LogFormatError, RulesError, YanivAuditError
from .events import Log
from .rules import format_value

EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_BAD_INPUT = 0, 1, 2, 3


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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yaniv-audit")
def cli() -> None:
    """Replay, check and score Yaniv game logs under any house rules."""


# --- foundation commands --------------------------------------------------


@cli.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="one JSON line per log")
def validate(logs: tuple[str, ...], as_json: bool) -> None:
    """Check that each LOG is readable (format, fields, cards, players, order).

    These checks do not depend on the rule set; the audit does the rest.
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
@click.option("--event", "index", type=int, required=True, help="0-based event index")
def prove(log: str, index: int) -> None:
    """Print an inclusion proof of event N of LOG as JSON."""
    from .merkle import make_proof

    leaves = read_log_or_exit(log).leaves
    if not 0 <= index < len(leaves):
        raise click.BadParameter(
            f"the log has events 0 to {len(leaves) - 1}, not {index}", param_hint="--event"
        )
    emit_json(make_proof(leaves, index))


@cli.command("verify-proof")
@click.argument("proof", type=click.File("rb"))
@click.option("--fingerprint", "fingerprint_hex", required=True, metavar="HEX",
              help="the fingerprint you trust (64 hex digits)")
def verify_proof_cmd(proof: Any, fingerprint_hex: str) -> None:
    """Check an inclusion PROOF (a file, or - for standard input) against a fingerprint."""
    from .merkle import ProofError, verify_proof

    data = proof.read()
    try:
        ok = verify_proof(data, fingerprint_hex)
    except ProofError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    if not ok:
        click.echo("invalid: the proof does not show that event in the log with that fingerprint")
        sys.exit(EXIT_FOUND)
    shown = json.loads(data)  # well-formed: verify_proof has checked it
    click.echo(
        f"valid: event {shown['index']} ({shown['event'].get('type', 'no type')}) is in the log "
        f"{fingerprint_hex.strip().lower()}"
    )
    sys.exit(EXIT_OK)


# --- audit, compare, replay ------------------------------------------------


def log_files(paths: tuple[str, ...]) -> list[str]:
    """Files named, and the .jsonl/.json files under directories named, in order."""
    files: list[str] = []
    for path in paths:
        p = Path(path)
        if p.is_dir():
            found = sorted(
                str(f) for f in p.rglob("*") if f.suffix in (".jsonl", ".json") and f.is_file()
            )
            files.extend(found)
        else:
            files.append(path)
    return files


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@rules_option()
@click.option("--json", "as_json", is_flag=True, help="one report per line (JSON Lines)")
@click.option("--strict", is_flag=True, help="stop each log at its first finding")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              help="processes to use (default: all cores)")
@click.option("--exit-zero", is_flag=True,
              help="exit 0 even when findings or bad logs are found (reports still say so)")
def audit(paths: tuple[str, ...], rules_specs: str | None, as_json: bool, strict: bool,
          jobs: int | None, exit_zero: bool) -> None:
    """Replay each log under R (default: the rules the log declares) and rule on it.

    PATH is a log file or a directory of .jsonl/.json logs.
    """
    from .audit import EXIT_BY_VERDICT, render_line, render_report
    from .bulk import audit_stream

    rules = resolve_or_usage(rules_specs) if rules_specs else None
    files = log_files(paths)
    if not files:
        fail("no .jsonl or .json logs found in " + ", ".join(paths), EXIT_USAGE)
    render = render_report if len(files) == 1 else render_line  # one line per game in bulk
    counts: dict[str, int] = {}
    codes: list[int] = []
    show_progress = len(files) > 1 and sys.stderr.isatty()
    with audit_stream(files, rules, strict=strict, jobs=jobs) as reports:
        with click.progressbar(reports, length=len(files), label="auditing", file=sys.stderr,
                               hidden=not show_progress) as bar:
            for report in bar:
                verdict = report["verdict"]
                counts[verdict] = counts.get(verdict, 0) + 1
                codes.append(EXIT_BY_VERDICT[verdict])
                if as_json:
                    emit_json(report)
                else:
                    click.echo(render(report))
    if len(files) > 1:
        summary = (f"{len(files)} games: {counts.get('clean', 0)} clean, "
                   f"{counts.get('claims', 0)} with claims only, "
                   f"{counts.get('violations', 0)} with violations, "
                   f"{counts.get('corrupt', 0)} corrupt, {counts.get('unreadable', 0)} unreadable")
        click.echo(summary, err=as_json)
    sys.exit(EXIT_OK if exit_zero else worst(codes))


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
@click.option("--out", "out", required=True, type=click.Path(),
              help="a directory (one game-NNNNN.jsonl per game) or, for one game, a .jsonl file")
def simulate(rules_specs: str | None, players: int, games: int, seed: int,
             bots: tuple[str, ...], out: str) -> None:
    """Write legal games played by bots (deterministic for the same arguments)."""
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
        with click.progressbar(range(games), label="simulating", file=sys.stderr,
                               hidden=not sys.stderr.isatty() or games < 2) as bar:
            for game in bar:
                log = simulate_game(rules, players, list(bots), seed, game)
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

    def progress(items: Any, length: int, label: str) -> Any:
        return click.progressbar(items, length=length, label=label, file=sys.stderr,
                                 hidden=not sys.stderr.isatty())

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
def serve(host: str, port: int) -> None:
    """Serve the JSON API (GET /api/rules, POST /api/audit?rules=R with a log as the body).

    This is Flask's development server; behind a real web server use ``wsgi:app``.
    """
    from .web import create_app

    create_app().run(host=host, port=port)


def main(argv: list[str] | None = None) -> None:
    """Entry point: never a traceback for a user's input."""
    try:
        cli.main(args=argv, prog_name="yaniv-audit", standalone_mode=True)
    except YanivAuditError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(EXIT_OK)


if __name__ == "__main__":
    main()

