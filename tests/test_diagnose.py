"""Every problem of an unreadable log in one run (issue 14): line, field, what was
expected and a "did you mean" for near misses."""

from __future__ import annotations

import doctest
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from yaniv_audit.cli import cli
from yaniv_audit.io import diagnose as diagnose_module
from yaniv_audit.io.diagnose import LIMIT, diagnose

REPLAYS = Path(__file__).resolve().parents[1] / "replays"


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def seven_typos(tmp_path: Path) -> Path:
    """A real game with seven different typos, one a line, on lines 1, 3, 4, 7, 11, 12, 13."""
    events: list[dict[str, Any]] = [
        json.loads(line)
        for line in (REPLAYS / "clean-assaf-reduction.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    events[0]["rules"] = "israelli"  # a preset name
    events[2]["cards"] = ["HK"]  # a card written suit first
    events[3]["plyer"] = events[3].pop("player")  # a field name
    events[6]["type"] = "dicsard"  # an event type
    events[10]["player"] = "lio"  # a player
    events[11]["source"] = "stok"  # a choice
    events[12]["cards"] = ["J-D"]  # a card with a dash
    path = tmp_path / "seven.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return path


EXPECTED = [
    ('line 1: game_started: field "rules": unknown preset "israelli"', "israeli"),
    ('line 3: discard: field "cards.0": expected a card', "KH"),
    ('line 4: draw: unknown field "plyer"', "player"),
    ('line 7: unknown event type "dicsard"', "discard"),
    ('line 11: discard: field "player": "lio" is not seated', "lior"),
    ('line 12: draw: field "source": expected "stock" or "pile", got "stok"', "stock"),
    ('line 13: discard: field "cards.0": expected a card', "JD"),
]


def test_validate_reports_seven_typos_in_one_run(tmp_path: Path) -> None:
    path = seven_typos(tmp_path)
    code, output = run("validate", str(path))
    assert code == 3
    lines = output.splitlines()
    assert lines[0] == f"{path}: unreadable: 7 problems"
    assert len(lines) == 8
    for line, (start, meant) in zip(lines[1:], EXPECTED, strict=True):
        assert line.startswith("  " + start), line
        assert line.endswith(f'; did you mean "{meant}"?'), line
    assert 'got "HK"' in lines[2] and 'got "J-D"' in lines[7]


def test_audit_of_one_log_lists_them_too_and_bulk_counts_them(tmp_path: Path) -> None:
    path = seven_typos(tmp_path)
    code, output = run("audit", str(path))
    assert code == 3
    assert output.splitlines()[0] == f"{path}: UNREADABLE: 7 problems"
    assert len(output.splitlines()) == 8
    code, output = run("audit", str(path), str(REPLAYS / "wrong-score.jsonl"))
    first = output.splitlines()[0]
    assert first.startswith(f'{path}: UNREADABLE: line 1: game_started: field "rules"')
    assert first.endswith(f"(and 6 more: yaniv-audit validate {path} lists them)")


def test_validate_json_lists_each_problem_with_its_field_and_guess(tmp_path: Path) -> None:
    code, output = run("validate", "--json", str(seven_typos(tmp_path)))
    report = json.loads(output)
    assert (code, report["verdict"], report["total"]) == (3, "unreadable", 7)
    assert report["error"]["line"] == 1  # the first problem, as before
    got = [(p["line"], p["field"], p.get("did_you_mean")) for p in report["problems"]]
    assert got == [
        (1, "rules", "israeli"),
        (3, "cards.0", "KH"),
        (4, "plyer", "player"),
        (7, "type", "discard"),
        (11, "player", "lior"),
        (12, "source", "stock"),
        (13, "cards.0", "JD"),
    ]


def test_one_typo_is_not_reported_again_by_every_later_event(tmp_path: Path) -> None:
    """A refused game_started still seats its players; a refused round_started still
    starts its round: the events after them are checked as meant."""
    game = {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "omer"],
        "rules": "classic",
        "colour": "red",
    }
    deal = {
        "type": "round_started",
        "round": 1,
        "starter": "dana",
        "upcard": "ZZ",
        "hands": {"dana": ["5H"], "omer": ["6H"]},
    }
    rest = [
        {"type": "discard", "player": "dana", "cards": ["5H"]},
        {"type": "round_ended", "round": 1},
        {"type": "round_started", "round": 2, "starter": "omer"},
    ]
    path = tmp_path / "two.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [game, deal, *rest]))
    code, output = run("validate", str(path))
    assert code == 3
    assert [line.split(":")[0].strip() for line in output.splitlines()[1:]] == ["line 1", "line 2"]


def test_a_line_added_or_taken_out_is_one_problem_not_one_a_later_event(tmp_path: Path) -> None:
    """A stray line, or a line taken out, shifts every later seq by one: the first event
    says so, and the rest are counted in one line (each was listed)."""
    lines = (REPLAYS / "middle-card.jsonl").read_text().splitlines(keepends=True)
    added = tmp_path / "added.jsonl"
    added.write_text("".join(lines[:4]) + "this is not json\n" + "".join(lines[4:]))
    code, output = run("validate", str(added))
    later = len(lines) - 5
    assert code == 3
    assert output.splitlines()[1:] == [
        "  line 5: not valid JSON: invalid literal, expected 'true' (column 1)",
        '  line 6: discard: field "seq": expected 5, the event\'s 0-based position, got 4',
        f"  log: and {later} later events with seq off by the same amount (was a line added "
        "or taken out?)",
    ]
    taken = tmp_path / "taken.jsonl"
    taken.write_text("".join(lines[:5] + lines[6:]))
    code, output = run("validate", str(taken))
    assert output.splitlines()[1:] == [
        '  line 6: note: field "seq": expected 5, the event\'s 0-based position, got 6',
        f"  log: and {later - 2} later events with seq off by the same amount (was a line "
        "added or taken out?)",
    ]


def test_the_list_stops_at_the_limit_and_counts_the_rest(tmp_path: Path) -> None:
    game = {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "omer"],
        "rules": "classic",
    }
    notes = [{"type": "note", "text": "x", "player": f"zoe{i}"} for i in range(LIMIT + 12)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps([game, *notes]))
    code, output = run("validate", str(path))
    lines = output.splitlines()
    assert code == 3
    assert lines[0] == f"{path}: unreadable: {LIMIT + 12} problems"
    assert lines[1].startswith('  event 1: note: field "player": "zoe0" is not seated')
    assert len(lines) == 1 + LIMIT + 1
    assert lines[-1] == f"  and 12 more (the first {LIMIT} are listed)"


