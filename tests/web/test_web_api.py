"""The JSON API under /api/v1 (Flask's test client): the same audit as the command line,
every endpoint and error, the headers, the limits, writes, the OpenAPI document.
tests/web/test_serve.py sends the same over real HTTP to ``yaniv-audit serve``."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from yaniv_audit.archive import Archive, analytics
from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.core.audit import compare_log
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log
from yaniv_audit.io.rules_files import resolve_rules
from yaniv_audit.schema_export import SCHEMAS_DIR
from yaniv_audit.web import create_app
from yaniv_audit.web.board import board
from yaniv_audit.web.openapi import openapi

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
LOGS = sorted(REPLAYS.glob("*.jsonl"))
MIDDLE = REPLAYS / "middle-card.jsonl"
FRIDAY = REPLAYS / "clean-assaf-reduction.jsonl"
ELSEWHERE = {"REMOTE_ADDR": "203.0.113.9"}


def fingerprint_of(path: Path) -> str:
    return tree_hash(read_log(path).leaves).hex()


def as_json(obj: Any) -> Any:
    return json.loads(json.dumps(obj))


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("api") / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(p) for p in LOGS], jobs=1)
        list(archive.audit(jobs=1))
    return db


@pytest.fixture(scope="module")
def app(archive_file: Path) -> Flask:
    return create_app({"TESTING": True, "ARCHIVE": str(archive_file)})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def error(response: Any, status: int, code: str, field: str | None = None) -> str:
    """The error's message, after checking its status, code and field."""
    assert response.status_code == status, response.get_data(as_text=True)[:300]
    body = response.get_json()["error"]
    assert (body["status"], body["code"]) == (status, code), body
    if field is not None:
        assert body["field"] == field
    text: str = body["message"]
    assert "Traceback" not in text
    assert not re.search(r"(IO|Binder|Catalog|Parser|Conversion|Out of Range) Error", text)
    return text


# --- rules ----------------------------------------------------------------------------


def test_rules_index_and_show(client: FlaskClient) -> None:
    body = client.get("/api/v1/rules").get_json()
    assert [r["id"] for r in body] == [
        "israeli",
        "classic",
        "cardgames-zone",
        "namu",
        "de-wiki",
        "mcleod",
        "jhyap",
    ]
    assert body[1]["params"]["yaniv_max"] == 5
    ok = client.get("/api/v1/rules/israeli(yaniv_max=5,pickup=any)")
    assert ok.get_json()["id"] == "israeli(pickup=any,yaniv_max=5)"
    assert "yaniv_max" in error(
        client.get("/api/v1/rules/israeli(yaniv_max=true)"), 400, "bad_rules", "rule_id"
    )


def test_a_rule_id_with_a_line_break_is_a_400_naming_it(client: FlaskClient) -> None:
    """It was a 404 "nothing at /api/v1/rules/..." (the route did not match a line break),
    which the document does not give for it (schemathesis, issue 27)."""
    assert "unknown preset" in error(
        client.get("/api/v1/rules/no%0Asuch"), 400, "bad_rules", "rule_id"
    )


# --- a posted log ---------------------------------------------------------------------

CLI_REPORT = {k: v for k, v in audit_file(str(MIDDLE)).items() if k != "file"}


@pytest.mark.parametrize(
    "content_type",
    [
        "application/x-ndjson",
        "application/json",
        "text/plain",
        None,
        "application/x-www-form-urlencoded",  # what curl --data-binary sends by default
    ],
)
def test_audit_reads_the_body_whatever_its_content_type(
    client: FlaskClient, content_type: str | None
) -> None:
    kwargs: dict[str, Any] = {"data": MIDDLE.read_bytes()}
    if content_type:
        kwargs["content_type"] = content_type
    response = client.post("/api/v1/audit", **kwargs)
    assert response.status_code == 200 and response.get_json() == CLI_REPORT
    # a query parameter never consumes the body
    under = client.post("/api/v1/audit?rules=namu", **kwargs).get_json()
    assert under["verdict"] == "clean" and under["rules"]["id"] == "namu"


def test_audit_of_a_json_array_and_of_a_multipart_upload(client: FlaskClient) -> None:
    events = [json.loads(line) for line in MIDDLE.read_text().splitlines()]
    assert client.post("/api/v1/audit", json=events).get_json() == CLI_REPORT
    upload = client.post(
        "/api/v1/audit",
        data={"log": (io.BytesIO(MIDDLE.read_bytes()), "/home/x/middle.jsonl")},
        content_type="multipart/form-data",
    )
    assert upload.get_json() == CLI_REPORT


def test_posted_log_errors(client: FlaskClient) -> None:
    error(client.post("/api/v1/audit", data=b""), 400, "no_log", "log")
    error(
        client.post("/api/v1/audit", data={"other": "x"}, content_type="multipart/form-data"),
        400,
        "no_log",
        "log",
    )
    bad = client.post("/api/v1/audit", data=b'{"type":"game_started"}\n')
    assert error(bad, 422, "unreadable_log", "log").startswith("request: line 1: game_started")
    assert bad.get_json()["error"]["line"] == 1
    assert "nope" in error(
        client.post("/api/v1/audit?rules=nope", data=b"x"), 400, "bad_rules", "rules"
    )
    error(
        client.post("/api/v1/board?seat=x", data=MIDDLE.read_bytes()), 400, "bad_parameter", "seat"
    )
    # no rule set beyond its ranges: ten million decks took one worker 4.3 GB (issue 27)
    for rules in ("israeli(decks=10000000)", "israeli(score_limit=9223372036854775808)"):
        for path in ("/api/v1/audit", "/api/v1/board", "/api/v1/state", "/api/v1/compare"):
            message = error(
                client.post(f"{path}?rules={rules}", data=MIDDLE.read_bytes()),
                400,
                "bad_rules",
                "rules",
            )
            assert "expected a whole number from " in message, message
    # nor a number of 2**63 or more in the log, which orjson cannot write (a 500 before)
    lines = MIDDLE.read_bytes().splitlines()
    game = json.loads(lines[0])
    for big in ({**game, "meta": {"n": 2**63}}, {**game, "_serial": -(10**30)}):
        data = b"\n".join([json.dumps(big).encode(), *lines[1:]])
        for path in ("/api/v1/audit", "/api/v1/board", "/api/v1/state", "/api/v1/compare"):
            message = error(client.post(path, data=data), 422, "unreadable_log", "log")
            assert "line 1: game_started: field " in message and " got a number of " in message
    error(client.get("/api/v1/nothing-here"), 404, "not_found")
    not_allowed = client.get("/api/v1/audit")
    error(not_allowed, 405, "method_not_allowed")
    assert "POST" in not_allowed.headers["Allow"]  # it had none (schemathesis, issue 27)


