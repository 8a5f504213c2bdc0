"""The audit as the file is read (yaniv_audit/io/streaming.py, codec.stream_log): the same
reports, byte for byte, as the log read whole, for the repository's logs read in batches of
a few hundred bytes (every hand-written one and two simulated games of each preset; every
log in the long sweep, YANIV_AUDIT_LONG=1); a line of a gigabyte and an array of empty objects
refused in bounded memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import LONG

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.core.audit import audit_log, to_json_line, unreadable_report
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.io.codec import ReadWhole, count_events, read_log, stream_log
from yaniv_audit.io.streaming import Rounds, audit_path

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted(
    p
    for where in (ROOT / "replays", ROOT / "tests" / "cases")
    for p in where.rglob("*")
    if p.suffix in (".jsonl", ".json") and p.is_file()
)
#: the logs read in small batches (the slow way: 97 bytes at a time): every hand-written
#: log and case, and the first two simulated games of each preset (24 of 270, the rest
#: alike); the long sweep (YANIV_AUDIT_LONG=1) reads every log
SAMPLE = (
    LOGS
    if LONG
    else [p for p in LOGS if "simulated" not in p.parts or p.stem in ("game-00000", "game-00001")]
)


def whole(path: Path) -> str:
    """Today's report: the file read whole, then audited."""
    try:
        return to_json_line(audit_log(read_log(path)))
    except LogFormatError as exc:
        return to_json_line(unreadable_report(str(path), exc))


def streamed(path: Path, chunk: int) -> str:
    try:
        return to_json_line(audit_path(path, chunk=chunk))
    except LogFormatError as exc:
        return to_json_line(unreadable_report(str(path), exc))


def test_there_are_logs_to_compare() -> None:
    assert len(LOGS) > 200
    simulated = {p.parent.name for p in SAMPLE if "simulated" in p.parts}
    assert simulated == {p.parent.name for p in LOGS if "simulated" in p.parts}
    assert len(SAMPLE) > 60


@pytest.mark.parametrize("chunk", [97, 1024])
def test_every_log_gives_the_same_report_read_in_batches(chunk: int) -> None:
    differ = [str(p) for p in SAMPLE if streamed(p, chunk) != whole(p)]
    assert differ == []


