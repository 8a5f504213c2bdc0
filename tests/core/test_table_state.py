"""The table of a game being recorded (yaniv_audit.core.table_state, POST /api/v1/state): logs as
tables keep them (scoresheets of hands or of totals, no upcard, unfinished rounds, bad
entries), each giving the state, what may come next, and the audit's own report."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from yaniv_audit.core.audit import audit_log, replay_log
from yaniv_audit.core.errors import LogFormatError
from yaniv_audit.core.events import Log
from yaniv_audit.core.rules import parse_rules
from yaniv_audit.core.table_state import table_state
from yaniv_audit.io.codec import parse_jsonl
from yaniv_audit.web import create_app
from yaniv_audit.web.openapi import openapi

PLAYERS = ["dana", "lior", "omer"]


def game(rules: str = "israeli") -> dict[str, Any]:
    return {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": PLAYERS,
        "rules": rules,
        "game_id": "at-the-table",
    }


def log_of(events: list[dict[str, Any]]) -> Log:
    return parse_jsonl("".join(json.dumps(e) + "\n" for e in events).encode(), "recorded")


def state_of(events: list[dict[str, Any]], rules: str | None = None) -> dict[str, Any]:
    """The table after ``events``, after checking that its report is the audit's."""
    log = log_of(events)
    ruleset = parse_rules(rules) if rules else None
    result = table_state(log, ruleset)
    assert result["report"] == audit_log(log, ruleset)
    return result


def scoresheet_round(
    number: int,
    starter: str,
    caller: str | None,
    hands: dict[str, list[str]],
    totals: dict[str, int] | None = None,
    **written: Any,
) -> list[dict[str, Any]]:
    showdown: dict[str, Any] = {"type": "showdown", "caller": caller, "hands": hands}
    if totals:
        showdown["totals"] = totals
    return [
        {"type": "round_started", "round": number, "starter": starter},
        showdown,
        {"type": "round_ended", "round": number, **written},
    ]


def test_a_scoresheet_round_is_scored_as_the_audit_scores_it() -> None:
    events = [game(), {"type": "round_started", "round": 1, "starter": "dana"}]
    table = state_of(events)
    assert table["state"]["round"] == 1 and table["state"]["moves_checked"] is False
    assert table["next"]["expects"] == ["yaniv", "showdown", "note"]
    assert table["next"]["moves"] == []  # no moves in a scoresheet round
    events.append(
        {
            "type": "showdown",
            "caller": "omer",
            "hands": {"dana": ["AH", "4C"], "lior": ["KS", "9D", "2C"], "omer": ["3S", "3D"]},
        }
    )
    table = state_of(events)
    first = table["report"]["rounds"][0]
    assert (first["caller"], first["assaf"], first["winners"]) == ("omer", ["dana"], ["dana"])
    assert first["points"] == {"dana": 0, "lior": 21, "omer": 36}
    assert table["state"]["scores"] == {"dana": 0, "lior": 21, "omer": 36}
    assert table["state"]["ended"] and not table["state"]["closed"]
    assert table["next"]["expects"] == ["round_ended", "round_started", "game_ended", "note"]
    assert table["next"]["round"] == 2 and table["next"]["starters"] == ["dana"]
    assert table["last"] == []


def test_a_scoresheet_of_totals_only_to_an_elimination_with_a_reduction() -> None:
    rules = "israeli(score_limit=100)"
    events = [game(rules)]
    # round 1: totals only (the cards were not kept); lior calls at 5, nobody Assafs
    events += scoresheet_round(1, "dana", "lior", {}, {"dana": 50, "lior": 5, "omer": 20})
    # round 2: dana lands on exactly 100 and drops to 50 (reductions {100: 50})
    events += scoresheet_round(2, "lior", "lior", {"lior": ["2S"]}, {"dana": 50, "omer": 30})
    table = state_of(events, rules)
    assert table["report"]["rounds"][1]["reductions"] == [{"player": "dana", "from": 100, "to": 50}]
    # round 3: omer Assafs lior's call (4 against 4): lior scores 4 + 30 and omer 0; dana 60
    events += scoresheet_round(
        3, "lior", "lior", {"lior": ["AS", "3H"], "omer": ["4D"]}, {"dana": 60}
    )
    table = state_of(events, rules)
    third = table["report"]["rounds"][2]
    assert third["assaf"] == ["omer"] and third["points"] == {"dana": 60, "lior": 34, "omer": 0}
    assert table["state"]["scores"] == {"dana": 110, "lior": 34, "omer": 50}
    assert table["state"]["out"] == ["dana"] and third["out"] == ["dana"]
    assert table["next"]["deal"] == ["lior", "omer"] and table["next"]["starters"] == ["omer"]
    # round 4: lior goes out too, and omer has won
    events += scoresheet_round(4, "omer", "omer", {"omer": ["AC"]}, {"lior": 70})
    table = state_of(events, rules)
    assert table["state"]["finished"] and table["state"]["winners"] == ["omer"]
    assert table["report"]["final"] == {
        "scores": {"dana": 110, "lior": 104, "omer": 50},
        "finished": True,
        "winners": ["omer"],
        "out": ["dana", "lior"],
    }
    assert table["next"]["expects"] == ["game_ended", "note"]
    assert table["report"]["verdict"] == "clean"


