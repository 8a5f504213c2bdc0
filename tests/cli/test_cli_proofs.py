"""`fingerprint`, `prove` and `verify-proof` end to end (docs/fingerprints.md)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from yaniv_audit.cli import cli
from yaniv_audit.core.cards import canonical

Event = dict[str, Any]

GAME: list[Event] = [
    {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "omer"],
        "rules": "israeli",
        "meta": {"place": "Haifa"},
    },
    {
        "type": "round_started",
        "seq": 1,
        "round": 1,
        "starter": "dana",
        "hands": {"dana": ["10h", "9s", "4c", "2d", "KH"], "omer": ["AS", "3c", "5d", "7h", "QS"]},
        "upcard": "8c",
    },
    {"type": "discard", "player": "dana", "cards": ["KH"], "at": "2024-05-01T20:15:00+03:00"},
    {"type": "draw", "player": "dana", "source": "pile", "card": "8c"},
    {"type": "discard", "player": "omer", "cards": ["QS"], "_app": {"tap_ms": 412}},
    {"type": "draw", "player": "omer", "source": "stock", "card": "6h"},
    {"type": "note", "text": "dana: \u05d9\u05e0\u05d9\u05d1 next turn", "player": "dana"},
]


def write_jsonl(
    path: Path,
    events: list[Event],
    *,
    line_end: str = "\n",
    bom: bool = False,
    blank_lines: bool = False,
) -> Path:
    lines = [json.dumps(e, ensure_ascii=False) for e in events]
    if blank_lines:
        lines = [x for line in lines for x in (line, "")]
    text = ("\ufeff" if bom else "") + line_end.join(lines) + line_end
    path.write_bytes(text.encode("utf-8"))
    return path


def write_json(path: Path, events: list[Event]) -> Path:
    # pretty-printed, keys in another order: only the events count
    reordered = [dict(reversed(list(e.items()))) for e in events]
    path.write_text(json.dumps(reordered, indent=2, ensure_ascii=True), encoding="utf-8")
    return path


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin)


def fingerprint_of(path: Path) -> str:
    result = run("fingerprint", str(path))
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "game.jsonl", GAME)


def expected_fingerprint(events: list[Event]) -> str:
    """docs/fingerprints.md spelled out, independently of yaniv_audit.core.canonical and .merkle."""

    def canon(event: Event) -> Event:
        out = dict(event)
        for key in ("upcard", "card", "swap"):
            if key in out:
                out[key] = canonical(out[key])
        for key in ("cards", "stock"):
            if key in out:
                out[key] = [canonical(c) for c in out[key]]
        if "hands" in out:
            out["hands"] = {p: [canonical(c) for c in cs] for p, cs in out["hands"].items()}
        return out

    def mth(hashes: list[bytes]) -> bytes:
        if len(hashes) == 1:
            return hashes[0]
        k = 1
        while k * 2 < len(hashes):
            k *= 2
        return hashlib.sha256(b"\x01" + mth(hashes[:k]) + mth(hashes[k:])).digest()

    leaves = [
        json.dumps(canon(e), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        for e in events
    ]
    return mth([hashlib.sha256(b"\x00" + leaf.encode("utf-8")).digest() for leaf in leaves]).hex()


# --- fingerprint -------------------------------------------------------------------


def test_fingerprint_is_the_merkle_root_of_the_canonical_events(log: Path) -> None:
    result = run("fingerprint", str(log))
    assert result.exit_code == 0
    assert result.stdout == expected_fingerprint(GAME) + "\n"


def test_json_and_jsonl_have_the_same_fingerprint(log: Path, tmp_path: Path) -> None:
    as_json = write_json(tmp_path / "game.json", GAME)
    assert fingerprint_of(as_json) == fingerprint_of(log)


def test_line_ends_bom_and_blank_lines_do_not_count(log: Path, tmp_path: Path) -> None:
    crlf = write_jsonl(tmp_path / "crlf.jsonl", GAME, line_end="\r\n", bom=True, blank_lines=True)
    assert fingerprint_of(crlf) == fingerprint_of(log)


RESPELLINGS: list[Callable[[list[Event]], object]] = [
    lambda g: g[1]["hands"]["dana"].__setitem__(0, "TH"),
    lambda g: g[1]["hands"]["dana"].__setitem__(0, "t\u2665"),
    lambda g: g[1].update(upcard="8\u2663"),
    lambda g: g[2].update(cards=["kh"]),
    lambda g: g[3].update(card="8C"),
    lambda g: g[5].update(card="6\u2661"),
]


@pytest.mark.parametrize("respell", RESPELLINGS)
def test_card_spelling_does_not_change_the_fingerprint(
    respell: Callable[[list[Event]], object], log: Path, tmp_path: Path
) -> None:
    game = copy.deepcopy(GAME)
    respell(game)
    assert game != GAME
    assert fingerprint_of(write_jsonl(tmp_path / "respelled.jsonl", game)) == fingerprint_of(log)


CHANGES: list[Callable[[list[Event]], object]] = [
    lambda g: g[0].update(players=[{"id": "dana"}, {"id": "omer"}]),
    lambda g: g[0].update(rules="israeli(yaniv_max=7)"),
    lambda g: g[0]["meta"].update(place="Tel Aviv"),
    lambda g: g[0].update(game_id="table-3"),
    lambda g: g[1].pop("seq"),
    lambda g: g[1].update(starter="omer"),
    lambda g: g[1]["hands"]["dana"].__setitem__(0, "TS"),
    lambda g: g[2].update(at="2024-05-01T20:15:01+03:00"),
    lambda g: g[2].pop("at"),
    lambda g: g[4].update(_app={"tap_ms": 413}),
    lambda g: g[4].update(_app={"tap_ms": 412.0}),
    lambda g: g[6].update(text=g[6]["text"] + "."),
    lambda g: g[6].update(text="TH"),
    lambda g: g.append({"type": "note", "text": "end of the evening"}),
    lambda g: g.pop(),
    lambda g: g.__setitem__(slice(2, 4), [g[3], g[2]]),
]


@pytest.mark.parametrize("change", CHANGES)
def test_any_other_change_changes_the_fingerprint(
    change: Callable[[list[Event]], object], log: Path, tmp_path: Path
) -> None:
    game = copy.deepcopy(GAME)
    change(game)
    changed = write_jsonl(tmp_path / "changed.jsonl", game)
    result = run("fingerprint", str(changed))
    assert result.exit_code == 0, result.output  # still a readable log
    assert result.stdout.strip() != fingerprint_of(log)


def test_fingerprint_of_an_unreadable_log_is_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "game_started"\n', encoding="utf-8")
    result = run("fingerprint", str(bad))
    assert result.exit_code == 3
    assert result.stdout == ""
    assert isinstance(result.exception, SystemExit)


# --- prove and verify-proof -------------------------------------------------------


def prove(log: Path, index: int) -> dict[str, Any]:
    result = run("prove", str(log), "--event", str(index))
    assert result.exit_code == 0, result.output
    proof: dict[str, Any] = json.loads(result.stdout)
    return proof


def verify(proof: str | bytes, fingerprint: str, tmp_path: Path | None = None) -> Result:
    if tmp_path is None:
        return run("verify-proof", "-", "--fingerprint", fingerprint, stdin=proof)
    path = tmp_path / "proof.json"
    path.write_bytes(proof if isinstance(proof, bytes) else proof.encode("utf-8"))
    return run("verify-proof", str(path), "--fingerprint", fingerprint)


@pytest.mark.parametrize("index", range(len(GAME)))
def test_the_proof_of_each_event_verifies(index: int, log: Path, tmp_path: Path) -> None:
    proof = prove(log, index)
    fingerprint = fingerprint_of(log)
    assert set(proof) == {"fingerprint", "tree_size", "index", "event", "path"}
    assert proof["fingerprint"] == fingerprint
    assert (proof["tree_size"], proof["index"]) == (len(GAME), index)
    assert proof["event"]["type"] == GAME[index]["type"]
    text = json.dumps(proof)
    for result in (verify(text, fingerprint, tmp_path), verify(text, fingerprint)):
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith(f"valid: event {index} ({GAME[index]['type']})")


def test_the_proof_carries_the_canonical_event(log: Path) -> None:
    event = prove(log, 1)["event"]
    assert event["hands"]["dana"] == ["TH", "9S", "4C", "2D", "KH"]
    assert event["upcard"] == "8C" and event["seq"] == 1


def test_a_proof_from_a_json_log_verifies_against_the_jsonl_fingerprint(
    log: Path, tmp_path: Path
) -> None:
    proof = prove(write_json(tmp_path / "game.json", GAME), 4)
    assert verify(json.dumps(proof), fingerprint_of(log)).exit_code == 0


@pytest.mark.parametrize(
    "tamper",
    [
        lambda p: p["event"].update(player="dana"),
        lambda p: p["event"].update(cards=["QS", "QH"]),
        lambda p: p["event"].pop("_app"),
        lambda p: p.update(index=3),
        lambda p: p["path"].reverse(),
    ],
)
def test_a_tampered_proof_is_exit_1(tamper: Callable[[dict[str, Any]], object], log: Path) -> None:
    proof = prove(log, 4)
    assert proof["event"]["player"] == "omer"
    tamper(proof)
    result = verify(json.dumps(proof), fingerprint_of(log))
    assert result.exit_code == 1
    assert result.stdout.startswith("invalid")


def test_a_proof_against_another_fingerprint_is_exit_1(log: Path, tmp_path: Path) -> None:
    other = write_jsonl(tmp_path / "other.jsonl", GAME[:-1])
    proof = json.dumps(prove(log, 2))
    assert verify(proof, fingerprint_of(other)).exit_code == 1
    assert verify(json.dumps(prove(other, 2)), fingerprint_of(log)).exit_code == 1


def _assert_one_line_error(result: Result, *words: str) -> None:
    assert result.exit_code == 3, result.output
    assert isinstance(result.exception, SystemExit)  # handled: no traceback
    assert result.stdout == ""
    message = result.stderr
    assert message.count("\n") == 1 and message.endswith("\n")
    assert "Traceback" not in message
    for word in words:
        assert word in message


@pytest.mark.parametrize(
    ("mangle", "words"),
    [
        (lambda p: "not json at all", ["not JSON"]),
        (lambda p: json.dumps([p]), ["JSON object"]),
        (lambda p: json.dumps({k: v for k, v in p.items() if k != "path"}), ["'path'"]),
        (lambda p: json.dumps(p | {"index": -1}), ["'index'", "integer >= 0"]),
        (lambda p: json.dumps(p | {"index": 7}), ["'index'", "below tree_size 7"]),
        (lambda p: json.dumps(p | {"tree_size": "7"}), ["'tree_size'", "integer"]),
        (lambda p: json.dumps(p | {"event": "discard"}), ["'event'", "JSON object"]),
        (lambda p: json.dumps(p | {"path": ["xyz"]}), ["'path' item 0", "64 hex digits"]),
        (lambda p: json.dumps(p | {"fingerprint": 42}), ["'fingerprint'", "64 hex digits"]),
    ],
)
def test_a_malformed_proof_is_exit_3_with_one_line(
    mangle: Callable[[dict[str, Any]], str], words: list[str], log: Path, tmp_path: Path
) -> None:
    text = mangle(prove(log, 2))
    fingerprint = fingerprint_of(log)
    _assert_one_line_error(verify(text, fingerprint, tmp_path), *words)
    _assert_one_line_error(verify(text, fingerprint), *words)


@pytest.mark.parametrize("bad", ["", "abc", "z" * 64, "0" * 63, "0" * 65])
def test_a_malformed_fingerprint_is_wrong_usage(bad: str, log: Path) -> None:
    result = verify(json.dumps(prove(log, 0)), bad)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--fingerprint" in result.stderr and "64 hex digits" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("index", [len(GAME), -1, 1000])
def test_prove_an_event_outside_the_log_is_exit_2(index: int, log: Path) -> None:
    result = run("prove", str(log), "--event", str(index))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--event" in result.stderr
    assert f"0 to {len(GAME) - 1}" in result.stderr


# --- consistency: a paused game, continued ------------------------------------------


def prove_since(log: Path, old_size: int) -> dict[str, Any]:
    result = run("prove", str(log), "--since", str(old_size))
    assert result.exit_code == 0, result.output
    proof: dict[str, Any] = json.loads(result.stdout)
    return proof


@pytest.mark.parametrize("old_size", range(1, len(GAME) + 1))
def test_a_continued_log_proves_it_kept_the_paused_one(
    old_size: int, log: Path, tmp_path: Path
) -> None:
    paused = write_jsonl(tmp_path / "paused.jsonl", GAME[:old_size])
    trusted = fingerprint_of(paused)  # written down when the game was paused
    assert trusted == expected_fingerprint(GAME[:old_size])
    proof = prove_since(log, old_size)
    assert set(proof) == {"old_fingerprint", "old_size", "fingerprint", "tree_size", "path"}
    assert (proof["old_fingerprint"], proof["old_size"]) == (trusted, old_size)
    assert (proof["fingerprint"], proof["tree_size"]) == (fingerprint_of(log), len(GAME))
    result = verify(json.dumps(proof), trusted, tmp_path)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"valid: the log {fingerprint_of(log)} ({len(GAME)} events) "
        f"extends the log {trusted} ({old_size} events) without "
        "changing it\n"
    )


def test_a_continued_log_that_changed_the_paused_part_does_not_prove(
    log: Path, tmp_path: Path
) -> None:
    trusted = fingerprint_of(write_jsonl(tmp_path / "paused.jsonl", GAME[:4]))
    changed = [*GAME[:2], {**GAME[2], "cards": ["9S"]}, *GAME[3:]]
    proof = prove_since(write_jsonl(tmp_path / "changed.jsonl", changed), 4)
    assert proof["old_fingerprint"] != trusted
    result = verify(json.dumps(proof), trusted)
    assert result.exit_code == 1 and result.stdout.startswith("invalid")
    forged = proof | {"old_fingerprint": trusted}  # claiming the trusted start does not help
    assert verify(json.dumps(forged), trusted).exit_code == 1


@pytest.mark.parametrize(
    ("mangle", "words"),
    [
        (lambda p: json.dumps({k: v for k, v in p.items() if k != "tree_size"}), ["'tree_size'"]),
        (lambda p: json.dumps(p | {"old_size": 9}), ["'old_size'", "at most tree_size 7"]),
        (lambda p: json.dumps(p | {"old_size": 0}), ["'old_size'", "integer >= 1"]),
        (lambda p: json.dumps(p | {"path": "abc"}), ["'path'", "list"]),
        (lambda p: json.dumps(p | {"old_fingerprint": "xyz"}), ["'old_fingerprint'"]),
    ],
)
def test_a_malformed_consistency_proof_is_exit_3(
    mangle: Callable[[dict[str, Any]], str], words: list[str], log: Path
) -> None:
    text = mangle(prove_since(log, 3))
    _assert_one_line_error(verify(text, fingerprint_of(log)), *words)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ((), "give --event N (an inclusion proof) or --since M"),
        (("--event", "1", "--since", "2"), "give --event N (an inclusion proof) or --since M"),
        (("--since", "0"), "M is 1 to 7, not 0"),
        (("--since", "8"), "M is 1 to 7, not 8"),
    ],
)
def test_prove_needs_one_of_event_and_since(args: tuple[str, ...], words: str, log: Path) -> None:
    result = run("prove", str(log), *args)
    assert result.exit_code == 2 and words in result.stderr
