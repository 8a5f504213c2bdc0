"""The simulator: legal, varied and byte-for-byte deterministic games."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.batch.simulate import (
    BOTS,
    RandomBot,
    Rng,
    SimulationBug,
    SimulationError,
    simulate_game,
    to_jsonl,
)
from yaniv_audit.cli import cli
from yaniv_audit.core.cards import JOKER
from yaniv_audit.core.engine import DrawOption, Move, Replay, Throw
from yaniv_audit.core.rules import PRESETS, parse_rules
from yaniv_audit.io.codec import parse_jsonl, read_log


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("bot", list(BOTS))
def test_simulated_games_audit_clean_under_their_own_rules(
    preset: str, bot: str, tmp_path: Path
) -> None:
    events = simulate_game(PRESETS[preset], 4, [bot], seed=3)
    path = tmp_path / "game.jsonl"
    path.write_text(to_jsonl(events))
    report = audit_file(str(path))
    assert report["verdict"] == "clean", report["findings"][:3]
    assert report["rules"]["id"] == preset
    assert report["final"]["finished"], "a simulated game is played to its end"
    assert report["final"]["winners"] == events[-1]["winner"]


def test_games_exercise_the_rules_they_are_played_under() -> None:
    kinds: Counter[str] = Counter()
    for g in range(6):
        events = simulate_game(
            parse_rules("de-wiki(slap_down=true)"),
            5,
            ["random", "greedy", "careful"],
            seed=11,
            game=g,
        )
        kinds.update(e["type"] for e in events)
        kinds.update("swap" for e in events if "swap" in e)
        kinds.update(
            "assaf"
            for e in events
            if e["type"] == "round_ended" and any(v >= 30 for v in e["points"].values())
        )
    assert kinds["slap"] > 0 and kinds["reshuffle"] > 0 and kinds["assaf"] > 0
    assert kinds["yaniv"] == kinds["showdown"] == kinds["round_ended"]


def test_rng_is_splitmix64() -> None:
    # reference values of SplitMix64 seeded with 1234567 (Vigna's splitmix64.c)
    rng = Rng(1234567)
    assert [rng.next64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]


def test_same_arguments_give_identical_logs_in_two_processes(tmp_path: Path) -> None:
    script = (
        "import sys, hashlib; from yaniv_audit.batch.simulate import simulate_game, to_jsonl;"
        "from yaniv_audit.core.rules import parse_rules;"
        "t = ''.join(to_jsonl(simulate_game(parse_rules('classic'), 3, "
        "['random', 'careful'], 42, g)) for g in range(3));"
        "print(hashlib.sha256(t.encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in (1, 2)
    }
    local = hashlib.sha256(
        "".join(
            to_jsonl(simulate_game(parse_rules("classic"), 3, ["random", "careful"], 42, g))
            for g in range(3)
        ).encode()
    ).hexdigest()
    assert digests == {local + "\n"}


def test_a_different_seed_gives_a_different_game() -> None:
    a = simulate_game(PRESETS["israeli"], 3, ["random"], seed=1)
    b = simulate_game(PRESETS["israeli"], 3, ["random"], seed=2)
    assert a != b


def test_impossible_arguments_are_refused() -> None:
    with pytest.raises(SimulationError, match="do not fit"):
        simulate_game(parse_rules("israeli(hand_size=20)"), 8, ["random"], 1)
    with pytest.raises(SimulationError, match="unknown bot"):
        simulate_game(PRESETS["israeli"], 3, ["psychic"], 1)


def test_simulate_command_writes_valid_logs(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "games"
    result = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "namu",
            "--players",
            "3",
            "--games",
            "4",
            "--seed",
            "9",
            "--bot",
            "greedy",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    files = sorted(out.glob("*.jsonl"))
    assert [f.name for f in files] == [f"game-{i:05d}.jsonl" for i in range(4)]
    for f in files:
        assert read_log(f).game.rules == PRESETS["namu"]
    again = tmp_path / "again"
    runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "namu",
            "--players",
            "3",
            "--games",
            "4",
            "--seed",
            "9",
            "--bot",
            "greedy",
            "--out",
            str(again),
        ],
    )
    assert [f.read_bytes() for f in files] == [
        f.read_bytes() for f in sorted(again.glob("*.jsonl"))
    ]
    audit = runner.invoke(cli, ["audit", str(out), "--jobs", "2"])
    assert audit.exit_code == 0, audit.output
    assert "4 games: 4 clean" in audit.output


def test_games_where_the_caller_opens_are_written_and_audit_clean(tmp_path: Path) -> None:
    """Under starter="caller" the caller opens the next round even when Assafed: the bots'
    opener is the engine's (seed 1 has an Assafed caller in its first game)."""
    runner = CliRunner()
    out = tmp_path / "games"
    result = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "israeli(starter=caller)",
            "--games",
            "20",
            "--seed",
            "1",
            "--jobs",
            "1",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    assert len(list(out.glob("*.jsonl"))) == 20
    audit = runner.invoke(cli, ["audit", str(out), "--jobs", "1"])
    assert audit.exit_code == 0, audit.output
    assert "20 games: 20 clean" in audit.output


