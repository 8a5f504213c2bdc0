"""Live tables (``/api/v1/tables``, issue 36): open, append with If-Match, read, follow,
close, as a phone at the table uses them; the table's audit is the audit of its log."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient

from yaniv_audit.cli import cli
from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.core.table_state import table_state
from yaniv_audit.io.codec import parse_jsonl
from yaniv_audit.io.live import CompactRange
from yaniv_audit.web import create_app
from yaniv_audit.web.ratelimit import RateLimit

ROOT = Path(__file__).resolve().parents[2]


def command(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``yaniv-audit ARGV`` run in this process through click: its exit status and what
    it wrote (a process of its own costs 0.5 to 1 s a start, and none of these tests is
    about the process)."""
    result = CliRunner().invoke(cli, argv)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return subprocess.CompletedProcess(argv, result.exit_code, result.stdout, result.stderr)


FRIDAY = ROOT / "replays" / "clean-assaf-reduction.jsonl"
LINES = FRIDAY.read_bytes().splitlines()


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    return create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "tables.duckdb")})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def open_table(client: FlaskClient, first: bytes = LINES[0]) -> tuple[str, str]:
    r = client.post("/api/v1/tables", data=first)
    assert r.status_code == 201, r.json
    assert r.json is not None and r.json["seq"] == 1
    assert r.headers["Location"] == f"/api/v1/tables/{r.json['id']}"
    return r.json["id"], r.json["key"]


def append(
    client: FlaskClient, table: str, key: str | None, seen: int | None, body: bytes, **headers: str
) -> Any:
    sent = dict(headers)
    if key is not None:
        sent["Authorization"] = f"Bearer {key}"
    if seen is not None:
        sent["If-Match"] = f'"{seen}"'
    return client.post(f"/api/v1/tables/{table}/events", data=body, headers=sent)


def play(
    client: FlaskClient, table: str, key: str, lines: list[bytes], batch: int = 1, seen: int = 1
) -> int:
    for i in range(0, len(lines), batch):
        r = append(client, table, key, seen, b"\n".join(lines[i : i + batch]))
        assert r.status_code == 200, r.json
        seen = r.json["seq"]
    return seen


def events_of(app: Flask) -> int:
    """The events the archive holds (read as the app reads it)."""
    with app.extensions["yaniv_store"].reading() as r:
        return int(r.archive.query("SELECT count(*) FROM events")[1][0][0])


def test_a_table_played_entry_by_entry_audits_as_its_whole_log(client: FlaskClient) -> None:
    table, key = open_table(client)
    assert play(client, table, key, LINES[1:]) == len(LINES)
    got = client.get(f"/api/v1/tables/{table}").json
    log = parse_jsonl(FRIDAY.read_bytes(), "friday")
    assert got["seq"] == len(LINES)
    assert got["report"] == audit_log(log)
    assert got["state"] == json.loads(json.dumps(table_state(log)))
    # the game is over: its fingerprint names the archived game
    assert got["fingerprint"] == tree_hash(log.leaves).hex()
    game = client.get(f"/api/v1/games/{got['fingerprint']}")
    assert game.status_code == 200


def test_the_report_equals_the_cli_audit_of_the_exported_log(
    client: FlaskClient, tmp_path: Path
) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:40], batch=3)
    report = client.get(f"/api/v1/tables/{table}").json["report"]
    fingerprint = report["fingerprint"]
    events = client.get(f"/api/v1/games/{fingerprint}/events?limit=1000").json["events"]
    exported = tmp_path / "exported.jsonl"
    exported.write_text("".join(json.dumps(e) + "\n" for e in events))
    audited = command(
        ["audit", "--json", str(exported)],
    )
    said = json.loads(audited.stdout)
    said.pop("file", None)
    assert report == said


def test_an_append_answers_the_new_count_state_and_the_findings_it_raised(
    client: FlaskClient,
) -> None:
    table, key = open_table(client)
    wrong = json.loads(LINES[1])
    r = append(client, table, key, 1, LINES[1])
    assert r.status_code == 200
    assert r.json["seq"] == 2
    assert r.json["state"]["events"] == 2 and r.json["state"]["state"]["round"] == 1
    assert r.json["findings"] == []
    assert wrong["type"] == "round_started"


