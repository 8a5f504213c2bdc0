"""The step-through viewer's pages and the API behind them (Flask's test client);
tests/web/test_browser.py drives the same pages in a real browser."""

from __future__ import annotations

import html as html_lib
import importlib
import io
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from builders import tie_dispute
from conftest import held_open_by_another_process
from flask.testing import FlaskClient

from yaniv_audit.archive import Archive
from yaniv_audit.core.audit import compare_log
from yaniv_audit.core.merkle import tree_hash
from yaniv_audit.io.codec import read_log
from yaniv_audit.io.rules_files import resolve_rules
from yaniv_audit.web import create_app
from yaniv_audit.web.board import HIDDEN, PILE_SHOWN, board

ROOT = Path(__file__).resolve().parents[2]
REPLAYS = ROOT / "replays"
LOGS = sorted(REPLAYS.glob("*.jsonl"))
MIDDLE = REPLAYS / "middle-card.jsonl"


def fingerprint_of(path: Path) -> str:
    return tree_hash(read_log(path).leaves).hex()


@pytest.fixture(scope="module")
def archive_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("viewer") / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(p) for p in LOGS], jobs=1)
        list(archive.audit(jobs=1))
    return db


@pytest.fixture
def client(archive_file: Path) -> FlaskClient:
    return create_app({"TESTING": True, "ARCHIVE": str(archive_file)}).test_client()


def embedded(html: str) -> dict[str, Any]:
    """The board data the page hands to viewer.js."""
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found, "the page embeds its board data"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def message(html: str) -> str:
    found = re.search(r'<p class="message"[^>]*>(.*?)</p>', html, re.S)
    assert found, html[-500:]
    return found.group(1)


# --- the game list ------------------------------------------------------------------


def test_index_lists_the_archived_games_with_their_verdicts(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    assert f"{len(LOGS)} games" in html
    for path in LOGS:
        assert f'href="/games/{fingerprint_of(path)}"' in html
    assert html.count('class="verdict violations"') == 2
    assert 'class="verdict corrupt"' in html and 'class="verdict claims"' in html
    # each stored file's name keeps its own direction (a Hebrew page is right to left)
    assert html.count('<div class="facts small muted"><bdi>') == len(LOGS)


def test_games_leads_to_the_list_with_its_query(client: FlaskClient) -> None:
    response = client.get("/games?lang=he&player=noa")
    assert response.status_code == 301
    assert response.headers["Location"] == "/?lang=he&player=noa"


def test_index_filters_by_player(client: FlaskClient) -> None:
    html = client.get("/?player=noa").get_data(as_text=True)
    assert '<p class="count" id="count">1 game</p>' in html
    assert f'href="/games/{fingerprint_of(MIDDLE)}"' in html
    assert html.count('href="/games/') == 1


def test_index_searches_filters_sorts_and_pages(archive_file: Path) -> None:
    web = create_app(
        {"TESTING": True, "ARCHIVE": str(archive_file), "GAMES_PER_PAGE": 3}
    ).test_client()

    def listed(query: str) -> tuple[str, list[str]]:
        html = web.get("/?" + query).get_data(as_text=True)
        return html, re.findall(r'<a class="title" href="/games/(\w+)"', html)

    html, games = listed("q=friday")  # part of a game_id
    assert games == [fingerprint_of(REPLAYS / "clean-assaf-reduction.jsonl")]
    assert 'id="count">1 game<' in html
    assert listed("q=noa")[1] == [fingerprint_of(MIDDLE)]  # a player
    assert listed("q=" + fingerprint_of(MIDDLE)[:10])[1] == [fingerprint_of(MIDDLE)]
    html, games = listed("verdict=violations")
    assert 'id="count">2 games<' in html and len(games) == 2
    assert len(listed("has_findings=false")[1]) == 3  # of 5 clean games, page 1 of 2
    longest = max(LOGS, key=lambda p: len(read_log(p).events))
    assert listed("sort=-events")[1][0] == fingerprint_of(longest)
    html, first = listed("")
    assert f"page 1 of {-(-len(LOGS) // 3)}" in html and len(first) == 3
    assert 'href="/?page=2" rel="next"' in html
    html, second = listed("page=2")
    assert 'rel="prev"' in html and not set(first) & set(second)
    html, _ = listed("verdict=clean&page=1")
    assert 'href="/?verdict=clean&amp;page=2"' in html  # the filters are kept
    bad = web.get("/?verdict=nice")
    assert bad.status_code == 400 and "verdict: expected one of" in bad.get_data(as_text=True)


def test_index_without_an_archive_says_how_to_make_one(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "ARCHIVE": str(tmp_path / "none.duckdb")})
    html = app.test_client().get("/").get_data(as_text=True)
    assert "No archive here yet" in html and "yaniv-audit ingest" in html
    assert app.test_client().get("/api/v1/games").status_code == 404


# --- the board ----------------------------------------------------------------------