def test_a_log_with_one_problem_is_still_one_line(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(
        '{"type":"game_started","format":"yaniv-log/1","players":["a","b"],'
        '"rules":"classic(pickup=end)"}\n'
    )
    code, output = run("validate", str(path))
    assert (code, output) == (
        3,
        f'{path}: unreadable: line 1: game_started: field "rules": '
        'pickup: expected one of ends, any, ends_of_runs, got "end"; '
        'did you mean "ends"?\n',
    )


def test_rule_names_given_on_the_command_line_get_a_guess_too() -> None:
    code, output = run("rules", "show", "israeli(yaniv_maxx=5)")
    assert code == 2
    assert 'unknown rule parameter "yaniv_maxx"' in output
    assert 'did you mean "yaniv_max"?' in output


def test_the_module_examples() -> None:
    assert doctest.testmod(diagnose_module).failed == 0


def test_a_file_that_is_no_log_gets_one_line_saying_what_a_log_looks_like(tmp_path: Path) -> None:
    """`audit README.md` listed 50 "not valid JSON" lines and "829 more"; it is one
    problem: not a JSON Lines log, and what a log is."""
    readme = Path(__file__).resolve().parent.parent / "README.md"
    found = diagnose(readme)
    assert found.total == 1
    (problem,) = found.problems
    assert problem.text().startswith(
        "line 1: not a JSON Lines log: neither this line nor most of the file's "
    )
    assert '{"type": "game_started", "format": "yaniv-log/1"' in problem.message
    result = CliRunner().invoke(cli, ["audit", str(readme)])
    assert result.exit_code == 3 and len(result.output.splitlines()) == 1
    assert "UNREADABLE: line 1: not a JSON Lines log" in result.output


def test_a_log_whose_first_line_is_broken_still_gets_each_problem(tmp_path: Path) -> None:
    """Most lines JSON: a log with typos, its first line too, not a file of prose."""
    lines = (
        (Path(__file__).resolve().parent.parent / "replays" / "middle-card.jsonl")
        .read_text()
        .splitlines()
    )
    lines[0] = lines[0][:-1]  # the closing brace lost
    lines[3] = "oops"
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines) + "\n")
    found = diagnose(broken)
    assert {1, 4} <= {p.line for p in found.problems}
    assert all("not a JSON Lines log" not in p.message for p in found.problems)
