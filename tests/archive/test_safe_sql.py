"""``yaniv-audit query`` reads the archive's tables and nothing else (docs/archive.md).

Every way out we know of is tried: reading and writing files, other databases,
extensions, settings, creating things, several statements, the environment,
SQL given as text, a statement that never ends. Each must be refused with one
line saying what and why (exit 2), and leave the archive and every other file
as they were; the ordinary queries and the reports must still work.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner, Result

from yaniv_audit.archive import Archive
from yaniv_audit.archive.query import run_isolated
from yaniv_audit.archive.safe_sql import LOCKED_CONFIG
from yaniv_audit.cli import cli
from yaniv_audit.core.errors import ArchiveError, QueryRefused, QueryTimeout

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
LOGS = sorted(map(str, REPLAYS.glob("*.jsonl")))

# one worker runs the whole file, so that its module fixtures are made once
# (pyproject: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("safe_sql")


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return result


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with the archive (the hand-written disputes, audited), another
    archive beside it, and a plain file: everything an escape could touch."""
    where = tmp_path_factory.mktemp("safe-sql")
    db = where / "games.duckdb"
    assert run("ingest", *LOGS, "--db", str(db)).exit_code == 0
    assert run("audit", "--db", str(db), "--exit-zero").exit_code == 0
    assert run("ingest", LOGS[0], "--db", str(where / "other.duckdb")).exit_code == 0
    (where / "notes.txt").write_text("not to be read\n")
    return where


def snapshot(where: Path) -> dict[str, tuple[int, str]]:
    """Every file under ``where``: its size and SHA-256."""
    return {
        str(p.relative_to(where)): (p.stat().st_size, hashlib.sha256(p.read_bytes()).hexdigest())
        for p in sorted(where.rglob("*"))
        if p.is_file()
    }


# what each statement is refused for: a words of the one-line message
FILES = "reads files; query reads only the archive's tables, never a file"
AS_TABLE = "names a file as a table"
NOT_SELECT = "is not a SELECT"
LOCKED = "query's settings are locked"
CREATES = "query creates nothing"
READ_ONLY = "the archive is open read-only"
AS_TEXT = "runs SQL built from text"
STATE = "DuckDB's own state"

