"""The table's recorder (/record) in a real browser, held as a phone and opened on a
laptop: a whole scoresheet game to an elimination, a short round of moves, reloads in
the middle, the downloaded log audited to what the page showed, the archive."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import LAPTOP, PHONE
from playwright.sync_api import Page, ViewportSize

from yaniv_audit.audit import audit_file

RULES = "israeli(score_limit=100)"


def start(page: Page, server: str, players: list[str], rules: str) -> None:
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server + "/record")
    if page.locator("#game").is_visible():
        page.click("#new-game")
    names = page.locator(".rec-player-name")
    for i, name in enumerate(players):
        names.nth(i).fill(name)
    page.fill("#setup-rules", rules)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden]) #entry > *")


def settled(page: Page) -> None:
    """Until the page has heard the server on the entry being made."""
    page.wait_for_selector("#record[data-busy='0']", state="attached")


def pick(page: Page, *cards: str) -> None:
    for card in cards:
        if card == "JK":
            page.click("#picker-ranks [data-rank='JK']")
            continue
        page.click(f"#picker-ranks [data-rank='{card[:-1]}']")
        page.click(f"#picker-suits [data-suit='{card[-1]}']")


def sheet_round(page: Page, caller: str, hands: dict[str, list[str]],
                totals: dict[str, int], points: dict[str, int] | None = None) -> None:
    """One scoresheet round: the caller, each hand by its cards or its total."""
    page.select_option("#caller", caller)
    for player, cards in hands.items():
        page.click(f".rec-seat[data-player='{player}'] .rec-seat-head strong")
        pick(page, *cards)
    for player, total in totals.items():
        page.click(f".rec-seat[data-player='{player}'] [data-how='total']")
        page.fill(f".rec-seat[data-player='{player}'] input", str(total))
    for player, written in (points or {}).items():
        if not page.locator("details.rec-wrote").get_attribute("open") == "":
            page.click("details.rec-wrote summary")
        page.fill(f"input[data-player='{player}'][data-field='points']", str(written))
    settled(page)


def shot(page: Page, screenshot: Callable[[Page, str], Path], name: str) -> None:
    """The whole page from its top (the round's head sticks to the top of the screen)."""
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, name)


def shots(page: Page, screenshot: Callable[[Page, str], Path], name: str, *,
          then: ViewportSize) -> None:
    """NAME-phone and NAME-laptop, the page then left at the size ``then``."""
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        page.set_viewport_size(viewport)
        shot(page, screenshot, f"{name}-{size}")
    page.set_viewport_size(then)


def scores(page: Page) -> dict[str, int]:
    rows = page.locator("#scores tr")
    return {rows.nth(i).get_attribute("data-player") or "":
            int(rows.nth(i).locator("td.num").inner_text()) for i in range(rows.count())}


def download(page: Page, folder: Path) -> Path:
    with page.expect_download() as info:
        page.click("#download")
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def test_a_scoresheet_game_to_an_elimination_on_a_phone(
        server: str, phone: Page, screenshot: Callable[[Page, str], Path],
        tmp_path: Path) -> None:
    page = phone
    start(page, server, ["dana", "lior", "omer"], RULES)
    # round 1: dana's cards were not kept, only her total
    sheet_round(page, "lior", {"lior": ["2S", "3S"], "omer": ["KD", "QD"]}, {"dana": 50})
    preview = page.locator("#preview .rec-round")
    assert "lior called Yaniv and won" in preview.inner_text()
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
    page.select_option("#caller", "lior")
    page.click(".rec-seat[data-player='lior'] .rec-seat-head strong")
    pick(page, "AS")
    settled(page)
    page.reload()
    page.wait_for_selector("#entry .rec-seat")
    settled(page)
    assert page.input_value("#caller") == "lior"
    assert page.locator(".rec-seat[data-player='lior'] .rc-card").all_inner_texts() == ["A\n♠"]
    assert scores(page) == {"dana": 50, "lior": 0, "omer": 50}
    # ... omer Assafs lior's 4 with his 4, dana goes out; the table writes lior down for 30
    pick(page, "3H")
    sheet_round(page, "lior", {"omer": ["4D"]}, {"dana": 60}, points={"lior": 30})
    assert "Assaf by omer" in page.locator("#preview .rec-round").inner_text()
    warning = page.locator("#preview .rec-finding").inner_text()
    assert "claim.points" in warning and "lior was written down for 30 points in round 3; " \
        "the rules give 34" in warning
    page.click("#write")
    settled(page)
    assert scores(page) == {"dana": 110, "lior": 34, "omer": 50}
    assert page.locator("#scores tr[data-player='dana'] .badge").inner_text() == "out"
    assert page.locator("#rec-verdict").inner_text() == "claims"
    # a card twice in a one-deck game is flagged at once, before it is written
    page.select_option("#caller", "omer")
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
    assert report["final"] == {"scores": scores(page), "finished": True, "winners": ["omer"],
                               "out": ["dana", "lior"]}
    assert report["verdict"] == page.inner_text("#rec-verdict") == "claims"
    assert [f["code"] for f in report["findings"]] == ["claim.points"]
    assert [r["reductions"] for r in report["rounds"]][1] == [
        {"player": "dana", "from": 100, "to": 50}]
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
    assert page.inner_text("#verdict") == "claims"