def test_board_and_compare_of_a_posted_log(client: FlaskClient) -> None:
    sent = client.post("/api/v1/board?rules=classic&seat=noa", data=MIDDLE.read_bytes())
    assert sent.get_json() == as_json(board(read_log(MIDDLE), resolve_rules("classic"), "noa"))
    compared = client.post("/api/v1/compare?rules=israeli&rules=namu", data=MIDDLE.read_bytes())
    expected = compare_log(read_log(MIDDLE), [resolve_rules("israeli"), resolve_rules("namu")])
    assert compared.get_json() == as_json(expected)


def test_size_and_event_limits_are_413(archive_file: Path) -> None:
    small = create_app(
        {"TESTING": True, "ARCHIVE": str(archive_file), "MAX_BYTES": 2048, "MAX_EVENTS": 20}
    ).test_client()
    big = small.post("/api/v1/audit", data=FRIDAY.read_bytes())
    assert "larger than 2,048 bytes" in error(big, 413, "too_large")
    lines = FRIDAY.read_text().splitlines()[:30]
    many = small.post(
        "/api/v1/audit", data=("\n".join(x.replace(" ", "") for x in lines) + "\n").encode()[:2048]
    )
    assert "more than 20 events" in error(many, 413, "too_many_events", "log")
    array = [json.loads(x) for x in lines[:24]]
    assert "more than 20" in error(
        small.post("/api/v1/audit", data=json.dumps(array, separators=(",", ":")).encode()[:2048]),
        413,
        "too_many_events",
    )


def long_ids_log(length: int, notes: int) -> bytes:
    """../shared/attacks/make_long_ids.py: 8 players whose ids are ``length`` characters,
    one scoresheet round, then ``notes`` notes."""
    players = [chr(97 + i) * length for i in range(8)]
    events: list[dict[str, Any]] = [
        {"type": "game_started", "format": "yaniv-log/1", "players": players, "rules": "israeli"},
        {"type": "round_started", "round": 1, "starter": players[0]},
        {
            "type": "showdown",
            "caller": players[0],
            "hands": {},
            "totals": dict.fromkeys(players, 0),
        },
        {"type": "round_ended", "round": 1},
    ]
    lines = [json.dumps(e, separators=(",", ":")) for e in events]
    return ("\n".join(lines) + "\n" + '{"type":"note","text":""}\n' * notes).encode()


def test_a_player_id_is_at_most_64_characters(client: FlaskClient) -> None:
    """Eight ids of 30,000 characters and 2,000 notes (600 KB) made a board of gigabytes
    and killed the server (issue 35): the ids are refused, naming the line and field."""
    said = error(
        client.post("/api/v1/board", data=long_ids_log(30_000, 2000)), 422, "unreadable_log", "log"
    )
    assert said.startswith(
        'request: line 1: game_started: field "players.0": expected a '
        'player id of at most 64 characters, got "aaaa'
    )
    assert "a" * 100 not in said  # the id is cut short in the message
    said = error(
        client.post("/api/v1/audit", data=long_ids_log(65, 0)), 422, "unreadable_log", "log"
    )
    assert "line 1" in said and "at most 64 characters" in said
    assert client.post("/api/v1/audit", data=long_ids_log(64, 0)).status_code == 200
    # the JSON Schema says the same
    schema = json.loads((SCHEMAS_DIR / "log-event.schema.json").read_text())
    first = json.loads(long_ids_log(65, 0).splitlines()[0])
    assert not Draft202012Validator(schema).is_valid(first)
    first["players"] = [p[:64] for p in first["players"]]
    assert Draft202012Validator(schema).is_valid(first)


def test_the_board_gives_the_players_once_not_in_every_step(client: FlaskClient) -> None:
    """The ids were in every step's scores, hands and totals: 18.5 MB for 20,000 events of
    eight 64-character ids; the steps now name seats."""
    few = client.post("/api/v1/board", data=long_ids_log(64, 10)).get_data()
    many = client.post("/api/v1/board", data=long_ids_log(64, 2000)).get_data()
    ids = [(chr(97 + i) * 64).encode() for i in range(8)]
    assert [many.count(i) for i in ids] == [few.count(i) for i in ids]
    assert len(many) < 1_000_000  # 1,855,650 bytes with the ids in every step
    step = json.loads(many)["steps"][-1]["state"]
    assert step["scores"] == [30] + [0] * 7 and step["out"] == []  # an Assaf at 0


def test_a_board_too_large_to_build_is_refused_before_the_replay(archive_file: Path) -> None:
    """Estimated from the log (events x seats), a 413 saying why, from the API and the
    pages alike, before any replay."""
    small = create_app(
        {"TESTING": True, "ARCHIVE": str(archive_file), "MAX_BOARD_BYTES": 50_000}
    ).test_client()
    said = error(
        small.post("/api/v1/board", data=long_ids_log(64, 2000)), 413, "answer_too_large", "log"
    )
    assert said.startswith("request: its board would be about ")
    assert "(2,004 events x 8 seats), more than the 50,000 bytes this server builds" in said
    assert small.post("/api/v1/board", data=long_ids_log(64, 10)).status_code == 200
    assert small.post("/api/v1/audit", data=long_ids_log(64, 2000)).status_code == 200
    big = fingerprint_of(FRIDAY)  # 75 events of 3: about 74 KB estimated
    error(small.get(f"/api/v1/games/{big}/board"), 413, "answer_too_large", "log")
    page = small.get(f"/games/{big}")
    assert page.status_code == 413 and "its board would be about" in page.get_data(as_text=True)
    page = small.post("/view", data={"text": long_ids_log(64, 2000).decode()})
    assert page.status_code == 413


