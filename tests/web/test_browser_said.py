"""The recorder and the live table say every entry in the page's language, as the
server says it (issue 37): a round of moves recorded on a phone, then the recorder and
the table's page following it opened in English, Hebrew and German; each line of the
recorder's log and of the table's move list is the server's sentence (``said``) of that
entry, and a page in Hebrew or German writes no English word but the players' names and
the rule set's id. Screenshots of both pages at phone and laptop size in
tests/artifacts/."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from urllib.request import Request, urlopen

from conftest import LAPTOP, PHONE
from playwright.sync_api import Page
from test_browser_record import HANDS, download, pick, read, settled, start, throw

from tests.test_golden_rulings import GAME_WORDS, english_left
from yaniv_audit.core.messages import card_text

PLAYERS = ["dana", "lior", "omer"]
ALLOWED = {*PLAYERS, "israeli"}


def spoken(parts: list[Any], players: list[str]) -> str:
    """A sentence of an answer's ``said`` as a page shows it: names, cards as drawn (and
    as :func:`read` reads it, without the marks that isolate a rule set's id)."""
    text = "".join(
        players[p]
        if isinstance(p, int)
        else card_text(p["card"], suits=True)
        if isinstance(p, dict)
        else p
        for p in parts
    )
    return read([text])[0]


def a_round_of_moves(page: Page) -> None:
    """Dealt, three turns (a run, a draw from the pile and one from the stock), a Yaniv."""
    page.click("#mode-moves")
    settled(page)
    for player, cards in HANDS.items():
        page.click(f".rec-seat[data-player='{player}'] .rec-seat-head strong")
        pick(page, *cards)
    pick(page, "3D")
    settled(page)
    throw(page, "7H", "8H", "9H")
    page.click(".rec-pile.previous [data-card='3D']")
    settled(page)
    throw(page, "QH")
    page.click(".rec-pile.previous [data-card='9H']")
    settled(page)
    throw(page, "JD")
    pick(page, "5D")
    settled(page)
    page.click("#call-yaniv")
    settled(page)


def both_sizes(page: Page, screenshot: Callable[[Page, str], Path], name: str) -> None:
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, f"{name}-{size}")


def test_the_recorder_and_the_table_say_each_entry_as_the_server_does(
    server: str,
    phone: Page,
    screenshot: Callable[[Page, str], Path],
    tmp_path: Path,
) -> None:
    """One round recorded (in English), then the recorder and the table's page opened in
    each language in turn: the entries said anew in it (one recording serves the three)."""
    page = phone
    start(page, server, PLAYERS, "israeli", "en")
    a_round_of_moves(page)
    log = download(page, tmp_path).read_bytes()
    link = page.input_value("#table-link")
    table = unquote(re.search(r"table=([^&]+)", link).group(1))  # type: ignore[union-attr]
    for lang in ("en", "he", "de"):
        asked = Request(
            server + "/api/v1/state",
            log,
            {"Content-Type": "application/x-ndjson", "Accept-Language": lang},
        )
        said = json.loads(urlopen(asked).read())["said"]
        assert said["lang"] == lang
        server_lines = [spoken(parts, PLAYERS) for parts in said["moves"]]
        # the recorder's log (as recorded in English, then the game kept and the page
        # opened in the language): each entry the server's sentence
        if lang != "en":
            page.goto(f"{server}/record?lang={lang}")
            page.wait_for_selector("#scores tr")
            settled(page)
        lines = read(page.locator("#log li").all_inner_texts())
        assert lines == server_lines, f"the recorder in {lang}"
        heads = read(page.locator("#rounds .rec-round-head").all_inner_texts())
        assert heads == [spoken(said["rounds"][0], PLAYERS)], f"the recorder in {lang}"
        if lang == "en":
            assert lines[2:4] == ["dana throws 7♥ 8♥ 9♥", "dana draws 3♦ from the pile"]
            assert lines[-1] == "dana calls Yaniv"
            assert heads == ["Round 1: dana called Yaniv at 6 and won"]
        if lang == "he":  # a noun, never a verb with a man's or a woman's form
            assert lines[2] == "dana: זריקה 7♥ 8♥ 9♥"
            assert lines[-1] == "dana: יניב"
        both_sizes(page, screenshot, f"said-record-{lang}")  # left at laptop size
        # the table's page, following the game: the same sentences
        page.goto(f"{server}/tables/{table}?lang={lang}")
        page.wait_for_selector(f"#follow[data-seq='{len(server_lines)}']", state="attached")
        moves = read(page.locator("#moves li").all_inner_texts())
        assert moves == server_lines, f"the table's page in {lang}"
        assert read([page.inner_text("#event-text")]) == [server_lines[-1]], lang
        both_sizes(page, screenshot, f"said-table-{lang}")
        if lang != "en":
            words = ALLOWED | GAME_WORDS.get(lang, set())
            shown = "\n".join([*lines, *heads, *moves, page.inner_text("#stock")])
            assert english_left(shown, words, lang) == []
            # and the check finds English when there is some
            assert english_left("dana throws 7♥ and calls Yaniv", words, lang) != []
        page.set_viewport_size(PHONE)  # the recorder on the phone again
