"""POST /api/v1/audit on worker processes (``serve --workers N``): the same answers as an
audit in the server itself, errors included; a worker that dies fails its request with a
503 and the next request is answered. tests/web/test_serve.py starts ``serve`` with them."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from yaniv_audit.web import api, create_app
from yaniv_audit.web.errors import ApiError
from yaniv_audit.web.workers import Workers

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
SIMULATED = REPLAYS / "simulated" / "classic" / "game-00003.jsonl"  # 600 events


def with_a_bad_card() -> bytes:
    """The middle-card log with its first discard's first card misspelled."""
    lines = (REPLAYS / "middle-card.jsonl").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"discard"' in line)
    lines[at] = lines[at].replace('"cards": ["', '"cards": ["1', 1)
    return ("\n".join(lines) + "\n").encode()


BODIES = {
    "middle card": (REPLAYS / "middle-card.jsonl").read_bytes(),
    "assaf and reduction": (REPLAYS / "clean-assaf-reduction.jsonl").read_bytes(),
    "unreadable": b'{"type":"game_started"}\n',
    "a bad card": with_a_bad_card(),
    "too many events": SIMULATED.read_bytes(),
    "a JSON array": b'[{"type": "game_started"}]',
}
LIMITS = {"TESTING": True, "MAX_EVENTS": 300}


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    db = tmp_path_factory.mktemp("workers") / "none.duckdb"
    app = create_app({**LIMITS, "ARCHIVE": str(db), "WORKERS": 2})
    yield app
    app.extensions["yaniv_workers"].close()


@pytest.mark.parametrize("rules", ["", "?rules=namu"])
def test_workers_answer_as_the_server_does(
    pooled: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: str
) -> None:
    alone = create_app({**LIMITS, "ARCHIVE": str(tmp_path / "none.duckdb")}).test_client()
    expected = {
        name: alone.post(f"/api/v1/audit{rules}", data=body) for name, body in BODIES.items()
    }
    assert {name: r.status_code for name, r in expected.items()} == {
        "middle card": 200,
        "assaf and reduction": 200,
        "unreadable": 422,
        "a bad card": 422,
        "too many events": 413,
        "a JSON array": 422,
    }

    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("audited in the server process, not on a worker")

    monkeypatch.setattr(api, "audit_log", not_here)
    client = pooled.test_client()
    for name, body in BODIES.items():
        got = client.post(f"/api/v1/audit{rules}", data=body)
        want = expected[name]
        assert (got.status_code, got.get_json()) == (want.status_code, want.get_json()), name


def test_a_worker_that_dies_is_a_503_and_the_next_request_is_answered() -> None:
    workers = Workers(1)
    try:
        workers.start()
        first = workers.run(os.getpid)
        assert first != os.getpid()
        with pytest.raises(ApiError) as info:
            workers.run(os._exit, 1)
        assert info.value.status == 503 and info.value.code == "worker_stopped"
        assert "send the request again" in info.value.message
        again = workers.run(os.getpid)
        assert again not in (first, os.getpid())
    finally:
        workers.close()


def test_a_worker_that_dies_fails_only_its_own_request() -> None:
    """Another request at work meanwhile is answered (a process pool failed every request
    in flight on it with a 503)."""
    workers = Workers(2)
    try:
        workers.start()
        answers: list[object] = []

        def slow() -> None:
            try:
                answers.append(workers.run(time.sleep, 3))
            except ApiError as exc:
                answers.append(exc.status)

        other = threading.Thread(target=slow)
        other.start()
        time.sleep(1)  # the other request at work on one worker, this one on the other
        with pytest.raises(ApiError) as info:
            workers.run(os._exit, 1)
        assert info.value.status == 503
        other.join()
        assert answers == [None]
        assert workers.run(os.getpid) != os.getpid()
    finally:
        workers.close()


def test_concurrent_requests_each_get_their_own_answer() -> None:
    """Eight threads at once on two workers (two requests sent to each at a time): every
    request is answered with its own result, errors included."""
    workers = Workers(2)
    try:
        got: dict[int, object] = {}

        def ask(thread: int) -> None:
            for n in range(thread * 100, thread * 100 + 40):
                try:
                    got[n] = workers.run(abs, -n) if n % 7 else workers.run(int, f"x{n}")
                except ValueError as exc:
                    got[n] = str(exc)

        threads = [threading.Thread(target=ask, args=(t,)) for t in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert got == {
            n: n if n % 7 else f"invalid literal for int() with base 10: 'x{n}'"
            for t in range(8)
            for n in range(t * 100, t * 100 + 40)
        }
    finally:
        workers.close()


def gone(pid: int) -> bool:
    """Process ``pid`` has exited (its files closed): no /proc entry, or a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_worker_that_died_while_idle_costs_no_request() -> None:
    workers = Workers(1)
    try:
        workers.start()
        pid = workers.run(os.getpid)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while not gone(pid) and time.monotonic() < deadline:  # the kill is not instant
            time.sleep(0.01)
        # and the worker's end of the pipe is closed: another process forking at that
        # moment (the fork server, a test's subprocess) may hold a copy of it a little longer
        [worker] = workers._all
        while not worker.conn.poll() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert workers.run(os.getpid) not in (pid, os.getpid())  # on a new worker
        workers.close()
        with pytest.raises(ApiError) as info:  # a request while the server stops
            workers.run(os.getpid)
        assert info.value.status == 503 and "the server is stopping" in info.value.message
    finally:
        workers.close()


def test_an_api_error_crosses_a_process_whole() -> None:
    import pickle

    error = ApiError(
        422, "request: line 3: no such card", "log", "unreadable_log", "Unreadable log", line=3
    )
    back = pickle.loads(pickle.dumps(error))
    assert back.to_json() == error.to_json() and back.title == "Unreadable log"