def test_a_stale_if_match_is_412_with_the_count_and_the_entries_since(client: FlaskClient) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:4])
    r = append(client, table, key, 2, LINES[4])
    assert r.status_code == 412
    assert r.json["seq"] == 4
    assert [e["seq"] for e in r.json["entries"]] == [2, 3]
    assert r.json["entries"][0]["event"] == json.loads(LINES[2])
    assert client.get(f"/api/v1/tables/{table}").json["seq"] == 4  # nothing appended


def test_an_append_without_if_match_is_428(client: FlaskClient) -> None:
    table, key = open_table(client)
    r = append(client, table, key, None, LINES[1])
    assert r.status_code == 428
    assert r.json["error"]["field"] == "If-Match"


def test_no_key_is_401_and_another_tables_key_is_403(client: FlaskClient) -> None:
    table, _key = open_table(client)
    _other, other_key = open_table(client, LINES[0].replace(b"}", b',"game_id":"other"}', 1))
    assert append(client, table, None, 1, LINES[1]).status_code == 401
    assert append(client, table, other_key, 1, LINES[1]).status_code == 403
    assert client.get(f"/api/v1/tables/{table}").json["seq"] == 1


def test_an_unreadable_event_is_400_naming_its_line_and_field_and_nothing_is_appended(
    client: FlaskClient, app: Flask
) -> None:
    table, key = open_table(client)
    bad = json.loads(LINES[2])
    bad["cards"] = ["ZZ"]
    body = LINES[1] + b"\n" + json.dumps(bad).encode()
    r = append(client, table, key, 1, body)
    assert r.status_code == 400
    assert r.json["error"]["line"] == 2
    assert r.json["error"]["field"] == "cards.0"
    assert "line 2" in r.json["error"]["message"]
    assert client.get(f"/api/v1/tables/{table}").json["seq"] == 1
    assert events_of(app) == 1
    # and the table goes on from where it was
    assert append(client, table, key, 1, LINES[1]).json["seq"] == 2


def test_a_retried_append_with_its_idempotency_key_returns_the_first_answer(
    client: FlaskClient, app: Flask
) -> None:
    table, key = open_table(client)
    first = append(client, table, key, 1, LINES[1], **{"Idempotency-Key": "tap-1"})
    again = append(client, table, key, 1, LINES[1], **{"Idempotency-Key": "tap-1"})
    assert first.status_code == again.status_code == 200
    assert again.json == first.json
    assert again.headers["Idempotent-Replayed"] == "true"
    assert client.get(f"/api/v1/tables/{table}").json["seq"] == 2
    assert events_of(app) == 2
    # the same entry without the key is a stale append, never a second copy
    assert append(client, table, key, 1, LINES[1]).status_code == 412


def test_an_idempotency_key_sent_again_with_other_entries_never_loses_them(
    client: FlaskClient,
) -> None:
    table, key = open_table(client)
    assert append(client, table, key, 1, LINES[1], **{"Idempotency-Key": "tap"}).json["seq"] == 2
    # a phone that reuses its token for the next entry: that entry is appended, not
    # answered with the first one's answer and dropped
    second = append(client, table, key, 2, LINES[2], **{"Idempotency-Key": "tap"})
    assert second.status_code == 200 and "Idempotent-Replayed" not in second.headers
    assert second.json["seq"] == 3
    entries = client.get(f"/api/v1/tables/{table}/events?after=0").json["entries"]
    assert [e["seq"] for e in entries] == [1, 2]


def test_a_batch_is_all_or_none(client: FlaskClient) -> None:
    table, key = open_table(client)
    r = append(client, table, key, 1, b"\n".join(LINES[1:5]) + b'\n{"type": "nonsense"}')
    assert r.status_code == 400 and r.json["error"]["line"] == 5
    assert client.get(f"/api/v1/tables/{table}").json["seq"] == 1
    assert append(client, table, key, 1, b"\n".join(LINES[1:5])).json["seq"] == 5


