"""yaniv-audit: replay, check and score Yaniv game logs under any house rules."""

from __future__ import annotations

__version__ = "0.1.0"
ENGINE = f"yaniv-audit {__version__}"
