"""``report house-rules`` (issue 39): the rule set a table's games fit together, and the
games that do not fit it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from conftest import REPLAYS

from yaniv_audit.archive import Archive, analytics
from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.cli import cli
from yaniv_audit.core.rules import PRESETS


def at_table(lines: list[dict[str, object]], table: str) -> str:
    first = dict(lines[0])
    first["meta"] = {**dict(first.get("meta") or {}), "table": table}  # type: ignore[arg-type]
    return to_jsonl([first, *lines[1:]])


def test_a_tables_games_fit_one_rule_set_and_a_mistake_does_not(tmp_path: Path) -> None:
    paths = []
    for game in range(2):
        events = simulate_game(PRESETS["classic"], 3, ["careful"], seed=5, game=game)
        path = tmp_path / f"friday-{game}.jsonl"
        path.write_text(at_table(events, "friday"))
        paths.append(path)
    wrong = [json.loads(line) for line in (REPLAYS / "wrong-score.jsonl").read_text().splitlines()]
    (tmp_path / "wrong.jsonl").write_text(at_table(wrong, "friday"))
    paths += [tmp_path / "wrong.jsonl", REPLAYS / "middle-card.jsonl"]
    db = tmp_path / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(p) for p in paths], jobs=1)
        table = analytics.report(archive, "house-rules", simulated=True)  # bots played them
    rows = {row[0]: row for row in table.rows}
    friday = rows["table friday"]
    assert friday[1:3] == (3, 2)  # three games, two fit
    assert friday[3].startswith("classic")
    with Archive(db) as archive:
        ((wrong_id,),) = archive.query(
            "SELECT game_id FROM games WHERE source LIKE '%wrong.jsonl'"
        )[1]
    # the recorder's slip fits no rule set; named by its fingerprint, it is said as the
    # rulings say it (game 7a0bd33bf9d8f060): 16 digits, not 64
    assert friday[4] == wrong_id[:16]
    middle = rows["players ariel, ben, noa"]
    assert middle[1:4] == (1, 1, "israeli(pickup=any)")
    assert table.summary == "4 games in 2 groups; 3 fit their group's rule set"
    out = CliRunner().invoke(
        cli, ["report", "house-rules", "--db", str(db), "--json", "--simulated"]
    )
    assert out.exit_code == 0
    assert json.loads(out.output)["rows"][0]["group"] == "table friday"