def test_a_closed_table_takes_no_more_entries(client: FlaskClient) -> None:
    table, key = open_table(client)
    assert client.post(f"/api/v1/tables/{table}/close").status_code == 401
    r = client.post(f"/api/v1/tables/{table}/close", headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 200 and r.json["closed"] is True
    r = append(client, table, key, 1, LINES[1])
    assert r.status_code == 409
    assert client.get(f"/api/v1/tables/{table}").json["closed"] is True


def test_opening_needs_the_write_permission_and_a_game_started(tmp_path: Path) -> None:
    app = create_app(
        {"TESTING": True, "ARCHIVE": str(tmp_path / "t.duckdb"), "WRITE_TOKEN": "s3cret"}
    )
    client = app.test_client()
    assert client.post("/api/v1/tables", data=LINES[0]).status_code == 401
    r = client.post("/api/v1/tables", data=LINES[1], headers={"Authorization": "Bearer s3cret"})
    assert r.status_code == 400 and r.json["error"]["line"] == 1
    r = client.post("/api/v1/tables", data=LINES[0], headers={"Authorization": "Bearer s3cret"})
    assert r.status_code == 201


def test_the_open_tables_are_bounded(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "t.duckdb"), "TABLES_MAX_OPEN": 1})
    client = app.test_client()
    open_table(client)
    r = client.post("/api/v1/tables", data=LINES[0].replace(b"}", b',"game_id":"b"}', 1))
    assert r.status_code == 503 and r.json["error"]["code"] == "too_many_tables"


def named(game_id: str) -> bytes:
    """The first line of the sample log with another game_id: another game."""
    first = json.loads(LINES[0])
    first["game_id"] = game_id
    return json.dumps(first).encode()


def test_one_address_opens_at_most_its_rate_of_tables_a_minute(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "ARCHIVE": str(tmp_path / "t.duckdb"),
            "WRITE_TOKEN": "s3cret",
            "TABLES_OPEN_RATE": 3,
        }
    )
    now = [1000.0]
    app.extensions["yaniv_tables"].opening.clock = lambda: now[0]
    client = app.test_client()
    token = {"Authorization": "Bearer s3cret"}

    def open_from(address: str, n: int) -> Any:
        return client.post(
            "/api/v1/tables",
            data=named(f"{address}-{n}"),
            headers=token,
            environ_base={"REMOTE_ADDR": address},
        )

    assert [open_from("10.0.0.7", n).status_code for n in range(3)] == [201] * 3
    r = open_from("10.0.0.7", 3)
    assert r.status_code == 429
    assert r.json["error"]["code"] == "too_many_requests"
    assert "TABLES_OPEN_RATE" in r.json["error"]["message"]
    assert r.headers["Retry-After"] == "20"  # 3 a minute: one back every 20 s
    assert r.json["error"]["retry_after"] == 20
    # another address is not held back by this one
    assert open_from("10.0.0.8", 0).status_code == 201
    # the refused open stored nothing: 4 tables
    with app.extensions["yaniv_store"].reading() as read:
        assert read.archive.query("SELECT count(*) FROM live_tables")[1] == [(4,)]
    now[0] += 19
    assert open_from("10.0.0.7", 4).status_code == 429
    now[0] += 1
    assert open_from("10.0.0.7", 5).status_code == 201
    assert open_from("10.0.0.7", 6).status_code == 429


def test_the_rate_limits_buckets_are_bounded_in_number() -> None:
    now = [0.0]
    limit = RateLimit(30, clock=lambda: now[0], max_addresses=3)
    for n in range(10):
        assert limit.take(f"10.0.0.{n}") == 0.0
    assert len(limit.buckets) <= 3
    now[0] += 60  # a minute later every bucket is full again, and forgotten
    assert limit.take("10.0.1.1") == 0.0
    assert list(limit.buckets) == ["10.0.1.1"]


def test_the_open_rate_is_in_the_openapi_document(client: FlaskClient) -> None:
    opening = client.get("/api/v1/openapi.json").json["paths"]["/api/v1/tables"]["post"]
    assert "Retry-After" in opening["responses"]["429"]["headers"]


def test_idle_tables_keep_no_fold_and_the_tables_kept_are_bounded(tmp_path: Path) -> None:
    app = create_app(
        {
            "TESTING": True,
            "ARCHIVE": str(tmp_path / "t.duckdb"),
            "TABLES_KEPT": 4,
            "TABLE_IDLE": 600,
        }
    )
    client = app.test_client()
    registry = app.extensions["yaniv_tables"]
    opened = []
    for n in range(10):
        table, key = open_table(client, named(f"club-{n}"))
        play(client, table, key, LINES[1:6])
        opened.append((table, key))

    def folds() -> int:
        return sum(t.game is not None for t in registry.live.values())

    assert len(registry.live) == 4 and folds() == 4  # the 4 used latest
    for kept in registry.live.values():
        kept.used -= 601  # ten minutes and more unused
    busy, _busy_key = opened[-1]
    registry.live[busy].used += 601
    client.get(f"/api/v1/tables/{busy}")  # any request sweeps
    assert folds() == 1 and registry.live[busy].game is not None
    # an idle table, or one no longer kept, is read back whole when next used
    for table, key in (opened[-2], opened[0]):
        assert client.get(f"/api/v1/tables/{table}").json["seq"] == 6
        assert append(client, table, key, 6, LINES[6]).json["seq"] == 7
    assert len(registry.live) == 4 and folds() <= 4


