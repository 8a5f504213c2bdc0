"""An archive file damaged on disk, or a disk with no room: every command says which, on
one line, with exit status 3, and never adds to a damaged file or calls an intact one
damaged."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from yaniv_audit.archive import Archive, rollback, trouble
from yaniv_audit.archive import ingest as ingest_module
from yaniv_audit.archive.schema import TABLES
from yaniv_audit.cli import cli, main

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
LOGS = sorted(map(str, REPLAYS.glob("*.jsonl")))
#: DuckDB's file: three headers of 4 KiB, then blocks of 256 KiB
HEADERS, BLOCK = 3 * 4096, 256 * 1024

# one worker runs the file, so that its archive (the module fixture) is made once; a group
# of its own, not test_archive.py's, so that the two files can run side by side
pytestmark = pytest.mark.xdist_group("damage")


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample games ingested and audited."""
    db = tmp_path_factory.mktemp("damage") / "games.duckdb"
    for args in (["ingest", *LOGS, "--db", str(db)], ["audit", "--db", str(db), "--exit-zero"]):
        done = CliRunner().invoke(cli, args)  # in this process: what is damaged comes next
        assert done.exit_code == 0, (done.exception, done.output)
    return db


def used_blocks(db: Path) -> list[tuple[int, str]]:
    """The blocks the archive's tables are stored in, in file order, with their table."""
    with duckdb.connect(str(db), read_only=True) as con:
        blocks: dict[int, str] = {}
        for table in TABLES:
            if not table.startswith("latest_"):
                blocks.update(
                    (block, table)
                    for (block,) in con.execute(
                        f"SELECT DISTINCT block_id FROM pragma_storage_info('{table}') "
                        "WHERE block_id >= 0"
                    ).fetchall()
                )
    return sorted(blocks.items())


@pytest.fixture(params=["middle", "tail"])
def damaged(request: pytest.FixtureRequest, whole: Path, tmp_path: Path) -> tuple[Path, str]:
    """A copy of the archive with 4 KiB of random bytes written into a block of a table,
    one in the middle of the file or the last one; and that table."""
    db = tmp_path / "damaged.duckdb"
    shutil.copy(whole, db)
    blocks = used_blocks(db)
    block, table = blocks[len(blocks) // 2] if request.param == "middle" else blocks[-1]
    with db.open("r+b") as f:
        f.seek(HEADERS + block * BLOCK + 8192)
        f.write(random.Random(block).randbytes(4096))
    return db, table


COMMANDS = [
    ("verify",),
    ("verify", "--audits"),
    ("report", "leaderboard"),
    ("report", "players"),
    ("audit", "--db", "--again", "--exit-zero"),
    ("ingest", str(REPLAYS / "simulated")),
    ("checkpoint",),
    ("query", "SELECT * FROM {table}"),
    ("export", "{db}-export"),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_every_command_meets_a_damaged_archive_with_one_line(
    damaged: tuple[Path, str], command: tuple[str, ...]
) -> None:
    """Random bytes in the middle of the file or at its end: verify reads every block it
    vouches for, a report or query that reads the damaged block says so, a command that
    writes reads every block first and adds nothing; each on one line, exit 3."""
    damaged_db, table = damaged
    before = damaged_db.read_bytes()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            *(arg.format(table=table, db=damaged_db) for arg in command),
            "--db",
            str(damaged_db),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if command[0] == "report" and done.returncode == 0:
        # a report that never reads the damaged block has nothing to say of it
        return
    assert done.returncode == 3, (done.returncode, done.stdout[-300:], done.stderr)
    assert re.match(
        rf"yaniv-audit: ({re.escape(str(damaged_db))}: )?the archive file is "
        "damaged",
        done.stderr,
    )
    assert "the archive file is damaged and cannot be read (Corrupt database file" in done.stderr
    assert "restore it from a copy" in done.stderr
    assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr
    if command[0] in ("ingest", "audit", "checkpoint"):
        assert damaged_db.read_bytes() == before, "nothing was written into it"


def test_verify_reads_every_table(damaged: tuple[Path, str]) -> None:
    """verify says the archive is damaged whichever table the damaged block is of (here
    the derived tables' at the end of the file too, which the check of the games' events
    never read)."""
    done = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", "verify", "--db", str(damaged[0])],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 3
    assert "verified" not in done.stdout + done.stderr


NO_SPACE = 'IO Error: Could not write file "{}": No space left on device'


def test_a_full_disk_is_said_as_such_and_the_archive_is_unchanged(
    whole: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The error DuckDB raises when the disk fills while a batch is stored (its text as
    DuckDB 2.0 said it on a full tmpfs): 'the disk is full', the archive unchanged, exit
    3; never 'damaged ... restore it from a copy', which would throw good data away."""
    db = tmp_path / "full.duckdb"
    shutil.copy(whole, db)
    with Archive(db, read_only=True) as archive:
        games = archive.count_games()

    def no_room(con: duckdb.DuckDBPyConnection, first: int, last: int) -> None:
        raise duckdb.IOException(NO_SPACE.format(db))

    monkeypatch.setattr(ingest_module, "_summarize", no_room)
    with pytest.raises(SystemExit) as exit_:
        main(["ingest", str(REPLAYS / "simulated" / "israeli"), "--db", str(db)])
    err = capsys.readouterr().err
    assert exit_.value.code == 3, err
    assert "the disk is full (IO Error: Could not write file" in err
    assert "nothing was stored and the archive is unchanged" in err
    assert "damaged" not in err and "restore" not in err
    assert err.count("\n") == 1
    monkeypatch.undo()
    with Archive(db, read_only=True) as archive:
        assert archive.count_games() == games
    verify = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", "verify", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert verify.returncode == 0, verify.stderr


def test_disk_full_is_told_from_damage_and_memory() -> None:
    """How DuckDB's errors are read: the disk full, a damaged block, too little memory."""
    full = trouble("a.duckdb", duckdb.IOException(NO_SPACE.format("a.duckdb")))
    assert full is not None and str(full).startswith("a.duckdb: the disk is full")
    bad = trouble(
        "a.duckdb",
        duckdb.Error(
            "Corrupt database file: computed checksum 1 does not match stored checksum 2 in "
            "block at location 5255168"
        ),
    )
    assert bad is not None and "the archive file is damaged" in str(bad)
    assert trouble("a.duckdb", duckdb.BinderException("Binder Error: no column x")) is None


def test_a_failed_commit_leaves_the_error_that_says_why(tmp_path: Path) -> None:
    """After a COMMIT that failed (a full disk) DuckDB has ended the transaction: the
    rollback that follows raises nothing of its own over the error that said why."""
    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    rollback(con)  # no transaction: nothing to roll back, and no error
    con.execute("BEGIN TRANSACTION")
    con.execute("CREATE TABLE t (x INTEGER)")
    rollback(con)
    assert con.execute("SELECT count(*) FROM information_schema.tables").fetchone() == (0,)
    con.close()


def test_damage_free_archive_is_untouched_by_the_check(whole: Path, tmp_path: Path) -> None:
    """The check a writer makes reads only: an intact archive takes the games."""
    db = tmp_path / "fine.duckdb"
    shutil.copy(whole, db)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            "ingest",
            str(REPLAYS / "simulated" / "classic"),
            "--db",
            str(db),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "YANIV_AUDIT_RULES": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "ingested" in done.stdout
