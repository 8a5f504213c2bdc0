"""``--json`` before and after a change: every log of replays/ and tests/cases audited
(``audit --json``) and compared (``compare --json``, the declared rules against every
preset, and israeli/classic/namu), written as one JSON line per run; with ``--diff
BEFORE AFTER`` the differences, each a path and whether it is a new field (allowed) or
a changed value.

    python bench/json_fields.py > before.jsonl          # on the old commit
    python bench/json_fields.py > after.jsonl           # on the new one
    python bench/json_fields.py --diff before.jsonl after.jsonl
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
RUNS: list[list[str]] = [
    ["audit", "--json"],
    ["compare", "--json"],
    ["compare", "--json", "--rules", "israeli", "--rules", "classic", "--rules", "namu"],
]


def logs() -> list[Path]:
    found = [*ROOT.glob("replays/**/*.jsonl"), *ROOT.glob("tests/cases/**/*.jsonl")]
    return sorted(found)


def record() -> None:
    from yaniv_audit.cli import cli

    runner = CliRunner()
    for path in logs():
        for args in RUNS:
            result = runner.invoke(cli, [*args, str(path)])
            line = {"file": str(path.relative_to(ROOT)), "args": args, "out": result.output}
            sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")


def differences(a: Any, b: Any, path: str, out: list[tuple[str, str]]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k not in b:
                out.append(("removed", f"{path}.{k}"))
            else:
                differences(a[k], b[k], f"{path}.{k}", out)
        out.extend(("new field", f"{path}.{k}") for k in b if k not in a)
        if list(a) != [k for k in b if k in a]:
            out.append(("key order", path))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            differences(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(("changed", path))


def diff(before: str, after: str) -> int:
    old = [json.loads(x) for x in Path(before).read_text().splitlines()]
    new = [json.loads(x) for x in Path(after).read_text().splitlines()]
    kinds: Counter[str] = Counter()
    shown: Counter[str] = Counter()
    identical = 0
    for x, y in zip(old, new, strict=True):
        if x["out"] == y["out"]:
            identical += 1
            continue
        found: list[tuple[str, str]] = []
        for i, (lx, ly) in enumerate(
            zip(x["out"].splitlines(), y["out"].splitlines(), strict=True)
        ):
            differences(json.loads(lx), json.loads(ly), f"[{i}]", found)
        for kind, where in found:
            kinds[kind] += 1
            generic = "".join(c if not c.isdigit() else "#" for c in where)
            if shown[(kind, generic)] < 1:
                print(f"{kind:10} {x['file']} {' '.join(x['args'][:2])} {where}")
            shown[(kind, generic)] += 1
    print(f"{len(old)} runs: {identical} byte-identical; differences: {dict(kinds)}")
    return 1 if set(kinds) - {"new field"} else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--diff"]:
        sys.exit(diff(sys.argv[2], sys.argv[3]))
    record()
