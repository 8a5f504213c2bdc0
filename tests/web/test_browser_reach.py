"""What a player's finger and eye meet on the longest pages: a six-player game (20
rounds), the rules and the game list, at phone size (390 x 844, touch) and laptop size,
in English and in Hebrew (issue 38, items 10-12). Screenshots in tests/artifacts/
(YANIV_AUDIT_SCREENSHOTS=1).

The target size: 44 x 44 px (WCAG 2.5.5) for every control and every link that is not
inside a sentence (a link whose own line holds other words is read, not aimed at). The
score chart's round columns are the one exception, by WCAG 2.5.8's "equivalent": each
round is also a 44 px number in the rounds table and a tap of the board's round buttons.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import REPLAYS, SIX_PLAYERS, kept_tab, serving
from playwright.sync_api import Browser, Page

from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log

SIX = "/games/" + tree_hash(read_log(SIX_PLAYERS).leaves).hex()
Shot = Callable[[Page, str], Path]
Tabs = dict[str, tuple[Page, list[str]]]
#: a finger's size, px
FINGER = 44

#: every target a finger taps on the page, under FINGER px either way: "tag text WxH"
SMALL = """(finger) => Array.from(document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, summary, [role=tab]"))
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden")
  .filter((e) => !e.closest("svg.score-chart"))  // the equivalent: see the module's text
  // in a sentence: its line holds words of its own
  .filter((e) => !Array.from(e.parentElement.childNodes).some((n) =>
      n.nodeType === 3 && /[^\\s·|,()+:]/.test(n.textContent)))
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([e, r]) => r.width < finger - .5 || r.height < finger - .5)
  .map(([e, r]) => e.tagName.toLowerCase() + " '" + e.textContent.trim().slice(0, 24) + "' "
    + Math.round(r.width) + "x" + Math.round(r.height))"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The disputes and the six-player game."""
    yield from serving(tmp_path_factory, [*sorted(REPLAYS.glob("*.jsonl")), SIX_PLAYERS])


def opened(tabs: Tabs, browser: Browser, size: str) -> Iterator[Page]:
    """The module's tab of ``size``, kept from test to test (conftest.kept_tab)."""
    return kept_tab(tabs, browser, size)


def top_of(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box["y"]


def bottom_of(page: Page, selector: str) -> float:
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box["y"] + box["height"]


@pytest.mark.parametrize("lang", ["en", "he"])
def test_on_a_phone_the_moves_and_rounds_are_one_tap_from_the_board(
    server: str, kept_tabs: Tabs, browser: Browser, screenshot: Shot, lang: str
) -> None:
    """The moves start right under the board (they were 6,667 px down, under 21 round
    explanations); the rounds, the findings and the chart are one tap away, and the
    chart's numbers are readable (they were 7 px)."""
    for page in opened(kept_tabs, browser, "phone"):
        page.goto(f"{server}{SIX}?lang={lang}")
        board = bottom_of(page, "#board")
        assert page.locator("#moves-box").is_visible()
        assert top_of(page, "#moves") - board < 160, "the moves start under the board"
        assert not page.locator("#rounds").is_visible()
        screenshot(page, f"six-moves-phone-{lang}")
        page.tap("#tab-rounds")
        assert page.locator("#sheet").is_visible() and not page.locator("#moves").is_visible()
        assert top_of(page, "#rounds") - board < 160
        page.tap("#tab-chart")
        assert page.locator("#score-chart").is_visible()
        sizes = page.evaluate("""() => Array.from(document.querySelectorAll(
            "#score-chart text")).filter((t) => t.getClientRects().length)
            .map((t) => parseFloat(getComputedStyle(t).fontSize)
              * t.ownerSVGElement.getBoundingClientRect().width
              / t.ownerSVGElement.viewBox.baseVal.width)""")
        assert sizes and min(sizes) >= 12, f"the chart's numbers are {min(sizes):.1f} px"
        screenshot(page, f"six-chart-phone-{lang}")
        # a round's number in the table opens its explanation, whatever tab is shown
        page.tap("#tab-rounds")
        page.tap("#sheet-7 a")
        assert page.locator("#round-7").is_visible()
        # a move steps the board, which stays one tap from the list
        page.tap("#tab-moves")
        page.tap("#ev-12 a")
        assert "12" in (page.text_content("#position") or "")


@pytest.mark.parametrize("size", ["phone", "laptop"])
@pytest.mark.parametrize(
    "path", [SIX, SIX + "/compare", "/rules", "/"], ids=["game", "compare", "rules", "list"]
)
def test_every_target_is_a_finger_wide(
    server: str, kept_tabs: Tabs, browser: Browser, screenshot: Shot, size: str, path: str
) -> None:
    """No control or link outside a sentence under 44 x 44 px (a 6-player game page had
    1,902: move rows 20 px high, the slider 26 px, the rounds' numbers 10 x 18; the
    rules page's pills 24-26 px; the list's game titles 20 px)."""
    small = []
    for page in opened(kept_tabs, browser, size):
        for lang in ("en", "he"):
            page.goto(f"{server}{path}?lang={lang}")
            for tab in ("#tab-moves", "#tab-rounds", "#tab-findings", "#tab-chart"):
                if size == "phone" and path == SIX:
                    page.tap(tab)  # every panel in turn
                small += [f"{lang} {t}" for t in page.evaluate(SMALL, FINGER)]
                if not (size == "phone" and path == SIX):
                    break
            name = path.strip("/").replace("/", "-")[:20] or "list"
            screenshot(page, f"targets-{name}-{size}-{lang}")
    assert small == [], f"{len(small)} targets under {FINGER} px:\n" + "\n".join(small[:20])


@pytest.mark.parametrize("lang", ["en", "he"])
def test_on_a_laptop_the_rounds_table_fits_its_column(
    server: str, kept_tabs: Tabs, browser: Browser, lang: str
) -> None:
    """Six players at 1366 px: the table was 423 px wide in a 401 px column, "winner"
    and names cut."""
    for page in opened(kept_tabs, browser, "laptop"):
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto(f"{server}{SIX}?lang={lang}")
        wide, room = page.evaluate("""() => { const w = document.querySelector(".sheet-wrap");
            return [w.scrollWidth, w.clientWidth]; }""")
        assert wide <= room, f"the rounds table is {wide} px wide in {room} px"
