"""The exception tree. Rule violations are not exceptions: they are findings."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable


class YanivAuditError(Exception):
    """Root of every error this package raises on purpose."""


class CardError(YanivAuditError, ValueError):
    """A text that is not a card."""


class RulesError(YanivAuditError, ValueError):
    """A rule-set id, file or parameter that cannot be used: every problem found in it
    (``problems``), so that a rules file, like a log, is fixed in one go."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.problems = problems or [message]
        super().__init__(message)

    @classmethod
    def of(cls, problems: list[str], prefix: str = "") -> RulesError:
        """One error for ``problems``: the one, or how many and each on its own line;
        ``prefix`` (a file's name) before the first line and each problem."""
        if len(problems) == 1:
            return cls(prefix + problems[0], [prefix + problems[0]])
        listed = "".join(f"\n  {p}" for p in problems)
        return cls(f"{prefix}{len(problems)} problems:{listed}", [prefix + p for p in problems])


def where(line: int | None, index: int | None) -> str:
    """Where in a log something is: its file line (a ``.jsonl`` log), else its event
    index (a ``.json`` log), else the log as a whole."""
    if line is not None:
        return f"line {line}"
    if index is not None:
        return f"event {index}"
    return "log"


class LogFormatError(YanivAuditError):
    """A log that cannot be read: the 'unreadable' class of docs/log-format.md ("Three
    kinds of trouble").

    ``line`` is the 1-based line of a ``.jsonl`` file, ``index`` the 0-based
    event index (always set when known); ``messages`` maps a field path to
    what was wrong with it.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        index: int | None = None,
        messages: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.index = index
        self.messages = messages or {}

    def where(self) -> str:
        return where(self.line, self.index)

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"


class ArchiveError(YanivAuditError):
    """An archive that cannot be opened or used, or a query it refuses."""


class QueryError(ArchiveError):
    """A user's SQL statement that failed: wrong SQL, refused, or out of time.

    The statement is at fault, not the archive (``yaniv-audit query`` exits 2).
    """


class QueryRefused(QueryError):
    """A user's SQL statement that would do more than read the archive's tables."""


class QueryTimeout(QueryError):
    """A user's SQL statement stopped because it ran past its time limit."""


class InconsistentLogError(YanivAuditError):
    """A log that is physically impossible under the rule set's deck.

    Carries the finding that says what was impossible; the replay stops there.
    """

    def __init__(self, finding: object) -> None:
        super().__init__(getattr(finding, "message", str(finding)))
        self.finding = finding


class InternalError(Exception):
    """A bug met while working on one log: carries the log's path and what went wrong.

    Deliberately not a :class:`YanivAuditError`: it is never the user's fault.
    """

    def __init__(self, source: str, detail: str) -> None:
        super().__init__(source, detail)
        self.source = source
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.source}: {self.detail}"


def close_match(word: object, choices: Iterable[str]) -> str | None:
    """The one choice ``word`` is a near miss of (a typo, another case), or None."""
    if not isinstance(word, str) or not word:
        return None
    options = [c for c in choices if c != word]
    folded = {c.casefold(): c for c in options}
    if word.casefold() in folded:
        return folded[word.casefold()]
    found = difflib.get_close_matches(word, options, n=1, cutoff=0.75)
    return found[0] if found else None


def did_you_mean(word: object, choices: Iterable[str]) -> str:
    """``'; did you mean "israeli"?'`` when ``word`` is a near miss of a choice, else ``''``."""
    match = close_match(word, choices)
    return "" if match is None else f"; did you mean {json.dumps(match, ensure_ascii=False)}?"
