"""What the command line says in the reader's language, whole: ``audit --db``'s summary,
the problems of a log that cannot be read (``validate --lang``, and the language of the
environment as gettext programs read it), the plurals of every language (no "1 games",
no "(раз: 1)"), a scoresheet round whose points cannot be checked, and compare's added
findings each said once."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from yaniv_audit.cli import cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_golden_rulings import allowed_words, english_left

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
UNREADABLE = ROOT / "tests" / "golden" / "logs" / "unreadable.jsonl"
UNCHECKED = ROOT / "tests" / "golden" / "logs" / "scoresheet-unchecked.jsonl"


def run(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1", **(env or {})})


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, list[str]]:
    """An archive of every sample log, a simulated game among them; the logs' words."""
    folder = tmp_path_factory.mktemp("logs")
    for log in REPLAYS.glob("*.jsonl"):
        shutil.copy(log, folder / log.name)
    shutil.copy(REPLAYS / "simulated" / "israeli" / "game-00000.jsonl", folder / "sim.jsonl")
    db = str(folder / "games.duckdb")
    assert run("ingest", "--db", db, str(folder)).exit_code == 0
    return db, [str(p) for p in folder.glob("*.jsonl")]


@pytest.mark.parametrize("lang", ["he", "ru", "de", "ko"])
def test_audit_db_summary_speaks_the_readers_language_whole(
    archive: tuple[str, list[str]], lang: str
) -> None:
    db, logs = archive
    result = run("audit", "--db", db, "--again", "--exit-zero", "--lang", lang)
    assert result.exit_code == 0, result.output
    allowed = allowed_words([*logs, db, "yaniv-audit", "audit", "report", "leaderboard"])
    allowed |= {"Yaniv", "Assaf", "geassaft"} if lang == "de" else set()
    assert english_left(result.stdout, allowed, lang) == []
    # and the check would see the English summary
    english = run("audit", "--db", db, "--again", "--exit-zero")
    assert "Players of the" in english.stdout
    assert english_left(english.stdout, allowed, lang) != []


def test_audit_db_summary_from_the_environment(archive: tuple[str, list[str]]) -> None:
    db, _ = archive
    out = run("audit", "--db", db, "--again", "--exit-zero", env={"LANG": "de_DE.UTF-8"}).stdout
    assert "Spieler der von Menschen gespielten Spiele" in out
    assert "1 simuliertes Spiel" in out  # one game, said in the singular


def test_validate_says_the_problems_in_the_readers_language() -> None:
    result = run("validate", str(UNREADABLE), "--lang", "ru")
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert lines[0].endswith(": не читается: 3 проблемы")
    # which line, which field, what was expected, and the near miss
    assert lines[3] == (
        '  строка 4: round_started: поле "hands.dana.0": ожидается карта (достоинство A 2-9 '
        "T (или 10) J Q K, затем масть C D H S (или ♣ ♦ ♥ ♠), или JK), получено "
        '"H5"; может быть, имелось в виду "5H"?'
    )
    # gettext's variables choose it as well; LANGUAGE first
    env = {"LANG": "en_US.UTF-8", "LANGUAGE": "he"}
    assert "שורה 3" in run("validate", str(UNREADABLE), env=env).stdout


def test_validate_in_english_is_as_other_programs_read_it() -> None:
    result = run("validate", str(UNREADABLE), str(REPLAYS / "middle-card.jsonl"))
    assert result.stdout.splitlines() == [
        f"{UNREADABLE}: unreadable: 3 problems",
        '  line 2: unknown event type "round_startd"; expected one of game_started, '
        "round_started, discard, draw, slap, yaniv, showdown, round_ended, reshuffle, "
        'game_ended, note, withdraw; did you mean "round_started"?',
        '  line 3: note: field "player": "dnaa" is not seated (the players are "dana", '
        '"omer"); did you mean "dana"?',
        '  line 4: round_started: field "hands.dana.0": expected a card (rank A 2-9 T (or 10) '
        'J Q K then suit C D H S (or ♣ ♦ ♥ ♠), or JK), got "H5"; did you mean "5H"?',
        f"{REPLAYS / 'middle-card.jsonl'}: ok (24 events)",
    ]


