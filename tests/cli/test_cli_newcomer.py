"""The command line as a newcomer meets it (issue 14): where a finding is in the file,
.json logs named by event, replay's rules, the proof's fingerprint, small audits in
process, --json/--quiet/--verbose, colours, a house-rules file found by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from yaniv_audit.batch import bulk
from yaniv_audit.cli import cli

REPLAYS = Path(__file__).resolve().parents[2] / "replays"


def run(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), env=env, input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def replay(name: str) -> str:
    return str(REPLAYS / f"{name}.jsonl")


def as_json_log(tmp_path: Path, name: str, change: Any = None) -> str:
    events = [json.loads(line) for line in Path(replay(name)).read_text().splitlines()]
    if change is not None:
        change(events)
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(events))
    return str(path)


# --- where a finding is ------------------------------------------------------------


def test_a_ruling_gives_the_file_line_of_each_finding() -> None:
    out = run("audit", "--jobs", "1", replay("wrong-score")).output
    assert "WRONG CLAIM at event 15 (line 16): yossi was written down" in out


def test_a_bulk_line_gives_the_file_line_of_the_first_finding() -> None:
    out = run("audit", "--jobs", "1", replay("middle-card"), replay("wrong-score")).output
    assert "first: draw.pile_card at event 5 (line 6))" in out


def test_blank_lines_count_in_the_file_line(tmp_path: Path) -> None:
    path = tmp_path / "spaced.jsonl"
    path.write_text("\n\n" + Path(replay("middle-card")).read_text().replace("\n", "\n\n"))
    out = run("audit", "--jobs", "1", str(path)).output
    assert "RULE BROKEN at event 5 (line 13):" in out and "[draw.pile_card]" in out


def test_a_json_log_is_named_by_event_everywhere(tmp_path: Path) -> None:
    good = as_json_log(tmp_path, "middle-card")
    out = run("audit", "--jobs", "1", good).output
    assert "RULE BROKEN at event 5:" in out and "(line" not in out

    def typo(events: list[dict[str, Any]]) -> None:
        events[3]["cards"] = ["5Z"]

    bad = as_json_log(tmp_path, "wrong-score", typo)
    for command in (
        ["audit", "--jobs", "1", bad],
        ["audit", "--jobs", "1", bad, good],
        ["validate", bad],
        ["fingerprint", bad],
        ["replay", bad],
        ["compare", bad],
    ):
        result = run(*command)
        assert result.exit_code == 3
        assert f"{bad}: " in result.output
        assert "event 3: " in result.output and "line 3" not in result.output, command


# --- replay, verify-proof ----------------------------------------------------------


def test_replay_says_the_rules_it_replays_under() -> None:
    out = run("replay", replay("middle-card"), "--rules", "israeli(pickup=any)").output
    assert out.splitlines()[0] == (
        f"{replay('middle-card')}: replayed under "
        "israeli(pickup=any) (--rules); the log declares israeli"
    )


# --- a handful of files in process -------------------------------------------------


def test_a_handful_of_files_is_audited_without_a_worker_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_pool(processes: int) -> Any:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    result = run("audit", *(replay(n) for n in ("middle-card", "wrong-score", "two-decks")))
    assert result.exit_code == 1
    assert "3 games: 1 clean, 1 with wrong claims only, 1 with rules broken" in result.output


def test_more_work_than_the_pool_costs_goes_to_the_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def no_pool(processes: int) -> Any:
        started.append(processes)
        raise RuntimeError("stop here")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    monkeypatch.setattr(bulk, "POOL_MIN_BYTES", 1000)
    files = [replay("middle-card"), replay("wrong-score")]
    assert not bulk.small_work(files)
    with pytest.raises(RuntimeError), bulk.audit_stream(files, jobs=None) as reports:
        next(reports)
    assert started


def test_a_malformed_fingerprint_is_wrong_usage_naming_the_option() -> None:
    result = run("verify-proof", "-", "--fingerprint", "abc", stdin="{}")
    assert result.exit_code == 2
    assert "--fingerprint" in result.output and "expected 64 hex digits" in result.output


# --- --json ------------------------------------------------------------------------


def test_ingest_json_says_what_was_stored_and_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"game_started"}\n')
    db = str(tmp_path / "a.duckdb")
    result = run(
        "ingest", "--json", "--db", db, replay("middle-card"), replay("wrong-score"), str(bad)
    )
    answer = json.loads(result.output)
    assert result.exit_code == 1  # a log refused
    assert answer["games"] == 2 and len(answer["added"]) == 2
    assert answer["added"][0]["file"] == replay("middle-card")
    assert answer["refused"][0]["file"] == str(bad)
    assert answer["refused"][0]["error"]["line"] == 1
    again = json.loads(run("ingest", "--json", "--db", db, replay("middle-card")).output)
    assert (again["added"], again["duplicates"][0]["file"]) == ([], replay("middle-card"))


def test_replay_json_is_one_line_per_event_with_the_findings() -> None:
    result = run("replay", "--json", replay("middle-card"))
    steps = [json.loads(line) for line in result.output.splitlines()]
    assert result.exit_code == 1
    assert [s["index"] for s in steps] == list(range(24))
    assert steps[5]["findings"][0]["code"] == "draw.pile_card"
    assert steps[5]["text"] == "noa draws 8H from the pile"


def test_verify_proof_json_says_valid_or_not(tmp_path: Path) -> None:
    proof = run("prove", replay("wrong-score"), "--event", "15").output
    fingerprint = run("fingerprint", replay("wrong-score")).output.strip()
    result = run("verify-proof", "-", "--json", "--fingerprint", fingerprint, stdin=proof)
    answer = json.loads(result.output)
    assert result.exit_code == 0
    assert answer == {
        "valid": True,
        "proof": "inclusion",
        "trusted": fingerprint,
        "fingerprint": fingerprint,
        "tree_size": 19,
        "index": 15,
        "type": "round_ended",
    }
    other = run("verify-proof", "-", "--json", "--fingerprint", "0" * 64, stdin=proof)
    assert other.exit_code == 1 and json.loads(other.output)["valid"] is False


# --- --quiet, --verbose, colours, completion ---------------------------------------


SAMPLES = ["clean-assaf-reduction", "middle-card", "wrong-score", "two-decks"]


def test_quiet_lists_only_the_logs_with_something_to_report() -> None:
    for args in (["-q", "audit"], ["audit", "--quiet"]):
        result = run(*args, *(replay(n) for n in SAMPLES))
        lines = result.output.splitlines()
        assert [line.split(":")[0] for line in lines[:-1]] == [
            replay("middle-card"),
            replay("wrong-score"),
        ]
        assert lines[-1].startswith("4 games: 2 clean")
    assert run("validate", "-q", replay("middle-card")).output == ""


def test_verbose_says_how_the_audit_runs() -> None:
    result = CliRunner().invoke(cli, ["audit", "-v", replay("middle-card")])
    assert "auditing 1 log under the rules each declares in this process" in result.stderr
    quiet_after = CliRunner().invoke(cli, ["audit", replay("middle-card")])
    assert "auditing" not in quiet_after.stderr  # each run starts anew


def on_a_terminal(*args: str, env: dict[str, str] | None = None) -> str:
    """What the command writes to a (pseudo-)terminal."""
    import os
    import pty
    import subprocess
    import sys

    main, secondary = pty.openpty()
    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | (env or {})
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "yaniv_audit", *args],
            stdout=secondary,
            stderr=secondary,
            env=environ,
        )
        os.close(secondary)
        screen = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
        process.wait(timeout=60)
    finally:
        os.close(main)
    return screen.decode(errors="replace")


def test_verdicts_are_in_colour_on_a_terminal_unless_no_color() -> None:
    args = ["audit", "--jobs", "1", replay("middle-card"), replay("two-decks")]
    shown = on_a_terminal(*args)
    assert "\x1b[31mRULES BROKEN\x1b[0m" in shown and "\x1b[32mCLEAN\x1b[0m" in shown
    assert "\x1b[" not in on_a_terminal(*args, env={"NO_COLOR": "1"})
    assert "\x1b[" not in run(*args).output  # not a terminal


def test_shell_completion_is_clicks() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "_YANIV_AUDIT_COMPLETE": "bash_source"}
    script = Path(sys.executable).parent / "yaniv-audit"
    done = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "_yaniv_audit_completion()" in done.stdout
    env |= {
        "_YANIV_AUDIT_COMPLETE": "bash_complete",
        "COMP_WORDS": "yaniv-audit val",
        "COMP_CWORD": "1",
    }
    done = subprocess.run([str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert "plain,validate" in done.stdout


# --- house rules found by default --------------------------------------------------


def test_a_house_rules_file_here_is_the_default_rule_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("YANIV_AUDIT_RULES")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "yaniv-rules.toml").write_text('base = "israeli"\npickup = "any"\n')
    result = CliRunner().invoke(cli, ["audit", replay("middle-card")])
    assert "CLEAN under israeli(pickup=any)" in result.stdout  # the middle card is allowed
    house = tmp_path.resolve() / "yaniv-rules.toml"
    assert f"rules: israeli(pickup=any), the house rules of {house}" in result.stderr
    assert (
        "RULES BROKEN under israeli "
        in run("audit", replay("middle-card"), "--rules", "israeli").output
    )  # --rules overrides
    shown = run("rules", "show").output.splitlines()
    assert shown[:2] == [
        "israeli(pickup=any)",
        f"house rules: {house} (used when --rules is not given)",
    ]
    head = run("replay", replay("middle-card")).stdout.splitlines()[0]
    assert head == (
        f"{replay('middle-card')}: replayed under israeli(pickup=any) (the house "
        "rules); the log declares israeli"
    )


def test_the_variable_names_the_house_rules_and_empty_turns_them_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("YANIV_AUDIT_RULES")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "yaniv-rules.toml").write_text('base = "namu"\n')
    assert "CLEAN under namu " in run("audit", replay("middle-card")).output
    off = run("audit", replay("middle-card"), env={"YANIV_AUDIT_RULES": ""})
    assert "RULES BROKEN under israeli " in off.output  # the log's own rules
    named = run("audit", replay("middle-card"), env={"YANIV_AUDIT_RULES": "namu"})
    assert "CLEAN under namu " in named.output
    bad = run("audit", replay("middle-card"), env={"YANIV_AUDIT_RULES": "nmu"})
    assert bad.exit_code == 2
    assert "YANIV_AUDIT_RULES" in bad.output and 'did you mean "namu"?' in bad.output


# --- the main job's summary --------------------------------------------------------


def test_the_summary_s_players_are_the_leaderboard_s(tmp_path: Path) -> None:
    """audit --db's players and the leaderboard count the same games: those people played,
    the corrupt one (impossible-draw) left out of both, and each says what it left out."""
    db = str(tmp_path / "a.duckdb")
    logs = sorted(str(p) for p in REPLAYS.glob("*.jsonl"))
    assert run("ingest", "--db", db, *logs).exit_code == 0
    lines = CliRunner().invoke(cli, ["audit", "--db", db]).stdout.splitlines()
    head = next(line for line in lines if line.startswith("Players of the "))
    assert head == (
        "Players of the 7 games played by people, by wins (the 1 impossible game left out):"
    )
    table = lines[lines.index(head) + 3 :]
    summary = {
        row.split()[0]: [int(x) for x in row.split()[1:4]]
        for row in table
        if not row.startswith("  and ")
    }
    board = json.loads(run("report", "leaderboard", "--db", db, "--format", "json").stdout)
    rows = {r["player"]: [r["games"], r["finished"], r["wins"]] for r in board["rows"]}
    assert summary and all(rows[name] == counts for name, counts in summary.items())
    if len(rows) > len(summary):
        assert lines[-1] == (
            f"  and {len(rows) - len(summary)} more players (yaniv-audit "
            "report leaderboard lists them all)"
        )


def test_audit_db_prints_a_summary_and_all_prints_every_line(tmp_path: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    bots = [str(REPLAYS / "simulated" / "classic" / f"game-0000{i}.jsonl") for i in range(3)]
    people = [replay("middle-card"), replay("clean-assaf-reduction"), replay("wrong-score")]
    assert run("ingest", "--db", db, *people, *bots).exit_code == 0
    result = CliRunner().invoke(cli, ["audit", "--db", db])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert (
        lines[0]
        == "6 games: 4 clean, 1 with wrong claims only, 1 with rules broken, 0 impossible, "
        "0 unreadable"
    )
    assert lines[1] == "Not clean (2 games):"
    assert lines[2].startswith(f"  {replay('middle-card')}: RULES BROKEN under israeli")
    assert lines[3].startswith(f"  {replay('wrong-score')}: WRONG CLAIMS under israeli")
    assert lines[4] == (
        "Players of the 3 games played by people, by wins (the 3 simulated games left out):"
    )
    assert lines[5].split() == ["player", "games", "finished", "wins"]  # as the leaderboard
    assert lines[7].split() == ["dana", "1", "1", "1"]  # the one win of a finished game
    named = {line.split()[0] for line in lines[7:] if not line.startswith("  and ")}
    assert "ana" not in named and "carmel" not in named  # the bots' names
    assert "--all" in result.stderr
    every = run("audit", "--db", db, "--again", "--all").output.splitlines()
    assert len(every) == 7 and every[-1].startswith("6 games: ")
    assert sum(" CLEAN under " in line for line in every) == 4


def test_a_file_named_like_a_preset_does_not_hide_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--rules classic is the preset, with a note that names the file's own spelling."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "classic").write_text("a shopping list\n")
    result = run("audit", replay("middle-card"), "--rules", "classic")
    assert "RULES BROKEN under classic" in result.stdout
    assert (
        "rules: classic is the preset, not the file classic here (to read the file, give "
        "--rules ./classic)"
    ) in result.stderr
    file = run("audit", replay("middle-card"), "--rules", "./classic")
    assert file.exit_code == 2
    assert "./classic: read as a rules file, and not valid TOML" in file.output


def test_a_rules_file_with_several_mistakes_lists_them_all(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('base = "israeli"\nyaniv_max = "seven"\npickup = "anywhere"\n')
    result = run("audit", replay("middle-card"), "--rules", str(house))
    assert result.exit_code == 2
    assert f"{house}: 2 problems:\n  yaniv_max: expected" in result.output
    assert "\n  pickup: expected one of" in result.output


def complete(words: str, shell: str = "bash") -> list[str]:
    """What click's shell completion offers for the last word of ``words``."""
    parts = words.split(" ")
    env = {
        "_YANIV_AUDIT_COMPLETE": f"{shell}_complete",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(parts) - 1),
    }
    result = CliRunner().invoke(cli, [], env=env, prog_name="yaniv-audit")
    return result.output.splitlines()


