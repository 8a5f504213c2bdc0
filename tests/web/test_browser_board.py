"""The board, the game list, compare and "check a log" in a real browser, at phone
(390 x 844, touch) and laptop size, left to right and right to left (Hebrew). With
YANIV_AUDIT_SCREENSHOTS=1 (or the long sweep) each test saves screenshots in
tests/artifacts/ (board-phone.png, compare-laptop-he.png, ...).

The browser, the server and the pages are fixtures of tests/conftest.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from conftest import LONG
from playwright.sync_api import Page, expect

from yaniv_audit.batch.simulate import simulate_game, to_jsonl
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log
from yaniv_audit.io.rules_files import resolve_rules

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
MIDDLE = REPLAYS / "middle-card.jsonl"
ASSAF = REPLAYS / "clean-assaf-reduction.jsonl"
Shot = Callable[[Page, str], Path]


#: the module's tabs are kept from test to test: its pages keep nothing in the browser
#: (conftest.kept_tab)
KEPT_TABS = True


def game_url(server: str, path: Path, query: str = "") -> str:
    return f"{server}/games/{tree_hash(read_log(path).leaves).hex()}{query}"


def position(page: Page) -> str:
    return page.text_content("#position") or ""


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page is {width}px wide"  # type: ignore[index]


def swipe(page: Page, dx: int) -> None:
    """A one-finger swipe across the table (touch events, as a phone sends them)."""
    page.evaluate(
        """(dx) => {
      const board = document.getElementById("board");
      const at = (x) => [new Touch({identifier: 1, target: board, clientX: x, clientY: 400})];
      const send = (type, touches, changed) => board.dispatchEvent(
        new TouchEvent(type, {touches, changedTouches: changed, bubbles: true}));
      send("touchstart", at(200), at(200));
      send("touchend", [], at(200 + dx));
    }""",
        dx,
    )


def test_on_a_phone_the_controls_stay_under_the_thumb(
    server: str, phone: Page, screenshot: Shot
) -> None:
    phone.goto(game_url(server, ASSAF, "#e=40"))
    no_sideways_scroll(phone)
    assert position(phone) == "event 40 of 74"
    bar = phone.locator("#controls").bounding_box()
    assert bar is not None and abs(bar["y"] + bar["height"] - 844) < 2  # at the bottom
    for _ in range(3):
        phone.tap("#next")
    assert position(phone) == "event 43 of 74"
    bar = phone.locator("#controls").bounding_box()
    assert bar is not None and abs(bar["y"] + bar["height"] - 844) < 2  # still there
    for button in phone.locator("#controls .buttons button").all():
        box = button.bounding_box()
        assert box is not None and box["height"] >= 40 and box["width"] >= 40  # a thumb's
    swipe(phone, -120)  # right to left: forward
    assert position(phone) == "event 44 of 74"
    swipe(phone, 120)
    assert position(phone) == "event 43 of 74"
    assert phone.url.endswith("#e=43")
    card = phone.locator("#players svg.card").first
    box = card.bounding_box()
    assert box is not None and box["width"] >= 38  # readable at arm's length
    assert card.get_attribute("aria-label") == "ace of spades"
    phone.evaluate("window.scrollTo(0, 0)")
    screenshot(phone, "board-phone")


def test_in_hebrew_the_board_mirrors(server: str, phone: Page, screenshot: Shot) -> None:
    phone.goto(game_url(server, ASSAF, "?lang=he#e=40"))
    assert phone.get_attribute("html", "dir") == "rtl"
    no_sideways_scroll(phone)
    assert phone.text_content("#position") == "מהלך 40 מתוך 74"
    assert phone.text_content("#event-text") == "omer: זריקה 5♦"
    swipe(phone, 120)  # left to right: forward in Hebrew
    assert phone.text_content("#position") == "מהלך 41 מתוך 74"
    phone.keyboard.press("ArrowLeft")  # the arrow pointing the way the line reads
    assert phone.text_content("#position") == "מהלך 42 מתוך 74"
    first, last = (phone.locator(f"#{b}").bounding_box() for b in ("first", "last"))
    assert first is not None and last is not None and first["x"] > last["x"]
    assert phone.locator("#players svg.card").first.get_attribute("aria-label") == "אס עלה"
    # the round said with nouns, no verb that has a man's or a woman's form
    assert "קריאת יניב של omer עם 6, ואסף של" in (phone.text_content("#round-2") or "")
    phone.evaluate("window.scrollTo(0, 0)")
    screenshot(phone, "board-phone-he")


def test_on_a_laptop_keys_step_events_rounds_and_findings(
    server: str, page: Page, screenshot: Shot
) -> None:
    page.goto(game_url(server, ASSAF))
    # the moves beside the board, as tall as it, as an analysis board has them
    board, moves = page.locator("#board").bounding_box(), page.locator("#moves-box").bounding_box()
    assert board is not None and moves is not None
    assert moves["x"] > board["x"] + board["width"] and abs(moves["y"] - board["y"]) < 2
    assert moves["height"] >= board["height"] - 2
    page.keyboard.press("ArrowDown")  # the next round
    assert page.text_content("#round-label") == "round 1"
    page.keyboard.press("ArrowDown")
    assert page.text_content("#round-label") == "round 2"
    assert page.text_content("#event-text") == "round 2 dealt, dana opens, upcard J♦"
    page.keyboard.press("ArrowUp")
    assert page.text_content("#round-label") == "round 1"
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    assert position(page) == "event 73 of 74"
    # the address follows the step, and a new address moves the board
    assert page.url.endswith("#e=73")
    page.evaluate("location.hash = '#e=26'")
    expect(page.locator("#position")).to_have_text("event 26 of 74")
    assert page.text_content("#event-text") == "dana calls Yaniv (5)"
    # every round in words, as the ruling says it, its parameters linked to the rules page
    words = page.text_content("#round-2") or ""
    assert "omer called Yaniv at 6 and was Assafed by dana and lior." in words
    assert "Points: dana 6, lior 0, omer 36." in words
    assert "a tie is an Assaf (assaf_on_tie=true)" in words
    assert page.get_attribute("#round-2 a.param >> nth=0", "href") == "/rules#assaf_on_tie"
    assert "omer landed on 100 and drops to 50" in (page.text_content("#round-3") or "")
    # the chart: a line per player, the limit, the Assaf and the reduction marked
    assert page.locator("#score-chart polyline").count() == 3
    assert page.locator("#score-chart .guide.limit").count() == 1
    assert page.locator("#score-chart .mark.assaf").count() == 1
    page.click("#score-chart a[href='#round-3'] >> nth=0")
    assert page.url.endswith("#round-3")
    # a round's column of the chart steps the board to where its scores are written down
    page.click("#score-chart a.round-link >> nth=1")
    assert page.text_content("#round-label") == "round 2"
    assert "round 2 written down" in (page.text_content("#event-text") or "")
    step = page.get_attribute("#score-chart a.round-link >> nth=1", "data-step")
    assert page.url.endswith(f"#e={step}")
    # autoplay, then a key stops it
    page.evaluate("location.hash = '#e=0'")
    page.select_option("#speed", "250")
    page.click("#play")
    assert page.get_attribute("#play", "aria-pressed") == "true"
    expect(page.locator("#position")).to_have_text(re.compile(r"event ([3-9]|\d\d) of 74"))
    page.keyboard.press("Home")
    assert page.get_attribute("#play", "aria-pressed") == "false"
    assert position(page) == "event 0 of 74"
    screenshot(page, "board-laptop")


def test_findings_jump_both_ways_and_mark_the_move(
    server: str, page: Page, screenshot: Shot
) -> None:
    page.goto(game_url(server, REPLAYS / "wrong-score.jsonl"))
    flagged = [
        int(a.get_attribute("data-step") or 0) for a in page.locator("#findings a[data-step]").all()
    ]
    assert len(flagged) == 2
    page.keyboard.press("n")
    assert position(page).startswith(f"event {flagged[0]} ")
    page.keyboard.press("n")
    assert position(page).startswith(f"event {flagged[1]} ")
    page.keyboard.press("p")
    assert position(page).startswith(f"event {flagged[0]} ")
    current = page.locator("#findings li.current a")
    assert current.count() >= 1 and {a.get_attribute("data-step") for a in current.all()} == {
        str(flagged[0])
    }
    page.goto(game_url(server, MIDDLE, "#e=5"))
    assert page.get_attribute("#findings a.param", "href") == "/rules#pickup"
    noa = page.locator(".player[data-player=noa]")
    assert "flagged" in (noa.get_attribute("class") or "")
    assert noa.locator("svg.card.moved").get_attribute("aria-label") == "eight of hearts"
    # the fingerprint, small, with a button to copy it
    assert (page.text_content("#fingerprint") or "").startswith("d454a4a5")
    page.click("#copy-fingerprint")
    expect(page.locator("#copy-fingerprint")).to_have_text("copied")  # once the copy is done
    page.keyboard.press("Escape")
    page.focus("#next")  # keyboard only: the controls take the focus and Enter
    page.keyboard.press("Enter")
    assert position(page) == "event 6 of 23"
    screenshot(page, "board-laptop-finding")


def test_the_game_list_searches_and_filters(server: str, phone: Page, screenshot: Shot) -> None:
    phone.goto(server + "/")
    no_sideways_scroll(phone)
    titles = phone.locator("#game-list a.title").all_inner_texts()
    assert "friday-at-dana-2024-05-17" in titles and "ariel, noa, ben" in titles  # no hash
    phone.fill("input[name=q]", "noa")
    phone.click("#filter button[type=submit]")
    assert phone.locator("#game-list a.title").all_inner_texts() == ["ariel, noa, ben"]
    phone.goto(server + "/?lang=he")
    phone.click("#filter summary")
    phone.select_option("select[name=verdict]", "violations")
    phone.click("#filter button[type=submit]")
    assert phone.text_content("#count") == "2 משחקים"
    no_sideways_scroll(phone)
    screenshot(phone, "games-phone-he")


def test_check_a_log_without_storing_then_store_it(
    server: str, page: Page, screenshot: Shot
) -> None:
    log = ROOT / "tests" / "cases" / "fidelity" / "13-multi-assaf-message.jsonl"
    page.goto(server + "/")
    page.fill("textarea[name=text]", log.read_text())
    page.fill("#check input[name=rules]", "israeli(assaf_penalty=25)")  # any rule-set id
    page.click("#check-log")
    assert page.text_content("#rules-id") == "israeli(assaf_penalty=25)"
    said = page.text_content("#round-1") or ""
    assert "Points: a 30, b 0" in said and "(assaf_penalty=25)" in said
    expect(page).to_have_url(re.compile(r"/view#e=0$"))  # not stored: no game address
    screenshot(page, "check-laptop")
    page.click("#store")
    assert "/games/" in page.url
    assert page.text_content("#verdict")


#: counts the U+202E of the page's text (scripts left out): isolated, in a <bdi> or
#: between FSI and PDI, or loose, with where
OVERRIDES = """() => {
  const out = {isolated: 0, loose: []};
  const walker = document.createTreeWalker(document, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!p || p.closest("script,style")) continue;
    let depth = 0;
    for (const c of n.data) {
      if (c === "\\u2068") depth++;
      else if (c === "\\u2069") depth = Math.max(0, depth - 1);
      else if (c === "\\u202e") {
        if (p.closest("bdi") || depth) out.isolated++;
        else out.loose.push(p.tagName + ": " + n.data.slice(0, 50));
      }
    }
  }
  return out;
}"""


def test_every_name_is_isolated_as_the_script_draws_the_board(
    server: str, page: Page, phone: Page, screenshot: Shot
) -> None:
    """Names holding U+202E (which reverses what follows, to the end of its isolate):
    the moves, the event's words, the findings, the table, the seat options and the
    title keep each name to itself (issue 35: 51 of 60 were loose)."""
    players = ["ariel", "noa", "ben"]
    text = MIDDLE.read_text()
    for p in players:  # each id is a whole word, never part of another
        text = re.sub(rf'"{p}"', f'"{p}\u202e-lived"', text)
    for tab, name in ((phone, "board-isolated-names-phone"), (page, "board-isolated-names")):
        tab.goto(server + "/")
        tab.fill("textarea[name=text]", text)
        tab.click("#check-log")
        tab.wait_for_url("**/view#e=0")
        tab.evaluate("location.hash = '#e=5'")  # the finding's step: its message drawn
        expect(tab.locator("#step-findings li")).to_have_count(1)
        counted = tab.evaluate(OVERRIDES)
        assert counted["loose"] == []
        assert counted["isolated"] >= 50
        assert tab.text_content("#step-findings li") == (
            "draw.pile_card noa\u202e-lived took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or "
            "9♥ may be taken (pickup=ends)"
        )
        assert tab.locator("#step-findings li bdi").count() == 1
        assert tab.title().startswith("\u2068\u2068ariel\u202e-lived\u2069, ")
        tab.evaluate("window.scrollTo(0, 0)")
        screenshot(tab, name)


def test_compare_marks_what_differs(server: str, page: Page, phone: Page, screenshot: Shot) -> None:
    page.goto(game_url(server, ASSAF, "/compare"))
    assert page.locator("#compare td.differs").count() > 5
    namu = page.locator("#compare tr.winners td").nth(2)
    assert "differs" in (namu.get_attribute("class") or "")
    # three bars (the players) for each rule set that replays the game; one that cannot
    # says why, with no scores
    replayed = (
        page.locator("#compare thead th code").count()
        - page.locator("#compare tr.winners .unreplayable").count()
    )
    assert page.locator("#final-bars rect.bar").count() == 3 * replayed
    assert page.locator("#finding-changes li.added").count() > 0
    link = page.locator("#finding-changes li.added a").first.get_attribute("href") or ""
    assert "?rules=" in link and "#e=" in link  # the finding on its board
    screenshot(page, "compare-laptop")
    phone.goto(game_url(server, ASSAF, "/compare?lang=he"))
    no_sideways_scroll(phone)
    assert phone.locator("#compare td.differs").count() > 5
    screenshot(phone, "compare-phone-he")


def test_a_withdrawn_entry_is_struck_through_and_said_in_words(server: str, page: Page) -> None:
    log = ROOT / "tests" / "cases" / "fidelity2" / "07-withdraw-last-throw.jsonl"
    page.goto(server + "/")
    page.fill("textarea[name=text]", log.read_text())
    page.click("#check-log")
    page.evaluate("location.hash = '#e=2'")  # the throw taken back
    expect(page.locator("#position")).to_contain_text("event 2")
    struck = page.locator("#event-text del")
    expect(struck).to_have_text(re.compile(r"throws"))
    expect(page.locator("#event-text")).to_contain_text("(withdrawn by 3, not counted)")
    expect(page.locator("#ev-2 del")).to_have_count(1)
    page.keyboard.press("ArrowRight")  # the withdrawal says what it takes back
    expect(page.locator("#event-text")).to_have_text(
        "the table takes back 2 (a asked): meant to throw the nines"
    )


def test_a_note_is_said_in_the_page_language_with_the_table_s_own_words(
    server: str, page: Page
) -> None:
    page.goto(game_url(server, MIDDLE, "?lang=he#e=6"))
    said = "ben: noa just took the 8H out of the middle of ariel's run!"
    expect(page.locator("#event-text")).to_have_text(f"הערה של ben: {said}")
    expect(page.locator("#event-text bdi").last).to_have_text(said)  # its own direction
    expect(page.locator("#ev-6")).to_have_text(f"הערה של ben: {said}")


def real_swipe(page: Page, dx: int) -> None:
    """A swipe as the phone's screen sends it (the browser's own touch input, which it may
    take for a scroll or its "back" gesture), across the middle of the table."""
    box = page.locator("#players").bounding_box()
    assert box is not None
    x, y = box["x"] + box["width"] / 2 - dx / 2, box["y"] + 20
    cdp = page.context.new_cdp_session(page)

    def point(at: float) -> list[dict[str, float]]:
        return [{"x": at, "y": y}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point(x)})
    for k in range(1, 9):
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": point(x + dx * k / 8)}
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_a_swipe_on_the_table_steps_the_game_and_stays_on_the_page(
    server: str, phone: Page
) -> None:
    phone.goto(server + "/")  # a page to go back to: a swipe must not go there
    phone.goto(game_url(server, ASSAF, "#e=40"))
    phone.locator("#board").scroll_into_view_if_needed()
    board = phone.locator("#board")
    assert board.evaluate("b => getComputedStyle(b).touchAction") == "pan-y"
    assert phone.evaluate("getComputedStyle(document.body).overscrollBehaviorX") == "none"
    real_swipe(phone, 160)  # left to right: back one event (the browser's "back" gesture)
    expect(phone.locator("#position")).to_have_text("event 39 of 74")
    real_swipe(phone, -160)
    real_swipe(phone, -160)
    expect(phone.locator("#position")).to_have_text("event 41 of 74")
    assert "/games/" in phone.url
    phone.goto(game_url(server, ASSAF, "?lang=he#e=40"))  # right to left: mirrored
    real_swipe(phone, 160)
    expect(phone.locator("#position")).to_have_text("מהלך 41 מתוך 74")
    assert "/games/" in phone.url


def seats_seen(page: Page) -> list[str]:
    """The seats wholly on the screen, above the controls fixed at its bottom."""
    controls = page.locator("#controls").bounding_box()
    assert controls is not None
    seen = []
    for seat in page.locator("#players .player").all():
        box = seat.bounding_box()
        assert box is not None
        if (
            box["y"] >= 0
            and box["y"] + box["height"] <= controls["y"]
            and box["x"] >= 0
            and box["x"] + box["width"] <= 390
        ):
            seen.append(seat.get_attribute("data-player") or "")
    return seen


RULES_WITH_CHANGES = "israeli(score_limit=150, yaniv_max=5, assaf_penalty=25, slap_down=true)"


#: the tables tried: the fewest players, an odd count between and the most (1.5 s each);
#: the long sweep (YANIV_AUDIT_LONG=1) tries every count from 2 to 8
TABLE_SIZES = list(range(2, 9)) if LONG else [2, 5, 8]


def test_every_seat_on_a_phone_at_once_from_two_to_eight_players(
    server: str, phone: Page, screenshot: Shot
) -> None:
    """A table of 2 to 8 players at 390 px, in Hebrew, under rules with several changes:
    the board with every seat (and its cards) fits between the top of the screen and the
    controls, and nothing makes the page wider than the phone."""
    for players in TABLE_SIZES:
        events = simulate_game(resolve_rules(RULES_WITH_CHANGES), players, ["careful"], seed=5)
        phone.goto(server + "/?lang=he")
        phone.fill("textarea[name=text]", to_jsonl(events[:120]))
        phone.click("#check-log")
        phone.wait_for_url("**/view#e=0")
        phone.wait_for_load_state("load")
        no_sideways_scroll(phone)
        for step in (2, 60):  # the deal (everyone holds five), and a turn in the round
            phone.evaluate(f"location.hash = '#e={step}'")
            expect(phone.locator("#position")).to_contain_text(f"{step} ")
            phone.locator("#board").evaluate("b => b.scrollIntoView()")
            seen = seats_seen(phone)
            assert len(seen) == players, (players, step, seen)
            cards = phone.locator("#players .player svg.card")
            assert cards.count() >= players
        no_sideways_scroll(phone)
        if players in (4, 5, 6, 8):
            screenshot(phone, f"board-phone-he-{players}-players")


def test_a_link_to_the_step_is_copied_for_the_table(server: str, page: Page) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(game_url(server, ASSAF, "#e=26"))
    page.click("#copy-link")
    expect(page.locator("#copy-link")).to_have_text("copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == game_url(server, ASSAF, "#e=26")
    page.goto(server + "/")
    page.goto(copied)  # opened anew: at that event
    assert page.text_content("#event-text") == "dana calls Yaniv (5)"
