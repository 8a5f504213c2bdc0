from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"


@pytest.fixture(autouse=True)
def no_house_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """No house rules found by default (a yaniv-rules.toml here, $YANIV_AUDIT_RULES) but
    those a test sets: the suite's results do not depend on where it is run."""
    monkeypatch.setenv("YANIV_AUDIT_RULES", "")


@pytest.fixture
def replays_dir() -> Path:
    return REPLAYS


@contextmanager
def held_open_by_another_process(db: Path) -> Iterator[None]:
    """While inside: another process has the DuckDB file ``db`` open for writing."""
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True);"
         " time.sleep(60)", str(db)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.kill()
        holder.wait()