def test_audit_of_an_unreadable_log_among_others_in_the_readers_language() -> None:
    result = run("audit", str(UNREADABLE), str(REPLAYS / "middle-card.jsonl"), "--lang", "he")
    first = result.stdout.splitlines()[0]
    assert first.startswith(f"{UNREADABLE}: לא קריא: שורה 2: סוג אירוע לא מוכר")
    assert first.endswith(f"(ועוד 2: הרשימה ב־yaniv-audit validate {UNREADABLE})")


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "breaks the rules 1 time."),
        ("ru", "нарушает правила 1 раз."),
        ("he", "מפר את החוקים פעם אחת."),
        ("de", "verstößt das Protokoll einmal gegen die Regeln."),
    ],
)
def test_one_is_said_in_the_singular(lang: str, said: str) -> None:
    out = run("audit", str(REPLAYS / "middle-card.jsonl"), "--lang", lang).stdout
    assert said in out


def test_russian_says_each_of_its_three_plural_forms() -> None:
    from yaniv_audit.lang import Words

    ru = Words("ru")
    assert [ru.count("games", n) for n in (1, 3, 5, 21)] == [
        "1 игра",
        "3 игры",
        "5 игр",
        "21 игра",
    ]
    assert Words("he").count("times", 2) == "פעמיים"
    assert Words().count("rounds", 1) == "1 round"


def test_a_scoresheet_round_without_hands_says_its_points_cannot_be_checked() -> None:
    out = run("audit", str(UNCHECKED)).stdout
    assert "the rules give 0 (nothing ended" not in out
    assert (
        "hila was written down for 10 points in round 1; they cannot be checked: the log has "
        "neither the round's hands nor its totals (no showdown), so the replay counts 0 "
        "[claim.points]"
    ) in out
    assert "in round 1 hila's 10 cannot be checked" in out
    # the ruling stays: a claim, the replay counting 0
    report = json.loads(run("audit", str(UNCHECKED), "--json").stdout)
    assert report["verdict"] == "claims"
    points = [f for f in report["findings"] if f["code"] == "claim.points"]
    assert [(f["player"], f["params"]["right"]) for f in points] == [("hila", 0), ("gal", 0)]


def test_a_score_written_after_an_unchecked_round_says_it_cannot_be_checked(
    tmp_path: Path,
) -> None:
    # round 1 has neither hands nor totals; round 2 is checked by its showdown's totals
    log = tmp_path / "two.jsonl"
    log.write_text(
        UNCHECKED.read_text(encoding="utf-8")
        + '{"type": "round_started", "round": 2, "starter": "yossi"}\n'
        '{"type": "showdown", "caller": "yossi", "hands": {}, '
        '"totals": {"hila": 5, "yossi": 3, "gal": 12}}\n'
        '{"type": "round_ended", "round": 2, "points": {"hila": 5, "yossi": 0, "gal": 12}, '
        '"scores": {"hila": 17, "yossi": 0, "gal": 38}}\n'
        '{"type": "game_ended", "scores": {"hila": 17, "yossi": 0, "gal": 40}}\n',
        encoding="utf-8",
    )
    out = run("audit", str(log)).stdout
    assert "the rules give 0 [claim.scores]" not in out
    assert "after round 1 hila's score is 0, not 10" not in out
    assert (
        "hila's score after round 1 was written as 10; it cannot be checked from round 1 on: "
        "the log has neither the hands nor the totals of round 1 [claim.scores]"
    ) in out
    # after a checked round: what the checked rounds give, not what "the rules give",
    # and the wrong step of the checked round itself
    assert (
        "hila's score after round 2 was written as 17; it cannot be checked from round 1 on: "
        "the log has neither the hands nor the totals of round 1; the rounds that can be "
        "checked give 5; in round 2: +2 from a wrong sum (10 + 5 written as 17) [claim.scores]"
    ) in out
    assert "gal's score at the end was written as 40; it cannot be checked from round 1" in out
    assert "after round 2 hila's score of 17 cannot be checked" in out
    # the first line read aloud does not say the rules give other numbers: they cannot
    # confirm these
    assert "the rules do not give" not in out
    assert "every move is right, but the rules do not confirm 7 things the table wrote" in out
    assert "at the end gal's score of 40 cannot be checked" in out
    hebrew = run("audit", str(log), "--lang", "he").stdout
    assert "הניקוד של hila אחרי סיבוב 2 נרשם כ־17; אי אפשר לבדוק אותו מסיבוב 1 והלאה" in hebrew
    # the ruling stays: the same claims, the replay's scores as before
    report = json.loads(run("audit", str(log), "--json").stdout)
    assert report["verdict"] == "claims"
    scores = [f for f in report["findings"] if f["code"] == "claim.scores"]
    assert [
        (f["kind"], f["player"], f["params"]["case"], f["params"]["right"]) for f in scores
    ] == [
        ("claim", "hila", "round_unchecked", 0),
        ("claim", "gal", "round_unchecked", 0),
        ("claim", "hila", "round_unchecked", 5),
        ("claim", "gal", "end_unchecked", 12),
    ]
    assert all(f["params"]["unchecked"] == [1] for f in scores)


