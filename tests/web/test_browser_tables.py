"""Live tables in a real browser: phones at one table (390 px), each its own browser
context (its own storage, as two phones are), on a real server with the tables' API.
One phone records and the other shows it within a second; two phones writing at the same
moment make one game, the slower one shown the conflict and the faster one's entry;
entries made offline are sent when the connection returns, with no tap; the table's log,
audited by the command line, gives the follow page's scores."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import LAPTOP, PHONE, REPLAYS
from playwright.sync_api import Browser, BrowserContext, Page, Route
from test_browser_record import call, scores, settled, sheet_round
from werkzeug.serving import make_server

from yaniv_audit.archive import Archive
from yaniv_audit.web import create_app

RULES = "israeli(score_limit=100)"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The suite's server (conftest.py), with room for every phone's stream: werkzeug's
    threads are not counted as waitress's are, and a closed phone's stream holds its place
    until the server next writes to it."""
    db = tmp_path_factory.mktemp("tables") / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(p) for p in sorted(REPLAYS.glob("*.jsonl"))[:3]], jobs=1)
    app = create_app({"ARCHIVE": str(db), "TABLE_FOLLOWERS": 64})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    thread.join()


class Link:
    """A phone's way to the server: a relay on a port of its own that the test can cut
    (every connection closed, new ones closed at once) and restore, as a phone's network
    goes and comes. The browser's own offline switch alone let a request through now and
    then on a loaded host (the page's requests pass its service worker)."""

    def __init__(self, server: str) -> None:
        self.target = int(server.rsplit(":", 1)[1])
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.up = True
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            if not self.up:
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.open |= {client, upstream}
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.up = False
        with self.lock:
            for end in self.open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()
            self.open.clear()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def phones(browser: Browser) -> Iterator[Callable[..., Page]]:
    """``phone()``: a page in a new phone-sized context; each fails the test on a script
    error. Service workers are blocked (so that the test's routes see every request)
    unless ``workers=True``."""
    made: list[tuple[BrowserContext, list[str]]] = []

    def make(workers: bool = False) -> Page:
        context = browser.new_context(
            viewport=PHONE,
            is_mobile=True,
            has_touch=True,
            device_scale_factor=2,
            service_workers="allow" if workers else "block",
        )
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console",
            lambda msg: (
                errors.append(msg.text)
                if msg.type == "error" and not msg.text.startswith("Failed to load resource")
                else None
            ),
        )
        page.on("dialog", lambda dialog: dialog.accept())
        made.append((context, errors))
        return page

    yield make
    problems = [e for _, errors in made for e in errors]
    for context, _ in made:
        context.close()
    assert problems == [], f"JavaScript errors: {problems}"


def open_table(page: Page, server: str, players: list[str], lang: str = "en") -> str:
    """The recorder's game started as a table; its id."""
    page.goto(f"{server}/record?lang={lang}")
    page.wait_for_selector("#setup:not([hidden])")
    names = page.locator(".rec-player-name")
    for i, name in enumerate(players):
        names.nth(i).fill(name)
    page.fill("#setup-rules", RULES)
    page.click("#start")
    page.wait_for_selector("#table-link")
    settled(page)
    link = page.input_value("#table-link")
    assert link.startswith(server + "/record#table=") and "&key=" in link
    return link.split("#table=")[1].split("&")[0]


def sent(page: Page) -> None:
    """Until the phone's queue is empty (every entry taken by the table)."""
    page.wait_for_selector("#queue[data-waiting='0']", state="attached")
    settled(page)


def held_by(page: Page, name: str) -> None:
    page.select_option("#phone-holder", name)


def table_entries(server: str, table_id: str, page: Page) -> list[dict[str, Any]]:
    answer = page.request.get(f"{server}/api/v1/tables/{table_id}/events?after=-1")
    entries: list[dict[str, Any]] = answer.json()["entries"]
    return entries


def follow_scores(page: Page) -> dict[str, int]:
    cells = page.locator("#sheet tr.now td[data-player]")
    return {
        cells.nth(i).get_attribute("data-player") or "": int(cells.nth(i).inner_text())
        for i in range(cells.count())
    }


