"""The table's recorder (/record) in a real browser, held as a phone and opened on a
laptop: a whole scoresheet game to an elimination, a short round of moves, reloads in
the middle, the downloaded log audited to what the page showed, the archive."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import LAPTOP, PHONE
from playwright.sync_api import Page, ViewportSize

from yaniv_audit.batch.bulk import audit_file
from yaniv_audit.batch.simulate import simulate_game
from yaniv_audit.io.rules_files import resolve_rules

RULES = "israeli(score_limit=100)"


def start(page: Page, server: str, players: list[str], rules: str, lang: str = "en") -> None:
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server + "/record?lang=" + lang)
    if page.locator("#game").is_visible():
        page.click("#new-game")
    names = page.locator(".rec-player-name")
    for i, name in enumerate(players):
        names.nth(i).fill(name)
    page.fill("#setup-rules", rules)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden]) #entry > *")


def read(lines: list[str]) -> list[str]:
    """Lines of the log as read (without the marks that isolate names and cards)."""
    return [line.replace("\u2068", "").replace("\u2069", "") for line in lines]


def settled(page: Page) -> None:
    """Until the page has heard the server on the entry being made."""
    page.wait_for_selector("#record[data-busy='0']", state="attached")


def pick(page: Page, *cards: str) -> None:
    """A card is one tap in the picker."""
    for card in cards:
        page.click(f"#picker-cards [data-card='{card}']")


def call(page: Page, caller: str) -> None:
    """The caller's button, pressed (a tap on it when it is pressed already lifts it)."""
    if page.get_attribute(f"#caller [data-player='{caller}']", "aria-pressed") != "true":
        page.click(f"#caller [data-player='{caller}']")


def entered_by(page: Page, player: str, how: str) -> None:
    """The seat entered by its cards or its total (as it was last round unless changed)."""
    toggle = f".rec-seat[data-player='{player}'] [data-how='{how}']"
    if page.get_attribute(toggle, "aria-pressed") != "true":
        page.click(toggle)


def sheet_round(
    page: Page,
    caller: str,
    hands: dict[str, list[str]],
    totals: dict[str, int],
    points: dict[str, int] | None = None,
) -> None:
    """One scoresheet round: the caller, each hand by its cards or its total."""
    call(page, caller)
    for player, cards in hands.items():
        entered_by(page, player, "cards")
        page.click(f".rec-seat[data-player='{player}'] .rec-seat-head strong")
        pick(page, *cards)
    for player, total in totals.items():
        entered_by(page, player, "total")
        page.fill(f".rec-seat[data-player='{player}'] input", str(total))
    for player, written in (points or {}).items():
        if page.locator("details.rec-wrote").get_attribute("open") != "":
            page.click("details.rec-wrote summary")
        page.fill(f"input[data-player='{player}'][data-field='points']", str(written))
    settled(page)


def shot(page: Page, screenshot: Callable[[Page, str], Path], name: str) -> None:
    """The whole page from its top (the round's head sticks to the top of the screen)."""
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name)


def shots(
    page: Page, screenshot: Callable[[Page, str], Path], name: str, *, then: ViewportSize
) -> None:
    """NAME-phone and NAME-laptop, the page then left at the size ``then``."""
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        page.set_viewport_size(viewport)
        shot(page, screenshot, f"{name}-{size}")
    page.set_viewport_size(then)


def scores(page: Page) -> dict[str, int]:
    rows = page.locator("#scores tr")
    return {
        rows.nth(i).get_attribute("data-player") or "": int(
            rows.nth(i).locator("td.num").inner_text()
        )
        for i in range(rows.count())
    }


