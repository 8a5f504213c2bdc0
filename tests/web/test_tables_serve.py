"""Live tables under ``yaniv-audit serve`` (waitress, real HTTP): followers get every
entry as a server-sent event, as it is appended, and resume with Last-Event-ID; their
number is bounded below the threads (503 with Retry-After past it) and each stream
ends after a bounded time; ``kill -9`` of the server while a phone appends loses no
acknowledged entry and leaves no half batch."""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import LONG
from test_serve import FRIDAY, free_port, send, start_serve

from yaniv_audit.core.audit import audit_log
from yaniv_audit.io.codec import parse_jsonl

LINES = FRIDAY.read_bytes().splitlines()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("tables") / "tables.duckdb"
    port = free_port()
    env = {**os.environ, "YANIV_AUDIT_TABLE_STREAM_SECONDS": "2"}
    # 6 threads: 2 followers (all but 4 threads kept for writers and readers)
    proc, _ = start_serve(db, port, env, "--threads", "6", "--workers", "0")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def open_table(url: str) -> tuple[str, str]:
    status, _headers, body = send(f"{url}/api/v1/tables", LINES[0])
    assert status == 201, body
    return body["id"], body["key"]


def append(url: str, table: str, key: str, seen: int, lines: list[bytes]) -> tuple[int, Any]:
    status, _, body = send(
        f"{url}/api/v1/tables/{table}/events",
        b"\n".join(lines),
        {"Authorization": f"Bearer {key}", "If-Match": f'"{seen}"'},
    )
    return status, body


class Follower:
    """One EventSource-like client: its events as (event, id, data), read on a thread."""

    def __init__(self, url: str, table: str, last: int | None = None) -> None:
        host, port = url.removeprefix("http://").split(":")
        self.con = http.client.HTTPConnection(host, int(port), timeout=30)
        headers = {"Accept": "text/event-stream"}
        if last is not None:
            headers["Last-Event-ID"] = str(last)
        self.con.request("GET", f"/api/v1/tables/{table}/events", headers=headers)
        self.response = self.con.getresponse()
        self.status = self.response.status
        self.events: list[tuple[str, str | None, Any]] = []
        self.ended = threading.Event()
        if self.status == 200:
            threading.Thread(target=self._read, daemon=True).start()
        else:
            self.body = json.loads(self.response.read())

    def _read(self) -> None:
        kind, seq, data = "message", None, None
        try:
            while True:
                line = self.response.readline()
                if not line:
                    break
                text = line.decode().rstrip("\n")
                if text == "":
                    if data is not None:
                        self.events.append((kind, seq, json.loads(data)))
                    kind, seq, data = "message", None, None
                elif text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("id: "):
                    seq = text[4:]
                elif text.startswith("data: "):
                    data = text[6:]
        finally:
            self.ended.set()

    def entries(self) -> list[int]:
        return [int(s) for kind, s, _ in self.events if kind == "entry" and s is not None]

    def wait_for(self, seq: int, seconds: float = 10) -> None:
        deadline = time.monotonic() + seconds
        while seq not in self.entries():
            assert time.monotonic() < deadline, f"no entry {seq}: {self.events}"
            time.sleep(0.02)

    def close(self) -> None:
        self.con.close()