def test_a_move_recorded_on_one_phone_shows_on_another_within_a_second(
    server: str,
    phones: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
    tmp_path: Path,
) -> None:
    recorder, watcher = phones(), phones()
    table = open_table(recorder, server, ["dana", "lior", "omer"])
    watcher.goto(f"{server}/tables/{table}?lang=en")
    watcher.wait_for_selector("#follow[data-seq='1']")
    watcher.wait_for_selector("#live.on")
    sheet_round(recorder, "lior", {"lior": ["2S", "3S"]}, {"dana": 50, "omer": 20})
    recorder.click("#write")
    sent(recorder)
    answered = time.monotonic()
    watcher.wait_for_selector("#follow[data-seq='4']", timeout=1000, state="attached")
    waited = time.monotonic() - answered
    assert waited < 1.0
    print(f"\nthe other phone showed the round {1000 * waited:.0f} ms after the append's answer")
    assert follow_scores(watcher) == scores(recorder) == {"dana": 50, "lior": 0, "omer": 20}
    assert "round 1 written down" in watcher.inner_text("#moves")
    # a second round, with a claim the audit flags: the watcher has the finding too
    sheet_round(recorder, "omer", {"omer": ["AH"]}, {"dana": 10, "lior": 9}, points={"dana": 12})
    recorder.click("#write")
    sent(recorder)
    watcher.wait_for_selector("#follow[data-seq='7']", timeout=1000, state="attached")
    assert "claim.points" in watcher.inner_text("#findings")
    assert watcher.inner_text("#verdict") == "wrong claims"
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        watcher.set_viewport_size(viewport)
        screenshot(watcher, f"table-follow-{size}")
    watcher.goto(f"{server}/tables/{table}?lang=he")
    watcher.wait_for_selector("#follow[data-seq='7']", state="attached")
    assert watcher.locator("html").get_attribute("dir") == "rtl"
    assert "תביעות" in watcher.inner_text("#verdict") or watcher.inner_text("#verdict")
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        watcher.set_viewport_size(viewport)
        screenshot(watcher, f"table-follow-hebrew-{size}")
    # the table's log, audited by the command line, gives the page's scores
    log = tmp_path / "table.jsonl"
    log.write_text(
        "".join(json.dumps(e["event"]) + "\n" for e in table_entries(server, table, watcher)),
        encoding="utf-8",
    )
    audited = subprocess.run(
        [sys.executable, "-m", "yaniv_audit", "audit", str(log), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(audited.stdout)
    assert (
        report["final"]["scores"]
        == follow_scores(watcher)
        == scores(recorder)
        == {"dana": 60, "lior": 9, "omer": 20}
    )
    assert [f["code"] for f in report["findings"]] == ["claim.points"]


def test_two_phones_writing_at_once_make_one_game_and_the_slower_sees_the_conflict(
    server: str, phones: Callable[..., Page], screenshot: Callable[[Page, str], Path]
) -> None:
    first, second = phones(), phones()
    table = open_table(first, server, ["dana", "lior", "omer"])
    held_by(first, "omer")
    second.goto(first.input_value("#table-link").replace("/record#", "/record?lang=en#"))
    second.wait_for_selector("#game:not([hidden]) #entry .rec-seat")
    assert "#" not in second.url  # the key leaves the address bar once read
    held_by(second, "dana")
    # both enter round 1 as the table played it, each a little differently
    sheet_round(first, "lior", {"lior": ["2S", "3S"]}, {"dana": 50, "omer": 20})
    sheet_round(second, "lior", {"lior": ["2S", "3S"]}, {"dana": 45, "omer": 20})
    # the first phone's append is held on its way until the second's is in
    held: list[Route] = []

    def hold_the_first(route: Route) -> None:
        if route.request.method == "POST" and not held:
            held.append(route)
        else:
            route.continue_()

    first.route("**/api/v1/tables/*/events", hold_the_first)
    first.click("#write")
    while not held:
        first.wait_for_timeout(20)
    second.click("#write")
    sent(second)
    held[0].continue_()
    first.wait_for_selector("#conflict:not([hidden])")
    said = first.inner_text("#conflict").replace("\u2068", "").replace("\u2069", "")
    # the entries as the server says them
    assert "dana's phone wrote first: round 1 dealt, dana opens" in said
    assert "dana: 45 (total)" in said
    assert "Not written, from this phone: round 1 dealt, dana opens" in said
    assert "dana: 50 (total)" in said
    settled(first)
    # one game: the second phone's round, on both phones and on the table
    entries = table_entries(server, table, first)
    assert len(entries) == 4 and entries[3]["event"]["_by"] == "dana"
    assert scores(first) == scores(second) == {"dana": 45, "lior": 0, "omer": 20}
    assert first.locator("#queue").get_attribute("data-waiting") == "0"
    # the first phone's own round is offered again, never written behind the table's back
    assert first.is_visible("#conflict-again")
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        first.set_viewport_size(viewport)
        first.evaluate("window.scrollTo(0, 0)")
        screenshot(first, f"record-conflict-{size}")
    first.set_viewport_size(PHONE)
    # the same round twice: the first phone's put in its place, the table's taken back
    first.click("#conflict-again")
    sent(first)
    assert first.is_hidden("#conflict")
    types = [e["event"]["type"] for e in table_entries(server, table, first)]
    assert types[4:] == ["withdraw", "round_started", "showdown", "round_ended"]
    second.wait_for_function(
        "() => document.querySelector('#scores tr[data-player=dana] td.num').textContent === '50'"
    )
    assert scores(first) == scores(second) == {"dana": 50, "lior": 0, "omer": 20}


def test_entries_made_offline_are_sent_when_the_connection_returns(
    server: str,
    phones: Callable[..., Page],
    screenshot: Callable[[Page, str], Path],
    request: pytest.FixtureRequest,
) -> None:
    recorder, watcher = phones(workers=True), phones()
    link = Link(server)  # the recorder's network: the browser's offline switch, and a cut
    request.addfinalizer(link.close)
    table = open_table(recorder, link.url, ["dana", "lior", "omer"])
    recorder.wait_for_function("() => navigator.serviceWorker.controller !== null")
    watcher.goto(f"{server}/tables/{table}")
    watcher.wait_for_selector("#follow[data-seq='1']", state="attached")
    link.cut()
    recorder.context.set_offline(True)
    rounds = [
        ("lior", {"lior": ["2S", "3S"]}, {"dana": 50, "omer": 20}),
        ("omer", {"omer": ["AH"]}, {"dana": 10, "lior": 9}),
        ("dana", {"dana": ["2H"]}, {"lior": 5, "omer": 6}),
    ]
    for n, (caller, hands, totals) in enumerate(rounds, 1):
        sheet_round(recorder, caller, hands, totals)
        recorder.click("#write")
        recorder.wait_for_selector(f"#queue[data-waiting='{n}']", state="attached")
        # the next round's form, though no server said where the game stands
        recorder.wait_for_function(
            f"() => document.getElementById('round-title').textContent === 'Round {n + 1}'"
        )
    assert recorder.inner_text("#queue").startswith("Entries waiting: 3")
    # a reload without a connection still opens the recorder, the queue kept
    recorder.reload()
    recorder.wait_for_selector("#game:not([hidden]) #entry .rec-seat")
    assert recorder.inner_text("#queue").startswith("Entries waiting: 3")
    assert recorder.inner_text("#round-title") == "Round 4"
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        recorder.set_viewport_size(viewport)
        recorder.evaluate("window.scrollTo(0, 0)")
        screenshot(recorder, f"record-waiting-{size}")
    recorder.set_viewport_size(PHONE)
    assert watcher.get_attribute("#follow", "data-seq") == "1"
    link.restore()
    recorder.context.set_offline(False)  # no tap: the queue goes by itself
    watcher.wait_for_selector("#follow[data-seq='10']", state="attached", timeout=15000)
    sent(recorder)
    assert follow_scores(watcher) == scores(recorder) == {"dana": 60, "lior": 14, "omer": 26}
    assert [e["event"]["type"] for e in table_entries(server, table, watcher)].count(
        "round_ended"
    ) == 3


def test_undo_brings_back_the_round_and_an_earlier_round_is_corrected_without_retyping(
    server: str, phones: Callable[..., Page], screenshot: Callable[[Page, str], Path]
) -> None:
    page = phones()
    table = open_table(page, server, ["dana", "lior", "omer"])
    for caller, hands, totals in [
        ("lior", {"lior": ["2S", "3S"]}, {"dana": 50, "omer": 20}),
        ("omer", {"omer": ["AH"]}, {"dana": 10, "lior": 9}),
    ]:
        sheet_round(page, caller, hands, totals)
        page.click("#write")
        sent(page)
    # Undo: round 2 comes back as it was typed, to fix one number
    page.click("#undo")
    sent(page)
    assert page.get_attribute("#caller [data-player='omer']", "aria-pressed") == "true"
    assert page.input_value(".rec-seat[data-player='dana'] input") == "10"
    assert page.input_value(".rec-seat[data-player='lior'] input") == "9"
    assert page.locator(".rec-seat[data-player='omer'] .rc-card").all_inner_texts() == ["A\n♥"]
    page.fill(".rec-seat[data-player='dana'] input", "12")
    settled(page)
    page.click("#write")
    sent(page)
    assert scores(page) == {"dana": 62, "lior": 9, "omer": 20}
    # round 1 corrected (dana had 40, not 50): round 2 is written again after it
    page.click(".rec-correct[data-round='1']")
    sent(page)
    assert page.input_value(".rec-seat[data-player='dana'] input") == "50"
    page.fill(".rec-seat[data-player='dana'] input", "40")
    settled(page)
    page.click("#write")
    sent(page)
    assert scores(page) == {"dana": 52, "lior": 9, "omer": 20}
    types = [e["event"]["type"] for e in table_entries(server, table, page)]
    assert types.count("withdraw") == 2 and types.count("round_ended") == 5
    call(page, "dana")  # the next round's form is the third round's
    assert page.inner_text("#round-title") == "Round 3"


def test_a_rematch_is_a_new_table_with_the_same_players_and_rules_in_one_tap(
    server: str, phones: Callable[..., Page], screenshot: Callable[[Page, str], Path]
) -> None:
    page = phones()
    table = open_table(page, server, ["dana", "lior"], lang="he")
    assert page.get_attribute("html", "dir") == "rtl"
    # the link's QR code, for the other phones to scan
    page.wait_for_function("() => document.getElementById('table-qr').naturalWidth > 0")
    for size, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        page.set_viewport_size(viewport)
        page.evaluate("window.scrollTo(0, 0)")
        screenshot(page, f"record-table-hebrew-{size}")
    page.set_viewport_size(PHONE)
    sheet_round(page, "lior", {"lior": ["2S"]}, {"dana": 110})
    page.click("#write")
    sent(page)
    page.click("#end-game")
    sent(page)
    page.click("#rematch")
    page.wait_for_function(
        f"() => !document.getElementById('table-link').value.includes('{table}')"
    )
    sent(page)
    again = page.input_value("#table-link").split("#table=")[1].split("&")[0]
    first, second = (table_entries(server, t, page)[0]["event"] for t in (table, again))
    assert (
        (second["players"], second["rules"])
        == (first["players"], first["rules"])
        == (["dana", "lior"], RULES)
    )
    assert scores(page) == {"dana": 0, "lior": 0}
    assert page.inner_text("#round-title") == "סיבוב 1"


def test_a_key_the_table_refuses_asks_for_the_tables_link_and_the_entries_go_on(
    server: str, phones: Callable[..., Page], screenshot: Callable[[Page, str], Path]
) -> None:
    first, second = phones(), phones()
    table = open_table(first, server, ["dana", "lior", "omer"])
    link = first.input_value("#table-link")
    # a link whose key was cut short: the phone joins (reading needs no key), then the
    # table refuses its first entry
    second.goto(link.replace("/record#", "/record?lang=de#")[:-4])
    second.wait_for_selector("#game:not([hidden]) #entry .rec-seat")
    sheet_round(second, "lior", {"lior": ["2S", "3S"]}, {"dana": 50, "omer": 20})
    second.click("#write")
    second.wait_for_selector("#rejoin:not([hidden])")
    assert second.is_visible("#table-error") and second.is_visible("#rejoin-link")
    assert "Tisch hat den Eintrag abgelehnt" in second.inner_text("#table-error")
    second.evaluate("window.scrollTo(0, 0)")
    assert second.get_attribute("#queue", "data-waiting") == "1"
    assert "Link des Tisches" in second.inner_text("#rejoin")
    screenshot(second, "record-rejoin-phone")
    # another table's link is not taken
    second.fill("#rejoin-link", link.replace(f"table={table}", "table=elsewhere0"))
    second.click("#rejoin-go")
    assert second.inner_text("#rejoin-error") == "Das ist nicht der Link dieses Tisches."
    # the table's own link: the waiting entry is sent, no other tap
    second.fill("#rejoin-link", link)
    second.click("#rejoin-go")
    sent(second)
    assert second.is_hidden("#rejoin") and second.is_hidden("#table-error")
    entries = table_entries(server, table, second)
    assert [e["event"]["type"] for e in entries][1:] == ["round_started", "showdown", "round_ended"]
    assert scores(second) == {"dana": 50, "lior": 0, "omer": 20}