def download(page: Page, folder: Path) -> Path:
    with page.expect_download() as info:
        page.click("#download")
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def test_a_scoresheet_game_to_an_elimination_on_a_phone(
    server: str, phone: Page, screenshot: Callable[[Page, str], Path], tmp_path: Path
) -> None:
    page = phone
    start(page, server, ["dana", "lior", "omer"], RULES)
    # round 1: dana's cards were not kept, only her total
    sheet_round(page, "lior", {"lior": ["2S", "3S"], "omer": ["KD", "QD"]}, {"dana": 50})
    preview = page.locator("#preview .rec-round")
    assert "Round 1: lior called Yaniv at 5 and won" in read([preview.inner_text()])[0]
    page.click("#write")
    settled(page)
    assert scores(page) == {"dana": 50, "lior": 0, "omer": 20}
    # round 2: dana lands on exactly 100 and drops to 50
    assert page.input_value("#starter") == "lior"  # the round's winner opens
    sheet_round(page, "lior", {"lior": ["2H"]}, {"dana": 50, "omer": 30})
    assert "(100 → 50)" in page.locator("#preview tr[data-player='dana']").inner_text()
    page.click("#write")
    settled(page)
    assert scores(page) == {"dana": 50, "lior": 0, "omer": 50}
    # round 3, half entered, and the page reloaded: nothing is lost
    call(page, "lior")
    page.click(".rec-seat[data-player='lior'] .rec-seat-head strong")
    pick(page, "AS")
    settled(page)
    page.reload()
    page.wait_for_selector("#entry .rec-seat")
    settled(page)
    assert page.get_attribute("#caller [data-player='lior']", "aria-pressed") == "true"
    assert page.locator(".rec-seat[data-player='lior'] .rc-card").all_inner_texts() == ["A\n♠"]
    assert scores(page) == {"dana": 50, "lior": 0, "omer": 50}
    # ... omer Assafs lior's 4 with his 4, dana goes out; the table writes lior down for 30
    pick(page, "3H")
    sheet_round(page, "lior", {"omer": ["4D"]}, {"dana": 60}, points={"lior": 30})
    assert (
        "lior called Yaniv at 4 and was Assafed by omer"
        in page.locator("#preview .rec-round").inner_text()
    )
    warning = page.locator("#preview .rec-finding").inner_text()
    assert (
        "claim.points" in warning
        and "lior was written down for 30 points in round 3; the rules give 34" in warning
    )
    page.click("#write")
    settled(page)
    assert scores(page) == {"dana": 110, "lior": 34, "omer": 50}
    assert page.locator("#scores tr[data-player='dana'] .badge").inner_text() == "out"
    assert page.locator("#rec-verdict").inner_text() == "wrong claims"
    # a card twice in a one-deck game is flagged at once, before it is written
    call(page, "omer")
    page.click(".rec-seat[data-player='omer'] .rec-seat-head strong")
    pick(page, "AC")
    page.click(".rec-seat[data-player='lior'] .rec-seat-head strong")
    pick(page, "AC")
    settled(page)
    assert "card.too_many" in page.locator("#preview").inner_text()
    assert page.inner_text("#write").endswith("anyway")
    page.click(".rec-seat[data-player='lior'] .rc-card")  # tap it again: it goes
    # round 4: lior goes out too; omer has won
    sheet_round(page, "omer", {}, {"lior": 70})
    shots(page, screenshot, "record-scoresheet", then=PHONE)
    page.click("#write")
    settled(page)
    assert page.inner_text("#round-title") == "Game over"
    assert page.locator("#scores tr[data-player='omer'] .badge.win").count() == 1
    page.click("#end-game")
    settled(page)
    shot(page, screenshot, "record-game-over-phone")
    # the downloaded log audits to what the page shows
    report = audit_file(str(download(page, tmp_path)))
    assert report["final"] == {
        "scores": scores(page),
        "finished": True,
        "winners": ["omer"],
        "out": ["dana", "lior"],
    }
    assert report["verdict"] == "claims" and page.inner_text("#rec-verdict") == "wrong claims"
    assert [f["code"] for f in report["findings"]] == ["claim.points"]
    assert [r["reductions"] for r in report["rounds"]][1] == [
        {"player": "dana", "from": 100, "to": 50}
    ]
    assert report["rounds"][2]["assaf"] == ["omer"]
    # the same page in Hebrew, right to left, the game still there
    page.goto(server + "/record?lang=he")
    page.wait_for_selector("#scores tr")
    settled(page)
    assert page.inner_text("#round-title") == "המשחק נגמר"
    assert scores(page) == {"dana": 110, "lior": 104, "omer": 50}
    shot(page, screenshot, "record-hebrew-phone")
    page.goto(server + "/record?lang=en")
    page.wait_for_selector("#scores tr")
    # stored in the archive (this machine may write), and opened in the viewer
    page.click("#store")
    page.click("#viewer-link")
    assert page.inner_text("#verdict") == "wrong claims"


