"""The language layer: every sentence a person reads, in English, Hebrew, Russian,
German and Korean, for every shell (the command line, the pages, the browser).

- the languages (:data:`LANGUAGES`, :data:`DEFAULT`) and how the command line picks
  one (``--lang``, else ``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` as gettext
  programs do: :func:`from_environment`);
- the catalogues: ``yaniv_audit/lang/translations/<lang>/LC_MESSAGES/messages.po``, keyed
  by the English text, read with Babel when a language other than English is first
  asked for (:func:`catalogue_of`); ``python -m yaniv_audit.lang.catalogues update``
  (or its old name ``yaniv_audit.web.catalogues``) keeps them current;
- the marker :func:`N_` and the renderer :func:`render` (both the core's, which writes
  every sentence as data: a template's key and its params); :class:`Words` says them
  in one language.

Nothing here imports Flask or DuckDB: ``audit --lang he`` starts without them.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.messages import N_, PLURALS, Plural, Translate, render
from ..core.sentences import SENTENCES, kind_word, verdict_word

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog
    from babel.support import Translations

__all__ = [
    "CATALOGUES",
    "CODES",
    "DEFAULT",
    "DOMAIN",
    "LANGUAGES",
    "N_",
    "SENTENCES",
    "Language",
    "Words",
    "catalogue_of",
    "from_environment",
    "gettext_of",
    "kind_word",
    "ngettext_of",
    "po_path",
    "read_catalogue",
    "render",
    "verdict_word",
]

HERE = Path(__file__).resolve().parent
CATALOGUES = HERE / "translations"
DOMAIN = "messages"


@dataclass(frozen=True)
class Language:
    code: str
    name: str  # in the language itself, for the switcher
    rtl: bool = False

    @property
    def dir(self) -> str:
        return "rtl" if self.rtl else "ltr"


#: every language a person can read the rulings and the pages in
LANGUAGES = {
    lang.code: lang
    for lang in (
        Language("en", "English"),
        Language("he", "עברית", rtl=True),
        Language("ru", "Русский"),
        Language("de", "Deutsch"),
        Language("ko", "한국어"),
    )
}
CODES = tuple(LANGUAGES)
DEFAULT = "en"


def po_path(code: str) -> Path:
    return CATALOGUES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def read_catalogue(code: str) -> Catalog:
    from babel.messages.pofile import read_po

    with po_path(code).open("rb") as handle:
        return read_po(handle, locale=code, domain=DOMAIN)


@cache
def catalogue_of(code: str) -> Translations:
    """The compiled catalogue of one language (English: the strings as written)."""
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    if code == DEFAULT:
        return Translations()
    buffer = io.BytesIO()
    write_mo(buffer, read_catalogue(code))
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def gettext_of(code: str) -> Translate | None:
    """The catalogue's gettext of ``code``; None for English (the templates' own words,
    no catalogue read)."""
    return None if code == DEFAULT else catalogue_of(code).ugettext


def ngettext_of(code: str) -> Plural | None:
    """The catalogue's ngettext of ``code`` (its forms of a plural entry, by its rule);
    None for English."""
    return None if code == DEFAULT else catalogue_of(code).ungettext


def from_environment(environ: Mapping[str, str]) -> str:
    """The language a gettext program would speak: the first of ``LANGUAGE`` (a list,
    ``he:en``), ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is set (``he_IL.UTF-8``:
    Hebrew), if it is one of ours; else English. ``C`` and ``POSIX`` are English."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if not value:
            continue
        for part in value.split(":") if name == "LANGUAGE" else [value]:
            code = part.split("_")[0].split(".")[0].split("@")[0].lower()
            if code in LANGUAGES:
                return code
        if name != "LANGUAGE":
            return DEFAULT
    return DEFAULT


class Words:
    """Sentences said in one language: ``say(key, **params)`` fills the template of
    ``key`` (a finding's code, a sentence's key) in that language; ``word`` translates
    one word or label. ``suits``: cards as the board draws them (8♥) rather than 8H.

    ``isolate`` (the pages): in a right-to-left language, a rule set's id (the ``rules``
    of a sentence, ``israeli(decks=2)``) is set apart as a left-to-right run (Unicode's
    first-strong isolate), as the names are: no neutral character around it (a
    parenthesis, a dash) can then reorder it."""

    def __init__(self, code: str = DEFAULT, *, suits: bool = False, isolate: bool = False) -> None:
        self.code = code if code in LANGUAGES else DEFAULT
        self.gettext = gettext_of(self.code)
        self.ngettext = ngettext_of(self.code)
        self.suits = suits
        self.isolate = isolate and LANGUAGES[self.code].rtl

    def say(self, key: str, **params: Any) -> str:
        return render(
            key, self._isolated(params), self.gettext, suits=self.suits, plural=self.ngettext
        )

    def phrase(self, value: Mapping[str, Any]) -> str:
        """A sentence kept as data (``{"phrase": key, ...params}``) in this language."""
        return render(
            str(value["phrase"]),
            self._isolated(value),
            self.gettext,
            suits=self.suits,
            plural=self.ngettext,
        )

    def _isolated(self, params: Mapping[str, Any]) -> Mapping[str, Any]:
        rules = params.get("rules")
        if not self.isolate or not isinstance(rules, str):
            return params
        return {**params, "rules": f"\u2068{rules}\u2069"}

    def finding(self, code: str, params: Mapping[str, Any]) -> str:
        return render(code, params, self.gettext, suits=self.suits, plural=self.ngettext)

    def count(self, key: str, n: int) -> str:
        """``n`` with its noun (``3 games``), as the plural entry ``key`` of the
        templates' ``PLURALS`` says it in this language."""
        one, many = PLURALS[key]
        forms = (one if n == 1 else many) if self.ngettext is None else self.ngettext(one, many, n)
        return forms.replace("{n}", str(n))

    def word(self, text: str) -> str:
        return text if self.gettext is None else self.gettext(text)