def test_board_of_an_archived_game_marks_its_finding(client: FlaskClient) -> None:
    response = client.get(f"/games/{fingerprint_of(MIDDLE)}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert (
        '<span class="verdict violations" id="verdict" data-verdict="violations">rules broken'
        "</span>" in html
    )
    assert "<bdi>noa</bdi> took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or 9♥ may be taken" in html
    assert (
        '<li id="ev-5" class="flagged"><a href="#e=5" data-step="5"><bdi>noa</bdi> draws '
        '<span class="chip red">8♥</span> from the pile</a></li>' in html
    )
    data = embedded(html)
    expected = json.loads(json.dumps(board(read_log(MIDDLE))))  # as JSON carries it
    assert data == expected
    assert [s["index"] for s in data["steps"]] == list(range(len(read_log(MIDDLE).events)))
    assert data["steps"][5]["findings"][0]["code"] == "draw.pile_card"


def test_board_under_other_rules(client: FlaskClient) -> None:
    html = client.get(f"/games/{fingerprint_of(MIDDLE)}?rules=namu").get_data(as_text=True)
    data = embedded(html)
    assert data["report"]["rules"]["id"] == "namu" and data["report"]["verdict"] == "clean"
    assert 'id="rules-id">namu</code>' in html


def test_board_for_one_seat_hides_the_other_hands(client: FlaskClient) -> None:
    data = embedded(client.get(f"/games/{fingerprint_of(MIDDLE)}?seat=noa").get_data(as_text=True))
    assert data["seat"] == "noa"
    assert data["game"]["players"] == ["ariel", "noa", "ben"]  # the seats, once
    after_deal = data["steps"][1]["state"]["round"]
    assert after_deal["hands"][0] == [HIDDEN] * 5  # ariel's
    assert after_deal["hands"][1] == ["8C", "8D", "2S", "5C", "QH"]  # noa's
    assert after_deal["totals"] == [None, 33, None]
    draws = [s["text"] for s in data["steps"] if "from the stock" in s["text"]]
    assert "ariel draws a card from the stock" in draws
    assert "noa draws 4H from the stock" in draws


def test_board_keeps_only_the_top_of_the_pile() -> None:
    data = board(read_log(LOGS[0]))
    assert (
        max(len(s["state"]["round"]["pile"]) for s in data["steps"] if s["state"]["round"])
        == PILE_SHOWN
    )


@pytest.mark.parametrize(
    ("query", "status", "text"),
    [
        ("?seat=nobody", 400, "&#39;nobody&#39; is not seated; the players are ariel, noa, ben"),
        ("?rules=israeli(yaniv_max=true)", 400, "yaniv_max"),
    ],
)
def test_board_refuses_bad_parameters_with_a_page(
    client: FlaskClient, query: str, status: int, text: str
) -> None:
    response = client.get(f"/games/{fingerprint_of(MIDDLE)}{query}")
    assert response.status_code == status
    assert response.mimetype == "text/html"
    assert text in message(response.get_data(as_text=True))


def test_unknown_game_is_a_404_page(client: FlaskClient) -> None:
    response = client.get("/games/" + "0" * 64)
    assert response.status_code == 404 and response.mimetype == "text/html"
    assert "no game &#39;000" in message(response.get_data(as_text=True))


# --- opening a file -------------------------------------------------------------------


def test_upload_a_log_file(client: FlaskClient) -> None:
    with MIDDLE.open("rb") as fh:
        response = client.post(
            "/view",
            data={"log": (fh, "middle-card.jsonl"), "rules": ""},
            content_type="multipart/form-data",
        )
    assert response.status_code == 200
    data = embedded(response.get_data(as_text=True))
    assert data["report"]["findings"][0]["code"] == "draw.pile_card"


def test_the_file_name_keeps_its_direction_on_a_hebrew_page(client: FlaskClient) -> None:
    """A Latin file name beside Hebrew words is isolated: its dot and dashes stay with it
    rather than jumping to the other side of the line."""
    with MIDDLE.open("rb") as fh:
        response = client.post(
            "/view?lang=he",
            data={"log": (fh, "middle-card.jsonl"), "rules": ""},
            content_type="multipart/form-data",
        )
    html = response.get_data(as_text=True)
    assert 'dir="rtl"' in html
    assert '<p class="fingerprint small muted"><bdi>middle-card.jsonl</bdi> &middot;' in html


def test_withdrawn_entries_are_struck_through_and_said_in_words(client: FlaskClient) -> None:
    log = ROOT / "tests" / "cases" / "fidelity2" / "07-withdraw-last-throw.jsonl"
    response = client.post("/view?lang=de", data={"text": log.read_text(), "rules": ""})
    page = response.get_data(as_text=True)
    data = embedded(page)
    assert data["report"]["withdrawn"] == [{"seq": 2, "by": 3}]
    assert [s["withdrawn_by"] for s in data["steps"]] == [None, None, 3, None, None, None]
    assert data["steps"][3]["move"]["seqs"] == [2]
    # the struck entry is said in words too, not by its look alone
    item = re.search(r'<li id="ev-2" class="withdrawn">(.*?)</li>', page, re.S)
    # in the page's language, as the whole move list (it was English on a German page)
    assert item and '<del><bdi>a</bdi>: wirft <span class="chip red">K♦</span></del>' in item.group(
        1
    )
    assert "(zurückgenommen durch 3, zählt nicht)" in item.group(1)
    assert '<li id="ev-4" class="">' in page  # the throw written again stands


