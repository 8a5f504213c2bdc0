"""The DuckDB archive: ingest, audit --db, verify, query, report and odds, as a
user runs them, with every figure checked against the audit of the files."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner, Result
from conftest import held_open_by_another_process

from yaniv_audit.archive import DERIVED, VIEWS, Archive, analytics, base
from yaniv_audit.archive.export import EXPORTED
from yaniv_audit.batch import bulk
from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.cli import cli, log_files
from yaniv_audit.cli import reports as cli_reports
from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.errors import ArchiveError
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import parse_jsonl, read_log
from yaniv_audit.io.rules_files import resolve_rules

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
#: the hand-written disputes and two presets' simulated games: every verdict, many rounds
CORPUS = [
    *sorted(map(str, REPLAYS.glob("*.jsonl"))),
    *log_files((str(REPLAYS / "simulated" / "classic"), str(REPLAYS / "simulated" / "namu"))),
]

# one worker runs the whole file, so that its module fixtures are made once
# (pyproject: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("archive")


def test_the_file_runs_on_one_worker(request: pytest.FixtureRequest) -> None:
    """The group above is honoured: pytest-xdist tags each test of the group, and its
    scheduler keeps tagged tests on one worker (a pytest too new for the pytest-xdist
    installed silently drops the tag: pyproject pins pytest below it)."""
    if getattr(request.config.option, "loadgroup", False):  # on a worker of --dist loadgroup
        assert request.node.nodeid.endswith("@archive")


def run(*args: str, db: Path | None = None) -> Result:
    """One command through click; never a traceback."""
    argv = [*args, "--db", str(db)] if db is not None else list(args)
    result = CliRunner().invoke(cli, argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return result


@pytest.fixture(scope="module")
def file_reports() -> dict[str, dict[str, Any]]:
    """The audit of every corpus file, by fingerprint: what the archive must agree with."""
    reports = {}
    for path in CORPUS:
        report = audit_file(path)
        report.pop("file")
        reports[report["fingerprint"]] = report
    return reports


def archived(where: Path, logs: list[str]) -> Path:
    """``logs`` ingested and audited under the declared rules, through the CLI, in an
    archive in ``where``."""
    db = where / "games.duckdb"
    result = run("ingest", *logs, db=db)
    assert result.exit_code == 0, result.output
    result = run("audit", "--db", str(db), "--exit-zero")
    assert result.exit_code == 0, result.output
    return db


@pytest.fixture(scope="module")
def archive_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus, archived and audited (:func:`archived`)."""
    return archived(tmp_path_factory.mktemp("archive"), CORPUS)


#: the disputes and each of two presets' first two simulated games: people's games and
#: bots' games (ana, ben, carmel), for what tells them apart
MIXED = [
    *sorted(map(str, REPLAYS.glob("*.jsonl"))),
    *log_files((str(REPLAYS / "simulated" / "classic"),))[:2],
    *log_files((str(REPLAYS / "simulated" / "namu"),))[:2],
]


@pytest.fixture(scope="module")
def mixed_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """MIXED, archived and audited (:func:`archived`)."""
    return archived(tmp_path_factory.mktemp("mixed"), MIXED)


@pytest.fixture
def archive(archive_path: Path, tmp_path: Path) -> Archive:
    """A private copy of the archive, open (tests may change it)."""
    copy = tmp_path / "copy.duckdb"
    shutil.copy(archive_path, copy)
    with Archive(copy) as opened:
        yield opened  # type: ignore[misc]


# --- ingest ---------------------------------------------------------------------


def test_ingest_stores_every_game_once_with_its_events(archive: Archive) -> None:
    (games,) = archive.query("SELECT count(*) FROM games")[1][0]
    (events,) = archive.query("SELECT count(*) FROM events")[1][0]
    assert games == len(CORPUS)
    assert events == sum(len(read_log(p).events) for p in CORPUS)
    row = archive.query(
        "SELECT game_id, players, rules_id, rules_key, events FROM games "
        "WHERE source LIKE '%double-assaf.jsonl'"
    )[1]
    log = read_log(REPLAYS / "double-assaf.jsonl")
    assert row == [
        (
            log.game.game_id or tree_hash(log.leaves).hex(),
            list(log.players),
            "de-wiki",
            log.game.rules.key,
            len(log.events),
        )
    ]


