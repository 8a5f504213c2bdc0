"""The command line as a newcomer meets it (issue 14): where a finding is in the file,
.json logs named by event, replay's rules, the proof's fingerprint, small audits in
process, --json/--quiet/--verbose, colours, a house-rules file found by default."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from yaniv_audit import bulk
from yaniv_audit.cli import cli

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


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
    assert "CLAIM claim.points at event 15 (line 16): yossi was written down" in out


def test_a_bulk_line_gives_the_file_line_of_the_first_finding() -> None:
    out = run("audit", "--jobs", "1", replay("middle-card"), replay("wrong-score")).output
    assert "first: draw.pile_card at event 5 (line 6))" in out


def test_blank_lines_count_in_the_file_line(tmp_path: Path) -> None:
    path = tmp_path / "spaced.jsonl"
    path.write_text("\n\n" + Path(replay("middle-card")).read_text().replace("\n", "\n\n"))
    out = run("audit", "--jobs", "1", str(path)).output
    assert "draw.pile_card at event 5 (line 13):" in out


def test_a_json_log_is_named_by_event_everywhere(tmp_path: Path) -> None:
    good = as_json_log(tmp_path, "middle-card")
    out = run("audit", "--jobs", "1", good).output
    assert "draw.pile_card at event 5:" in out and "(line" not in out

    def typo(events: list[dict[str, Any]]) -> None:
        events[3]["cards"] = ["5Z"]

    bad = as_json_log(tmp_path, "wrong-score", typo)
    for command in (["audit", "--jobs", "1", bad], ["audit", "--jobs", "1", bad, good],
                    ["validate", bad], ["fingerprint", bad], ["replay", bad],
                    ["compare", bad]):
        result = run(*command)
        assert result.exit_code == 3
        assert f"{bad}: " in result.output
        assert "event 3: " in result.output and "line 3" not in result.output, command


# --- replay, verify-proof ----------------------------------------------------------


def test_replay_says_the_rules_it_replays_under() -> None:
    out = run("replay", replay("middle-card"), "--rules", "israeli(pickup=any)").output
    assert out.splitlines()[0] == (f"{replay('middle-card')}: replayed under "
                                   "israeli(pickup=any) (--rules); the log declares israeli")


# --- a handful of files in process -------------------------------------------------


def test_a_handful_of_files_is_audited_without_a_worker_pool(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_pool(processes: int) -> Any:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    result = run("audit", *(replay(n) for n in ("middle-card", "wrong-score", "two-decks")))
    assert result.exit_code == 1
    assert "3 games: 1 clean, 1 with claims only, 1 with violations" in result.output


def test_more_work_than_the_pool_costs_goes_to_the_pool(
        monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []

    def no_pool(processes: int) -> Any:
        started.append(processes)
        raise RuntimeError("stop here")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    monkeypatch.setattr(bulk, "POOL_MIN_BYTES", 1000)
    files = [replay("middle-card"), replay("wrong-score")]
    assert not bulk.small_work(files)
    with pytest.raises(RuntimeError):
        with bulk.audit_stream(files, jobs=None) as reports:
            next(reports)
    assert started
