"""House style, checked like any other test: ruff clean, ruff-formatted, mypy --strict clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, check=False
    )


def test_ruff_is_clean() -> None:
    result = run("ruff", "check", "yaniv_audit", "tests", "bench", "wsgi.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_file_is_as_ruff_format_writes_it() -> None:
    result = run("ruff", "format", "--check", "yaniv_audit", "tests", "bench", "wsgi.py")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_is_clean_on_the_package() -> None:
    result = run("mypy")
    assert result.returncode == 0, result.stdout + result.stderr
