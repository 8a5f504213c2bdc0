"""What the commands share: the exit statuses, the options (--quiet and --verbose,
--rules, --db), the rule set and the files they name, and the archive they open.

Exit status, every command: 0 all fine; 1 something was found; 2 wrong usage;
3 unreadable or corrupt input; 4 an internal error; 130 interrupted. With several
inputs the worst wins.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import click
from click.shell_completion import CompletionItem

from ..core.errors import ArchiveError, LogFormatError, RulesError, did_you_mean
from ..core.rules import PRESET_SOURCES, PRESETS, names_a_preset
from ..io.rules_files import HOUSE_VARIABLE, house_rules_spec, resolve_rules
from .render import Output, fail, note

if TYPE_CHECKING:
    from ..core.events import Log
    from ..lang import Words


EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130


def worst(codes: list[int]) -> int:
    """3 beats 1 beats 0 (2 is usage and never mixed in)."""
    for code in (EXIT_BAD_INPUT, EXIT_FOUND):
        if code in codes:
            return code
    return EXIT_OK


class Choice(click.Choice):  # type: ignore[type-arg]
    """click's choice, and a "did you mean" for a near miss, as every value a command
    reads says it (a preset, a bot, a player, a field)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            hint = did_you_mean(value, [str(c) for c in self.choices])
            if not hint:
                raise
            self.fail(f"{exc.message.rstrip('.')}{hint}", param, ctx)


def set_verbosity(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    """--quiet or --verbose, in the run's :class:`Output` (the last given wins)."""
    if value:
        ctx.ensure_object(Output).verbosity = -1 if param.name == "quiet" else 1


def verbosity_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """-q/--quiet and -v/--verbose, before the command name or after it."""
    f = click.option(
        "-v",
        "--verbose",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=set_verbosity,
        help="also say what is done (files, processes, rules) on standard "
        "error, and show the traceback of an internal error",
    )(f)
    return click.option(
        "-q",
        "--quiet",
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=set_verbosity,
        help="no progress bar and no notes on standard error; validate "
        "and audit list only the logs with something to report",
    )(f)


def db_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--db",
        "db",
        default=None,
        metavar="FILE",
        help="the archive (default: $YANIV_AUDIT_DB, else yaniv-archive.duckdb here)",
    )(f)


def complete_rules(
    ctx: click.Context,
    param: click.Parameter,
    incomplete: str,
) -> list[click.shell_completion.CompletionItem]:
    """Shell completion of a rule set: the presets that start with what is typed (each
    with its source), then the files there, as a rules file is a path."""
    presets = [
        CompletionItem(name, help=PRESET_SOURCES[name])
        for name in PRESETS
        if name.startswith(incomplete)
    ]
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
    try:
        rules = resolve_rules(spec)
    except RulesError as exc:
        raise click.BadParameter(str(exc), param_hint=hint) from None
    if names_a_preset(spec) and os.path.exists(spec):
        note(
            f"rules: {spec} is the preset, not the file {spec} here (to read the file, "
            f"give --rules {shlex.quote(os.path.join('.', spec))})"
        )
    return rules


def house_rules(*, say: bool = True) -> tuple[Any, str] | None:
    """The house rules found by default (``$YANIV_AUDIT_RULES``, else the nearest
    ``yaniv-rules.toml`` from here up to the project's root) and where they were found
    (the variable, or the file's path), or None; a note on stderr says they are used."""
    found = house_rules_spec()
    if found is None:
        return None
    spec, where = found
    rules = resolve_or_usage(spec, HOUSE_VARIABLE if where.startswith("$") else where)
    if say:
        note(
            f"rules: {rules.id}, the house rules of {where} (--rules R overrides them; "
            f"{HOUSE_VARIABLE}= with no value turns them off)"
        )
    return rules, where