def test_what_the_table_wrote_down_is_checked_as_the_audit_checks_it() -> None:
    events = [
        game(),
        *scoresheet_round(
            1, "dana", "omer", {"omer": ["3S", "3D"]}, {"dana": 5, "lior": 21}, points={"dana": 5}
        ),
    ]
    table = state_of(events)
    assert [(f["code"], f["player"]) for f in table["last"]] == [("claim.points", "dana")]
    assert table["last"][0]["message"] == (
        "dana was written down for 5 points in round 1; "
        "the rules give 0 (Assaf, assaf_scoring=lowest_wins)"
    )
    assert table["report"]["verdict"] == "claims"


def test_a_written_total_the_shown_cards_do_not_make_is_a_claim() -> None:
    events = [
        game(),
        *scoresheet_round(1, "dana", "omer", {"omer": ["3S"]}, {"omer": 4, "dana": 9, "lior": 12}),
    ]
    table = state_of(events)
    assert [f["message"] for f in table["report"]["findings"]] == [
        "omer's total was written as 4, but the cards shown (3S) make 3"
    ]
    assert table["report"]["rounds"][0]["totals"]["omer"] == 3  # the cards count


@pytest.mark.parametrize(
    ("showdown", "code", "message"),
    [
        (
            {"caller": "omer", "hands": {"omer": ["5S", "4D"]}, "totals": {"dana": 20, "lior": 30}},
            "yaniv.threshold",
            "omer called Yaniv at 9 (5S 4D); yaniv_max=7",
        ),
        (
            {"caller": "omer", "hands": {}, "totals": {"omer": 9, "dana": 20, "lior": 30}},
            "yaniv.threshold",
            "omer called Yaniv at 9 (the total written down); yaniv_max=7",
        ),
        (
            {
                "caller": "omer",
                "hands": {"omer": ["5S"], "dana": ["5S", "KD"]},
                "totals": {"lior": 3},
            },
            "card.too_many",
            "the showdown holds 2 copies of 5S; the deck has 1 (decks=1)",
        ),
    ],
)
def test_an_impossible_hand_is_flagged_at_once(
    showdown: dict[str, Any], code: str, message: str
) -> None:
    events = [
        game(),
        {"type": "round_started", "round": 1, "starter": "dana"},
        {"type": "showdown", **showdown},
    ]
    table = state_of(events)
    assert [(f["code"], f["message"]) for f in table["last"]] == [(code, message)]
    assert table["state"]["stopped"] == (code == "card.too_many")
    if table["state"]["stopped"]:
        assert table["report"]["verdict"] == "corrupt"
        assert table["next"]["expects"] == ["note"]


HANDS = {
    "dana": ["7H", "8H", "9H", "KS", "3D"],
    "lior": ["2C", "2D", "QH", "5S", "6C"],
    "omer": ["AH", "4S", "JD", "TC", "9C"],
}


def deal(**extra: Any) -> dict[str, Any]:
    return {"type": "round_started", "round": 1, "starter": "dana", "hands": HANDS, **extra}


def test_a_move_round_gives_the_turn_the_hands_and_the_engines_legal_moves() -> None:
    events = [game(), deal(upcard="TH")]
    table = state_of(events)
    state = table["state"]
    assert (state["turn"], state["phase"], state["stock"]) == ("dana", "start", 38)
    assert state["hands"]["dana"] == HANDS["dana"] and state["totals"]["dana"] == 37
    assert state["pile"] == [["TH"]] and state["stock_known"] is False
    replay = replay_log(log_of(events))
    assert table["next"]["moves"] == [m.event() for m in replay.legal_moves()]
    assert {"type": "discard", "player": "dana", "cards": ["7H", "8H", "9H"]} in table["next"][
        "moves"
    ]
    assert "yaniv" not in [m["type"] for m in table["next"]["moves"]]  # 37 > yaniv_max
    events.append({"type": "discard", "player": "dana", "cards": ["7H", "8H", "9H"]})
    table = state_of(events)
    assert table["state"]["phase"] == "threw" and table["next"]["expects"] == [
        "draw",
        "showdown",
        "note",
    ]
    assert table["next"]["moves"] == [
        {"type": "draw", "player": "dana", "source": "stock"},  # the card is not known
        {"type": "draw", "player": "dana", "source": "pile", "card": "TH"},
    ]
    assert table["state"]["pile"] == [["TH"], ["7H", "8H", "9H"]]