ESCAPES = [
    # reading files, the archive's own file included (DuckDB's wall lets that one by)
    ("SELECT * FROM read_csv('/etc/passwd')", FILES),
    ("SELECT * FROM read_csv_auto('/etc/passwd')", FILES),
    ("SELECT * FROM read_text('/etc/passwd')", FILES),
    ("SELECT * FROM read_blob('/etc/passwd')", FILES),
    ("SELECT * FROM read_json('/etc/passwd')", FILES),
    ("SELECT * FROM read_ndjson_objects('/etc/passwd')", FILES),
    ("SELECT * FROM read_parquet('/etc/passwd')", FILES),
    ("SELECT * FROM parquet_metadata('{dir}/other.duckdb')", FILES),
    ("SELECT * FROM glob('/etc/*')", FILES),
    ("SELECT * FROM sniff_csv('/etc/passwd')", FILES),
    ("SELECT * FROM read_text('/proc/self/environ')", FILES),
    ("SELECT * FROM read_text('{dir}/notes.txt')", FILES),
    ("SELECT content FROM read_blob('{dir}/games.duckdb')", FILES),
    ("SELECT * FROM read_duckdb('{dir}/other.duckdb', table_name := 'games')", FILES),
    ("SELECT * FROM read_text('https://example.com/')", FILES),
    ("SELECT * FROM READ_TEXT('/etc/passwd')", FILES),
    ("SELECT * FROM system.main.read_text('/etc/passwd')", FILES),
    ("SELECT * FROM games g, LATERAL (SELECT * FROM read_text(g.source))", FILES),
    ("SELECT 1 WHERE EXISTS (SELECT * FROM glob('*'))", FILES),
    ("WITH f AS (SELECT * FROM read_csv('/etc/passwd')) SELECT * FROM f", FILES),
    ("SUMMARIZE SELECT * FROM read_text('/etc/passwd')", FILES),
    ("SELECT * FROM '/etc/passwd'", AS_TABLE),
    ('SELECT * FROM "/etc/passwd"', AS_TABLE),
    ("FROM '{dir}/notes.txt'", AS_TABLE),
    ("SELECT * FROM 'games.csv'", AS_TABLE),
    ('FROM "notes.txt"', AS_TABLE),
    ("SELECT * FROM '~/.duckdbrc'", AS_TABLE),
    ("DESCRIBE '/etc/passwd'", AS_TABLE),
    # writing files
    ("COPY (SELECT 1) TO '{dir}/x.csv'", "COPY is not a SELECT: it reads or writes files"),
    ("COPY games TO '{dir}/games.duckdb.tmp/games.csv'", "COPY is not a SELECT"),
    ("COPY games FROM '/etc/passwd'", "COPY is not a SELECT"),
    ("EXPORT DATABASE '{dir}/export'", "EXPORT is not a SELECT: it writes files"),
    ("IMPORT DATABASE '{dir}'", "IMPORT is not a SELECT: it reads files"),
    # other databases
    ("ATTACH '{dir}/other.duckdb' AS other", "ATTACH is not a SELECT: it opens another"),
    ("ATTACH '{dir}/other.duckdb' AS other (READ_WRITE)", "ATTACH is not a SELECT"),
    ("ATTACH ':memory:' AS scratch", "ATTACH is not a SELECT"),
    ("DETACH games", "DETACH is not a SELECT"),
    ("USE system", "USE is not a SELECT"),
    ("COPY FROM DATABASE games TO other", "COPY is not a SELECT: it copies a database"),
    # extensions
    ("INSTALL httpfs", "INSTALL is not a SELECT: it installs or loads an extension"),
    ("FORCE INSTALL httpfs FROM 'http://example.com'", "FORCE is not a SELECT"),
    ("LOAD httpfs", "LOAD is not a SELECT: it installs or loads an extension"),
    ("LOAD json", "LOAD is not a SELECT"),
    ("UPDATE EXTENSIONS", "UPDATE is not a SELECT"),
    # settings
    ("SET enable_external_access = true", LOCKED),
    ("SET lock_configuration = false", LOCKED),
    ("RESET enable_external_access", LOCKED),
    ("SET GLOBAL threads = 1", LOCKED),
    ("SET custom_extension_repository = 'http://example.com'", LOCKED),
    ("SET autoinstall_known_extensions = true", LOCKED),
    ("SET allowed_directories = ['/']", LOCKED),
    ("SET temp_directory = '{dir}'", LOCKED),
    ("SET VARIABLE x = 1", LOCKED),
    ("PRAGMA enable_profiling", "PRAGMA is not a SELECT"),
    ("PRAGMA table_info('games')", "PRAGMA is not a SELECT"),
    ("CALL enable_logging()", "CALL is not a SELECT"),
    ("SELECT * FROM duckdb_settings()", STATE),
    ("SELECT * FROM duckdb_secrets()", STATE),
    ("SELECT * FROM duckdb_extensions()", STATE),
    ("SELECT * FROM pg_settings", "DuckDB's settings"),
    ("SELECT * FROM duckdb_logs", "DuckDB's log"),
    ("SELECT * FROM duckdb_logs_parsed('QueryLog')", STATE),
    # creating anything
    ("CREATE TABLE t (x INTEGER)", CREATES),
    ("CREATE TEMP TABLE t AS SELECT 1", CREATES),
    ("CREATE OR REPLACE TEMP TABLE games AS SELECT 1 AS game_no", CREATES),
    ("CREATE MACRO m(x) AS x", CREATES),
    ("CREATE TEMP MACRO m(x) AS x", CREATES),
    ("CREATE TEMP VIEW v AS SELECT 1", CREATES),
    ("CREATE TEMP SEQUENCE s", CREATES),
    ("CREATE TYPE colour AS ENUM ('red')", CREATES),
    ("CREATE SECRET s (TYPE s3, KEY_ID 'a', SECRET 'b')", CREATES),
    ("PIVOT games ON rules_id USING count(*)", "PIVOT is not a SELECT: it runs several"),
    # changing the archive
    ("DELETE FROM games", READ_ONLY),
    ("UPDATE games SET source = 'x'", READ_ONLY),
    ("INSERT INTO checkpoints VALUES (0, 'x', now())", READ_ONLY),
    ("DROP TABLE games", READ_ONLY),
    ("ALTER TABLE games RENAME TO g", READ_ONLY),
    ("TRUNCATE games", READ_ONLY),
    ("MERGE INTO games USING games g2 ON true WHEN MATCHED THEN DELETE", READ_ONLY),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO '{dir}/x.csv'", "EXPLAIN is not a SELECT"),
    ("BEGIN TRANSACTION", NOT_SELECT),
    ("CHECKPOINT", NOT_SELECT),
    ("VACUUM", NOT_SELECT),
    ("ANALYZE", NOT_SELECT),
    ("PREPARE p AS SELECT 1", NOT_SELECT),
    ("EXECUTE p", NOT_SELECT),
    # several statements
    ("SELECT 1; SELECT 2", "2 statements: query runs one statement per call"),
    ("SELECT 1; COPY (SELECT 1) TO '{dir}/x.csv'", "2 statements"),
    ("SELECT 1;; DROP TABLE games", "2 statements"),
    ("SELECT 1; SELECT 2; SELECT 3", "3 statements"),
    # the environment
    ("SELECT getenv('HOME')", "getenv(): it reads the environment"),
    ("SELECT list_transform([1], x -> getenv('PATH'))", "getenv()"),
    # the settings name the server's directories (issue 27)
    ("SELECT current_setting('secret_directory')", "current_setting(): it shows DuckDB's"),
    ("SELECT current_setting('allowed_paths')", "current_setting(): it shows DuckDB's"),
    ("SELECT upper(current_setting('temp_directory'))", "current_setting()"),
    # and so does the archive's absolute path in the catalog (issue 35)
    ("SELECT path FROM duckdb_databases()", "duckdb_databases(): it shows DuckDB's settings"),
    ("SELECT path FROM duckdb_databases", "duckdb_databases: it shows DuckDB's settings"),
    ("SELECT file FROM pragma_database_list", "pragma_database_list: it shows DuckDB's"),
    ("SELECT getvariable('x')", "getvariable(): it reads DuckDB's variables"),
    ("SELECT write_log('x')", "write_log(): it writes"),
    # SQL given as text
    ("SELECT * FROM query('SELECT 1')", AS_TEXT),
    ("SELECT * FROM query('COPY (SELECT 1) TO ''{dir}/x.csv''')", AS_TEXT),
    ("SELECT * FROM query_table('games')", AS_TEXT),
    ("SELECT * FROM query_table(['games', 'events'])", AS_TEXT),
    ("SELECT * FROM histogram('games', game_no)", AS_TEXT),
    ("SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))", AS_TEXT),
    # nothing at all
    ("", "no SQL statement"),
    (";", "no SQL statement"),
    ("/* only a comment */", "no SQL statement"),
]


