from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from yaniv_audit.cli import cli

GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", "lior", "omer"],
    "rules": "israeli",
}
DEAL = {
    "type": "round_started",
    "round": 1,
    "starter": "dana",
    "hands": {"dana": ["5H", "5C"], "lior": ["2D", "3D"], "omer": ["KS", "QS"]},
    "upcard": "7D",
    "stock": ["9H", "8H"],
}
GOOD = [
    GAME,
    DEAL,
    {"type": "discard", "player": "dana", "cards": ["5H", "5C"]},
    {"type": "draw", "player": "dana", "source": "stock"},
]


def lines(*events: Any) -> bytes:
    return b"".join((e if isinstance(e, bytes) else json.dumps(e).encode()) + b"\n" for e in events)


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def deep(levels: int) -> bytes:
    return b'{"type":"note","text":"x","_d":' + b"[" * levels + b"]" * levels + b"}"


#: (file name, content, the message after "<file>: unreadable: ")
MALFORMED: list[tuple[str, bytes, str]] = [
    (
        "not-json.jsonl",
        lines(GAME, b"discard dana 5H"),
        "line 2: not valid JSON: unexpected character, expected a JSON value (column 1)",
    ),
    (
        "wrong-type.jsonl",
        lines(GAME, {**DEAL, "round": "1"}),
        'line 2: round_started: field "round": expected a round number >= 1, got "1"',
    ),
    (
        "missing.jsonl",
        lines(GAME, {"type": "discard", "player": "dana"}),
        'line 2: discard: field "cards": missing (required)',
    ),
    (
        "unknown-field.jsonl",
        lines(GAME, {**DEAL, "colour": "red"}),
        'line 2: unknown field "colour" (fields starting with _ are allowed)',
    ),
    (
        "unknown-card.jsonl",
        lines(GAME, DEAL, {"type": "discard", "player": "dana", "cards": ["5H", "5Z"]}),
        'line 3: discard: field "cards.1": expected a card (rank A 2-9 T (or 10) J Q K then suit '
        'C D H S (or ♣ ♦ ♥ ♠), or JK), got "5Z"',
    ),
    (
        "unknown-type.jsonl",
        lines(GAME, DEAL, {"type": "dicard", "player": "dana"}),
        'line 3: unknown event type "dicard"; expected one of game_started, round_started, '
        "discard, draw, slap, yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw; "
        'did you mean "discard"?',
    ),
    (
        "crowd.jsonl",
        lines({**GAME, "players": [f"player-{i}" for i in range(10_000)]}),
        'line 1: game_started: field "players": expected 2 to 8 players, got a list of 10000 items',
    ),
    (
        "not-seated.jsonl",
        lines(GAME, {**DEAL, "starter": "zoe"}),
        'line 2: round_started: field "starter": "zoe" is not seated (the players are "dana", '
        '"lior", "omer")',
    ),
    (
        "rounds.jsonl",
        lines(GAME, {**DEAL, "round": 2}),
        'line 2: round_started: field "round": expected 1 (rounds are numbered 1, 2, ... in '
        "order), got 2",
    ),
    (
        "first.jsonl",
        lines(DEAL, GAME),
        "line 1: round_started: the first event must be game_started, got round_started",
    ),
    (
        "seq.jsonl",
        lines({**GAME, "seq": 0}, {**DEAL, "seq": 2}),
        'line 2: round_started: field "seq": expected 1, the event\'s 0-based position, got 2',
    ),
    (
        "deep.jsonl",
        lines(GAME, deep(100_000)),
        "line 2: not valid JSON: nested too deeply (at most 1024 levels)",
    ),
    (
        "deep-but-json.jsonl",
        lines(GAME, deep(500)),
        'line 2: note: field "_d": nested too deeply (at most 64 levels)',
    ),
    ("empty.jsonl", b"", "log: no events; a log starts with a game_started event"),
    ("blank.jsonl", b"\r\n\n   \n", "log: no events; a log starts with a game_started event"),
    (
        "garbage.jsonl",
        bytes(range(128, 256)) * 64 + bytes(range(128)),
        "line 1: not valid UTF-8 (byte 0x80 at offset 0)",
    ),
    (
        "controls.jsonl",
        bytes(range(10)) + b"\n",
        "line 1: not valid JSON: unexpected character, expected a JSON value (column 1)",
    ),
    (
        "not-object.jsonl",
        lines(GAME, b'["discard"]'),
        'line 2: expected an event object {"type": ...}, got ["discard"]',
    ),
    (
        "rules.jsonl",
        lines({**GAME, "rules": "israeli(yaniv_max=lots)"}),
        'line 1: game_started: field "rules": yaniv_max: expected a whole number from 0 to 99999, '
        'got "lots"',
    ),
    (
        "array.json",
        json.dumps([GAME, {**DEAL, "upcard": "7"}]).encode(),
        'event 1: round_started: field "upcard": expected a card (rank A 2-9 T (or 10) J Q K then '
        'suit C D H S (or ♣ ♦ ♥ ♠), or JK), got "7"',
    ),
    (
        "object.json",
        json.dumps(GAME).encode(),
        "log: a .json log holds a top-level array of events, got an object with 4 fields",
    ),
]