def test_a_refused_middle_card_is_recorded_and_flagged_with_the_audits_words() -> None:
    events = [
        game(),
        deal(upcard="TH"),
        {"type": "discard", "player": "dana", "cards": ["7H", "8H", "9H"]},
        {"type": "draw", "player": "dana", "source": "pile", "card": "TH"},
        {"type": "discard", "player": "lior", "cards": ["2C", "2D"]},
    ]
    table = state_of(events)
    assert {"type": "draw", "player": "lior", "source": "pile", "card": "8H"} not in table["next"][
        "moves"
    ]
    events.append({"type": "draw", "player": "lior", "source": "pile", "card": "8H"})
    table = state_of(events)
    assert [(f["code"], f["message"]) for f in table["last"]] == [
        (
            "draw.pile_card",
            "lior took 8H from the middle of 7H 8H 9H; only 7H or 9H may be taken (pickup=ends)",
        )
    ]
    assert table["state"]["hands"]["lior"] == ["QH", "5S", "6C", "8H"]
    assert table["state"]["turn"] == "lior" and table["state"]["phase"] == "drew"
    assert table["state"]["up"] == "omer"  # the next seat throws or calls next


def test_without_an_upcard_the_first_pile_draw_names_it() -> None:
    events = [game(), deal(), {"type": "discard", "player": "dana", "cards": ["KS"]}]
    table = state_of(events)
    assert table["state"]["upcard_known"] is False and table["state"]["pile"][0] == ["??"]
    # the engine offers no pile draw of a card it does not know: the recorder names it
    assert [m["source"] for m in table["next"]["moves"]] == ["stock"]
    events.append({"type": "draw", "player": "dana", "source": "pile", "card": "4H"})
    table = state_of(events)
    assert table["last"] == [] and table["state"]["hands"]["dana"][-1] == "4H"
    assert table["state"]["upcard_known"] is True


def test_an_unfinished_round_is_unscored_and_the_log_may_stop_anywhere() -> None:
    events = [
        game(),
        deal(upcard="TH"),
        {"type": "discard", "player": "dana", "cards": ["KS"]},
        {"type": "draw", "player": "dana", "source": "stock", "card": "5H"},
    ]
    table = state_of(events)
    assert table["report"]["rounds"][0]["end"] is None
    assert table["report"]["final"]["finished"] is False
    assert table["state"]["turn"] == "dana" and table["state"]["phase"] == "drew"
    assert table["next"]["expects"] == ["discard", "yaniv", "showdown", "note"]


def test_a_card_not_in_hand_stops_the_replay_as_the_audit_does() -> None:
    events = [game(), deal(upcard="TH"), {"type": "discard", "player": "dana", "cards": ["QC"]}]
    table = state_of(events)
    assert [f["code"] for f in table["last"]] == ["card.not_in_hand"]
    assert table["state"]["stopped"] and table["next"] == {
        "expects": ["note"],
        "moves": [],
        "moves_complete": True,
        "round": None,
        "starters": None,
        "deal": [],
    }


def test_an_unnamed_stock_draw_where_the_order_is_unknown_is_unreadable() -> None:
    events = [
        game(),
        deal(upcard="TH"),
        {"type": "discard", "player": "dana", "cards": ["KS"]},
        {"type": "draw", "player": "dana", "source": "stock"},
    ]
    with pytest.raises(LogFormatError, match='field "card": required'):
        table_state(log_of(events))


# --- the endpoint -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def client() -> FlaskClient:
    return create_app({"TESTING": True, "ARCHIVE": "/nonexistent/none.duckdb"}).test_client()