def test_followers_get_every_entry_as_it_is_appended_and_resume(live: str) -> None:
    table, key = open_table(live)
    assert append(live, table, key, 1, LINES[1:4])[0] == 200
    follower = Follower(live, table)
    try:
        assert follower.status == 200
        assert follower.response.getheader("Content-Type", "").startswith("text/event-stream")
        follower.wait_for(3)
        assert follower.entries() == [0, 1, 2, 3]
        status, body = append(live, table, key, 4, LINES[4:6])
        assert status == 200
        follower.wait_for(5)
        assert follower.entries() == [0, 1, 2, 3, 4, 5]
        entry = next(d for k, s, d in follower.events if k == "entry" and s == "5")
        assert entry == {"seq": 5, "event": json.loads(LINES[5])}
        summaries = [d for k, _, d in follower.events if k == "summary"]
        deadline = time.monotonic() + 5
        while summaries[-1]["seq"] != 6 and time.monotonic() < deadline:
            time.sleep(0.02)
            summaries = [d for k, _, d in follower.events if k == "summary"]
        after = summaries[-1]
        assert after["seq"] == 6 and after["findings"] == len(body["state"]["report"]["findings"])
        assert after["scores"] == body["state"]["state"]["scores"]
        assert after["next"] == (body["state"]["state"]["up"] or body["state"]["state"]["turn"])
        # the stream ends after its time (2 s here): the client reconnects where it stopped
        assert follower.ended.wait(10)
        assert follower.events[-1][0] == "end"
    finally:
        follower.close()
    append(live, table, key, 6, LINES[6:8])
    again = Follower(live, table, last=5)
    try:
        again.wait_for(7)
        assert again.entries() == [6, 7]
        assert again.ended.wait(10)  # its place is free for the next test's followers
    finally:
        again.close()


def test_followers_are_bounded_below_the_threads_and_writers_still_append(live: str) -> None:
    table, key = open_table(live)
    first, second = Follower(live, table), Follower(live, table)
    try:
        assert first.status == second.status == 200
        third = Follower(live, table)
        assert third.status == 503
        assert third.response.getheader("Retry-After") == "5"
        assert third.body["error"]["code"] == "too_many_followers"
        third.close()
        # the writers still find a thread, and both followers get the entry
        started = time.monotonic()
        assert append(live, table, key, 1, LINES[1:2])[0] == 200
        assert time.monotonic() - started < 5
        first.wait_for(1)
        second.wait_for(1)
    finally:
        first.close()
        second.close()
    first.ended.wait(10)
    second.ended.wait(10)
    time.sleep(0.5)  # the server counts them out as their streams close
    later = Follower(live, table)
    try:
        assert later.status == 200
    finally:
        later.close()


#: when the kill comes, in seconds after the phone's first append (its 74 entries, in
#: batches of 2, take about 1.5 s): early, midway, late; the long sweep
#: (YANIV_AUDIT_LONG=1) kills at each, the default run midway
KILL_AFTER = [0.2, 0.6, 1.0] if LONG else [0.6]


@pytest.mark.parametrize("after", KILL_AFTER)
def test_kill_9_while_a_phone_appends_loses_no_acknowledged_entry(
    tmp_path: Path, after: float
) -> None:
    db = tmp_path / "crash.duckdb"
    port = free_port()
    proc, _ = start_serve(db, port, dict(os.environ), "--threads", "4", "--workers", "0")
    url = f"http://127.0.0.1:{port}"
    table, key = open_table(url)
    batches = [LINES[i : i + 2] for i in range(1, len(LINES), 2)]
    bounds = {1}
    acknowledged = [1]

    def phone() -> None:
        seen = 1
        for batch in batches:
            bounds.add(seen + len(batch))
            try:
                status, body = append(url, table, key, seen, batch)
            except OSError:
                return  # the server died under this append: its answer never came
            if status != 200:
                return
            seen = body["seq"]
            acknowledged.append(seen)

    writer = threading.Thread(target=phone, daemon=True)
    writer.start()
    time.sleep(after)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    writer.join(timeout=60)
    restarted, _ = start_serve(db, port, dict(os.environ), "--threads", "4", "--workers", "0")
    try:
        status, _, got = send(f"{url}/api/v1/tables/{table}")
        assert status == 200
        count = got["seq"]
        print(f"killed after {after} s: {acknowledged[-1]} acknowledged, {count} stored")
        assert count >= acknowledged[-1]  # no acknowledged entry lost
        assert count in bounds  # no half batch
        log = parse_jsonl(b"\n".join(LINES[:count]), "prefix")
        assert got["report"] == audit_log(log)
        # and the table goes on
        if count < len(LINES):
            assert append(url, table, key, count, LINES[count : count + 1])[0] == 200
    finally:
        restarted.terminate()
        restarted.wait(timeout=30)
