"""``yaniv-audit serve`` as a user starts it: a subprocess on waitress, real HTTP.

``serve --demo`` stores the sample games in a demo archive and says so, and a plain
``serve`` stores none in the archive that becomes the user's; a
curl-style body (``--data-binary``, form content type) is audited; the limits
and the token hold; every answer has the security headers.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from yaniv_audit.archive import Archive
from yaniv_audit.cli import usable_cores

ROOT = Path(__file__).resolve().parents[2]
MIDDLE = ROOT / "replays" / "middle-card.jsonl"
FRIDAY = ROOT / "replays" / "clean-assaf-reduction.jsonl"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_serve(
    db: Path,
    port: int,
    env: dict[str, str],
    *args: str,
) -> tuple[subprocess.Popen[str], str]:
    """``yaniv-audit serve`` on ``port``, once it listens, and what it said first."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            "serve",
            "--db",
            str(db),
            "--port",
            str(port),
            *args,
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    said = []
    try:
        while True:  # the server says what it did, then where it listens
            line = proc.stderr.readline()
            assert line, f"serve stopped: {''.join(said)}"
            said.append(line)
            if line.startswith("yaniv-audit on "):
                break
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.1)
    except BaseException:
        proc.kill()
        raise
    return proc, "".join(said)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    db = tmp_path_factory.mktemp("serve") / "fresh.duckdb"
    port = free_port()
    env = {**os.environ, "YANIV_AUDIT_TOKEN": "s3cret"}
    proc, said = start_serve(db, port, env, "--threads", "4", "--max-bytes", "4096", "--demo")
    try:
        yield f"http://127.0.0.1:{port}", said
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def send(
    url: str,
    data: bytes | None = None,
    headers: dict[str, str] | None = None,
    method: str | None = None,
) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def test_a_demo_start_ingests_the_samples_and_says_so(server: tuple[str, str]) -> None:
    url, said = server
    assert "the demo archive was empty: ingested the 8 sample games (replays/" in said
    assert "waitress, 4 threads" in said and "writes need the token" in said
    # by default one per core, no more than the threads that serve
    assert f"{min(usable_cores(), 4)} audit processes" in said
    status, _, listing = send(f"{url}/api/v1/games")
    assert status == 200 and listing["total"] == 8
    assert all(g["verdict"] for g in listing["games"])  # audited when stored


def test_curl_style_bodies_are_audited(server: tuple[str, str]) -> None:
    url, _ = server
    for content_type in ("application/x-www-form-urlencoded", "application/x-ndjson"):
        status, headers, report = send(
            f"{url}/api/v1/audit?rules=namu", MIDDLE.read_bytes(), {"Content-Type": content_type}
        )
        assert status == 200 and report["verdict"] == "clean", report
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_too_large_and_unauthorized(server: tuple[str, str]) -> None:
    url, _ = server
    status, _, body = send(f"{url}/api/v1/audit", FRIDAY.read_bytes())  # 9 kB > 4096 bytes
    assert status == 413 and "larger than 4,096 bytes" in body["error"]["message"]
    status, headers, body = send(f"{url}/api/v1/games", MIDDLE.read_bytes())
    assert status == 401 and body["error"]["code"] == "unauthorized"
    assert headers["Referrer-Policy"] == "same-origin"
    status, _, body = send(
        f"{url}/api/v1/games", MIDDLE.read_bytes(), {"Authorization": "Bearer s3cret"}
    )
    assert status == 200 and body["duplicates"][0]["source"] == "request.jsonl"
    status, _, body = send(f"{url}/api/v1/games?offset=99999999999999999999")
    assert status == 400 and body["error"]["field"] == "offset"


def serve_here(directory: Path, *args: str) -> list[str]:
    """What ``serve`` started in ``directory`` (no --db, no $YANIV_AUDIT_DB) says up to
    where it listens; then it is stopped."""
    env = {k: v for k, v in os.environ.items() if k != "YANIV_AUDIT_DB"}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            "serve",
            "--port",
            str(free_port()),
            "--workers",
            "0",
            *args,
        ],
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT)},
        cwd=directory,
    )
    said = []
    try:
        assert proc.stderr is not None
        while not said or not said[-1].startswith("yaniv-audit on "):
            line = proc.stderr.readline()
            assert line, f"serve stopped: {''.join(said)}"
            said.append(line)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return said


