"""The replay engine: every finding code, and what each rule parameter changes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from builders import HANDS, STOCK, UPCARD, LogBuilder, codes, findings, standard

from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.core.audit import audit_log
from yaniv_audit.core.cards import parse_card
from yaniv_audit.core.engine import Replay
from yaniv_audit.core.events import Draw, Reshuffle
from yaniv_audit.core.messages import render
from yaniv_audit.core.rules import parse_rules
from yaniv_audit.io.codec import parse_jsonl
from yaniv_audit.lang import catalogue_of

# --- a clean round --------------------------------------------------------


def clean_round(rules: str = "israeli") -> LogBuilder:
    """dana runs AH 2H 3H and takes KD; lior runs the spades and draws 6C; omer calls at 7."""
    return (
        standard(rules)
        .turn("dana", "AH 2H 3H", "pile", "KD")
        .turn("lior", "7S 8S 9S", "stock")
        .yaniv("omer", 7)
        .showdown("omer", {"dana": "4C 5C KD", "lior": "TD 2C 6C", "omer": "AD AS 2D 3D JK"})
        .ended(
            1,
            points={"dana": 19, "lior": 18, "omer": 0},
            scores={"dana": 19, "lior": 18, "omer": 0},
        )
    )


def test_a_clean_round_is_clean_and_scored() -> None:
    report = clean_round().audit()
    assert report["verdict"] == "clean", report["findings"]
    (rnd,) = report["rounds"]
    assert rnd == {
        "round": 1,
        "starter": "dana",
        "moves_checked": True,
        "end": "yaniv",
        "caller": "omer",
        "totals": {"dana": 19, "lior": 18, "omer": 7},
        "assaf": [],
        "winners": ["omer"],
        "points": {"dana": 19, "lior": 18, "omer": 0},
        "reductions": [],
        "scores": {"dana": 19, "lior": 18, "omer": 0},
        "out": [],
        "rule": {},  # a Yaniv won outright: no rule parameter decided it
    }
    assert report["final"] == {
        "scores": {"dana": 19, "lior": 18, "omer": 0},
        "finished": False,
        "winners": [],
        "out": [],
    }
    assert len(report["fingerprint"]) == 64 and report["game_id"] == report["fingerprint"]
    assert report["rules"]["id"] == "israeli"
    assert report["rules"]["params"]["yaniv_max"] == 7


def test_yaniv_at_7_is_legal_under_israeli_and_a_violation_under_classic() -> None:
    report = clean_round().audit("classic")
    assert report["verdict"] == "violations"
    (f,) = findings(report, "yaniv.threshold")
    assert f["seq"] == 6 and f["player"] == "omer" and f["round"] == 1
    assert "yaniv_max=5" in f["message"] and "7" in f["message"]


# --- turns ----------------------------------------------------------------


def test_turn_order() -> None:
    report = standard().turn("lior", "7S 8S 9S").audit()
    (f,) = findings(report, "turn.order")
    assert f["player"] == "lior" and f["seq"] == 2
    assert "dana's turn" in f["message"]


def test_turn_no_throw() -> None:
    report = standard().draw("dana", "stock").audit()
    assert codes(report) == ["turn.no_throw"]
    assert findings(report, "turn.no_throw")[0]["seq"] == 2


def test_turn_no_draw_is_reported_at_the_move_that_comes_instead() -> None:
    report = standard().discard("dana", "AH 2H 3H").turn("lior", "7S 8S 9S").audit()
    assert codes(report) == ["turn.no_draw"]
    f = report["findings"][0]
    assert (f["seq"], f["player"]) == (3, "dana")


def test_a_log_that_stops_after_a_throw_has_no_no_draw() -> None:
    assert standard().discard("dana", "AH 2H 3H").audit()["verdict"] == "clean"


def test_yaniv_timing() -> None:
    report = standard().turn("dana", "5C", "pile", "KD").yaniv("dana").audit()
    assert "yaniv.timing" in codes(report)
    assert "turn.order" not in codes(report)


def test_moves_after_the_round_ended_are_one_turn_order_and_not_replayed() -> None:
    report = (clean_round().turn("dana", "KD").turn("lior", "TD")).audit()
    assert codes(report) == ["turn.order"]
    assert report["findings"][0]["seq"] == 9


# --- throws and draws -----------------------------------------------------


def test_discard_combo_names_the_cards() -> None:
    report = standard().turn("dana", "AH 3H 4C").audit()
    (f,) = findings(report, "discard.combo")
    assert "AH 3H 4C" in f["message"] and f["player"] == "dana"


def test_queen_king_ace_needs_ace_high() -> None:
    b = LogBuilder().deal(
        1,
        "dana",
        {"dana": "QH KH AH 4C 5C", "lior": HANDS["lior"], "omer": HANDS["omer"]},
        UPCARD,
        STOCK,
    )
    b.turn("dana", "QH KH AH")
    assert codes(b.audit()) == ["discard.combo"]
    assert b.audit("israeli(ace_high=true)")["verdict"] == "clean"


def test_middle_card_pickup_under_ends_and_any() -> None:
    b = standard().turn("dana", "AH 2H 3H", "pile", "KD").turn("lior", "7S 8S 9S", "pile", "2H")
    report = b.audit()
    (f,) = findings(report, "draw.pile_card")
    assert f["message"] == (
        "lior took 2H from the middle of AH 2H 3H; only AH or 3H may be taken (pickup=ends)"
    )
    assert b.audit("israeli(pickup=any)")["verdict"] == "clean"
    ends = standard().turn("dana", "AH 2H 3H", "pile", "KD").turn("lior", "7S 8S 9S", "pile", "3H")
    assert ends.audit()["verdict"] == "clean"


def test_ends_of_runs_allows_any_card_of_a_set() -> None:
    hands = {"dana": "5H 5D 5S KC KS", "lior": HANDS["lior"], "omer": HANDS["omer"]}
    b = (
        LogBuilder()
        .deal(1, "dana", hands, UPCARD, "6C 6H 6D")
        .turn("dana", "5H 5D 5S")
        .turn("lior", "9S", "pile", "5D")
    )
    assert codes(b.audit()) == ["draw.pile_card"]
    assert b.audit("israeli(pickup=ends_of_runs)")["verdict"] == "clean"


def test_drawing_back_from_ones_own_throw_or_an_older_throw() -> None:
    own = standard().turn("dana", "AH 2H 3H", "pile", "AH")
    assert codes(own.audit()) == ["draw.pile_card"]
    assert "own throw" in own.audit()["findings"][0]["message"]
    older = standard().turn("dana", "AH 2H 3H", "stock").turn("lior", "9S", "pile", "KD")
    assert codes(older.audit()) == ["draw.pile_card"]
    assert "older throw" in older.audit()["findings"][0]["message"]


def test_pile_needs_combo() -> None:
    b = standard().turn("dana", "5C", "pile", "KD")
    assert b.audit()["verdict"] == "clean"
    report = b.audit("israeli(pile_needs_combo=true)")
    assert codes(report) == ["draw.pile_needs_combo"]


SWAP_HANDS = {"dana": "4H JK 6H KC KS", "lior": "5H 9C 9D QS QH", "omer": "AC 2C 3C 4S 8D"}


def swap_game(swap: str = "5H", rules: str = "de-wiki") -> LogBuilder:
    return (
        LogBuilder(rules=rules)
        .deal(1, "dana", SWAP_HANDS, "7C", "2S 3S 5S")
        .turn("dana", "4H JK 6H")
        .discard("lior", "9C 9D")
        .draw("lior", "pile", "JK", swap=swap)
    )


def test_joker_swap_is_legal_under_de_wiki_only() -> None:
    assert swap_game().audit()["verdict"] == "clean"
    report = swap_game().audit("israeli")
    assert codes(report) == ["draw.swap"]
    assert "joker_swap=false" in report["findings"][0]["message"]


def test_joker_swap_must_put_in_the_card_the_joker_stands_for() -> None:
    report = swap_game("QS").audit()
    (f,) = findings(report, "draw.swap")
    assert "does not stand for QS" in f["message"]


def test_a_swap_with_a_stock_draw_is_draw_swap_and_does_not_count() -> None:
    b = (
        LogBuilder(rules="de-wiki")
        .deal(1, "dana", SWAP_HANDS, "7C", "2S 3S 5S 7S 8S")
        .turn("dana", "4H JK 6H")
        .discard("lior", "9C 9D")
        .draw("lior", "stock", swap="5H")
        .turn("omer", "8D")
        .turn("dana", "KC")
        .turn("lior", "5H")
    )  # lior still holds 5H
    report = b.audit()
    assert codes(report) == ["draw.swap"] and report["verdict"] == "violations"
    (f,) = findings(report, "draw.swap")
    assert f["player"] == "lior" and f["message"] == (
        "lior drew from the stock and swapped 5H; a joker swap takes the joker from the pile "
        "in place of the draw, so it is not made with a stock draw (the swap does not count)"
    )


def test_the_steps_read_a_swap_on_a_stock_draw_as_the_stock_draw() -> None:
    from yaniv_audit.core.replay_view import describe

    pile = Draw("lior", "pile", parse_card("JK"), parse_card("5H"), index=5, line=6)
    stock = Draw("lior", "stock", parse_card("2S"), parse_card("5H"), index=5, line=6)
    assert describe(pile) == "lior swaps 5H for JK"
    assert describe(stock) == "lior draws 2S from the stock"  # the swap does not count


# --- slap-down -----------------------------------------------------------

SLAP_HANDS = {"dana": "4C 4D 9H KS QS", "lior": HANDS["lior"], "omer": HANDS["omer"]}


def slap_game(thrown: str, rules: str = "israeli(slap_down=true)") -> LogBuilder:
    return (
        LogBuilder(rules=rules)
        .deal(1, "dana", SLAP_HANDS, UPCARD, "4H 6C 6H")
        .turn("dana", thrown)
        .slap("dana", "4H")
    )


def test_slap_down_joins_the_throw() -> None:
    report = slap_game("4C 4D").audit()
    assert report["verdict"] == "clean"


def test_slap_not_allowed_without_slap_down() -> None:
    assert codes(slap_game("4C 4D", "israeli").audit()) == ["slap.not_allowed"]


def test_slap_no_match() -> None:
    assert codes(slap_game("9H").audit()) == ["slap.no_match"]


def test_slap_after_a_pile_draw_is_not_allowed() -> None:
    b = (
        LogBuilder(rules="israeli(slap_down=true)")
        .deal(1, "dana", SLAP_HANDS, "4H", "6C")
        .turn("dana", "4C 4D", "pile", "4H")
        .slap("dana", "4H")
    )
    assert codes(b.audit()) == ["slap.not_allowed"]


def test_slap_may_not_empty_the_hand() -> None:
    rules = "israeli(hand_size=2,slap_down=true)"
    b = (
        LogBuilder(rules=rules)
        .deal(1, "dana", {"dana": "4C 4D", "lior": "7S 8S", "omer": "AD AS"}, "KD", "4H 6C")
        .turn("dana", "4C 4D")
        .slap("dana", "4H")
    )
    assert codes(b.audit()) == ["slap.empties_hand"]


# --- deals and starters ---------------------------------------------------


def test_deal_hand_size() -> None:
    b = LogBuilder().deal(
        1,
        "dana",
        {"dana": "AH 2H 3H 4C", "lior": HANDS["lior"], "omer": HANDS["omer"]},
        UPCARD,
        STOCK,
    )
    (f,) = findings(b.audit(), "deal.hand_size")
    assert f["player"] == "dana" and "4 cards" in f["message"] and "hand_size=5" in f["message"]


def second_round(starter: str, rules: str = "israeli") -> LogBuilder:
    return clean_round(rules).deal(
        2,
        starter,
        {"dana": "AC 2C 3C 4D 5D", "lior": "6S 7S 8S 9D TD", "omer": "AH 2H 3H 4H 5H"},
        "KS",
        "QS JS",
    )


def test_round_winner_opens_the_next_round() -> None:
    assert second_round("omer").audit()["verdict"] == "clean"
    report = second_round("dana").audit()
    (f,) = findings(report, "deal.starter")
    assert f["round"] == 2 and "omer" in f["message"] and "starter=round_winner" in f["message"]
    assert second_round("dana", "israeli(starter=free)").audit()["verdict"] == "clean"
    assert second_round("lior", "israeli(starter=next_seat)").audit()["verdict"] == "clean"
    assert codes(second_round("omer", "israeli(starter=next_seat)").audit()) == ["deal.starter"]


def assafed_then(starter: str, rules: str) -> dict[str, Any]:
    """Round 1 (a scoresheet): a calls at 5 and b Assafs at 3; round 2 opened by ``starter``."""
    events = [
        {
            "type": "game_started",
            "format": "yaniv-log/1",
            "players": ["a", "b", "c"],
            "rules": rules,
        },
        {"type": "round_started", "round": 1, "starter": "a"},
        {"type": "showdown", "caller": "a", "hands": {"a": ["2C", "3C"], "b": ["3D"], "c": ["KS"]}},
        {"type": "round_started", "round": 2, "starter": starter},
    ]
    return audit_log(parse_jsonl("\n".join(json.dumps(e) for e in events).encode(), "x"))


def test_starter_caller_opens_with_the_caller_even_after_an_assaf() -> None:
    assert assafed_then("a", "israeli(starter=caller)")["verdict"] == "clean"
    (f,) = findings(assafed_then("b", "israeli(starter=caller)"), "deal.starter")
    assert f["message"] == (
        "b opened round 2, but a should have: a called Yaniv in round 1 (starter=caller)"
    )
    assert f["params"]["caller"] == "a" and f["params"]["case"] == "caller"
    for lang in ("he", "ru", "de", "ko"):  # said in each language, from the params
        said = render("deal.starter", f["params"], catalogue_of(lang).ugettext)
        assert said != f["message"] and "a" in said and "starter=caller" in said
    # the default gives the round to its winner, the Assafer
    assert codes(assafed_then("a", "israeli")) == ["deal.starter"]
    assert assafed_then("b", "israeli")["verdict"] == "clean"


def test_a_player_who_is_out_but_dealt_in() -> None:
    # under score_limit=18 dana (19) is out after round 1; lior (18) stays in
    report = second_round("omer", "israeli(score_limit=18)").audit()
    assert report["rounds"][0]["out"] == ["dana"]
    (f,) = findings(report, "player.out")
    assert f["player"] == "dana" and f["round"] == 2


def test_game_over() -> None:
    # score_limit=17: dana and lior are out after round 1, omer wins
    report = second_round("omer", "israeli(score_limit=17)").audit()
    assert report["final"]["finished"] and report["final"]["winners"] == ["omer"]
    assert codes(report) == ["game.over"]
    assert report["findings"][0]["seq"] == 9
    assert len(report["rounds"]) == 1


# --- the stock and reshuffles ---------------------------------------------


#: two players holding 26 cards each: one joker is the stock, KS the upcard
BIG = {
    "p1": "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "p2": "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS JK",
}


def big_deal(
    rules: str = "israeli(hand_size=26)", upcard: str | None = "KS", stock: str | None = "JK"
) -> LogBuilder:
    return LogBuilder(("p1", "p2"), rules).deal(1, "p1", BIG, upcard, stock, rest=False)


def test_exhausted_stock_keeps_the_last_throw_and_names_unknown_cards() -> None:
    b = (
        big_deal().turn("p1", "AC", "stock", "JK").turn("p2", "2H", "stock", "KS")
    )  # the new stock is the upcard KS
    assert b.audit()["verdict"] == "clean"


def test_a_reshuffle_records_the_new_stock_order() -> None:
    b = big_deal().turn("p1", "AC", "stock").reshuffle("KS").turn("p2", "2H", "stock")
    assert b.audit()["verdict"] == "clean"


def test_an_unrecorded_upcard_goes_into_the_new_stock() -> None:
    for stock in ("JK", None):
        b = big_deal(upcard=None, stock=stock).turn("p1", "AC", "stock", "JK")
        assert b.reshuffle("KS").turn("p2", "2H", "stock").audit()["verdict"] == "clean"
    b = big_deal(upcard=None, stock=None).turn("p1", "AC", "stock", "JK")
    assert b.turn("p2", "2H", "stock", "KS").audit()["verdict"] == "clean"
    wrong = big_deal(upcard=None).turn("p1", "AC", "stock").reshuffle("AC").audit()
    assert codes(wrong) == ["stock.mismatch"]


def test_reshuffle_not_allowed_while_the_stock_holds_cards() -> None:
    report = standard().turn("dana", "AH 2H 3H").reshuffle().audit()
    assert codes(report) == ["reshuffle.not_allowed"]
    assert "the stock still held 37 cards" in report["findings"][0]["message"]
    under_round_ends = (
        big_deal("israeli(hand_size=26,reshuffle=round_ends)").turn("p1", "AC", "stock").reshuffle()
    )
    assert "reshuffle.not_allowed" in codes(under_round_ends.audit())


def test_round_ends_when_the_stock_runs_out_under_round_ends() -> None:
    rules = "israeli(hand_size=26,reshuffle=round_ends,score_limit=1000)"
    hands = {"p1": BIG["p1"].replace("AC ", "") + " JK", "p2": BIG["p2"]}
    for closing in (True, False):
        b = big_deal(rules).turn("p1", "AC", "stock")
        if closing:
            b.showdown(None, hands).ended(1, points={"p1": 169, "p2": 160})
        else:
            b.deal(2, "p2")
        report = b.audit()
        assert report["verdict"] == "clean", report["findings"]
        rnd = report["rounds"][0]
        assert (rnd["end"], rnd["caller"], rnd["winners"]) == ("stock", None, ["p2"])
        assert rnd["points"] == {"p1": 169, "p2": 160}


def test_stock_draw_without_card_where_the_order_is_unknown_is_unreadable() -> None:
    from yaniv_audit.core.errors import LogFormatError

    b = big_deal().turn("p1", "AC", "stock").turn("p2", "2H", "stock")
    with pytest.raises(LogFormatError, match="card"):
        b.audit()


# --- inconsistencies ------------------------------------------------------


def test_card_not_in_hand_stops_the_replay_as_corrupt() -> None:
    report = standard().turn("dana", "KH").turn("lior", "7S 8S 9S").audit()
    assert report["verdict"] == "corrupt"
    assert codes(report) == ["card.not_in_hand"]
    assert report["findings"][0]["kind"] == "inconsistency"


def test_findings_before_the_inconsistency_are_kept() -> None:
    report = standard().turn("lior", "7S 8S 9S").turn("omer", "KH").audit()
    assert codes(report) == ["turn.order", "card.not_in_hand"]


def test_card_not_in_deck() -> None:
    report = standard().audit("israeli(jokers=0)")
    assert codes(report) == ["card.not_in_deck"]


def test_card_too_many_and_two_decks() -> None:
    hands = {"dana": "5H 5H 3H 4C 5C", "lior": HANDS["lior"], "omer": HANDS["omer"]}
    b = LogBuilder().deal(1, "dana", hands, UPCARD).discard("dana", "5H 5H")
    assert codes(b.audit()) == ["card.too_many"]
    assert b.audit("israeli(decks=2)")["verdict"] == "clean"


def test_card_already_seen_when_the_stock_is_not_recorded() -> None:
    b = LogBuilder().deal(1, "dana", HANDS, UPCARD).turn("dana", "AH 2H 3H", "stock", "JK")
    # one deck has two jokers; omer holds one, so one more is possible
    assert b.audit()["verdict"] == "clean"
    b2 = LogBuilder().deal(1, "dana", HANDS, UPCARD).turn("dana", "AH 2H 3H", "stock", "AD")
    (f,) = findings(b2.audit(), "card.already_seen")
    assert "omer holds AD" in f["message"]


def test_stock_mismatch_and_empty() -> None:
    report = standard().turn("dana", "AH 2H 3H", "stock", "QC").audit()
    assert codes(report) == ["stock.mismatch"]
    assert "top card is 6C" in report["findings"][0]["message"]
    short = LogBuilder().deal(1, "dana", HANDS, UPCARD, STOCK, rest=False).audit()
    assert codes(short) == ["stock.mismatch"]
    assert "in no hand, not the upcard and not in the stock" in short["findings"][0]["message"]
    empty = big_deal("israeli(hand_size=26,jokers=1)", stock="").turn("p1", "AC", "stock")
    assert codes(empty.audit()) == ["stock.empty"]


def test_deal_too_big() -> None:
    report = standard().audit("israeli(hand_size=20)")
    assert codes(report)[-1] == "deal.too_big"
    assert report["verdict"] == "corrupt"


def test_card_not_on_pile() -> None:
    report = standard().turn("dana", "AH 2H 3H", "pile", "QH").audit()
    assert codes(report) == ["card.not_on_pile"]


# --- claims ---------------------------------------------------------------


def test_claim_yaniv_total() -> None:
    b = standard().turn("dana", "AH 2H 3H", "pile", "KD").turn("lior", "7S 8S 9S").yaniv("omer", 6)
    (f,) = findings(b.audit(), "claim.yaniv_total")
    assert f["message"] == "omer announced 6, but AD AS 2D 3D JK makes 7"


def test_claim_points_and_scores_once_per_mistake() -> None:
    b = (
        standard()
        .turn("dana", "AH 2H 3H", "pile", "KD")
        .turn("lior", "7S 8S 9S")
        .yaniv("omer")
        .ended(
            1, points={"dana": 19, "lior": 8, "omer": 0}, scores={"dana": 19, "lior": 8, "omer": 0}
        )
        .deal(2, "omer")
        .showdown("omer", {"dana": "5C", "lior": "6C", "omer": "AC"})
        .ended(
            2, points={"dana": 5, "lior": 6, "omer": 0}, scores={"dana": 24, "lior": 14, "omer": 0}
        )
    )
    report = b.audit()
    assert report["verdict"] == "claims"
    assert [(f["code"], f["player"], f["round"]) for f in report["findings"]] == [
        ("claim.points", "lior", 1),
        ("claim.scores", "lior", 1),
    ]
    assert "the rules give 18" in report["findings"][0]["message"]


def test_claim_showdown() -> None:
    b = clean_round().events[:-2]
    builder = LogBuilder()
    builder.events = b
    builder.showdown("omer", {"dana": "4C 5C KD", "lior": "TD 2C 6C", "omer": "AD AS 2D 3D"})
    (f,) = findings(builder.audit(), "claim.showdown")
    assert f["player"] == "omer" and "AD AS 2D 3D JK" in f["message"]


def test_claim_winner_and_game_ended_too_early() -> None:
    early = clean_round().game_ended(winner="omer")
    (f,) = findings(early.audit(), "claim.winner")
    assert "not decided" in f["message"]
    done = second_round("omer", "israeli(score_limit=17)").events[:9]
    b = LogBuilder(rules="israeli(score_limit=17)")
    b.events = [dict(done[0], rules="israeli(score_limit=17)"), *done[1:]]
    b.game_ended(winner=["dana"])
    (f,) = findings(b.audit(), "claim.winner")
    assert "omer" in f["message"]
    b2 = LogBuilder(rules="israeli(score_limit=17)")
    b2.events = b.events[:-1]
    assert b2.game_ended(winner="omer").audit()["verdict"] == "clean"


# --- scoresheet rounds ----------------------------------------------------


def scoresheet(rules: str = "israeli") -> LogBuilder:
    return (
        LogBuilder(rules=rules)
        .deal(1, "dana")
        .yaniv("lior", 5)
        .showdown("lior", {"dana": "KS QS 3C", "lior": "AH 4C", "omer": "2C 3D"})
        .ended(1, points={"dana": 23, "lior": 35, "omer": 0})
    )


def test_scoresheet_round_with_an_assaf() -> None:
    report = scoresheet().audit()
    assert report["verdict"] == "clean", report["findings"]
    rnd = report["rounds"][0]
    assert rnd["moves_checked"] is False
    assert (rnd["caller"], rnd["assaf"], rnd["winners"]) == ("lior", ["omer"], ["omer"])
    assert rnd["points"] == {"dana": 23, "lior": 35, "omer": 0}


@pytest.mark.parametrize(
    ("rules", "points"),
    [
        ("israeli", {"dana": 23, "lior": 35, "omer": 0}),
        ("israeli(assaf_scoring=all_count)", {"dana": 23, "lior": 35, "omer": 5}),
        ("israeli(assaf_scoring=others_zero)", {"dana": 0, "lior": 35, "omer": 0}),
        ("israeli(assaf_adds_hand=false)", {"dana": 23, "lior": 30, "omer": 0}),
        ("israeli(assaf_penalty=50)", {"dana": 23, "lior": 55, "omer": 0}),
    ],
)
def test_assaf_scoring_variants_end_to_end(rules: str, points: dict[str, int]) -> None:
    assert scoresheet().audit(rules)["rounds"][0]["points"] == points


def test_scoresheet_yaniv_over_the_limit_and_wrong_total() -> None:
    report = scoresheet().audit("classic(yaniv_max=4)")
    assert "yaniv.threshold" in codes(report)
    b = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("lior", 4)
        .showdown("lior", {"dana": "KS", "lior": "AH 4C", "omer": "9D"})
    )
    assert codes(b.audit()) == ["claim.yaniv_total"]


def test_showdown_without_caller() -> None:
    b = LogBuilder().deal(1, "dana").showdown(None, {"dana": "KS", "lior": "AH 4C", "omer": "9D"})
    report = b.audit()
    assert codes(report) == ["showdown.no_caller"]
    assert report["rounds"][0]["winners"] == ["lior"]
    assert b.audit("israeli(reshuffle=round_ends)")["verdict"] == "clean"


def test_exact_hundreds_reduction_on_200() -> None:
    b = LogBuilder(players=("dana", "lior"))
    for n in range(1, 6):  # dana scores 40 a round: 40 80 120 160, then 200 drops to 100
        b.deal(n, "lior").showdown("lior", {"dana": "KS KH KD KC JK JK", "lior": "AH"})
    report = b.audit()
    assert report["verdict"] == "clean", report["findings"]
    assert [r["scores"]["dana"] for r in report["rounds"]] == [40, 80, 120, 160, 100]
    assert report["rounds"][4]["reductions"] == [{"player": "dana", "from": 200, "to": 100}]
    assert [r["scores"]["dana"] for r in b.audit("israeli(reductions={})")["rounds"]] == [
        40,
        80,
        120,
        160,
        200,
    ]
    minus50 = b.audit("israeli(reductions={100:50,150:100,200:150})")
    assert [r["scores"]["dana"] for r in minus50["rounds"]] == [40, 80, 120, 160, 150]


def test_halving_table() -> None:
    b = LogBuilder(players=("dana", "lior"))
    b.deal(1, "lior").showdown("lior", {"dana": "KS KH KD KC JK", "lior": "AH"})
    b.deal(2, "lior").showdown("lior", {"dana": "KS KH KD KC JK", "lior": "AH"})
    halving = "israeli(reductions={50:25,100:50,150:75,200:100})"
    report = b.audit(halving)
    assert [r["scores"]["dana"] for r in report["rounds"]] == [40, 80]
    b.deal(3, "lior").showdown("lior", {"dana": "KS 8C 2C", "lior": "AH"})
    report = b.audit(halving)
    assert report["rounds"][2]["scores"]["dana"] == 50
    assert report["rounds"][2]["reductions"] == [{"player": "dana", "from": 100, "to": 50}]


@pytest.mark.parametrize(
    ("rules", "finished", "winners"),
    [
        ("israeli(score_limit=30)", False, []),  # elimination: lior and omer play on
        ("israeli(score_limit=30,game_end=first_out)", True, ["omer"]),
        ("israeli(game_end=rounds,rounds=1)", True, ["omer"]),
    ],
)
def test_game_end_modes(rules: str, finished: bool, winners: list[str]) -> None:
    b = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("omer")
        .showdown("omer", {"dana": "KS KH KD 2C", "lior": "AH 4C 2D", "omer": "2S 3D"})
    )
    final = b.audit(rules)["final"]
    assert (final["finished"], final["winners"]) == (finished, winners)


def test_multi_assaf_penalty_under_de_wiki() -> None:
    b = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("dana")
        .showdown("dana", {"dana": "5C", "lior": "AH 4C", "omer": "2C 3D"})
    )
    israeli = b.audit("israeli")["rounds"][0]["points"]
    de_wiki = b.audit("de-wiki")["rounds"][0]["points"]
    assert israeli["dana"] == 35 and de_wiki["dana"] == 45


def test_strict_stops_at_the_first_finding() -> None:
    report = standard().turn("lior", "7S 8S 9S").turn("omer", "AD AS").audit(strict=True)
    assert codes(report) == ["turn.order"]


def test_a_log_cut_anywhere_audits() -> None:
    full = clean_round().deal(
        2,
        "omer",
        {"dana": "AC 2C 3C 4D 5D", "lior": "6S 7S 8S 9D TD", "omer": "AH 2H 3H 4H 5H"},
        "KS",
    )
    for cut in range(1, len(full.events) + 1):
        b = LogBuilder()
        b.events = full.events[:cut]
        report = b.audit()
        assert report["verdict"] == "clean", (cut, report["findings"])


# --- card values ------------------------------------------------------------


def test_face_values_joker_value_and_wild_jacks_change_totals() -> None:
    assert scoresheet().audit("israeli(face_values=ranked)")["rounds"][0]["points"]["dana"] == 28
    report = clean_round().audit("israeli(joker_value=1)")  # omer's JK now counts 1: 8 > 7
    assert "yaniv.threshold" in codes(report)
    b = (
        LogBuilder()
        .deal(1, "dana")
        .yaniv("lior")
        .showdown("lior", {"dana": "KS", "lior": "JH 5C", "omer": "9D"})
    )
    assert codes(b.audit("israeli")) == ["yaniv.threshold"]  # 15 > 7
    jhyap = b.audit("jhyap")  # the jack is wild and worth joker_value=0
    assert jhyap["verdict"] == "clean" and jhyap["rounds"][0]["totals"]["lior"] == 5


def test_hand_size_seven() -> None:
    hands = {
        "dana": "AH 2H 3H 4C 5C 6C 7C",
        "lior": "7S 8S 9S TD 2C 3C 4D",
        "omer": "AD AS 2D 3D JK 5D 6D",
    }
    b = LogBuilder().deal(1, "dana", hands, UPCARD, "9H")
    assert codes(b.audit()) == ["deal.hand_size"] * 3
    assert b.audit("israeli(hand_size=7)")["verdict"] == "clean"


@pytest.mark.parametrize("reshuffle", ["keep_last_throw", "round_ends"])
def test_reshuffle_due_names_the_pile_below_the_last_throw_once_the_stock_is_out(
    reshuffle: str,
) -> None:
    """What the next stock will be, as the reshuffle that follows must write it: due only
    when the stock's last card was drawn under keep_last_throw."""
    rules = parse_rules(f"classic(slap_down=true,reshuffle={reshuffle})")
    log = parse_jsonl(to_jsonl(simulate_game(rules, 4, ["random"], seed=11)).encode(), "g")
    replay = Replay(log.game, rules)
    due = []
    for event in log.events:
        if (
            event.type in ("reshuffle", "showdown")
            and replay.round is not None
            and replay.round.exhaust_pending
        ):
            due.append((event, replay.reshuffle_due()))
        else:
            assert replay.reshuffle_due() is None
        replay.apply(event)
    assert due, "the random bots run the stock out"
    for event, cards in due:
        if reshuffle == "round_ends":
            assert event.type == "showdown" and cards is None
        else:
            assert isinstance(event, Reshuffle) and event.stock is not None
            assert cards is not None and sorted(cards) == sorted(event.stock)
