"""The ``yaniv-audit`` command line (docs/log-format.md, the README).

Exit status, every command: 0 all fine; 1 something was found; 2 wrong usage;
3 unreadable or corrupt input. With several inputs the worst wins.

The package, by command group (docs/design.md): :mod:`.render` writes every line of
text, :mod:`.options` holds what the commands share (exit statuses, options, the rule
set and files they name); :mod:`.logs` (validate, audit, compare, replay),
:mod:`.proofs`, :mod:`.rules`, :mod:`.simulate`, :mod:`.template`, :mod:`.bench`,
:mod:`.serve`, :mod:`.archive` (ingest, export, checkpoint, verify, query...) and :mod:`.reports`
(report, odds) each define their commands, which this module gathers in the group
:data:`cli`.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from typing import Any

import click

from .. import __version__
from ..core.errors import InternalError, YanivAuditError
from ..io.files import log_files
from . import archive, bench, logs, proofs, reports, rules, serve, simulate, tables, template
from .examples import add_examples
from .options import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    verbosity_options,
)
from .render import Output, echo, fail
from .serve import usable_cores

__all__ = ["cli", "log_files", "main", "usable_cores"]


class Commands(click.Group):
    """The command group: Ctrl-C anywhere is one line and exit status 130."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # a progress bar may be on the terminal's last line: end it first
            echo(("\n" if sys.stderr.isatty() else "") + "yaniv-audit: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="yaniv-audit")
@verbosity_options
def cli() -> None:
    """Replay, check and score Yaniv game logs under any house rules.

    Shell completion (bash, zsh, fish): eval "$(_YANIV_AUDIT_COMPLETE=bash_source
    yaniv-audit)" in ~/.bashrc (zsh_source in ~/.zshrc; fish_source for fish).
    """


def _every_command(group: click.Group) -> Iterator[click.Command]:
    for command in group.commands.values():
        yield command
        if isinstance(command, click.Group):
            yield from _every_command(command)


for _group in (logs, proofs, rules, simulate, template, bench, serve, archive, reports, tables):
    for _command in _group.COMMANDS:
        cli.add_command(_command)

for _command in _every_command(cli):
    verbosity_options(_command)
add_examples(cli)  # each command's --help ends with its examples


def main(argv: list[str] | None = None) -> None:
    """Entry point: never a traceback for a user's input."""
    output = Output()  # this run's --quiet or --verbose
    try:
        cli.main(args=argv, prog_name="yaniv-audit", standalone_mode=True, obj=output)
    except YanivAuditError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    except BrokenPipeError:
        sys.exit(EXIT_OK)
    except InternalError as exc:
        if output.verbosity > 0:
            traceback.print_exc()
        fail(
            f"internal error while reading {exc.source} ({exc.detail}); this is a bug in "
            "yaniv-audit: please send us that log",
            EXIT_INTERNAL,
        )
    except Exception as exc:
        import duckdb  # heavy: only once a command failed, to tell its errors apart

        if output.verbosity > 0:
            traceback.print_exc()
        if isinstance(exc, duckdb.Error):
            from ..archive import damaged, trouble  # heavy (DuckDB), as above

            # a damaged block found after the archive opened, a full disk, too little memory
            found = trouble(None, exc)
            if found is None and isinstance(
                exc, (duckdb.IOException, duckdb.SerializationException)
            ):
                found = damaged(None, exc)
            if found is not None:
                fail(str(found), EXIT_BAD_INPUT)
        fail(
            f"internal error ({type(exc).__name__}: {exc}); this is a bug in yaniv-audit: "
            "please send us the command and the log",
            EXIT_INTERNAL,
        )
