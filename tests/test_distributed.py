"""The bulk audit on Dask, as a user runs it: ``export``, ``audit --parquet`` on a local
cluster of 2 workers, ``ingest-results``. Its results are those of ``audit --db`` on the
same archive, row for row, on 300 simulated games and the disputes under two rule sets;
a worker killed in the middle loses and duplicates no game's result; ingesting the
results twice stores them once, and the reports then say what they say after ``audit
--db``. The export is read, and the results written, through fsspec URLs as well as
paths (``file://``, and an in-memory store the workers of an in-process cluster share);
a URL of no usable file system is said in one line with what to install."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import pytest
from click.testing import CliRunner, Result

from yaniv_audit.archive import DERIVED
from yaniv_audit.cli import cli
from yaniv_audit.io.rules_files import resolve_rules

if TYPE_CHECKING:  # Dask's libraries: imported by the tests that use them, not at collection
    from yaniv_audit.batch.distributed import Summary

ROOT = Path(__file__).resolve().parent.parent
DISPUTES = sorted(str(p) for p in (ROOT / "replays").glob("*.jsonl"))
#: the two rule sets of the audits, each the rules of half the simulated games: short
#: games (a low score limit; two rounds), so that 300 of them keep the file fast
RULES = ("israeli(score_limit=30)", "classic(game_end=rounds,rounds=2)")
#: the simulated games: 150 of 2 players under the first rules, 150 of 3 under the second
GAMES = 300

# one worker runs the whole file, so that its module fixtures (a Dask cluster, 300 games)
# are made once (pyproject: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("distributed")


def run(*args: str) -> Result:
    """One command through click; never a traceback."""
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return result


def rules_args() -> list[str]:
    return [arg for rules in RULES for arg in ("--rules", rules)]


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """300 simulated games (half under each of RULES) and the hand-written disputes (every
    verdict) in an archive, exported by month; a copy audited with ``audit --db``, and the
    export audited with ``audit --parquet`` on a local cluster of 2 workers, both under
    the two rule sets (so each simulated game is clean under one, not the other)."""
    base = tmp_path_factory.mktemp("dask")
    sims = []
    for seed, (players, rules) in enumerate(zip(("2", "3"), RULES, strict=True)):
        sims.append(base / f"sims{seed}")
        done = run(
            "simulate",
            "--games",
            str(GAMES // 2),
            "--players",
            players,
            "--rules",
            rules,
            "--seed",
            str(15 + seed),
            "--out",
            str(sims[-1]),
        )
        assert done.exit_code == 0, done.output
    fresh, audited = base / "fresh.duckdb", base / "audited.duckdb"
    done = run("ingest", *map(str, sims), *DISPUTES, "--db", str(fresh))
    assert done.exit_code == 0, done.output
    done = run("export", str(base / "export"), "--db", str(fresh))
    assert done.exit_code == 0, done.output
    shutil.copy(fresh, audited)
    by_db = run("audit", "--db", str(audited), *rules_args())
    by_dask = run(
        "audit",
        "--parquet",
        str(base / "export"),
        *rules_args(),
        "--scheduler",
        "local",
        "--workers",
        "2",
        "--out",
        str(base / "results"),
    )
    return {
        "base": base,
        "fresh": fresh,
        "audited": audited,
        "export": base / "export",
        "results": base / "results",
        "by_db": by_db,
        "by_dask": by_dask,
    }


def archive_rows(db: Path, table: str) -> tuple[list[str], list[str]]:
    """A derived table's columns (without audited_at) and its rows, sorted, as text."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        columns = [c for (c, *_) in con.execute(f"DESCRIBE {table}").fetchall()]
        rows = con.execute(
            f"SELECT * EXCLUDE (audited_at) FROM {table}"
            if table == "audits"
            else f"SELECT * FROM {table}"
        ).fetchall()
    finally:
        con.close()
    return columns, sorted(map(repr, rows))


def parquet_rows(results: Path, table: str) -> tuple[list[str], list[str]]:
    """The same of the results of audit --parquet (the Parquet files' own columns)."""
    con = duckdb.connect()
    files = f"read_parquet('{results / table}/**/*.parquet', hive_partitioning = false)"
    columns = [c for (c, *_) in con.execute(f"DESCRIBE SELECT * FROM {files}").fetchall()]
    rows = con.execute(
        f"SELECT * EXCLUDE (audited_at) FROM {files}"
        if table == "audits"
        else f"SELECT * FROM {files}"
    ).fetchall()
    return columns, sorted(map(repr, rows))


def assert_same_results(results: Path, audited: Path) -> None:
    for table in DERIVED:
        columns, rows = parquet_rows(results, table)
        assert (columns, rows) == archive_rows(audited, table), table
        assert rows, f"no {table} rows: the comparison would prove nothing"