def test_polling_gives_the_entries_after_a_seq(client: FlaskClient) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:6])
    r = client.get(f"/api/v1/tables/{table}/events?after=3")
    assert r.json["seq"] == 6
    assert [e["seq"] for e in r.json["entries"]] == [4, 5]
    assert len(client.get(f"/api/v1/tables/{table}/events").json["entries"]) == 6


def test_a_table_is_one_game_in_the_list_counted_from_its_latest_entries(
    client: FlaskClient,
) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:30])
    listing = client.get("/api/v1/games").json
    assert listing["total"] == 1
    assert listing["games"][0]["events"] == 30
    play_rest = client.get(f"/api/v1/tables/{table}").json["seq"]
    r = append(client, table, key, play_rest, b"\n".join(LINES[30:]))
    assert r.status_code == 200
    listing = client.get("/api/v1/games").json
    assert listing["total"] == 1 and listing["games"][0]["events"] == len(LINES)
    assert listing["games"][0]["verdict"] == r.json["state"]["report"]["verdict"]


def test_a_table_is_rebuilt_from_the_archive_after_a_restart(app: Flask, tmp_path: Path) -> None:
    client = app.test_client()
    table, key = open_table(client)
    play(client, table, key, LINES[1:25], batch=4)
    before = client.get(f"/api/v1/tables/{table}").json
    app.extensions["yaniv_store"].close()
    again = create_app({"TESTING": True, "ARCHIVE": app.config["ARCHIVE"]}).test_client()
    assert again.get(f"/api/v1/tables/{table}").json == before
    assert append(again, table, key, 25, LINES[25]).json["seq"] == 26


def test_an_idle_tables_fold_is_dropped_and_read_back(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "t.duckdb"), "TABLE_IDLE": 0})
    client = app.test_client()
    table, key = open_table(client)
    play(client, table, key, LINES[1:10])
    registry = app.extensions["yaniv_tables"]
    registry.sweep()
    assert registry.live[table].game is None
    got = client.get(f"/api/v1/tables/{table}").json
    assert got["seq"] == 10
    assert got["report"] == audit_log(parse_jsonl(b"\n".join(LINES[:10]), "x"))


def test_a_withdrawal_refolds_and_the_audit_is_that_of_the_log(client: FlaskClient) -> None:
    table, key = open_table(client)
    seen = play(client, table, key, LINES[1:12])
    withdraw = json.dumps({"type": "withdraw", "seqs": [seen - 1], "player": "dana"}).encode()
    r = append(client, table, key, seen, withdraw)
    assert r.status_code == 200
    log = parse_jsonl(b"\n".join([*LINES[:12], withdraw]), "x")
    assert r.json["state"]["report"] == audit_log(log)
    assert r.json["state"]["report"]["withdrawn"] == [{"seq": seen - 1, "by": seen}]
    # the withdrawn entry written again: as the audit of the whole log says
    again = json.loads(LINES[11])
    del again["seq"]  # it is at another position now
    line = json.dumps(again).encode()
    r = append(client, table, key, seen + 1, line)
    log = parse_jsonl(b"\n".join([*LINES[:12], withdraw, line]), "x")
    assert r.json["state"] == json.loads(json.dumps(table_state(log)))


def test_the_compact_range_is_the_tree_hash() -> None:
    leaves = [b"%d" % i for i in range(37)]
    compact = CompactRange()
    for n, leaf in enumerate(leaves, 1):
        compact.add(leaf)
        assert compact.root() == tree_hash(leaves[:n])


def test_an_operator_opens_a_table_from_the_command_line(tmp_path: Path) -> None:
    db = tmp_path / "club.duckdb"
    ran = command(
        [
            "table",
            "open",
            "--players",
            "dana,lior,omer",
            "--rules",
            "israeli",
            "--db",
            str(db),
        ],
    )
    assert ran.returncode == 0, ran.stderr
    said = dict(line.split(":", 1) for line in ran.stdout.splitlines()[:4])
    table, key = said["table"].strip(), said["key"].split()[0]
    assert said["record"].strip() == f"http://127.0.0.1:5000/record#table={table}&key={key}"
    assert "█" in ran.stdout  # the QR code
    client = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    got = client.get(f"/api/v1/tables/{table}").json
    assert got["seq"] == 1 and got["state"]["game"]["players"] == ["dana", "lior", "omer"]
    r = append(client, table, key, 1, b'{"type": "round_started", "round": 1, "starter": "dana"}')
    assert r.status_code == 200 and r.json["seq"] == 2


