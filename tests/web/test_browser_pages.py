"""The rules and analytics pages in headless Chromium, at phone and laptop size, in
English, Hebrew (right to left) and Korean; screenshots in tests/artifacts/ with
YANIV_AUDIT_SCREENSHOTS=1."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import LONG
from flask.testing import FlaskClient
from playwright.sync_api import Page

from yaniv_audit.core.rules import PARAMS, PRESETS
from yaniv_audit.web import create_app

SIZES = {"phone": 390, "laptop": 1280}
#: the sizes each language's page is drawn at: English at both, Hebrew (right to left) on
#: the phone, Korean (wide characters) on the laptop; every language at both in the long
#: sweep (YANIV_AUDIT_LONG=1)
DRAWN = {"en": ("laptop", "phone"), "he": ("phone",), "ko": ("laptop",)}


def tabs(lang: str, page: Page, phone: Page) -> list[tuple[str, Page]]:
    return [
        (size, {"laptop": page, "phone": phone}[size])
        for size in SIZES
        if LONG or size in DRAWN[lang]
    ]


#: the module's tabs are kept from test to test: its pages keep nothing in the browser
#: (conftest.kept_tab)
KEPT_TABS = True


def no_sideways_scroll(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("lang", ["en", "he", "ko"])
def test_the_rules_page_links_every_parameter_and_preset(
    page: Page, phone: Page, server: str, lang: str, screenshot: Callable[[Page, str], Path]
) -> None:
    for size, tab in tabs(lang, page, phone):
        tab.goto(f"{server}/rules?lang={lang}")
        assert tab.locator("html").get_attribute("dir") == ("rtl" if lang == "he" else "ltr")
        ids = set(tab.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
        assert {p.name for p in PARAMS} <= ids
        assert {f"preset-{name}" for name in PRESETS} <= ids
        no_sideways_scroll(tab, SIZES[size])
        screenshot(tab, f"rules-{size}-{lang}")
    # a parameter's link from another page lands on it; a preset's too
    page.goto(f"{server}/rules?lang={lang}#pickup")
    assert page.evaluate("document.querySelector(':target').id") == "pickup"
    assert page.locator("#pickup").is_visible()
    assert "ends_of_runs" in page.locator("#pickup").inner_text()
    page.locator("#preset-namu a[href='#run_max']").click()
    assert page.evaluate("location.hash") == "#run_max"
    assert page.locator("#run_max .differs code").inner_text() == "5"
    if lang == "en":
        assert "the Korean wiki article" in page.locator("#preset-namu").inner_text()
    else:
        assert "the Korean wiki article" not in page.locator("#preset-namu").inner_text()


@pytest.mark.parametrize("lang", ["en", "he", "ko"])
def test_the_analytics_page_draws_the_reports(
    page: Page, phone: Page, server: str, lang: str, screenshot: Callable[[Page, str], Path]
) -> None:
    for size, tab in tabs(lang, page, phone):
        tab.goto(f"{server}/analytics?lang={lang}")
        for name in ("assaf-risk", "leaderboard", "seat-advantage", "reductions"):
            report = tab.locator(f"section#{name}")
            assert report.locator("table tbody tr").count() > 0, name
            assert report.locator("svg.chart").count() == 1, name
            box = report.locator("svg.chart").bounding_box()
            assert box is not None and box["width"] <= SIZES[size]
        # a whisker for the interval of each total called
        risk = tab.locator("section#assaf-risk")
        assert risk.locator("svg .whisker").count() >= 3 * risk.locator("svg .bar").count()
        assert tab.locator("section#leaderboard tbody bdi").count() > 0
        no_sideways_scroll(tab, SIZES[size])
        screenshot(tab, f"analytics-{size}-{lang}")
    # Assaf risk of the rounds with a number of players (on the last tab drawn)
    tab.select_option("section#assaf-risk select[name=players]", "3")
    tab.locator("section#assaf-risk form button").click()
    assert "players=3" in tab.url
    assert tab.locator("section#assaf-risk select[name=players]").input_value() == "3"


def test_without_an_archive_the_analytics_page_says_so(tmp_path: Path) -> None:
    client: FlaskClient = create_app({"ARCHIVE": str(tmp_path / "none.duckdb")}).test_client()
    for lang, words in (("en", "There is no archive here yet"), ("he", "עדיין אין כאן ארכיון")):
        answer = client.get(f"/analytics?lang={lang}")
        body = answer.get_data(as_text=True)
        assert answer.status_code == 200 and words in body
        assert "<code>yaniv-audit ingest PATH</code>" in body and "none.duckdb" in body
    # the rules page needs no archive, and gives every number's range
    rules_page = client.get("/rules?lang=en").get_data(as_text=True)
    assert "a whole number from 1 to 4" in rules_page  # decks
    assert "eine ganze Zahl von 1 bis 30" in client.get("/rules?lang=de").get_data(as_text=True)