def test_paste_a_log_and_replay_it_under_other_rules(client: FlaskClient) -> None:
    response = client.post("/view", data={"text": MIDDLE.read_text(), "rules": "namu"})
    html = response.get_data(as_text=True)
    assert embedded(html)["report"]["verdict"] == "clean"
    # the page carries the log, so that its rules form replays it again
    again = re.search(r'<input type="hidden" name="text" value="(.*?)">', html, re.S)
    assert again is not None
    text = html_lib.unescape(again.group(1))
    assert [json.loads(x) for x in text.splitlines()][3]["type"] == "draw"
    replayed = client.post("/view", data={"text": text, "rules": ""}).get_data(as_text=True)
    assert embedded(replayed)["report"]["verdict"] == "violations"


@pytest.mark.parametrize(
    ("data", "status", "text"),
    [
        ({"text": ""}, 400, "choose a log file (or paste one) to view"),
        ({"text": '{"type":"game_started"}\n'}, 422, "pasted log: line 1: game_started: field "),
        ({"text": "[1, 2"}, 422, "pasted log: not valid JSON"),
    ],
)
def test_unreadable_uploads_say_where(
    client: FlaskClient, data: dict[str, str], status: int, text: str
) -> None:
    response = client.post("/view", data=data)
    assert response.status_code == status
    assert text in message(response.get_data(as_text=True))


def test_every_way_in_caps_the_events_of_a_log(client: FlaskClient) -> None:
    """POST /view took 25,000 notes (and 155,002 events made a 270 MB page): the page, the
    store form, the recorder's API and the board API read a log under the same cap, the
    page's error saying so with the same 413."""
    notes = MIDDLE.read_text() + '{"type":"note","text":""}\n' * 20_000  # 20,024 events
    for path, data in (
        ("/view", {"text": notes}),
        ("/view", {"log": (io.BytesIO(notes.encode()), "long.jsonl")}),
        ("/store", {"text": notes}),
    ):
        page = client.post(path, data=data)
        assert page.status_code == 413, path
        assert "the log has more than 20,000 events, the most this server reads" in message(
            page.get_data(as_text=True)
        )
    for path in ("/api/v1/state", "/api/v1/board", "/api/v1/audit"):
        refused = client.post(path, data=notes.encode())
        assert refused.status_code == 413
        assert refused.get_json()["error"]["code"] == "too_many_events"
    # under the cap, read as before
    assert client.post("/view", data={"text": MIDDLE.read_text()}).status_code == 200


# --- the API ---------------------------------------------------------------------------


def test_api_games_pages_and_filters(client: FlaskClient) -> None:
    body = client.get("/api/v1/games?limit=3&offset=1").get_json()
    assert body["total"] == len(LOGS) and len(body["games"]) == 3
    assert set(body["games"][0]) == {
        "fingerprint",
        "game_id",
        "source",
        "players",
        "rules_id",
        "events",
        "started_at",
        "ingested_at",
        "verdict",
        "findings",
        "winners",
        "extends",
        "part_of",
        "rewrites",
        "superseded",
    }
    only = client.get("/api/v1/games?player=noa").get_json()
    assert [g["fingerprint"] for g in only["games"]] == [fingerprint_of(MIDDLE)]


def test_api_board_of_an_archived_game_and_of_a_body(client: FlaskClient) -> None:
    stored = client.get(f"/api/v1/games/{fingerprint_of(MIDDLE)}/board?rules=classic").get_json()
    sent = client.post("/api/v1/board?rules=classic", data=MIDDLE.read_bytes()).get_json()
    expected = json.loads(json.dumps(board(read_log(MIDDLE), resolve_rules("classic"))))
    assert stored == expected and sent == expected
    bad_seat = client.post("/api/v1/board?seat=x", data=MIDDLE.read_bytes())
    assert bad_seat.status_code == 400 and bad_seat.get_json()["error"]["field"] == "seat"
    unreadable = client.post("/api/v1/board", data=b'{"type":"discard"}\n')
    assert unreadable.status_code == 422
    assert unreadable.get_json()["error"]["code"] == "unreadable_log"
    missing = client.get("/api/v1/games/" + "f" * 64)
    assert missing.status_code == 404 and "no game" in missing.get_json()["error"]["message"]


