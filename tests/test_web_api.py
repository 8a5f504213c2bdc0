"""The JSON API: the same audit as the command line, errors as JSON."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from yaniv_audit.audit import audit_file
from yaniv_audit.web import create_app

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


@pytest.fixture
def client() -> FlaskClient:
    return create_app({"TESTING": True}).test_client()


def test_rules_index_lists_every_preset(client: FlaskClient) -> None:
    body = client.get("/api/rules").get_json()
    assert [r["id"] for r in body] == ["israeli", "classic", "cardgames-zone", "namu",
                                       "de-wiki", "mcleod", "jhyap"]
    assert body[1]["params"]["yaniv_max"] == 5


def test_rules_show_and_a_bad_id(client: FlaskClient) -> None:
    ok = client.get("/api/rules/israeli(yaniv_max=5,pickup=any)")
    assert ok.status_code == 200 and ok.get_json()["id"] == "israeli(pickup=any,yaniv_max=5)"
    bad = client.get("/api/rules/israeli(yaniv_max=true)")
    assert bad.status_code == 400
    assert "yaniv_max" in bad.get_json()["error"]["message"]


def test_audit_gives_the_same_report_as_the_command_line(client: FlaskClient) -> None:
    log = REPLAYS / "middle-card.jsonl"
    response = client.post("/api/audit", data=log.read_bytes())
    assert response.status_code == 200
    report = response.get_json()
    expected = audit_file(str(log))
    expected.pop("file")
    assert report == expected
    assert report["findings"][0]["code"] == "draw.pile_card"
    under_namu = client.post("/api/audit?rules=namu", data=log.read_bytes()).get_json()
    assert under_namu["verdict"] == "clean"


def test_unreadable_logs_and_bad_requests_are_json_errors(client: FlaskClient) -> None:
    bad = client.post("/api/audit", data=b'{"type":"game_started"}\n')
    assert bad.status_code == 422
    assert bad.get_json()["verdict"] == "unreadable"
    assert bad.get_json()["error"]["line"] == 1
    assert client.post("/api/audit", data=b"").status_code == 400
    bad_rules = client.post("/api/audit?rules=nope", data=b"x")
    assert bad_rules.status_code == 400 and bad_rules.get_json()["error"]["field"] == "rules"
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404 and missing.get_json()["error"]["status"] == 404
    too_big = client.post("/api/audit", data=b" " * (17 << 20))
    assert too_big.status_code == 413
