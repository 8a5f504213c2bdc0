"""The pages in the players' languages: which language a visitor gets, right to left
for Hebrew, and catalogues that are complete and current."""

from __future__ import annotations

import re

import orjson
import pytest
from flask.testing import FlaskClient

from yaniv_audit.web import create_app
from yaniv_audit.web.catalogues import main as catalogues
from yaniv_audit.web.catalogues import untranslated
from yaniv_audit.web.i18n import LANGUAGES, read_catalogue

OTHERS = [code for code in LANGUAGES if code != "en"]


@pytest.fixture
def client(tmp_path: object) -> FlaskClient:
    return create_app({"ARCHIVE": f"{tmp_path}/none.duckdb", "TESTING": True}).test_client()


def html_tag(body: str) -> str:
    found = re.search(r"<html [^>]*>", body)
    assert found
    return found.group(0)


def test_the_browser_language_chooses_the_page_language(client: FlaskClient) -> None:
    hebrew = client.get("/", headers={"Accept-Language": "he-IL,he;q=0.9,en;q=0.5"})
    body = hebrew.get_data(as_text=True)
    assert html_tag(body) == '<html lang="he" dir="rtl">'
    assert ">משחקים<" in body
    assert "Accept-Language" in hebrew.headers["Vary"]
    korean = client.get("/", headers={"Accept-Language": "ko-KR"}).get_data(as_text=True)
    assert html_tag(korean) == '<html lang="ko" dir="ltr">' and ">게임<" in korean
    nothing_known = client.get("/", headers={"Accept-Language": "fr-FR"}).get_data(as_text=True)
    assert html_tag(nothing_known) == '<html lang="en" dir="ltr">' and ">Games<" in nothing_known


def test_the_switcher_is_remembered(client: FlaskClient) -> None:
    answer = client.get("/?lang=ru", headers={"Accept-Language": "de"})
    assert "Аналитика" in answer.get_data(as_text=True) or "Игры" in answer.get_data(as_text=True)
    assert "lang=ru" in answer.headers["Set-Cookie"]
    later = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert html_tag(later) == '<html lang="ru" dir="ltr">'
    # a language we do not have is ignored, not an error
    assert client.get("/?lang=xx").status_code == 200


def test_the_switcher_offers_every_language_at_this_address(client: FlaskClient) -> None:
    body = client.get("/?player=omer", headers={"Accept-Language": "en"}).get_data(as_text=True)
    links = re.findall(r'<a href="([^"]+)" lang="(\w+)"', body)
    assert [code for _, code in links] == list(LANGUAGES)
    assert ("/?player=omer&amp;lang=he", "he") in links
    # a repeated parameter (compare's rule sets) is kept whole
    body = client.get("/?rules=classic&rules=namu").get_data(as_text=True)
    assert '<a href="/?rules=classic&amp;rules=namu&amp;lang=ko" lang="ko"' in body


def test_scripts_get_their_strings_in_the_page_language(client: FlaskClient) -> None:
    body = client.get("/?lang=de").get_data(as_text=True)
    found = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', body)
    assert found
    messages = orjson.loads(found.group(1))
    assert messages["no cards"] == "keine Karten"
    assert "Games" not in messages  # only the strings the scripts use travel as JSON
    english = client.get("/?lang=en").get_data(as_text=True)
    assert '<script type="application/json" id="i18n">{}</script>' in english


@pytest.mark.parametrize("code", OTHERS)
def test_every_string_is_translated(code: str) -> None:
    assert untranslated(code) == []


@pytest.mark.parametrize("code", OTHERS)
def test_translations_keep_their_placeholders(code: str) -> None:
    for message in read_catalogue(code):
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set(re.findall(r"%\(\w+\)[sd]", ids[0]))
        for text in strings:
            assert set(re.findall(r"%\(\w+\)[sd]", text)) == wanted, (code, message.id)


def test_the_catalogues_are_current() -> None:
    """Every marked string is in the catalogues (python -m yaniv_audit.web.catalogues update)."""
    assert catalogues(["check"]) == 0


def test_an_error_page_is_in_the_page_language_its_details_as_the_cli_says_them(
    client: FlaskClient,
) -> None:
    answer = client.get("/games/zzzz?lang=he")  # the fixture's server has no archive yet
    body = answer.get_data(as_text=True)
    assert answer.status_code == 404
    assert "<h1>אין ארכיון</h1>" in body and "שגיאה 404" in body
    # the details are the command line's words, marked as English text
    assert (
        '<p class="message" dir="ltr" lang="en">no archive: create one with yaniv-audit ingest'
    ) in body


def test_a_page_that_is_not_there_says_so_in_the_pages_language(client: FlaskClient) -> None:
    answer = client.get("/no/such/page?lang=he")
    body = answer.get_data(as_text=True)
    assert answer.status_code == 404 and "<h1>לא נמצא</h1>" in body
    assert '<p class="message">אין עמוד בכתובת /no/such/page:' in body
    english = client.get("/no/such/page?lang=en").get_data(as_text=True)
    assert (
        '<p class="message">There is no page at /no/such/page: the address may be '
        "mistyped" in english
    )
    api = client.get("/api/v1/no/such").get_json()  # programs keep the API's message
    assert api["error"]["message"].startswith("nothing at /api/v1/no/such")