def test_an_archive_being_written_is_a_503_not_a_crash(archive_file: Path, tmp_path: Path) -> None:
    busy = tmp_path / "busy.duckdb"
    shutil.copy(archive_file, busy)
    with held_open_by_another_process(busy):
        client = create_app({"TESTING": True, "ARCHIVE": str(busy)}).test_client()
        page = client.get("/")
        api = client.get("/api/v1/games")
    assert page.status_code == 503
    assert "the archive is in use by another process" in message(page.get_data(as_text=True))
    assert api.status_code == 503 and "in use" in api.get_json()["error"]["message"]
    assert api.get_json()["error"]["message"].startswith("busy.duckdb: ")  # no server path
    assert str(tmp_path) not in page.get_data(as_text=True)


@pytest.fixture
def readers_and_writer(archive_file: Path, tmp_path: Path) -> Iterator[Path]:
    db = tmp_path / "shared.duckdb"
    shutil.copy(archive_file, db)
    return db


def test_the_viewer_does_not_keep_the_archive_from_ingest(readers_and_writer: Path) -> None:
    # the shared connection closes once no request has needed it for ARCHIVE_IDLE seconds
    client = create_app(
        {"TESTING": True, "ARCHIVE": str(readers_and_writer), "ARCHIVE_IDLE": 0}
    ).test_client()
    assert client.get("/").status_code == 200
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "yaniv_audit.cli",
            "ingest",
            str(ROOT / "replays" / "simulated" / "classic" / "game-00000.jsonl"),
            "--db",
            str(readers_and_writer),
            "--jobs",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(LOGS) + 1} games" in client.get("/").get_data(as_text=True)


# --- house rules side by side ------------------------------------------------------------


def test_compare_page_shows_every_other_table(client: FlaskClient) -> None:
    log = read_log(REPLAYS / "clean-assaf-reduction.jsonl")
    expected = compare_log(log, [log.game.rules, *unique_presets_other_than(log.game.rules)])
    html = client.get(
        f"/games/{fingerprint_of(REPLAYS / 'clean-assaf-reduction.jsonl')}/compare"
    ).get_data(as_text=True)
    heads = re.findall(r'<th><a href="/rules#preset-[\w-]+"><code>(.*?)</code>', html)
    assert heads == [r["rules"]["id"] for r in expected["results"]]
    assert heads[0] == "israeli" and "cardgames-zone" not in heads  # the same parameters
    changes = [html_lib.unescape(c) for c in re.findall(r"<li>(.*?)</li>", html)]
    # one sentence per change, said from its fields in the page's language
    shown = [c for c in expected["changes"] if c["field"] != "findings"]
    assert len(changes) == len(shown)
    assert all(
        text.startswith(f"under {c['rules']}: ") for text, c in zip(changes, shown, strict=True)
    )
    # the findings each rule set adds, listed under it with their messages
    added = re.findall(r'<li class="added">.*?#e=(\d+)">.*?<code>([\w.]+)</code>', html)
    # (a rule set that cannot replay the log: the finding that stopped it)
    stops = {
        f"{r['unreplayable']['code']}@{r['unreplayable']['seq']}"
        for r in expected["results"]
        if "unreplayable" in r
    }
    assert stops == {"card.not_in_deck@45"}
    assert {f"{code}@{seq}" for seq, code in added} == stops | {
        f
        for c in expected["changes"]
        if c["field"] == "findings"
        for f in c["to"]
        if f not in c["from"]
    }
    assert any(c.startswith("under namu: ") for c in changes)
    # namu's deck has no jokers: shown as a game it cannot replay, with why, never as scores
    assert "cannot be replayed: at event 45, lior names JK" in html_lib.unescape(html)
    # each change says why, in plain words
    assert "because under classic Yaniv may be called at 5 or less (yaniv_max=5)" in html


def test_compare_where_a_user_tries_it_leads_to_the_games_compare_page(
    client: FlaskClient,
) -> None:
    """/compare/<fingerprint> (as /games/<fingerprint>/compare is read aloud) is not a 404."""
    fingerprint = fingerprint_of(REPLAYS / "clean-assaf-reduction.jsonl")
    answer = client.get(f"/compare/{fingerprint}?rules=namu&lang=he")
    assert answer.status_code == 301
    assert answer.headers["Location"] == f"/games/{fingerprint}/compare?rules=namu&lang=he"
    page = client.get(f"/compare/{fingerprint}", follow_redirects=True)
    assert page.status_code == 200 and b'id="compare"' in page.data


def test_compare_chosen_rules_and_its_api(client: FlaskClient) -> None:
    path = MIDDLE
    url = f"/games/{fingerprint_of(path)}/compare?rules=israeli&rules=namu"
    html = client.get(url).get_data(as_text=True)
    assert "under namu: the verdict is clean instead of rules broken" in html
    expected = compare_log(read_log(path), [resolve_rules("israeli"), resolve_rules("namu")])
    assert client.get("/api/v1" + url).get_json() == json.loads(json.dumps(expected))
    sent = client.post("/api/v1/compare?rules=israeli&rules=namu", data=path.read_bytes())
    assert sent.get_json() == json.loads(json.dumps(expected))
    bad = client.get(f"/api/v1/games/{fingerprint_of(path)}/compare?rules=nope")
    assert bad.status_code == 400 and "nope" in bad.get_json()["error"]["message"]


