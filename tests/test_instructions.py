"""The audit's cost gate: instructions an event, counted by callgrind on checked-in logs and
compared with the figure stored in bench/instructions-baseline.json. A change that makes an
event cost more than 5 % more fails here, saying by how much; a wanted cost is stored with
``.venv/bin/python bench/instructions.py --update`` (docs/development.md).

A count, not a time: the same on a loaded host (the suite's other workers) as on a quiet
one, and the same from run to run (PYTHONHASHSEED=0)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# one worker runs it: a process under callgrind, about 15 seconds
pytestmark = pytest.mark.xdist_group("instructions")


def test_an_event_of_the_audit_costs_no_more_than_the_stored_figure() -> None:
    assert shutil.which("valgrind"), (
        "the cost gate counts instructions with valgrind's callgrind: install valgrind "
        "(apt-get install valgrind)"
    )
    stored = json.loads((ROOT / "bench" / "instructions-baseline.json").read_text())
    assert stored["instructions_per_event"] > 0 and stored["tolerance"] == 0.05
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "instructions.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr or done.stdout
    assert "instructions an event" in done.stdout
