"""Keeping the catalogues current: ``python -m yaniv_audit.lang.catalogues update|check``
(``yaniv_audit.web.catalogues``, its old name, does the same).

``update`` extracts every string marked for translation (the pages' templates, Python
of the web, the command line and the core's sentences, the static JavaScript; see
:mod:`yaniv_audit.lang` and :mod:`yaniv_audit.web.i18n`) and merges it into each language's ``.po``
file, keeping the translations there; ``check`` exits 1 when a catalogue is not current;
``fill FILE.json`` writes translations given as ``{"English": {"he": ..., "ru": ...,
"de": ..., "ko": ...}}`` into the catalogues (then updates them); a plural entry is
named by its singular, its forms given as a list (``"{n} game": {"ru": ["{n} игра",
"{n} игры", "{n} игр"], ...}``), as many as the language's ``Plural-Forms`` has.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir, extract_from_file
from babel.messages.pofile import write_po

from . import DEFAULT, DOMAIN, LANGUAGES, po_path, read_catalogue

#: the package
PACKAGE = Path(__file__).resolve().parent.parent
#: the web app: its templates, Python and static JavaScript
WEB = PACKAGE / "web"

#: files whose marked strings are extracted, and how
METHODS = [
    ("**/templates/**.html", "jinja2.ext:babel_extract"),
    ("**.py", "python"),
    ("**/static/**.js", "javascript"),
]
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "t": None, "N_": None, "NP_": (1, 2)}
#: modules outside web/ whose marked strings are extracted too: the core's templates
#: (findings, and every sentence of a ruling: the command line's words), this layer's
CORE = [
    PACKAGE / "core" / "messages.py",
    PACKAGE / "core" / "sentences.py",
    PACKAGE / "lang" / "__init__.py",
    PACKAGE / "io" / "diagnose.py",
]
OPTIONS = {"**/templates/**.html": {"extensions": "jinja2.ext.i18n", "newstyle_gettext": "true"}}


def extract() -> Catalog:
    """Every marked string of the package, with where it is marked."""
    template = Catalog(domain=DOMAIN, project="yaniv-audit", charset="utf-8")
    root = PACKAGE.parent
    for filename, lineno, message, comments, context in extract_from_dir(
        str(WEB),
        METHODS,
        OPTIONS,
        KEYWORDS,
        comment_tags=("TRANSLATORS:",),
        strip_comment_tags=True,
    ):
        path = (WEB / filename).relative_to(root).as_posix()
        template.add(
            message,
            None,
            [(path, lineno)],
            auto_comments=comments,
            context=context,
            flags=("python-format",) if _formats(message) else (),
        )
    # the core's templates, the command line's words
    for source in CORE:
        for lineno, message, comments, context in extract_from_file(
            "python", str(source), KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
        ):
            template.add(
                message,
                None,
                [(source.relative_to(root).as_posix(), lineno)],
                auto_comments=comments,
                context=context,
            )
    return template


def _formats(message: str | tuple[str, ...]) -> bool:
    texts = (message,) if isinstance(message, str) else message
    return any(re.search(r"%\(\w+\)[sd]", t) for t in texts)


def updated(code: str, template: Catalog) -> str:
    """The catalogue of ``code`` merged with ``template``, as .po text."""
    path = po_path(code)
    if path.exists():
        catalogue = read_catalogue(code)
    else:
        catalogue = Catalog(
            locale=code, domain=DOMAIN, project="yaniv-audit", charset="utf-8", fuzzy=False
        )
    catalogue.update(template, no_fuzzy_matching=True)
    catalogue.obsolete.clear()
    catalogue.revision_date = catalogue.creation_date  # no churn in the header
    buffer = io.BytesIO()
    write_po(
        buffer,
        catalogue,
        width=0,
        omit_header=False,
        sort_output=True,
        include_previous=False,
        include_lineno=False,
    )
    return _stable_header(buffer.getvalue().decode("utf-8"))


def _stable_header(text: str) -> str:
    # the dates Babel writes change on every run: the catalogue's header stays as first written
    return re.sub(r'"(POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', "", text)


def untranslated(code: str) -> list[str]:
    return [
        str(m.id)
        for m in read_catalogue(code)
        if m.id and (m.fuzzy or not (all(m.string) if isinstance(m.string, tuple) else m.string))
    ]


def fill(path: str) -> None:
    """Translations from a JSON file ``{"English": {"he": "...", "ru": "...", ...}}`` into
    the catalogues, where a string has none yet (or is in the file again: replaced)."""
    import json

    wanted: dict[str, dict[str, str | list[str]]] = json.loads(
        Path(path).read_text(encoding="utf-8")
    )
    for code in LANGUAGES:
        if code == DEFAULT or not po_path(code).exists():
            continue
        catalogue = read_catalogue(code)
        for message in catalogue:
            # a plural entry (msgid_plural) by its singular, its forms as a list
            key = message.id[0] if isinstance(message.id, tuple) else message.id
            text = wanted.get(str(key), {}).get(code) if key else None
            if text:
                message.string = tuple(text) if isinstance(text, list) else text
                message.flags.discard("fuzzy")
        buffer = io.BytesIO()
        write_po(
            buffer,
            catalogue,
            width=0,
            sort_output=True,
            include_previous=False,
            include_lineno=False,
        )
        po_path(code).write_text(
            _stable_header(buffer.getvalue().decode("utf-8")), encoding="utf-8"
        )


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    if len(args) == 2 and args[0] == "fill":
        fill(args[1])
        args = ["update"]
    if args not in (["update"], ["check"]):
        print(
            "usage: python -m yaniv_audit.lang.catalogues update|check|fill FILE.json",
            file=sys.stderr,
        )
        return 2
    template = extract()
    stale = []
    for code in LANGUAGES:
        if code == DEFAULT:
            continue
        text = updated(code, template)
        path = po_path(code)
        if args == ["update"]:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            missing = untranslated(code)
            print(
                f"{path.relative_to(PACKAGE.parent)}: {len(template)} strings, "
                f"{len(missing)} to translate"
            )
        elif not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(code)
    if stale:
        print(
            f"catalogues not current: {', '.join(stale)} (run python -m "
            "yaniv_audit.lang.catalogues update)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