def test_compare_says_each_added_finding_once_with_its_players() -> None:
    out = run(
        "compare", str(REPLAYS / "double-assaf.jsonl"), "--rules", "classic", "--rules", "namu"
    ).stdout
    [added] = [line for line in out.splitlines() if "findings added" in line]
    assert added.count("claim.scores at event 16") == 1
    assert "claim.scores at event 16 (anna, jonas, lena, paul)" in added


def test_one_point_written_down_is_one_point_in_every_language() -> None:
    from yaniv_audit.core.messages import render
    from yaniv_audit.lang import Words

    params = {"case": "hand", "player": "dana", "written": 1, "round": 2, "right": 5, "hand": 5}
    assert render("claim.points", params) == (
        "dana was written down for 1 point in round 2; the rules give 5 (hand total 5)"
    )
    assert "записали 1 очко в раунде 2" in Words("ru").finding("claim.points", params)
    assert "1 Punkt aufgeschrieben" in Words("de").finding("claim.points", params)
    assert "הרישום של dana: 1 נקודה בסיבוב 2" in Words("he").finding("claim.points", params)
    many = {**params, "written": 22}
    assert "записали 22 очка" in Words("ru").finding("claim.points", many)


def test_the_checks_of_order_and_of_the_file_are_said_in_the_language_too(
    tmp_path: Path,
) -> None:
    log = tmp_path / "order.jsonl"
    log.write_text(
        '{"type":"game_started","format":"yaniv-log/1","players":["a","b"],"rules":"isreali"}\n'
        '{"type":"round_started","seq":5,"round":1,"starter":"a"}\n'
        '{"type":"discard","player":"a","cards":["5H"]}\n'
    )
    prose = tmp_path / "notes.jsonl"
    prose.write_text("dear table\nhere are the scores\nfrom friday\n")
    out = run("validate", str(log), str(prose), str(tmp_path / "none.jsonl"), "--lang", "he")
    said = out.stdout.replace(str(tmp_path), "")  # the files' names are theirs
    allowed = allowed_words([str(log), "israeli", "yaniv-audit", "template"])
    allowed |= {"docs", "log", "format", "md", "jsonl", "JSON", "Lines", "hands"}  # a field
    assert english_left(said, allowed) == [], said
    assert 'שדה "seq": נדרש 1, מקום האירוע (מ־0), התקבל 5' in out.stdout
    assert "ערכת כללים לא מוכרת" in out.stdout and "אין קובץ כזה" in out.stdout


def test_audit_parquet_says_what_it_did_in_the_language_and_one_rule_set_singular() -> None:
    from yaniv_audit.lang import Words

    done = {
        "games": 3,
        "events": 100,
        "sets": 1,
        "seconds": "1.0",
        "workers": 2,
        "tasks": 4,
        "rate": "1,000",
        "startup": "2.0",
        "out": "results",
    }
    assert Words().say("say.dask_done", **done) == (
        "audited 3 games (100 events) under 1 rule set in 1.0 s on 2 workers, 4 tasks "
        "(1,000 events/s; 2.0 s more to start); results in results"
    )
    said = Words("ru").say("say.dask_done", **done)
    assert said.startswith("проверено: 3 игры (100 событий) по 1 набору правил")
    assert english_left(said.replace("results", ""), set(), "ru") == []


def test_no_sentence_the_command_line_says_carries_a_mark_it_would_escape() -> None:
    """A bidi mark in a catalogue's sentence is escaped by the command line (``\\u200e``,
    as a log's names are): Hebrew sets the options apart without one."""
    out = run("audit", str(REPLAYS / "middle-card.jsonl"), "--strict", "--lang", "he").stdout
    assert "(--strict עוצר בממצא הראשון)" in out
    assert "\\u200e" not in out