HANDS = {
    "dana": ["7H", "8H", "9H", "AS", "2D"],
    "lior": ["2C", "2S", "QH", "3S", "AC"],
    "omer": ["AH", "4S", "JD", "TC", "9C"],
}


def throw(page: Page, *cards: str) -> None:
    for card in cards:
        page.click(f".rec-hand-pick [data-card='{card}']")
    settled(page)


def test_a_round_of_moves_with_a_refused_middle_card_on_a_laptop(
    server: str,
    page: Page,
    browser: object,
    screenshot: Callable[[Page, str], Path],
    tmp_path: Path,
) -> None:
    start(page, server, ["dana", "lior", "omer"], "israeli")
    page.click("#mode-moves")
    settled(page)
    for player, cards in HANDS.items():
        page.click(f".rec-seat[data-player='{player}'] .rec-seat-head strong")
        pick(page, *cards)
    pick(page, "3D")  # on to the upcard once the hands are full: its tap deals
    settled(page)
    assert page.locator(".rec-hand-pick").count() == 1
    # dana throws a run and takes the upcard: the tap on it writes the turn
    throw(page, "7H", "8H", "9H")
    assert page.inner_text("#preview") == "Legal under these rules."
    page.click(".rec-pile.previous [data-card='3D']")
    settled(page)
    assert read(page.locator("#log li").all_inner_texts()[-2:]) == [
        "dana throws 7♥ 8♥ 9♥",
        "dana draws 3♦ from the pile",
    ]
    # lior takes 8H from the middle of dana's run: refused by the rules, recorded anyway
    throw(page, "QH")
    middle = page.locator(".rec-pile.previous [data-card='8H']")
    assert "refused" in (middle.get_attribute("class") or "")
    middle.click()
    settled(page)
    warning = page.inner_text("#preview .rec-finding")
    # the finding as the page's language says it, its cards as the board draws them
    assert (
        "draw.pile_card" in warning
        and "lior took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or 9♥ may be taken" in warning
    )
    shots(page, screenshot, "record-moves", then=LAPTOP)
    assert page.inner_text("#write") == "Record the turn anyway"
    page.click("#write")
    settled(page)
    # a reload in the middle of the round loses nothing
    page.reload()
    page.wait_for_selector(".rec-hand-pick")
    settled(page)
    assert page.input_value("#mover") == "omer"
    assert page.locator(".rec-finding").first.inner_text().find("draw.pile_card") >= 0
    # omer throws and draws from the stock: the stock is not recorded, so the tap names
    # the card drawn
    throw(page, "JD")
    pick(page, "5D")
    settled(page)
    # dana calls Yaniv at 6
    page.click("#call-yaniv")
    settled(page)
    assert "dana called Yaniv at 6 and won" in page.inner_text("#rounds")
    assert scores(page) == {"dana": 0, "lior": 16, "omer": 29}
    # Undo takes the Yaniv back: the log is only appended to (a withdraw), and the page
    # and the audit read it as never written
    before = download(page, tmp_path).read_text().splitlines()
    assert (
        page.inner_text("#last-entry").replace("\u2068", "").replace("\u2069", "")
        == "dana calls Yaniv"
    )
    page.click("#undo")
    settled(page)
    assert read(page.locator("#log li.withdrawn").all_inner_texts()) == ["dana calls Yaniv"]
    after = download(page, tmp_path).read_text().splitlines()
    assert after[:-1] == before
    # (the fields starting with "_" are the recorder's own: the entry it belongs to)
    assert {
        k: v
        for k, v in json.loads(after[-1]).items()
        if k not in ("at", "reason") and not k.startswith("_")
    } == {"type": "withdraw", "seq": len(before), "seqs": [len(before) - 1]}
    assert scores(page) == {"dana": 0, "lior": 0, "omer": 0}  # the round is not over
    assert page.locator("#call-yaniv").count() == 1  # dana's turn again
    report = audit_file(str(download(page, tmp_path)))
    assert report["verdict"] == "violations"
    assert page.inner_text("#rec-verdict") == "rules broken"
    assert [f["code"] for f in report["findings"]] == ["draw.pile_card"]
    assert report["final"]["scores"] == scores(page)
    assert report["rounds"][0]["moves_checked"] is True
    assert report["withdrawn"] == [{"seq": len(before) - 1, "by": len(before)}]


