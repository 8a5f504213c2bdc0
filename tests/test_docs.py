"""The docs say what the commands do (issue 14): every link stays in the repository, every
parameter, preset and finding code is documented, and the examples are the real output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from yaniv_audit.cli import cli, log_files
from yaniv_audit.core.rules import PARAMS, PRESET_SOURCES, PRESETS
from yaniv_audit.io.report_schema import CODES

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_every_link_is_a_file_of_the_repository(doc: Path) -> None:
    body = doc.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", body):
        if target.startswith(("http://", "https://", "#")):
            continue
        path = (doc.parent / target.split("#")[0]).resolve()
        assert path.exists() and ROOT in path.parents, f"{doc.name}: {target}"
    for outside in ("RULES.md", "LOG_FORMAT.md", "ARCHITECTURE.md"):
        assert outside not in body, f"{doc.name} names {outside}, which is not in the repository"


def test_rules_md_has_every_parameter_and_every_preset_with_its_source() -> None:
    body = text("docs/rules.md")
    for param in PARAMS:
        assert f"| `{param.name}` |" in body, param.name
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| ([^|]+) \| [^|]+ \|$", body, re.M))
    for name, source in PRESET_SOURCES.items():
        assert rows[name].strip() == source, name
    default = PRESETS["israeli"]
    for name, rules in PRESETS.items():
        row = re.search(rf"^\| `{re.escape(name)}` \| [^|]+ \| ([^|]+) \|$", body, re.M)
        assert row is not None, name
        changed = {k for k, v in rules.values().items() if getattr(default, k) != v}
        assert set(re.findall(r"`([a-z_]+)=", row.group(1))) == changed, name


def test_rules_md_gives_every_number_its_range_as_the_code_checks_it() -> None:
    """The ranges are one table in the code (rules.PARAMS); the reference repeats it."""
    body = text("docs/rules.md")
    for param in PARAMS:
        row = re.search(rf"^\| `{param.name}` \| [^|]+ \| ([^|]+) \|", body, re.M)
        assert row is not None, param.name
        if param.kind == "int":
            assert row.group(1).startswith(f"{param.minimum} to {param.maximum}"), param.name
        elif param.kind == "table":
            assert f"scores 1 to {param.maximum}" in row.group(1)


def test_log_format_md_has_every_finding_code_and_exit_status() -> None:
    body = text("docs/log-format.md")
    for kind, codes in CODES.items():
        for code in codes:
            assert re.search(rf"^\| `{re.escape(code)}` \| {kind} \| .+ \|$", body, re.M), code
    for status in ("0", "1", "2", "3", "4", "130"):
        assert re.search(rf"^\| {status} \| ", body, re.M), status


def shown(doc: str, command: str) -> str:
    """The lines a doc shows after ``$ command`` in a code block."""
    block = text(doc).split(f"$ {command}\n", 1)[1]
    return block.split("```", 1)[0]


def run_here(monkeypatch: pytest.MonkeyPatch, *args: str) -> str:
    monkeypatch.chdir(ROOT)
    return CliRunner().invoke(cli, list(args)).stdout


@pytest.mark.parametrize("doc", ["docs/cli.md", "docs/log-format.md"])
def test_the_typos_example_is_the_real_output(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert shown(doc, "yaniv-audit validate docs/typos.jsonl") == run_here(
        monkeypatch, "validate", "docs/typos.jsonl"
    )


def test_the_three_steps_show_the_template_and_its_real_ruling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's try-one-log steps, as an installed user runs them: `template
    friday.jsonl` writes docs/template.jsonl, and `audit friday.jsonl` rules as shown."""
    readme = text("README.md")
    steps = readme.split("## Settle a dispute: try one log", 1)[1].split("\n## ", 1)[0]
    template = text("docs/template.jsonl")
    assert "\n".join("   " + line for line in template.splitlines()) in steps
    assert "`yaniv-audit template friday.jsonl`" in steps
    assert "`yaniv-audit audit friday.jsonl`" in steps
    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(cli, ["template", "friday.jsonl"]).exit_code == 0
    assert (tmp_path / "friday.jsonl").read_text(encoding="utf-8") == template
    ruling = CliRunner().invoke(cli, ["audit", "friday.jsonl"]).stdout
    assert "\n".join("   " + line for line in ruling.splitlines()) in steps


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    """CI runs the second command at the top of the README, as a new user would: it
    installs the test dependencies and the browser (side by side) and runs the suite."""
    second = (ROOT / "README.md").read_text().split("```sh\n", 3)[2].split("\n", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert ci[-1] == second and "set -euo pipefail" in ci
    # pip in the background, the browser in the foreground (where sudo may ask for a
    # password), then pip's own exit status
    assert "-e '.[test]' & sh tests/install-browser.sh; }" in second
    assert "&& wait $! &&" in second
    assert second.endswith("&& .venv/bin/python -m pytest")


def test_the_readme_main_job_runs(tmp_path: Path) -> None:
    """The README's first command, after the install: its yaniv-audit steps, twice."""
    first = (ROOT / "README.md").read_text().split("```sh\n", 1)[1].split("\n", 1)[0]
    steps = [
        step.strip().split()[1:]
        for step in first.split("&&")
        if step.strip().startswith(".venv/bin/yaniv-audit")
    ]
    assert [s[0] for s in steps] == ["ingest", "audit", "report"]
    env = {**os.environ, "YANIV_AUDIT_DB": str(tmp_path / "main.duckdb")}
    outputs = []
    for _ in range(2):
        out = []
        for args in steps:
            done = subprocess.run(
                [sys.executable, "-m", "yaniv_audit.cli", *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 0, done.stderr
            out.append(done.stdout + done.stderr)
        outputs.append(out)
    games = len(log_files((str(ROOT / "replays"),)))
    assert f"ingested {games} games" in outputs[0][0]
    assert f"{games} games: " in outputs[0][1] and "0 unreadable" in outputs[0][1]
    assert "ingested 0 games (0 events)" in outputs[1][0]
    assert "audited under its declared rules by this version already" in outputs[1][1]
    assert outputs[0][2] == outputs[1][2] and outputs[0][2].splitlines()[1].startswith("player")
    # it ends on the people's games: the leaderboard leaves the bots' out and says so
    board = outputs[0][2].splitlines()
    assert board[0].endswith(f"(the {games - 8} simulated games left out); --simulated counts them")
    assert board[1].split()[:4] == ["player", "games", "finished", "wins"]
    rows = {line.split()[0]: line.split()[1] for line in board[3:]}
    assert "ana" not in rows and "carmel" not in rows and rows["ben"] == "1"  # not the bot ben


def commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, click.Command]]:
    """Every command a user can type, as its words after ``yaniv-audit`` ("odds deal")."""
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found += commands(command, (*path, name))
        else:
            found.append((" ".join((*path, name)), command))
    return found


def test_the_readme_s_first_screen_is_what_install_try_jobs_test() -> None:
    """Issue 38: laid out as ruff, httpie and sqlite-utils lay theirs out: what it is in
    two lines and the two commands, then install, one log tried with its output, the
    three jobs, the tests; the speed section keeps the current figures and its command,
    the history is bench/RESULTS.md's."""
    readme = text("README.md")
    intro = readme.split("```sh", 1)[0].split("\n\n", 1)[1].strip()
    assert len(intro.splitlines()) == 2
    headings = re.findall(r"^## (.+)$", readme, re.M)
    assert headings[:4] == [
        "Install",
        "Settle a dispute: try one log",
        "The three jobs",
        "Commands",
    ]
    assert headings.index("Test") < headings.index("Speed")
    jobs = readme.split("## The three jobs", 1)[1].split("\n## ", 1)[0]
    assert len(re.findall(r"^\*\*[^*]+\.\*\*", jobs, re.M)) == 3
    speed = readme.split("## Speed", 1)[1].split("\n## ", 1)[0]
    assert "yaniv-audit bench --games 300 --players 4" in speed
    assert "bench/RESULTS.md" in speed and len(speed.strip().splitlines()) <= 16
    for history in ("evening", "drifting", "before whole numbers"):
        assert history not in speed, history


def test_the_readme_is_a_front_page_under_200_lines() -> None:
    """Issue 29: the README says what the tool is and links the reference, it does not hold it."""
    assert len(text("README.md").splitlines()) < 200


@pytest.mark.parametrize(("name", "command"), commands(cli), ids=[n for n, _ in commands(cli)])
def test_cli_md_shows_every_command_with_every_option(name: str, command: click.Command) -> None:
    """docs/cli.md is the reference the README's table points to: every command has a
    synopsis there naming each of its options, and a line in the README's table."""
    body = text("docs/cli.md")
    synopses = [
        line
        for line in re.findall(r"^yaniv-audit (.+)$", body, re.M)
        if f"{line} ".startswith(f"{name} ")
    ]
    assert synopses, f"docs/cli.md has no synopsis of {name}"
    shared = body.split("## What every command shares", 1)[1].split("\n## ", 1)[0]
    for param in command.params:
        for opt in (o for o in getattr(param, "opts", ()) if o.startswith("--")):
            where = shared if opt in ("--verbose", "--quiet") else " ".join(synopses)
            assert re.search(rf"{re.escape(opt)}\b", where), f"{name} {opt}"
    table = text("README.md").split("## Commands", 1)[1].split("\n## ", 1)[0]
    assert f"`{name}" in table or f"`{name.split()[0]} --" in table, name


def test_the_code_and_the_generated_schemas_point_into_docs() -> None:
    """Docstrings and the JSON Schemas named LOG_FORMAT.md sections and ARCHITECTURE.md,
    which are not in the repository: they point to docs/, and every docs/ page they name
    is there."""
    files = [
        *(ROOT / "yaniv_audit").rglob("*.py"),
        *(ROOT / "schemas").glob("*"),
        *(
            p
            for p in (ROOT / "tests").rglob("*")
            if p.suffix in (".py", ".md") and p.name != "test_docs.py"
        ),
    ]
    named: set[str] = set()
    for path in files:
        body = path.read_text(encoding="utf-8")
        for outside in ("RULES.md", "LOG_FORMAT", "ARCHITECTURE.md"):
            assert outside not in body, f"{path.relative_to(ROOT)} names {outside}"
        named.update(re.findall(r"docs/([\w-]+\.md)", body))
    assert {"log-format.md", "rules.md", "fingerprints.md"} <= named
    for page in named:
        assert (ROOT / "docs" / page).is_file(), page
