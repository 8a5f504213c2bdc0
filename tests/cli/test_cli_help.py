"""Every command's --help (issue 38): each option says what it does, each command ends
with examples of itself, the logs are named alike (LOG...), an optional argument is
shown in brackets, no usage line is cut in a word; a near miss of a choice or a seat
gets a "did you mean"."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from yaniv_audit.cli import cli

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


def commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += commands(command, (*path, name))
        else:
            found.append((" ".join((*path, name)), command))
    return found


EVERY = commands(cli)


def help_of(name: str) -> str:
    result = CliRunner().invoke(
        cli, [*name.split(), "--help"], prog_name="yaniv-audit", terminal_width=80
    )
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(("name", "command"), EVERY, ids=[n for n, _ in EVERY])
def test_every_option_has_help_and_every_command_an_example(
    name: str, command: click.Command
) -> None:
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.help, f"{name} {param.opts[0]} has no help"
    text = help_of(name)
    examples = text.split("\n  Examples:\n", 1)
    assert len(examples) == 2, f"{name} --help shows no example"
    lines = [line.strip() for line in examples[1].splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2 and all(line.startswith("yaniv-audit ") for line in lines)
    assert any(f"yaniv-audit {name} " in f"{line} " for line in lines), name


@pytest.mark.parametrize("name", [n for n, _ in EVERY])
def test_the_usage_line_names_things_alike_and_cuts_no_word(name: str) -> None:
    text = help_of(name)
    usage = text.split("\n\n", 1)[0]
    assert not re.search(r"[A-Za-z]-\n", usage), usage  # "seat-\nadvantage"
    for other in ("PATHS", "LOGS", "PATH...", "[PATH]..."):
        assert other not in usage, usage  # a log (or logs) is LOG everywhere


def test_the_logs_are_log_and_an_optional_argument_is_in_brackets() -> None:
    firsts = {n: help_of(n).splitlines()[0] for n in ("validate", "audit", "ingest", "rules show")}
    assert firsts == {
        "validate": "Usage: yaniv-audit validate [OPTIONS] LOG...",
        "audit": "Usage: yaniv-audit audit [OPTIONS] [LOG]...",
        "ingest": "Usage: yaniv-audit ingest [OPTIONS] LOG...",
        "rules show": "Usage: yaniv-audit rules show [OPTIONS] [R]",
    }
    assert help_of("report").splitlines()[0] == "Usage: yaniv-audit report [OPTIONS] NAME"


@pytest.mark.parametrize(
    ("args", "meant"),
    [
        (["replay", str(REPLAYS / "slap-down.jsonl"), "--seat", "shri"], "shir"),
        (["report", "leaderbord"], "leaderboard"),
        (["simulate", "--record", "scoresheat", "--out", "x.jsonl"], "scoresheet"),
        (["export", "--by", "month2", "x"], "month"),
    ],
    ids=["seat", "report", "record", "by"],
)
def test_a_misspelt_value_gets_a_did_you_mean(args: list[str], meant: str) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert f'did you mean "{meant}"?' in result.output