def test_shell_completion_offers_the_presets_for_rules() -> None:
    """--rules c<Tab> offers classic and cardgames-zone, then the files there (a rules
    file is a path); rules show <Tab> every preset."""
    assert complete("yaniv-audit audit --rules c") == [
        "plain,classic",
        "plain,cardgames-zone",
        "file,c",
    ]
    assert complete("yaniv-audit compare x.jsonl --rules na") == ["plain,namu", "file,na"]
    offered = complete("yaniv-audit rules show ")
    assert [line.split(",", 1)[1] for line in offered if line.startswith("plain,")] == [
        "israeli",
        "classic",
        "cardgames-zone",
        "namu",
        "de-wiki",
        "mcleod",
        "jhyap",
    ]


def test_rules_list_says_which_presets_are_the_same_rules() -> None:
    lines = run("rules", "list").output.splitlines()
    assert lines[1].strip() == (
        "(the defaults); the same rules as cardgames-zone, from another source"
    )
    assert lines[5].strip() == "(the defaults); the same rules as israeli, from another source"
    assert lines[3].strip() == "yaniv_max=5"  # classic: like no other preset
    listed = {p["id"]: p["same_as"] for p in json.loads(run("rules", "list", "--json").output)}
    assert listed["israeli"] == ["cardgames-zone"] and listed["classic"] == []