def test_the_compare_page_takes_at_most_twelve_rule_sets(client: FlaskClient) -> None:
    url = f"/games/{fingerprint_of(MIDDLE)}/compare?" + "&".join(["rules=classic"] * 13)
    page = client.get(url)
    assert page.status_code == 400
    assert "rules: 13 rule sets given; at most 12 may be compared" in message(
        page.get_data(as_text=True)
    )


def unique_presets_other_than(declared: Any) -> list[Any]:
    from yaniv_audit.core.rules import PRESETS

    seen = [declared]
    for preset in PRESETS.values():
        if preset not in seen:
            seen.append(preset)
    return seen[1:]


def test_the_game_list_shows_versions_of_a_paused_game(tmp_path: Path) -> None:
    lines = (REPLAYS / "clean-assaf-reduction.jsonl").read_text().splitlines()
    (tmp_path / "paused.jsonl").write_text("\n".join(lines[:30]) + "\n")
    db = tmp_path / "versions.duckdb"
    with Archive(db) as archive:
        archive.ingest(
            [str(tmp_path / "paused.jsonl"), str(REPLAYS / "clean-assaf-reduction.jsonl")], jobs=1
        )
    client = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    games = {g["events"]: g for g in client.get("/api/v1/games").get_json()["games"]}
    paused = tree_hash(read_log(tmp_path / "paused.jsonl").leaves).hex()
    assert games[30]["superseded"] is True and games[30]["extends"] is None
    assert games[75]["superseded"] is False and games[75]["extends"] == paused
    html = client.get("/").get_data(as_text=True)
    assert f'continues <a href="/games/{paused}"><code>{paused[:12]}</code></a>' in html
    assert "an earlier version: a longer one is archived" in html


# --- storing from the upload page, and hostile text --------------------------------------

RLO, FSI, PDI = "\u202e", "\u2068", "\u2069"


def reversing_names_log() -> str:
    """middle-card.jsonl with every player's id holding U+202E (RIGHT-TO-LEFT OVERRIDE),
    which reverses everything after it up to the end of its isolate."""
    events = [json.loads(line) for line in MIDDLE.read_text().splitlines()]
    new = {p: f"{p}{RLO}-lived" for p in events[0]["players"]}

    def swap(v: Any) -> Any:
        if isinstance(v, str):
            return new.get(v, v)
        if isinstance(v, list):
            return [swap(x) for x in v]
        if isinstance(v, dict):
            return {new.get(k, k): swap(x) for k, x in v.items()}
        return v

    return "".join(json.dumps(swap(e), ensure_ascii=False) + "\n" for e in events)


