"""The page-side answers are typed values, and their types say what they hold: the board
(``web.board.Board``), a table's state (``core.table_state.TableState``), the recorder's
answer with its sentences (``web.api.StateAnswer``) and the live table's
(``web.tables.TableAnswer``), checked field by field against every sample log."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints, is_typeddict

import pytest
from flask.testing import FlaskClient

from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.table_state import TableState, table_state
from yaniv_audit.io.codec import read_log
from yaniv_audit.web import create_app
from yaniv_audit.web.api import StateAnswer
from yaniv_audit.web.board import Board, board
from yaniv_audit.web.tables import TableAnswer

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "replays").glob("*.jsonl"))


def wrong(value: Any, tp: Any, where: str = "") -> list[str]:
    """Where ``value`` is not of the type ``tp`` (empty: it is)."""
    if tp is Any:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not {tp.__name__}"]
        hints = get_type_hints(tp)
        out = [f"{where}.{k}: missing" for k in tp.__required_keys__ if k not in value]
        out += [f"{where}.{k}: not in {tp.__name__}" for k in value if k not in hints]
        for k, v in value.items():
            if k in hints:
                out += wrong(v, hints[k], f"{where}.{k}")
        return out
    origin, args = get_origin(tp), get_args(tp)
    if origin in (types.UnionType, typing.Union):
        found = [wrong(value, a, where) for a in args]
        return [] if any(not f for f in found) else min(found, key=len)
    if origin is list:
        if not isinstance(value, list):
            return [f"{where}: {type(value).__name__}, not a list"]
        return [e for i, v in enumerate(value) for e in wrong(v, args[0], f"{where}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{where}: {type(value).__name__}, not a dict"]
        return [
            e
            for k, v in value.items()
            for e in wrong(k, args[0], f"{where} key") + wrong(v, args[1], f"{where}[{k}]")
        ]
    if tp is type(None):
        return [] if value is None else [f"{where}: {value!r}, not null"]
    if tp is int and isinstance(value, bool):
        return [f"{where}: {value!r}, not a number"]
    return [] if isinstance(value, tp) else [f"{where}: {value!r}, not {tp.__name__}"]


def test_the_checker_finds_a_wrong_field() -> None:
    answer = table_state(read_log(LOGS[0]))
    assert wrong(answer, TableState) == []
    answer["state"]["round"] = "one"  # type: ignore[typeddict-item]
    assert wrong(answer, TableState) == [".state.round: 'one', not int"]


@pytest.mark.parametrize("path", LOGS, ids=lambda p: p.stem)
def test_the_board_and_the_table_state_are_as_typed(path: Path) -> None:
    log = read_log(path)
    try:
        for seat in (None, log.players[0]):
            assert wrong(board(log, None, seat), Board) == []
        assert wrong(table_state(log), TableState) == []
    except LogFormatError:  # a log the replay cannot read has no board
        pass


@pytest.fixture
def client(tmp_path: Path) -> FlaskClient:
    return create_app({"ARCHIVE": str(tmp_path / "games.duckdb"), "TESTING": True}).test_client()


def test_the_recorders_and_the_live_tables_answers_are_as_typed(client: FlaskClient) -> None:
    data = (ROOT / "replays" / "clean-assaf-reduction.jsonl").read_bytes()
    state = client.post(
        "/api/v1/state",
        data=data,
        headers={"Content-Type": "application/x-ndjson", "Accept-Language": "he"},
    )
    assert state.status_code == 200
    assert wrong(state.get_json(), StateAnswer) == []
    lines = data.decode().splitlines()
    opened = client.post(
        "/api/v1/tables", data=lines[0], headers={"Content-Type": "application/json"}
    )
    assert opened.status_code == 201, opened.get_data(as_text=True)
    table = opened.get_json()

    def append(first: int, last: int) -> None:
        """The log's lines ``first`` to ``last`` (not included), written at the table's
        count ``first``."""
        client.post(
            f"/api/v1/tables/{table['id']}/events",
            data="\n".join(lines[first:last]) + "\n",
            headers={
                "Authorization": f"Bearer {table['key']}",
                "If-Match": f'"{first}"',
                "Content-Type": "application/x-ndjson",
            },
        )

    append(1, 12)
    read = client.get(f"/api/v1/tables/{table['id']}", headers={"Accept-Language": "de"})
    answer = read.get_json()
    assert answer["seq"] == 12, json.dumps(answer)[:300]
    assert wrong(answer, TableAnswer) == []
    assert len(answer["said"]["moves"]) == 12 and answer["said"]["lang"] == "de"
    # more entries: the table says them all, as the recorder's answer says the same log
    append(12, 20)
    again = client.get(f"/api/v1/tables/{table['id']}", headers={"Accept-Language": "de"})
    same = client.post(
        "/api/v1/state",
        data="\n".join(lines[:20]) + "\n",
        headers={"Content-Type": "application/x-ndjson", "Accept-Language": "de"},
    )
    assert again.get_json()["said"] == same.get_json()["said"]
    assert len(again.get_json()["said"]["moves"]) == 20
