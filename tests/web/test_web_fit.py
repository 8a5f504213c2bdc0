"""``POST /api/v1/fit`` and ``GET /api/v1/games/<ref>/fit`` (issue 39): the answer of
``rules fit --json``, bounded as ``/api/v1/audit`` is, on the workers when there are some."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from yaniv_audit.archive import Archive
from yaniv_audit.cli import cli
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log
from yaniv_audit.schema_export import SCHEMAS_DIR
from yaniv_audit.web import create_app, fit_api

REPLAYS = Path(__file__).resolve().parents[2] / "replays"
MIDDLE = REPLAYS / "middle-card.jsonl"
OVER = REPLAYS / "yaniv-over-limit.jsonl"
SIMULATED = REPLAYS / "simulated" / "classic" / "game-00003.jsonl"  # 600 events


def cli_json(*args: str) -> Any:
    return json.loads(CliRunner().invoke(cli, ["rules", "fit", "--json", *args]).output)


def valid(answer: Any) -> None:
    schema = json.loads((SCHEMAS_DIR / "fit.schema.json").read_text())
    assert list(Draft202012Validator(schema).iter_errors(answer)) == []


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    db = tmp_path_factory.mktemp("fit") / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(MIDDLE), str(OVER)], jobs=1)
    return create_app({"TESTING": True, "ARCHIVE": str(db), "MAX_EVENTS": 300})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def test_a_posted_log_gets_the_commands_answer(client: FlaskClient) -> None:
    got = client.post("/api/v1/fit", data=MIDDLE.read_bytes())
    assert got.status_code == 200
    assert got.get_json() == cli_json(str(MIDDLE))
    valid(got.get_json())
    namu = client.post("/api/v1/fit?from=namu", data=MIDDLE.read_bytes()).get_json()
    assert namu == cli_json(str(MIDDLE), "--from", "namu")
    assert namu["from"] == "namu"


def test_in_the_readers_language(client: FlaskClient) -> None:
    got = client.post(
        "/api/v1/fit", data=OVER.read_bytes(), headers={"Accept-Language": "de"}
    ).get_json()
    valid(got)
    assert got["text"][0] == "passt zu classic(yaniv_max=6)"
    assert any("Ereignis 22" in line for line in got["text"])


def test_errors_are_those_of_the_audit(client: FlaskClient) -> None:
    bad = client.post("/api/v1/fit?from=nope", data=MIDDLE.read_bytes())
    assert bad.status_code == 400 and bad.get_json()["error"]["field"] == "from"
    unreadable = client.post("/api/v1/fit", data=b'{"type":"game_started"}\n')
    assert unreadable.status_code == 422
    # the same event cap as POST /api/v1/audit
    assert client.post("/api/v1/fit", data=SIMULATED.read_bytes()).status_code == 413
    assert client.post("/api/v1/audit", data=SIMULATED.read_bytes()).status_code == 413


def test_an_archived_game(client: FlaskClient) -> None:
    fp = tree_hash(read_log(OVER).leaves).hex()
    for _ in range(2):  # the second from the cache
        got = client.get(f"/api/v1/games/{fp[:12]}/fit")
        assert got.status_code == 200
        assert got.get_json() == cli_json(str(OVER))
    assert client.get(f"/api/v1/games/{fp}/fit?from=israeli").get_json()["from"] == "israeli"
    assert client.get("/api/v1/games/deadbeef00/fit").status_code == 404


@pytest.fixture(scope="module")
def pooled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    db = tmp_path_factory.mktemp("fitworkers") / "none.duckdb"
    app = create_app({"TESTING": True, "ARCHIVE": str(db), "WORKERS": 1})
    yield app
    app.extensions["yaniv_workers"].close()


def test_on_the_workers(pooled: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    def not_here(*args: object, **kwargs: object) -> None:
        raise AssertionError("fitted in the server process, not on a worker")

    monkeypatch.setattr(fit_api, "fit_log", not_here)
    got = pooled.test_client().post("/api/v1/fit", data=MIDDLE.read_bytes())
    assert got.status_code == 200 and got.get_json() == cli_json(str(MIDDLE))