@pytest.mark.parametrize(
    "command", [["compare", "--rules", "classic"], ["replay"], ["rules", "fit"]]
)
def test_a_command_on_one_log_says_why_it_cannot_read_it_in_the_language(
    command: list[str],
) -> None:
    args = [*command[:1], *command[1:2]] if command[0] == "rules" else command[:1]
    rest = [] if command[0] == "rules" else command[1:]
    result = run(*args, str(UNREADABLE), *rest, "--lang", "ru")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"yaniv-audit: {UNREADABLE}: не читается: строка 2: ")
    assert "может быть, имелось в виду" in result.stderr
    english = run(*args, str(UNREADABLE), *rest)
    assert english.stderr.startswith(f"yaniv-audit: {UNREADABLE}: unreadable: line 2: ")


def test_a_line_taken_out_is_said_once_with_the_later_events_counted(tmp_path: Path) -> None:
    log = tmp_path / "shifted.jsonl"
    log.write_text(
        '{"type":"game_started","seq":0,"format":"yaniv-log/1","players":["a","b"],'
        '"rules":"israeli"}\n'
        '{"type":"round_started","seq":2,"round":1,"starter":"a"}\n'
        '{"type":"round_ended","seq":3,"round":1}\n'
        '{"type":"round_started","seq":4,"round":2,"starter":"b"}\n'
    )
    english = run("validate", str(log)).stdout.splitlines()
    assert english[-1] == (
        "  log: and 2 later events with seq off by the same amount (was a line added or taken out?)"
    )
    russian = run("validate", str(log), "--lang", "ru").stdout.splitlines()
    assert russian[-1] == (
        "  журнал: и ещё 2 события дальше с seq, сдвинутым на ту же величину (строку "
        "добавили или удалили?)"
    )


def test_the_rules_and_the_stock_of_a_log_are_said_in_the_language(tmp_path: Path) -> None:
    log = tmp_path / "rules.jsonl"
    log.write_text(
        '{"type":"game_started","format":"yaniv-log/1","players":["a"],'
        '"rules":"israeli(yaniv_max=seven,slap_down=maybe)"}\n'
        '{"type":"round_started","round":1,"starter":"a","hands":{"a":["5H","6H","7H","8H",'
        '"9H"]},"upcard":"2C"}\n'
        '{"type":"draw","player":"a","source":"stock"}\n'
        '{"type":"game_started","format":"yaniv-log/1","players":["a","b"],"rules":"israeli"}\n'
    )
    lines = run("validate", str(log), "--lang", "de").stdout.splitlines()
    assert lines[1:] == [
        '  Zeile 1: game_started: Feld "players": erwartet: 2 bis 8 Spieler, erhalten: ["a"]',
        '  Zeile 1: game_started: Feld "rules": yaniv_max: erwartet: eine ganze Zahl von 0 '
        'bis 99999, erhalten: "seven"; slap_down: erwartet: true oder false, erhalten: '
        '"maybe"',
        '  Zeile 3: draw: Feld "card": hier erforderlich: das round_started von Runde 1 hat '
        'keinen "stock" aufgezeichnet, also ist die Reihenfolge des Stapels unbekannt',
        "  Zeile 4: game_started: ein Protokoll enthält ein Spiel, und es begann bei Zeile 1",
    ]


def test_the_verbose_note_of_audit_is_in_the_language() -> None:
    result = run("-v", "audit", str(REPLAYS / "middle-card.jsonl"), "--jobs", "2", "--lang", "ru")
    assert "проверка: 1 журнал, правила: заявленные в каждом журнале, на 2 процессах" in (
        result.stderr
    )


def test_a_table_in_korean_lines_up_on_a_terminal() -> None:
    """A wide character takes two columns of a terminal: the players' table of a Korean
    summary lines up under its headings (each heading's dashes as wide as it is)."""
    from yaniv_audit.cli.render import render_table

    assert render_table(["참가자", "게임"], [("anna", 1), ("dana", 12)]).splitlines() == [
        "참가자  게임",
        "------  ----",
        "anna       1",
        "dana      12",
    ]
