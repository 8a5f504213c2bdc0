"""A game that had ended, continued by a later log (its game_ended withdrawn, moves
after it): kept as evidence, the ended version still counted, unless the writer asks."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from yaniv_audit.archive import Archive, analytics
from yaniv_audit.archive.versions import ended
from yaniv_audit.cli import cli
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log

ROOT = Path(__file__).resolve().parents[2]
GAME = ROOT / "replays" / "clean-assaf-reduction.jsonl"


def run(*args: str) -> Result:
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    return result


def continued(tmp_path: Path, name: str = "continued") -> Path:
    """The whole game, then a withdraw of its game_ended and a round after it."""
    lines = GAME.read_text().splitlines()
    last = json.loads(lines[-1])
    assert last["type"] == "game_ended"
    more = [
        {
            "type": "withdraw",
            "seq": last["seq"] + 1,
            "seqs": [last["seq"]],
            "reason": "one more round",
        },
        {"type": "note", "seq": last["seq"] + 2, "text": "dana won, but we play on"},
    ]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join([*lines, *map(json.dumps, more)]) + "\n")
    return path


def fingerprint(path: Path) -> str:
    return tree_hash(read_log(path).leaves).hex()


def leaderboard(db: Path) -> list[tuple[object, ...]]:
    """The leaderboard's rows (the games audited first)."""
    assert run("audit", "--db", str(db), "--exit-zero").exit_code == 0
    with Archive(db, read_only=True) as archive:
        return list(analytics.report(archive, "leaderboard").rows)


def test_a_continuation_of_an_ended_game_does_not_replace_it(tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    assert run("ingest", str(GAME), "--db", str(db)).exit_code == 0
    before = leaderboard(db)
    more = continued(tmp_path)
    result = run("ingest", str(more), "--db", str(db))
    assert result.exit_code == 1, result.output
    whole, longer = fingerprint(GAME), fingerprint(more)
    assert (
        f"{more}: continues game friday-at-dana-2024-05-17 after its end (the ended "
        f"version {whole[:16]}, 75 events, stays the game): kept as evidence, never "
        "counted; ingest --reopen counts it instead"
    ) in result.output
    with Archive(db, read_only=True) as archive:
        latest = archive.query("SELECT fingerprint FROM latest_games")[1]
        stored = archive.query("SELECT fingerprint, extends, rewrites FROM games ORDER BY game_no")[
            1
        ]
    assert latest == [(whole,)]
    assert stored == [(whole, None, None), (longer, None, whole)]
    assert leaderboard(db) == before, "the winner is still counted"
    shown = run("verify", "--db", str(db))
    assert shown.exit_code == 0
    assert (
        f"game friday-at-dana-2024-05-17 ({longer[:16]}, from {more}): continues the "
        f"game after its end ({whole[:16]}, from {GAME}, ended at event 74); kept as "
        "evidence, never counted"
    ) in shown.output
    assert "; 1 game continued after its end kept as evidence" in shown.output
    # a log that continues the continuation continues the ended game too
    lines = more.read_text().splitlines()
    further = tmp_path / "further.jsonl"
    further.write_text(
        "\n".join([*lines, json.dumps({"type": "note", "seq": 77, "text": "still playing"})]) + "\n"
    )
    assert run("ingest", str(further), "--db", str(db)).exit_code == 1
    with Archive(db, read_only=True) as archive:
        assert archive.query("SELECT fingerprint FROM latest_games")[1] == [(whole,)]


def test_the_writer_can_ask_for_the_continuation_to_count(tmp_path: Path) -> None:
    db = tmp_path / "games.duckdb"
    assert run("ingest", str(GAME), "--db", str(db)).exit_code == 0
    more = continued(tmp_path)
    result = run("ingest", "--reopen", str(more), "--db", str(db))
    assert result.exit_code == 0, result.output
    assert "continues game friday-at-dana-2024-05-17 as archived" in result.output
    with Archive(db, read_only=True) as archive:
        assert archive.query("SELECT fingerprint FROM latest_games")[1] == [(fingerprint(more),)]


def test_a_paused_game_continued_is_no_continuation_after_its_end(tmp_path: Path) -> None:
    """A game cut before its end and continued is the usual extension (exit 0)."""
    lines = GAME.read_text().splitlines()
    part = tmp_path / "part.jsonl"
    part.write_text("\n".join(lines[:50]) + "\n")
    db = tmp_path / "games.duckdb"
    assert run("ingest", str(part), "--db", str(db)).exit_code == 0
    assert run("ingest", str(GAME), "--db", str(db)).exit_code == 0
    with Archive(db, read_only=True) as archive:
        assert archive.query("SELECT fingerprint FROM latest_games")[1] == [(fingerprint(GAME),)]


def test_a_version_has_ended_when_its_last_event_but_notes_ends_it() -> None:
    end = '{"seq":9,"type":"game_ended","winner":"a"}'
    note = '{"seq":10,"text":"game_ended","type":"note"}'
    withdraw = '{"seq":11,"seqs":[9],"type":"withdraw"}'
    assert ended([end]) and ended([end, note])
    assert not ended([end, withdraw]) and not ended([]) and not ended([note])
