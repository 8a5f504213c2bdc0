"""`yaniv-audit audit`, `compare` and `replay` end to end, as a user runs them
(docs/log-format.md and the README's commands): exit codes, output, JSON lines, directories,
unreadable files among good ones, --strict, --rules ids and files, --seat."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from yaniv_audit.cli import cli, log_files

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
LOGS = sorted(REPLAYS.glob("*.jsonl"))
REPORT_KEYS = {
    "ruling",
    "file",
    "engine",
    "game_id",
    "fingerprint",
    "rules",
    "verdict",
    "findings",
    "rounds",
    "final",
}
ROUND_KEYS = {
    "round",
    "starter",
    "moves_checked",
    "end",
    "caller",
    "totals",
    "assaf",
    "winners",
    "points",
    "reductions",
    "scores",
    "out",
    "rule",
}
GAME = {
    "type": "game_started",
    "format": "yaniv-log/1",
    "players": ["dana", "omer"],
    "rules": "israeli",
}


def replay_path(name: str) -> str:
    return str(REPLAYS / f"{name}.jsonl")


def run(*args: str) -> Result:
    """One command through click; never a traceback, whatever happens."""
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception,
        result.output,
    )
    assert "Traceback" not in result.output
    return result


def audit(*args: str) -> Result:
    return run("audit", "--jobs", "1", *args)


def json_lines(text: str) -> list[dict[str, Any]]:
    reports = [json.loads(line) for line in text.splitlines()]
    assert all(isinstance(r, dict) for r in reports)
    return reports


def copy_replays(target: Path, names: list[str] | None = None) -> list[Path]:
    target.mkdir(parents=True, exist_ok=True)
    chosen = [p for p in LOGS if names is None or p.stem in names]
    return [Path(shutil.copy(p, target / p.name)) for p in chosen]


# --- audit: exit codes ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "code", "verdict"),
    [
        ("clean-assaf-reduction", 0, "CLEAN"),
        ("two-decks", 0, "CLEAN"),
        ("wrong-score", 1, "WRONG CLAIMS"),
        ("middle-card", 1, "RULES BROKEN"),
        ("yaniv-over-limit", 1, "RULES BROKEN"),
        ("impossible-draw", 3, "IMPOSSIBLE"),
    ],
)
def test_audit_exit_code_follows_the_verdict(name: str, code: int, verdict: str) -> None:
    result = audit(replay_path(name))
    assert result.exit_code == code
    assert result.output.startswith(f"{replay_path(name)}: {verdict} under ")


def test_audit_text_is_a_ruling_naming_the_code_the_event_and_the_rule() -> None:
    result = audit(replay_path("middle-card"))
    assert "RULES BROKEN under israeli" in result.output
    assert (
        "RULE BROKEN at event 5 (line 6): noa took 8H from the middle of "
        "7H 8H 9H; only 7H or 9H may be taken (pickup=ends) [draw.pile_card]"
    ) in result.output
    assert "Round 1 (opened by ariel, moves checked): ariel called Yaniv at 4 and won" in (
        result.output
    )
    assert "Result: unfinished. Scores so far: ariel 0, noa 7, ben 9." in result.output


def test_audit_of_a_finished_game_names_the_winner() -> None:
    result = audit(replay_path("clean-assaf-reduction"))
    assert result.exit_code == 0
    assert "omer landed on 100 and drops to 50" in result.output
    assert "Result: dana won. Final scores: dana 76, lior 213, omer 207." in result.output


@pytest.mark.parametrize(
    ("names", "code"),
    [
        (["clean-assaf-reduction", "two-decks"], 0),
        (["clean-assaf-reduction", "wrong-score"], 1),
        (["middle-card", "clean-assaf-reduction"], 1),
        (["clean-assaf-reduction", "impossible-draw", "middle-card"], 3),
        (["impossible-draw", "wrong-score"], 3),
    ],
)
def test_with_several_logs_the_worst_exit_code_wins(names: list[str], code: int) -> None:
    result = audit(*map(replay_path, names))
    assert result.exit_code == code
    assert len(re.findall(r"^\S+\.jsonl: [A-Z ]+ under ", result.output, re.M)) == len(names)


def test_an_unreadable_log_among_clean_ones_gives_exit_3(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(GAME) + "\n{not json\n", encoding="utf-8")
    result = audit(replay_path("clean-assaf-reduction"), str(bad))
    assert result.exit_code == 3
    assert f"{bad}: UNREADABLE: line 2: not valid JSON" in result.output
    assert "CLEAN under israeli" in result.output


def test_a_missing_file_is_unreadable_not_a_crash(tmp_path: Path) -> None:
    result = audit(str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 3
    assert "nope.jsonl: UNREADABLE: no such file" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--rules", "bogus"],
        ["--rules", "israeli(yaniv_max=banana)"],
        ["--rules", "israeli(nonsense=1)"],
        ["--rules", "no-such-file.toml"],
        ["--bogus"],
        ["--jobs", "0"],
    ],
)
def test_wrong_usage_is_exit_2_with_a_message_and_no_report(args: list[str]) -> None:
    result = audit(replay_path("middle-card"), *args)
    assert result.exit_code == 2
    assert "Error:" in result.stderr
    assert result.stdout == ""


def test_rules_out_of_range_are_exit_2_naming_the_range_before_any_work(tmp_path: Path) -> None:
    """``--rules 'israeli(decks=20000000)'`` took 8.5 GB (issue 27); a log that names such
    rules is unreadable (exit 3), its line and the range said."""
    result = audit(replay_path("middle-card"), "--rules", "israeli(decks=20000000)")
    assert result.exit_code == 2 and result.stdout == ""
    assert "decks: expected a whole number from 1 to 4, got 20000000" in result.stderr
    log = tmp_path / "big.jsonl"
    log.write_text(
        '{"type": "game_started", "format": "yaniv-log/1", "players": ["a", "b"], '
        '"rules": "israeli(hand_size=10000000)"}\n'
    )
    result = audit(str(log))
    assert result.exit_code == 3
    assert (
        "line 1" in result.output
        and "hand_size: expected a whole number from 1 to 30" in result.output
    )


def test_audit_without_a_path_is_exit_2() -> None:
    assert run("audit").exit_code == 2


def test_an_empty_directory_is_exit_2(tmp_path: Path) -> None:
    result = audit(str(tmp_path))
    assert result.exit_code == 2
    assert "no .jsonl or .json logs found" in result.stderr


# --- audit --json ----------------------------------------------------------------


def test_json_is_one_report_object_per_line_with_the_report_shape() -> None:
    names = ["middle-card", "wrong-score", "impossible-draw"]
    result = audit("--json", *map(replay_path, names))
    assert result.exit_code == 3
    reports = json_lines(result.stdout)
    assert len(reports) == 3
    for report, name in zip(reports, names, strict=True):
        assert set(report) == REPORT_KEYS
        assert report["file"] == replay_path(name)
        assert report["engine"].startswith("yaniv-audit ")
        assert re.fullmatch(r"[0-9a-f]{64}", report["fingerprint"])
        assert set(report["rules"]) == {"id", "params"}
        assert report["rules"]["params"]["pickup"] in ("ends", "any", "ends_of_runs")
        for rnd in report["rounds"]:
            assert set(rnd) == ROUND_KEYS
        assert set(report["final"]) == {"scores", "finished", "winners", "out"}
    middle, wrong, impossible = reports
    assert middle["verdict"] == "violations"
    assert middle["findings"] == [
        {
            "seq": 5,
            "round": 1,
            "player": "noa",
            "kind": "violation",
            "code": "draw.pile_card",
            "message": "noa took 8H from the middle of 7H 8H 9H; only 7H or 9H may be taken "
            "(pickup=ends)",
            "params": {
                "case": "middle",
                "player": "noa",
                "card": "8H",
                "layer": ["7H", "8H", "9H"],
                "ends": ["7H", "9H"],
                "rule": {"pickup": "ends"},
            },
        }
    ]
    assert middle["rounds"][0]["points"] == {"ariel": 0, "noa": 7, "ben": 9}
    assert middle["final"] == {
        "scores": {"ariel": 0, "noa": 7, "ben": 9},
        "finished": False,
        "winners": [],
        "out": [],
    }
    assert wrong["verdict"] == "claims"
    assert [(f["seq"], f["code"], f["player"]) for f in wrong["findings"]] == [
        (15, "claim.points", "yossi"),
        (15, "claim.scores", "yossi"),
    ]
    assert impossible["verdict"] == "corrupt"
    assert [f["code"] for f in impossible["findings"]] == ["card.not_in_hand"]


def test_json_of_a_finished_game_with_a_reduction() -> None:
    result = audit("--json", replay_path("clean-assaf-reduction"))
    assert result.exit_code == 0
    (report,) = json_lines(result.stdout)
    assert report["verdict"] == "clean" and report["findings"] == []
    assert report["game_id"] == "friday-at-dana-2024-05-17"
    round2, round3 = report["rounds"][1], report["rounds"][2]
    assert round2["assaf"] == ["dana", "lior"] and round2["winners"] == ["lior"]
    assert round3["reductions"] == [{"player": "omer", "from": 100, "to": 50}]
    assert round3["moves_checked"] is False
    assert report["final"] == {
        "scores": {"dana": 76, "lior": 213, "omer": 207},
        "finished": True,
        "winners": ["dana"],
        "out": ["omer", "lior"],
    }


def test_json_reports_an_unreadable_file_with_its_line_and_goes_on(tmp_path: Path) -> None:
    copy_replays(tmp_path, ["middle-card", "wrong-score"])
    bad = tmp_path / "m-broken.jsonl"
    bad.write_text(
        json.dumps(GAME) + "\n\n" + json.dumps({"type": "dicard"}) + "\n", encoding="utf-8"
    )
    result = audit("--json", str(tmp_path))
    assert result.exit_code == 3
    reports = json_lines(result.stdout)
    assert [Path(r["file"]).name for r in reports] == [
        "m-broken.jsonl",
        "middle-card.jsonl",
        "wrong-score.jsonl",
    ]
    broken = reports[0]
    assert set(broken) == {"file", "verdict", "error"}
    assert broken["verdict"] == "unreadable"
    assert broken["error"]["line"] == 3
    assert 'unknown event type "dicard"' in broken["error"]["message"]
    assert [r["verdict"] for r in reports[1:]] == ["violations", "claims"]
    # the summary goes to stderr so that stdout stays JSON Lines
    assert result.stderr.strip() == (
        "3 games: 0 clean, 1 with wrong claims only"
        ", 1 with rules broken, 0 impossible, 1 unreadable"
    )


# --- directories ---------------------------------------------------------------------


def test_a_directory_audits_every_log_in_it_and_prints_the_summary(tmp_path: Path) -> None:
    copy_replays(tmp_path / "logs")
    nested = tmp_path / "logs" / "2024"
    nested.mkdir()
    events = [
        json.loads(line)
        for line in (REPLAYS / "middle-card.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    (nested / "as-array.json").write_text(json.dumps(events), encoding="utf-8")
    (tmp_path / "logs" / "notes.txt").write_text("not a log", encoding="utf-8")
    result = audit(str(tmp_path / "logs"))
    assert result.exit_code == 3  # impossible-draw is corrupt
    headers = re.findall(r"^(\S+): ([A-Z ]+) under", result.output, re.M)
    assert len(headers) == len(LOGS) + 1
    assert (str(nested / "as-array.json"), "RULES BROKEN") in headers
    assert "notes.txt" not in result.output
    assert result.output.rstrip().endswith(
        f"{len(LOGS) + 1} games: 4 clean, 1 with wrong claims only, 3 with rules broken"
        ", 1 impossible, "
        "0 unreadable"
    )


def test_the_replays_directory_holds_only_logs() -> None:
    result = run("audit", "--json", str(REPLAYS))
    assert result.exit_code == 3
    reports = json_lines(result.stdout)
    files = [r["file"] for r in reports]
    assert files == sorted(files)
    assert {str(p) for p in LOGS} <= set(files)
    assert [f for f in files if not f.endswith(".jsonl")] == []
    assert [r["file"] for r in reports if r["verdict"] == "unreadable"] == []


def test_a_clean_directory_exits_0(tmp_path: Path) -> None:
    copy_replays(tmp_path, ["clean-assaf-reduction", "double-assaf", "slap-down", "two-decks"])
    result = audit(str(tmp_path))
    assert result.exit_code == 0
    assert (
        "4 games: 4 clean, 0 with wrong claims only"
        ", 0 with rules broken, 0 impossible, 0 unreadable" in (result.output)
    )


def test_several_processes_give_the_same_reports_in_the_same_order(tmp_path: Path) -> None:
    copy_replays(tmp_path)
    one = run("audit", "--json", "--jobs", "1", str(tmp_path))
    four = run("audit", "--json", "--jobs", "4", str(tmp_path))
    assert one.exit_code == four.exit_code == 3
    assert one.stdout == four.stdout


# --- --strict and --rules --------------------------------------------------------------


def test_strict_stops_at_the_first_finding() -> None:
    full = json_lines(audit("--json", "--rules", "israeli", replay_path("slap-down")).stdout)[0]
    assert [(f["seq"], f["code"]) for f in full["findings"]] == [
        (4, "slap.not_allowed"),
        (7, "slap.not_allowed"),
        (9, "draw.pile_card"),
    ]
    assert full["rounds"][0]["end"] == "yaniv"
    result = audit("--json", "--strict", "--rules", "israeli", replay_path("slap-down"))
    assert result.exit_code == 1
    (strict,) = json_lines(result.stdout)
    assert strict["verdict"] == "violations"
    assert [(f["seq"], f["code"]) for f in strict["findings"]] == [(4, "slap.not_allowed")]
    assert strict["rounds"][0]["end"] is None  # the replay stopped before the Yaniv


def test_strict_changes_nothing_for_a_clean_log() -> None:
    plain = json_lines(audit("--json", replay_path("two-decks")).stdout)
    strict = json_lines(audit("--json", "--strict", replay_path("two-decks")).stdout)
    assert plain == strict and plain[0]["verdict"] == "clean"


def test_rules_takes_a_rule_set_id() -> None:
    result = audit("--rules", "namu", replay_path("middle-card"))
    assert result.exit_code == 0
    assert "CLEAN under namu" in result.output
    result = audit("--json", "--rules", "israeli(yaniv_max=5)", replay_path("yaniv-over-limit"))
    assert result.exit_code == 1
    (report,) = json_lines(result.stdout)
    assert report["rules"]["id"] == "israeli(yaniv_max=5)"
    assert report["rules"]["params"]["yaniv_max"] == 5
    assert [f["code"] for f in report["findings"]] == ["yaniv.threshold"]


def test_rules_takes_a_toml_rules_file(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('base = "israeli"\npickup = "any"\n', encoding="utf-8")
    result = audit("--json", "--rules", str(house), replay_path("middle-card"))
    assert result.exit_code == 0
    (report,) = json_lines(result.stdout)
    assert report["verdict"] == "clean"
    assert report["rules"]["id"] == "israeli(pickup=any)"
    assert report["rules"]["params"]["pickup"] == "any"


def test_a_bad_toml_rules_file_is_wrong_usage(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('base = "israeli"\nyaniv_maxx = 5\n', encoding="utf-8")
    result = audit("--rules", str(house), replay_path("middle-card"))
    assert result.exit_code == 2
    assert 'unknown rule parameter "yaniv_maxx"' in result.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text("base = \n", encoding="utf-8")
    result = audit("--rules", str(broken), replay_path("middle-card"))
    assert result.exit_code == 2
    assert "read as a rules file, and not valid toml" in result.stderr.lower()


# --- compare --------------------------------------------------------------------------


def test_compare_text_shows_both_rule_sets_and_what_changes() -> None:
    result = run("compare", replay_path("middle-card"), "--rules", "israeli", "--rules", "namu")
    assert result.exit_code == 1  # a violation under the baseline
    lines = result.output.splitlines()
    assert lines[0].startswith("game d454a4a5a6e99848: baseline israeli")
    assert re.search(r"^  israeli\s+rules broken\s+winner: unfinished", result.output, re.M)
    assert re.search(r"^  namu\s+clean\s+winner: unfinished", result.output, re.M)
    assert (
        "What changes:\n  - under namu: findings removed: draw.pile_card at event 5 (noa)\n"
        "      because under namu any card of the previous throw may be taken (pickup=any)\n"
        "  - under namu: the verdict is clean instead of rules broken\n"
        "      because under namu any card of the previous throw may be taken (pickup=any)"
    ) in result.output


def test_compare_json_has_baseline_results_and_changes() -> None:
    result = run(
        "compare", replay_path("middle-card"), "--rules", "israeli", "--rules", "namu", "--json"
    )
    assert result.exit_code == 1
    (out,) = json_lines(result.stdout)
    assert set(out) == {"game_id", "fingerprint", "baseline", "results", "changes"}
    assert out["baseline"] == "israeli"
    assert [(r["rules"]["id"], r["verdict"]) for r in out["results"]] == [
        ("israeli", "violations"),
        ("namu", "clean"),
    ]
    for r in out["results"]:
        assert set(r) == {"rules", "verdict", "rounds", "final"}
        assert r["rounds"] == [
            {
                "round": 1,
                "points": {"ariel": 0, "noa": 7, "ben": 9},
                "scores": {"ariel": 0, "noa": 7, "ben": 9},
                "winners": ["ariel"],
            }
        ]
    assert out["changes"] == [
        {
            "rules": "namu",
            "round": None,
            "field": "findings",
            "from": ["draw.pile_card@5"],
            "to": [],
            "params": {
                "added": [],
                "removed": [{"seq": 5, "code": "draw.pile_card", "player": "noa"}],
            },
            "message": "under namu, 1 finding removed (draw.pile_card of noa at event 5)",
            "because": ["pickup"],
        },
        {
            "rules": "namu",
            "round": None,
            "field": "verdict",
            "from": "violations",
            "to": "clean",
            "params": {},
            "message": "under namu the verdict is clean instead of violations",
            "because": ["pickup"],
        },
    ]


def test_compare_names_the_points_and_the_winner_that_change() -> None:
    result = run(
        "compare", replay_path("double-assaf"), "--rules", "de-wiki", "--rules", "israeli", "--json"
    )
    (out,) = json_lines(result.stdout)
    assert out["baseline"] == "de-wiki"
    by_field = {(c["round"], c["field"]): c for c in out["changes"]}
    points = by_field[(1, "points")]
    assert points["rules"] == "israeli"
    assert points["from"]["jonas"] == 45 and points["to"]["jonas"] == 35
    assert "in round 1 jonas scores 35 instead of 45" in points["message"]
    winners = by_field[(None, "winners")]
    assert (winners["from"], winners["to"]) == (["anna"], [])
    assert "not finished" in winners["message"]
    text = run(
        "compare", replay_path("double-assaf"), "--rules", "de-wiki", "--rules", "israeli"
    ).output
    assert "  - under israeli: in round 1 jonas scores 35 instead of 45" in text


def test_compare_without_rules_meets_the_declared_rules_with_every_other_preset() -> None:
    result = run("compare", replay_path("slap-down"), "--json")
    assert result.exit_code == 1  # the worst verdict: the slaps are violations elsewhere
    (out,) = json_lines(result.stdout)
    assert out["baseline"] == "israeli(slap_down=true)"
    assert [r["rules"]["id"] for r in out["results"]] == [
        "israeli(slap_down=true)",
        "israeli",
        "classic",
        "namu",
        "de-wiki",
        "mcleod",
        "jhyap",
    ]
    assert {c["rules"] for c in out["changes"] if c["field"] == "findings"} == {
        "israeli",
        "classic",
        "namu",
        "de-wiki",
        "mcleod",
        "jhyap",
    }  # the slaps are illegal
    text = run("compare", replay_path("slap-down")).output
    # the slaps, and udi's draw of the 8H that the slap not allowed left beneath the throw
    assert "under israeli: findings added: slap.not_allowed at event 4" in text
    same = run(
        "compare",
        replay_path("slap-down"),
        "--rules",
        "israeli(slap_down=true)",
        "--rules",
        "israeli(slap_down=true,pickup=ends)",
    ).output
    assert "Nothing changes: every rule set gives the same rounds and result." in same


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ([replay_path("two-decks"), "--rules", "israeli(decks=2)", "--rules", "israeli"], 3),
        ([replay_path("impossible-draw")], 3),
        ([replay_path("middle-card"), "--rules", "nope"], 2),
        ([replay_path("middle-card"), "--bogus"], 2),
        (["missing.jsonl"], 3),
    ],
)
def test_compare_exit_codes(args: list[str], code: int) -> None:
    assert run("compare", *args).exit_code == code


# --- replay ---------------------------------------------------------------------------


def test_replay_shows_the_steps_the_table_and_the_findings() -> None:
    result = run("replay", replay_path("middle-card"))
    out = result.output
    assert "[  0] game starts: ariel, noa, ben under israeli" in out
    assert "[  1] round 1 dealt, ariel opens, upcard TC" in out
    assert "[  5] noa draws 8H from the pile" in out
    # the finding says the file line to fix (event 5 is on line 6)
    assert "      !! rule broken (line 6): noa took 8H from the middle of 7H 8H 9H" in out
    assert "top throw: 7H 8H 9H | stock: 38 | turn: ariel" in out
    withdrawn = run(
        "replay", str(ROOT / "tests" / "cases" / "fidelity2" / "07-withdraw-last-throw.jsonl")
    ).output
    assert "[  2] (withdrawn by 3, not counted) a throws KD" in withdrawn
    assert "[  3] the table takes back 2 (a asked): meant to throw the nines" in withdrawn
    # KD is back in a's hand when the nines are thrown
    assert re.search(r"^\s+a: KD 2C 3C \(15\)$", withdrawn, re.M)
    # after ariel's draw (event 3) the turn has passed to noa
    assert re.search(r"\[  3\] ariel draws 2D from the stock\n.*\| turn: noa$", out, re.M)
    assert re.search(r"^\s+ariel: 7H 8H 9H KS 3D \(37\)$", out, re.M)
    assert re.search(r"^\s+noa: 8C 8D 2S 5C QH \(33\)$", out, re.M)
    assert "[ 21] ariel calls Yaniv (4)" in out
    assert "scores: ariel 0, noa 7, ben 9" in out
    assert len(re.findall(r"^\[\s*\d+\] ", out, re.M)) == 24  # one step per event


def test_replay_with_a_seat_hides_the_other_hands() -> None:
    result = run("replay", replay_path("middle-card"), "--seat", "noa")
    out = result.output
    assert re.search(r"^\s+noa: 8C 8D 2S 5C QH \(33\)$", out, re.M)
    assert re.search(r"^\s+ariel: 5 cards$", out, re.M)
    assert re.search(r"^\s+ben: 5 cards$", out, re.M)
    assert "7H 8H 9H KS 3D" not in out
    assert not re.search(r"^\s+(ariel|ben): .*\(\d+\)$", out, re.M)  # no other hand totals
    assert "[  5] noa draws 8H from the pile" in out  # the steps are still all there


def test_replay_with_a_seat_hides_the_cards_others_draw_from_the_stock() -> None:
    out = run("replay", replay_path("middle-card"), "--seat", "noa").output
    assert "ariel draws 2D from the stock" not in out  # only ariel sees that card


def test_replay_rules_change_the_findings() -> None:
    out = run("replay", replay_path("middle-card"), "--rules", "namu").output
    assert out.splitlines()[0] == (
        f"{replay_path('middle-card')}: replayed under namu (--rules); the log declares israeli"
    )
    assert "under israeli" in out  # the log's declaration is shown as written
    assert "!!" not in out


def test_an_unknown_seat_is_wrong_usage() -> None:
    result = run("replay", replay_path("middle-card"), "--seat", "zoe")
    assert result.exit_code == 2
    assert "'zoe' is not seated; players: ariel, noa, ben" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("two-decks", 0),
        ("middle-card", 1),
        ("wrong-score", 1),
        ("impossible-draw", 3),
    ],
)
def test_replay_exit_code_follows_what_it_found(name: str, code: int) -> None:
    result = run("replay", replay_path(name))
    assert result.exit_code == code
    head, first = result.output.splitlines()[:2]
    assert head.startswith(f"{replay_path(name)}: replayed under ")
    assert head.endswith(", the rules the log declares")
    assert first.startswith("[  0] game starts:")


def test_replay_of_an_impossible_log_says_where_it_stops() -> None:
    out = run("replay", replay_path("impossible-draw")).output
    assert "!! impossible (line 7): max does not hold QS" in out
    assert "[card.not_in_hand]" in out
    assert "(the replay stops here: the log is physically impossible)" in out


@pytest.mark.parametrize(
    "args",
    [
        ["missing.jsonl"],
        [replay_path("middle-card"), "--rules", "nope"],
    ],
)
def test_replay_of_bad_input(args: list[str]) -> None:
    result = run("replay", *args)
    assert result.exit_code == (3 if args == ["missing.jsonl"] else 2)
    assert result.stdout == ""


# --- the installed command, as a real process -------------------------------------------


def test_the_installed_command_in_a_real_process(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "yaniv-audit"
    if not exe.exists():
        exe = ROOT / ".venv" / "bin" / "yaniv-audit"
    logs = tmp_path / "logs"
    copy_replays(logs, ["middle-card", "wrong-score", "two-decks"])
    (logs / "cut.jsonl").write_text(json.dumps(GAME) + "\n" + '{"type": 5}\n', encoding="utf-8")
    env = {**os.environ, "PYTHONWARNINGS": "error::DeprecationWarning"}
    done = subprocess.run(
        [str(exe), "audit", "--json", str(logs)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 3
    assert "Traceback" not in done.stdout + done.stderr
    reports = json_lines(done.stdout)
    assert [(Path(r["file"]).name, r["verdict"]) for r in reports] == [
        ("cut.jsonl", "unreadable"),
        ("middle-card.jsonl", "violations"),
        ("two-decks.jsonl", "clean"),
        ("wrong-score.jsonl", "claims"),
    ]
    assert reports[0]["error"]["line"] == 2
    assert (
        "4 games: 1 clean, 1 with wrong claims only"
        ", 1 with rules broken, 0 impossible, 1 unreadable" in (done.stderr)
    )
    usage = subprocess.run(
        [str(exe), "audit", str(logs), "--rules", "bogus"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert usage.returncode == 2
    assert usage.stdout == "" and "Traceback" not in usage.stderr


def test_an_internal_error_is_one_line_and_exit_4(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug in the engine is never a traceback: one line naming the log, exit status 4."""
    import yaniv_audit.core.audit
    from yaniv_audit.cli import main

    def broken(*args: Any, **kwargs: Any) -> None:
        raise KeyError("omer")

    monkeypatch.setattr(yaniv_audit.core.audit, "report_of", broken)
    path = replay_path("wrong-score")
    with pytest.raises(SystemExit) as exit_info:
        main(["audit", path, "--jobs", "1"])
    assert exit_info.value.code == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"internal error while reading {path} (KeyError: 'omer')" in err
    assert "please send us that log" in err