def test_stored_log_rebuilds_the_same_fingerprint_and_report(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    for path in CORPUS[:12]:
        log = read_log(path)
        fingerprint = tree_hash(log.leaves).hex()
        stored = parse_jsonl(archive.log_bytes(fingerprint), "stored")
        assert stored.leaves == log.leaves
        assert audit_log(stored) == file_reports[fingerprint]


def test_ingest_again_adds_nothing_and_says_so(archive_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "again.duckdb"
    shutil.copy(archive_path, db)
    result = run(
        "ingest", str(REPLAYS / "middle-card.jsonl"), str(REPLAYS / "two-decks.jsonl"), db=db
    )
    assert result.exit_code == 0
    assert (
        f"ingested 0 games (0 events) into {db}; 2 already there, 0 refused; "
        f"the archive holds {len(CORPUS)} games" in result.output
    )


def test_ingest_refuses_an_unreadable_log_and_keeps_the_others(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(REPLAYS / "middle-card.jsonl", logs / "a.jsonl")
    lines = (REPLAYS / "two-decks.jsonl").read_text().splitlines()
    lines[3] = lines[3].replace('"type":', '"typo":', 1)
    (logs / "b.jsonl").write_text("\n".join(lines) + "\n")
    shutil.copy(REPLAYS / "slap-down.jsonl", logs / "c.jsonl")
    db = tmp_path / "new.duckdb"
    result = run("ingest", str(logs), db=db)
    assert result.exit_code == 1  # a log refused in a batch
    assert f"{logs / 'b.jsonl'}: refused, unreadable: line 4:" in result.output
    assert "ingested 2 games" in result.output and "1 refused" in result.output
    with Archive(db) as archive:
        assert archive.count_games() == 2


def test_same_log_twice_in_one_ingest_is_stored_once(tmp_path: Path) -> None:
    db = tmp_path / "twice.duckdb"
    copy = tmp_path / "copy.jsonl"
    shutil.copy(REPLAYS / "middle-card.jsonl", copy)
    result = run("ingest", str(REPLAYS / "middle-card.jsonl"), str(copy), db=db)
    assert result.exit_code == 0
    assert "ingested 1 game " in result.output and "1 already there" in result.output


def test_a_handful_of_logs_is_ingested_without_a_worker_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As audit does for files: a few small logs are read in the command's process (a
    pool costs more than it saves); more work than a pool costs goes to one."""

    def no_pool(processes: int) -> Any:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    logs = [str(REPLAYS / n) for n in ("middle-card.jsonl", "wrong-score.jsonl", "two-decks.jsonl")]
    result = run("ingest", *logs, db=tmp_path / "few.duckdb")
    assert result.exit_code == 0, result.output
    assert "ingested 3 games" in result.output
    started: list[int] = []

    def stopped_pool(processes: int) -> Any:
        started.append(processes)
        raise RuntimeError("stop here")

    monkeypatch.setattr(bulk, "worker_pool", stopped_pool)
    monkeypatch.setattr(bulk, "POOL_MIN_BYTES", 1000)
    with Archive(tmp_path / "more.duckdb") as archive, pytest.raises(RuntimeError):
        archive.ingest(logs)
    assert started


# --- audit --db -------------------------------------------------------------------


def test_a_few_games_are_audited_and_verified_without_a_worker_pool(
    mixed_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """audit --db, verify and verify --audits of a few games (under 4 MiB of logs) work
    in the command's process; more work than a pool costs goes to one."""
    db = tmp_path / "few.duckdb"
    shutil.copy(mixed_path, db)

    def no_pool(processes: int) -> Any:
        raise AssertionError("a worker pool was started")

    monkeypatch.setattr(bulk, "worker_pool", no_pool)
    result = run("audit", "--db", str(db), "--again", "--exit-zero", "--rules", "classic")
    assert result.exit_code == 0, result.output
    assert f"{len(MIXED)} games:" in result.output
    result = run("verify", "--audits", db=db)
    assert result.exit_code == 0, result.output
    assert " verified, 0 altered;" in result.output and "re-checked, 0 differ" in result.output
    started: list[int] = []

    def stopped_pool(processes: int) -> Any:
        started.append(processes)
        raise RuntimeError("stop here")

    monkeypatch.setattr(bulk, "worker_pool", stopped_pool)
    monkeypatch.setattr(base, "POOL_MIN_EVENTS", 100)
    with Archive(db) as archive:
        with pytest.raises(RuntimeError):
            archive.verify()
        with pytest.raises(RuntimeError):
            archive.verify_audits()
        with pytest.raises(RuntimeError):
            list(archive.audit(None, again=True))
    assert len(started) == 3


def test_archive_audit_agrees_with_the_file_audit(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    rows = archive.query(
        "SELECT g.fingerprint, a.verdict, a.winners, a.findings, a.report "
        "FROM audits a JOIN games g USING (game_no) "
        "WHERE a.rules_key = g.rules_key"
    )[1]
    assert len(rows) == len(CORPUS)
    for fingerprint, verdict, winners, findings, report in rows:
        expected = file_reports[fingerprint]
        assert json.loads(report) == expected
        assert verdict == expected["verdict"]
        assert winners == expected["final"]["winners"]
        assert findings == len(expected["findings"])
    verdicts = Counter(r["verdict"] for r in file_reports.values())
    assert set(verdicts) == {"clean", "claims", "violations", "corrupt"}


def test_archive_audit_only_audits_what_is_new(archive: Archive) -> None:
    assert archive.games_to_audit(None) == []
    assert list(archive.audit()) == []
    again = list(archive.audit(again=True))
    assert len(again) == len(CORPUS)
    (audits,) = archive.query("SELECT count(*) FROM audits")[1][0]
    assert audits == len(CORPUS)  # replaced, not added


def test_audit_writes_a_batch_of_games_at_a_time_whatever_their_rounds(
    archive: Archive, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games that end at their first deal (corrupt under rules without jokers) have one
    round each: the rows are still written every few games, not held to the end, and
    are the same rows; each game says whether simulate wrote it."""
    import yaniv_audit.archive.auditing as archive_module

    namu = resolve_rules("namu")
    todo = archive.games_to_audit(namu)
    written: list[int] = []
    write = Archive._write_derived

    def counted(self: Archive, rows: dict[str, list[Any]]) -> None:
        written.append(len(rows["audits"]))
        write(self, rows)

    monkeypatch.setattr(archive_module, "DERIVED_GAMES", 3)
    monkeypatch.setattr(Archive, "_write_derived", counted)
    games = list(archive.audit_games({namu: todo}, jobs=1))
    assert [game.game_no for game in games] == todo
    assert sum(written) == len(todo) and max(written) == 3
    stored = [
        row
        for row in archive.query(
            "SELECT game_no, verdict FROM audits WHERE rules_key = ? ORDER BY game_no", [namu.key]
        )[1]
        if row[0] in todo
    ]  # the namu games were audited before
    assert stored == [(game.game_no, game.reports[0]["verdict"]) for game in games]
    sources = dict(archive.query("SELECT game_no, source FROM games")[1])
    assert {game.game_no for game in games if game.simulated} == {
        n for n in todo if "/simulated/" in sources[n]
    }


def test_audit_again_under_named_rules(archive_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "again.duckdb"
    shutil.copy(archive_path, db)
    result = run("audit", "--db", str(db), "--again", "--rules", "classic", "--exit-zero")
    assert result.exit_code == 0, result.output
    assert f"{len(CORPUS)} games:" in result.output


def test_rule_sets_are_keyed_by_their_parameters(archive: Archive) -> None:
    classic, same = resolve_rules("classic"), resolve_rules("israeli(yaniv_max=5)")
    reports = list(archive.audit(classic))
    assert reports, "the israeli games are new under classic"
    assert archive.games_to_audit(same) == []  # the same parameters: already audited
    keys = {k for (k,) in archive.query("SELECT DISTINCT rules_key FROM audits")[1]}
    assert "israeli(yaniv_max=5)" in keys and "classic" not in keys


def test_cli_audit_db_prints_rulings_and_exits_by_the_worst(
    archive_path: Path, tmp_path: Path
) -> None:
    db = tmp_path / "cli.duckdb"
    shutil.copy(archive_path, db)
    result = run("audit", "--db", str(db), "--again")
    assert result.exit_code == 3  # one corrupt game
    assert f"{len(CORPUS)} games: " in result.output
    assert (
        f"{REPLAYS / 'yaniv-over-limit.jsonl'}: RULES BROKEN under classic (1 × rule broken; "
        "first: yaniv.threshold"
    ) in result.output  # named by the file it came from
    result = run("audit", "--db", str(db))
    assert result.exit_code == 0
    assert "audited under its declared rules by this version already" in result.output
    result = run("audit", "--db", str(db), "--rules", "namu", "--json", "--exit-zero")
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    namu = resolve_rules("namu").key
    new = [p for p in CORPUS if read_log(p).game.rules.key != namu]  # the rest: done already
    assert len(lines) == len(new) and all(r["rules"]["id"] == "namu" for r in lines)


def test_audit_db_under_several_rule_sets_in_one_pass(
    archive_path: Path, tmp_path: Path, file_reports: dict[str, Any]
) -> None:
    """Each game read once, audited under each rule set; the same reports as file audits."""
    db = tmp_path / "multi.duckdb"
    shutil.copy(archive_path, db)
    result = run(
        "audit",
        "--db",
        str(db),
        "--rules",
        "namu",
        "--rules",
        "de-wiki",
        "--json",
        "--exit-zero",
        "--jobs",
        "2",
    )
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    todo = {
        rid: [p for p in CORPUS if read_log(p).game.rules.key != resolve_rules(rid).key]
        for rid in ("namu", "de-wiki")
    }
    assert Counter(r["rules"]["id"] for r in lines) == {k: len(v) for k, v in todo.items()}
    by_file = {(r["file"], r["rules"]["id"]): r for r in lines}
    for rid, paths in todo.items():
        for path in paths[::7]:
            expected = audit_file(path, resolve_rules(rid))
            assert by_file[(path, rid)] == expected
    with Archive(db) as opened:
        stored = opened.query("SELECT rules_id, count(*) FROM audits GROUP BY 1")[1]
    counts = dict(stored)
    assert counts["namu"] == len(CORPUS) and counts["de-wiki"] == len(CORPUS)
    again = run("audit", "--db", str(db), "--rules", "namu", "--rules", "de-wiki")
    assert again.exit_code == 0 and "audited under namu, de-wiki" in again.output
    # the summary counts each game once and each of its audits under its rule sets, the
    # same with --json (on stderr), and its hint repeats the archive and the rules
    both = ("--rules", "namu", "--rules", "de-wiki", "--again", "--exit-zero")
    summary = run("audit", "--db", str(db), *both)
    first = summary.stdout.splitlines()[0]
    head, verdicts = first.split(": ", 1)
    assert head == (
        f"{len(CORPUS)} games, {2 * len(CORPUS)} audits under 2 rule sets (namu, de-wiki)"
    )
    assert sum(int(part.split()[0]) for part in verdicts.split(", ")) == 2 * len(CORPUS)
    not_clean = sum(int(part.split()[0]) for part in verdicts.split(", ")[1:])
    assert f"Not clean ({not_clean} audits):" in summary.stdout
    assert (
        f"every ruling line: yaniv-audit audit --db {db} --rules namu --rules de-wiki --again --all"
    ) in summary.stderr
    as_json = run("audit", "--db", str(db), *both, "--json")
    assert as_json.stderr.splitlines()[-1] == first
    # a rule set with nothing left to do is said, and the others' summary is of them alone
    third = run(
        "audit",
        "--db",
        str(db),
        "--rules",
        "namu",
        "--rules",
        "de-wiki",
        "--rules",
        "mcleod",
        "--exit-zero",
    )
    assert "audited under namu, de-wiki by this version already" in third.stderr
    mcleod = resolve_rules("mcleod").key
    wanted = sum(read_log(p).game.rules.key != mcleod for p in CORPUS)
    assert third.stdout.startswith(f"{wanted} games: ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("audit", "--db", "x.duckdb", "replays"), "give either LOG... or --db, not both"),
        (
            ("audit", "replays", "--rules", "namu", "--rules", "classic"),
            "several --rules go with --db",
        ),
        (("audit", "--db", "x.duckdb", "--strict"), "--strict reports stop at the first finding"),
        (("audit", "replays", "--again"), "--again goes with --db"),
        (("audit",), "give a log file or directory (LOG...), or --db"),
        (("report", "rules-impact", "--db", "x.duckdb"), "rules-impact needs --rules R"),
    ],
)
def test_wrong_usage_says_why(args: tuple[str, ...], message: str) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert message in result.output


# --- verify -----------------------------------------------------------------------


def test_verify_passes_an_untouched_archive(archive_path: Path) -> None:
    result = run("verify", db=archive_path)
    assert result.exit_code == 0
    assert f"{len(CORPUS)} games, {len(CORPUS)} verified, 0 altered" in result.output


def test_verify_finds_an_altered_event(archive: Archive) -> None:
    fingerprint = tree_hash(read_log(REPLAYS / "middle-card.jsonl").leaves).hex()
    archive.con.execute(
        "UPDATE events SET event = replace(event, 'Dizengoff', 'Rothschild') "
        "WHERE game_no = (SELECT game_no FROM games WHERE fingerprint = ?) AND seq = 0",
        [fingerprint],
    )
    games, mismatches = archive.verify()
    assert games == len(CORPUS)
    assert [m.fingerprint for m in mismatches] == [fingerprint]
    assert mismatches[0].problem.startswith("its stored events give fingerprint ")


def test_verify_finds_a_lost_event(archive: Archive) -> None:
    fingerprint = tree_hash(read_log(REPLAYS / "two-decks.jsonl").leaves).hex()
    archive.con.execute(
        "DELETE FROM events WHERE seq = 5 AND game_no = "
        "(SELECT game_no FROM games WHERE fingerprint = ?)",
        [fingerprint],
    )
    _, mismatches = archive.verify()
    assert len(mismatches) == 1
    assert "no longer read" in mismatches[0].problem and "seq" in mismatches[0].problem


# --- reports, checked against the file audits ---------------------------------------


def chosen(file_reports: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in file_reports.values() if r["verdict"] != "corrupt"]


def test_assaf_risk_counts_every_yaniv_call(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    calls: Counter[int] = Counter()
    assafed: Counter[int] = Counter()
    for report in chosen(file_reports):
        for r in report["rounds"]:
            if r["end"] == "yaniv" and r["caller"] is not None:
                total = r["totals"][r["caller"]]
                calls[total] += 1
                assafed[total] += bool(r["assaf"])
    table = analytics.report(archive, "assaf-risk", simulated=True)
    assert table.columns == ["called_total", "calls", "assafed", "risk_pct"]
    assert [(t, c, a) for t, c, a, _ in table.rows] == [
        (t, calls[t], assafed[t]) for t in sorted(calls)
    ]
    for _, c, a, pct in table.rows:
        assert pct == round(100 * a / c, 1)
    assert sum(calls.values()) > 100


def test_leaderboard_counts_wins_of_finished_games(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    """With --simulated every game counts; "games" are the games played, as in the
    summary of audit --db, and "finished" those played to the end."""
    wins: Counter[str] = Counter()
    games: Counter[str] = Counter()
    finished: Counter[str] = Counter()
    yanivs: Counter[str] = Counter()
    for report in chosen(file_reports):
        final = report["final"]
        for player in final["scores"]:
            games[player] += 1
            finished[player] += final["finished"]
            wins[player] += player in final["winners"]
        for r in report["rounds"]:
            if r["end"] == "yaniv" and r["caller"]:
                yanivs[r["caller"]] += 1
    table = analytics.report(archive, "leaderboard", simulated=True)
    assert table.columns[:4] == ["player", "games", "finished", "wins"]
    got = {row[0]: row for row in table.rows}
    assert set(got) == set(games)
    for player, row in got.items():
        assert row[1:4] == (games[player], finished[player], wins[player])
        assert row[6] == yanivs[player]
    assert [row[3] for row in table.rows] == sorted((row[3] for row in table.rows), reverse=True)
    assert table.bots_left_out == 0 and "left out" not in table.summary


def test_the_leaderboard_leaves_simulated_games_out_unless_asked(archive_path: Path) -> None:
    """A club's leaderboard is about its people: the bots' games (yaniv-audit simulate)
    are left out, and the summary says how many; --simulated counts them."""
    bots = len(CORPUS) - len(list(REPLAYS.glob("*.jsonl")))
    table = run("report", "leaderboard", db=archive_path).output.splitlines()
    assert table[0].endswith(f"(the {bots} simulated games left out); --simulated counts them")
    people = {line.split()[0] for line in table[3:]}
    assert "ana" not in people and "carmel" not in people  # the bots' names
    assert {"dana", "omer", "yossi"} <= people
    every = run("report", "leaderboard", "--simulated", db=archive_path).output.splitlines()
    assert "left out" not in every[0] and "ana" in {line.split()[0] for line in every[3:]}


@pytest.mark.parametrize("name", [n for n in analytics.REPORTS if n != "rules-impact"])
def test_every_report_counts_the_games_people_played_unless_asked(
    mixed_path: Path, name: str
) -> None:
    """Bots and people counted one way: every report reads the games people played,
    says how many simulated games it left out, and --simulated counts them (a bot named
    ben and a person named ben are not one row). On the disputes and four simulated
    games: house-rules --simulated fits each game's rules (3.9 s on the 60 of CORPUS)."""
    bots = len(MIXED) - len(list(REPLAYS.glob("*.jsonl")))
    people = run("report", name, db=mixed_path)
    assert people.exit_code == 0, people.output
    assert f"(the {bots} simulated games left out); --simulated counts them" in people.output
    every = run("report", name, "--simulated", db=mixed_path)
    assert every.exit_code == 0, every.output
    assert "left out" not in every.output.splitlines()[0]
    data = json.loads(run("report", name, "--json", db=mixed_path).output)
    if name in ("players", "leaderboard"):
        assert not {"ana", "carmel"} & {row["player"] for row in data["rows"]}  # bots only
    if name == "seat-advantage":
        assert min(row["seat"] for row in data["rows"]) == 1  # numbered as at a table


def test_odds_count_the_games_people_played_unless_asked(archive_path: Path) -> None:
    people = json.loads(run("odds", "assaf", "5", "--json", db=archive_path).output)
    every = json.loads(run("odds", "assaf", "5", "--json", "--simulated", db=archive_path).output)
    assert people["calls"] < every["calls"]


def test_findings_report_matches_the_findings(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    codes = Counter((f["code"], f["kind"]) for r in chosen(file_reports) for f in r["findings"])
    table = analytics.report(archive, "findings", simulated=True)
    assert {(code, kind): n for code, kind, n, _ in table.rows} == dict(codes)


def test_rules_impact_matches_compare(archive: Archive) -> None:
    namu = resolve_rules("namu")
    list(archive.audit(namu))
    table = analytics.report(archive, "rules-impact", namu, simulated=True)
    by_game = {row[0]: row for row in table.rows}
    for path in sorted(REPLAYS.glob("*.jsonl")):
        log = read_log(path)
        declared, other = audit_log(log), audit_log(log, namu)
        if declared["verdict"] == "corrupt":
            continue
        changed = (
            declared["final"]["winners"] != other["final"]["winners"]
            or declared["verdict"] != other["verdict"]
        )
        assert (declared["game_id"] in by_game) == changed, path.name
        if changed:
            row = by_game[declared["game_id"]]
            assert row[3] == declared["final"]["winners"] and row[5] == other["final"]["winners"]
    assert table.summary.startswith(f"under namu, of {len(CORPUS) - 1} games: ")


def test_odds_match_the_assaf_risk_row(archive: Archive) -> None:
    table = analytics.report(archive, "assaf-risk", simulated=True)
    total, calls, assafed, _ = table.rows[-1]
    result = analytics.odds(archive, total, simulated=True)
    assert (result.calls, result.assafed) == (calls, assafed)
    low, high = result.interval or (0, 0)
    assert low <= assafed / calls <= high
    assert (
        analytics.odds(archive, 99, simulated=True).text()
        == "no Yaniv was called at 99 in this archive"
    )


def test_wilson_interval_of_no_assaf_in_42_calls() -> None:
    result = analytics.Odds(total=0, players=None, calls=42, assafed=0)
    low, high = result.interval or (1, 1)
    assert low == 0.0
    assert math.isclose(high, 0.0838, abs_tol=5e-4)  # 1.96^2 / (42 + 1.96^2)


def test_cli_reports_print_tables_and_json(archive_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.duckdb"
    shutil.copy(archive_path, db)
    result = run("report", "assaf-risk", db=db)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "Yaniv calls" in lines[0] and lines[1].split() == [
        "called_total",
        "calls",
        "assafed",
        "risk_pct",
    ]
    data = json.loads(run("report", "leaderboard", "--json", db=db).output)
    assert data["report"] == "leaderboard" and data["rows"][0]["wins"] >= data["rows"][1]["wins"]
    result = run("report", "rules-impact", "--rules", "classic", db=db)
    assert result.exit_code == 0
    assert "auditing" in result.output and "under classic, of " in result.output


def test_rules_impact_lists_the_first_games_and_says_how_many_more(
    archive_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "r.duckdb"
    shutil.copy(archive_path, db)
    every = list(
        csv.reader(
            io.StringIO(
                run("report", "rules-impact", "--rules", "classic", "--format", "csv", db=db).stdout
            )
        )
    )
    changed = every[1:]
    assert len(changed) >= 3
    monkeypatch.setattr(cli_reports, "IMPACT_SHOWN", 2)  # a table shows the first 2
    lines = run("report", "rules-impact", "--rules", "classic", db=db).stdout.splitlines()
    assert lines[0].startswith("under classic, of ")
    assert [line.split()[0] for line in lines[3:5]] == [changed[0][0], changed[1][0]]
    more = len(changed) - 2
    assert lines[5:] == [
        f"... and {more:,} more game{'s' if more > 1 else ''}: --all lists "
        "every one (so do --format csv and json)"
    ]
    lines = run("report", "rules-impact", "--rules", "classic", "--all", db=db).stdout
    assert len(lines.splitlines()) == 3 + len(changed) and "more games" not in lines
    # two rule sets: the first 2 of each
    two = run("report", "rules-impact", "--rules", "classic", "--rules", "namu", db=db)
    table = two.stdout.splitlines()
    assert [line.split()[0] for line in table[3:7]] == ["classic"] * 2 + ["namu"] * 2
    refused = run("report", "rounds", "--all", db=db)
    assert refused.exit_code == 2 and "--all is for rules-impact" in refused.output
    result = run("odds", "assaf", "5", "--players", "3", db=db)
    assert result.output.startswith("Yaniv at 5 with 3 players: Assafed ")
    # the spelling before odds became a group: the same command
    assert run("odds", "5", "--players", "3", db=db).output == result.output
    assert run("odds", "--players", "3", "5", db=db).output == result.output
    data = json.loads(run("odds", "assaf", "5", "--players", "3", "--json", db=db).output)
    assert data["total"] == 5 and data["players"] == 3


# --- query ------------------------------------------------------------------------


def test_query_prints_a_table_json_and_csv(archive_path: Path) -> None:
    sql = "SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC, type LIMIT 2"
    text = run("query", sql, db=archive_path).output.splitlines()
    assert text[0].split() == ["type", "n"] and text[2].split()[0] == "discard"
    rows = [json.loads(x) for x in run("query", sql, "--json", db=archive_path).output.split()]
    assert [r["type"] for r in rows] == ["discard", "draw"]
    csv = run("query", sql, "--csv", db=archive_path).output.splitlines()
    assert csv[0] == "type,n" and csv[1].startswith("discard,")


def test_query_is_read_only_and_says_what_is_wrong(archive_path: Path) -> None:
    result = run("query", "DELETE FROM games", db=archive_path)
    assert result.exit_code == 2
    assert "query refused: DELETE is not a SELECT" in result.output
    assert "read-only" in result.output
    result = run("query", "SELEC 1", db=archive_path)
    assert result.exit_code == 2 and "syntax error" in result.output
    with Archive(archive_path) as archive:
        assert archive.count_games() == len(CORPUS)


def test_query_without_sql_lists_the_tables(archive_path: Path) -> None:
    names = [line.split()[0] for line in run("query", db=archive_path).output.splitlines()]
    assert names[:3] == ["games", "latest_games", "events"]
    con = duckdb.connect(str(archive_path), read_only=True)
    every = {
        name
        for (name,) in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_name <> 'archive_info'"
        ).fetchall()
    }
    con.close()
    assert sorted(names) == sorted(every)  # each table and view, once


# --- archives that cannot be used ---------------------------------------------------


def test_no_such_archive(tmp_path: Path) -> None:
    result = run("query", "SELECT 1", db=tmp_path / "none.duckdb")
    assert result.exit_code == 3
    assert "no such archive (create one with yaniv-audit ingest)" in result.output
    assert not (tmp_path / "none.duckdb").exists()


def test_not_an_archive(tmp_path: Path) -> None:
    text = tmp_path / "notes.duckdb"
    text.write_text("just some notes\n")
    result = run("verify", db=text)
    assert result.exit_code == 3 and "not a DuckDB archive" in result.output
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE sales (x INTEGER)")
    con.close()
    result = run("ingest", str(REPLAYS / "middle-card.jsonl"), db=other)
    assert result.exit_code == 3
    assert "a DuckDB database, but not a yaniv-audit archive (it has tables sales)" in result.output
    result = run("query", "SELECT 1", db=tmp_path)
    assert result.exit_code == 3 and "is a directory" in result.output


def test_archive_in_use_by_another_process(archive_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "busy.duckdb"
    shutil.copy(archive_path, db)
    with held_open_by_another_process(db):
        result = run("ingest", str(REPLAYS / "middle-card.jsonl"), db=db)
    assert result.exit_code == 3
    assert f"{db}: the archive is in use by another process" in result.output


@pytest.mark.parametrize(
    ("command", "limit"), [("audit", "1MB"), ("audit", "4MB"), ("ingest", "1MB"), ("ingest", "4MB")]
)
def test_too_little_memory_says_so_and_what_to_do(
    mixed_path: Path, tmp_path: Path, command: str, limit: str
) -> None:
    """A memory limit DuckDB cannot work in (1MB: opening the archive; 4MB: in the
    middle of the audit, or of storing a batch of games) is said as such, never as a
    damaged file or an internal error; the archive is whole and the command completes
    with the default. (13 games audited, 20 ingested: 4MB is short for either.)"""
    db = tmp_path / "small.duckdb"
    if command == "audit":
        shutil.copy(mixed_path, db)
        args = ["audit", "--db", str(db), "--again", "--exit-zero"]
    else:
        args = ["ingest", *CORPUS[:20], "--db", str(db)]
    done = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "YANIV_AUDIT_MEMORY_LIMIT": limit},
        check=False,
    )
    assert done.returncode == 3, done.stderr
    assert f"DuckDB needed more memory than the {limit} it may use" in done.stderr
    assert "set YANIV_AUDIT_MEMORY_LIMIT higher (by default it is 512MB)" in done.stderr
    assert "damaged" not in done.stderr and "internal error" not in done.stderr
    if command == "audit":
        assert run("verify", db=db).exit_code == 0, "the archive is whole"
    again = run(*args)
    assert again.exit_code == 0, again.output
    assert run("verify", db=db).exit_code == 0
    if command == "audit":
        assert f"{len(MIXED)} games:" in again.output
    else:
        assert "ingested 20 games" in again.output


def test_archive_error_is_a_yaniv_audit_error(tmp_path: Path) -> None:
    with pytest.raises(ArchiveError, match="no such archive"):
        Archive(tmp_path / "missing.duckdb", read_only=True, create=False)


# --- export -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("by", "partition"),
    [("month", "year=2024/month=5"), ("rules", "rules=israeli%28yaniv_max%3D5%29")],
)
def test_export_writes_partitioned_parquet_that_reads_back(
    archive_path: Path, tmp_path: Path, by: str, partition: str
) -> None:
    out = tmp_path / "export"
    result = run("export", str(out), "--by", by, db=archive_path)
    assert result.exit_code == 0, result.output
    assert f"exported to {out}, partitioned by {by}" in result.output
    con = duckdb.connect()
    with Archive(archive_path, read_only=True) as archive:
        for table in (
            "games",
            "events",
            "audits",
            "findings",
            "rounds",
            "standings",
            "player_rounds",
        ):
            columns, rows = archive.query(f"SELECT * FROM {table}")
            got = con.execute(
                f"SELECT {', '.join(map(repr, columns)).replace(chr(39), chr(34))} FROM "
                f"read_parquet('{out / table}/**/*.parquet', hive_partitioning = true)"
            ).fetchall()
            assert sorted(map(repr, got)) == sorted(map(repr, rows)), table
    assert (out / "games" / partition).is_dir()


@pytest.mark.parametrize("by", ["month", "rules"])
def test_pandas_and_duckdb_read_every_exported_table(
    archive_path: Path, tmp_path: Path, by: str
) -> None:
    """What `export --help` promises: pandas (pyarrow) reads each table's folder as it
    is, with the hand-written logs' games (no date: under year=0/month=0) among the rest."""
    import pandas  # the test extra's dask[dataframe] brings it: 0.8 s, not at collection

    out = tmp_path / "export"
    result = run("export", str(out), "--by", by, db=archive_path)
    assert result.exit_code == 0, result.output
    con = duckdb.connect()
    with Archive(archive_path, read_only=True) as archive:
        for table in EXPORTED:
            (rows,) = archive.query(f"SELECT count(*) FROM {table}")[1][0]
            assert rows, f"the corpus leaves {table} empty: nothing read back"
            frame = pandas.read_parquet(out / table)
            assert len(frame) == rows, table
            (got,) = con.execute(
                f"SELECT count(*) FROM read_parquet('{out / table}/**/*.parquet', "
                "hive_partitioning = true)"
            ).fetchone() or (0,)
            assert got == rows, table
            if by == "month" and table == "games":
                undated = frame[frame["started_at"].isna()]
                assert len(undated), "the corpus has hand-written logs without a date"
                assert set(undated["year"]) == {0} and set(undated["month"]) == {0}
    assert not list(out.glob("**/*__HIVE_DEFAULT_PARTITION__*"))


def test_export_refuses_a_directory_with_files(archive_path: Path, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine\n")
    result = run("export", str(tmp_path), db=archive_path)
    assert result.exit_code == 2
    assert "exists and is not an empty directory" in result.output
    assert (tmp_path / "keep.txt").read_text() == "mine\n"


# --- a game paused and continued: versions --------------------------------------------


def versions_of_a_game(tmp_path: Path) -> dict[str, Path]:
    """The clean game cut after 30 and 50 events, the whole, and a version that
    changes event 40 (a rewrite of what was played)."""
    lines = (REPLAYS / "clean-assaf-reduction.jsonl").read_text().splitlines()
    assert '"cards": ["5D"]' in lines[40]
    out = {}
    for name, chosen in (
        ("v30", lines[:30]),
        ("v50", lines[:50]),
        ("whole", lines),
        ("v41", lines[:41]),
        ("rewritten", [*lines[:40], lines[40].replace("5D", "6D")]),
    ):
        out[name] = tmp_path / f"{name}.jsonl"
        out[name].write_text("\n".join(chosen) + "\n")
    return out


def test_games_sharing_a_game_id_are_told_apart_by_their_game_started(
    tmp_path: Path,
) -> None:
    """Other games with the same game_id (another start time: another game_started) are
    other games; a continued game is still linked to its own earlier version."""
    logs = versions_of_a_game(tmp_path)
    others = []
    for n in range(3):
        lines = logs["whole"].read_text().splitlines()
        lines[0] = lines[0].replace('"at": "2024-05-17T', f'"at": "2024-06-0{n + 1}T', 1)
        assert lines[0] != logs["whole"].read_text().splitlines()[0]
        others.append(tmp_path / f"other{n}.jsonl")
        others[-1].write_text("\n".join(lines) + "\n")
    db = tmp_path / "shared.duckdb"
    assert run("ingest", *map(str, others[:2]), str(logs["v30"]), db=db).exit_code == 0
    result = run("ingest", str(others[2]), str(logs["whole"]), db=db)
    assert result.exit_code == 0, result.output
    fp = {
        path.name: tree_hash(read_log(path).leaves).hex()
        for path in [*others, logs["v30"], logs["whole"]]
    }
    with Archive(db, read_only=True) as archive:
        rows = {
            r[0]: r[1:]
            for r in archive.query(
                "SELECT fingerprint, game_id, extends, part_of, rewrites FROM games"
            )[1]
        }
        latest = {r[0] for r in archive.query("SELECT fingerprint FROM latest_games")[1]}
    assert {game_id for game_id, *_ in rows.values()} == {"friday-at-dana-2024-05-17"}
    assert rows[fp["whole.jsonl"]][1:] == (fp["v30.jsonl"], None, None)
    assert all(rows[fp[p.name]][1:] == (None, None, None) for p in others)
    assert latest == {fp["whole.jsonl"], *(fp[p.name] for p in others)}


def test_a_continued_game_is_linked_to_the_version_it_extends(tmp_path: Path) -> None:
    logs = versions_of_a_game(tmp_path)
    db = tmp_path / "versions.duckdb"
    assert run("ingest", str(logs["v30"]), db=db).exit_code == 0
    result = run("ingest", str(logs["v50"]), str(logs["whole"]), db=db)
    assert result.exit_code == 0
    fp = {name: tree_hash(read_log(path).leaves).hex() for name, path in logs.items()}
    assert (
        f"{logs['v50']}: continues game friday-at-dana-2024-05-17 as archived "
        f"({fp['v30'][:16]}): its first 30 events unchanged"
    ) in result.output
    assert f"({fp['v50'][:16]}): its first 50 events unchanged" in result.output
    result = run("ingest", str(logs["v41"]), str(logs["rewritten"]), db=db)
    assert result.exit_code == 1  # a rewrite of what was played is found
    assert (
        f"{logs['v41']}: an earlier part of game friday-at-dana-2024-05-17, whose longer "
        f"version {fp['whole'][:16]} is archived"
    ) in result.output
    assert (
        f"{logs['rewritten']}: rewrites game friday-at-dana-2024-05-17, archived before "
        f"with other events ({fp['whole'][:16]}): they differ from event 40 on; kept as "
        "evidence, never counted in the reports"
    ) in result.output
    assert result.output.count("rewrites game") == 1  # said once, of the longest version
    with Archive(db) as archive:
        rows = {
            f: (e, p, r)
            for f, e, p, r in archive.query(
                "SELECT fingerprint, extends, part_of, rewrites FROM games"
            )[1]
        }
        assert rows == {
            fp["v30"]: (None, None, None),
            fp["v50"]: (fp["v30"], None, None),
            fp["whole"]: (fp["v50"], None, None),
            fp["v41"]: (fp["v30"], fp["whole"], None),
            fp["rewritten"]: (fp["v30"], None, fp["whole"]),
        }
        assert archive.verify() == (5, [])
        list(archive.audit())
        # the reports count the latest version of a game once, and never the rewrite
        assert archive.query("SELECT fingerprint FROM latest_games")[1] == [(fp["whole"],)]
        (games,) = archive.query("SELECT count(*) FROM latest_standings WHERE player = 'dana'")[1][
            0
        ]
        assert games == 1
        whole = audit_file(str(logs["whole"]))
        calls = sum(1 for r in whole["rounds"] if r["end"] == "yaniv")
        rewritten = audit_file(str(logs["rewritten"]))
        assert rewritten["verdict"] == "corrupt"  # 6D was never in omer's hand: left out
        table = analytics.report(archive, "assaf-risk", simulated=True)
        assert sum(row[1] for row in table.rows) == calls


def test_a_rewritten_game_counts_once_and_verify_shows_it(tmp_path: Path) -> None:
    """A log that rewrites an archived game (here the note after round 2, with the whole
    game kept) is stored as evidence, listed by verify, and counted in no report; an
    archive of schema 2, which did not keep rewrites, finds them again when migrated."""
    lines = (REPLAYS / "clean-assaf-reduction.jsonl").read_text().splitlines()
    assert lines[49].startswith('{"type": "note", "seq": 49')
    original, rewrite = tmp_path / "original.jsonl", tmp_path / "rewrite.jsonl"
    original.write_text("\n".join(lines) + "\n")
    rewrite.write_text(
        "\n".join([*lines[:49], lines[49].replace("Assaf!", "No Assaf"), *lines[50:]]) + "\n"
    )
    fp = {p: tree_hash(read_log(p).leaves).hex() for p in (original, rewrite)}
    db = tmp_path / "rewrite.duckdb"
    run("ingest", str(original), db=db)
    assert run("ingest", str(rewrite), db=db).exit_code == 1
    alone = tmp_path / "alone.duckdb"
    run("ingest", str(original), db=alone)
    for archive_file in (db, alone):
        assert run("audit", "--db", db=archive_file).exit_code == 0
    for name in analytics.REPORTS:
        assert (
            run("report", name, "--format", "json", db=db).output
            == run("report", name, "--format", "json", db=alone).output
        ), name
    said = (
        f"game friday-at-dana-2024-05-17 ({fp[rewrite][:16]}, from {rewrite}): rewrites "
        f"the archived game ({fp[original][:16]}, from {original}) from event 49 on; "
        "kept as evidence, never counted"
    )
    result = run("verify", db=db)
    assert result.exit_code == 0  # the archive itself is intact
    assert said in result.output and "; 1 rewritten game kept as evidence" in result.output
    old = tmp_path / "schema2.duckdb"
    old_archive(db, old, 2)
    result = run("verify", db=old)
    assert said in result.output
    with Archive(old) as archive:
        assert archive.query("SELECT fingerprint FROM latest_games")[1] == [(fp[original],)]


def test_verify_finds_a_broken_version_link(tmp_path: Path) -> None:
    logs = versions_of_a_game(tmp_path)
    db = tmp_path / "links.duckdb"
    run("ingest", str(logs["v30"]), str(logs["whole"]), str(logs["rewritten"]), db=db)
    with Archive(db) as archive:
        fp = {n: tree_hash(read_log(logs[n]).leaves).hex() for n in ("whole", "rewritten")}
        archive.con.execute(
            "UPDATE games SET extends = ? WHERE fingerprint = ?", [fp["rewritten"], fp["whole"]]
        )
        _, mismatches = archive.verify()
    assert [(m.fingerprint, m.problem) for m in mismatches] == [
        (
            fp["whole"],
            f"it does not continue the version {fp['rewritten']} it was stored as extending",
        )
    ]


def test_another_game_with_the_same_game_id_is_not_a_version(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    second = tmp_path / "b.jsonl"
    shutil.copy(REPLAYS / "simulated" / "classic" / "game-00000.jsonl", first)
    shutil.copy(REPLAYS / "simulated" / "namu" / "game-00000.jsonl", second)
    assert read_log(first).game.game_id == read_log(second).game.game_id
    result = run("ingest", str(first), str(second), db=tmp_path / "ids.duckdb")
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"ingested 2 games ({len(read_log(first).events) + len(read_log(second).events)} "
        f"events) into {tmp_path / 'ids.duckdb'}; 0 already there, 0 refused; the archive "
        "holds 2 games"
    ]


# --- checkpoints: the archive only grows ----------------------------------------------------


def test_a_checkpoint_holds_while_the_archive_only_grows(tmp_path: Path) -> None:
    db = tmp_path / "grow.duckdb"
    run("ingest", str(REPLAYS / "middle-card.jsonl"), str(REPLAYS / "two-decks.jsonl"), db=db)
    taken = run("checkpoint", "--json", db=db)
    assert taken.exit_code == 0
    point = json.loads(taken.output)
    fingerprints = [
        tree_hash(read_log(REPLAYS / n).leaves) for n in ("middle-card.jsonl", "two-decks.jsonl")
    ]
    assert point["games"] == 2 and point["root"] == tree_hash(fingerprints).hex()
    (tmp_path / "kept.json").write_text(taken.output)
    run("ingest", str(REPLAYS / "slap-down.jsonl"), db=db)
    result = run("verify", "--checkpoint", str(tmp_path / "kept.json"), db=db)
    assert result.exit_code == 0, result.output
    assert "3 games, 3 verified, 0 altered; 2 of 2 checkpoints hold" in result.output


def test_a_checkpoint_catches_a_removed_game(tmp_path: Path) -> None:
    db = tmp_path / "shrink.duckdb"
    run(
        "ingest",
        str(REPLAYS / "middle-card.jsonl"),
        str(REPLAYS / "two-decks.jsonl"),
        str(REPLAYS / "slap-down.jsonl"),
        db=db,
    )
    kept = tmp_path / "kept.json"
    kept.write_text(run("checkpoint", "--json", db=db).output)
    with Archive(db) as archive:  # someone deletes a game, and the checkpoints table too
        archive.con.execute("DELETE FROM events WHERE game_no = 2")
        archive.con.execute("DELETE FROM games WHERE game_no = 2")
        archive.con.execute("DELETE FROM checkpoints")
    result = run("verify", "--checkpoint", str(kept), db=db)
    assert result.exit_code == 1
    assert (
        "the checkpoint of " in result.output
        and "vouches for 3 games; the archive holds 2" in result.output
    )
    assert "0 of 1 checkpoints hold" in result.output


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("nonsense", "the checkpoint is not JSON"),
        ('{"games": 2}', "the checkpoint's root: expected 64 hex digits"),
        ('{"games": -1, "root": "' + "0" * 64 + '"}', "the checkpoint's games: expected a count"),
    ],
)
def test_a_malformed_checkpoint_is_exit_3(
    archive_path: Path, tmp_path: Path, text: str, words: str
) -> None:
    (tmp_path / "bad.json").write_text(text)
    result = run("verify", "--checkpoint", str(tmp_path / "bad.json"), db=archive_path)
    assert result.exit_code == 3 and words in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("report", "leaderboard"),
        ("odds", "5"),
        ("odds", "assaf", "5"),
        ("checkpoint",),
        ("audit", "--db"),
        ("verify",),
        ("query", "SELECT 1"),
        ("export", "out"),
    ],
)
def test_only_ingest_creates_an_archive(
    args: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("YANIV_AUDIT_DB", raising=False)
    result = run(*args)
    assert result.exit_code == 3
    assert (
        "yaniv-archive.duckdb: no such archive (create one with yaniv-audit ingest)"
        in result.output
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("size", [12_288, 600_000, 2_000_000])
@pytest.mark.parametrize("command", [("verify",), ("audit", "--again"), ("report", "leaderboard")])
def test_a_truncated_archive_is_one_clear_line(
    archive_path: Path, tmp_path: Path, size: int, command: tuple[str, ...]
) -> None:
    """A damaged file is bad input (exit 3) with one line saying so, never a traceback or
    an 'internal error', wherever DuckDB meets the missing bytes."""
    db = tmp_path / "cut.duckdb"
    db.write_bytes(archive_path.read_bytes()[:size])
    out = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", *command, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 3, out.stderr
    assert "the archive file is damaged and cannot be read" in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_readers_share_the_archive_and_a_writer_is_named(
    archive_path: Path, tmp_path: Path
) -> None:
    """Reports, verify and export only read: several run at once; a writer holding the
    file gets a message that says what to do."""
    db = tmp_path / "shared.duckdb"
    shutil.copy(archive_path, db)
    cli_command = [sys.executable, "-m", "yaniv_audit.cli"]
    with Archive(db, read_only=True):  # another reader holds it open
        for command in (["report", "leaderboard"], ["verify"], ["export", str(tmp_path / "x")]):
            out = subprocess.run(
                [*cli_command, *command, "--db", str(db)],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert out.returncode == 0, out.stderr
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; "
            f"c = duckdb.connect({str(db)!r}); print('open', flush=True); "
            "time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        out = subprocess.run(
            [*cli_command, "report", "leaderboard", "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 3
        assert "in use by another process that writes to it" in out.stderr
        assert "run the command again when that one has finished" in out.stderr
    finally:
        holder.kill()
        holder.wait()


def test_verify_audits_finds_an_altered_result(archive_path: Path, tmp_path: Path) -> None:
    """verify checks the stored events; --audits checks the stored results as well."""
    db = tmp_path / "results.duckdb"
    shutil.copy(archive_path, db)
    result = run("verify", "--audits", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert f"{len(CORPUS)} audits re-checked, 0 differ" in result.output
    with Archive(db) as archive:
        fp, game_id = archive.con.execute(
            "SELECT fingerprint, game_id FROM games WHERE source LIKE '%wrong-score%'"
        ).fetchone()
        archive.con.execute(
            "UPDATE audits SET winners = ['nobody'] WHERE game_no = "
            "(SELECT game_no FROM games WHERE fingerprint = ?)",
            [fp],
        )
        other = archive.con.execute(
            "SELECT g.fingerprint FROM rounds r JOIN games g USING (game_no) "
            "WHERE g.fingerprint <> ? AND caller_total IS NOT NULL LIMIT 1",
            [fp],
        ).fetchone()[0]
        archive.con.execute(
            "UPDATE rounds SET caller_total = caller_total + 1 WHERE game_no "
            "= (SELECT game_no FROM games WHERE fingerprint = ?)",
            [other],
        )
    assert run("verify", "--db", str(db)).exit_code == 0  # the events are intact
    result = run("verify", "--audits", "--db", str(db))
    assert result.exit_code == 1
    assert (
        f"game {game_id} ({fp[:16]}): under israeli: the stored audit says winners "
        "['nobody'] where a new audit gives"
    ) in result.output
    assert f"({other[:16]}): under " in result.output
    assert "its stored rounds rows differ from a new audit" in result.output
    assert "2 differ" in result.output


# --- schema 2: typed event columns, player_rounds, latest_games; schema 1 migrated ----------

#: the DDL of schema 1, as yaniv-audit wrote it before schema 2 (kept to build old archives)
SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS archive_info (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_no INTEGER PRIMARY KEY,
    fingerprint VARCHAR NOT NULL UNIQUE,
    game_id VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    players VARCHAR[] NOT NULL,
    rules_key VARCHAR NOT NULL,
    rules_id VARCHAR NOT NULL,
    events INTEGER NOT NULL,
    extends VARCHAR,
    part_of VARCHAR,
    started_at TIMESTAMPTZ,
    ingested_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    games INTEGER NOT NULL,
    root VARCHAR NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_no INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    type VARCHAR NOT NULL,
    player VARCHAR,
    event VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS audits (
    fingerprint VARCHAR NOT NULL,
    rules_key VARCHAR NOT NULL,
    rules_id VARCHAR NOT NULL,
    engine VARCHAR NOT NULL,
    verdict VARCHAR NOT NULL,
    finished BOOLEAN NOT NULL,
    winners VARCHAR[] NOT NULL,
    rounds INTEGER NOT NULL,
    findings INTEGER NOT NULL,
    report VARCHAR NOT NULL,
    audited_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (fingerprint, rules_key)
);
CREATE TABLE IF NOT EXISTS findings (
    fingerprint VARCHAR NOT NULL,
    rules_key VARCHAR NOT NULL,
    seq INTEGER,
    round INTEGER,
    player VARCHAR,
    kind VARCHAR NOT NULL,
    code VARCHAR NOT NULL,
    message VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS rounds (
    fingerprint VARCHAR NOT NULL,
    rules_key VARCHAR NOT NULL,
    round INTEGER NOT NULL,
    players INTEGER NOT NULL,
    starter VARCHAR,
    "end" VARCHAR,
    caller VARCHAR,
    caller_total INTEGER,
    assafed BOOLEAN NOT NULL,
    assafers VARCHAR[] NOT NULL,
    winners VARCHAR[] NOT NULL
);
CREATE TABLE IF NOT EXISTS standings (
    fingerprint VARCHAR NOT NULL,
    rules_key VARCHAR NOT NULL,
    player VARCHAR NOT NULL,
    seat INTEGER NOT NULL,
    score INTEGER NOT NULL,
    won BOOLEAN NOT NULL,
    out BOOLEAN NOT NULL
);
"""

#: what schema 2 added to schema 1, as it was (frozen too)
SCHEMA_2_ADDED = """
ALTER TABLE events ADD COLUMN round INTEGER;
ALTER TABLE events ADD COLUMN source VARCHAR;
ALTER TABLE events ADD COLUMN cards VARCHAR[];
CREATE TABLE player_rounds (
    fingerprint VARCHAR NOT NULL, rules_key VARCHAR NOT NULL, round INTEGER NOT NULL,
    player VARCHAR NOT NULL, seat INTEGER NOT NULL, total INTEGER, points INTEGER,
    score_after INTEGER, called BOOLEAN NOT NULL, assafed_caller BOOLEAN NOT NULL,
    assafer BOOLEAN NOT NULL, won BOOLEAN NOT NULL, reduced_from INTEGER,
    went_out BOOLEAN NOT NULL
);
CREATE VIEW latest_games AS SELECT g.* FROM games g WHERE (g.part_of IS NULL AND NOT EXISTS
    (SELECT 1 FROM games later WHERE later.extends = g.fingerprint));
"""


def old_archive(source: Path, target: Path, schema: int) -> None:
    """An archive as schema 1 to 4 stored it: the old DDL, filled with the rows of
    ``source`` that the old schema had (schemas 1 and 2 keyed by fingerprint; schema 1:
    the events without their typed columns and no player_rounds; schema 3: without the
    summaries of the events, round_turns and draw_cards; before schema 5: player_rounds
    without opened and games without opening_md5)."""
    if schema in (3, 4):
        shutil.copy(source, target)
        con = duckdb.connect(str(target))
        con.execute("ALTER TABLE player_rounds DROP COLUMN opened")
        con.execute("ALTER TABLE games DROP COLUMN opening_md5")
        for view in ("games", *DERIVED):  # the views as that schema made them
            con.execute(f"DROP VIEW latest_{view}")
        con.execute(VIEWS)
        if schema == 3:
            con.execute("DROP TABLE round_turns")
            con.execute("DROP TABLE draw_cards")
        con.execute("UPDATE archive_info SET value = ? WHERE key = 'schema'", [str(schema)])
        con.close()
        return
    con = duckdb.connect(str(target))
    con.execute(SCHEMA_1)
    if schema == 2:
        con.execute(SCHEMA_2_ADDED)
    con.execute(
        "INSERT INTO archive_info VALUES ('schema', ?), ('created_by', 'old')", [str(schema)]
    )
    con.execute(f"ATTACH '{source}' AS src (READ_ONLY)")
    con.execute("INSERT INTO games SELECT * EXCLUDE (rewrites, opening_md5) FROM src.games")
    con.execute("INSERT INTO checkpoints SELECT * FROM src.checkpoints")
    for table in ("audits", "findings", "rounds", "standings") + (
        ("player_rounds",) if schema == 2 else ()
    ):
        dropped = ", opened" if table == "player_rounds" else ""
        con.execute(
            f"INSERT INTO {table} SELECT g.fingerprint, t.* EXCLUDE (game_no{dropped}) "
            f"FROM src.{table} t JOIN src.games g USING (game_no)"
        )
    columns = "*" if schema == 2 else "game_no, seq, type, player, event"
    con.execute(f"INSERT INTO events SELECT {columns} FROM src.events")
    con.execute("DETACH src")
    con.close()


def test_events_have_typed_columns_at_ingest(archive: Archive) -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    rows = archive.query(
        "SELECT seq, type, round, source, cards FROM events WHERE game_no = "
        "(SELECT game_no FROM games WHERE source LIKE '%clean-assaf-reduction.jsonl') "
        "ORDER BY seq"
    )[1]
    assert len(rows) == len(log.events)
    current = None
    for (seq, kind, rnd, source, cards), leaf in zip(rows, log.leaves, strict=True):
        event = json.loads(leaf)
        assert event["seq"] == seq and event["type"] == kind
        if kind == "round_started":
            current = event["round"]
        expected_round = (
            None if kind in ("game_started", "game_ended") else event.get("round", current)
        )
        assert rnd == expected_round, seq
        assert source == (event["source"] if kind == "draw" else None)
        if kind == "discard":
            assert cards == event["cards"]
        elif kind in ("draw", "slap") and event.get("card"):
            assert cards == [event["card"]]
        else:
            assert cards is None
    pile = [r for r in rows if r[3] == "pile"]
    assert pile and all(len(r[4]) == 1 for r in pile)


def test_player_rounds_hold_every_player_of_every_round(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    rows = archive.query(
        "SELECT g.fingerprint, p.* EXCLUDE (game_no) FROM player_rounds p "
        "JOIN games g USING (game_no) WHERE p.rules_key = g.rules_key"
    )[1]
    got: dict[tuple[str, int, str], tuple[Any, ...]] = {(r[0], r[2], r[3]): r for r in rows}
    expected = 0
    for fp, report in file_reports.items():
        seats = list(report["final"]["scores"])
        for r in report["rounds"]:
            for player, total in r["totals"].items():
                expected += 1
                row = got[(fp, r["round"], player)]
                reduced = [x["from"] for x in r["reductions"] if x["player"] == player]
                assert row[4:] == (
                    seats.index(player),
                    total,
                    r["points"][player],
                    r["scores"][player],
                    player == r["caller"],
                    player == r["caller"] and bool(r["assaf"]),
                    player in r["assaf"],
                    player in r["winners"],
                    reduced[0] if reduced else None,
                    player in r["out"],
                    player == r["starter"],
                )
    # the rounds without totals (not played to the end) list the players still in
    assert len(rows) >= expected > 1000


def test_latest_games_counts_a_paused_game_once(tmp_path: Path) -> None:
    logs = versions_of_a_game(tmp_path)
    db = tmp_path / "latest.duckdb"
    run("ingest", str(logs["v30"]), db=db)
    run("ingest", str(logs["v50"]), str(logs["whole"]), str(logs["v41"]), db=db)
    fp = {name: tree_hash(read_log(path).leaves).hex() for name, path in logs.items()}
    with Archive(db) as archive:
        assert [r[0] for r in archive.query("SELECT fingerprint FROM latest_games")[1]] == [
            fp["whole"]
        ]
    out = run("query", "SELECT count(*) AS n FROM latest_games", "--csv", db=db)
    assert out.output == "n\n1\n"


@pytest.mark.parametrize("schema", [1, 2, 3, 4])
def test_an_older_archive_is_migrated_on_open(
    mixed_path: Path, tmp_path: Path, schema: int
) -> None:
    """Every table of an older archive (MIXED: people's and bots' games, 13 of them)
    migrated to the rows and shape a new archive of the same games has."""
    old = tmp_path / "v1.duckdb"
    old_archive(mixed_path, old, schema)
    # a command that only reads migrates it first too
    result = run("report", "leaderboard", db=old)
    assert result.exit_code == 0, result.output
    con = duckdb.connect(str(old), read_only=True)
    con.execute(f"ATTACH '{mixed_path}' AS fresh (READ_ONLY)")
    assert con.execute("SELECT value FROM archive_info WHERE key = 'schema'").fetchall() == [("5",)]
    for table in (
        "games",
        "events",
        "deals",
        "round_turns",
        "draw_cards",
        "audits",
        "findings",
        "rounds",
        "standings",
        "player_rounds",
        "latest_games",
        "latest_player_rounds",
    ):
        columns = [
            c
            for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND table_catalog = 'fresh' ORDER BY ordinal_position",
                [table],
            ).fetchall()
        ]
        mine = [
            c
            for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "AND table_catalog = 'v1' ORDER BY ordinal_position",
                [table],
            ).fetchall()
        ]
        assert mine == columns, table  # the same shape as a new archive
        (differ,) = con.execute(
            f"SELECT count(*) FROM ((FROM main.{table} EXCEPT ALL FROM fresh.{table}) "
            f"UNION ALL (FROM fresh.{table} EXCEPT ALL FROM main.{table}))"
        ).fetchone() or (1,)
        assert differ == 0, table
    (events,) = con.execute("SELECT count(*) FROM events WHERE round IS NOT NULL").fetchone() or (
        0,
    )
    assert events > 1_000
    assert con.execute("SELECT count(*) FROM latest_games").fetchone() == (len(MIXED),)
    con.close()
    result = run("verify", "--audits", db=old)
    assert result.exit_code == 0, result.output
    assert f"{len(MIXED)} audits re-checked, 0 differ" in result.output
    # an archive of a schema this version does not know is refused, never changed
    con = duckdb.connect(str(old))
    con.execute("UPDATE archive_info SET value = '9' WHERE key = 'schema'")
    con.close()
    result = run("query", "SELECT 1", db=old)
    assert result.exit_code == 3
    assert "archive schema 9, this yaniv-audit reads schema 5" in result.output


def test_verify_audits_compares_player_rounds(mixed_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "pr.duckdb"
    shutil.copy(mixed_path, db)
    with Archive(db) as archive:
        (fp,) = archive.con.execute(
            "SELECT g.fingerprint FROM player_rounds "
            "JOIN games g USING (game_no) WHERE assafer "
            "LIMIT 1"
        ).fetchone() or ("",)
        archive.con.execute(
            "UPDATE player_rounds SET assafer = false WHERE game_no = "
            "(SELECT game_no FROM games WHERE fingerprint = ?) AND assafer",
            [fp],
        )
    result = run("verify", "--audits", db=db)
    assert result.exit_code == 1
    assert f"({fp[:16]}): under " in result.output
    assert "its stored player_rounds rows differ from a new audit" in result.output


# --- the club's reports, each checked against the file audits ----------------------------


def corpus_logs() -> dict[str, Any]:
    """Every corpus log, read, by fingerprint."""
    logs = {}
    for path in CORPUS:
        log = read_log(path)
        logs[tree_hash(log.leaves).hex()] = log
    return logs


def test_players_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    want: dict[str, Counter[str]] = {}
    for report in chosen(file_reports):
        final = report["final"]
        for p in final["scores"]:
            c = want.setdefault(p, Counter())
            c["games"] += 1
            c["finished"] += final["finished"]
            c["wins"] += p in final["winners"]
            c["eliminations"] += p in final["out"]
        for r in report["rounds"]:
            for p, points in r["points"].items():
                want[p]["rounds"] += 1
                want[p]["points"] += points
            if r["caller"] is not None:
                want[r["caller"]]["yanivs"] += 1
                want[r["caller"]]["suffered"] += bool(r["assaf"])
            for p in r["assaf"]:
                want[p]["made"] += 1
    table = analytics.report(archive, "players", simulated=True)
    assert table.columns == [
        "player",
        "games",
        "finished",
        "wins",
        "win_pct",
        "rounds",
        "avg_points",
        "yanivs",
        "assafs_made",
        "assafs_suffered",
        "eliminations",
    ]
    assert {row[0] for row in table.rows} == set(want)
    for player, games, finished, wins, pct, rounds, avg, yanivs, made, suffered, out in table.rows:
        c = want[player]
        assert (games, finished, wins, rounds, yanivs, made, suffered, out) == (
            c["games"],
            c["finished"],
            c["wins"],
            c["rounds"],
            c["yanivs"],
            c["made"],
            c["suffered"],
            c["eliminations"],
        ), player
        assert math.isclose(avg, c["points"] / c["rounds"], abs_tol=0.006)
        assert pct == (round(100 * wins / finished, 1) if finished else None)
    assert sum(c["suffered"] for c in want.values()) > 50
    assert sum(c["eliminations"] for c in want.values()) > 50
    assert table.summary == f"{len(want)} players, in games under each game's declared rules"


def test_rounds_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    logs = corpus_logs()
    want: dict[tuple[str, int], Counter[str]] = {}
    turns: dict[tuple[str, int], list[int]] = {}
    for report in chosen(file_reports):
        key = (resolve_rules(report["rules"]["id"]).key, len(report["final"]["scores"]))
        c = want.setdefault(key, Counter())
        c["games"] += 1
        per_round: Counter[int] = Counter()
        current = None
        for event in logs[report["fingerprint"]].events:
            if event.type == "round_started":
                current = event.round
            elif event.type in ("discard", "yaniv"):
                per_round[current] += 1
        for r in report["rounds"]:
            c["rounds"] += 1
            c["yaniv"] += r["end"] == "yaniv"
            c["assafed"] += bool(r["caller"] and r["assaf"])
            c["stock"] += r["end"] == "stock"
            c["unfinished"] += r["end"] is None
            if r["end"] is not None and r["round"] in per_round:
                turns.setdefault(key, []).append(per_round[r["round"]])
    table = analytics.report(archive, "rounds", simulated=True)
    assert table.columns == [
        "rules_key",
        "players",
        "games",
        "rounds",
        "rounds_per_game",
        "yaniv",
        "assafed",
        "stock",
        "unfinished",
        "turns_per_round",
    ]
    assert {(row[0], row[1]) for row in table.rows} == set(want)
    for (
        key_,
        players,
        games,
        rounds,
        per_game,
        yaniv,
        assafed,
        stock,
        unfinished,
        per_round_turns,
    ) in table.rows:
        c = want[(key_, players)]
        assert (games, rounds, yaniv, assafed, stock, unfinished) == (
            c["games"],
            c["rounds"],
            c["yaniv"],
            c["assafed"],
            c["stock"],
            c["unfinished"],
        )
        assert math.isclose(per_game, c["rounds"] / c["games"], abs_tol=0.006)
        counted = turns.get((key_, players))
        if counted:
            assert math.isclose(per_round_turns, sum(counted) / len(counted), abs_tol=0.006)
        else:
            assert per_round_turns is None
    assert sum(c["unfinished"] for c in want.values()) + sum(
        c["yaniv"] for c in want.values()
    ) == sum(c["rounds"] for c in want.values())


def test_pickups_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    from yaniv_audit.core.cards import NAMES

    logs = corpus_logs()
    pile: Counter[str] = Counter()
    stock: Counter[str] = Counter()
    for report in chosen(file_reports):
        for event in logs[report["fingerprint"]].events:
            if event.type != "draw":
                continue
            name = "unknown" if event.card is None else NAMES[event.card]
            rank = name if name in ("JK", "unknown") else name[0]
            (pile if event.source == "pile" else stock)[rank] += 1
            (pile if event.source == "pile" else stock)["all"] += 1
    table = analytics.report(archive, "pickups", simulated=True)
    assert table.columns == ["card", "pile", "stock", "pile_pct"]
    got = {card: (p, s) for card, p, s, _ in table.rows}
    assert got == {card: (pile[card], stock[card]) for card in set(pile) | set(stock)}
    assert table.rows[0][0] == "all"
    assert [row[1] for row in table.rows[1:]] == sorted(
        (row[1] for row in table.rows[1:]), reverse=True
    )
    assert pile["all"] > 1000 and stock["all"] > 1000
    assert table.summary.startswith(
        f"{pile['all'] + stock['all']} draws in games: "
        f"{stock['all']} from the stock, {pile['all']} from the "
        "pile ("
    )


def test_deal_odds_report(archive: Archive) -> None:
    """Every whole hand recorded at a deal, by the rules its game declared, counted here
    from the logs (ranks with a Counter, totals by the card values), beside the exact
    odds of ``odds deal``."""
    from yaniv_audit.core.cards import JACK, JOKER, RANK, card_values
    from yaniv_audit.core.deal_odds import deal_odds, longest_run
    from yaniv_audit.core.events import RoundStarted

    seen: dict[str, Counter[tuple[str, str]]] = {}
    for log in corpus_logs().values():
        rules = log.game.rules
        for event in log.events:
            if not isinstance(event, RoundStarted) or not event.hands:
                continue
            for hand in event.hands.values():
                if len(hand) != rules.hand_size:
                    continue
                ranks = Counter(
                    RANK[c]
                    for c in hand
                    if c != JOKER and not (rules.wild_jacks and RANK[c] == JACK)
                )
                shape = [*sorted(ranks.values(), reverse=True), 0, 0]
                category = (
                    "four"
                    if shape[0] >= 4
                    else "full_house"
                    if shape[0] == 3 and shape[1] >= 2
                    else "three"
                    if shape[0] == 3
                    else "two_pair"
                    if shape[1] == 2
                    else "pair"
                    if shape[0] == 2
                    else "no_pair"
                )
                run = longest_run(hand, rules)
                c = seen.setdefault(rules.id, Counter())
                c["ranks", category] += 1
                c["runs", f"run{run}" if run else "none"] += 1
                c["totals", str(sum(card_values(rules)[x] for x in hand))] += 1
    table = analytics.report(archive, "deal-odds", simulated=True)
    assert table.columns == [
        "rules",
        "kind",
        "category",
        "hands",
        "share_pct",
        "exact_pct",
        "expected",
    ]
    got = {(r[0], r[1], r[2]): r[3] for r in table.rows}
    for rules_id, counts in seen.items():
        for (kind, category), n in counts.items():
            assert got[rules_id, kind, category] == n, (rules_id, kind, category)
    assert sum(got.values()) == sum(sum(c.values()) for c in seen.values())
    most = max(seen, key=lambda r: seen[r].total())
    exact = deal_odds(resolve_rules(most))
    rows = {r[2]: r for r in table.rows if r[0] == most and r[1] == "ranks"}
    hands = sum(r[3] for r in rows.values())
    assert hands == sum(n for (kind, _), n in seen[most].items() if kind == "ranks") > 1000
    for category, ways in exact.ranks.items():
        assert rows[category][5] == round(100 * ways / exact.hands, 4)
        assert rows[category][6] == round(hands * ways / exact.hands, 1)
    whole_hands = sum(n for c in seen.values() for (kind, _), n in c.items() if kind == "ranks")
    assert table.summary.startswith(f"{whole_hands} recorded deals, each category beside")
    # one rule set: only the games that declared it
    only = analytics.report(archive, "deal-odds", resolve_rules(most), simulated=True)
    assert {r[0] for r in only.rows} == {most}
    assert sum(r[3] for r in only.rows if r[1] == "ranks") == hands


def test_seat_advantage_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    want: dict[tuple[int, int], Counter[str]] = {}
    for report in chosen(file_reports):
        seats = list(report["final"]["scores"])
        for seat, p in enumerate(seats, start=1):  # numbered as at a table: 1 is the first
            c = want.setdefault((len(seats), seat), Counter())
            c["games"] += report["final"]["finished"]
            c["wins"] += p in report["final"]["winners"]
        for r in report["rounds"]:
            if r["end"] is None:
                continue
            c = want.setdefault((len(seats), seats.index(r["starter"]) + 1), Counter())
            c["opened"] += 1
            c["opened_won"] += r["starter"] in r["winners"]
    table = analytics.report(archive, "seat-advantage", simulated=True)
    assert table.columns == [
        "players",
        "seat",
        "games",
        "wins",
        "win_pct",
        "rounds_opened",
        "opened_won",
        "opened_win_pct",
    ]
    assert {(row[0], row[1]) for row in table.rows} == set(want)
    for players, seat, games, wins, _, opened, opened_won, pct in table.rows:
        c = want[(players, seat)]
        assert (games, wins, opened, opened_won) == (
            c["games"],
            c["wins"],
            c["opened"],
            c["opened_won"],
        )
        assert pct == (round(100 * opened_won / opened, 1) if opened else None)
    opened = sum(c["opened"] for c in want.values())
    won = sum(c["opened_won"] for c in want.values())
    assert table.summary.startswith(
        f"the player who opened the round won {won} of {opened} rounds ("
    )


def expected_reductions(reports: list[dict[str, Any]]) -> dict[tuple[str, int, int], Counter[str]]:
    want: dict[tuple[str, int, int], Counter[str]] = {}
    for report in reports:
        params = report["rules"]["params"]
        key = resolve_rules(report["rules"]["id"]).key
        for r in report["rounds"]:
            for x in r["reductions"]:
                c = want.setdefault((key, x["from"], x["to"]), Counter())
                over = (
                    x["from"] >= params["score_limit"]
                    if params["limit_rule"] == "reach"
                    else x["from"] > params["score_limit"]
                )
                victor = x["player"] == r["caller"] and bool(r["assaf"])
                c["reductions"] += 1
                c["saved"] += over
                c["victor"] += victor
                c["victor_saved"] += victor and over
    return want


def test_reductions_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    columns = [
        "rules_key",
        "reduced_from",
        "reduced_to",
        "reductions",
        "saved",
        "victor_calls",
        "victor_saved",
    ]
    want = expected_reductions(chosen(file_reports))
    table = analytics.report(archive, "reductions", simulated=True)
    assert table.columns == columns
    assert {row[:3]: row[3:] for row in table.rows} == {
        k: (c["reductions"], c["saved"], c["victor"], c["victor_saved"]) for k, c in want.items()
    }
    assert sum(c["victor"] for c in want.values()) > 0
    # reaching the limit puts a player out: landing on it then saves them
    reach = resolve_rules("israeli(limit_rule=reach)")
    list(archive.audit(reach))
    reports = [audit_file(path, reach) for path in CORPUS]
    want = expected_reductions([r for r in reports if r["verdict"] != "corrupt"])
    table = analytics.report(archive, "reductions", reach, simulated=True)
    assert {row[:3]: row[3:] for row in table.rows} == {
        k: (c["reductions"], c["saved"], c["victor"], c["victor_saved"]) for k, c in want.items()
    }
    assert sum(c["saved"] for c in want.values()) > 0
    saved = sum(row[4] for row in table.rows)
    assert f"reductions, {saved} saved a player from elimination" in table.summary


def test_violations_report(archive: Archive, file_reports: dict[str, dict[str, Any]]) -> None:
    counts: Counter[tuple[str, str, str | None]] = Counter()
    games: dict[tuple[str, str, str | None], set[str]] = {}
    for report in chosen(file_reports):
        for f in report["findings"]:
            key = (f["code"], f["kind"], f["player"])
            counts[key] += 1
            games.setdefault(key, set()).add(report["fingerprint"])
    table = analytics.report(archive, "violations", simulated=True)
    assert table.columns == ["code", "kind", "player", "findings", "games"]
    assert {row[:3]: row[3:] for row in table.rows} == {
        k: (n, len(games[k])) for k, n in counts.items()
    }
    assert [row[3] for row in table.rows] == sorted((row[3] for row in table.rows), reverse=True)


def test_several_rule_sets_give_the_report_under_each(archive: Archive) -> None:
    namu = resolve_rules("namu")
    list(archive.audit(namu))
    for name in (
        "players",
        "rounds",
        "pickups",
        "seat-advantage",
        "reductions",
        "violations",
        "leaderboard",
        "assaf-risk",
        "findings",
    ):
        both = analytics.report(archive, name, [None, namu], simulated=True)
        assert both.columns[0] == "rules"
        declared = analytics.report(archive, name, simulated=True)
        under_namu = analytics.report(archive, name, namu, simulated=True)
        assert both.columns[1:] == declared.columns
        assert [row[1:] for row in both.rows if row[0] == "declared"] == declared.rows, name
        assert [row[1:] for row in both.rows if row[0] == "namu"] == under_namu.rows, name
        assert {row[0] for row in both.rows} <= {"declared", "namu"}
        assert both.rows[: len(declared.rows)] == [("declared", *r) for r in declared.rows]


def test_players_filter_keeps_games_of_that_many_players(
    archive: Archive, file_reports: dict[str, dict[str, Any]]
) -> None:
    four = [r for r in chosen(file_reports) if len(r["final"]["scores"]) == 4]
    table = analytics.report(archive, "rounds", players=4, simulated=True)
    assert sum(row[2] for row in table.rows) == len(four) > 0
    assert {row[1] for row in table.rows} == {4}


def test_cli_report_formats_and_rules(archive_path: Path, tmp_path: Path) -> None:
    db = tmp_path / "formats.duckdb"
    shutil.copy(archive_path, db)
    table = run("report", "players", db=db)
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    assert "players, in games under each game's declared rules" in lines[0]
    assert lines[1].split()[:3] == ["player", "games", "finished"]
    data = json.loads(run("report", "players", "--format", "json", db=db).output)
    assert (
        run("report", "players", "--json", db=db).output
        == run("report", "players", "--format", "json", db=db).output
    )
    assert data["report"] == "players" and data["columns"][0] == "player"
    csv_text = run("report", "violations", "--format", "csv", db=db).output.splitlines()
    assert csv_text[0] == "code,kind,player,findings,games" and len(csv_text) > 1
    both = run(
        "report",
        "seat-advantage",
        "--rules",
        "classic",
        "--rules",
        "namu",
        "--format",
        "csv",
        db=db,
    )
    assert both.exit_code == 0
    rows = both.stdout.splitlines()
    assert rows[0].startswith("rules,players,seat,")
    assert {r.split(",")[0] for r in rows[1:]} == {"classic", "namu"}
    assert "auditing" in both.stderr
    wrong = run("report", "players", "--json", "--format", "csv", db=db)
    assert wrong.exit_code == 2 and "--json is --format json" in wrong.output


def test_rounds_report_counts_how_rounds_end_under_round_ends(tmp_path: Path) -> None:
    """The games of reshuffle=round_ends (the simulated games never run the stock out:
    the report must say 0 there as well)."""
    logs = log_files((str(REPLAYS / "simulated" / "round-ends"),))
    db = tmp_path / "stock.duckdb"
    assert run("ingest", *logs, db=db).exit_code == 0
    reports = [audit_file(path) for path in logs]
    ends = Counter(
        r["end"] for report in reports if report["verdict"] != "corrupt" for r in report["rounds"]
    )
    data = json.loads(
        run("report", "rounds", "--json", "--simulated", db=db).stdout
    )  # audits them first
    got: Counter[str | None] = Counter()
    for row in data["rows"]:
        got["yaniv"] += row["yaniv"]
        got["stock"] += row["stock"]
        got[None] += row["unfinished"]
    assert +got == +ends and ends["yaniv"] > 100


def test_a_migration_cut_short_leaves_schema_1_whole(
    mixed_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The migration is one transaction: stopped half way (here by an error while
    rebuilding player_rounds), the archive is as it was; the next open migrates it."""
    import yaniv_audit.archive.migrate as archive_module

    old = tmp_path / "cut.duckdb"
    old_archive(mixed_path, old, 1)

    def fail(*args: Any) -> list[tuple[Any, ...]]:
        raise KeyboardInterrupt

    monkeypatch.setattr(archive_module, "player_round_rows", fail)
    with pytest.raises(KeyboardInterrupt):
        Archive(old)
    con = duckdb.connect(str(old), read_only=True)
    assert con.execute("SELECT value FROM archive_info WHERE key = 'schema'").fetchall() == [("1",)]
    assert [
        c
        for (c,) in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'events' "
            "ORDER BY ordinal_position"
        ).fetchall()
    ] == ["game_no", "seq", "type", "player", "event"]
    assert not con.execute(
        "SELECT 1 FROM information_schema.tables "
        "WHERE table_name IN ('player_rounds', 'latest_games')"
    ).fetchall()
    con.close()
    monkeypatch.undo()
    # query opens it locked (read-only): it is migrated first all the same
    result = run("query", "SELECT count(*) AS n FROM player_rounds", "--csv", db=old)
    assert result.exit_code == 0, result.output
    assert int(result.output.splitlines()[1]) > 100  # MIXED's 12 games: 191 rows


def test_the_archive_keeps_within_a_memory_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DuckDB caches the blocks it writes up to its memory limit: without one an ingest
    grew by the size of the archive. 512MB unless $YANIV_AUDIT_MEMORY_LIMIT says."""
    db = tmp_path / "a.duckdb"
    with Archive(db) as archive:
        (limit,) = archive.con.execute("SELECT current_setting('memory_limit')").fetchone()
    assert limit == "488.2 MiB"  # 512 MB, as DuckDB writes it
    monkeypatch.setenv("YANIV_AUDIT_MEMORY_LIMIT", "2GB")
    with Archive(db, locked=True) as archive:
        (limit,) = archive.con.execute("SELECT current_setting('memory_limit')").fetchone()
    assert limit == "1.8 GiB"
    monkeypatch.setenv("YANIV_AUDIT_MEMORY_LIMIT", "lots")
    with pytest.raises(
        ArchiveError,
        match=r"YANIV_AUDIT_MEMORY_LIMIT='lots': expected a "
        r"size such as 512MB or 2GB",
    ):
        Archive(db)


def test_the_summaries_of_the_events_hold_every_game_once(tmp_path: Path) -> None:
    """round_turns and draw_cards (what rounds and pickups read) count each game's
    events once, the games of every ingest included."""
    db = tmp_path / "two.duckdb"
    assert run("ingest", *CORPUS[:30], db=db).exit_code == 0
    assert run("ingest", *CORPUS, db=db).exit_code == 0
    con = duckdb.connect(str(db), read_only=True)
    turns = con.execute(
        "SELECT game_no, round, count(*) FROM events WHERE type IN "
        "('discard', 'yaniv') AND round IS NOT NULL GROUP BY ALL "
        "ORDER BY ALL"
    ).fetchall()
    assert con.execute("SELECT * FROM round_turns ORDER BY ALL").fetchall() == turns
    draws = Counter()
    for game_no, source, cards in con.execute(
        "SELECT game_no, source, cards FROM events WHERE type = 'draw'"
    ).fetchall():
        card = "unknown" if cards is None else "JK" if cards[0] == "JK" else cards[0][0]
        draws[(game_no, source, card)] += 1
    stored = {(n, s, c): k for n, s, c, k in con.execute("FROM draw_cards").fetchall()}
    assert stored == dict(draws) and sum(draws.values()) > 10_000
    numbers = {n for n, *_ in turns}  # the games of both ingests
    assert min(numbers) == 1 and max(numbers) == len(CORPUS) and len(numbers) > 50
    con.close()
