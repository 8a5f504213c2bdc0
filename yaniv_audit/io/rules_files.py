"""Rules files and the house rules found by default: the reading half of rule sets.

The core's :mod:`~yaniv_audit.core.rules` makes rule sets from ids and values and
reads nothing; here a ``--rules`` argument may also be a TOML or JSON file, and
the house rules come from ``$YANIV_AUDIT_RULES`` or the nearest ``yaniv-rules.toml``
(docs/rules.md, house-rules files).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path

from ..core.errors import RulesError
from ..core.rules import RuleSet, names_a_preset, parse_rules, rules_from_mapping

__all__ = [
    "HOUSE_FILE",
    "HOUSE_VARIABLE",
    "house_file",
    "house_rules_spec",
    "load_rules_file",
    "resolve_rules",
]


def load_rules_file(path: str | Path) -> RuleSet:
    """A house-rules file: TOML or JSON with a ``base`` preset and overrides; every
    problem in it listed, each named by the file as given (``./classic``)."""
    name, path = str(path), Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise RulesError(f"{name}: cannot read the rules file ({exc.strerror})") from exc
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(raw.decode("utf-8-sig"))
        else:
            data = tomllib.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
        raise RulesError(f"{name}: read as a rules file, and not valid {kind}: {exc}") from None
    try:
        return rules_from_mapping(data)
    except RulesError as exc:
        raise RulesError.of(exc.problems, f"{name}: ") from None


def resolve_rules(spec: str) -> RuleSet:
    """``--rules``: a rule-set id, or a path to a TOML/JSON rules file. A preset's name is
    the preset even when a file of that name is in the current directory (``./classic``
    is the file): what ``--rules classic`` means must not depend on where it is run."""
    if names_a_preset(spec):
        return parse_rules(spec)
    if spec.lower().endswith((".toml", ".json")) or ("(" not in spec and Path(spec).is_file()):
        return load_rules_file(spec)
    try:
        return parse_rules(spec)
    except RulesError as exc:
        if "(" in spec or len(exc.problems) > 1:
            raise
        raise RulesError(f"{exc}; nor is there a rules file {spec} here") from None


#: the house-rules file looked for from the current directory up to the project's root,
#: and the variable that names a rule set (an id or a file) instead; set empty, it turns
#: the default off
HOUSE_FILE, HOUSE_VARIABLE = "yaniv-rules.toml", "YANIV_AUDIT_RULES"


def house_file(directory: str | Path = ".", home: str | Path | None = None) -> Path | None:
    """The ``yaniv-rules.toml`` nearest ``directory``: there, else in each parent, as ruff
    and pytest look for their settings. The search stops after a directory holding
    ``.git`` (the project's root), the home directory (``home``, default ``~``) or the
    file system's root, whichever comes first; the path found is absolute."""
    start = Path(directory).resolve()
    stop = Path(home if home is not None else Path.home()).resolve()
    for folder in (start, *start.parents):
        found = folder / HOUSE_FILE
        if found.is_file():
            return found
        if (folder / ".git").exists() or folder == stop:
            return None
    return None


def house_rules_spec(
    environ: Mapping[str, str] | None = None,
    directory: str | Path = ".",
    home: str | Path | None = None,
) -> tuple[str, str] | None:
    """The house rules found by default, as (the ``--rules`` text, where it was found):
    ``$YANIV_AUDIT_RULES`` if set (empty: none), else the :func:`house_file` nearest
    ``directory`` (where: its absolute path), else None."""
    env = os.environ if environ is None else environ
    if HOUSE_VARIABLE in env:
        spec = env[HOUSE_VARIABLE].strip()
        return (spec, f"${HOUSE_VARIABLE}") if spec else None
    found = house_file(directory, home)
    return (str(found), str(found)) if found is not None else None
