"""``template``: a starting log, the package's copy of docs/template.jsonl."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .options import EXIT_BAD_INPUT, force_option, refuse_to_overwrite, writable_directory
from .render import fail, note, shown

#: the log ``template`` writes: docs/template.jsonl as the package ships it (package data;
#: tests/test_packaging.py checks the copy)
TEMPLATE = Path(__file__).resolve().parents[1] / "samples" / "template.jsonl"


@click.command()
@click.argument("path", metavar="[PATH]", required=False, type=click.Path(dir_okay=False))
@force_option("PATH")
def template(path: str | None, force: bool) -> None:
    """Write a starting log to PATH (without PATH: to standard output).

    One round of three players, as a table's scoresheet keeps it: the game, the
    Yaniv call, the hands shown, the points written down and a note. Edit the
    names, cards and points to your game, then audit it. PATH is not
    overwritten unless --force.
    """
    body = TEMPLATE.read_bytes()
    if path is None or path == "-":
        sys.stdout.buffer.write(body)
        sys.stdout.flush()
        return
    target = Path(path)
    if target.exists() and not force:
        refuse_to_overwrite(path, "template")
    writable_directory(target.parent, "the log")
    try:
        target.write_bytes(body)
    except OSError as exc:  # a directory of that name, a full disk
        fail(f"{path}: cannot write the log ({exc.strerror or exc})", EXIT_BAD_INPUT)
    note(
        shown(
            f"wrote a starting log to {path} (one round, three players): write your game "
            f"in it, then yaniv-audit audit {path}"
        )
    )


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [template]