class Overrides(HTMLParser):
    """The U+202E a page's text holds (its scripts' data left out): ``loose``, where
    it sits in no ``<bdi>`` and in no FSI ... PDI, with the element holding it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.isolated = 0
        self.loose: list[str] = []

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag not in ("br", "input", "link", "meta", "img", "path", "line", "rect", "circle"):
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if "script" in self.stack or "style" in self.stack:
            return
        depth = 0
        for c in data:
            depth += (c == FSI) - (c == PDI and depth > 0)
            if c == RLO:
                if "bdi" in self.stack or depth:
                    self.isolated += 1
                else:
                    self.loose.append(f"<{self.stack[-1]}> {data.strip()[:50]!r}")


def test_every_name_on_the_board_is_isolated(client: FlaskClient) -> None:
    """51 of 60 U+202E of the players' names sat outside <bdi> on the board page: the
    move list, the event's text, the finding messages, the seat options, the <title>
    (issue 35); <title> and <option> take no element: FSI ... PDI isolate there."""
    text = reversing_names_log()
    for form in ({"text": text}, {"text": text, "seat": f"noa{RLO}-lived"}):
        page = client.post("/view", data=form)
        assert page.status_code == 200
        found = Overrides()
        found.feed(page.get_data(as_text=True))
        assert found.loose == []
        assert found.isolated >= 50
    html = page.get_data(as_text=True)
    assert f"<title>{FSI}{FSI}ariel{RLO}-lived{PDI}, {FSI}noa{RLO}-lived{PDI}" in html
    assert f">{FSI}ben{RLO}-lived{PDI} only</option>" in html
    assert (
        f'<span class="message"><bdi>noa{RLO}-lived</bdi> took 8♥ from the middle of 7♥ 8♥ 9♥'
    ) in html
    texts = json.loads(re.search(r'id="finding-texts">(.*?)</script>', html, re.S).group(1))  # type: ignore[union-attr]
    assert texts["5:draw.pile_card"][:2] == [
        1,
        " took 8♥ from the middle of 7♥ 8♥ 9♥; only 7♥ or 9♥ may be taken (pickup=ends)",
    ]


HOSTILE = "<script>alert(1)</script>"


def hostile_log() -> str:
    lines = MIDDLE.read_text().splitlines()
    first = json.loads(lines[0])
    first["game_id"] = HOSTILE
    first["players"] = [{"id": "ariel", "name": '"><img src=x onerror=alert(1)>'}, "noa", "ben"]
    note = {"type": "note", "text": HOSTILE}
    return (
        "\n".join([json.dumps(first), *lines[1:], json.dumps(note)]).replace('"seq": ', '"_seq": ')
        + "\n"
    )


def test_store_an_uploaded_log_from_its_board(tmp_path: Path) -> None:
    db = tmp_path / "stored.duckdb"
    client = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    page = client.post("/view", data={"text": hostile_log()}).get_data(as_text=True)
    assert 'action="/store"' in page and "allowed from this machine only" in page
    assert HOSTILE not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page
    text = html_lib.unescape(
        re.findall(r'<input type="hidden" name="text" value="(.*?)">', page, re.S)[-1]
    )
    remote = client.post(
        "/view", data={"text": text}, environ_base={"REMOTE_ADDR": "203.0.113.9"}
    ).get_data(as_text=True)
    assert "Checked, not stored." in remote and 'id="store"' not in remote  # not offered
    refused = client.post(
        "/store", data={"text": text}, environ_base={"REMOTE_ADDR": "203.0.113.9"}
    )
    assert refused.status_code == 401 and refused.mimetype == "text/html"
    stored = client.post("/store", data={"text": text})
    assert stored.status_code == 303
    board_page = client.get(stored.headers["Location"]).get_data(as_text=True)
    assert HOSTILE not in board_page and "&lt;script&gt;" in board_page
    assert "<script>" not in embedded_text(board_page)
    listing = client.get("/").get_data(as_text=True)
    assert HOSTILE not in listing and "&lt;script&gt;alert(1)&lt;/script&gt;" in listing
    missing = client.get("/games/" + HOSTILE.replace("/", "%2F")).get_data(as_text=True)
    assert HOSTILE not in missing


def embedded_text(html: str) -> str:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found
    return found.group(1)


def test_storing_needs_the_token_when_one_is_set(tmp_path: Path) -> None:
    client = create_app(
        {
            "TESTING": True,
            "ARCHIVE": str(tmp_path / "t.duckdb"),
            "WRITE_TOKEN": "s3cret",
            "ARCHIVE_IDLE": 0,
        }
    ).test_client()
    page = client.post("/view", data={"text": MIDDLE.read_text()}).get_data(as_text=True)
    assert 'type="password" name="token"' in page
    assert client.post("/store", data={"text": MIDDLE.read_text(), "token": "x"}).status_code == 401
    assert (
        client.post("/store", data={"text": MIDDLE.read_text(), "token": "s3cret"}).status_code
        == 303
    )


def test_a_rewrite_is_shown_on_both_boards_and_in_the_list(tmp_path: Path) -> None:
    """A log that rewrites an archived game says so on its board, with a link to the game;
    the game's board links the rewrite; the list marks it; game_id finds the game."""
    lines = (REPLAYS / "clean-assaf-reduction.jsonl").read_text().splitlines()
    original, rewrite = tmp_path / "original.jsonl", tmp_path / "rewrite.jsonl"
    original.write_text("\n".join(lines) + "\n")
    rewrite.write_text(
        "\n".join([*lines[:49], lines[49].replace("Assaf!", "No Assaf"), *lines[50:]]) + "\n"
    )
    first, second = fingerprint_of(original), fingerprint_of(rewrite)
    db = tmp_path / "rewrite.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(original)], jobs=1)
        archive.ingest([str(rewrite)], jobs=1)
    web = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    page = web.get(f"/games/{second}").get_data(as_text=True)
    assert "This log rewrites an archived game" in page
    assert f'href="/games/{first}"' in page and "counted in no report" in page
    page = web.get(f"/games/{first}").get_data(as_text=True)
    assert "This game was rewritten later" in page
    assert f'href="/games/{second}"' in page
    assert "rewrites an archived game: kept as evidence" in web.get("/").get_data(as_text=True)
    game = web.get("/api/v1/games/friday-at-dana-2024-05-17").get_json()
    assert game["fingerprint"] == first and game["rewrites"] is None
    assert web.get(f"/api/v1/games/{second}").get_json()["rewrites"] == first


def test_compare_page_lists_each_finding_added_at_one_event(tmp_path: Path) -> None:
    """A tie scored as an Assaf: under assaf_on_tie=false dana's and omer's points are both
    wrong at one round_ended, and the page lists both (it listed one)."""
    log = tmp_path / "tie.jsonl"
    log.write_bytes(tie_dispute().jsonl())
    db = tmp_path / "tie.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(log)], jobs=1)
    client = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    html = client.get(
        f"/games/{fingerprint_of(log)}/compare?rules=israeli&rules=israeli(assaf_on_tie=false)"
    ).get_data(as_text=True)
    added = re.findall(r'<li class="added">.*?<code>([\w.]+)</code>', html)
    assert added == ["claim.points", "claim.points"]