def test_the_list_of_escapes_is_broad() -> None:
    assert len(ESCAPES) >= 40
    assert len({sql for sql, _ in ESCAPES}) == len(ESCAPES)


@pytest.mark.parametrize(("sql", "why"), ESCAPES, ids=[sql[:60] for sql, _ in ESCAPES])
def test_every_escape_is_refused_and_changes_nothing(place: Path, sql: str, why: str) -> None:
    before = snapshot(place)
    result = run("query", sql.format(dir=place), "--db", str(place / "games.duckdb"))
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("yaniv-audit: query refused: "), lines
    assert why in lines[0]
    assert "Traceback" not in result.output
    assert snapshot(place) == before


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("SELECT content FROM read_blob('{dir}/games.duckdb')", "read_blob() reads files"),
        ("SELECT 1; SELECT 2", "2 statements"),
        ("CREATE TEMP TABLE t AS SELECT 1", "query creates nothing"),
    ],
)
def test_the_statements_own_process_screens_it_too(place: Path, sql: str, why: str) -> None:
    """The command screens a statement before it starts the statement's process (a refusal
    costs no process); that process screens it again before it runs (what only the screen
    stops, the locked connection would let by)."""
    before = snapshot(place)
    with pytest.raises(QueryRefused, match=re.escape(why)):
        run_isolated(str(place / "games.duckdb"), sql.format(dir=place), 5, "512MB")
    assert snapshot(place) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_text('/etc/passwd')",
        "SELECT * FROM '/etc/passwd'",
        "COPY (SELECT 1) TO '{dir}/x.csv'",
        "EXPORT DATABASE '{dir}/export'",
        "ATTACH '{dir}/other.duckdb' AS other (READ_WRITE)",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "RESET lock_configuration",
        "PRAGMA enable_profiling",
        "SELECT getenv('HOME')",
        "DELETE FROM games",
        "CREATE TABLE t (x INTEGER)",
    ],
)
def test_the_connection_refuses_them_without_the_screen(place: Path, sql: str) -> None:
    """The second wall: the locked connection alone (screen bypassed) refuses these too."""
    before = snapshot(place)
    with Archive(place / "games.duckdb", locked=True) as archive:
        with pytest.raises(duckdb.Error):
            archive.con.execute(sql.format(dir=place)).fetchall()
        (external, locked) = archive.con.execute(
            "SELECT current_setting('enable_external_access'), "
            "current_setting('lock_configuration')"
        ).fetchall()[0]
    assert (external, locked) == (False, True)
    assert snapshot(place) == before