def test_a_player_out_under_other_rules_who_calls_yaniv(tmp_path: Path) -> None:
    """A scoresheet game replayed under a lower limit: the out caller takes no part."""
    lines = [
        GAME | {"players": ["a", "b", "c"]},
        {"type": "round_started", "round": 1, "starter": "a"},
        {"type": "showdown", "caller": "b", "hands": {"a": ["KC", "KD"], "b": ["AC"], "c": ["5H"]}},
        {"type": "round_started", "round": 2, "starter": "b"},
        {"type": "showdown", "caller": "a", "hands": {"a": ["AD"], "b": ["KH"], "c": ["5S"]}},
    ]
    log = tmp_path / "out.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in lines))
    result = run("audit", str(log), "--rules", "israeli(score_limit=15)")
    assert result.exit_code == 1
    assert "a called Yaniv but is out, so the call takes no part; lowest hand c" in result.output
    assert "at event 4 (line 5): " in result.output and "[player.out]" in result.output


@pytest.mark.parametrize(
    ("command", "expect"),
    [
        (["validate", "-"], "-: ok (19 events)"),
        (["audit", "-"], "-: WRONG CLAIMS under israeli"),
        (["compare", "-", "--rules", "namu"], "baseline namu"),
        (["replay", "-"], "round 1 dealt, hila opens"),
        (["fingerprint", "-"], "7a0bd33bf9d8f060"),
        (["prove", "-", "--event", "2"], '"index":2'),
    ],
)
def test_a_dash_reads_the_log_from_standard_input(command: list[str], expect: str) -> None:
    data = Path(replay_path("wrong-score")).read_bytes()
    for text in (data, json.dumps([json.loads(x) for x in data.splitlines()]).encode()):
        out = subprocess.run(
            [sys.executable, "-m", "yaniv_audit.cli", *command],
            input=text,
            capture_output=True,
            timeout=60,
        )
        assert out.returncode in (0, 1), out.stderr
        assert expect in out.stdout.decode()