def rules_and_origin(spec: str | None) -> tuple[Any, tuple[str, str]]:
    """:func:`rules_or_house`, and where the rules came from, as the ruling says it (a
    sentence's key and the path it names): ``--rules``, the house file at its path,
    ``$YANIV_AUDIT_RULES``, or (rules None) the log's own declaration."""
    if spec:
        return resolve_or_usage(spec), ("say.rules_given", "")
    found = house_rules()
    if found is None:
        return None, ("say.rules_declared", "")
    rules, where = found
    return rules, ("say.rules_variable" if where.startswith("$") else "say.rules_house", where)


def rules_or_house(spec: str | None) -> Any:
    """``--rules`` if given, else the house rules if found, else None (each log's own)."""
    return rules_and_origin(spec)[0]


def writable_directory(directory: str | os.PathLike[str], what: str) -> None:
    """Make ``directory`` (and its parents) and check a file can be written in it, or exit
    3 in one line: a directory that cannot be written is the same status for every command
    (ingest's archive, simulate's and template's logs, export's Parquet; docs/log-format.md,
    exit status). ``what``: what was to be written there ("the games")."""
    import tempfile

    try:
        os.makedirs(directory, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as exc:
        fail(
            f"{directory}: cannot write {what} there ({exc.strerror or exc})",
            EXIT_BAD_INPUT,
        )


def refuse_to_overwrite(path: str | os.PathLike[str], what: str, more: int = 0) -> NoReturn:
    """Exit 2: ``path`` is there already and ``--force`` was not given (``more``: other
    files that would be overwritten too)."""
    others = f" (and {more} more of the files to write)" if more else ""
    fail(
        f"{path}: exists{others}; {what} does not overwrite it: give --force to replace "
        "it, or another path",
        EXIT_USAGE,
    )


def force_option(what: str) -> Callable[[Any], Any]:
    return click.option("--force", is_flag=True, help=f"overwrite {what} that is there already")


def read_log_or_exit(path: str, words: Words | None = None) -> Log:
    """The log at ``path``, or exit saying why it cannot be read (its first problem, in
    ``words``' language when one is given)."""
    from ..io.codec import read_log  # heavy (marshmallow): imported when used

    try:
        return read_log(path)
    except LogFormatError as exc:
        unreadable(path, exc, words)


def unreadable(path: str, exc: LogFormatError, words: Words | None = None) -> NoReturn:
    """Exit saying that the log at ``path`` cannot be read: ``exc`` in English (as
    other programs read it), else its first problem in ``words``' language."""
    if words is None or words.gettext is None:
        fail(f"{path}: unreadable: {exc}", EXIT_BAD_INPUT)
    from ..io.diagnose import diagnose, from_error  # heavy (marshmallow): imported when used

    # the first problem as validate says it (its field and near miss), else the error's
    found = diagnose(path, exc, limit=1) if exc.line is not None or exc.index is not None else None
    problem = found.problems[0] if found is not None and found.problems else from_error(exc)
    text = problem.text(words)
    verdict = words.say("say.word", word="verdict.unreadable")
    fail(words.say("unreadable:one", file=path, verdict=verdict, text=text), EXIT_BAD_INPUT)


def open_archive(
    db: str | None, *, read_only: bool = False, create: bool = False, locked: bool = False
) -> Any:
    """The archive at ``db`` (or the default), or exit with what is wrong with it.

    Only ``ingest`` creates an archive; the other commands need one. ``locked``:
    read-only, on the connection for a user's SQL (``query``). A command that writes
    reads every block of the file first (:meth:`~yaniv_audit.archive.Archive.check_blocks`):
    it never adds to a damaged archive.
    """
    # heavy (DuckDB): imported when used
    from ..archive import WRITER_WAIT, Archive, default_db

    try:  # a writer waits its turn while a server only reads the archive
        archive = Archive(
            db or default_db(),
            read_only=read_only,
            create=create,
            locked=locked,
            wait=0.0 if read_only or locked else WRITER_WAIT,
        )
    except ArchiveError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    if not (read_only or locked):
        try:
            archive.check_blocks()
        except ArchiveError as exc:
            archive.close()
            fail(str(exc), EXIT_BAD_INPUT)
    return archive
