"""kill -9 in the middle of ingest and audit --db: the archive opens, verifies, holds no
half-stored game and no half-stored audit, and the same command completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import LONG

from yaniv_audit import cli as commands
from yaniv_audit.archive import Archive

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = str(ROOT / "replays")
CLI = [sys.executable, "-m", "yaniv_audit.cli"]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """A command that is not killed, run in this process through click (a process of its
    own is what the kills need, and costs 1 to 2 s a start: Python, DuckDB, pandas)."""
    result = CliRunner().invoke(commands.cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def killed(args: list[str], after: float) -> None:
    """Run the command and kill it with SIGKILL ``after`` seconds in (if still running)."""
    process = subprocess.Popen([*CLI, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(after)
    if process.poll() is None:
        os.kill(process.pid, signal.SIGKILL)
    process.wait()


def empty(db: Path) -> bool:
    """Whether ``db`` is a DuckDB file with no tables yet (made, then killed at once)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        return not con.execute("SELECT 1 FROM information_schema.tables").fetchall()
    finally:
        con.close()


def whole(db: Path) -> tuple[int, int]:
    """(games, audits) of an archive, after checking that nothing is half stored."""
    with Archive(db, read_only=True) as archive:
        con = archive.con
        halves = con.execute(
            "SELECT count(*) FROM games g WHERE g.events <> "
            "(SELECT count(*) FROM events e WHERE e.game_no = g.game_no)"
        ).fetchone()
        assert halves == (0,), "a game stored without all its events"
        orphans = con.execute(
            "SELECT count(*) FROM events e WHERE NOT EXISTS "
            "(SELECT 1 FROM games g WHERE g.game_no = e.game_no)"
        ).fetchone()
        assert orphans == (0,), "events of no game"
        for table in ("findings", "rounds", "standings"):
            (loose,) = con.execute(
                f"SELECT count(*) FROM {table} t WHERE NOT EXISTS (SELECT 1 FROM audits a "
                "WHERE a.game_no = t.game_no AND a.rules_key = t.rules_key)"
            ).fetchone()
            assert loose == 0, f"{table} rows of no audit"
        (partial,) = con.execute(
            "SELECT count(*) FROM audits a WHERE a.rounds <> (SELECT count(*) FROM rounds r "
            "WHERE r.game_no = a.game_no AND r.rules_key = a.rules_key)"
        ).fetchone()
        assert partial == 0, "an audit stored without all its rounds"
        (games,) = con.execute("SELECT count(*) FROM games").fetchone()
        (audits,) = con.execute("SELECT count(*) FROM audits").fetchone()
    return games, audits


#: when the kill comes: early in ingest, then later (its audit well under way); the long
#: sweep (YANIV_AUDIT_LONG=1) kills at each of them, the default run in the middle one
KILL_AFTER = [0.8, 1.6, 2.6] if LONG else [1.6]


@pytest.mark.parametrize("after", KILL_AFTER)
def test_kill_9_during_ingest_and_audit(tmp_path: Path, after: float) -> None:
    db = tmp_path / "crash.duckdb"
    killed(["ingest", REPLAYS, "--db", str(db), "--jobs", "2"], after)
    if db.exists() and not empty(db):  # else killed before the archive was made
        whole(db)
        checked = cli("verify", "--db", str(db))
        assert checked.returncode == 0, checked.stdout + checked.stderr
    done = cli("ingest", REPLAYS, "--db", str(db), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    games, _ = whole(db)
    assert games == 268
    killed(
        [
            "audit",
            "--db",
            str(db),
            "--rules",
            "namu",
            "--rules",
            "classic",
            "--jobs",
            "2",
            "--exit-zero",
            "--json",
        ],
        after,
    )
    whole(db)
    checked = cli("verify", "--audits", "--db", str(db))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    finish = cli(
        "audit", "--db", str(db), "--rules", "namu", "--rules", "classic", "--exit-zero", "--json"
    )
    assert finish.returncode == 0, finish.stderr
    games, audits = whole(db)
    assert audits == 2 * games  # every game under both rule sets
    assert (
        "audited under namu, classic"
        in cli("audit", "--db", str(db), "--rules", "namu", "--rules", "classic").stderr
    )
