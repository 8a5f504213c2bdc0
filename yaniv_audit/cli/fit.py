"""``rules fit``: the rule sets a game fits, found from the game (issue 39)."""

from __future__ import annotations

import sys

import click

from .logs import lang_option
from .options import EXIT_BAD_INPUT, EXIT_OK, read_log_or_exit, resolve_or_usage
from .render import echo, emit_json

#: found something: the log fits no rule set tried (docs/log-format.md, exit status)
EXIT_FOUND = 1


@click.command("fit")
@click.argument("log", metavar="LOG", type=click.Path())
@click.option(
    "--from",
    "start",
    default=None,
    metavar="R",
    help="the rule set to start from (a preset, an id or a rules file; default: the rules "
    "the log declares)",
)
@click.option(
    "--json", "as_json", is_flag=True, help="the answer as data (schemas/fit.schema.json)"
)
@lang_option
def rules_fit(log: str, start: str | None, as_json: bool, lang: str | None) -> None:
    """Which rules fit LOG: the rule sets under which it audits clean, as the smallest
    changes from R, each parameter the log decides with its values and the events
    that decide it, and the parameters the log cannot tell.

    Exit status 0 when some rule set fits, 1 when none tried does (the closest are
    shown, with what is left), 3 when LOG is unreadable or an impossible event stops
    every replay.
    """
    from ..core.fit import fit_lines, fit_log  # the engine: imported when used
    from .logs import language_of

    words = language_of(lang)
    rules = resolve_or_usage(start, "--from") if start else None
    found = fit_log(read_log_or_exit(log, words), rules)
    if as_json:
        emit_json(found.to_json())
    else:
        for text, _ in fit_lines(found, words.gettext, suits=words.suits):
            echo(text)
    if found.clean:
        sys.exit(EXIT_OK)
    corrupt = any(f.kind == "inconsistency" for f in found.alternatives[0].findings)
    sys.exit(EXIT_BAD_INPUT if corrupt else EXIT_FOUND)
