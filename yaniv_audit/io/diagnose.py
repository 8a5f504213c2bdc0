"""Every problem of an unreadable log at once, each with a "did you mean" for near misses.

:func:`~yaniv_audit.io.codec.read_log` stops at a log's first problem: that is all the
audit needs. A person fixing a hand-written log needs them all, so once a log is
found unreadable :func:`diagnose` reads it again, patiently: every line through
the schemas (marshmallow writes the messages), every readable event through
the structural checks, going on past each problem, with a guess at what was meant
(a card spelling, a field name, an event type, a player, a choice). Nothing here is
on the fast path: it runs only for logs that cannot be read.

>>> found = diagnose_bytes(
...     b'{"type":"game_started","format":"yaniv-log/1","players":["dana","omer"],'
...     b'"rules":"classic"}\\n'
...     b'{"type":"round_startd","round":1,"starter":"dana"}\\n'
...     b'{"type":"note","text":"hi","player":"dnaa"}\\n')
>>> for problem in found.problems:
...     print(problem.text())
line 2: unknown event type "round_startd"; expected one of game_started, round_started, \
discard, draw, slap, yaniv, showdown, round_ended, reshuffle, game_ended, note, withdraw; did you \
mean "round_started"?
line 3: note: field "player": "dnaa" is not seated (the players are "dana", "omer"); did you \
mean "dana"?
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from ..core import structure
from ..core.cards import canonical, is_card_text
from ..core.errors import LogFormatError, close_match, where
from ..core.events import Event, GameStarted, RoundStarted
from ..core.messages import N_
from ..core.rules import PRESETS
from .codec import (
    _LONG_DIGITS,
    FORMAT,
    MAX_LINE_BYTES,
    STDIN,
    LongLineError,
    ReadWhole,
    _json_problem,
    _loads,
    array_parts,
    event_from_dict,
    read_capped,
    stdin_bytes,
)
from .log_schema import MISSING_FIELD, SCHEMAS, UNKNOWN_FIELD, quote, show

if TYPE_CHECKING:
    from ..lang import Words

#: the problems listed at most; the rest are counted
LIMIT = 50
#: the problems counted at most: past them the log is read no further (30 MB of ``[{},
#: {}, ...]`` has ten million, which took a minute to count one by one)
COUNT_MAX = 10_000


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a log cannot be read: where (``line`` of a .jsonl file, else the 0-based
    event ``index``), the ``field`` (a path such as ``hands.dana.2``) when there is one,
    the message (what was expected and what was found) and a near miss, if any."""

    line: int | None
    index: int | None
    field: str | None
    message: str
    hint: str | None = None
    #: the message's parts, where it is an event's (its type) and one field's (``field``
    #: and what is wrong with it, ``texts``; ``unknown``: a field the event has not),
    #: or the event's as a whole (no ``field``): what another language says them from
    kind: str | None = None
    texts: tuple[str, ...] = ()
    unknown: bool = False

    def where(self) -> str:
        return where(self.line, self.index)

    def text(self, words: Words | None = None) -> str:
        """The problem as a line says it: in English (the messages other programs read),
        or in ``words``' language (``validate --lang``)."""
        if words is not None and words.gettext is not None:
            return said_problem(self, words)
        hint = f"; did you mean {_q(self.hint)}?" if self.hint is not None else ""
        return f"{self.where()}: {self.message}{hint}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "line": self.line,
            "index": self.index,
            "field": self.field,
            "message": self.message,
        }
        if self.hint is not None:
            out["did_you_mean"] = self.hint
        return out


@dataclass(slots=True)
class Diagnosis:
    """The first :data:`LIMIT` problems of a log, in file order, and how many there are."""

    problems: list[Problem] = field(default_factory=list)
    total: int = 0
    limit: int = LIMIT
    #: the count stopped at COUNT_MAX: ``total`` is the least there are
    stopped: bool = False

    def add(self, problem: Problem) -> None:
        self.total += 1
        if len(self.problems) < self.limit:
            self.problems.append(problem)

    @property
    def more(self) -> int:
        """How many problems were counted but not listed."""
        return self.total - len(self.problems)