def test_the_first_routes_redirect_to_v1(client: FlaskClient) -> None:
    moved = client.post("/api/audit?rules=namu", data=MIDDLE.read_bytes())
    assert moved.status_code == 308 and moved.headers["Location"] == "/api/v1/audit?rules=namu"
    followed = client.post("/api/audit?rules=namu", data=MIDDLE.read_bytes(), follow_redirects=True)
    assert followed.get_json()["verdict"] == "clean"
    fp = fingerprint_of(MIDDLE)
    assert (
        client.get(f"/api/games/{fp}?seat=noa").headers["Location"]
        == f"/api/v1/games/{fp}/board?seat=noa"
    )
    assert client.get("/api/rules").headers["Location"] == "/api/v1/rules"


# --- the archive ----------------------------------------------------------------------


def fingerprints(response: Any) -> list[str]:
    assert response.status_code == 200, response.get_data(as_text=True)
    return [g["fingerprint"] for g in response.get_json()["games"]]


def test_games_list_filters_sorts_and_pages(client: FlaskClient) -> None:
    everything = client.get("/api/v1/games").get_json()
    assert everything["total"] == len(LOGS) and everything["limit"] == 100
    assert [g["source"] for g in everything["games"]] == [p.name for p in LOGS]  # base names
    assert fingerprints(client.get("/api/v1/games?player=noa")) == [fingerprint_of(MIDDLE)]
    classic = fingerprints(client.get("/api/v1/games?rules=israeli(yaniv_max=5)"))
    assert classic == [fingerprint_of(REPLAYS / "yaniv-over-limit.jsonl")]  # by parameters
    violations = client.get("/api/v1/games?verdict=violations").get_json()["games"]
    assert {g["verdict"] for g in violations} == {"violations"} and len(violations) == 2
    clean = client.get("/api/v1/games?has_findings=false").get_json()["games"]
    assert [g["source"] for g in clean] == [
        p.name for p in LOGS if not audit_file(str(p))["findings"]
    ]
    assert "clean-assaf-reduction.jsonl" in [g["source"] for g in clean]
    assert fingerprints(client.get("/api/v1/games?since=2024-05-01&until=2024-06-01")) == [
        fingerprint_of(FRIDAY)
    ]
    assert fingerprints(client.get("/api/v1/games?until=2024-05-17")) == []
    longest = client.get("/api/v1/games?sort=-events&limit=2&offset=0").get_json()
    assert [g["events"] for g in longest["games"]] == [75, 30] and longest["total"] == len(LOGS)
    assert len(fingerprints(client.get("/api/v1/games?sort=events&offset=6"))) == 2


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=abc", "limit"),
        ("limit=0", "limit"),
        ("limit=1001", "limit"),
        ("offset=-1", "offset"),
        ("offset=99999999999999999999999", "offset"),
        ("has_findings=maybe", "has_findings"),
        ("since=yesterday", "since"),
        ("sort=colour", "sort"),
        ("verdict=dirty", "verdict"),
    ],
)
def test_bad_paging_and_filters_are_400_naming_the_parameter(
    client: FlaskClient, query: str, field: str
) -> None:
    assert field in error(client.get(f"/api/v1/games?{query}"), 400, "bad_parameter", field)


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=%205", "limit"),
        ("limit=5%20", "limit"),
        ("limit=%2B5", "limit"),
        ("limit=1_0", "limit"),
        ("limit=%EF%BC%95", "limit"),
        ("offset=%200", "offset"),
        ("has_findings=yes", "has_findings"),
        ("has_findings=1", "has_findings"),
        ("has_findings=TRUE", "has_findings"),
        ("sort=%20", "sort"),
        ("sort=events%20", "sort"),
        ("sort=--events", "sort"),
        ("verdict=%20clean", "verdict"),
        ("since=%20", "since"),
    ],
)
def test_a_typed_parameter_is_read_exactly(client: FlaskClient, query: str, field: str) -> None:
    """A number, boolean, choice or date with a blank around it, a sign, an underscore or
    a full-width digit was taken (int() reads " 5", "+5", "1_0" and "\uff15"), and
    has_findings took 1, yes and TRUE: none of them is what the document says the
    parameter is (schemathesis, issue 27)."""
    assert field in error(client.get(f"/api/v1/games?{query}"), 400, "bad_parameter", field)


def test_an_empty_parameter_is_one_left_out_as_the_document_says(client: FlaskClient) -> None:
    """The list page's form sends its unset fields empty (?verdict=&has_findings=), and the
    API reads the list as the page does: ?sort= is ?sort left out. The document said
    nothing of it, so ?sort= was "accepted invalid data" (schemathesis, issue 27); each
    query parameter now says allowEmptyValue."""
    everything = client.get("/api/v1/games").get_json()
    empty = "sort=&verdict=&has_findings=&since=&until=&limit=&offset=&player=&rules=&q="
    assert client.get(f"/api/v1/games?{empty}").get_json() == everything
    for path, operations in openapi()["paths"].items():
        for method, operation in operations.items():
            for parameter in operation["parameters"]:
                if parameter["in"] == "query":
                    assert parameter["allowEmptyValue"] is True, (method, path, parameter)


def test_since_and_until_take_an_rfc_3339_time(client: FlaskClient) -> None:
    """The document names the formats (date, date-time); a time RFC 3339 allows, with a
    lower-case t and z or a leap second, was a 400."""
    later = client.get("/api/v1/games?since=2024-05-18").get_json()["total"]
    for text in ("2024-05-18t00:00:00z", "2024-05-17T23:59:60Z", "2024-05-18T02:00:00%2B02:00"):
        assert client.get(f"/api/v1/games?since={text}").get_json()["total"] == later, text
    parameters = openapi()["paths"]["/api/v1/games"]["get"]["parameters"]
    since = next(p for p in parameters if p["name"] == "since")
    assert since["schema"]["anyOf"] == [{"format": "date"}, {"format": "date-time"}]
    offset = next(p for p in parameters if p["name"] == "offset")
    assert offset["schema"]["maximum"] == 1 << 40  # a larger offset is a 400