def test_the_export_holds_each_game_in_one_partition_with_what_it_needs(
    made: dict[str, Any],
) -> None:
    con = duckdb.connect()
    events = f"read_parquet('{made['export']}/events/**/*.parquet', filename = true)"
    con.execute(f"ATTACH '{made['fresh']}' AS a (READ_ONLY)")
    ((games, wrong, spread),) = con.execute(
        f"SELECT count(DISTINCT e.game_no), "
        f"count(*) FILTER (e.fingerprint <> g.fingerprint OR e.rules_key <> g.rules_key "
        f"OR e.rules_id <> g.rules_id), "
        f"(SELECT count(*) FROM (SELECT game_no FROM {events} GROUP BY game_no "
        f"HAVING count(DISTINCT regexp_replace(filename, '/[^/]*$', '')) > 1)) "
        f"FROM {events} e JOIN a.games g USING (game_no)"
    ).fetchall()
    assert games == GAMES + len(DISPUTES)
    assert wrong == 0, "an event row without its game's fingerprint or declared rules"
    assert spread == 0, "a game's events in two partition directories"


def test_the_dask_audit_gives_the_rows_of_audit_db(made: dict[str, Any]) -> None:
    by_db, by_dask = made["by_db"], made["by_dask"]
    assert by_dask.exit_code == by_db.exit_code == 3  # a corrupt dispute among them
    summary = next(line for line in by_db.output.splitlines() if " clean, " in line)
    assert summary in by_dask.output.splitlines()
    assert f"audited {GAMES + len(DISPUTES)} games" in by_dask.output
    assert "on 2 workers" in by_dask.output
    assert_same_results(made["results"], made["audited"])


@pytest.fixture(scope="module")
def cluster() -> Any:
    """A local cluster of 2 worker processes, reached by its address as a real one is."""
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


def test_audit_parquet_gives_the_audits_rows_as_a_dask_dataframe(
    made: dict[str, Any], cluster: Any
) -> None:
    from distributed import Client

    from yaniv_audit.batch.distributed import audit_parquet

    with Client(cluster.scheduler_address):
        reports = audit_parquet(str(made["export"]), [RULES[1]], events_per_task=5000)
        assert reports.npartitions > 2
        frame = reports.compute()
    assert list(frame.columns) == archive_rows(made["audited"], "audits")[0]
    assert not frame.duplicated(["game_no", "rules_key"]).any()
    con = duckdb.connect(str(made["audited"]), read_only=True)
    winners = dict(
        con.execute(
            "SELECT game_no, winners FROM audits WHERE rules_key = ?", [resolve_rules(RULES[1]).key]
        ).fetchall()
    )
    con.close()
    assert {n: list(w) for n, w in zip(frame["game_no"], frame["winners"], strict=True)} == winners
    assert {json.loads(r)["rules"]["id"] for r in frame["report"]} == {RULES[1]}


def test_a_worker_killed_in_the_middle_loses_and_duplicates_no_result(
    made: dict[str, Any], cluster: Any, tmp_path: Path
) -> None:
    from distributed import Client

    from yaniv_audit.batch.distributed import run_audit

    out = tmp_path / "results"
    found: dict[str, Any] = {}
    with Client(cluster.scheduler_address) as client:
        before = client.run(os.getpid)

        def audit() -> None:  # through the scheduler's address, as on a real cluster
            found["summary"] = run_audit(
                str(made["export"]),
                list(RULES),
                cluster.scheduler_address,
                str(out),
                events_per_task=1500,
            )

        worker = threading.Thread(target=audit)
        worker.start()
        deadline = time.monotonic() + 120
        while not list(out.glob("audits/*/part-*.parquet")) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert worker.is_alive(), "the run ended before a worker could be killed"
        os.kill(next(iter(before.values())), signal.SIGKILL)
        worker.join(timeout=300)
        after = client.run(os.getpid)
    summary: Summary = found["summary"]
    assert set(before.values()) != set(after.values()), "no worker was killed"
    assert summary.tasks > 10
    assert summary.counts["games"] == GAMES + len(DISPUTES)
    con = duckdb.connect()
    ((twice,),) = con.execute(
        f"SELECT count(*) FROM (SELECT game_no, rules_key FROM read_parquet("
        f"'{out}/audits/**/*.parquet') GROUP BY ALL HAVING count(*) > 1)"
    ).fetchall()
    assert twice == 0
    assert_same_results(out, made["audited"])
    assert not list(out.glob("**/.part-*")), "a temporary file left behind"


