"""The worker pool of bulk work: workers end with their parent, whatever ends it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def marked(mark: str) -> list[int]:
    """The live processes whose environment carries ``mark`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().split(")")[-1].split()[0]
        except OSError:
            continue
        if mark.encode() in environ and state != "Z":
            found.append(int(entry.name))
    return found


def test_workers_exit_when_the_parent_is_killed() -> None:
    mark = f"YANIV_AUDIT_TEST_MARK={uuid.uuid4().hex}"
    env = dict(os.environ, YANIV_AUDIT_TEST_MARK=mark.split("=", 1)[1])
    replays = str(ROOT / "replays")
    # the sample games eight times over: long enough to be killed in the middle
    command = [
        sys.executable,
        "-m",
        "yaniv_audit.cli",
        "audit",
        *[replays] * 8,
        "--jobs",
        "2",
        "--json",
    ]
    parent = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while len(marked(mark)) < 3 and time.monotonic() < deadline:  # parent + workers
            time.sleep(0.05)
        assert len(marked(mark)) >= 3, "the workers never started"
        assert parent.poll() is None, "the audit finished before it could be killed"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while marked(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marked(mark) == []
    finally:
        for pid in marked(mark):
            os.kill(pid, signal.SIGKILL)


def test_a_slow_consumer_holds_a_bounded_number_of_results() -> None:
    """Workers run ahead of a slow consumer by at most the window, whatever the corpus
    size: the memory of ingest and audit --db does not grow with the number of games."""
    from yaniv_audit.batch.bulk import _Bounded, chunk_size, worker_pool

    taken = 0

    def items() -> object:
        nonlocal taken
        for i in range(400):
            taken += 1
            yield i

    chunk = chunk_size(400, 2)
    window = 2 * 2 * chunk
    pool = worker_pool(2)
    try:
        ahead = []
        for n, result in enumerate(_Bounded(pool, abs, items(), chunk, window), start=1):
            assert result == n - 1
            time.sleep(0.002)  # a consumer slower than the workers
            ahead.append(taken - n)
        assert max(ahead) <= window
        assert n == 400
    finally:
        pool.terminate()
        pool.join()


def none_left(mark: str, wait: float = 5) -> bool:
    """Whether the processes marked ``mark`` are all gone within ``wait`` seconds."""
    deadline = time.monotonic() + wait
    while marked(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    return marked(mark) == []


def _terminal_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("work", ["audit", "simulate"])
def test_ctrl_c_stops_bulk_work_at_once(work: str, tmp_path: Path) -> None:
    """SIGINT to the whole process group, as a terminal sends it: the work stops where it
    is (not after the rest of it), one line, exit 130, no traceback from the workers, and
    none of them left running (how soon it stops: bench/query_stops.py)."""
    mark = uuid.uuid4().hex
    env = dict(os.environ, YANIV_AUDIT_TEST_MARK=mark)
    replays = str(ROOT / "replays")
    logs = len(list(Path(replays).rglob("*.jsonl")))  # a directory's logs, at any depth
    out = tmp_path / "games"
    args, whole = (
        ([*[replays] * 12], 12 * logs)
        if work == "audit"
        else (["--games", "5000", "--bot", "random", "--out", str(out)], 5000)
    )
    command = [sys.executable, "-m", "yaniv_audit.cli", work, *args, "--jobs", "2"]
    # Ctrl-C as at a terminal, whatever started the suite: a job a shell put in the
    # background (CI scripts, nohup) runs with SIGINT ignored, which its children inherit
    process = subprocess.Popen(
        command,
        env=env,
        stdout=subprocess.PIPE if work == "audit" else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=_terminal_sigint,
    )
    try:
        deadline = time.monotonic() + 30
        while len(marked(mark)) < 4 and time.monotonic() < deadline:  # + fork server, 2 workers
            time.sleep(0.05)
        time.sleep(0.5)  # the workers are at work
        assert process.poll() is None, f"the {work} finished before Ctrl-C"
        os.killpg(process.pid, signal.SIGINT)
        printed, err = process.communicate(timeout=60)
        done = printed.count(".jsonl: ") if work == "audit" else len(list(out.glob("*.jsonl")))
        assert 0 <= done < whole, f"{done} of {whole} done: the rest was not left undone"
        assert process.returncode == 130
        assert err == "yaniv-audit: interrupted\n"  # one line, no blank one off a terminal
        assert none_left(mark)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for pid in marked(mark):
            os.kill(pid, signal.SIGKILL)


def test_ctrl_c_while_the_workers_start_is_one_line_and_130(tmp_path: Path) -> None:
    """kill -INT as soon as the fork server is up, while the pool's workers are being
    started: one line, exit 130, no worker's traceback, no worker left (issue 28)."""
    for attempt in range(3):
        mark = uuid.uuid4().hex
        env = dict(os.environ, YANIV_AUDIT_TEST_MARK=mark)
        command = [
            sys.executable,
            "-m",
            "yaniv_audit",
            "simulate",
            "--games",
            "400",
            "--jobs",
            "2",
            "--out",
            str(tmp_path / f"games{attempt}"),
        ]
        process = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_terminal_sigint,
        )
        try:
            deadline = time.monotonic() + 30
            while len(marked(mark)) < 2 and time.monotonic() < deadline:  # + the fork server
                time.sleep(0.002)
            assert process.poll() is None, "simulate finished before Ctrl-C"
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=30)
            assert (process.returncode, err) == (130, "yaniv-audit: interrupted\n")
            assert none_left(mark)
        finally:
            if process.poll() is None:
                process.kill()
            for pid in marked(mark):
                os.kill(pid, signal.SIGKILL)


def test_ctrl_c_while_the_command_line_is_imported_is_one_line_and_130() -> None:
    """Before any command can catch it (the console script still importing the CLI)."""
    code = (
        "import sys\n"
        "class Slow:\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'yaniv_audit.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Slow())\n"
        "from yaniv_audit.__main__ import run\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, "audit"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (130, "yaniv-audit: interrupted\n")


def test_ctrl_c_while_the_fork_server_starts_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C arriving while the fork server is being started is raised once it is
    up (it was ignored then, and ``simulate`` went on to write every game)."""
    from multiprocessing import forkserver

    from yaniv_audit.batch import bulk

    def starting() -> None:
        os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(forkserver, "ensure_running", starting)
    # as in a command (a test runner's worker may ignore Ctrl-C)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):  # noqa: PT012 (the signal comes at either line)
            bulk.worker_context()
            time.sleep(0.1)  # a signal is delivered at the next bytecode at the latest
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)
