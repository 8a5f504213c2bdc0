"""The audit as the file is read (yaniv_audit/io/streaming.py, codec.stream_log): the same
reports, byte for byte, as the log read whole, for the repository's logs read in batches of
a few hundred bytes (every hand-written one and two simulated games of each preset; every
log in the long sweep, YANIV_AUDIT_LONG=1); a line of a gigabyte and an array of empty objects
refused in bounded memory."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import LONG

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.core.audit import audit_log, to_json_line, unreadable_report
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.events import WithdrawalPlan
from yaniv_audit.io.codec import (
    ReadWhole,
    count_events,
    read_log,
    stream_log,
    withdrawals_in,
)
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


def test_a_log_with_withdrawals_is_streamed_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "w.jsonl"
    lines = long_game(400).splitlines()
    # round 400 taken back and written again, round 399's showdown taken back (a violation
    # of nothing: its round is then unscored), and a withdrawal that takes nothing back
    lines[-2:] = [
        *lines[-2:],
        b'{"type":"withdraw","seqs":[800,799]}',
        *lines[-2:],
        b'{"type":"withdraw","seqs":[3]}',
    ]
    log.write_bytes(b"\n".join(lines) + b"\n")
    expected = to_json_line(audit_log(read_log(log)))
    assert '"withdrawn":[{"seq":799,"by":801},{"seq":800,"by":801}]' in expected
    assert "log.withdraw" in expected
    array = tmp_path / "w.json"
    array.write_text(json.dumps([json.loads(line) for line in lines]))
    whole_array = to_json_line(audit_log(read_log(array)))

    def never(path: object) -> None:
        raise AssertionError(f"{path} read whole")

    monkeypatch.setattr("yaniv_audit.io.streaming.read_log", never)
    monkeypatch.setattr("yaniv_audit.io.codec.read_log", never)
    assert to_json_line(audit_path(log, chunk=256)) == expected
    assert to_json_line(audit_path(array, chunk=256)) == whole_array
    assert count_events(log, chunk=256) == count_events(array, chunk=256) == len(lines)
    with pytest.raises(ReadWhole):  # without its withdrawals, a withdraw cannot be streamed
        for _ in stream_log(log, chunk=64):
            pass


def test_the_first_reading_of_withdrawals_holds_a_few_numbers(tmp_path: Path) -> None:
    log = tmp_path / "w.jsonl"
    lines = long_game(50_000).splitlines()
    lines.insert(5, b'{"type":"note","text":"\\u2764"}')
    lines += [b'{"type":"withdraw","seqs":[100001]}', b'{"type":"withdraw","seqs":[7]}']
    log.write_bytes(b"\n".join(lines) + b"\n")
    found = withdrawals_in(log, chunk=4096)
    read_whole = read_log(log)
    assert found == read_whole.withdrawals
    assert found.withdrawn == {100001: 100002}
    assert found.refused[100003]["case"] == "not_latest"
    plan = WithdrawalPlan()
    plan.add(read_whole.events[0])
    plan.entries(1, 100_000)
    assert plan.latest(3) == [99_997, 99_998, 99_999] and len(plan.starts) == 1


def with_withdrawals(events: list[dict[str, object]], seed: int) -> list[dict[str, object]]:
    """``events`` (without their seq) with withdrawals put in among them, as a table writes
    them: the last entries taken back, then written again or not, and some that take
    nothing back (an older entry, a note, the game's start, a later event...)."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    standing: list[int] = []  # positions in out of the entries standing
    for event in events:
        event = {k: v for k, v in event.items() if k != "seq"}
        out.append(event)
        if event.get("type") not in ("game_started", "note", "withdraw"):
            standing.append(len(out) - 1)
        roll = rng.random()
        if roll < 0.1 and standing:
            taken = standing[-rng.randint(1, min(3, len(standing))) :]
            seqs = list(taken)
            rng.shuffle(seqs)
            asked = {"player": event["player"]} if "player" in event else {}
            out.append({"type": "withdraw", "seqs": seqs, **asked})
            del standing[-len(taken) :]
            if rng.random() < 0.7:  # written again
                for seq in taken:
                    out.append(dict(out[seq]))
                    standing.append(len(out) - 1)
        elif roll < 0.14 and len(out) > 1:
            names = [
                0,
                len(out),
                len(out) + 5,
                rng.randrange(1, len(out)),
                *(standing[:1] if len(standing) > 1 else []),
            ]
            seq = rng.choice(names)
            seqs = [seq, seq] if rng.random() < 0.2 else [seq]
            out.append({"type": "withdraw", "seqs": seqs, "reason": "oops"})
        elif roll < 0.16:
            out.append({"type": "note", "text": 'withdraw? "note"'})
    return out


def withdrawal_logs(tmp_path: Path) -> list[Path]:
    """The sampled logs (SAMPLE: every log in the long sweep) with withdrawals put in
    (with_withdrawals) in two ways each, as JSON Lines and as .json arrays."""
    made = []
    for n, log in enumerate(SAMPLE):
        if log.suffix != ".jsonl":
            continue
        try:
            events = [json.loads(t) for t in log.read_bytes().split(b"\n") if t.strip()]
        except ValueError:
            continue
        if not all(isinstance(e, dict) for e in events):
            continue
        # the hand-written logs twice (short, they seldom get one), a simulated game once
        for seed in (n,) if "simulated" in log.parts else (n, n + 1000):
            changed = with_withdrawals(events, seed)
            lines = tmp_path / f"{seed}-{log.stem}.jsonl"
            lines.write_text("".join(json.dumps(e) + "\n" for e in changed))
            array = tmp_path / f"{seed}-{log.stem}.json"
            array.write_text(json.dumps(changed))
            made += [lines, array]
    return made


def test_logs_with_withdrawals_give_the_same_report_read_in_batches(tmp_path: Path) -> None:
    logs = withdrawal_logs(tmp_path)
    reports = {p: whole(p) for p in logs}
    taking_back = [p for p, r in reports.items() if '"withdrawn":' in r]
    refusing = [p for p, r in reports.items() if "log.withdraw" in r]
    assert len(taking_back) > 100 and len(refusing) > 50, (len(taking_back), len(refusing))
    for chunk in (97, 4096):
        differ = [str(p) for p in logs if streamed(p, chunk) != reports[p]]
        assert differ == []
    assert [count(p, 97) for p in logs] == [count(p, None) for p in logs]


def count(path: Path, chunk: int | None) -> int | str:
    """How many events ``validate`` counts (chunk None: the log read whole), or the error."""
    try:
        return count_events(path, chunk) if chunk else len(read_log(path).events)
    except LogFormatError as exc:
        return to_json_line(unreadable_report(str(path), exc))


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


def test_a_bad_seq_after_the_last_stock_card_is_the_problem_in_any_batch(tmp_path: Path) -> None:
    # the stock's count was not put back when a batch was read again line by line (the
    # fold's saved state named the wrong fields): the draw was then said to need its card
    log = tmp_path / "stock.jsonl"
    log.write_text(
        '{"type":"game_started","format":"yaniv-log/1","players":["a","b"],"rules":"israeli"}\n'
        '{"type":"round_started","round":1,"starter":"a","hands":{"a":["AH","2H","3H","4H",'
        '"5H"],"b":["AS","2S","3S","4S","5S"]},"upcard":"9C","stock":["KD"]}\n'
        '{"type":"discard","player":"a","cards":["5H"]}\n'
        '{"type":"draw","player":"a","source":"stock"}\n'
        '{"type":"note","text":"x","seq":9}\n'
    )
    for chunk in (64, 97, 260, 4096):
        assert count(log, chunk) == count(log, None) == streamed(log, chunk) == whole(log)
        assert '"line":5' in whole(log) and "got 9" in whole(log)


def test_a_long_games_rounds_are_held_compressed_and_written_as_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pickle
    import tracemalloc

    from click.testing import CliRunner

    from yaniv_audit.cli import cli
    from yaniv_audit.io import streaming

    log = tmp_path / "long.jsonl"
    log.write_bytes(long_game(10_000))
    expected = to_json_line(audit_log(read_log(log)))
    tracemalloc.start()
    report = audit_path(log)
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    line = to_json_line(report)
    assert line == expected
    # the report as held: a small part of its JSON (as texts, it was more than its JSON)
    assert held < len(line) / 10, (held, len(line))
    assert b"".join(streaming.json_pieces(report)).decode() == line
    # audit --json writes the same line, a piece at a time
    done = CliRunner().invoke(cli, ["audit", "--json", "--jobs", "1", str(log)])
    assert done.exit_code == 0, done.output
    assert json.loads(done.output) == {**json.loads(expected), "file": str(log)}

    monkeypatch.setattr(streaming, "BLOCK", 32)  # many blocks
    report = audit_path(log, chunk=4096)
    rounds = report["rounds"]
    assert isinstance(rounds, Rounds) and len(list(rounds.blocks())) > 300
    assert to_json_line(report) == expected
    assert b"".join(streaming.json_pieces(report)).decode() == expected
    assert len(rounds) == 10_000 and rounds
    assert [rounds[0]["round"], rounds[64]["round"], rounds[-1]["round"]] == [1, 65, 10_000]
    assert [r["round"] for r in rounds[100:103]] == [101, 102, 103]
    assert next(reversed(rounds))["round"] == 10_000
    assert rounds == json.loads(expected)["rounds"]
    assert (rounds != rounds[:]) is False
    assert to_json_line(pickle.loads(pickle.dumps(report))) == expected


def test_a_long_game_with_a_claim_each_round_gives_the_same_report(tmp_path: Path) -> None:
    from yaniv_audit.io import streaming

    lines = long_game(3000).splitlines()
    for n in range(3000, 0, -1):  # a wrong number of points written after each round
        lines.insert(2 * n + 1, b'{"type":"round_ended","round":%d,"points":{"a":0,"b":3}}' % n)
    log = tmp_path / "claims.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    expected = to_json_line(audit_log(read_log(log)))
    report = audit_path(log, chunk=4096)
    assert to_json_line(report) == expected
    for packed in (report["findings"], report["ruling"]["params"]["disputes"]):
        assert isinstance(packed, streaming.Packed) and len(packed) == 3000
    assert report["findings"][-1]["code"] == "claim.points"
    pieces = streaming.json_pieces(report)
    assert pieces is not None and b"".join(pieces).decode() == expected


def test_standard_input_is_copied_once_and_streamed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from yaniv_audit.io import codec

    lines = long_game(400).splitlines()
    lines += [b'{"type":"withdraw","seqs":[800]}', lines[-1], b'{"type":"withdraw","seqs":[1]}']
    log = tmp_path / "w.jsonl"
    log.write_bytes(b"\n".join(lines) + b"\n")
    expected = to_json_line(audit_log(read_log(log)))
    array = json.dumps([json.loads(line) for line in lines]).encode()
    for data in (log.read_bytes(), array):
        stdin = io.TextIOWrapper(io.BytesIO(data))
        monkeypatch.setattr(sys, "stdin", stdin)
        monkeypatch.setattr(codec, "_spool", None)
        with monkeypatch.context() as never:
            never.setattr(codec, "read_log", lambda path: pytest.fail(f"{path} read whole"))
            never.setattr(
                "yaniv_audit.io.streaming.read_log", lambda path: pytest.fail("read whole")
            )
            assert to_json_line(audit_path("-", chunk=256)) == expected
            assert count_events("-", chunk=256) == len(lines)
        # read again (a command may name - twice), whole this time: the same bytes
        assert codec.stdin_bytes() == data
        assert to_json_line(audit_log(read_log("-"))) == expected