def test_a_game_by_fingerprint_prefix_or_game_id(client: FlaskClient) -> None:
    fp = fingerprint_of(FRIDAY)
    for ref in (fp, fp[:8], fp[:20].upper(), "friday-at-dana-2024-05-17"):
        game = client.get(f"/api/v1/games/{ref}").get_json()
        assert game["fingerprint"] == fp and game["verdict"] == "clean", ref
    assert "give a fingerprint" in error(
        client.get("/api/v1/games/" + "0" * 64), 404, "no_such_game", "game"
    )
    error(client.get(f"/api/v1/games/{fp[:7]}"), 404, "no_such_game")  # too short a prefix


def test_an_ambiguous_prefix_is_409_listing_the_candidates(
    archive_file: Path, tmp_path: Path
) -> None:
    db = tmp_path / "twins.duckdb"
    db.write_bytes(archive_file.read_bytes())
    fp = fingerprint_of(MIDDLE)
    twin = fp[:10] + "0" * 54
    con = duckdb.connect(str(db))
    con.execute(
        "INSERT INTO games (game_no, fingerprint, game_id, source, players, rules_key, "
        "rules_id, events, started_at, ingested_at) SELECT 999, ?, game_id || '-twin', "
        "source, players, rules_key, rules_id, events, started_at, ingested_at "
        "FROM games WHERE fingerprint = ?",
        [twin, fp],
    )
    con.close()
    client = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    response = client.get(f"/api/v1/games/{fp[:10]}/board")
    assert "names 2 games" in error(response, 409, "ambiguous", "game")
    assert {c["fingerprint"] for c in response.get_json()["error"]["candidates"]} == {fp, twin}
    assert client.get(f"/api/v1/games/{fp[:11]}").get_json()["fingerprint"] == fp


def test_events_board_audit_and_compare_of_a_stored_game(client: FlaskClient) -> None:
    fp = fingerprint_of(MIDDLE)
    events = client.get(f"/api/v1/games/{fp[:12]}/events?offset=3&limit=2").get_json()
    assert events["total"] == 24 and [e["seq"] for e in events["events"]] == [3, 4]
    assert events["events"][0]["type"] == "draw"
    error(client.get(f"/api/v1/games/{fp}/events?limit=none"), 400, "bad_parameter", "limit")
    expected = as_json(board(read_log(MIDDLE), resolve_rules("classic"), "noa"))
    for _ in range(2):  # the second from the cache
        assert client.get(f"/api/v1/games/{fp}/board?rules=classic&seat=noa").get_json() == expected
    error(client.get(f"/api/v1/games/{fp}/board?seat=zed"), 400, "bad_parameter", "seat")
    declared = client.get(f"/api/v1/games/{fp}/audit").get_json()
    assert declared == CLI_REPORT  # read from the archive's audits
    assert client.get(f"/api/v1/games/{fp}/audit?rules=namu").get_json()["verdict"] == "clean"
    compared = client.get(f"/api/v1/games/{fp}/compare?rules=israeli&rules=namu").get_json()
    assert compared == as_json(
        compare_log(read_log(MIDDLE), [resolve_rules("israeli"), resolve_rules("namu")])
    )
    assert "nope" in error(
        client.get(f"/api/v1/games/{fp}/compare?rules=nope"), 400, "bad_rules", "rules"
    )