def test_a_long_game_keeps_its_rounds_as_json_and_gives_the_same_report(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    log.write_bytes(long_game(600))
    report = audit_path(log, chunk=4096)
    assert isinstance(report["rounds"], Rounds)
    assert to_json_line(report) == to_json_line(audit_log(read_log(log)))
    assert [r["round"] for r in report["rounds"]] == list(range(1, 601))
    assert report["rounds"][-1]["round"] == 600 and len(report["rounds"]) == 600
    import pickle

    assert to_json_line(pickle.loads(pickle.dumps(report))) == to_json_line(report)
    array = tmp_path / "long.json"
    array.write_text(json.dumps([json.loads(line) for line in log.read_text().splitlines()]))
    assert to_json_line(audit_path(array, chunk=4096)) == to_json_line(audit_log(read_log(array)))
    assert count_events(array, chunk=4096) == count_events(log, chunk=4096) == 1201


def test_a_withdrawal_is_read_whole(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    lines = long_game(3).splitlines()
    lines.insert(3, b'{"type":"withdraw","seqs":[2]}')
    log.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(ReadWhole):
        for _ in stream_log(log, chunk=64):
            pass
    assert to_json_line(audit_path(log, chunk=64)) == to_json_line(audit_log(read_log(log)))


def long_game(rounds: int) -> bytes:
    events: list[dict[str, object]] = [
        {
            "type": "game_started",
            "format": "yaniv-log/1",
            "players": ["a", "b"],
            "rules": "israeli(score_limit=99999)",
        }
    ]
    for n in range(1, rounds + 1):
        events += [
            {"type": "round_started", "round": n, "starter": "a"},
            {"type": "showdown", "caller": "a", "hands": {"a": ["AH"], "b": ["2H"]}},
        ]
    return b"".join(json.dumps(e).encode() + b"\n" for e in events)


#: a child that feeds ``command`` a log through a pipe and prints its peak memory (MB):
#: the input is generated as it is written, never held
BOUNDED = textwrap.dedent(
    """
    import resource, subprocess, sys, threading
    kind, command = sys.argv[1], sys.argv[2:]
    path = "/dev/stdin"
    def feed(out):
        try:
            if kind == "line":
                out.write(b'{"type":"game_started","format":"yaniv-log/1","players":["a","b"],'
                          b'"rules":"israeli"}\\n{"type":"note","text":"')
                block = b"x" * (1 << 20)
                for _ in range(1024):  # a line of a gigabyte
                    out.write(block)
                out.write(b'"}\\n')
            else:
                out.write(b"[{}")
                block = b",{}" * (1 << 18)
                for _ in range(40):  # 30 MB of [{}, {}, ...]
                    out.write(block)
                out.write(b"]")
        except BrokenPipeError:
            pass
        finally:
            try:
                out.close()
            except BrokenPipeError:
                pass
    """
)


@pytest.mark.parametrize("kind", ["line", "array"])
@pytest.mark.parametrize("command", ["validate", "audit"])
def test_a_huge_line_or_array_is_refused_in_bounded_memory(
    tmp_path: Path, kind: str, command: str
) -> None:
    # the line through a pipe (never a gigabyte on disk); the array is a file, read again
    # by validate's diagnosis
    fifo = tmp_path / ("log.jsonl" if kind == "line" else "log.json")
    if kind == "line":
        os.mkfifo(fifo)
    program = BOUNDED + textwrap.dedent(
        f"""
        if kind == "array":
            with open({str(fifo)!r}, "wb") as out:
                feed(out)
        child = subprocess.Popen([sys.executable, "-m", "yaniv_audit", *command, {str(fifo)!r}],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if kind == "line":
            with open({str(fifo)!r}, "wb") as out:
                feed(out)
        said = child.communicate()[0].decode()
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(child.returncode, round(peak), said.replace(chr(10), " ")[:300])
        """
    )
    args = [command] + (["--json", "--jobs", "1"] if command == "audit" else [])
    done = subprocess.run(
        [sys.executable, "-c", program, kind, *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    code, peak, said = done.stdout.split(" ", 2)
    assert int(code) == 3, said
    assert int(peak) < 150, done.stdout  # MB: a fixed bound, whatever the input's size
    if kind == "line":
        assert "longer than 1048576 bytes" in said and "read no further" in said
    else:
        assert "game_started" in said or "type" in said, said


def test_audit_file_gives_the_streamed_report(tmp_path: Path) -> None:
    log = tmp_path / "long.jsonl"
    log.write_bytes(long_game(300))
    report = audit_file(str(log))
    assert report["file"] == str(log) and report["verdict"] == "clean"
    assert len(report["rounds"]) == 300


def as_arrays(tmp_path: Path) -> list[Path]:
    """Every JSON Lines log of the repository whose lines are all JSON, as a .json array
    (each line's own text, so that numbers stay as written)."""
    arrays = []
    for n, log in enumerate(SAMPLE):
        lines = [t for t in log.read_bytes().split(b"\n") if t.strip()]
        try:
            for text in lines:
                json.loads(text)
        except ValueError:
            continue
        array = tmp_path / f"{n}-{log.stem}.json"
        array.write_bytes(b"[" + b",\n ".join(t.rstrip(b"\r") for t in lines) + b"]\n")
        arrays.append(array)
    return arrays


def test_every_log_as_a_json_array_gives_the_same_report_and_diagnosis(tmp_path: Path) -> None:
    from yaniv_audit.io.diagnose import diagnose, diagnose_bytes

    arrays = as_arrays(tmp_path)
    assert len(arrays) > 50
    differ = [str(p) for p in arrays if streamed(p, 97) != whole(p)]
    assert differ == []
    for path in arrays:
        assert diagnose(path) == diagnose_bytes(path.read_bytes(), array=True), path


def test_an_array_of_empty_objects_is_refused_at_its_first_event(tmp_path: Path) -> None:
    from yaniv_audit.io.diagnose import COUNT_MAX, diagnose

    array = tmp_path / "empty.json"
    array.write_bytes(b"[" + b",".join([b"{}"] * 300_000) + b"]")
    with pytest.raises(LogFormatError) as error:
        for _ in stream_log(array, chunk=4096):
            pass
    assert error.value.index == 0 and "type" in str(error.value)
    found = diagnose(array)
    assert found.stopped and found.total == COUNT_MAX