def test_a_tables_log_downloads_as_a_jsonl_file_the_cli_audits(
    client: FlaskClient, tmp_path: Path
) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:40], batch=3)
    report = client.get(f"/api/v1/tables/{table}").json["report"]
    assert f'href="/tables/{table}/log.jsonl"' in client.get(f"/tables/{table}").text
    got = client.get(f"/tables/{table}/log.jsonl")
    assert got.status_code == 200 and got.mimetype == "application/x-ndjson"
    assert got.headers["Content-Disposition"] == f"attachment; filename*=UTF-8''table-{table}.jsonl"
    log = tmp_path / "table.jsonl"
    log.write_bytes(got.data)
    assert tree_hash(parse_jsonl(got.data, "t").leaves).hex() == report["fingerprint"]
    audited = command(
        ["audit", "--json", str(log)],
    )
    said = json.loads(audited.stdout)
    said.pop("file", None)
    assert said == report
    assert client.get("/tables/nosuchtable/log.jsonl").status_code == 404


@pytest.mark.parametrize("url", ["notaurl", "http://127.0.0.1:abc", "localhost:5000"])
def test_table_open_says_what_an_address_is_when_url_is_not_one(url: str) -> None:
    ran = command(
        [
            "table",
            "open",
            "--players",
            "dana,lior",
            "--url",
            url,
            "--no-qr",
        ],
    )
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr == (
        f"yaniv-audit: --url {url!r}: expected the server's address, "
        "such as http://192.168.1.20:5000\n"
    )
    assert ran.stdout == ""


def test_table_open_names_the_field_of_a_player_it_refuses_once(tmp_path: Path) -> None:
    ran = command(
        [
            "table",
            "open",
            "--players",
            "dana,dana,lior",
            "--no-qr",
            "--db",
            str(tmp_path / "club.duckdb"),
        ],
    )
    assert ran.returncode == 2
    assert ran.stderr == (
        'yaniv-audit: the table\'s game_started: field "players.1": "dana" is seated twice\n'
    )


def test_table_open_refuses_an_empty_name_among_the_players(tmp_path: Path) -> None:
    ran = command(
        [
            "table",
            "open",
            "--players",
            "dana,,omer",
            "--no-qr",
            "--db",
            str(tmp_path / "club.duckdb"),
        ],
    )
    assert ran.returncode == 2 and ran.stdout == ""
    assert ran.stderr == (
        "yaniv-audit: --players 'dana,,omer': player 2 has no name "
        "(expected the names in seat order, by comma)\n"
    )


def test_table_open_says_a_phone_cannot_reach_a_link_to_this_machine_only(tmp_path: Path) -> None:
    ran = command(
        [
            "table",
            "open",
            "--players",
            "dana,omer",
            "--no-qr",
            "--db",
            str(tmp_path / "club.duckdb"),
        ],
    )
    assert ran.returncode == 0
    assert ran.stderr == (
        "the links name http://127.0.0.1:5000, this machine only: "
        "for the phones at the table, give --url with this machine's "
        "address on their network (serve --host 0.0.0.0)\n"
    )


def without_game_id(lines: list[bytes]) -> list[bytes]:
    first = json.loads(lines[0])
    del first["game_id"]
    return [json.dumps(first).encode(), *lines[1:]]


@pytest.mark.parametrize("order", ["shorter first", "longer first"])
def test_two_stores_without_game_id_where_one_continues_the_other_are_one_game(
    client: FlaskClient, app: Flask, order: str
) -> None:
    lines = without_game_id(LINES)
    short, whole = b"\n".join(lines[:30]), b"\n".join(lines)
    for body in (short, whole) if order == "shorter first" else (whole, short):
        assert client.post("/api/v1/games", data=body).status_code == 201
    with app.extensions["yaniv_store"].reading() as r:
        latest = r.archive.query("SELECT events FROM latest_games")[1]
    assert latest == [(len(LINES),)]