def test_ingest_reads_standard_input(tmp_path: Path) -> None:
    data = Path(replay_path("wrong-score")).read_bytes()
    db = tmp_path / "stdin.duckdb"
    out = subprocess.run(
        [sys.executable, "-m", "yaniv_audit.cli", "ingest", "-", "--db", str(db)],
        input=data,
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert b"ingested 1 game (19 events)" in out.stdout


def test_a_quoted_glob_names_the_files_it_matches() -> None:
    result = run("audit", str(REPLAYS / "*-*.jsonl"))
    assert "8 games: " in result.output
    none = run("audit", str(REPLAYS / "nothing-*.jsonl"))
    assert none.exit_code == 2 and "no .jsonl or .json logs found" in none.output


def test_python_dash_m_is_the_same_command() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "yaniv_audit", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and out.stdout.startswith("yaniv-audit, version ")


def test_progress_on_a_terminal_is_cleared_and_never_glued_to_a_ruling() -> None:
    """On a (pseudo-)terminal the bar shows its games/s on stderr, and every ruling line
    reads whole on the screen: what a terminal shows of a line is what follows its last
    carriage return."""
    import fcntl
    import pty
    import struct
    import termios

    main, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 wide
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "yaniv_audit.cli",
                "audit",
                str(REPLAYS),
                "--jobs",
                "2",
                "--exit-zero",
            ],
            stdout=secondary,
            stderr=secondary,
        )
        os.close(secondary)
        screen = b""
        while True:  # read as it comes: a full terminal buffer would stop the command
            try:
                chunk = os.read(main, 65536)
            except OSError:  # the command and its workers closed the terminal
                break
            if not chunk:
                break
            screen += chunk
        assert process.wait(timeout=120) == 0
    finally:
        os.close(main)
    text = screen.decode(errors="replace")
    assert "auditing" in text and "game/s" in text
    shown = [line.rstrip("\r").split("\r")[-1] for line in text.split("\n")]
    rulings = [line for line in shown if " under " in line and ": " in line]
    assert len(rulings) == 268
    assert all(line.startswith(str(REPLAYS)) for line in rulings), [
        line for line in rulings if not line.startswith(str(REPLAYS))
    ][:3]
    assert any(line.startswith("268 games: ") for line in shown)