def test_the_locked_settings_are_the_documented_ones() -> None:
    assert LOCKED_CONFIG == {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "allow_community_extensions": False,
        "python_enable_replacements": False,
        "temp_directory": "",
        "lock_configuration": True,
    }
    assert list(LOCKED_CONFIG)[-1] == "lock_configuration"


def test_no_python_variable_is_read_as_a_table(place: Path) -> None:
    """DuckDB's Python package reads a relation or data frame named in the SQL from the
    calling frame; not on the locked connection."""
    with Archive(place / "games.duckdb", locked=True) as archive:
        hidden = archive.con.sql("SELECT 42 AS x")
        assert hidden.fetchall() == [(42,)]
        with pytest.raises(duckdb.CatalogException, match="hidden"):
            archive.con.execute("SELECT * FROM hidden").fetchall()


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT count(*) FROM range(1000000000) a, range(1000) b",
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
        "SELECT count(*) FROM events a, events b, events c, events d, events e",
    ],
)
def test_a_statement_that_runs_forever_is_stopped(place: Path, sql: str) -> None:
    """Stopped at the time limit, saying so (how soon: bench/query_stops.py)."""
    before = snapshot(place)
    result = run("query", sql, "--timeout", "1", "--db", str(place / "games.duckdb"))
    assert result.exit_code == 2
    assert result.stderr == (
        "yaniv-audit: query stopped: it ran past the time limit of "
        "1 second (--timeout SECONDS allows longer)\n"
    )
    assert snapshot(place) == before


def test_a_statement_that_needs_more_memory_than_the_limit_says_so(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YANIV_AUDIT_MEMORY_LIMIT", "64MB")
    result = run(
        "query",
        "SELECT count(*) FROM range(1000000000) a, range(1000000000) b",
        "--db",
        str(place / "games.duckdb"),
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "yaniv-audit: query stopped: it needs more memory than the "
        "archive's limit of 61.0 MiB (YANIV_AUDIT_MEMORY_LIMIT=2GB, say, "
        "allows more)\n"
    )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT len(list_sort(range(300000000)))",  # ran past --timeout 2 for 60 s, 8.7 GB
        "SELECT length(repeat('x', 4000000000))",  # 7.9 GB
        "SELECT len(list(i)) FROM range(400000000) t(i)",
    ],
)
def test_one_huge_value_is_stopped_within_the_memory_and_time_limits(place: Path, sql: str) -> None:
    """DuckDB's memory_limit bounds only its buffers and its interrupt is heard between
    chunks: the statement's own process is bounded by the system and killed at the limit,
    which the one line says (how soon: bench/query_stops.py)."""
    before = snapshot(place)
    result = run("query", sql, "--timeout", "2", "--db", str(place / "games.duckdb"))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("yaniv-audit: query stopped: "), result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert snapshot(place) == before


def test_sql_of_invalid_utf8_is_wrong_usage(place: Path) -> None:
    """It was exit 4, an internal error."""
    result = run("query", "SELECT '\udcff'", "--db", str(place / "games.duckdb"))
    assert result.exit_code == 2 and "not valid UTF-8" in result.output


def test_every_connection_loads_no_extension_on_demand(place: Path, tmp_path: Path) -> None:
    """A foreign file given as an archive made DuckDB try to download sqlite_scanner."""
    for kwargs in ({}, {"read_only": True}, {"locked": True}):
        with Archive(place / "games.duckdb", **kwargs) as archive:
            settings = dict(
                archive.con.execute(
                    "SELECT name, value FROM duckdb_settings() WHERE name IN "
                    "('autoinstall_known_extensions', 'autoload_known_extensions')"
                ).fetchall()
            )
            assert settings == {
                "autoinstall_known_extensions": "false",
                "autoload_known_extensions": "false",
            }, kwargs
    sqlite = tmp_path / "foreign.db"
    sqlite.write_bytes(b"SQLite format 3\x00" + bytes(4080))
    result = run("report", "players", "--db", str(sqlite))
    assert result.exit_code in (2, 3) and "Traceback" not in result.output
    assert "sqlite_scanner" not in result.output or "install" not in result.output.lower()