def test_ingest_results_twice_stores_them_once_and_the_reports_agree(
    made: dict[str, Any], tmp_path: Path
) -> None:
    target = tmp_path / "target.duckdb"
    shutil.copy(made["fresh"], target)
    results = 2 * (GAMES + len(DISPUTES))
    first = run("ingest-results", str(made["results"]), "--db", str(target))
    con = duckdb.connect(str(target), read_only=True)
    first_stamps = con.execute(
        "SELECT game_no, rules_key, audited_at FROM audits ORDER BY ALL"
    ).fetchall()
    con.close()
    second = run("ingest-results", str(made["results"]), "--db", str(target))
    for done in (first, second):
        assert done.exit_code == 0, done.output
        assert f"stored {results} results (game and rule set)" in done.output
    con = duckdb.connect(str(target), read_only=True)
    assert (
        con.execute("SELECT game_no, rules_key, audited_at FROM audits ORDER BY ALL").fetchall()
        == first_stamps
    )
    con.close()
    for table in DERIVED:
        assert archive_rows(target, table) == archive_rows(made["audited"], table), table
    for report in ("players", "violations", "rounds"):
        for rules in RULES:
            ours = run("report", report, "--rules", rules, "--db", str(target))
            theirs = run("report", report, "--rules", rules, "--db", str(made["audited"]))
            assert ours.exit_code == 0 and ours.output == theirs.output, (report, rules)
    again = run("audit", "--db", str(target), *rules_args())
    assert f"audited under {', '.join(RULES)} by this version already" in again.output


def test_ingest_results_leaves_out_games_the_archive_does_not_hold(
    made: dict[str, Any], tmp_path: Path
) -> None:
    small = tmp_path / "disputes.duckdb"
    assert run("ingest", *DISPUTES, "--db", str(small)).exit_code == 0
    done = run("ingest-results", str(made["results"]), "--db", str(small))
    assert done.exit_code == 1
    assert f"stored {2 * len(DISPUTES)} results" in done.output
    assert f"left out {2 * GAMES} results of games not in {small}" in done.output
    empty = run("ingest-results", str(tmp_path), "--db", str(small))
    assert empty.exit_code == 2
    assert "no audits/ Parquet files in it" in empty.output
    (tmp_path / "other" / "audits").mkdir(parents=True)
    shutil.copy(
        next(made["export"].glob("events/*/*/*.parquet")),
        tmp_path / "other" / "audits" / "data_0.parquet",
    )
    other = run("ingest-results", str(tmp_path / "other"), "--db", str(small))
    assert other.exit_code == 2
    assert "not the results of `audit --parquet`" in other.output