def test_reads_start_no_thread_each_and_the_archive_still_closes_when_idle(
    archive_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 35: each request set a new idle timer, a thread started under the lock every
    request takes, and 40 readers of a cached answer waited there in turn. One timer now,
    set again while requests come: the file is still closed once idle, for ingest."""
    import threading

    started: list[object] = []

    class CountedTimer(threading.Timer):
        def start(self) -> None:
            started.append(self)
            super().start()

    monkeypatch.setattr(threading, "Timer", CountedTimer)
    app = create_app({"TESTING": True, "ARCHIVE": str(archive_file), "ARCHIVE_IDLE": 0.5})
    client = app.test_client()
    store = app.extensions["yaniv_store"]
    for _ in range(50):
        assert client.get("/api/v1/games").status_code == 200
    assert len(started) <= 2 and store.opened == 1
    deadline = time.monotonic() + 10
    while store._archive is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store._archive is None
    assert client.get("/api/v1/games").status_code == 200 and store.opened == 2
    store.close()


def test_the_connection_is_shared_and_answers_are_cached(archive_file: Path) -> None:
    app = create_app({"TESTING": True, "ARCHIVE": str(archive_file)})
    client = app.test_client()
    fp = fingerprint_of(FRIDAY)
    for _ in range(3):
        assert client.get(f"/api/v1/games/{fp}/board?rules=namu").status_code == 200
        assert client.get("/api/v1/games").status_code == 200
    assert app.extensions["yaniv_store"].opened == 1
    cache = app.extensions["yaniv_cache"]
    assert (cache.hits, cache.misses) == (4, 2)  # the board and the list, each once
    zipped = client.get(f"/api/v1/games/{fp}/board?rules=namu", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip"
    app.extensions["yaniv_store"].close()


def test_every_named_report(client: FlaskClient, archive_file: Path) -> None:
    names = [r["name"] for r in client.get("/api/v1/reports").get_json()]
    assert names == list(analytics.REPORTS)
    with Archive(archive_file, locked=True) as archive:
        expected = {
            name: as_json(analytics.report(archive, name).to_json())
            for name in names
            if name != "rules-impact"
        }
    for name, table in expected.items():
        assert client.get(f"/api/v1/reports/{name}").get_json() == table, name
    players = client.get("/api/v1/reports/leaderboard?players=4").get_json()
    assert "in games with 4 players" in players["summary"]
    error(client.get("/api/v1/reports/leaderboard?players=9"), 400, "bad_parameter", "players")
    error(client.get("/api/v1/reports/rules-impact"), 400, "bad_parameter", "rules")
    error(client.get("/api/v1/reports/nope"), 404, "no_such_report", "name")


def audit_rows(db: Path) -> int:
    with Archive(db, locked=True) as archive:
        ((count,),) = archive.query("SELECT count(*) FROM audits")[1]
    return int(count)


def test_a_get_never_writes_a_report_under_rules_not_audited_yet_says_how(
    archive_file: Path, tmp_path: Path
) -> None:
    """From this machine without a token (an <img> on any page the host's browser opens),
    a report under new rules audited the whole archive and wrote its audits (issue 35):
    now a 409 naming the command, the archive unchanged; after it, the report."""
    db = tmp_path / "report.duckdb"
    db.write_bytes(archive_file.read_bytes())
    before = audit_rows(db)
    app = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0})
    for environ in (ELSEWHERE, {}):  # from another machine, and from this one
        refused = app.test_client().get(
            "/api/v1/reports/players?rules=israeli(yaniv_max=3)", environ_base=environ
        )
        said = error(refused, 409, "not_audited", "rules")
        assert "not all audited under israeli(yaniv_max=3)" in said
        assert "a GET never writes" in said
        command = "yaniv-audit audit --db report.duckdb --rules 'israeli(yaniv_max=3)'"
        assert command in said and refused.get_json()["error"]["command"] == command
    app.extensions["yaniv_store"].close()
    assert audit_rows(db) == before  # nothing written
    with Archive(db) as archive:  # what the command does
        list(archive.audit(resolve_rules("israeli(yaniv_max=3)"), jobs=1))
    impact = app.test_client().get("/api/v1/reports/rules-impact?rules=israeli(yaniv_max=3)")
    assert impact.status_code == 200
    assert impact.get_json()["report"] == "rules-impact"
    app.extensions["yaniv_store"].close()


def test_at_most_twelve_rule_sets_in_one_request(client: FlaskClient) -> None:
    """1,687 rules values took 37.6 s in one request (issue 35)."""
    twelve = [f"israeli(score_limit={n})" for n in range(100, 220, 10)]
    thirteen = [*twelve, "classic"]
    query = "&".join(f"rules={r}" for r in thirteen)
    ok = "&".join(f"rules={r}" for r in twelve)
    fp = fingerprint_of(MIDDLE)
    for method, path in (
        ("post", "/api/v1/compare"),
        ("get", f"/api/v1/games/{fp}/compare"),
        ("get", "/api/v1/reports/players"),
    ):
        send = getattr(client, method)
        body = {"data": MIDDLE.read_bytes()} if method == "post" else {}
        said = error(send(f"{path}?{query}", **body), 400, "bad_parameter", "rules")
        assert said == (
            "rules: 13 rule sets given; at most 12 may be compared or reported in one request"
        )
        if path != "/api/v1/reports/players":  # (a report under 12 would need 12 audits)
            answered = send(f"{path}?{ok}", **body)
            assert answered.status_code == 200, answered.get_data(as_text=True)[:300]
            assert len(answered.get_json()["results"]) == 12
    many = "&".join(["rules=classic"] * 1687)
    assert client.get(f"/api/v1/games/{fp}/compare?{many}").status_code == 400


def test_the_document_says_a_write_from_this_machine_needs_no_token() -> None:
    """It marked Authorization as required where a loopback write succeeds without it."""
    document = openapi()
    store = document["paths"]["/api/v1/games"]["post"]
    assert {} in store["security"] and {"bearerAuth": []} in store["security"]
    assert "without Authorization" in store["description"]
    scheme = document["components"]["securitySchemes"]["bearerAuth"]
    assert "needs no Authorization" in scheme["description"]
    rules = [
        p
        for p in document["paths"]["/api/v1/games/{ref}/compare"]["get"]["parameters"]
        if p["name"] == "rules"
    ]
    assert rules[0]["schema"]["maxItems"] == 12


# --- writes ------------------------------------------------------------------------------


def test_an_upload_named_with_a_nul_or_too_long_a_name_is_stored(tmp_path: Path) -> None:
    """Such names gave 500 (issue 27): kept as the archive's source, cleaned and cut."""
    client = create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "a.duckdb")}).test_client()
    names = {
        "a\x00b.jsonl": "a_b.jsonl",
        "x" * 300 + ".jsonl": "x" * 234 + ".jsonl",
        "é" * 200 + ".jsonl": "é" * 117 + ".jsonl",
        "x" * 300: "x" * 240,
        "..": "upload",
    }
    for sent, kept in names.items():
        answer = client.post(
            "/api/v1/games",
            data={"log": (io.BytesIO(MIDDLE.read_bytes()), sent)},
            content_type="multipart/form-data",
        )
        assert answer.status_code in (200, 201), answer.get_data(as_text=True)[:300]
        body = answer.get_json()
        (stored,) = body["added"] + body["duplicates"]
        assert stored["source"] in (kept, kept + ".jsonl"), stored["source"]


def test_a_post_to_games_with_no_log_that_reads_is_a_422(tmp_path: Path) -> None:
    """``{}`` posted to /api/v1/games was a 200 with the log in ``refused``: nothing was
    stored, yet the answer said all went well (schemathesis: invalid data accepted). A
    body none of whose logs reads is now a 422 naming the first one's fault, every log
    in ``refused``; a body of which one log reads is stored as before."""
    client = create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "a.duckdb")}).test_client()
    for body in (b"{}", b'"text"', b"[1]", b'{"type":"discard"}\n'):
        message = error(client.post("/api/v1/games", data=body), 422, "unreadable_log", "log")
        assert message.startswith("request: ")
    two = client.post(
        "/api/v1/games",
        data={"log": [(io.BytesIO(b"{}\n"), "a.jsonl"), (io.BytesIO(b"[]"), "b.json")]},
        content_type="multipart/form-data",
    )
    answer = error(two, 422, "unreadable_log", "log")
    assert answer.startswith("a.jsonl: ") and answer.endswith("(and 1 more logs refused)")
    assert [r["source"] for r in two.get_json()["error"]["refused"]] == ["a.jsonl", "b.json"]
    error(client.post("/api/v1/games", data=b" \n"), 400, "no_log", "log")
    assert client.post("/api/v1/games", data=MIDDLE.read_bytes()).status_code == 201
    check_error = Draft202012Validator(
        {"$ref": "#/components/schemas/Error", "components": openapi()["components"]}
    )
    assert list(check_error.iter_errors(two.get_json())) == []