@pytest.mark.parametrize(("name", "data", "message"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_input_is_one_clear_line_and_exit_3(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    path = write(tmp_path, name, data)
    code, output = validate(path)
    assert code == 3
    assert output == f"{path}: unreadable: {message}\n"


def test_a_valid_log_exits_0(tmp_path: Path) -> None:
    path = write(tmp_path, "good.jsonl", lines(*GOOD))
    assert validate(path) == (0, f"{path}: ok (4 events)\n")
    array = write(tmp_path, "good.json", json.dumps(GOOD).encode())
    assert validate(array) == (0, f"{array}: ok (4 events)\n")


def test_the_sample_replays_are_readable() -> None:
    folder = Path(__file__).resolve().parents[2] / "replays"
    replays = sorted(str(p) for p in folder.glob("*.jsonl"))
    code, output = validate(*replays)
    assert code == 0
    assert output.count(": ok (") == len(replays) > 0


def test_missing_files_and_directories_exit_3(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.jsonl")
    assert validate(missing) == (3, f"{missing}: unreadable: log: no such file\n")
    assert validate(str(tmp_path)) == (
        3,
        f"{tmp_path}: unreadable: log: is a directory, not a log file\n",
    )


def test_several_files_the_worst_exit_wins(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", lines(*GOOD))
    bad = write(tmp_path, "bad.jsonl", lines(GAME, {"type": "yaniv"}))
    code, output = validate(good, bad, good)
    assert code == 3
    assert output.splitlines() == [
        f"{good}: ok (4 events)",
        f'{bad}: unreadable: line 2: yaniv: field "player": missing (required)',
        f"{good}: ok (4 events)",
    ]
    assert validate(good, good)[0] == 0


def test_json_output_names_the_line_and_the_fields(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", lines(*GOOD))
    bad = write(
        tmp_path,
        "bad.jsonl",
        lines(GAME, {"type": "discard", "player": 3, "cards": ["5H"], "colour": 1}),
    )
    code, output = validate("--json", good, bad)
    assert code == 3
    first, second = (json.loads(line) for line in output.splitlines())
    assert first == {"file": good, "verdict": "readable", "events": 4}
    assert second["verdict"] == "unreadable"
    assert second["error"]["line"] == 2
    assert second["error"]["fields"] == {
        "player": ["expected a player id (a non-empty string), got 3"],
        "colour": ["unknown field (fields starting with _ are allowed)"],
    }


def _command() -> list[str]:
    script = Path(sys.executable).parent / "yaniv-audit"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "yaniv_audit.cli"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [*_command(), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
        check=False,
    )


def test_the_installed_command_on_real_files(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", lines(*GOOD))
    huge = write(
        tmp_path,
        "huge.jsonl",
        lines(GAME) + b'{"type":"note","text":"' + b"x" * (50 << 20) + b'"}\n',
    )
    garbage = write(tmp_path, "garbage.bin", os.urandom(1 << 16))
    done = run("validate", good, huge, garbage, str(tmp_path))
    assert done.returncode == 3
    assert "Traceback" not in done.stdout + done.stderr
    out = done.stdout.splitlines()
    assert out[0] == f"{good}: ok (4 events)"
    assert out[1] == (
        f"{huge}: unreadable: line 2: the line is longer than 1048576 bytes; "
        "at most 1048576 bytes (1 MiB) are allowed, and the file was read no "
        "further"
    )
    assert out[2].startswith(f"{garbage}: unreadable: line ")
    assert out[3] == f"{tmp_path}: unreadable: log: is a directory, not a log file"
    assert len(out) == 4
    ok = run("validate", good)
    assert (ok.returncode, ok.stdout) == (0, f"{good}: ok (4 events)\n")


def test_a_line_of_a_gigabyte_on_standard_input_is_refused_without_reading_it(
    tmp_path: Path,
) -> None:
    """`validate -` fed a gigabyte's line through a pipe says the line is too long once a
    few mebibytes have come, and reads no more (issue 35: 4.1 GB before)."""
    process = subprocess.Popen(
        [*_command(), "validate", "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    written = 0
    try:
        process.stdin.write(lines(GAME) + b'{"type":"note","text":"')
        block = b"x" * (1 << 20)
        while written < 1 << 30:
            process.stdin.write(block)
            written += len(block)
        process.stdin.close()
    except BrokenPipeError:
        pass  # it stopped reading: what a pipe tells the writer
    out, err = process.communicate(timeout=120)
    assert process.returncode == 3, err
    assert out.decode() == (
        "-: unreadable: line 2: the line is longer than 1048576 "
        "bytes; at most 1048576 bytes (1 MiB) are allowed, and the file "
        "was read no further\n"
    )
    assert written < 64 << 20


def test_an_array_of_a_million_empty_objects_stops_counting_its_problems(tmp_path: Path) -> None:
    """30 MB of [{}, {}, ...] took a minute to count its ten million problems one by one:
    the count stops at 10,000 and says so."""
    array = write(tmp_path, "many.json", b"[" + b",".join([b"{}"] * 1_000_000) + b"]")
    code, out = validate(array)
    assert code == 3
    shown = out.splitlines()
    assert shown[0] == f"{array}: unreadable: at least 10000 problems"
    assert shown[-1] == (
        "  and at least 9950 more (the first 50 are listed; the count stops "
        "at 10,000, the rest of the log unread)"
    )