def test_a_directory_names_its_logs_as_pathlib_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every .jsonl/.json file under a directory, nested and hidden ones too, sorted and
    named from the directory as given ('.' names none); not other files, not a directory
    named like a log, not the logs of a linked directory (a linked file is a file)."""
    logs, other = tmp_path / "logs", tmp_path / "other"
    for name in (
        "b.jsonl",
        "a.json",
        "notes.txt",
        "sub/c.jsonl",
        ".hidden.jsonl",
        ".jsonl",
        "dir.jsonl/d.jsonl",
    ):
        (logs / name).parent.mkdir(parents=True, exist_ok=True)
        (logs / name).write_text("{}\n")
    (other / "e.jsonl").parent.mkdir()
    (other / "e.jsonl").write_text("{}\n")
    (logs / "link").symlink_to(other, target_is_directory=True)
    (logs / "f.jsonl").symlink_to(other / "e.jsonl")
    found = [".hidden.jsonl", "a.json", "b.jsonl", "dir.jsonl/d.jsonl", "f.jsonl", "sub/c.jsonl"]
    assert log_files((f"{logs}/",)) == [f"{logs}/{name}" for name in found]
    monkeypatch.chdir(logs)
    assert log_files((".",)) == found
    monkeypatch.chdir(tmp_path)
    assert log_files(("./logs",)) == [f"logs/{name}" for name in found]


def test_the_ruling_says_the_findings_in_the_language_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--lang (else $LANG) says each finding in that language, from its params; the
    codes, the cards and the rule parameters stay as written, and --json keeps English."""
    log = str(ROOT / "replays" / "middle-card.jsonl")
    monkeypatch.setenv("LANG", "C.UTF-8")
    english = run("audit", log, "--exit-zero").output
    assert (
        "RULE BROKEN at event 5 (line 6): noa took 8H from the middle of "
        "7H 8H 9H; only 7H or 9H may be taken (pickup=ends) [draw.pile_card]" in english
    )
    hebrew = run("audit", log, "--exit-zero", "--lang", "he").output
    # the whole ruling is Hebrew: the verdict, the round's story, the finding, the result
    # (tests/golden holds every line, in every language)
    assert hebrew.splitlines() == [
        f"{log}: הפרות כללים לפי israeli (משחק d454a4a5a6e99848)",
        "  חוקים: israeli — כפי שהוצהרו ביומן",
        "  לפי israeli היומן מפר את החוקים פעם אחת.",
        "  סיבוב 1 (פתיחה: ariel, המהלכים נבדקו): קריאת יניב של ariel עם 4, וניצחון "
        "בסיבוב. ידיים: ariel 4, noa 7, ben 9. נקודות: ariel 0, noa 7, ben 9. ניקוד: "
        "ariel 0, noa 7, ben 9.",
        "    הפרת כלל באירוע 5 (שורה 6): noa: לקיחת 8H מאמצע 7H 8H 9H; "
        "מותר לקחת רק 7H או 9H (pickup=ends) [draw.pile_card]",
        "      החוק שהכריע: מותר לקחת רק את הקלף הראשון או האחרון של הזריקה הקודמת (pickup=ends)",
        "  תוצאה: המשחק לא הסתיים. הניקוד עד כה: ariel 0, noa 7, ben 9.",
    ]
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    german = run("audit", log, "--exit-zero").output
    assert (
        "noa nahm 8H aus der Mitte von 7H 8H 9H; nur 7H oder 9H darf genommen werden "
        "(pickup=ends)" in german
    )
    assert run("audit", log, "--exit-zero", "--lang", "en").output == english
    report = json.loads(run("audit", log, "--exit-zero", "--json", "--lang", "ko").output)
    assert report["findings"][0]["message"].startswith("noa took 8H from the middle")
    assert (
        "unknown" in run("audit", log, "--lang", "fr").output.lower()
        or run("audit", log, "--lang", "fr").exit_code == 2
    )