def test_serve_stores_no_sample_game_in_the_users_archive(tmp_path: Path) -> None:
    """In an empty directory serve says how to fill the archive and stores nothing in it;
    --demo serves the samples from yaniv-demo.duckdb there, apart from it."""
    said = serve_here(tmp_path)
    assert said[0].startswith(
        "the archive yaniv-archive.duckdb holds no games yet: "
        "yaniv-audit ingest PATH stores your logs"
    )
    assert "serve --demo shows the sample games" in said[0]
    assert not (tmp_path / "yaniv-archive.duckdb").exists()
    demo = serve_here(tmp_path, "--demo")
    assert demo[0].startswith(
        "the demo archive was empty: ingested the 8 sample games (replays/ of yaniv-audit's "
        "source) into yaniv-demo.duckdb"
    )
    assert "(archive yaniv-demo.duckdb," in demo[1]
    assert not (tmp_path / "yaniv-archive.duckdb").exists()
    with Archive(tmp_path / "yaniv-demo.duckdb", read_only=True) as archive:
        assert archive.count_games() == 8


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive holding one game: serve starts on it without storing the samples."""
    db = tmp_path_factory.mktemp("stored") / "one.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(MIDDLE)], jobs=1)
    return db


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
def test_the_audit_workers_end_with_the_server(
    stored: Path, tmp_path: Path, stop: signal.Signals
) -> None:
    """Killed outright, stopped (kill, systemctl, docker) or Ctrl-C: no worker is left;
    stopped, the server exits as asked and says nothing more than Ctrl-C's one line."""
    from test_bulk import marked

    mark = uuid.uuid4().hex
    env = {**os.environ, "YANIV_AUDIT_TEST_MARK": mark}
    port = free_port()
    shutil.copy(stored, tmp_path / "k.duckdb")
    proc, said = start_serve(tmp_path / "k.duckdb", port, env, "--workers", "2")
    try:
        assert "2 audit processes" in said
        status, _, report = send(f"http://127.0.0.1:{port}/api/v1/audit", FRIDAY.read_bytes())
        assert status == 200 and report["verdict"] == "clean"
        assert len(marked(mark)) >= 4  # the server, the fork server and its 2 workers
        os.kill(proc.pid, stop)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while marked(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert marked(mark) == []
        assert proc.stderr is not None
        rest = proc.stderr.read()  # the workers held it open too: all closed now
        if stop == signal.SIGTERM:
            assert (proc.returncode, rest) == (0, "")
        elif stop == signal.SIGINT:
            assert (proc.returncode, rest.strip()) == (130, "yaniv-audit: interrupted")
    finally:
        proc.kill()
        for pid in marked(mark):
            os.kill(pid, signal.SIGKILL)


def test_a_demo_without_the_sample_games_says_how_to_fill_it(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Installed from a wheel there is no replays/ beside the package: --demo says so and
    how to fill the archive, rather than serving an empty one without a word."""
    from yaniv_audit.cli import serve

    monkeypatch.setattr(serve, "SAMPLES", tmp_path / "replays")
    db = str(tmp_path / "demo.duckdb")
    serve.seed_archive(db)
    said = capsys.readouterr().err
    assert f"the demo archive {db} is empty, and the sample games" in said
    assert f"yaniv-audit ingest --db {db} LOG..." in said


def test_games_stored_but_never_audited_are_audited_when_the_server_starts(tmp_path: Path) -> None:
    """A server killed between storing games and auditing them left their verdicts null
    for good; a server that starts audits every game left without an audit, and says so."""
    db = tmp_path / "crashed.duckdb"
    with Archive(db) as archive:  # stored, then the kill before the audit
        archive.ingest([str(MIDDLE), str(FRIDAY)], jobs=1)
    port = free_port()
    proc, said = start_serve(db, port, dict(os.environ))
    try:
        assert (
            f"audited 2 stored games of {db} that had no audit under their declared rules"
        ) in said
        status, _, listing = send(f"http://127.0.0.1:{port}/api/v1/games")
        assert status == 200
        assert sorted(g["verdict"] for g in listing["games"]) == ["clean", "violations"]
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_cli_writer_gets_its_turn_while_the_server_reads(
    stored: Path,
    tmp_path: Path,
) -> None:
    """With requests less than 2 s apart the server never closed the archive, and ingest
    said it was in use "by another process that writes to it" (the server only read it):
    the waiting ingest now makes the server give the file up between requests."""
    db = tmp_path / "busy.duckdb"
    shutil.copy(stored, db)
    port = free_port()
    proc, _ = start_serve(db, port, dict(os.environ))
    stop = threading.Event()
    answers: list[int] = []

    def read_on() -> None:
        while not stop.is_set():
            answers.append(send(f"http://127.0.0.1:{port}/api/v1/games")[0])
            time.sleep(0.2)

    reader = threading.Thread(target=read_on)
    try:
        assert send(f"http://127.0.0.1:{port}/api/v1/games")[0] == 200  # the server has it
        reader.start()
        time.sleep(0.5)
        done = subprocess.run(
            [sys.executable, "-m", "yaniv_audit.cli", "ingest", str(FRIDAY), "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert "ingested 1 game" in done.stdout
        time.sleep(0.5)
        stop.set()
        reader.join()
        assert not Path(f"{db}.writer-waiting").exists()
        assert answers.count(200) >= 2 and set(answers) <= {200, 503}
        status, _, listing = send(f"http://127.0.0.1:{port}/api/v1/games")
        assert status == 200 and listing["total"] == 2  # the server reads the new game
    finally:
        stop.set()
        if reader.is_alive():
            reader.join()
        proc.terminate()
        proc.wait(timeout=30)


def test_a_reader_that_keeps_the_archive_is_named(
    stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that reads the archive and never lets go (not a server): ingest waits its
    turn, then says who holds the file (its id and command) and that it only reads."""
    from click.testing import CliRunner

    import yaniv_audit.archive as archive_package
    from yaniv_audit.cli import cli

    db = tmp_path / "held.duckdb"
    shutil.copy(stored, db)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], "
            "read_only=True); print('ready', flush=True); time.sleep(60)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        monkeypatch.setattr(archive_package, "WRITER_WAIT", 0.5)
        result = CliRunner().invoke(cli, ["ingest", str(FRIDAY), "--db", str(db)])
    finally:
        holder.kill()
        holder.wait()
    assert result.exit_code == 3, result.output
    assert (
        f"{db}: the archive is in use by another process (PID {holder.pid}: python" in result.output
    )
    assert "which reads it; a write needs it alone" in result.output
    assert "writes to it" not in result.output
    assert not Path(f"{db}.writer-waiting").exists()


def test_a_writer_that_cannot_wait_is_told_the_server_holds_the_archive(
    stored: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ingest said the archive was in use by "another process that writes to it" while
    the server only read it: it names the server, its process id, and that it reads."""
    from click.testing import CliRunner

    import yaniv_audit.archive as archive_package
    from yaniv_audit.cli import cli

    db = tmp_path / "served.duckdb"
    shutil.copy(stored, db)
    port = free_port()
    proc, _ = start_serve(db, port, dict(os.environ), "--workers", "0")
    try:
        monkeypatch.setattr(archive_package, "WRITER_WAIT", 0.0)  # no turn asked for
        assert send(f"http://127.0.0.1:{port}/api/v1/games")[0] == 200  # it holds the file
        result = CliRunner().invoke(cli, ["ingest", str(FRIDAY), "--db", str(db)])
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert result.exit_code == 3, result.output
    assert (
        f"{db}: the archive is in use by the yaniv-audit server (PID {proc.pid}: "
        "yaniv-audit serve --db "
    ) in result.output
    assert "which reads it; a write needs it alone" in result.output


@pytest.mark.parametrize("dev", [False, True], ids=["waitress", "dev"])
def test_a_port_in_use_is_wrong_usage_naming_it_and_port(tmp_path: Path, dev: bool) -> None:
    """Issue 38: a taken port said "yaniv-audit on http://..." and then "internal error",
    exit 4; it is exit 2 naming the port and --port, and nothing says it is serving."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "yaniv_audit.cli",
                "serve",
                "--db",
                str(tmp_path / "a.duckdb"),
                "--port",
                str(port),
                "--workers",
                "0",
                *(["--dev"] if dev else []),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "yaniv-audit on " not in done.stderr and "internal error" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith(f"yaniv-audit: cannot listen on 127.0.0.1:{port} (another program")
    assert "--port" in last
