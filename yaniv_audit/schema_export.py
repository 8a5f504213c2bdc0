"""JSON Schema (draft 2020-12) of the files the project reads and writes, generated
from the marshmallow schemas so that the two cannot drift apart.

``python -m yaniv_audit.schema_export`` rewrites ``schemas/``; with ``--check`` it
writes nothing and exits 1 if a checked-in file is stale (CI runs that).

The converter from marshmallow is :mod:`yaniv_audit.io.json_schema`. Checks JSON Schema
cannot state (a rule set's combinations, nesting depth, ``seq`` equal to the position)
stay in the code.
To publish another document, add a builder to :data:`DOCUMENTS`. The web API's
OpenAPI 3.1 document (``openapi.json``) is generated the same way, by apispec
from the API's marshmallow schemas (:mod:`yaniv_audit.web.openapi`).

This module is a program, a shell beside ``cli/`` and ``web/`` (docs/design.md): it
gathers the documents of the reading and writing layer and the web app's, and nothing of
the package imports it (tests/test_layout.py holds both).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from .core.events import FORMAT
from .io.json_schema import JsonSchema, tagged_union
from .io.log_schema import SCHEMAS
from .io.report_schema import compare_document, report_document, type_mismatches

SCHEMAS_DIR = Path(__file__).resolve().parent.parent / "schemas"


def log_event_schema() -> JsonSchema:
    doc = tagged_union(f"An event of a {FORMAT} log (one line of a .jsonl file)", SCHEMAS)
    doc["description"] = (
        "Generated from yaniv_audit/io/log_schema.py by `python -m yaniv_audit.schema_export`; "
        "do not edit. See docs/log-format.md. Not stated here: seq equal to the "
        "event's position, rule-set combinations, nesting depth (64), and the structural "
        "checks of yaniv_audit/core/structure.py."
    )
    return doc


def report_schema() -> JsonSchema:
    return report_document()


def compare_schema() -> JsonSchema:
    return compare_document()


def fit_schema() -> JsonSchema:
    from .io.fit_schema import fit_document

    return fit_document()


def openapi_document() -> JsonSchema:
    from .web.openapi import openapi  # heavy (Flask, apispec): only for this document

    return openapi()


#: file name in schemas/ -> the builder of its content
DOCUMENTS: dict[str, Callable[[], JsonSchema]] = {
    "log-event.schema.json": log_event_schema,
    "report.schema.json": report_schema,
    "compare.schema.json": compare_schema,
    "fit.schema.json": fit_schema,
    "openapi.json": openapi_document,
}


def render(document: JsonSchema) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def stale_files(directory: Path = SCHEMAS_DIR) -> list[str]:
    """The documents whose file in ``directory`` is missing or differs from the code."""
    stale = []
    for name, build in DOCUMENTS.items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != render(build()):
            stale.append(name)
    return stale


def write_all(directory: Path = SCHEMAS_DIR) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    for name, build in DOCUMENTS.items():
        (directory / name).write_text(render(build()), encoding="utf-8")
    return list(DOCUMENTS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m yaniv_audit.schema_export",
        description="Generate the JSON Schemas in schemas/ from the marshmallow schemas.",
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a checked-in file is stale"
    )
    parser.add_argument(
        "--dir", type=Path, default=SCHEMAS_DIR, help="the schemas directory (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    # the schemas describe the report's type (core/report.py): never one that disagrees
    for problem in type_mismatches():
        print(f"report_schema.py disagrees with core/report.py: {problem}", file=sys.stderr)
    if type_mismatches():
        return 1
    if args.check:
        stale = stale_files(args.dir)
        for name in stale:
            print(
                f"{args.dir / name} is stale: run python -m yaniv_audit.schema_export",
                file=sys.stderr,
            )
        return 1 if stale else 0
    for name in write_all(args.dir):
        print(f"wrote {args.dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