def test_every_answer_of_a_post_to_games_is_documented() -> None:
    """POST /api/v1/games answered 200 (nothing new) and 400 (no log), which the document
    did not list (schemathesis, issue 27); it lists 422 now too, and 409 (a log kept as
    evidence only: a rewrite, a continuation after the game's end)."""
    responses = openapi()["paths"]["/api/v1/games"]["post"]["responses"]
    assert set(responses) == {"200", "201", "400", "401", "403", "409", "413", "422", "503"}
    assert responses["200"]["content"] == responses["201"]["content"]


def test_the_document_describes_a_log_body(client: FlaskClient) -> None:
    """A log in the body was any string under every content type, the empty one too: as
    JSON it is an array of events or one event; as text, something besides blanks; in a
    form, its log part is needed. What the document calls invalid is refused."""
    body = openapi()["paths"]["/api/v1/audit"]["post"]["requestBody"]["content"]
    assert body["text/plain"]["schema"]["pattern"] == r"\S"
    assert body["application/json"]["schema"]["anyOf"][0]["type"] == "array"
    assert body["multipart/form-data"]["schema"]["required"] == ["log"]
    for sent, content_type in (
        (b"", "text/plain"),
        (b" \n", "application/x-ndjson"),
        (b"[]", "application/json"),
        (b'"x"', "application/json"),
    ):
        answer = client.post("/api/v1/audit", data=sent, content_type=content_type)
        assert answer.status_code in (400, 422), (sent, answer.status_code)


def test_the_document_s_example_log_is_the_template_and_reads(client: FlaskClient) -> None:
    """The example of a log body is docs/template.jsonl: a client (and schemathesis, whose
    examples phase sends it) gets one real log that every operation taking a log answers."""
    content = openapi()["paths"]["/api/v1/state"]["post"]["requestBody"]["content"]
    template = (REPLAYS.parent / "docs" / "template.jsonl").read_text(encoding="utf-8")
    assert content["application/x-ndjson"]["example"] == template
    assert content["application/json"]["example"] == [
        json.loads(line) for line in template.splitlines()
    ]
    for media in (m for m in content if m != "multipart/form-data"):
        example = content[media]["example"]
        sent = example if isinstance(example, str) else json.dumps(example)
        for path in ("/api/v1/audit", "/api/v1/board", "/api/v1/compare", "/api/v1/state"):
            answer = client.post(path, data=sent, content_type=media)
            assert answer.status_code == 200, (path, media, answer.get_data(as_text=True)[:200])