# --- control characters never reach the terminal ---------------------------------------------

#: what a hostile log can write in a name, a note or an id: a title change (ESC ] ... BEL),
#: a screen clear (ESC [ 2J), a bare carriage return, a C1 CSI and a right-to-left override
HOSTILE = "ev\x1b]0;owned\x07il\x1b[2J\r\x9b31m\u202e"


def test_control_characters_of_a_log_are_shown_escaped(tmp_path: Path) -> None:
    """Names, notes and ids with terminal control sequences reached the terminal raw in
    audit, replay, compare, query and report (issue 27)."""
    text = (REPLAYS / "middle-card.jsonl").read_text()
    log = tmp_path / "hostile.jsonl"
    log.write_text(
        text.replace('"ariel"', json.dumps("ariel" + HOSTILE)).replace(
            '"meta": {', f'"game_id": {json.dumps("g" + HOSTILE)}, "meta": {{', 1
        )
    )
    db = str(tmp_path / "games.duckdb")
    assert run("ingest", "--db", db, str(log)).exit_code == 0
    outputs = {
        "audit": audit(str(log)),
        "audit -v": audit("-v", str(log)),
        "replay": run("replay", str(log)),
        "compare": run("compare", str(log), "--rules", "classic"),
        "query": run(
            "query", "SELECT player, chr(27) || ']0;x' || chr(7) AS t FROM standings", "--db", db
        ),
        "report": run("report", "players", "--db", db),
    }
    for name, result in outputs.items():
        assert result.exit_code in (0, 1), (name, result.output)
        shown = result.output
        assert "ariel" in shown or name.startswith("query"), name
        for control in ("\x1b", "\x07", "\r", "\x9b", "\u202e"):
            assert control not in shown, (name, control, shown[:400])
    assert "arielev\\x1b]0;owned\\x07il\\x1b[2J\\r\\x9b31m\\u202e" in outputs["replay"].output
    # CSV escapes them too, a line end included (a line of CSV is a row); JSON's encoder
    # escapes them itself
    assert (
        run("query", "SELECT chr(27) || '[2J' || chr(10) || 'x' AS t", "--csv", "--db", db).output
        == "t\n\\x1b[2J\\nx\n"
    )
    report = json.loads(audit("--json", str(log)).output.splitlines()[0])
    assert report["game_id"] == "g" + HOSTILE