@pytest.fixture(scope="module")
def disputes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The disputes alone (a few seconds to audit), exported and audited with ``audit
    --db``: the export the tests of URLs read."""
    base = tmp_path_factory.mktemp("disputes")
    db, audited = base / "disputes.duckdb", base / "audited.duckdb"
    assert run("ingest", *DISPUTES, "--db", str(db)).exit_code == 0
    assert run("export", str(base / "export"), "--db", str(db)).exit_code == 0
    shutil.copy(db, audited)
    assert run("audit", "--db", str(audited), *rules_args()).exit_code == 3
    return {"db": db, "export": base / "export", "audited": audited}


def test_audit_parquet_reads_and_writes_file_urls(
    disputes: dict[str, Path], cluster: Any, tmp_path: Path
) -> None:
    done = run(
        "audit",
        "--parquet",
        disputes["export"].as_uri(),
        *rules_args(),
        "--scheduler",
        cluster.scheduler_address,
        "--out",
        (tmp_path / "results").as_uri(),
    )
    assert done.exit_code == 3, done.output
    assert f"audited {len(DISPUTES)} games" in done.output
    assert_same_results(tmp_path / "results", disputes["audited"])


def test_audit_parquet_on_a_store_that_is_not_local_files(disputes: dict[str, Path]) -> None:
    """fsspec's in-memory store, which the workers of an in-process cluster share (as
    the workers of a real cluster share a bucket): the export read from it by
    ``audit_parquet`` and by ``run_audit``, whose results are written into it."""
    import fsspec  # Dask's libraries: imported by the tests that use them
    from distributed import Client, LocalCluster

    from yaniv_audit.batch.distributed import audit_parquet, run_audit

    memory = fsspec.filesystem("memory")
    root = f"/yaniv-{uuid.uuid4().hex}"
    memory.put(str(disputes["export"]), f"{root}/export", recursive=True)
    try:
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as local:
            with Client(local):
                frame = audit_parquet(
                    f"memory://{root}/export", RULES, events_per_task=50
                ).compute()
            summary = run_audit(
                f"memory://{root}/export",
                list(RULES),
                local.scheduler_address,
                f"memory://{root}/results",
                events_per_task=50,
            )
        assert summary.counts["games"] == len(DISPUTES) and summary.tasks > 2
        local_copy = disputes["db"].parent / f"from-memory-{uuid.uuid4().hex}"
        memory.get(f"{root}/results", str(local_copy), recursive=True)
    finally:
        memory.rm(root, recursive=True)
    assert_same_results(local_copy, disputes["audited"])
    assert list(frame.columns) == archive_rows(disputes["audited"], "audits")[0]
    con = duckdb.connect(str(disputes["audited"]), read_only=True)
    stored = con.execute(
        "SELECT game_no, rules_key, verdict, winners, report FROM audits"
    ).fetchall()
    con.close()
    assert sorted(
        (n, k, v, list(w), r)
        for n, k, v, w, r in zip(
            frame["game_no"],
            frame["rules_key"],
            frame["verdict"],
            frame["winners"],
            frame["report"],
            strict=True,
        )
    ) == sorted(stored)


@pytest.mark.parametrize(
    ("where", "url", "message"),
    [
        (
            "--parquet",
            "s3://club/export",
            "s3://club/export: fsspec opens s3:// with the package s3fs, which is not installed: "
            "pip install s3fs (here and on every Dask worker)",
        ),
        (
            "--out",
            "s3://club/results",
            "s3://club/results: fsspec opens s3:// with the package s3fs, which is not installed: "
            "pip install s3fs (here and on every Dask worker)",
        ),
        (
            "--parquet",
            "nosuchstore://club/export",
            "nosuchstore://club/export: fsspec knows no file system nosuchstore://; give a local "
            "path or a URL such as file:///data/export or s3://bucket/export",
        ),
    ],
)
def test_a_url_of_no_usable_file_system_is_said_in_one_line(
    disputes: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    where: str,
    url: str,
    message: str,
) -> None:
    monkeypatch.setitem(sys.modules, "s3fs", None)  # not installed, wherever the suite runs
    given = {"--parquet": str(disputes["export"]), "--out": str(tmp_path / "out"), where: url}
    done = run("audit", *(arg for pair in given.items() for arg in pair))
    assert (done.exit_code, done.output) == (2, f"yaniv-audit: {message}\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "classic"], "--parquet needs --out DIR"),
        (["--out", "{out}", "--db", "x.duckdb"], "--parquet goes with --rules, --scheduler"),
        (
            ["--out", "{out}", "--scheduler", "tcp://127.0.0.1:1", "--workers", "2"],
            "--workers goes with --scheduler local",
        ),
        (["--out", "{full}"], "exists and is not an empty directory"),
    ],
)
def test_audit_parquet_says_what_is_wrong_on_one_line(
    disputes: dict[str, Path], tmp_path: Path, args: list[str], message: str
) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep\n")
    argv = [a.format(out=tmp_path / "out", full=tmp_path / "full") for a in args]
    done = run("audit", "--parquet", str(disputes["export"]), *argv)
    assert done.exit_code == 2
    assert message in done.output
    assert (tmp_path / "full" / "mine.txt").read_text() == "keep\n"


def test_audit_parquet_of_no_export_and_no_scheduler(tmp_path: Path) -> None:
    done = run("audit", "--parquet", str(tmp_path), "--out", str(tmp_path / "out"))
    assert done.exit_code == 3 and "no events/ directory" in done.output
    (tmp_path / "events" / "x=1").mkdir(parents=True)
    (tmp_path / "events" / "x=1" / "data_0.parquet").write_text("not parquet")
    done = run("audit", "--parquet", str(tmp_path), "--out", str(tmp_path / "out2"))
    assert done.exit_code == 3 and "not a Parquet file" in done.output


def test_an_out_that_cannot_be_written_is_said_in_one_line(
    disputes: dict[str, Path], tmp_path: Path
) -> None:
    (tmp_path / "a-file").write_text("not a directory\n")
    done = run(
        "audit",
        "--parquet",
        str(disputes["export"]),
        "--out",
        (tmp_path / "a-file" / "results").as_uri(),
    )
    assert done.exit_code == 3
    assert done.output.startswith(
        f"yaniv-audit: {(tmp_path / 'a-file' / 'results').as_uri()}: cannot be read or written ("
    )
    assert len(done.output.splitlines()) == 1


def test_without_dask_the_command_says_how_to_install_it(
    disputes: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delitem(sys.modules, "yaniv_audit.batch.distributed")
    monkeypatch.setitem(sys.modules, "dask", None)
    done = run("audit", "--parquet", str(disputes["export"]), "--out", str(tmp_path / "out"))
    assert done.exit_code == 2
    assert done.output == (
        "yaniv-audit: audit --parquet needs Dask: pip install 'yaniv-audit[dask]'\n"
    )


def test_the_core_commands_import_no_dask() -> None:
    code = (
        "import sys, yaniv_audit.cli, yaniv_audit.archive; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & "
        "{'dask', 'distributed', 'pandas', 'pyarrow'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