def test_simulate_writes_the_same_bytes_whatever_the_number_of_jobs(tmp_path: Path) -> None:
    args = [
        "simulate",
        "--rules",
        "de-wiki(slap_down=true)",
        "--players",
        "3",
        "--games",
        "6",
        "--seed",
        "5",
        "--bot",
        "random",
        "--bot",
        "careful",
        "--record",
        "mixed",
    ]
    written = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs-{jobs}"
        result = subprocess.run(
            [sys.executable, "-m", "yaniv_audit.cli", *args, "--jobs", jobs, "--out", str(out)],
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stderr
        written.append({f.name: f.read_bytes() for f in sorted(out.iterdir())})
    one, two = written
    assert list(one) == [f"game-{i:05d}.jsonl" for i in range(6)]
    assert one == two
    assert (
        one["game-00004.jsonl"]
        == to_jsonl(
            simulate_game(
                parse_rules("de-wiki(slap_down=true)"),
                3,
                ["random", "careful"],
                5,
                4,
                record="mixed",
            )
        ).encode()
    )


@pytest.mark.parametrize(
    "rules_id",
    [
        "israeli(slap_down=true)",
        "de-wiki(slap_down=true)",
        "jhyap(slap_down=true,joker_swap=true,pickup=any)",
        "classic(reshuffle=round_ends,pickup=ends_of_runs)",
    ],
)
def test_the_bots_choose_among_the_engines_legal_moves(
    rules_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At every choice a bot is offered exactly the moves a replay of the log written so
    far offers (Replay.start_options and draw_options, the values of start_moves and
    draw_moves, and slap_moves), in the same order: the simulator plays through the
    engine and keeps no move generator of its own."""
    offered: list[tuple[int, str, Any]] = []  # (events written, what was asked, the offer)

    class Spy(RandomBot):
        def start(
            self,
            game: Any,
            player: str,
            throws: list[Throw],
            can_call: bool,
        ) -> Throw | None:
            offered.append((game.count, f"start {player}", (can_call, throws)))
            return super().start(game, player, throws, can_call)

        def draw(self, game: Any, player: str, draws: list[DrawOption]) -> DrawOption:
            offered.append((game.count, "draw", draws))
            return super().draw(game, player, draws)

        def slap(self, game: Any, player: str, card: int) -> bool:
            offered.append((game.count, "slap", card))
            return super().slap(game, player, card)

    monkeypatch.setitem(BOTS, "random", Spy)
    events = simulate_game(parse_rules(rules_id), 4, ["random"], seed=8)
    log = parse_jsonl(to_jsonl(events).encode(), "game.jsonl")
    assert {e.type for e in log.events} >= {"discard", "draw", "yaniv", "round_ended"}
    asked = {what.split()[0] for _, what, _ in offered}
    assert asked == {"start", "draw"} | (
        {"slap"} if "slap" in {e.type for e in log.events} else set()
    )
    replay = Replay(log.game, log.game.rules)
    written = 0
    for count, what, offer in offered[:400]:
        for event in log.events[written:count]:
            replay.apply(event)
        written = count
        assert replay.round is not None
        if what == "slap":
            assert replay.slap_moves() == [Move("slap", replay.round.current, card=offer)]
        elif what == "draw":
            assert offer == replay.draw_options()
            assert (
                replay.draw_moves()
                == replay.legal_moves()
                == [
                    Move("draw", replay.round.current, source=s, card=c, swap=w)
                    for s, c, w in offer
                ]
            )
        else:
            player = what.split()[1]
            can_call, throws = offer
            assert offer == replay.start_options(player)
            assert replay.start_moves(player) == [Move("yaniv", player)] * can_call + [
                Move("discard", player, t) for t in throws
            ]


def test_a_move_the_engine_refuses_stops_the_game_as_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine referees the bots: a move it finds fault with is never written."""

    class Cheat(RandomBot):
        def draw(self, game: Any, player: str, draws: list[DrawOption]) -> DrawOption:
            return ("pile", JOKER, None)  # not on the pile

    monkeypatch.setitem(BOTS, "random", Cheat)
    with pytest.raises(SimulationBug, match=r"sim-3-0: .*card\.not_on_pile"):
        simulate_game(PRESETS["israeli"], 3, ["random"], seed=3)


def test_simulate_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    bad_bot = runner.invoke(cli, ["simulate", "--bot", "psychic", "--out", str(tmp_path)])
    assert bad_bot.exit_code == 2 and "unknown bot 'psychic'" in bad_bot.output
    bad_rules = runner.invoke(
        cli, ["simulate", "--rules", "israeli(yaniv_max=x)", "--out", str(tmp_path)]
    )
    assert bad_rules.exit_code == 2 and "yaniv_max" in bad_rules.output
    two_in_one = runner.invoke(
        cli, ["simulate", "--games", "2", "--out", str(tmp_path / "one.jsonl")]
    )
    assert two_in_one.exit_code == 2


def test_an_out_that_cannot_hold_the_games_says_so(tmp_path: Path) -> None:
    """--out naming a file, or a place no directory can be made, says so (it was an
    "internal error", exit 4), with exit 3 as every command says a directory that cannot
    be written (issue 38)."""
    runner = CliRunner()
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not a folder\n")
    result = runner.invoke(cli, ["simulate", "--games", "2", "--out", str(a_file)])
    assert result.exit_code == 3
    assert f"{a_file}: cannot write the games there (File exists)" in result.output
    folder = runner.invoke(cli, ["simulate", "--games", "1", "--out", str(tmp_path)])
    assert folder.exit_code == 0  # a folder for one game is fine: game-00000.jsonl
    one_file = runner.invoke(cli, ["simulate", "--out", str(a_file / "x.jsonl")])
    assert one_file.exit_code == 3 and "cannot write the games there" in one_file.output
    (tmp_path / "folder.jsonl").mkdir()
    a_folder = runner.invoke(cli, ["simulate", "--out", str(tmp_path / "folder.jsonl")])
    assert a_folder.exit_code == 2 and "is a directory" in a_folder.output


# --- recording styles -------------------------------------------------------------------

MOVES = {"discard", "draw", "slap", "yaniv", "reshuffle"}
Events = list[dict[str, Any]]


def rounds_of(events: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The events of each round, its round_started first."""
    rounds: list[list[dict[str, Any]]] = []
    for e in events:
        if e["type"] == "round_started":
            rounds.append([])
        if rounds and e["type"] not in ("game_ended", "note"):
            rounds[-1].append(e)
    return rounds


def style_of(deal: dict[str, Any]) -> str:
    """The recording style a round_started shows."""
    kept = tuple(k for k in ("hands", "upcard", "stock") if k in deal)
    return {
        ("hands", "upcard", "stock"): "full",
        ("hands", "upcard"): "no_stock",
        ("hands", "stock"): "no_upcard",
        ("hands",): "hands_only",
        (): "scoresheet",
    }[kept]


def stock_draws_name_their_card_where_the_log_leaves_the_order_open(events: Events) -> None:
    known = False
    for e in events:
        if e["type"] in ("round_started", "reshuffle"):
            known = "stock" in e
        elif e["type"] == "draw" and e["source"] == "stock" and not known:
            assert "card" in e, e


def styled_games(
    style: str, rules: str = "classic(slap_down=true)", players: int = 4, games: int = 4
) -> list[list[dict[str, Any]]]:
    # random bots play long rounds: the stock runs out and is reshuffled often
    return [
        simulate_game(parse_rules(rules), players, ["random"], seed=11, game=g, record=style)
        for g in range(games)
    ]


@pytest.mark.parametrize("style", ["full", "no_stock", "no_upcard", "hands_only"])
def test_each_style_with_moves_writes_what_it_says(style: str) -> None:
    seen: Counter[str] = Counter()
    for events in styled_games(style):
        assert events[0]["meta"].get("record", "full") == style
        stock_draws_name_their_card_where_the_log_leaves_the_order_open(events)
        for rnd in rounds_of(events):
            deal = rnd[0]
            assert style_of(deal) == style
            for e in rnd[1:]:
                seen[e["type"]] += 1
                if e["type"] == "reshuffle":
                    seen["reshuffle with stock" if "stock" in e else "reshuffle without"] += 1
                    if style in ("no_stock", "hands_only"):
                        assert "stock" not in e
                    if style == "full":
                        assert "stock" in e
                if e["type"] == "draw" and e["source"] == "stock":
                    seen["stock draw without card" if "card" not in e else "stock draw"] += 1
                    if style in ("full", "no_stock", "hands_only"):
                        assert "card" in e  # full names them all; the others must
                if e["type"] == "draw" and e["source"] == "pile":
                    assert "card" in e
    assert seen["discard"] and seen["draw"] and seen["yaniv"] and seen["reshuffle"]
    if style == "no_upcard":  # the stock is recorded: some draws leave the card out
        assert seen["stock draw without card"] and seen["stock draw"]
        assert seen["reshuffle with stock"] and seen["reshuffle without"]
    if style == "full":
        assert seen["showdown"] == seen["yaniv"] and seen["round_ended"] == seen["yaniv"]
    else:  # a few showdowns and round_ended are left out, and some reshuffles
        assert seen["showdown"] < seen["yaniv"]


def test_scoresheet_rounds_have_no_moves() -> None:
    for rules in ("israeli", "israeli(reshuffle=round_ends)"):
        callers: Counter[str | None] = Counter()
        for events in styled_games("scoresheet", rules, players=6):
            for rnd in rounds_of(events):
                deal, rest = rnd[0], rnd[1:]
                assert set(deal) == {"type", "seq", "at", "round", "starter"}
                assert [e["type"] for e in rest] in (["showdown", "round_ended"], []), rest
                if rest:
                    showdown = rest[0]
                    callers["null" if showdown["caller"] is None else "caller"] += 1
                    assert set(showdown["hands"]) == set(rest[1]["points"])
        assert callers["caller"]
        # the stock ends some rounds under round_ends: no caller then
        assert bool(callers["null"]) == (rules == "israeli(reshuffle=round_ends)")


def test_mixed_logs_use_every_style_round_by_round() -> None:
    styles: Counter[str] = Counter()
    for events in styled_games("mixed", "israeli", players=3, games=6):
        stock_draws_name_their_card_where_the_log_leaves_the_order_open(events)
        for rnd in rounds_of(events):
            styles[style_of(rnd[0])] += 1
            if style_of(rnd[0]) == "scoresheet":
                assert not any(e["type"] in MOVES for e in rnd)
    assert set(styles) == {"full", "no_stock", "no_upcard", "hands_only", "scoresheet"}


@pytest.mark.parametrize("style", ["no_stock", "no_upcard", "hands_only", "scoresheet", "mixed"])
def test_a_style_writes_down_the_same_game_as_full(style: str) -> None:
    """Every event of a styled log is an event of the full record, with fields left out."""
    for full, styled in zip(
        styled_games("full", games=2), styled_games(style, games=2), strict=True
    ):
        rest = iter(full)
        for e in styled[1:]:
            match = next(f for f in rest if f["type"] == e["type"] and f["at"] == e["at"])
            assert set(e) <= set(match)
            assert {k: v for k, v in e.items() if k != "seq"} == {
                k: v for k, v in match.items() if k in e and k != "seq"
            }
        assert [e["seq"] for e in styled] == list(range(len(styled)))
        assert styled[0]["game_id"] == f"{full[0]['game_id']}-{style}"


def test_an_unknown_style_is_refused() -> None:
    with pytest.raises(SimulationError, match="unknown recording style 'minutes'"):
        simulate_game(PRESETS["israeli"], 3, ["random"], 1, record="minutes")
    result = CliRunner().invoke(cli, ["simulate", "--record", "minutes", "--out", "x.jsonl"])
    assert result.exit_code == 2 and "minutes" in result.output


def test_the_command_offers_every_style() -> None:
    from yaniv_audit.batch.simulate import RECORD_STYLES

    option = next(p for p in cli.commands["simulate"].params if p.name == "record")
    assert tuple(option.type.choices) == RECORD_STYLES  # type: ignore[attr-defined]
    assert option.default == "full"
    help_text = CliRunner().invoke(cli, ["simulate", "--help"]).output
    for style in RECORD_STYLES:
        assert style in help_text


def test_simulate_record_writes_the_style_and_the_same_bytes_again(tmp_path: Path) -> None:
    runner = CliRunner()
    args = [
        "simulate",
        "--rules",
        "classic",
        "--players",
        "3",
        "--games",
        "3",
        "--seed",
        "4",
        "--record",
        "scoresheet",
    ]
    assert runner.invoke(cli, [*args, "--out", str(tmp_path / "a")]).exit_code == 0
    assert runner.invoke(cli, [*args, "--out", str(tmp_path / "b")]).exit_code == 0
    files = sorted((tmp_path / "a").glob("*.jsonl"))
    assert [f.read_bytes() for f in files] == [
        f.read_bytes() for f in sorted((tmp_path / "b").glob("*.jsonl"))
    ]
    for f in files:
        types = {json.loads(line)["type"] for line in f.read_text().splitlines()}
        assert not types & MOVES
    default = runner.invoke(
        cli,
        [
            "simulate",
            "--rules",
            "classic",
            "--players",
            "3",
            "--seed",
            "4",
            "--out",
            str(tmp_path / "full.jsonl"),
        ],
    )
    assert default.exit_code == 0
    assert (tmp_path / "full.jsonl").read_text() == to_jsonl(
        simulate_game(PRESETS["classic"], 3, [], 4, 0)
    )