HANDS = {"dana": ["7H", "8H", "9H", "AS", "2D"], "lior": ["2C", "2S", "QH", "3S", "AC"],
         "omer": ["AH", "4S", "JD", "TC", "9C"]}


def throw(page: Page, *cards: str) -> None:
    for card in cards:
        page.click(f".rec-hand-pick [data-card='{card}']")
    settled(page)


def test_a_round_of_moves_with_a_refused_middle_card_on_a_laptop(
        server: str, page: Page, browser: object, screenshot: Callable[[Page, str], Path],
        tmp_path: Path) -> None:
    start(page, server, ["dana", "lior", "omer"], "israeli")
    page.click("#mode-moves")
    settled(page)
    for player, cards in HANDS.items():
        page.click(f".rec-seat[data-player='{player}'] .rec-seat-head strong")
        pick(page, *cards)
    pick(page, "3D")  # on to the upcard once the hands are full
    settled(page)
    page.click("#write")
    settled(page)
    # dana throws a run and takes the upcard
    throw(page, "7H", "8H", "9H")
    assert page.inner_text("#preview") == "Legal under these rules."
    page.click("#write")
    settled(page)
    page.click(".rec-pile.previous [data-card='3D']")
    settled(page)
    page.click("#write")
    settled(page)
    # lior takes 8H from the middle of dana's run: refused by the rules, recorded anyway
    throw(page, "QH")
    page.click("#write")
    settled(page)
    middle = page.locator(".rec-pile.previous [data-card='8H']")
    assert "refused" in (middle.get_attribute("class") or "")
    middle.click()
    settled(page)
    warning = page.inner_text("#preview .rec-finding")
    # the finding as the page's language says it, its cards as the board draws them
    assert "draw.pile_card" in warning and \
        "lior took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or 9♥ may be taken" in warning
    shots(page, screenshot, "record-moves", then=LAPTOP)
    page.click("#write")
    settled(page)
    # a reload in the middle of the round loses nothing
    page.reload()
    page.wait_for_selector(".rec-hand-pick")
    settled(page)
    assert page.input_value("#mover") == "omer"
    assert page.locator(".rec-finding").first.inner_text().find("draw.pile_card") >= 0
    # omer throws and draws from the stock, naming the card (the stock is not recorded)
    throw(page, "JD")
    page.click("#write")
    settled(page)
    page.click("#draw-stock")
    pick(page, "5D")
    settled(page)
    page.click("#write")
    settled(page)
    # dana calls Yaniv at 6
    page.click("#call-yaniv")
    settled(page)
    page.click("#write")
    settled(page)
    assert "dana called Yaniv and won" in page.inner_text("#rounds")
    assert scores(page) == {"dana": 0, "lior": 16, "omer": 29}
    # undo writes a note that withdraws the Yaniv: the log is only appended to
    before = download(page, tmp_path).read_text().splitlines()
    page.click("#undo")
    settled(page)
    assert page.locator("#log li.withdrawn").all_inner_texts() == ["dana: Yaniv"]
    after = download(page, tmp_path).read_text().splitlines()
    assert after[:-1] == before and json.loads(after[-1])["type"] == "note"
    assert json.loads(after[-1])["_withdraws"] == [len(before) - 1]
    report = audit_file(str(download(page, tmp_path)))
    assert report["verdict"] == page.inner_text("#rec-verdict") == "violations"
    assert [f["code"] for f in report["findings"]] == ["draw.pile_card"]
    assert report["final"]["scores"] == scores(page)
    assert report["rounds"][0]["moves_checked"] is True