def test_a_tiny_time_limit_is_not_lost(place: Path) -> None:
    """A timer that fired before the statement began interrupted nothing, and the
    statement then ran with no limit."""
    for _ in range(3):
        result = run(
            "query",
            "SELECT count(*) FROM range(1000000000) a, range(1000) b",
            "--timeout",
            "1e-9",
            "--db",
            str(place / "games.duckdb"),
        )
        assert result.exit_code == 2 and "time limit of 1e-09 seconds" in result.stderr


def test_the_time_limit_is_an_error_of_its_own_and_the_connection_goes_on(place: Path) -> None:
    with Archive(place / "games.duckdb", locked=True) as archive:
        with pytest.raises(QueryTimeout, match=r"time limit of 0\.5 seconds"):
            archive.user_query("SELECT count(*) FROM range(1000000000) a, range(10) b", timeout=0.5)
        assert archive.user_query("SELECT count(*) FROM games", timeout=5)[1] == [(len(LOGS),)]
        with pytest.raises(QueryRefused, match="read_csv"):
            archive.user_query("FROM read_csv('/etc/passwd')")


@pytest.mark.parametrize("value", ["0", "-1", "soon", "inf", "nan", "1e400", "-inf"])
def test_a_bad_timeout_is_wrong_usage(place: Path, value: str) -> None:
    result = run("query", "SELECT 1", "--timeout", value, "--db", str(place / "games.duckdb"))
    assert result.exit_code == 2 and "--timeout" in result.output


def test_refusals_in_a_real_process_print_one_line_and_exit_2(place: Path) -> None:
    for sql, words in [
        ("SELECT * FROM read_csv('/etc/passwd')", "query refused: read_csv()"),
        (
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
            "SELECT count(*) FROM r",
            "query stopped: it ran past the time limit",
        ),
        ("SELEC 1", "query failed: Parser Error: syntax error"),
    ]:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "yaniv_audit.cli",
                "query",
                sql,
                "--timeout",
                "1",
                "--db",
                str(place / "games.duckdb"),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=ROOT,
            timeout=60,
        )
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
        assert words in done.stderr


# --- what still works ------------------------------------------------------------------

ORDINARY = [
    ("SELECT count(*) FROM games", [(len(LOGS),)]),
    ("select count(*) as n from games;", [(len(LOGS),)]),
    ("-- how many\nSELECT count(*) FROM games -- games", [(len(LOGS),)]),
    ("FROM games SELECT count(*)", [(len(LOGS),)]),
    ("SELECT count(DISTINCT game_no) FROM events", [(len(LOGS),)]),
    ("SELECT count(*) FROM audits a JOIN games g USING (game_no)", [(len(LOGS),)]),
    ("WITH t AS (SELECT game_no FROM games) SELECT count(*) FROM t", [(len(LOGS),)]),
    (
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 10) "
        "SELECT max(i) FROM r",
        [(10,)],
    ),
    ("SELECT sum(i) FROM range(5) t(i)", [(10,)]),
    ("SELECT sum(i) FROM generate_series(1, 4) t(i)", [(10,)]),
    ("SELECT count(*) FROM (SELECT unnest(players) FROM games WHERE game_no = 1)", [(3,)]),
    ("SELECT count(*) FROM information_schema.tables WHERE table_name = 'games'", [(1,)]),
    ("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'events'", [(1,)]),
    ("SELECT count(*) FROM pragma_table_info('rounds') WHERE name = 'caller_total'", [(1,)]),
    ("SELECT count(*) FROM (DESCRIBE games)", None),
    ("SELECT count(*) FROM (SUMMARIZE standings)", None),
    ("SELECT count(*) FROM (SHOW TABLES)", None),
    ("PIVOT (SELECT verdict FROM audits) ON verdict IN ('clean', 'corrupt') USING count(*)", None),
]


@pytest.mark.parametrize(("sql", "rows"), ORDINARY, ids=[sql[:50] for sql, _ in ORDINARY])
def test_ordinary_queries_still_work(
    place: Path,
    sql: str,
    rows: list[tuple[int]] | None,
) -> None:
    with Archive(place / "games.duckdb", locked=True) as archive:
        columns, got = archive.user_query(sql)
    assert columns
    if rows is not None:
        assert got == rows


