"""Every page checked by axe-core (no serious or critical problem) and measured for a
finger (every control at least 44 x 44 px), at phone and laptop size, in English and in
Hebrew. axe-core comes from npm: tests/install-browser.sh puts it in tests/.axe."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.request import Request, urlopen

import pytest
from conftest import LAPTOP, LONG, PHONE, REPLAYS, SIX_PLAYERS, serving
from playwright.sync_api import Browser, Page

from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests" / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
ASSAF = ROOT / "replays" / "clean-assaf-reduction.jsonl"
GAME = "/games/" + tree_hash(read_log(ASSAF).leaves).hex()
SIX = "/games/" + tree_hash(read_log(SIX_PLAYERS).leaves).hex()
PAGES = {
    "games": "/",
    "board": GAME + "#e=40",
    "board-six": SIX + "#e=300",
    "compare-six": SIX + "/compare",
    "compare": GAME + "/compare",
    "record": "/record",
    "rules": "/rules",
    "analytics": "/analytics",
    "table": "/tables/{table}",
    "not-found": "/no/such/page",
}
#: the controls a finger taps (links inside a sentence are not: they are read)
CONTROLS = (
    "header a, button, select, summary, nav.pages a, a.clear, #download-log, "
    "input:not([type=hidden]):not([type=checkbox]):not([type=radio]):not([type=range])"
)


#: what axe finds that the pages must not have, whatever its impact: a header cell with
#: nothing in it (compare's corner), a scrolling box a keyboard cannot reach (/record's log)
ALSO = ("empty-table-header", "scrollable-region-focusable")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The disputes and a six-player game (the page a phone finds longest)."""
    yield from serving(tmp_path_factory, [*sorted(REPLAYS.glob("*.jsonl")), SIX_PLAYERS])


@pytest.fixture(scope="module")
def live_table(server: str) -> str:
    """A live table two scoresheet rounds in (one with a claim): its id."""
    start = {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": ["dana", "lior"],
        "rules": "israeli",
        "at": "2026-12-06T20:00:00+02:00",
    }
    opened = json.loads(
        urlopen(
            Request(
                f"{server}/api/v1/tables",
                json.dumps(start).encode(),
                {"Content-Type": "application/json"},
            )
        ).read()
    )
    rounds = [
        {"type": "round_started", "round": 1, "starter": "dana"},
        {"type": "showdown", "caller": "dana", "hands": {"dana": ["2S"]}, "totals": {"lior": 30}},
        {"type": "round_ended", "round": 1, "points": {"lior": 31}},
    ]
    urlopen(
        Request(
            f"{server}/api/v1/tables/{opened['id']}/events",
            "".join(json.dumps(e) + "\n" for e in rounds).encode(),
            {"Authorization": f"Bearer {opened['key']}", "If-Match": '"1"'},
        )
    )
    table: str = opened["id"]
    return table


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        raise RuntimeError(
            f"no axe-core at {AXE}: run tests/install-browser.sh (it installs axe-core with npm)"
        )
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def open_page(browser: Browser) -> Iterator[Any]:
    """Pages that let axe in: the Content-Security-Policy allows no script but the
    server's own, so the test's script is let past it (the pages' own stay checked by the
    other browser tests). One tab for each language and size, kept from page to page as
    a person's browser is (a new one costs its start, for each of the file's 19 checks);
    /record opens in each once, and finds no game."""
    opened: dict[tuple[str, str], Page] = {}

    def make(lang: str, size: str) -> Page:
        if (lang, size) not in opened:
            viewport = SIZES[size]
            opened[lang, size] = browser.new_page(
                viewport=viewport,
                bypass_csp=True,
                is_mobile=viewport == PHONE,
                has_touch=viewport == PHONE,
            )
        return opened[lang, size]

    yield make
    for page in opened.values():
        page.close()


def serious_problems(page: Page, axe_source: str) -> list[str]:
    page.evaluate(axe_source)
    found: list[dict[str, Any]] = page.evaluate("""async () => (await axe.run(document,
        {resultTypes: ["violations"]})).violations.map((v) => ({id: v.id, impact: v.impact,
        where: v.nodes.slice(0, 3).map((n) => n.target.join(" "))}))""")
    return [
        f"{v['id']} ({v['impact']}): {', '.join(v['where'])}"
        for v in found
        if v["impact"] in ("serious", "critical") or v["id"] in ALSO
    ]


SMALL = """(selector) => Array.from(document.querySelectorAll(selector))
  .filter((e) => e.getClientRects().length && getComputedStyle(e).visibility !== "hidden")
  .map((e) => [e, e.getBoundingClientRect()])
  .filter(([e, r]) => r.width < 43.5 || r.height < 43.5)
  .map(([e, r]) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + " '" +
    e.textContent.trim().slice(0, 20) + "' " + Math.round(r.width) + "x" + Math.round(r.height))"""


def small_targets(page: Page) -> list[str]:
    small: list[str] = page.evaluate(SMALL, CONTROLS)
    return small


def into_a_game(page: Page) -> None:
    """The recorder with a game under way (its entry, picker and keep buttons shown)."""
    page.on("dialog", lambda dialog: dialog.accept())
    names = page.locator(".rec-player-name")
    for i, name in enumerate(["dana", "lior", "omer"]):
        names.nth(i).fill(name)
    page.click("#start")
    page.wait_for_selector("#game:not([hidden]) #entry .rec-seat")
    page.click(".rec-seat[data-player='lior'] .rec-seat-head strong")
    page.click("#picker-cards [data-card='2S']")
    page.wait_for_selector("#record[data-busy='0']", state="attached")


#: where each page is checked by default: a phone in Hebrew (right to left, where the
#: small targets are measured) and a laptop in English; the six-player board, the
#: longest page a phone gets, on the phone alone (the board's laptop layout is "board"'s).
#: axe takes 1 to 8 s a page (8 s on the six-player board's 5,500 elements), so the long
#: sweep (YANIV_AUDIT_LONG=1) adds the rest: every page at both sizes in both languages.
SIZES = {"phone": PHONE, "laptop": LAPTOP}
CHECKED = [("he", "phone"), ("en", "laptop")]
EVERY = [(lang, size) for lang in ("en", "he") for size in SIZES]


def checked_in(name: str) -> list[tuple[str, str]]:
    if LONG:
        return EVERY
    return [c for c in CHECKED if c[1] == "phone"] if name == "board-six" else CHECKED


@pytest.mark.parametrize("name", list(PAGES))
def test_every_page_reads_and_taps_well(
    server: str, open_page: Any, axe_source: str, live_table: str, name: str
) -> None:
    problems: list[str] = []
    for lang, size in checked_in(name):
        page = open_page(lang, size)
        path, _, step = PAGES[name].format(table=live_table).partition("#")
        page.goto(f"{server}{path}?lang={lang}" + (f"#{step}" if step else ""))
        if name == "record":
            page.wait_for_selector("#setup:not([hidden])")
            problems += [f"{lang} {size} setup: {p}" for p in serious_problems(page, axe_source)]
            into_a_game(page)
            page.wait_for_selector("#table-link")  # the link for the other phones
            # the log scrolls, as a longer game makes it: a keyboard must reach it
            page.add_style_tag(content="#log { max-height: 1rem; }")
        if name == "table":
            page.wait_for_selector("#follow[data-seq='4']", state="attached")
        problems += [f"{lang} {size}: {p}" for p in serious_problems(page, axe_source)]
        if size == "phone":
            problems += [f"{lang} {size}: {t} is under 44 px" for t in small_targets(page)]
    assert problems == [], "\n".join(problems)
