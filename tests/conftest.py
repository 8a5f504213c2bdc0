from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"


@pytest.fixture
def replays_dir() -> Path:
    return REPLAYS