def test_query_prints_tables_json_and_csv_as_before(place: Path) -> None:
    db = str(place / "games.duckdb")
    result = run(
        "query",
        "SELECT verdict, count(*) AS n FROM audits GROUP BY verdict ORDER BY verdict",
        "--csv",
        "--db",
        db,
    )
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == "verdict,n"
    result = run("query", "SELECT count(*) AS n FROM games", "--json", "--db", db)
    assert result.exit_code == 0 and result.stdout == f'{{"n":{len(LOGS)}}}\n'
    result = run("query", "SHOW TABLES", "--db", db)
    assert result.exit_code == 0 and "standings" in result.stdout


def test_the_reports_and_the_archives_writes_still_work(place: Path, tmp_path: Path) -> None:
    """Only the user's SQL gets the locked connection: ingest, audit --db, the reports,
    checkpoint and export still write what they write."""
    db = tmp_path / "games.duckdb"
    assert run("ingest", *LOGS[:4], "--db", str(db)).exit_code == 0
    assert run("query", "SELECT count(*) FROM games", "--db", str(db)).exit_code == 0
    assert run("ingest", *LOGS, "--db", str(db)).exit_code == 0  # writes after a query
    assert run("audit", "--db", str(db), "--exit-zero").exit_code == 0
    for args in (
        ("report", "leaderboard"),
        ("report", "assaf-risk"),
        ("report", "findings"),
        ("report", "rules-impact", "--rules", "classic"),
        ("odds", "5"),
        ("checkpoint",),
        ("verify",),
    ):
        result = run(*args, "--db", str(db))
        assert result.exit_code == 0, (args, result.output)
    assert run("export", str(tmp_path / "parquet"), "--db", str(db)).exit_code == 0
    result = run("query", "SELECT count(*) AS n FROM checkpoints", "--csv", "--db", str(db))
    assert result.stdout == "n\n1\n"


def test_an_archive_open_for_writing_in_this_process_is_said_so(
    place: Path, tmp_path: Path
) -> None:
    """DuckDB opens a file once per process: a locked connection next to a writing one
    is refused with a clear message, not a DuckDB error."""
    db = tmp_path / "games.duckdb"
    db.write_bytes((place / "games.duckdb").read_bytes())
    with Archive(db):
        result = run("query", "SELECT 1", "--db", str(db))
    assert result.exit_code == 3
    assert "the archive is open in this process already with other settings" in result.output
    assert run("query", "SELECT 1", "--db", str(db)).exit_code == 0  # closed: fine again


def test_user_sql_needs_a_locked_archive(place: Path, tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    db.write_bytes((place / "games.duckdb").read_bytes())
    with Archive(db, read_only=True) as archive, pytest.raises(ArchiveError, match="opened locked"):
        archive.user_query("SELECT 1")
    with pytest.raises(ArchiveError, match="no such archive"):
        Archive(tmp_path / "none.duckdb", locked=True)
    assert not (tmp_path / "none.duckdb").exists()


def test_the_web_app_reads_on_the_locked_connection(place: Path) -> None:
    from yaniv_audit.web import create_app

    app = create_app({"TESTING": True, "ARCHIVE": str(place / "games.duckdb"), "ARCHIVE_IDLE": 0})
    with app.extensions["yaniv_store"].reading() as reader:
        assert reader is not None and reader.archive.locked
        assert reader.archive.query("SELECT current_setting('lock_configuration')")[1] == [(True,)]
    client = app.test_client()
    before = snapshot(place)
    listing = client.get("/api/v1/games?player=dana').union(read_text('/etc/passwd')--").get_json()
    assert listing["games"] == [] and listing["total"] == 0  # a parameter, never SQL
    assert client.get("/api/v1/games").get_json()["total"] == len(LOGS)
    assert snapshot(place) == before


def test_json_rows_of_every_type_print_without_a_traceback(place: Path) -> None:
    sql = (
        "SELECT 1.5::DECIMAL(4, 2) AS d, 'a\\x5Cb\\xAA'::BLOB AS b, INTERVAL 3 DAY AS i, "
        "'00000000-0000-0000-0000-000000000001'::UUID AS u, "
        "170141183460469231731687303715884105727::HUGEINT AS h, MAP {1: 2} AS m, "
        "DATE '2024-05-17' AS day, NULL AS n"
    )
    result = run("query", sql, "--json", "--db", str(place / "games.duckdb"))
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        '{"d":1.5,"b":"a\\\\x5Cb\\\\xAA","i":"3 days, 0:00:00",'
        '"u":"00000000-0000-0000-0000-000000000001",'
        '"h":170141183460469231731687303715884105727,"m":{"1":2},"day":"2024-05-17",'
        '"n":null}\n'
    )