def test_a_phone_storing_its_log_of_a_table_adds_no_game(client: FlaskClient, app: Flask) -> None:
    lines = without_game_id(LINES)
    table, key = open_table(client, lines[0])
    play(client, table, key, lines[1:40])
    # the phone taps "Store" with the log it had a few entries ago, and with the whole
    assert client.post("/api/v1/games", data=b"\n".join(lines[:25])).status_code == 201
    assert client.post("/api/v1/games", data=b"\n".join(lines[:40])).status_code == 200
    with app.extensions["yaniv_store"].reading() as r:
        latest = r.archive.query("SELECT events, source FROM latest_games")[1]
    assert latest == [(40, f"table {table}")]


def verified(app: Flask) -> list[str]:
    """What ``verify`` finds wrong in the archive (each game's events, its links)."""
    with app.extensions["yaniv_store"].reading() as r:
        _games, mismatches = r.archive.verify(jobs=1)
    return [m.problem for m in mismatches]


def latest(app: Flask) -> list[tuple[Any, ...]]:
    with app.extensions["yaniv_store"].reading() as r:
        return list(r.archive.query("SELECT events, source FROM latest_games")[1])


@pytest.mark.parametrize("game_id", ["named", "unnamed"])
def test_a_stored_log_beyond_an_open_tables_entries_is_refused_naming_the_table(
    client: FlaskClient, app: Flask, game_id: str
) -> None:
    lines = LINES if game_id == "named" else without_game_id(LINES)
    table, key = open_table(client, lines[0])
    seen = play(client, table, key, lines[1:20])
    r = client.post("/api/v1/games", data=b"\n".join(lines[:30]))
    assert r.status_code == 409, r.json
    error = r.json["error"]
    assert error["code"] == "table_open"
    assert table in error["message"] and "20 entries" in error["message"]
    assert error["at_table"][0]["table"] == table
    assert error["at_table"][0]["table_entries"] == 20
    assert error["added"] == []
    # nothing stored: the table stays the game, and goes on past the refused log
    assert latest(app) == [(20, f"table {table}")]
    assert play(client, table, key, lines[seen:35], seen=seen) == 35
    assert latest(app) == [(35, f"table {table}")]
    assert verified(app) == []
    # once the table is closed its game no longer grows: a longer log continues it
    closed = client.post(
        f"/api/v1/tables/{table}/close", headers={"Authorization": f"Bearer {key}"}
    )
    assert closed.status_code == 200
    assert client.post("/api/v1/games", data=b"\n".join(lines[:50])).status_code == 201
    assert [events for events, _source in latest(app)] == [50]
    assert verified(app) == []


def test_ingest_refuses_a_log_beyond_an_open_tables_entries(
    client: FlaskClient, app: Flask, tmp_path: Path
) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:20])
    app.extensions["yaniv_store"].close()  # the command line writes between requests
    log = tmp_path / "phone.jsonl"
    log.write_bytes(b"\n".join(LINES[:30]) + b"\n")
    ran = command(
        [
            "ingest",
            "--db",
            app.config["ARCHIVE"],
            str(log),
        ],
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"being played at table {table}" in ran.stdout
    assert "not stored" in ran.stdout
    assert append(client, table, key, 20, b"\n".join(LINES[20:30])).json["seq"] == 30
    assert verified(app) == []


def test_logs_stored_as_earlier_parts_or_rewrites_of_a_table_follow_it(
    client: FlaskClient, app: Flask
) -> None:
    table, key = open_table(client)
    play(client, table, key, LINES[1:20])
    assert client.post("/api/v1/games", data=b"\n".join(LINES[:12])).status_code == 201
    said = {"type": "note", "seq": 15, "text": "typed on another phone", "player": "lior"}
    rewrite = b"\n".join([*LINES[:15], json.dumps(said).encode()])
    assert client.post("/api/v1/games", data=rewrite).status_code == 409  # as evidence
    play_from = play(client, table, key, LINES[20:40], batch=5, seen=20)
    assert play_from == 40
    with app.extensions["yaniv_store"].reading() as r:
        links = r.archive.query(
            "SELECT g.events, t.events FROM games g JOIN games t "
            "ON t.fingerprint = coalesce(g.part_of, g.rewrites) ORDER BY g.events"
        )[1]
        rewrites = r.archive.rewrites()
    # the earlier part and the rewrite name the table's game as it is now
    assert links == [(12, 40), (16, 40)]
    assert [(w.differs_at, w.rewrites_source) for w in rewrites] == [(15, f"table {table}")]
    assert latest(app) == [(40, f"table {table}")]
    assert verified(app) == []