def test_ingest_from_this_machine_and_with_a_token(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    local = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    error(local.get("/api/v1/games"), 404, "no_archive")
    error(
        local.post("/api/v1/games", data=MIDDLE.read_bytes(), environ_base=ELSEWHERE),
        401,
        "unauthorized",
    )
    error(
        local.post(
            "/api/v1/games", data=MIDDLE.read_bytes(), headers={"X-Forwarded-For": "203.0.113.9"}
        ),
        401,
        "unauthorized",
    )
    error(
        local.post(
            "/api/v1/games", data=MIDDLE.read_bytes(), headers={"Origin": "https://evil.example"}
        ),
        403,
        "forbidden",
    )
    stored = local.post(
        "/api/v1/games",
        data={
            "log": [
                (io.BytesIO(MIDDLE.read_bytes()), "middle.jsonl"),
                (io.BytesIO(b'{"type":"discard"}\n'), "bad.jsonl"),
            ]
        },
        content_type="multipart/form-data",
    )
    assert stored.status_code == 201, stored.get_data(as_text=True)
    body = stored.get_json()
    assert [a["fingerprint"] for a in body["added"]] == [fingerprint_of(MIDDLE)]
    assert body["added"][0]["source"] == "middle.jsonl" and body["total"] == 1
    assert body["refused"][0]["source"] == "bad.jsonl"
    assert body["refused"][0]["error"]["message"].startswith("bad.jsonl: line 1: ")
    again = local.post("/api/v1/games", data=MIDDLE.read_bytes())
    assert again.status_code == 200 and len(again.get_json()["duplicates"]) == 1
    listed = local.get("/api/v1/games").get_json()["games"]
    assert listed[0]["verdict"] == "violations"  # audited when stored

    guarded = create_app(
        {"TESTING": True, "ARCHIVE": str(db), "WRITE_TOKEN": "s3cret", "ARCHIVE_IDLE": 0}
    ).test_client()
    error(guarded.post("/api/v1/games", data=FRIDAY.read_bytes()), 401, "unauthorized")
    error(
        guarded.post(
            "/api/v1/games", data=FRIDAY.read_bytes(), headers={"Authorization": "Bearer wrong"}
        ),
        401,
        "unauthorized",
    )
    ok = guarded.post(
        "/api/v1/games",
        data=FRIDAY.read_bytes(),
        environ_base=ELSEWHERE,
        headers={"Authorization": "Bearer s3cret"},
    )
    assert ok.status_code == 201 and ok.get_json()["total"] == 2


# --- safety -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/", "/record", "/api/v1/rules", "/api/v1/nothing", "/static/viewer/viewer.js"]
)
def test_security_headers_on_every_response(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"


def test_no_server_path_is_shown(archive_file: Path, client: FlaskClient) -> None:
    folder = str(archive_file.parent)
    for url in [
        "/",
        "/api/v1/games",
        f"/games/{fingerprint_of(MIDDLE)}",
        f"/api/v1/games/{fingerprint_of(MIDDLE)}/audit",
    ]:
        assert folder not in client.get(url).get_data(as_text=True), url
    assert str(REPLAYS) not in client.get(f"/games/{fingerprint_of(MIDDLE)}").get_data(as_text=True)
    missing = create_app({"TESTING": True, "ARCHIVE": str(archive_file.parent / "none.duckdb")})
    page = missing.test_client().get("/").get_data(as_text=True)
    assert "none.duckdb" in page and folder not in page


# --- the OpenAPI document ----------------------------------------------------------------


def test_the_openapi_document_is_valid_current_and_served(client: FlaskClient) -> None:
    from openapi_spec_validator import validate  # 0.4 s to import: here, not at collection

    document = openapi()
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert json.loads((SCHEMAS_DIR / "openapi.json").read_text()) == document
    assert client.get("/api/v1/openapi.json").get_json() == as_json(document)
    routes = {
        re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", r.rule)
        for r in client.application.url_map.iter_rules()
        if r.rule.startswith("/api/v1/") and r.rule not in ("/api/v1/", "/api/v1/openapi.json")
    }
    assert routes == set(document["paths"])


def test_answers_match_the_openapi_schemas(client: FlaskClient) -> None:
    document = openapi()
    fp = fingerprint_of(MIDDLE)

    def check(name: str, body: Any) -> None:
        schema = {"$ref": f"#/components/schemas/{name}", "components": document["components"]}
        errors = [e.message for e in Draft202012Validator(schema).iter_errors(body)]
        assert errors == [], (name, errors[:3])

    check("GameList", client.get("/api/v1/games").get_json())
    check("Game", client.get(f"/api/v1/games/{fp}").get_json())
    check("Events", client.get(f"/api/v1/games/{fp}/events").get_json())
    check("Board", client.get(f"/api/v1/games/{fp}/board?seat=noa").get_json())
    check("AuditReport", client.get(f"/api/v1/games/{fp}/audit").get_json())
    check("Compare", client.get(f"/api/v1/games/{fp}/compare").get_json())
    check("ReportTable", client.get("/api/v1/reports/players").get_json())
    check("Error", client.get("/api/v1/games?limit=x").get_json())


def test_a_write_while_another_process_holds_the_archive_is_a_503(
    archive_file: Path, tmp_path: Path
) -> None:
    from conftest import held_open_by_another_process

    db = tmp_path / "held.duckdb"
    db.write_bytes(archive_file.read_bytes())
    client = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    with held_open_by_another_process(db):
        busy = client.post("/api/v1/games", data=FRIDAY.read_bytes())
    message = error(busy, 503, "archive_unavailable")
    assert message.startswith("held.duckdb: the archive is in use by another process")
    assert str(tmp_path) not in busy.get_data(as_text=True)


def test_findings_are_said_in_the_language_accept_language_asks(client: FlaskClient) -> None:
    """Accept-Language adds each finding's "text" in that language (cards as the board
    draws them); "message" stays English, and without the header the report is the CLI's."""
    body = MIDDLE.read_bytes()
    headers = {"Content-Type": "application/x-ndjson"}
    plain = client.post("/api/v1/audit", data=body, headers=headers).get_json()
    assert "text" not in plain["findings"][0]
    asked = client.post(
        "/api/v1/audit", data=body, headers={**headers, "Accept-Language": "ru-RU,ru;q=0.9"}
    ).get_json()
    finding = asked["findings"][0]
    assert finding["message"] == plain["findings"][0]["message"]
    assert finding["text"] == (
        "noa взял 8♥ из середины 7♥ 8♥ 9♥; взять можно только 7♥ или 9♥ (pickup=ends)"
    )
    state = client.post(
        "/api/v1/state", data=body, headers={**headers, "Accept-Language": "ko"}
    ).get_json()
    texts = [f["text"] for f in state["report"]["findings"]]
    assert texts and "가져갈 수 있습니다" in texts[0]
    other = client.post(
        "/api/v1/audit", data=body, headers={**headers, "Accept-Language": "fr"}
    ).get_json()
    assert other["findings"][0]["text"].startswith("noa took 8♥ from the middle of")


def test_the_leaderboard_leaves_the_bots_out_unless_asked(tmp_path: Path) -> None:
    """As `report leaderboard` does: simulated games are left out and the summary says so;
    ?simulated=true counts them."""
    db = tmp_path / "bots.duckdb"
    bots = sorted((REPLAYS / "simulated" / "classic").glob("*.jsonl"))[:2]
    with Archive(db) as archive:
        archive.ingest([str(REPLAYS / "wrong-score.jsonl"), *map(str, bots)], jobs=1)
        list(archive.audit(jobs=1))
    client = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    people = client.get("/api/v1/reports/leaderboard").get_json()
    assert people["summary"].endswith("(the 2 simulated games left out)")
    assert {row["games"] for row in people["rows"]} == {1}
    every = client.get("/api/v1/reports/leaderboard?simulated=true").get_json()
    assert "left out" not in every["summary"]
    assert len(every["rows"]) > len(people["rows"])
    error(
        client.get("/api/v1/reports/leaderboard?simulated=maybe"), 400, "bad_parameter", "simulated"
    )


def test_a_posted_rewrite_is_a_409_that_names_it(tmp_path: Path) -> None:
    """A log that rewrites an archived game was a 201 "added", where the CLI says
    "rewrites ... never counted" and exits 1: the API says the same, with a 409."""
    db = tmp_path / "rewrite.duckdb"
    client = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    lines = FRIDAY.read_text().splitlines()
    assert lines[49].startswith('{"type": "note", "seq": 49')
    rewrite = "\n".join([*lines[:49], lines[49].replace("Assaf!", "No Assaf"), *lines[50:]]) + "\n"
    assert client.post("/api/v1/games", data=FRIDAY.read_bytes()).status_code == 201
    answer = client.post("/api/v1/games", data=rewrite.encode())
    message = error(answer, 409, "rewrites_game", "log")
    assert (
        "rewrites game friday-at-dana-2024-05-17, archived before with other events "
        f"({fingerprint_of(FRIDAY)[:16]}): they differ from event 49 on; kept as "
        "evidence, never counted in the reports"
    ) in message
    body = answer.get_json()["error"]
    assert body["total"] == 2  # stored, as evidence, as the CLI stores it
    assert [r["rewrites"] for r in body["rewrites"]] == [fingerprint_of(FRIDAY)]
    assert [a["fingerprint"] for a in body["added"]] == [r["fingerprint"] for r in body["rewrites"]]
    check_error = Draft202012Validator(
        {"$ref": "#/components/schemas/Error", "components": openapi()["components"]}
    )
    assert list(check_error.iter_errors(answer.get_json())) == []
    post = openapi()["paths"]["/api/v1/games"]["post"]
    assert "rewrites an archived game" in post["responses"]["409"]["description"]


def continued_after_end() -> bytes:
    lines = FRIDAY.read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["type"] == "game_ended"
    more = [
        {"type": "withdraw", "seq": last["seq"] + 1, "seqs": [last["seq"]]},
        {"type": "note", "seq": last["seq"] + 2, "text": "one more round"},
    ]
    return ("\n".join([*lines, *map(json.dumps, more)]) + "\n").encode()


def test_a_posted_continuation_of_an_ended_game_counts_only_when_asked(
    tmp_path: Path,
) -> None:
    """A writer posting the game plus a withdraw of its game_ended made the winner vanish
    from the leaderboard; now it is kept as evidence (409) unless ?reopen=true."""
    for reopen in (False, True):
        db = tmp_path / f"ended-{reopen}.duckdb"
        client = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
        assert client.post("/api/v1/games", data=FRIDAY.read_bytes()).status_code == 201
        answer = client.post(
            "/api/v1/games" + ("?reopen=true" if reopen else ""), data=continued_after_end()
        )
        latest = client.get("/api/v1/games/friday-at-dana-2024-05-17").get_json()
        if reopen:
            assert answer.status_code == 201, answer.get_data(as_text=True)
            assert latest["fingerprint"] != fingerprint_of(FRIDAY)
        else:
            message = error(answer, 409, "continues_ended_game", "log")
            assert "after its end" in message and "?reopen=true" in message
            assert latest["fingerprint"] == fingerprint_of(FRIDAY)
            assert latest["winners"] == ["dana"]


def test_a_game_stored_but_never_audited_is_audited_on_a_retry(tmp_path: Path) -> None:
    """A server killed between storing a game and auditing it left its verdict null for
    good; the client's retry (a duplicate) now audits every game left without one."""
    db = tmp_path / "crash.duckdb"
    with Archive(db) as archive:  # stored, then the crash before the audit
        archive.ingest([str(MIDDLE), str(FRIDAY)], jobs=1)
    client = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    listed = client.get("/api/v1/games").get_json()["games"]
    assert [g["verdict"] for g in listed] == [None, None]
    again = client.post("/api/v1/games", data=MIDDLE.read_bytes())
    assert again.status_code == 200 and len(again.get_json()["duplicates"]) == 1
    listed = client.get("/api/v1/games").get_json()["games"]
    assert None not in [g["verdict"] for g in listed]


#: the attack of issue 35 item 1 (../shared/attacks/614-bytes-16-jokers.jsonl): a deal of
#: sixteen jokers and a run of hearts, 15.5 s in a server thread before
SIXTEEN_JOKERS = b"\n".join(
    json.dumps(line).encode()
    for line in [
        {
            "type": "game_started",
            "format": "yaniv-log/1",
            "players": ["p0", "p1"],
            "rules": "israeli(decks=4,jokers=8,hand_size=30,jokers_in_sets=true,set_max=48)",
        },
        {
            "type": "round_started",
            "round": 1,
            "starter": "p0",
            "upcard": "JD",
            "hands": {
                "p0": ["JK"] * 16
                + [
                    "AH",
                    "2H",
                    "3H",
                    "4H",
                    "5H",
                    "6H",
                    "7H",
                    "8H",
                    "9H",
                    "TH",
                    "JH",
                    "QH",
                    "KH",
                    "AS",
                ],
                "p1": [
                    "AC",
                    "AD",
                    "2C",
                    "2D",
                    "2S",
                    "3C",
                    "3D",
                    "3S",
                    "4C",
                    "4D",
                    "4S",
                    "5C",
                    "5D",
                    "5S",
                    "6C",
                    "6D",
                    "6S",
                    "7C",
                    "7D",
                    "7S",
                    "8C",
                    "8D",
                    "8S",
                    "9C",
                    "9D",
                    "9S",
                    "TC",
                    "TD",
                    "TS",
                    "JC",
                ],
            },
        },
    ]
)


def test_a_deal_of_sixteen_jokers_lists_the_first_thousand_throws_and_says_so(
    client: FlaskClient,
) -> None:
    """The hand has 24,637 legal throws; the answer lists the first 1,000 (singles, then
    sets) without looking for the others, and says the list stops there."""
    answer = client.post(
        "/api/v1/state", data=SIXTEEN_JOKERS, headers={"Content-Type": "application/x-ndjson"}
    )
    assert answer.status_code == 200, answer.get_data(as_text=True)[:300]
    moves = answer.get_json()["next"]
    throws = [m["cards"] for m in moves["moves"] if m["type"] == "discard"]
    assert len(throws) == 1000 and moves["moves_complete"] is False
    assert throws[:3] == [["AH"], ["2H"], ["3H"]]
    assert ["AH", "AS", "JK"] in throws and ["JK"] * 16 in throws
    assert all(m["player"] == "p0" for m in moves["moves"])


def test_an_answer_asked_for_by_many_at_once_is_built_once() -> None:
    """Issue 35: after each write the threads serving 40 readers of one page each built
    it again; the others now wait for the first one's."""
    import threading

    from yaniv_audit.web.cache import AnswerCache

    cache = AnswerCache()
    built: list[int] = []
    go = threading.Event()

    def build() -> bytes:
        built.append(1)
        go.wait(0.3)  # the others arrive meanwhile
        return b"page"

    bodies: list[bytes] = []
    threads = [
        threading.Thread(target=lambda: bodies.append(cache.build_once("k", build).body))
        for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bodies == [b"page"] * 8 and built == [1]
    assert cache.build_once("k", build).body == b"page" and built == [1]