def test_the_list_page_opens_on_the_games_stored_last(archive_file: Path) -> None:
    web = create_app(
        {"TESTING": True, "ARCHIVE": str(archive_file), "GAMES_PER_PAGE": 3}
    ).test_client()
    html = web.get("/").get_data(as_text=True)
    shown = re.findall(r'<a class="title" href="/games/(\w+)"', html)
    stored = [g["fingerprint"] for g in web.get("/api/v1/games?limit=100").get_json()["games"]]
    assert shown == stored[::-1][:3]  # the API keeps the first stored first
    assert '<option value="-ingested" selected>newest stored</option>' in html
    oldest = re.findall(
        r'<a class="title" href="/games/(\w+)"', web.get("/?sort=ingested").get_data(as_text=True)
    )
    assert oldest == stored[:3]


def test_pages_scripts_and_styles_come_gzipped_to_a_client_that_takes_it(
    client: FlaskClient,
) -> None:
    import gzip

    game = fingerprint_of(MIDDLE)
    for path in (f"/games/{game}", "/static/viewer.js", "/static/board.css", "/"):
        plain = client.get(path)
        packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert "Content-Encoding" not in plain.headers, path
        assert packed.headers["Content-Encoding"] == "gzip", path
        assert "Accept-Encoding" in packed.headers["Vary"]
        body = gzip.decompress(packed.get_data())
        assert body == plain.get_data(), path
        assert len(packed.get_data()) < len(body) / 2, path
    # a small answer is sent as it is
    small = client.get("/static/i18n.js", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers


def test_the_game_page_offers_its_log_to_download(client: FlaskClient, tmp_path: Path) -> None:
    game = fingerprint_of(MIDDLE)
    html = client.get(f"/games/{game}").get_data(as_text=True)
    assert f'href="/games/{game}/log.jsonl" id="download-log" download' in html
    answer = client.get(f"/games/{game}/log.jsonl")
    assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
    assert answer.headers["Content-Disposition"] == "attachment; filename*=UTF-8''middle-card.jsonl"
    saved = tmp_path / "middle-card.jsonl"
    saved.write_bytes(answer.get_data())
    assert fingerprint_of(saved) == game  # the same game, byte for byte in its leaves
    assert client.get("/games/ffffffffffff/log.jsonl").status_code == 404


def test_the_recorders_service_worker_may_hold_the_page_record(client: FlaskClient) -> None:
    """/record/sw.js: a script whose scope may be /record itself (its own folder is
    /record/), that keeps the recorder's page and files for a reload offline."""
    answer = client.get("/record/sw.js")
    assert answer.status_code == 200 and answer.mimetype == "text/javascript"
    assert answer.headers["Service-Worker-Allowed"] == "/record"
    assert answer.headers["Cache-Control"] == "no-cache"
    first = answer.get_data(as_text=True).splitlines()[0]
    assert first == (
        'const ASSETS = ["/static/viewer/style.css", "/static/viewer/record.css", '
        '"/static/viewer/i18n.js", "/static/viewer/record.js"];'
    )
    for asset in json.loads(first.removeprefix("const ASSETS = ").rstrip(";")):
        assert client.get(asset).status_code == 200
    page = client.get("/record").get_data(as_text=True)
    assert all(
        f'"{asset}"' in page for asset in ("/static/viewer/record.js", "/static/viewer/record.css")
    )


def test_a_live_tables_page_is_in_the_readers_language(client: FlaskClient) -> None:
    body = client.get("/tables/AbCdEfGh12345678?lang=he").get_data(as_text=True)
    assert '<html lang="he" dir="rtl">' in body
    assert 'id="follow" data-table="AbCdEfGh12345678" data-seq="0"' in body
    assert '<h1 id="title">שולחן חי</h1>' in body
    assert "/static/viewer/table.js" in body and "/static/viewer/cards.js" in body


def test_a_tables_link_is_drawn_as_a_qr_code_from_the_body_only(client: FlaskClient) -> None:
    link = "http://localhost/record#table=AbCdEfGh12345678&key=secret-key-123"
    answer = client.post("/record/qr", data=link)
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    svg = answer.get_data(as_text=True)
    assert svg.startswith("<svg") and "secret" not in svg and "style=" not in svg
    # another server's link, or anything else, is not drawn
    for other in ("http://evil.example/record#table=x&key=y", "hello", ""):
        assert client.post("/record/qr", data=other).status_code == 400


def test_a_game_page_is_built_once_and_again_after_the_archive_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forty readers of one game's page no longer replay it each (issue 35: 70 ms of CPU
    a page, seconds of waiting): the page is built once for what decides it (the game, its
    parameters, the language), and again when a game is stored (its versions may change)."""
    viewer = importlib.import_module("yaniv_audit.web.viewer")  # the module, not its blueprint
    db = tmp_path / "pages.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(MIDDLE)], jobs=1)
        list(archive.audit(jobs=1))
    built: list[int] = []
    real_board = viewer.board

    def counting_board(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return real_board(*args, **kwargs)

    monkeypatch.setattr(viewer, "board", counting_board)
    web = create_app({"TESTING": True, "ARCHIVE": str(db)}).test_client()
    game = fingerprint_of(MIDDLE)
    first = web.get(f"/games/{game}").get_data(as_text=True)
    assert web.get(f"/games/{game}").get_data(as_text=True) == first
    assert len(built) == 1
    israeli = web.get(f"/games/{game}?rules=israeli")
    assert israeli.status_code == 200 and len(built) == 2
    # a game stored meanwhile: the list and the page are built again, the new game listed
    other = REPLAYS / "clean-assaf-reduction.jsonl"
    stored = web.post(
        "/api/v1/games", data=other.read_bytes(), headers={"Content-Type": "application/x-ndjson"}
    )
    assert stored.status_code == 201
    assert f'href="/games/{fingerprint_of(other)}"' in web.get("/").get_data(as_text=True)
    assert web.get(f"/games/{game}").get_data(as_text=True) == first
    assert len(built) == 3
    german = web.get(f"/games/{game}?lang=de").get_data(as_text=True)
    assert german != first and 'lang="de"' in german and len(built) == 4
    # the language remembered (a cookie) is another page than the English one at one address
    assert web.get(f"/games/{game}").get_data(as_text=True) != first


def test_the_list_page_shows_a_game_another_process_stored(tmp_path: Path) -> None:
    """The pages kept are of one state of the archive: a game stored by `yaniv-audit
    ingest` while the server had closed the file is on the next list page."""
    db = tmp_path / "other.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(MIDDLE)], jobs=1)
    web = create_app({"TESTING": True, "ARCHIVE": str(db), "ARCHIVE_IDLE": 0}).test_client()
    other = REPLAYS / "clean-assaf-reduction.jsonl"
    assert f'href="/games/{fingerprint_of(other)}"' not in web.get("/").get_data(as_text=True)
    with Archive(db) as archive:
        archive.ingest([str(other)], jobs=1)
    assert f'href="/games/{fingerprint_of(other)}"' in web.get("/").get_data(as_text=True)


def test_the_game_page_says_which_rules_fit_the_game_in_the_readers_language(
    client: FlaskClient,
) -> None:
    html = client.get(f"/games/{fingerprint_of(MIDDLE)}").get_data(as_text=True)
    section = html.split('<section class="fit-box" id="fit">', 1)[1].split("</section>", 1)[0]
    assert "<h2>Which rules fit this game?</h2>" in section
    assert "<li>fits israeli(pickup=any)</li>" in section
    # the deciding event of pickup, linked to the board's step
    assert re.search(
        r'<li class="fit-param">pickup=any — under pickup=ends, event 5: noa took 8♥ from the '
        r'middle of 7♥ 8♥ 9♥;[^<]*<a href="#e=5" data-step="5">event 5</a></li>',
        section,
    ), section
    hebrew = client.get(f"/games/{fingerprint_of(MIDDLE)}?lang=he").get_data(as_text=True)
    assert "<h2>אילו חוקים מתאימים למשחק הזה?</h2>" in hebrew
    assert "מתאים ל־israeli(pickup=any)" in hebrew


def test_the_board_opens_with_the_line_a_table_reads_aloud(client: FlaskClient) -> None:
    html = client.get(f"/games/{fingerprint_of(MIDDLE)}?lang=de").get_data(as_text=True)
    (line,) = re.findall(r'<p class="read-aloud" id="read-aloud">(.*?)</p>', html)
    assert line == "Nach israeli verstößt das Protokoll einmal gegen die Regeln."


def test_a_rule_sets_id_keeps_its_parenthesis_in_a_right_to_left_page(
    client: FlaskClient,
) -> None:
    """In Hebrew, a rule set's id is a value set into a right-to-left sentence: it is a
    left-to-right run of its own (U+2068 ... U+2069, as names are), so that no neutral
    character around it can reorder it; an English page needs no such marks around it."""
    url = f"/games/{fingerprint_of(MIDDLE)}?rules=israeli(assaf_on_tie%3Dfalse)"
    hebrew = client.get(url + "&lang=he").get_data(as_text=True)
    (line,) = re.findall(r'<p class="read-aloud" id="read-aloud">(.*?)</p>', hebrew)
    assert "\u2068israeli(assaf_on_tie=false)\u2069" in line
    english = client.get(url + "&lang=en").get_data(as_text=True)
    assert "\u2068israeli(" not in english and "israeli(assaf_on_tie=false)" in english