def diagnose(
    path: str | Path, error: LogFormatError | None = None, limit: int = LIMIT
) -> Diagnosis:
    """Every problem of the log at ``path``, which :func:`~yaniv_audit.io.codec.read_log` found
    unreadable with ``error``: its first problem, all there is when the file cannot be
    read at all or only the replay finds the log unreadable. Without ``error``, such a
    log gives no problems."""
    found = Diagnosis(limit=limit)
    data: bytes | None = None
    try:
        if isinstance(error, LongLineError):
            raise error
        if str(path) == STDIN:
            data = stdin_bytes()
            array = data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[")
        else:
            array = Path(path).suffix.lower() == ".json"
            if array:  # read as a stream, up to the count's end: not held whole
                streamed = _diagnose_array(Path(path), limit)
                if streamed is not None:
                    if not streamed.total and error is not None:
                        streamed.add(from_error(error))
                    return streamed
            with Path(path).open("rb") as stream:
                data = stream.read() if array else read_capped(stream)
    except LongLineError as long_line:
        # the file is read no further than that line: the lines before it, then it
        found = diagnose_bytes(long_line.before, limit=limit, complete=False)
        found.add(from_error(long_line))
        return found
    except OSError:
        data = None
    if data is not None:
        found = diagnose_bytes(data, array=array, limit=limit)
    if not found.total and error is not None:  # what only the replay or the file system sees
        found.add(from_error(error))
    return found


def from_error(error: LogFormatError, hint: str | None = None) -> Problem:
    fields = list(error.messages)
    return Problem(
        error.line, error.index, fields[0] if len(fields) == 1 else None, error.message, hint
    )


def _diagnose_array(path: Path, limit: int) -> Diagnosis | None:
    """:func:`diagnose_bytes` of a ``.json`` file read a part at a time
    (:func:`~yaniv_audit.io.codec.array_parts`), reading no further once the count stops;
    None when the file is to be read whole (not an array, invalid JSON)."""
    found = Diagnosis(limit=limit)

    def items(stream: BinaryIO) -> Iterator[tuple[Any, int | None, int]]:
        index = 0
        for text, parsed in array_parts(stream):
            if parsed is None or _LONG_DIGITS.search(text) is not None:
                parsed = _loads(text)  # exact long numbers; a JSON error: read whole
            for item in parsed:
                yield item, None, index
                index += 1

    try:
        with path.open("rb") as stream:
            return diagnose_bytes(b"", array=True, limit=limit, items=items(stream))
    except (ReadWhole, ValueError, RecursionError):  # orjson's JSONDecodeError is a ValueError
        return None
    except OSError:
        return found


def diagnose_bytes(
    data: bytes,
    *,
    array: bool = False,
    limit: int = LIMIT,
    complete: bool = True,
    items: Iterator[tuple[Any, int | None, int]] | None = None,
) -> Diagnosis:
    """Every problem of a log's bytes: a JSON array of events if ``array``, else JSON Lines
    (not ``complete``: the start of a log, whose end is not judged). ``items``: the
    events' parsed values, lines and indexes, read already (``data`` is then unused)."""
    found = Diagnosis(limit=limit)
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    if not array and data.lstrip(b" \t\r\n").startswith(b"["):
        found.add(Problem(1, 0, None, AN_ARRAY))
        return found
    if not array:
        lines = _not_json_lines(data)
        if lines:
            found.add(Problem(1, 0, None, not_a_log(lines)))
            return found
    check = _Checks(found)
    for raw, line, index in items if items is not None else _items(data, array, found):
        check.event(raw, line, index)
        if found.total >= COUNT_MAX:
            found.stopped = True
            return found  # the log's end is not judged either
    if check.shifted:
        found.add(
            Problem(
                None,
                None,
                "seq",
                (
                    f"and {check.shifted} later event{'s' if check.shifted != 1 else ''} "
                    "with seq off by the same amount (was a line added or taken out?)"
                ),
            )
        )
    problem = check.structure.finish() if complete else None
    if problem is not None and not found.total:
        found.add(Problem(None, None, None, problem.message))
    return found


def _not_json_lines(data: bytes) -> int:
    """How many lines a file has when it is no JSON Lines log at all (a README, a
    spreadsheet, a letter): its first line is not JSON and neither are most of the rest;
    else 0. A log with typos, even in its first line, has most lines JSON and gets
    each problem listed; a file of prose gets one line saying what it is not (a file of
    one line, or not text at all, keeps its own one-line error)."""

    def is_json(text: bytes) -> bool:
        try:
            _loads(text)
        except (ValueError, RecursionError):  # orjson.JSONDecodeError is a ValueError
            return False
        return True

    lines = [text for text in data.split(b"\n") if text and not text.isspace()]
    if len(lines) < 2 or is_json(lines[0]) or 2 * sum(map(is_json, lines[1:])) >= len(lines):
        return 0  # one line's own JSON error says it best
    try:
        lines[0].decode()
    except UnicodeDecodeError:
        return 0  # not text at all: "not valid UTF-8" says it in one line
    return len(lines)


#: what a log looks like, for a file that is not one
LOG_SHAPE = N_(
    'one JSON object a line, the first {"type": "game_started", "format": '
    '"yaniv-log/1", "players": [...], "rules": "israeli"}, then one a move; '
    "docs/log-format.md has the format, and yaniv-audit template writes a game to start from"
)


#: a file not named .json that holds a JSON array (docs/log-format.md, JSON arrays)
AN_ARRAY = N_(
    "a JSON array of events, in a file read as JSON Lines (one event object a line) "
    "because it is not named .json: name it .json to read it as an array (standard "
    "input, -, is read as an array when it starts with [)"
)


def not_a_log(lines: int) -> str:
    return (
        f"not a JSON Lines log: neither this line nor most of the file's {lines} lines "
        f"are JSON; a log is {LOG_SHAPE}"
    )


def _items(data: bytes, array: bool, found: Diagnosis) -> Iterator[tuple[Any, int | None, int]]:
    """Each event's parsed value, line and index; what is not JSON goes to ``found``."""
    if array:
        if not data or data.isspace():
            return
        try:
            items = _loads(data)
        except orjson.JSONDecodeError as exc:
            found.add(Problem(None, None, None, _json_problem(data, exc, True)))
            return
        except (ValueError, RecursionError):
            found.add(
                Problem(None, None, None, "not valid JSON: a number or nesting too large to read")
            )
            return
        if not isinstance(items, list):
            found.add(
                Problem(
                    None,
                    None,
                    None,
                    f"a .json log holds a top-level array of events, got {show(items)}",
                )
            )
            return
        for index, item in enumerate(items):
            yield item, None, index
        return
    index = 0
    for number, text in enumerate(data.split(b"\n"), 1):
        if not text or text.isspace():
            continue
        index += 1
        size = len(text) - text.endswith(b"\r")
        if size > MAX_LINE_BYTES:
            found.add(
                Problem(
                    number,
                    index - 1,
                    None,
                    f"the line is {size} bytes long; at most {MAX_LINE_BYTES} bytes "
                    "(1 MiB) are allowed",
                )
            )
            continue
        try:
            raw = _loads(text)
        except orjson.JSONDecodeError as exc:
            problem = _json_problem(text, exc, False)
            found.add(Problem(number, index - 1, None, problem))
            if problem.startswith("not valid UTF-8"):
                return  # not a text file: every other line would be the same
            continue
        except (ValueError, RecursionError):
            found.add(
                Problem(
                    number, index - 1, None, "not valid JSON: a number or nesting too large to read"
                )
            )
            continue
        yield raw, number, index - 1


class _Checks:
    """The schema and structural checks of each event, going on past every problem.

    An event the schema refuses is left out of the structural checks, but what it
    still says (a ``game_started``'s players, a ``round_started``'s round) is taken
    as meant, so that one typo is not also reported as every later event's problem.
    """

    def __init__(self, found: Diagnosis) -> None:
        self.found = found
        self.structure = structure.StructureCheck()
        self.seated: tuple[str, ...] = ()
        #: no game_started could be read: the structural checks would only repeat that
        self.lost = False
        #: how far the events' seq are from their positions since a line was added or
        #: taken out (its first event says so), and how many later events agree with it
        self.shift = 0
        self.shifted = 0

    def event(self, raw: Any, line: int | None, index: int) -> None:
        seq = raw.get("seq") if isinstance(raw, dict) else None
        if type(seq) is int and seq != index:
            # a shift an earlier event already said is counted, not said again
            if seq - index == self.shift:
                self.shifted += 1
                raw = {**raw, "seq": index}
            else:
                self.shift = seq - index
        try:
            event = event_from_dict(raw, index, line)
        except LogFormatError as exc:
            for refused in _field_problems(exc, raw):
                self.found.add(refused)
            self._assume(raw, line, index)
            return
        if self.lost:
            return
        problem = self.structure.check(event)
        if problem is None:
            if isinstance(event, GameStarted):
                self.seated = event.players
            return
        hint = None
        if problem.field is not None and "is not seated" in problem.text:
            hint = close_match(_at(raw, problem.field), self.seated)
            if hint is None and problem.field.startswith(
                ("hands.", "totals.", "points.", "scores.")
            ):
                hint = close_match(problem.field.split(".", 1)[1], self.seated)
        self.found.add(
            Problem(line, index, problem.field, problem.message, hint, event.type, (problem.text,))
        )
        self._after_problem(event)

    def _after_problem(self, event: Event) -> None:
        """Go on as if the event had been right where that can be guessed."""
        checker = self.structure
        if isinstance(event, GameStarted) and checker.game is None:
            players = tuple(dict.fromkeys(event.players))
            checker.game, checker.seated, self.seated = event, frozenset(players), players
        elif isinstance(event, RoundStarted):
            checker.round = event.round
            checker.hands = event.hands is not None
            checker.stock = None if event.stock is None else len(event.stock)
        elif checker.game is None:
            self.lost = True

    def _assume(self, raw: Any, line: int | None, index: int) -> None:
        """What an event the schema refused still tells the structural checks."""
        if not isinstance(raw, dict):
            return
        checker = self.structure
        if checker.game is None:
            players = raw.get("players")
            ids = (
                [p["id"] if isinstance(p, dict) else p for p in players]
                if isinstance(players, list)
                else []
            )
            ids = [p for p in ids if isinstance(p, str) and p]
            if ids:
                seated = tuple(dict.fromkeys(ids))
                checker.game = GameStarted(
                    FORMAT, seated, {}, PRESETS["israeli"], index=index, line=line
                )
                checker.seated, self.seated = frozenset(seated), seated
            else:
                self.lost = True
            return
        kind, number = raw.get("type"), raw.get("round")
        if kind == "round_started" and type(number) is int:
            checker.round = number
            checker.hands = "hands" in raw
            stock = raw.get("stock")
            checker.stock = len(stock) if isinstance(stock, list) and stock else None
        elif kind == "reshuffle":
            stock = raw.get("stock")
            checker.stock = len(stock) if isinstance(stock, list) and stock else None


def _field_problems(error: LogFormatError, raw: Any) -> list[Problem]:
    """The schema's error of one event, one problem per field, each with its near miss."""
    kind = raw.get("type") if isinstance(raw, dict) else None
    schema = SCHEMAS.get(kind) if isinstance(kind, str) else None
    if len(error.messages) <= 1:
        path = next(iter(error.messages), None)
        texts = error.messages.get(path, []) if path is not None else []
        message, said = _said_hint(error.message)
        hint = said or _hint(path, texts, raw, schema)
        parts = _parts(message, kind, path, texts)
        return [Problem(error.line, error.index, path, message, hint, *parts)]
    problems = []
    hints = {path: _hint(path, texts, raw, schema) for path, texts in error.messages.items()}
    for path, texts in error.messages.items():
        if texts == [MISSING_FIELD] and path in hints.values():
            continue  # said by the hint of the unknown field that was meant to be it
        unknown = texts == [UNKNOWN_FIELD]
        if unknown:
            message = f"{kind}: unknown field {quote(path)} (fields starting with _ are allowed)"
        else:
            message = f"{kind}: field {quote(path)}: {'; '.join(texts)}"
        message, said = _said_hint(message)
        parts = _parts(message, kind, path, texts, unknown)
        problems.append(
            Problem(error.line, error.index, path, message, said or hints[path], *parts)
        )
    return problems


def _parts(
    message: str, kind: Any, path: str | None, texts: list[str], unknown: bool = False
) -> tuple[str | None, tuple[str, ...], bool]:
    """A field problem's parts (:attr:`Problem.kind`, ``texts``, ``unknown``) when its
    message is made of them as written above, else none (said as a whole)."""
    if not isinstance(kind, str) or path is None or not texts:
        return None, (), False
    texts = [_said_hint(t)[0] for t in texts]  # the near miss is the hint's
    if unknown:
        made = f"{kind}: unknown field {quote(path)} (fields starting with _ are allowed)"
    else:
        made = f"{kind}: field {quote(path)}: {'; '.join(texts)}"
    return (kind, tuple(texts), unknown) if message == made else (None, (), False)


_SAID = re.compile(r'; did you mean ("(?:[^"\\]|\\.)*")\?$')


def _said_hint(message: str) -> tuple[str, str | None]:
    """A message whose own "did you mean" (the rules' messages have one) moves to the hint."""
    match = _SAID.search(message)
    if match is None:
        return message, None
    return message[: match.start()], str(json.loads(match.group(1)))


def _hint(path: str | None, texts: list[str], raw: Any, schema: Any) -> str | None:
    """What a field's value (or an unknown field's name) was likely meant to be."""
    if path is None or not isinstance(raw, dict) or any("did you mean" in t for t in texts):
        return None
    if path == "type":
        return close_match(raw.get("type"), SCHEMAS)
    if schema is None:
        return None
    if texts == [UNKNOWN_FIELD]:
        return close_match(path, [f for f in schema.fields if f not in raw])
    value = _at(raw, path)
    if any(t.startswith("expected a card") for t in texts):
        return card_hint(value)
    top = schema.fields.get(path)
    for validator in getattr(top, "validators", ()):
        choices = getattr(validator, "choices", None)
        if choices is not None:
            return close_match(value, choices)
    return None


def _at(raw: Any, path: str) -> Any:
    """The value at a field path such as ``hands.dana.2`` (None if it is not there)."""
    value = raw
    for key in path.split("."):
        if isinstance(value, dict):
            value = value.get(key)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return value


_NOISE = re.compile(r"[\s\-_./,:;'\"()\[\]\ufe0f]+")
_WORDS = {"JOKER": "JK", "JOKR": "JK", "JKR": "JK", "J0KER": "JK", "KJ": "JK"}


def card_hint(value: Any) -> str | None:
    """The card a text that is not a card most likely means: ``"H5"`` -> ``"5H"``,
    ``"5 H"`` or ``"5-h"`` -> ``"5H"``, ``"1OH"`` -> ``"TH"``, ``"joker"`` -> ``"JK"``;
    None when there is no single likely card.

    >>> [card_hint(t) for t in ["H5", "5 h", "10 of H", "joker", "1OS", "5X", 7]]
    ['5H', '5H', 'TH', 'JK', 'TS', None, None]
    """
    if not isinstance(value, str):
        return None
    text = _NOISE.sub("", value).upper().replace("OF", "")
    text = re.sub(r"^(?:10|1O|IO|0)", "T", text)
    if text in _WORDS:
        return _WORDS[text]
    for guess in (text, text[::-1], re.sub(r"(.)\1", r"\1", text)):
        if guess and is_card_text(guess):
            return canonical(guess)
        if len(guess) == 3 and guess[1:] == "10" and is_card_text("T" + guess[0]):
            return canonical("T" + guess[0])
    return None


def event_lines(path: str | Path) -> list[int] | None:
    """The file line of each event of a JSON Lines log, for messages that name both
    (None for a ``.json`` log, whose events have no lines, or a file not readable).

    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write(b'{"a":1}\\n\\n  \\n{"b":2}\\r\\n{"c":3}')
    >>> event_lines(f.name)
    [1, 4, 5]
    >>> os.unlink(f.name)
    """
    if str(path) == STDIN:
        data = stdin_bytes()
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            return None
    elif Path(path).suffix.lower() == ".json":
        return None
    else:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
    return [
        number for number, text in enumerate(data.split(b"\n"), 1) if text and not text.isspace()
    ]


def render(
    source: str, found: Diagnosis, verdict: str = "unreadable", words: Words | None = None
) -> list[str]:
    """The problems as text lines: one line for one problem, else a count and a line each;
    in English, or in ``words``' language (``validate --lang``, ``audit --lang``)."""
    if words is not None and words.gettext is not None:
        return _said_lines(source, found, verdict, words)
    if found.total == 1:
        return [f"{source}: {verdict}: {found.problems[0].text()}"]
    at_least = "at least " if found.stopped else ""
    lines = [f"{source}: {verdict}: {at_least}{found.total} problems"]
    lines.extend(f"  {p.text()}" for p in found.problems)
    if found.more:
        lines.append(
            f"  and {at_least}{found.more} more (the first {len(found.problems)} are "
            "listed"
            + (
                f"; the count stops at {COUNT_MAX:,}, the rest of the log unread)"
                if found.stopped
                else ")"
            )
        )
    return lines


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


# --- in a reader's language -------------------------------------------------------

#: what a field expects, as the schemas write it (``expected X``, ``expected X, got Y``):
#: said in a reader's language from the catalogues (a text not here stays English)
EXPECTED = (
    N_("a card (rank A 2-9 T (or 10) J Q K then suit C D H S (or ♣ ♦ ♥ ♠), or JK)"),
    N_("a list of cards"),
    N_("a non-empty list of cards"),
    N_("an ISO-8601 timestamp with offset, e.g. 2024-05-01T20:15:00+03:00"),
    N_('a rule-set id such as "israeli(yaniv_max=5)" or an object {"base": "israeli", ...}'),
    N_("a whole number"),
    N_("a whole number >= 0"),
    N_("a string"),
    N_("a player id (a non-empty string)"),
    N_("an object {player: whole number}"),
    N_("an object {player: list of cards}"),
    N_("a list of players"),
    N_("2 to 8 players"),
    N_("an object"),
    N_('a player id or an object {"id": ..., "name": ...}'),
    N_("a player id or a non-empty list of player ids"),
    N_("a non-empty list of seqs (whole numbers)"),
    N_("a non-empty list of seqs"),
    N_("a round number >= 1"),
    N_('"stock" or "pile"'),
    N_("an event's seq (>= 0)"),
    N_("true or false"),
)
#: what a rule parameter expects, with its values (rules.Param.expects)
_WHAT = [
    (re.compile(r"a whole number from (?P<lo>-?\d+) to (?P<hi>-?\d+)"), "what:range"),
    (re.compile(r"one of (?P<names>[\w, -]+)"), "what:one_of"),
]
#: whole messages of an unreadable log, said as they are
WHOLE = (
    N_("missing (required)"),
    N_("unknown field (fields starting with _ are allowed)"),
    N_("no round has started yet"),
    N_("required for a draw from the pile"),
    N_('allowed only with "hands"'),
    N_("before round 1; it needs a round_started first"),
    N_("no events; a log starts with a game_started event"),
    N_(
        'required here: the last reshuffle recorded no "stock", or every card of it was '
        "drawn, so the order of the stock is unknown"
    ),
    N_("no such file"),
    N_("is a directory, not a log file"),
    N_("not valid JSON: a number or nesting too large to read"),
    N_("not valid JSON: nested too deeply (at most 1024 levels)"),
    AN_ARRAY,
)
#: messages with a value in them: the pattern of the English, the sentence's key
_FORMS = [
    (
        re.compile(r"(?P<param>[a-z_]+): expected (?P<what>.+?), got (?P<got>.+)", re.S),
        "unreadable:param_expected_got",
    ),
    (
        re.compile(r"expected (?P<min>\d+) to (?P<max>\d+) players, got (?P<got>\d+)"),
        "unreadable:players",
    ),
    (
        re.compile(
            r"the line is (?P<size>\d+) bytes long; at most (?P<most>\d+) bytes \(1 MiB\) "
            r"are allowed"
        ),
        "unreadable:long_line",
    ),
    (
        re.compile(r"a log holds one game, and it started at (?P<at>line \d+|event \d+)"),
        "unreadable:one_game",
    ),
    (
        re.compile(
            r"required here: round (?P<round>\d+)'s round_started recorded no \"stock\", so "
            r"the order of the stock is unknown"
        ),
        "unreadable:stock_unknown_deal",
    ),
    (
        re.compile(
            r"required here: every card of round (?P<round>\d+)'s recorded \"stock\" was "
            r"drawn and no reshuffle recorded a new order, so the order of the stock is unknown"
        ),
        "unreadable:stock_unknown_drawn",
    ),
    (
        re.compile(r"expected (?P<index>\d+), the event's 0-based position, got (?P<seq>.+)"),
        "unreadable:seq",
    ),
    (
        re.compile(
            r"expected (?P<expected>\d+) \(rounds are numbered 1, 2, \.\.\. in order\), "
            r"got (?P<got>.+)"
        ),
        "unreadable:round_order",
    ),
    (
        re.compile(r"expected (?P<expected>\d+), the round under way, got (?P<got>.+)"),
        "unreadable:round_under_way",
    ),
    (
        re.compile(
            r"a move in round (?P<round>\d+), whose round_started has no \"hands\"; moves can "
            r"only be replayed from a recorded deal"
        ),
        "unreadable:move_no_deal",
    ),
    (
        re.compile(r'a move before round 1; moves need a round_started with "hands"'),
        "unreadable:move_before_deal",
    ),
    (
        re.compile(r"unknown preset (?P<name>.+): expected one of (?P<names>.+)", re.S),
        "unreadable:unknown_preset",
    ),
    (
        re.compile(
            r"not a JSON Lines log: neither this line nor most of the file's (?P<lines>\d+) "
            r"lines are JSON; a log is (?P<shape>.+)",
            re.S,
        ),
        "unreadable:not_a_log",
    ),
    (re.compile(r"expected (?P<what>.+?), got (?P<got>.+)", re.S), "unreadable:expected_got"),
    (re.compile(r"expected (?P<what>.+)", re.S), "unreadable:expected"),
    (
        re.compile(r"(?P<player>\".*\") is not seated \(the players are (?P<seats>.*)\)", re.S),
        "unreadable:not_seated",
    ),
    (re.compile(r"(?P<player>\".*\") is seated twice", re.S), "unreadable:seated_twice"),
    (
        re.compile(r"unknown event type (?P<type>.+); expected one of (?P<types>.+)", re.S),
        "unreadable:unknown_type",
    ),
    (re.compile(r"unknown event type (?P<type>.+)", re.S), "unreadable:unknown_type_only"),
    (
        re.compile(r'missing field "type"; expected one of (?P<types>.+)', re.S),
        "unreadable:missing_type",
    ),
    (
        re.compile(r"the first event must be game_started, got (?P<type>.+)", re.S),
        "unreadable:first_event",
    ),
    (
        re.compile(
            r"and (?P<n>\d+) later events? with seq off by the same amount "
            r"\(was a line added or taken out\?\)"
        ),
        "unreadable:seq_shifted",
    ),
    (re.compile(r"cannot read the file \((?P<why>.*)\)", re.S), "unreadable:cannot_read"),
    (re.compile(r"not valid JSON: (?P<why>.*)", re.S), "unreadable:not_json"),
    (re.compile(r"not valid UTF-8 (?P<where>\(.*\))", re.S), "unreadable:not_utf8"),
]


def said_text(text: str, words: Words) -> str:
    """One message of an unreadable log in ``words``' language: a whole message the
    catalogue has, or one of the schemas' and checks' own forms (``expected X, got Y``:
    X from the catalogue, Y the log's value as it is); else as written (English)."""
    whole = words.word(text)
    if whole != text:
        return whole
    for pattern, key in _FORMS:
        match = pattern.fullmatch(text)
        if match is not None:
            params: dict[str, Any] = match.groupdict()
            if "n" in params:
                params["n"] = int(params["n"])  # a count, said in its plural form
            if "shape" in params:
                params["shape"] = words.word(params["shape"])
            if "what" in params:
                what = _said_what(params["what"], words)
                if what is None:
                    continue  # not one of ours: said as written
                params["what"] = what
            if "at" in params:  # where an event is: "line 3", "event 2"
                kind, number = params["at"].split()
                params["at"] = words.say(f"unreadable:{kind}", line=number, index=number)
            return words.say(key, **params)
    return text


def _said_what(what: str, words: Words) -> str | None:
    """What a field or a rule parameter expects, in ``words``' language; None when it
    is none of the schemas' or the rules' own (said as written, then)."""
    if what in EXPECTED:
        return words.word(what)
    null = what.endswith(" or null")
    core = what.removesuffix(" or null")
    for pattern, key in _WHAT:
        match = pattern.fullmatch(core)
        if match is not None:
            said = words.say(key, **match.groupdict())
            return words.say("what:or_null", what=said) if null else said
    return None


def said_problem(problem: Problem, words: Words) -> str:
    """A :class:`Problem` in ``words``' language: where, what, and the near miss."""
    if problem.line is not None:
        at = words.say("unreadable:line", line=problem.line)
    elif problem.index is not None:
        at = words.say("unreadable:event", index=problem.index)
    else:
        at = words.say("unreadable:log")
    texts = "; ".join(said_text(t, words) for t in problem.texts)
    if problem.kind is None:
        message = said_text(problem.message, words)
    elif problem.field is None:
        message = words.say("unreadable:of_event", kind=problem.kind, text=texts)
    elif problem.unknown:
        message = words.say(
            "unreadable:unknown_field", kind=problem.kind, field=quote(problem.field)
        )
    else:
        message = words.say(
            "unreadable:field", kind=problem.kind, field=quote(problem.field), text=texts
        )
    if problem.hint is not None:
        return words.say("unreadable:problem_hint", at=at, text=message, hint=_q(problem.hint))
    return words.say("unreadable:problem", at=at, text=message)


def _said_lines(source: str, found: Diagnosis, verdict: str, words: Words) -> list[str]:
    """:func:`render` in ``words``' language (``verdict`` in capitals: as audit says it)."""
    said = words.say("say.upword" if verdict.isupper() else "say.word", word="verdict.unreadable")
    if found.total == 1:
        return [
            words.say(
                "unreadable:one", file=source, verdict=said, text=found.problems[0].text(words)
            )
        ]
    key = "unreadable:count_at_least" if found.stopped else "unreadable:count"
    lines = [words.say(key, file=source, verdict=said, n=found.total)]
    lines.extend("  " + p.text(words) for p in found.problems)
    if found.more:
        key = "unreadable:more_stopped" if found.stopped else "unreadable:more"
        lines.append(
            "  " + words.say(key, n=found.more, listed=len(found.problems), most=f"{COUNT_MAX:,}")
        )
    return lines
