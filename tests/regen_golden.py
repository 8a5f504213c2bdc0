"""Regenerate tests/golden/*.json from the current engine (review the diff!)."""

from __future__ import annotations

import json
from pathlib import Path

from yaniv_audit.batch.bulk import audit_file

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    for log in sorted((ROOT / "replays").glob("*.jsonl")):
        report = audit_file(str(log))
        report.pop("engine")
        report.pop("file")
        target = ROOT / "tests" / "golden" / f"{log.stem}.json"
        target.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        print(f"{log.name}: {report['verdict']}")
