"""What a newcomer still tripped on (issue 38): simulate overwriting logs, a directory
that cannot be written (one exit status for every command), a .jsonl log holding a JSON
array, a log given as the archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from yaniv_audit.cli import cli

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


# --- a starting log, for an installed yaniv-audit too ------------------------------------

TEMPLATE = Path(__file__).resolve().parents[2] / "docs" / "template.jsonl"


def test_template_writes_the_starting_log_and_overwrites_nothing(tmp_path: Path) -> None:
    assert run("template").stdout == TEMPLATE.read_text()
    game = tmp_path / "friday.jsonl"
    written = run("template", str(game))
    assert written.exit_code == 0 and game.read_bytes() == TEMPLATE.read_bytes()
    assert f"then yaniv-audit audit {game}" in written.stderr
    game.write_text("our game, half written\n")
    refused = run("template", str(game))
    assert refused.exit_code == 2 and "give --force" in refused.output
    assert game.read_text() == "our game, half written\n"
    assert run("template", str(game), "--force").exit_code == 0
    assert game.read_bytes() == TEMPLATE.read_bytes()
    assert run("audit", str(game)).exit_code == 1  # the template's claims: it audits


def test_an_unreadable_log_points_at_what_an_installed_user_has(tmp_path: Path) -> None:
    """docs/ is not installed: the messages name `yaniv-audit template`, not
    docs/template.jsonl."""
    letter = tmp_path / "letter.jsonl"
    letter.write_text("Dear club,\nthe scores of friday\nare below\n")
    said = run("validate", str(letter)).output
    assert "yaniv-audit template writes a game to start from" in said
    assert "docs/template.jsonl" not in said


# --- simulate does not overwrite a log ------------------------------------------------


def test_simulate_refuses_to_overwrite_a_hand_written_log_unless_force(tmp_path: Path) -> None:
    mine = tmp_path / "mygame.jsonl"
    mine.write_text("my own game\n")
    refused = run("simulate", "--out", str(mine))
    assert refused.exit_code == 2
    assert f"{mine}: exists; simulate does not overwrite it: give --force" in refused.output
    assert mine.read_text() == "my own game\n"
    forced = run("simulate", "--out", str(mine), "--force")
    assert forced.exit_code == 0 and mine.read_text().startswith('{"type":"game_started"')


def test_simulate_refuses_to_overwrite_the_games_in_a_directory_unless_force(
    tmp_path: Path,
) -> None:
    first = tmp_path / "game-00000.jsonl"
    first.write_text("kept\n")
    (tmp_path / "notes.txt").write_text("a file simulate does not write: no matter\n")
    refused = run("simulate", "--games", "3", "--out", str(tmp_path))
    assert refused.exit_code == 2 and f"{first}: exists; simulate" in refused.output
    assert first.read_text() == "kept\n" and not (tmp_path / "game-00001.jsonl").exists()
    (tmp_path / "game-00002.jsonl").write_text("kept too\n")
    both = run("simulate", "--games", "3", "--out", str(tmp_path))
    assert "(and 1 more of the files to write)" in both.output
    assert run("simulate", "--games", "3", "--out", str(tmp_path), "--force").exit_code == 0
    assert first.read_text() != "kept\n" and (tmp_path / "game-00001.jsonl").exists()
    assert run("simulate", "--games", "2", "--out", str(tmp_path / "new")).exit_code == 0


# --- a directory that cannot be written: exit 3 for every command ---------------------


@pytest.fixture
def unwritable(tmp_path: Path) -> Path:
    """A directory no one can make, root included: a path under a regular file."""
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    return a_file / "dir"


def test_a_directory_that_cannot_be_written_is_exit_3_for_every_command(
    unwritable: Path, tmp_path: Path
) -> None:
    """docs/log-format.md, exit status: 3 for what cannot be used, an archive or a full
    disk; ingest said 3, simulate 2 and export 2 for the same directory."""
    archive = tmp_path / "a.duckdb"
    assert run("ingest", "--db", str(archive), str(REPLAYS / "middle-card.jsonl")).exit_code == 0
    said = {
        "ingest": run("ingest", "--db", str(unwritable / "a.duckdb"), str(REPLAYS)),
        "simulate": run("simulate", "--out", str(unwritable)),
        "simulate one": run("simulate", "--out", str(unwritable / "one.jsonl")),
        "export": run("export", "--db", str(archive), str(unwritable)),
        "template": run("template", str(unwritable / "game.jsonl")),
    }
    for command, result in said.items():
        assert result.exit_code == 3, (command, result.output)
        assert str(unwritable) in result.output and "Not a directory" in result.output, command


# --- a log read as it is named ----------------------------------------------------------


@pytest.mark.parametrize("indent", [None, 2], ids=["one line", "indented"])
def test_a_jsonl_file_holding_an_array_is_said_to_be_one(
    tmp_path: Path, indent: int | None
) -> None:
    events = [json.loads(line) for line in (REPLAYS / "middle-card.jsonl").read_text().splitlines()]
    log = tmp_path / "game.jsonl"
    log.write_text(json.dumps(events, indent=indent))
    for command in ("audit", "validate"):
        result = run(command, str(log))
        assert result.exit_code == 3
        assert "line 1: a JSON array of events" in result.output, command
        assert "name it .json to read it as an array" in result.output, command
    renamed = log.rename(tmp_path / "game.json")
    assert run("audit", str(renamed)).exit_code == 1  # the sample's violation, read


@pytest.mark.parametrize("command", [["report", "leaderboard"], ["ingest"], ["audit"]])
def test_a_log_given_as_the_archive_is_said_to_be_a_log(tmp_path: Path, command: list[str]) -> None:
    sheet = tmp_path / "sheet.jsonl"
    sheet.write_bytes((REPLAYS / "middle-card.jsonl").read_bytes())
    logs = [str(REPLAYS / "middle-card.jsonl")] if command == ["ingest"] else []
    result = run(*command, "--db", str(sheet), *logs)
    assert result.exit_code == 3
    assert f"{sheet}: a game log, not an archive: --db names the DuckDB archive" in result.output
    assert "DuckDB database" not in result.output
    assert sheet.read_bytes() == (REPLAYS / "middle-card.jsonl").read_bytes()


def test_an_archive_whose_checksum_starts_with_a_brace_is_no_log(tmp_path: Path) -> None:
    """A DuckDB file starts with an 8-byte checksum, any byte at all (a `{` too: the
    suite once met one), then DUCK: it is an archive, however its first byte reads."""
    from yaniv_audit.archive.connect import looks_like_a_log

    archive = tmp_path / "live.duckdb"
    archive.write_bytes(b"{\n [\t\r {" + b"DUCK" + bytes(52))  # 8 bytes, then DUCK
    assert not looks_like_a_log(str(archive))
    unnamed = tmp_path / "sheet.txt"
    unnamed.write_bytes(b"\xef\xbb\xbf  " + (REPLAYS / "middle-card.jsonl").read_bytes())
    assert looks_like_a_log(str(unnamed))


# --- the rules a ruling was made under, and where they came from --------------------


def test_the_ruling_says_which_rules_and_where_they_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 38: the house file is found upward from here (to the project's root), and the
    ruling's line under the verdict says the rules and their origin: the log's
    declaration, --rules, the house file at its path, or $YANIV_AUDIT_RULES."""
    log = str(REPLAYS / "middle-card.jsonl")

    def rules_said(*args: str) -> str:
        lines = run("audit", log, *args).stdout.splitlines()
        assert lines[0].startswith(f"{log}: ")  # the verdict first, as ever
        return lines[1]

    assert rules_said() == "  rules: israeli — declared by the log"
    assert rules_said("--rules", "classic") == "  rules: classic — given with --rules"
    monkeypatch.delenv("YANIV_AUDIT_RULES")
    monkeypatch.setenv("HOME", str(tmp_path))
    club = tmp_path / "club"
    (club / ".git").mkdir(parents=True)
    (club / "yaniv-rules.toml").write_text('base = "israeli"\nyaniv_max = 5\n')
    (club / "games" / "friday").mkdir(parents=True)
    monkeypatch.chdir(club / "games" / "friday")
    house = club.resolve() / "yaniv-rules.toml"
    assert rules_said() == f"  rules: israeli(yaniv_max=5) — from the house file {house}"
    assert rules_said("--rules", "namu") == "  rules: namu — given with --rules"
    monkeypatch.setenv("YANIV_AUDIT_RULES", "namu")
    assert rules_said() == "  rules: namu — from $YANIV_AUDIT_RULES"
    monkeypatch.chdir(tmp_path)  # above the project's root: its house file is not found
    monkeypatch.delenv("YANIV_AUDIT_RULES")
    assert rules_said() == "  rules: israeli — declared by the log"