#: a file name that would print a ruling line of its own
FORGED = "x\nfriday.jsonl: IMPOSSIBLE under israeli (game friday)\u202e"


def test_a_newline_in_a_file_or_player_name_forges_no_line(tmp_path: Path) -> None:
    """A file named ``x\\nfriday.jsonl: CORRUPT ...`` printed a line of its own (issue 35):
    every output shows a name on its own line's terms, its line end as ``\\n``, a mark
    that reorders text as ``\\u202e`` (CSV included; JSON escapes them itself)."""
    folder = tmp_path / "logs"
    folder.mkdir()
    log = folder / (FORGED + ".jsonl")
    text = (REPLAYS / "middle-card.jsonl").read_text()
    log.write_text(text.replace('"ariel"', json.dumps("ariel\nfriday.jsonl: CLEAN")))
    broken = folder / (FORGED + "-broken.jsonl")
    broken.write_text('{"type": "nothing"}\n')
    db = str(tmp_path / "games.duckdb")
    outputs = {
        "validate": run("validate", str(log), str(broken)),
        "audit": audit(str(log), str(broken)),
        "audit one": audit(str(log)),
        "replay": run("replay", str(log)),
        "compare": run("compare", str(log), "--rules", "classic"),
        "ingest": run("ingest", "--db", db, str(folder)),
        "audit --db": run("audit", "--db", db, "--all", "--exit-zero"),
        "report": run("report", "players", "--db", db),
        "report csv": run("report", "players", "--format", "csv", "--db", db),
        "query csv": run("query", "SELECT source, players FROM games", "--csv", "--db", db),
        "query": run("query", "SELECT source, players FROM games", "--db", db),
        "verify": run("verify", "--db", db),
    }
    for name, result in outputs.items():
        assert result.exit_code in (0, 1, 3), (name, result.output)
        for line in result.output.splitlines():
            assert not line.startswith("friday.jsonl"), (name, result.output)
            assert "\u202e" not in line, (name, line)
        assert "friday.jsonl" in result.output or name == "verify", (name, result.output)
    assert (
        "x\\nfriday.jsonl: IMPOSSIBLE under israeli (game friday)\\u202e.jsonl"
        in outputs["validate"].output
    )
    assert "ariel\\nfriday.jsonl: CLEAN" in outputs["report csv"].output


def test_a_scoresheet_round_without_hands_or_totals_says_it_cannot_be_checked(
    tmp_path: Path,
) -> None:
    """A round the table wrote down without its hands or totals (no showdown) is not
    said to be scored by the rules: its story says its numbers cannot be checked."""
    log = tmp_path / "no-hands.jsonl"
    events = [
        {
            "type": "game_started",
            "format": "yaniv-log/1",
            "players": ["dana", "lior", "omer"],
            "rules": "israeli",
        },
        {"type": "round_started", "round": 1, "starter": "dana"},
        {"type": "round_ended", "round": 1, "points": {"dana": 5, "lior": 21, "omer": 0}},
    ]
    log.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    out = run("audit", str(log), "--exit-zero").output
    assert (
        "Round 1 (opened by dana, scoresheet only): its numbers cannot be checked: the log "
        "has neither its hands nor its totals (no showdown)."
    ) in out
    assert "not scored (no Yaniv" not in out
