"""The pages' languages: English, Hebrew (right to left), Russian, German and Korean.

The languages and the catalogues are the language layer's (:mod:`yaniv_audit.lang`,
which has no Flask in it); this module gives a request its language. Every page is
written in English and translated through the gettext catalogues (Babel), one per
language: ``yaniv_audit/lang/translations/<lang>/LC_MESSAGES/messages.po``.
The ``.po`` files are the only copy (no compiled ``.mo`` in the repository): they are
read when the app starts.

Which language a request gets: ``?lang=xx`` (remembered in a cookie), else the
``lang`` cookie, else the browser's ``Accept-Language``, else English. The JSON API
and the reports stay English and stable; the API adds each finding's ``text`` in the
language ``Accept-Language`` asks for (``api.with_texts``).

How to mark a string:

- in a template: ``{{ _("Findings") }}``, with values ``{{ _("event %(n)s", n=i) }}``,
  plurals ``{{ ngettext("%(num)d game", "%(num)d games", total) }}`` (Jinja's i18n
  extension, new style: the values are filled in after translation);
- in Python (a message a page shows): ``from .i18n import gettext as _``; a string
  defined at import time and translated later: ``N_("Rules")``, then ``gettext(label)``;
- in JavaScript: ``t("next finding")`` or ``t("event %(n)s of %(total)s", {n: 3, total: 9})``
  (``static/i18n.js``). The page carries the translations of every string the
  static ``.js`` files mark, as JSON (``<script type="application/json" id="i18n">``:
  data, not code, so the Content-Security-Policy allows it).

How to add or change strings: mark them, then run

    python -m yaniv_audit.lang.catalogues update

which extracts every marked string (templates, Python, JavaScript) and merges it into
the four catalogues, keeping the translations already there. Then fill in each new
``msgstr`` (an empty one shows English, and tests/web/test_i18n.py fails until every
string is translated in every language and the catalogues are current). The game's
own words are translated as the tables say them: Yaniv (יניב, Янив, 야니브), Assaf
(אסף, Асаф, 아사프).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any
from urllib.parse import quote, urlencode

from flask import Flask, g, request
from markupsafe import Markup, escape

from ..lang import (
    CATALOGUES,
    DEFAULT,
    DOMAIN,
    LANGUAGES,
    N_,
    Language,
    catalogue_of,
    po_path,
    read_catalogue,
    render,
)

__all__ = [
    "CATALOGUES",
    "DEFAULT",
    "DOMAIN",
    "LANGUAGES",
    "N_",
    "Language",
    "catalogue_of",
    "po_path",
    "read_catalogue",
]

COOKIE = "lang"


@cache
def js_catalogue(code: str) -> dict[str, str]:
    """The translations of the strings marked in the static JavaScript files."""
    if code == DEFAULT:
        return {}
    return {
        str(m.id): str(m.string)
        for m in read_catalogue(code)
        if m.id
        and m.string
        and not m.fuzzy
        and isinstance(m.id, str)
        and any(path.endswith(".js") for path, _ in m.locations)
    }


def current() -> Language:
    """The language of this request."""
    lang: Language | None = g.get("language")
    if lang is None:
        lang = LANGUAGES[choose()]
        g.language = lang
    return lang


def choose() -> str:
    asked = request.args.get("lang") or request.cookies.get(COOKIE)
    if asked in LANGUAGES:
        return asked
    return request.accept_languages.best_match(list(LANGUAGES), default=DEFAULT) or DEFAULT


def gettext(message: str, **values: Any) -> str:
    text = catalogue_of(current().code).ugettext(message)
    return text % values if values else text


def ngettext(singular: str, plural: str, num: int, **values: Any) -> str:
    text = catalogue_of(current().code).ungettext(singular, plural, num)
    return text % {"num": num, **values}


def switcher_links() -> list[tuple[Language, str]]:
    """Each language and the address of this page in it (a form's answer: the front page).
    Every other parameter is kept, a repeated one (compare's ``rules``) included."""
    if request.method == "GET":
        base = request.path
        kept = [(k, v) for k, v in request.args.items(multi=True) if k != "lang"]
    else:
        base, kept = "/", []
    return [
        (lang, f"{base}?{urlencode([*kept, ('lang', lang.code)], quote_via=quote)}")
        for lang in LANGUAGES.values()
    ]


def init_app(app: Flask) -> None:
    """Jinja's ``_``/``gettext``/``ngettext`` in this request's language, and the cookie."""
    app.jinja_env.add_extension("jinja2.ext.i18n")
    # new style: Jinja fills the values in after translation, escaping each (a Markup
    # value such as bdi(name) stays as it is)
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda s: catalogue_of(current().code).ugettext(s),
        lambda s, p, n: catalogue_of(current().code).ungettext(s, p, n),
        newstyle=True,
    )

    @app.context_processor
    def language() -> dict[str, Any]:
        lang = current()
        return {
            "language": lang,
            "languages": switcher_links,
            "site_pages": site_pages,
            "js_messages": lambda: js_catalogue(lang.code),
            "bdi": bdi,
            "isolated": isolated,
            "finding_text": finding_text,
        }

    @app.after_request
    def remember(response: Any) -> Any:
        asked = request.args.get("lang")
        if asked in LANGUAGES and request.cookies.get(COOKIE) != asked:
            response.set_cookie(COOKIE, asked, max_age=365 * 24 * 3600, samesite="Lax")
        response.vary.add("Accept-Language")  # the pages, and the API's findings' text
        if not request.path.startswith("/api/"):
            response.vary.add("Cookie")
        return response


#: the pages in the header, by endpoint (a page this build does not have is left out)
SITE_PAGES = [
    ("viewer.index", N_("Games")),
    ("viewer.record", N_("Record")),
    ("viewer.rules_page", N_("Rules")),
    ("viewer.analytics", N_("Analytics")),
]


#: the titles of the error pages (ApiError's, and the HTTP errors a visitor meets), so
#: that the catalogues hold them; error.html translates the title it is given
ERROR_TITLES = (
    N_("Internal error"),
    N_("No archive"),
    N_("No log"),
    N_("No such game"),
    N_("No such report"),
    N_("No such seat"),
    N_("Not allowed"),
    N_("Not audited"),
    N_("The archive cannot be read now"),
    N_("Too large"),
    N_("Too many events"),
    N_("Unknown rules"),
    N_("Unreadable log"),
    N_("Ambiguous"),
    N_("Bad parameter"),
    N_("Bad rules"),
    N_("Forbidden"),
    N_("Unauthorized"),
    N_("Not Found"),
    N_("Method Not Allowed"),
    N_("Bad Request"),
)


def site_pages() -> list[tuple[str, str]]:
    from flask import current_app

    return [
        (endpoint, gettext(label))
        for endpoint, label in SITE_PAGES
        if endpoint in current_app.view_functions
    ]


def finding_text(finding: Mapping[str, Any], code: str | None = None) -> str:
    """A finding's message in this request's language (or ``code``'s), cards as the board
    draws them (8♥): its code's template filled from its ``params`` (the reports keep
    the English ``message``; a finding stored without ``params`` shows that)."""
    params = finding.get("params")
    if params is None:
        return str(finding["message"])
    lang = code or current().code
    return render(str(finding["code"]), params, catalogue_of(lang).ugettext, suits=True)


def bdi(text: object) -> Markup:
    """A name in any script, isolated so a mixed-direction line reads right."""
    return Markup("<bdi>%s</bdi>") % (text,)


def names_joined(players: Iterable[str], names: Mapping[str, str] | None = None) -> Markup:
    """Players by their names, each isolated, the list isolated as one."""
    names = names or {}
    return bdi(Markup(", ").join(bdi(names.get(p, p)) for p in players))


def isolated(text: object) -> str:
    """A name isolated by characters (FSI ... PDI), where no element can go: a
    ``<title>``, an ``<option>``, an attribute. A U+202E in it then reverses only it."""
    return f"\u2068{text}\u2069"


def names_isolated(players: Iterable[str], names: Mapping[str, str] | None = None) -> str:
    """Players by their names for a ``<title>`` or ``<option>``: each isolated, and the
    list as one."""
    names = names or {}
    return isolated(", ".join(isolated(names.get(p, p)) for p in players))


#: the params of a finding that name players (their values, or a scores object's keys)
PLAYER_PARAMS = frozenset(
    {
        "player",
        "caller",
        "named",
        "winners",
        "scores",
        "allowed",
        "last_starter",
        "expected",
        "players",
    }
)


class NameMarks:
    """Players marked in a text made for a page (a move, a finding's message), so that
    each can be isolated after the text is escaped: ``<bdi>`` in HTML, a seat number for
    the board's script. A mark holds a number drawn for the page, so that no text a log
    writes can pass for one."""

    def __init__(self, players: Sequence[str], names: Mapping[str, str]) -> None:
        self.players, self.names = list(players), names
        self.seats = {p: i for i, p in enumerate(self.players)}
        self.nonce = secrets.token_hex(6)
        self.pattern = re.compile(f"\ue000{self.nonce}([0-9]+)\ue001")

    def mark(self, player: str) -> str:
        seat = self.seats.get(player)
        return player if seat is None else f"\ue000{self.nonce}{seat}\ue001"

    def html(self, text: str) -> Markup:
        """``text`` escaped, each marked player's name in a ``<bdi>``."""
        return Markup(
            self.pattern.sub(lambda m: str(bdi(self.name(int(m.group(1))))), str(escape(text)))
        )

    def parts(self, text: str) -> list[str | int]:
        """``text`` as pieces for a script: strings, and seats (an index into
        ``game.players``) where a player is named."""
        pieces = self.pattern.split(text)
        return [int(piece) if i % 2 else piece for i, piece in enumerate(pieces) if i % 2 or piece]

    def name(self, seat: int) -> str:
        player = self.players[seat]
        return self.names.get(player, player)

    def finding(self, finding: Mapping[str, Any]) -> str:
        """A finding's message in the page's language, its players marked."""
        params = finding.get("params")
        if params is None:
            return finding_text(finding)
        return finding_text(
            {
                **finding,
                "params": {
                    key: self._marked(value) if key in PLAYER_PARAMS else self._inside(value)
                    for key, value in params.items()
                },
            }
        )

    def _marked(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.mark(value)
        if isinstance(value, list):
            return [self._marked(v) for v in value]
        if isinstance(value, dict):  # scores: {player: score}
            return {self.mark(k) if isinstance(k, str) else k: v for k, v in value.items()}
        return value

    def _inside(self, value: Any) -> Any:
        """A phrase within the params: its own players marked too."""
        if isinstance(value, dict) and "phrase" in value:
            return {
                key: self._marked(v) if key in PLAYER_PARAMS else self._inside(v)
                for key, v in value.items()
            }
        return value