class Taps:
    """The taps a player makes on the phone, counted (typing a number is not a tap; the
    tap that puts the keyboard on the field is)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.count = 0

    def __call__(self, selector: str) -> None:
        self.page.locator(selector).first.tap()
        self.count += 1

    def since(self, before: int) -> int:
        return self.count - before


def totals_round(page: Page, tap: Taps, caller: str, totals: dict[str, int]) -> None:
    """A round by its totals only: a tap on each total (then the number typed) and one
    on the caller, which writes the round."""
    for player, total in totals.items():
        tap(f".rec-seat[data-player='{player}'] input.rec-number")
        page.keyboard.type(str(total))
    tap(f"#caller [data-player='{caller}']")
    settled(page)


def test_a_game_recorded_on_a_phone_in_hebrew_in_few_taps(
    server: str, phone: Page, screenshot: Callable[[Page, str], Path], tmp_path: Path
) -> None:
    """A round of every move (a simulated table's ten turns), then rounds of totals, at
    390 px in Hebrew: a card is one tap, a turn is its cards and its draw, a totals round
    is a tap a player and the caller; the downloaded log audits to the page's scores."""
    page = phone
    events = simulate_game(resolve_rules("israeli"), 3, ["careful"], seed=64, record="no_stock")
    end = next(i for i, e in enumerate(events) if e["type"] == "round_ended")
    dealt, moves = events[1], events[2:end]
    start(page, server, ["ana", "ben", "carmel"], "israeli", lang="he")
    assert page.get_attribute("html", "dir") == "rtl"
    tap = Taps(page)
    tap("#mode-moves")
    settled(page)
    if page.input_value("#starter") != dealt["starter"]:  # the table chose who opens
        page.select_option("#starter", dealt["starter"])
        tap.count += 2  # the list opened, a name tapped
        settled(page)
    # the deal: one tap a card, the hands in the order the page fills them, the upcard last
    before = tap.count
    for player in page.locator("#entry .rec-seat").evaluate_all(
        "seats => seats.map(s => s.dataset.player)"
    ):
        for card in [dealt["upcard"]] if player == "upcard" else dealt["hands"][player]:
            tap(f"#picker-cards [data-card='{card}']")
    settled(page)
    deal_taps = tap.since(before)
    assert deal_taps == 3 * 5 + 1
    assert page.locator(".rec-hand-pick").count() == 1  # dealt: the first turn is up
    shot(page, screenshot, "record-he-turn-phone")
    # the turns: the thrown cards, then the draw (a pile card, or the stock's card named)
    turn_taps: list[int] = []
    thrown: list[str] = []
    for event in moves:
        if event["type"] in ("showdown",):
            continue
        before = tap.count
        if event["type"] == "yaniv":
            tap("#call-yaniv")
        elif event["type"] == "discard":
            thrown = event["cards"]
            for card in thrown:
                tap(f".rec-hand-pick [data-card='{card}']:not(.chosen)")
            settled(page)
            continue
        else:
            assert event["type"] == "draw", event
            if event["source"] == "pile":
                tap(f".rec-pile.previous [data-card='{event['card']}']")
            else:
                tap(f"#picker-cards [data-card='{event['card']}']")
        settled(page)
        turn_taps.append(tap.since(before) + (len(thrown) if event["type"] == "draw" else 0))
        assert page.locator("#rec-error").is_hidden()
    assert len(turn_taps) == 10 + 1  # ten turns and the Yaniv
    assert max(turn_taps) <= 3 and turn_taps[-1] == 1
    assert page.locator("#rec-verdict").inner_text() == "תקין"  # clean
    played = next(e for e in events if e["type"] == "round_ended")
    assert scores(page) == played["scores"]
    shot(page, screenshot, "record-he-round-over-phone")
    # rounds of totals: the mode and each seat's way of entry are kept from round to round
    tap("#next-round")
    tap("#mode-scoresheet")
    settled(page)
    for player in ("ana", "ben", "carmel"):
        tap(f".rec-seat[data-player='{player}'] [data-how='total']")
    before = tap.count
    totals_round(page, tap, "ben", {"ana": 20, "ben": 5, "carmel": 12})
    totals_taps = tap.since(before)
    assert totals_taps == 3 + 1
    assert page.inner_text("#round-title") == "סיבוב 3"
    after_two = scores(page)
    # a mistake: ben's and carmel's totals swapped; one tap on Undo takes the round back
    totals_round(page, tap, "ana", {"ana": 3, "ben": 9, "carmel": 15})
    assert page.inner_text("#round-title") == "סיבוב 4"
    tap("#undo")
    settled(page)
    assert page.inner_text("#round-title") == "סיבוב 3" and scores(page) == after_two
    assert len(read(page.locator("#log li.withdrawn").all_inner_texts())) == 3
    # the round comes back as it was typed: the two swapped totals are fixed, no more
    assert page.get_attribute("#caller [data-player='ana']", "aria-pressed") == "true"
    assert [
        page.input_value(f".rec-seat[data-player='{p}'] input.rec-number")
        for p in ("ana", "ben", "carmel")
    ] == ["3", "9", "15"]
    shot(page, screenshot, "record-he-totals-phone")
    before = tap.count
    for player, total in (("ben", 15), ("carmel", 9)):
        tap(f".rec-seat[data-player='{player}'] input.rec-number")
        page.keyboard.press("Control+A")
        page.keyboard.type(str(total))
    page.keyboard.press("Enter")  # the keyboard's "done": the round is whole, and written
    settled(page)
    fix_taps = tap.since(before)
    assert fix_taps == 2
    assert page.inner_text("#round-title") == "סיבוב 4"
    expected = {
        p: played["scores"][p] + extra for p, extra in {"ana": 20, "ben": 15, "carmel": 21}.items()
    }
    assert scores(page) == expected
    report = audit_file(str(download(page, tmp_path)))
    assert report["final"]["scores"] == scores(page)  # the round taken back counts nowhere
    assert [r["round"] for r in report["rounds"]] == [1, 2, 3]
    assert len(report["withdrawn"]) == 3
    assert report["verdict"] == "clean"
    print(
        f"\ntaps at 390 px: the deal {deal_taps} (16 cards), the turns {turn_taps}, "
        f"a totals round of 3 players {totals_taps}, a round fixed after Undo {fix_taps}, in all "
        f"{tap.count}"
    )


def test_after_a_draw_the_slap_offer_comes_into_view_below_the_round_header(
    server: str, phone: Page, screenshot: Callable[[Page, str], Path]
) -> None:
    """slap_down: the draw that offers a slap is tapped low on the page; the pile and the
    new slap button come into view, not under the sticky round header."""
    page = phone
    events = simulate_game(
        resolve_rules("israeli(slap_down=true)"), 3, ["careful"], seed=1, record="no_stock"
    )
    slap = next(i for i, e in enumerate(events) if e["type"] == "slap")
    dealt, moves = events[1], events[2:slap]
    start(page, server, ["ana", "ben", "carmel"], "israeli(slap_down=true)")
    tap = Taps(page)
    tap("#mode-moves")
    settled(page)
    if page.input_value("#starter") != dealt["starter"]:
        page.select_option("#starter", dealt["starter"])
        settled(page)
    for player in page.locator("#entry .rec-seat").evaluate_all(
        "seats => seats.map(s => s.dataset.player)"
    ):
        for card in [dealt["upcard"]] if player == "upcard" else dealt["hands"][player]:
            tap(f"#picker-cards [data-card='{card}']")
    settled(page)
    for event in moves:
        if event["type"] == "discard":
            for card in event["cards"]:
                tap(f".rec-hand-pick [data-card='{card}']:not(.chosen)")
        elif event["source"] == "pile":
            tap(f".rec-pile.previous [data-card='{event['card']}']")
        else:
            tap(f"#picker-cards [data-card='{event['card']}']")
        settled(page)
    offer = page.locator("#entry button", has_text="slaps")
    assert offer.count() == 1
    page.wait_for_timeout(100)  # the scroll waits for the frame the entry is drawn in
    head = page.locator(".rec-head").bounding_box()
    pile = page.locator(".rec-tabletop").bounding_box()
    button = offer.bounding_box()
    assert head and pile and button
    under = head["y"] + head["height"]
    assert pile["y"] >= under - 1, f"the pile is under the round header ({pile['y']} < {under})"
    assert under <= button["y"] and button["y"] + button["height"] <= 844 - 8
    shot(page, screenshot, "record-slap-offer-phone")