def body(events: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def test_the_endpoint_answers_what_table_state_gives_in_its_schema(client: FlaskClient) -> None:
    events = [
        game(),
        *scoresheet_round(1, "dana", "omer", {"omer": ["3S", "3D"]}, {"dana": 5, "lior": 21}),
    ]
    answer = client.post("/api/v1/state?rules=classic", data=body(events))
    assert answer.status_code == 200
    expected = json.loads(json.dumps(table_state(log_of(events), parse_rules("classic"))))
    assert answer.get_json() == expected
    assert answer.get_json()["report"]["rules"]["id"] == "classic"
    document = openapi()
    schema = {"$ref": "#/components/schemas/TableState", "components": document["components"]}
    assert [e.message for e in Draft202012Validator(schema).iter_errors(expected)] == []
    assert "/api/v1/state" in document["paths"]


def test_the_endpoints_errors(client: FlaskClient) -> None:
    unreadable = client.post(
        "/api/v1/state",
        data=body(
            [
                game(),
                deal(upcard="TH"),
                {"type": "discard", "player": "dana", "cards": ["KS"]},
                {"type": "draw", "player": "dana", "source": "stock"},
            ]
        ),
    )
    error = unreadable.get_json()["error"]
    assert (unreadable.status_code, error["code"], error["line"]) == (422, "unreadable_log", 4)
    assert error["message"].startswith('request: line 4: draw: field "card": required')
    bad_rules = client.post("/api/v1/state?rules=israelli", data=body([game()]))
    assert bad_rules.status_code == 400 and bad_rules.get_json()["error"]["code"] == "bad_rules"
    empty = client.post("/api/v1/state", data=b"")
    assert empty.status_code == 400 and empty.get_json()["error"]["code"] == "no_log"


def test_the_modules_example_runs() -> None:
    import doctest

    import yaniv_audit.core.table_state as module

    assert doctest.testmod(module).failed == 0


def test_the_record_page_runs_only_its_own_files_and_speaks_the_languages(
    client: FlaskClient,
) -> None:
    page = client.get("/record?lang=he").get_data(as_text=True)
    assert '<html lang="he" dir="rtl">' in page and "רישום משחק" in page
    scripts = re.findall(r"<script([^>]*)>", page)
    # every script is a file of this server or JSON data: nothing inline to run
    assert all('src="/static/viewer/' in s or 'type="application/json"' in s for s in scripts)
    assert 'src="/static/viewer/record.js"' in page and "/static/viewer/record.css" in page
    assert " style=" not in page and "<style" not in page
    strings = json.loads(re.search(r'id="i18n">(.*?)</script>', page).group(1))  # type: ignore[union-attr]
    assert strings["Write down round %(n)s"] == "רישום סיבוב %(n)s"


def test_the_findings_come_in_the_pages_language_too(client: FlaskClient) -> None:
    """The recorder asks with its page's Accept-Language: each finding gains its text in
    that language (cards with suits); the report is otherwise the audit's, in English."""
    events = [
        game(),
        *scoresheet_round(
            1, "dana", "omer", {"omer": ["3S", "3D"]}, {"dana": 5, "lior": 21}, points={"omer": 9}
        ),
    ]
    plain = client.post("/api/v1/state", data=body(events)).get_json()
    hebrew = client.post(
        "/api/v1/state", data=body(events), headers={"Accept-Language": "he"}
    ).get_json()
    finding = plain["report"]["findings"][0]
    said = hebrew["report"]["findings"][0]
    assert "text" not in finding
    assert {k: v for k, v in said.items() if k != "text"} == finding  # the report as it was
    assert said["text"] != finding["message"] and "omer" in said["text"]
    assert "נקוד" in said["text"]
    assert [f["text"] for f in hebrew["last"]] == [
        f["text"] for f in hebrew["report"]["findings"] if f["seq"] == said["seq"]
    ]


def test_after_a_stock_draw_the_turn_passes_and_the_next_players_moves_are_offered() -> None:
    events = [
        game(),
        deal(upcard="TH"),
        {"type": "discard", "player": "dana", "cards": ["KS"]},
        {"type": "draw", "player": "dana", "source": "stock", "card": "5H"},
    ]
    table = state_of(events)
    assert table["state"]["up"] == "lior"
    moves = table["next"]["moves"]
    # the next player's throws (and no call: lior holds 25), which the recorder offers
    assert {"type": "discard", "player": "lior", "cards": ["2C", "2D"]} in moves
    assert {"type": "discard", "player": "lior", "cards": ["QH"]} in moves
    assert {m["player"] for m in moves} == {"lior"}
    assert "yaniv" not in [m["type"] for m in moves]


def test_a_withdrawn_throw_is_read_as_never_written() -> None:
    events = [
        game(),
        deal(upcard="TH"),
        {"type": "discard", "player": "dana", "cards": ["KS"]},
        {"type": "withdraw", "seqs": [2], "player": "dana"},
    ]
    table = state_of(events)
    assert table["last"] == [] and table["report"]["withdrawn"] == [{"seq": 2, "by": 3}]
    assert table["state"]["hands"]["dana"] == HANDS["dana"] and table["state"]["phase"] == "start"
    assert {"type": "discard", "player": "dana", "cards": ["KS"]} in table["next"]["moves"]
    events.append({"type": "withdraw", "seqs": [2]})  # taken back already
    assert [(f["code"], f["message"]) for f in state_of(events)["last"]] == [
        ("log.withdraw", "the withdrawal takes nothing back: 2 was already taken back (by 3)")
    ]
