"""Reading logs: JSON Lines or a JSON array -> typed events and fingerprint leaves.

The structural checks (first event, seated players, round order...) live in
:mod:`yaniv_audit.core.structure`; :func:`read_log` runs them with the reading of each
event and raises :class:`~yaniv_audit.core.errors.LogFormatError` at the first problem.

msgspec reads the events: the event structs of :mod:`yaniv_audit.core.events` carry
every check of the schemas (:mod:`yaniv_audit.io.log_schema`, the schema of record) that
their types can say, and a few lines of plain Python the rest (``seq`` against the
position, ``at`` with an offset, the ``_`` fields, the rules). It reads a line's bytes
straight into its event (:func:`wire_event`, :func:`_read_wire`), or, for what that
way refuses, the parsed value (:func:`msgspec_event`). Whatever msgspec refuses goes
to marshmallow (about 40,000 events a second), which accepts it after all or writes
the error; ``tests/test_reader.py`` shows that msgspec accepts exactly what
marshmallow accepts and builds the same event. :data:`MSGSPEC` = False reads through
marshmallow alone.

>>> log = parse_jsonl(b'{"type":"game_started","format":"yaniv-log/1",'
...                   b'"players":["dana","omer"],"rules":"classic"}', "<doc>")
>>> log.players, log.game.rules.yaniv_max
(('dana', 'omer'), 5)
"""

from __future__ import annotations

import codecs
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

import msgspec
import orjson
from msgspec import UnsetType

from ..core import structure
from ..core.canonical import canonical_leaf, normalize_event
from ..core.errors import LogFormatError, RulesError
from ..core.events import (
    CODES,
    DECODER,
    ENCODER,
    EVENT_TYPES,
    FORMAT,
    INT_MAX,
    PARSED_TYPES,
    Discard,
    Draw,
    Event,
    GameEnded,
    GameEndedWire,
    GameStarted,
    GameStartedWire,
    Log,
    PlayerEntry,
    WithdrawalPlan,
    Withdrawals,
    names_to_codes,
)
from ..core.rules import parse_rules, rules_from_mapping
from .log_schema import (
    MAX_DEPTH,
    Timestamp,
    depth_within,
    quote,
    show,
    slow_event_from_dict,
)

__all__ = ["FORMAT", "event_from_dict", "parse_json_array", "parse_jsonl", "read_log"]

#: a JSON Lines line longer than this (without its line end) is refused
MAX_LINE_BYTES = 1 << 20
#: integers beyond 64 bits (from -2**63 - 1 down, from 2**64 up: 19 digits or more),
#: which orjson reads as floats (changing the leaf): searched for only on the lines that
#: msgspec did not read (its event structs bound every whole number, events.Whole)
_LONG_DIGITS = re.compile(rb"\d{19}")

#: whether msgspec reads the events (off: marshmallow alone, the reference in the tests)
MSGSPEC = True


# --- events --------------------------------------------------------------


def event_from_dict(raw: dict[str, Any], index: int, line: int | None) -> Event:
    """Validate one parsed event and build its typed event.

    Every problem of the event is reported at once, by field, in one
    :class:`LogFormatError`; ``seq`` is checked against ``index`` here because
    typed events do not carry it. msgspec answers first (:func:`msgspec_event`);
    marshmallow decides whatever it refuses, and writes the error.
    """
    if MSGSPEC:
        event = msgspec_event(raw, index, line)
        if event is not None:
            return event
    return slow_event_from_dict(raw, index, line)


_convert = msgspec.convert
#: the struct msgspec converts each event type into
_PARSED: dict[str, type[Event]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]
    for cls in PARSED_TYPES
}
#: the schema's own depth limit on a free value (``meta``, a ``_`` field)
_FREE_LEVELS = MAX_DEPTH - 1


def msgspec_event(raw: Any, index: int, line: int | None) -> Event | None:
    """The typed event of a parsed event, read by msgspec into the event structs; None
    when msgspec refuses it (then marshmallow decides, and writes the error).

    What the struct types cannot say is checked here, as the schemas do: a ``_``
    field is the recorder's own (any value, at most :data:`MAX_DEPTH` levels deep)
    and is left out; ``null`` is refused wherever the schema refuses it (every
    field but showdown's ``caller``: the structs' ``None`` defaults would take it
    for a missing field); cards are read in any spelling by writing them
    canonically first (:func:`~yaniv_audit.core.canonical.normalize_event`, the same
    lookup as :func:`~yaniv_audit.core.cards.parse_card`); ``seq`` must equal the
    position, ``at`` must carry an offset, and game_started's rules must parse.
    """
    if type(raw) is not dict:
        return None
    data = {}
    for key, value in raw.items():
        if type(key) is not str:  # not JSON
            return None
        if key[:1] == "_":  # the recorder's own: in the leaf, not in the event
            if not depth_within(value, _FREE_LEVELS):
                return None
        elif value is None and key != "caller":
            return None
        else:
            data[key] = value
    kind = data.get("type")
    struct = _PARSED.get(kind) if type(kind) is str else None
    if struct is None:
        return None
    try:  # to the struct itself: msgspec builds a union's type info again at every call
        event: Event = _convert(normalize_event(data), struct)
    except msgspec.ValidationError:
        return None
    written, at = event.index, event.at
    if written != -1 and written != index:  # -1: no seq
        return None
    if at is not None and not Timestamp.accepts(at):
        return None
    if type(event) is GameStartedWire:
        return _started(event, index, line)
    if type(event) is GameEndedWire:
        winner = event.winner
        event = GameEnded(
            winner=(winner,) if isinstance(winner, str) else winner, scores=event.scores, at=at
        )
    names_to_codes(event)
    _set(event, "index", index)
    _set(event, "line", line)
    return event


def _started(wire: GameStartedWire, index: int, line: int | None) -> GameStarted | None:
    """The game_started msgspec read: seats to ids and names, the rules parsed."""
    if wire.meta is not None and not depth_within(wire.meta, _FREE_LEVELS):
        return None
    try:
        declared = wire.rules
        if type(declared) is str:  # noqa: SIM108 (not narrowed by mypy; isinstance costs more)
            rules = parse_rules(declared)
        else:
            rules = rules_from_mapping(declared)  # type: ignore[arg-type]
    except RulesError:
        return None
    players: list[str] = []
    names: dict[str, str] = {}
    for seat in wire.players:
        if type(seat) is PlayerEntry:
            players.append(seat.id)
            if not isinstance(seat.name, UnsetType):
                names[seat.id] = seat.name
        else:
            players.append(seat)  # type: ignore[arg-type]
    return GameStarted(
        format=wire.format,
        players=tuple(players),
        names=names,
        rules=rules,
        game_id=wire.game_id,
        meta=wire.meta,
        index=index,
        line=line,
        at=wire.at,
    )


# --- reading -------------------------------------------------------------


class _LogBuilder:
    """Typed events, their leaves and the structural checks, one event at a time."""

    __slots__ = ("base", "checker", "events", "leaves", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.events: list[Event] = []
        self.leaves: list[bytes] = []
        self.checker = structure.StructureCheck()
        #: how many events were read before ``events`` (handed on by a reader that streams)
        self.base = 0

    def add(self, raw: Any, line: int | None) -> None:
        """One event, parsed exactly (big integers kept), its leaf by the definition."""
        event = event_from_dict(raw, self.base + len(self.events), line)
        problem = self.checker.check(event)
        if problem is not None:
            raise problem_error(problem)
        self.events.append(event)
        # a copy of the exact size: keeping orjson's own buffers (allocated large, then
        # shrunk) makes the C allocator trim and grow the heap at every event, 5x slower
        self.leaves.append(b"%b" % canonical_leaf(normalize_event(raw)))

    def finish(self) -> Log:
        problem = self.checker.finish()
        if problem is not None:
            raise problem_error(problem)
        return Log(self.source, tuple(self.events), tuple(self.leaves), self.checker.withdrawals)


def problem_error(problem: structure.Problem) -> LogFormatError:
    """A structural problem as the error that makes the log unreadable."""
    event = problem.event
    return LogFormatError(
        problem.message,
        line=event.line if event is not None else None,
        index=event.index if event is not None else None,
        messages={problem.field: [problem.text]} if problem.field else None,
    )


def _loads(text: bytes) -> Any:
    value = orjson.loads(text)
    if _LONG_DIGITS.search(text) is not None:
        value = json.loads(text)  # exact big integers, as the leaf must keep them
    return value


def _exact(text: bytes, raw: Any, line: int | None, index: int) -> Any:
    """A line orjson read, read again by ``json`` if it may hold an integer beyond 64 bits
    (which orjson reads as a float), and refused if it does (:func:`check_numbers`)."""
    if _LONG_DIGITS.search(text) is None:
        return raw
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError):
        raise LogFormatError(
            "not valid JSON: a number or nesting too large to read", line=line, index=index
        ) from None
    check_numbers(raw, line, index)
    return raw


def check_numbers(raw: Any, line: int | None, index: int | None) -> None:
    """Refuse an event holding a whole number beyond ``INT_MAX`` either way, anywhere in it
    (``meta`` and ``_`` fields too), naming the field: such a number cannot be stored,
    written in an answer or compared. Called only when a run of 19 digits was seen."""
    found = _huge_number(raw, "")
    if found is None:
        return
    path, number = found
    text = (
        f"expected a whole number from -{INT_MAX} to {INT_MAX}, got a number of "
        f"{len(str(abs(number)))} digits"
    )
    kind = raw.get("type") if isinstance(raw, dict) else None
    prefix = f"{kind}: " if isinstance(kind, str) and kind in EVENT_TYPES else ""
    raise LogFormatError(
        f"{prefix}field {quote(path)}: {text}" if path else text,
        line=line,
        index=index,
        messages={path: [text]},
    )


def _huge_number(value: Any, path: str) -> tuple[str, int] | None:
    """The path (``scores.dana``) and value of the first whole number beyond INT_MAX."""
    if type(value) is int:
        return (path, value) if abs(value) > INT_MAX else None
    items: Any = (
        value.items() if type(value) is dict else (enumerate(value) if type(value) is list else ())
    )
    for key, item in items:
        found = _huge_number(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


def _json_problem(text: bytes, exc: orjson.JSONDecodeError, in_file: bool) -> str:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError as err:
        return f"not valid UTF-8 (byte 0x{text[err.start]:02x} at offset {err.start})"
    if "depth" in exc.msg or "ecursion" in exc.msg:
        return "not valid JSON: nested too deeply (at most 1024 levels)"
    where = f"line {exc.lineno}, column {exc.colno}" if in_file else f"column {exc.colno}"
    return f"not valid JSON: {exc.msg} ({where})"


_decode, _encode, _set = DECODER.decode, ENCODER.encode, msgspec.structs.force_setattr


def wire_event(text: bytes, index: int, line: int | None) -> tuple[Event, bytes] | None:
    """The event on one JSON line and its leaf, read by msgspec straight into the event
    struct; None when msgspec does not accept it exactly as the schemas would (the
    reader then takes the codec's own path, and marshmallow decides).

    Refused here, whatever the schemas say of them: a ``null`` anywhere (the structs
    cannot tell an explicit null from a missing field, which the leaf keeps apart),
    a card not written canonically, a field starting with ``_`` (the leaf keeps it,
    the struct has no place for it), a ``seq`` other than ``index``, game_started.
    """
    if b"null" in text:
        return None  # msgspec refuses a whole number beyond 64 bits too: the exact path
    try:
        event = _decode(text)
    except msgspec.DecodeError:  # and its ValidationError
        return None
    if event.index != index and event.index != -1:  # -1: no seq
        return None
    at = event.at
    if at is not None:  # Timestamp.accepts, inline
        try:
            if datetime.fromisoformat(at).tzinfo is None:
                return None
        except ValueError:
            return None
    leaf = _encode(event)  # while index and line hold what the line wrote (if anything)
    names_to_codes(event)
    _set(event, "index", index)
    _set(event, "line", line)
    return event, leaf


def parse_jsonl(data: bytes, source: str) -> Log:
    """A JSON Lines log: one event object per line; blank lines, a BOM and CRLF accepted.

    The first event (game_started) is read line by line; then, for speed, msgspec
    reads all the other lines at once (:func:`_read_wire`); if it refuses any of
    them, they are read line by line after all, each through :func:`wire_event`
    first and the codec's own path when msgspec refuses it.
    """
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    builder = _LogBuilder(source)
    lines = data.split(b"\n")
    first = 0
    while first < len(lines) and (not lines[first] or lines[first].isspace()):
        first += 1
    rest = min(first + 1, len(lines))  # the position of the line after the first event
    _read_lines(builder, lines, 0, rest)
    if not (MSGSPEC and _read_wire(builder, data, lines, rest)):
        _read_lines(builder, lines, rest, len(lines))
    return builder.finish()


def _read_wire(
    builder: _LogBuilder, data: bytes, lines: list[bytes], start: int, before: int = 0
) -> bool:
    """``lines[start:]`` (of ``data``) read by msgspec all at once, exactly as
    :func:`wire_event` reads each (and checked as :func:`_read_lines` would): False,
    and nothing read, if msgspec refuses one of them or one is blank or too long.
    ``before``: how many lines of the file come before ``lines[0]``."""
    rest = lines[start:]
    if rest and not rest[-1]:
        rest.pop()  # the end of the last line
    if not rest:
        return True
    begin = sum(map(len, lines[:start])) + start  # where rest begins in data
    if max(map(len, rest)) > MAX_LINE_BYTES or data.find(b"null", begin) >= 0:
        return False  # read line by line
    try:
        events = list(map(_decode, rest))  # no blank line: msgspec refuses it
    except msgspec.DecodeError:  # a whole number beyond 64 bits too: read exactly
        return False
    leaves = list(map(_encode, events))  # while the cards, index and line are as written
    checker = builder.checker
    saved = checker.state()
    check, fromisoformat, code = checker.check, datetime.fromisoformat, CODES.__getitem__
    index = builder.base + len(builder.events)
    line = before + start + 1
    for event in events:
        written, at = event.index, event.at
        try:
            ok = (written == index or written == -1) and (
                at is None or fromisoformat(at).tzinfo is not None
            )
        except ValueError:
            ok = False
        if not ok:  # read again line by line
            checker.restore(saved)
            return False
        if written != index:  # no seq written
            _set(event, "index", index)
        # names_to_codes(event), inline for the moves (msgspec read names, typed as codes);
        # type(event) is X, not isinstance, which costs 80 ns on a msgspec type it is not
        if type(event) is Discard:
            cards = event.cards  # most throws are one card: a 1-tuple is built 5x faster
            thrown = (
                (CODES[cards[0]],)  # type: ignore[index]
                if len(cards) == 1
                else tuple(map(code, cards))  # type: ignore[arg-type]
            )
            _set(event, "cards", thrown)
        elif type(event) is Draw:
            if event.card is not None:
                _set(event, "card", CODES[event.card])  # type: ignore[index]
            if event.swap is not None:
                _set(event, "swap", CODES[event.swap])  # type: ignore[index]
        else:
            names_to_codes(event)
        _set(event, "line", line)
        problem = check(event)
        if problem is not None:
            raise problem_error(problem)
        index += 1
        line += 1
    builder.events.extend(events)
    builder.leaves.extend(leaves)
    return True


def _read_lines(
    builder: _LogBuilder, lines: list[bytes], start: int, stop: int, before: int = 0
) -> None:
    """``lines[start:stop]`` read one at a time (``start`` is the 0-based position;
    ``before``: how many lines of the file come before ``lines[0]``)."""
    events, leaves, check, add = builder.events, builder.leaves, builder.checker.check, builder.add
    loads, exact, base = orjson.loads, _exact, builder.base
    for number in range(before + start + 1, before + stop + 1):
        text = lines[number - before - 1]
        if len(text) > MAX_LINE_BYTES:
            size = len(text) - text.endswith(b"\r")
            if size > MAX_LINE_BYTES:
                raise LogFormatError(
                    f"the line is {size} bytes long; at most {MAX_LINE_BYTES} bytes (1 MiB) "
                    "are allowed",
                    line=number,
                    index=base + len(events),
                )
        if not text or text.isspace():
            continue
        wired = wire_event(text, base + len(events), number) if MSGSPEC else None
        if wired is not None:
            problem = check(wired[0])
            if problem is not None:
                raise problem_error(problem)
            events.append(wired[0])
            leaves.append(wired[1])
            continue
        try:
            raw = loads(text)
        except orjson.JSONDecodeError as exc:
            raise LogFormatError(
                _json_problem(text, exc, False), line=number, index=base + len(events)
            ) from None
        except (ValueError, RecursionError):
            raise LogFormatError(
                "not valid JSON: a number or nesting too large to read",
                line=number,
                index=base + len(events),
            ) from None
        add(exact(text, raw, number, base + len(events)), number)


def parse_json_array(data: bytes, source: str) -> Log:
    """A ``.json`` log: one top-level array of event objects; errors name the event index."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    if not data or data.isspace():
        return _LogBuilder(source).finish()  # no events
    try:
        raw = _loads(data)
    except orjson.JSONDecodeError as exc:
        raise LogFormatError(_json_problem(data, exc, True)) from None
    except (ValueError, RecursionError):
        raise LogFormatError("not valid JSON: a number or nesting too large to read") from None
    if not isinstance(raw, list):
        raise LogFormatError(f"a .json log holds a top-level array of events, got {show(raw)}")
    builder = _LogBuilder(source)
    if _LONG_DIGITS.search(data) is not None:
        for index, item in enumerate(raw):
            check_numbers(item, None, index)
    for item in raw:
        builder.add(item, None)
    return builder.finish()


#: the path that names standard input, and how messages and reports name it
STDIN, STDIN_NAME = "-", "<stdin>"
#: how much of a file is read at a time: each line is held to MAX_LINE_BYTES as it comes
READ_CHUNK = 1 << 20


class LongLineError(LogFormatError):
    """A line longer than :data:`MAX_LINE_BYTES`, found while the file was read: the file
    was read no further (a line of a gigabyte is never held). ``before`` holds the bytes
    of the lines before it, for the problems they may have of their own."""

    def __init__(self, line: int, before: bytes) -> None:
        super().__init__(
            f"the line is longer than {MAX_LINE_BYTES} bytes; at most {MAX_LINE_BYTES} bytes "
            "(1 MiB) are allowed, and the file was read no further",
            line=line,
        )
        self.before = before

    def __reduce__(self) -> tuple[type[LongLineError], tuple[int, bytes]]:
        assert self.line is not None
        return LongLineError, (self.line, self.before)  # a worker's error reaches its parent


def read_capped(stream: BinaryIO, chunk: int = READ_CHUNK, head: bytes = b"") -> bytes:
    """The bytes of a JSON Lines ``stream``, read ``chunk`` bytes at a time, each line held
    to :data:`MAX_LINE_BYTES` (its line end and a CR before it aside) as it is read: a
    longer one raises :class:`LongLineError` once at most ``chunk`` bytes past the cap
    are read, the rest of the stream unread. ``head``: what was read of it already.

    A line within one chunk is shorter than the cap (``chunk`` is at most the cap): only
    the line under way where a chunk ends is measured, two searches a chunk, so that
    reading costs what reading the file whole does."""
    assert 0 < chunk <= MAX_LINE_BYTES
    parts: list[bytes] = []
    start = 0  # where the line under way begins, counted from the stream's start
    read = 0  # bytes read so far
    while True:
        block, head = (head, b"") if head else (stream.read(chunk), b"")
        if not block:
            break
        first = block.find(b"\n")
        if first >= 0:
            size = read + first - start  # the line under way ends here
            if size > MAX_LINE_BYTES and not (
                size == MAX_LINE_BYTES + 1 and _byte_before(parts, block, first) == b"\r"
            ):
                return _long_line(parts, block, start)
            start = read + block.rfind(b"\n") + 1
        read += len(block)
        parts.append(block)
        if read - start > MAX_LINE_BYTES + 1:  # too long already, whatever comes next
            return _long_line(parts, b"", start)
    size = read - start  # the last line, with no line end
    if size > MAX_LINE_BYTES and not (size == MAX_LINE_BYTES + 1 and parts[-1][-1:] == b"\r"):
        return _long_line(parts, b"", start)
    return b"".join(parts)


def _byte_before(parts: list[bytes], block: bytes, end: int) -> bytes:
    if end > 0:
        return block[end - 1 : end]
    return parts[-1][-1:] if parts else b""


def _long_line(parts: list[bytes], block: bytes, start: int) -> NoReturn:
    """Raise the error of the line beginning at ``start`` (of the stream), with the lines
    before it (``parts`` read so far, then ``block``, the chunk being read)."""
    before = b"".join([*parts, block])[:start]
    raise LongLineError(before.count(b"\n") + 1, before)


#: standard input's copy (a temporary file, deleted when it is closed) and whether it is
#: a JSON array: made once, when it is first read (:func:`open_stdin`)
_spool: tuple[BinaryIO, bool] | None = None


def open_stdin() -> tuple[BinaryIO, bool]:
    """A reader of standard input from its start, and whether it is a JSON array (it
    starts with ``[``). Standard input cannot be read twice (a command may name ``-``
    more than once; a log holding a ``withdraw`` is read twice): it is copied, a chunk
    at a time, to a temporary file the first time, and each reading reads the copy. A
    JSON Lines line is held to :data:`MAX_LINE_BYTES` as it is copied: past a line too
    long, nothing more of standard input is read (the readers then stop at that line).
    Where no temporary file can be made, the copy is held in memory."""
    global _spool
    if _spool is None:
        stream = sys.stdin.buffer
        head = stream.read(READ_CHUNK)
        array = head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[")
        copy: BinaryIO
        try:
            copy = tempfile.TemporaryFile(prefix="yaniv-audit-stdin-")  # noqa: SIM115
        except OSError:
            copy = io.BytesIO()
        _copy_capped(stream, copy, head, array)
        copy.flush()
        _spool = (copy, array)
    copy, array = _spool
    if isinstance(copy, io.BytesIO):
        return io.BytesIO(copy.getvalue()), array
    reader = os.fdopen(os.dup(copy.fileno()), "rb")
    reader.seek(0)
    return reader, array


def _copy_capped(stream: BinaryIO, copy: BinaryIO, head: bytes, array: bool) -> None:
    """``stream`` (``head`` read of it already) into ``copy``, a chunk at a time; for JSON
    Lines, no further than a chunk past the start of a line longer than the cap."""
    start = read = 0  # where the line under way begins; what was read, from the start
    block = head
    while block:
        copy.write(block)
        if not array:
            first = block.find(b"\n")
            if first >= 0:
                if read + first - start > MAX_LINE_BYTES + 1:
                    return  # a line too long ended in this chunk
                start = read + block.rfind(b"\n") + 1
            read += len(block)
            if read - start > MAX_LINE_BYTES + 1:
                return  # too long already, whatever comes next
        block = stream.read(READ_CHUNK)


def stdin_bytes() -> bytes:
    """Standard input's bytes (read from its copy, :func:`open_stdin`), each line held to
    the cap as it is read (:func:`read_capped`; a JSON array is read whole)."""
    reader, array = open_stdin()
    with reader:
        return reader.read() if array else read_capped(reader)


def _read_before(error: LongLineError, source: str) -> None:
    """The lines before a line too long, read as the log's start: their own first problem
    comes first (as it would have, the file read whole); else the long line's error gets
    the index of the event it would have been."""
    builder = _LogBuilder(source)
    data = error.before[3:] if error.before.startswith(codecs.BOM_UTF8) else error.before
    _read_lines(builder, data.split(b"\n"), 0, data.count(b"\n"))
    error.index = len(builder.events)


def unreadable_file(exc: OSError) -> LogFormatError:
    """What a log file that cannot be opened or read is said to be."""
    if isinstance(exc, IsADirectoryError):
        return LogFormatError("is a directory, not a log file")
    if isinstance(exc, FileNotFoundError):
        return LogFormatError("no such file")
    return LogFormatError(f"cannot read the file ({exc.strerror or exc})")


def read_log(path: str | Path) -> Log:
    """Read and check a log file: ``.json`` is an array of events, anything else JSON Lines.

    ``-`` is standard input: a JSON array if it starts with ``[``, else JSON Lines.
    """
    if str(path) == STDIN:
        try:
            data = stdin_bytes()
        except LongLineError as exc:
            _read_before(exc, STDIN_NAME)
            raise
        if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"["):
            return parse_json_array(data, STDIN_NAME)
        return parse_jsonl(data, STDIN_NAME)
    path = Path(path)
    try:
        with path.open("rb") as stream:
            data = stream.read() if path.suffix.lower() == ".json" else read_capped(stream)
    except LongLineError as exc:
        _read_before(exc, str(path))
        raise
    except OSError as exc:
        raise unreadable_file(exc) from None
    if path.suffix.lower() == ".json":
        return parse_json_array(data, str(path))
    return parse_jsonl(data, str(path))


# --- reading as a stream ----------------------------------------------------


class ReadWhole(Exception):
    """A log the streaming reader leaves to :func:`read_log`: a ``.json`` file it cannot cut
    into batches of whole events (not an array, invalid JSON, one event of more than a few
    MiB), or one whose withdrawals are not those a first reading found."""


class HoldsWithdrawals(ReadWhole):
    """A ``withdraw`` met by :func:`stream_log` reading without the log's withdrawals: it
    may take back events given already. Read the file again with them
    (:func:`withdrawals_in`), or whole."""


#: a batch of events read and checked, and their leaves
Batch = tuple[list[Event], list[bytes]]


def stream_log(
    path: str | Path, chunk: int = READ_CHUNK, withdrawals: Withdrawals | None = None
) -> Iterator[Batch]:
    """The events of the log file at ``path`` and their leaves, a batch at a time, read
    ``chunk`` bytes at a time and checked as :func:`read_log` checks them (the same
    events, leaves and errors), holding no more of the file than a batch: a JSON Lines
    line is held to :data:`MAX_LINE_BYTES` as it is read, and a ``.json`` array is cut
    after whole events. The caller keeps what it needs of each batch.

    ``withdrawals``: the log's, from a first reading of the file (:func:`withdrawals_in`),
    for a log that holds a ``withdraw``; each withdrawal is then folded as it comes
    (:class:`~yaniv_audit.core.structure.KnownWithdrawals`), and the caller leaves out
    the events they take back. Without them, a ``withdraw`` raises
    :class:`HoldsWithdrawals` (it may take back events given already).

    Raises :class:`LogFormatError` at the first problem (after the batches before it),
    and :class:`ReadWhole` (at any batch) for a log to read with :func:`read_log`
    instead: the batches given so far are then to be dropped. Standard input is read
    from its copy (:func:`open_stdin`)."""
    stream, array, source = _open_log(path)
    with stream:
        builder = _LogBuilder(source)
        known = None
        if withdrawals is not None:
            builder.checker = known = structure.KnownWithdrawals(withdrawals)
        batches = (
            _array_batches(builder, stream, chunk)
            if array
            else _line_batches(builder, stream, chunk)
        )
        checker = builder.checker
        try:
            for _ in batches:
                if builder.events:
                    yield builder.events, builder.leaves
                builder.base += len(builder.events)
                builder.events, builder.leaves = [], []
                checker.drop_trail()
            problem = checker.finish()
            if problem is None and known is not None:
                known.confirm()
        except structure.TrailDropped:
            raise (ReadWhole if known is not None else HoldsWithdrawals) from None
        except OSError as exc:
            raise LogFormatError(f"cannot read the file ({exc.strerror or exc})") from None
    if problem is not None:
        raise problem_error(problem)


def _open_log(path: str | Path) -> tuple[BinaryIO, bool, str]:
    """The log at ``path`` (``-``: standard input's copy) opened to be read, whether it is
    a JSON array, and its name (LogFormatError where it cannot be opened)."""
    if str(path) == STDIN:
        stream, array = open_stdin()
        return stream, array, STDIN_NAME
    path = Path(path)
    try:
        return path.open("rb"), path.suffix.lower() == ".json", str(path)
    except OSError as exc:
        raise unreadable_file(exc) from None


#: what may make a line a ``note`` or a ``withdraw`` (their types, or an escape that may
#: spell one): the only lines the first reading parses (:func:`withdrawals_in`)
_NOT_ENTRY = re.compile(rb'"note"|"withdraw"|\\')
#: a blank line among whole lines (which the reader skips: no event)
_BLANK = re.compile(rb"(?:^|\n)[ \t\r\x0b\x0c]*\n")


def withdrawals_in(path: str | Path, chunk: int = READ_CHUNK) -> Withdrawals:
    """The withdrawals of the log file at ``path``, read ``chunk`` bytes at a time and
    holding a few numbers of it (:class:`~yaniv_audit.core.events.WithdrawalPlan`): the
    first of the two readings of a log that holds a ``withdraw`` (the second,
    :func:`stream_log` given them, checks them as it goes). Only the events that may be a
    ``note`` or a ``withdraw`` are read (as :func:`read_log` reads them); every other is
    an entry. Where a problem stops the reading, the withdrawals before it (the second
    reading stops there too). ReadWhole: a ``.json`` file :func:`array_parts` leaves to
    :func:`read_log`."""
    plan = WithdrawalPlan()
    try:
        stream, array, _ = _open_log(path)
        with stream:
            if array:
                _array_withdrawals(plan, stream, chunk)
            else:
                _line_withdrawals(plan, stream, chunk)
    except (OSError, LogFormatError):
        pass  # the second reading says why
    return plan.result() or Withdrawals({}, {})


class _Stop(Exception):
    """The first reading stops: a problem, which the second reading finds."""


def _line_withdrawals(plan: WithdrawalPlan, stream: BinaryIO, chunk: int) -> None:
    carry = b""  # the line under way
    index = 0  # the events before it
    number = 0  # the lines before it
    block = stream.read(chunk)
    if block.startswith(codecs.BOM_UTF8):
        block = block[3:]
    try:
        while block:
            data = carry + block if carry else block
            block = stream.read(chunk)
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                if len(carry) > MAX_LINE_BYTES + 1:
                    return  # a line too long: the reader stops there
                continue
            carry, whole = data[cut + 1 :], data[: cut + 1]
            index = _lines_withdrawals(plan, whole, index, number)
            number += whole.count(b"\n")
        if carry:
            _lines_withdrawals(plan, carry + b"\n", index, number)
    except _Stop:
        return


def _lines_withdrawals(plan: WithdrawalPlan, whole: bytes, index: int, number: int) -> int:
    """Whole lines (each ending in a newline) after ``number`` lines and ``index`` events:
    their events into ``plan``; the events counted after them."""
    if index == 0 or _NOT_ENTRY.search(whole) is not None or _BLANK.search(whole) is not None:
        for number, line in enumerate(whole.split(b"\n")[:-1], number + 1):  # noqa: B020
            if not line or line.isspace():
                continue
            if index == 0:
                plan.others[0] = "game_started"  # or the log is unreadable at its first
            elif _NOT_ENTRY.search(line) is None:
                plan.entries(index, index + 1)
            else:
                plan.add(_line_event(line, index, number))
            index += 1
        return index
    count = whole.count(b"\n")
    plan.entries(index, index + count)
    return index + count


def _line_event(text: bytes, index: int, line: int) -> Event:
    """The event of one line, read as :func:`_read_lines` reads it (without the
    structural checks); :class:`_Stop` where it cannot be read."""
    wired = wire_event(text, index, line) if MSGSPEC else None
    if wired is not None:
        return wired[0]
    try:
        return event_from_dict(_exact(text, orjson.loads(text), line, index), index, line)
    except (LogFormatError, ValueError, RecursionError):  # a JSONDecodeError is a ValueError
        raise _Stop from None


def _array_withdrawals(plan: WithdrawalPlan, stream: BinaryIO, chunk: int) -> None:
    index = 0
    for text, parsed in array_parts(stream, chunk):
        long_digits = _LONG_DIGITS.search(text) is not None
        try:
            items = _loads(text) if parsed is None or long_digits else parsed
        except (ValueError, RecursionError):
            return  # read whole: read_log says where
        if not isinstance(items, list):
            return
        for item in items:
            if index == 0:
                plan.others[0] = "game_started"
            elif type(item) is dict and item.get("type") in ("note", "withdraw"):
                try:
                    if long_digits:
                        check_numbers(item, None, index)
                    plan.add(event_from_dict(item, index, None))
                except LogFormatError:
                    return
            else:
                plan.entries(index, index + 1)
            index += 1


def count_events(path: str | Path, chunk: int = READ_CHUNK) -> int:
    """How many events the log at ``path`` holds, read as :func:`stream_log` reads it
    (again with its withdrawals, for a log that holds a ``withdraw``; :func:`read_log`
    for what that leaves to it); LogFormatError as read_log."""
    twice = False
    try:
        return sum(len(events) for events, _ in stream_log(path, chunk))
    except HoldsWithdrawals:  # read again once its frames (the first batches) are let go
        twice = True
    except ReadWhole:
        pass
    if twice:
        with contextlib.suppress(ReadWhole):
            known = withdrawals_in(path, chunk)
            return sum(len(events) for events, _ in stream_log(path, chunk, known))
    return len(read_log(path).events)


def _line_batches(builder: _LogBuilder, stream: BinaryIO, chunk: int) -> Iterator[None]:
    """Read the JSON Lines of ``stream`` into ``builder``, ``chunk`` bytes at a time: one
    step for each chunk's whole lines. A line longer than :data:`MAX_LINE_BYTES` is
    refused (:class:`LongLineError`) once at most ``chunk`` bytes past the cap are read."""
    assert 0 < chunk <= MAX_LINE_BYTES
    carry = b""  # the line under way
    before = 0  # lines given before it
    first = True  # no event read yet
    block = stream.read(chunk)
    if block.startswith(codecs.BOM_UTF8):
        block = block[3:]
    while block:
        data = carry + block if carry else block
        block = stream.read(chunk)
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            if len(carry) > MAX_LINE_BYTES + 1:  # too long already, whatever comes next
                _too_long(builder, before)
            continue
        end = data.find(b"\n")
        if end > MAX_LINE_BYTES and not (end == MAX_LINE_BYTES + 1 and data[end - 1] == 13):
            _too_long(builder, before)
        carry, whole = data[cut + 1 :], data[: cut + 1]
        lines = whole.split(b"\n")
        first = _read_block(builder, whole, lines, before, first)
        before += len(lines) - 1
        yield None
    size = len(carry)
    if size > MAX_LINE_BYTES and not (size == MAX_LINE_BYTES + 1 and carry[-1] == 13):
        _too_long(builder, before)
    if carry:
        _read_block(builder, carry, [carry], before, first)
        yield None


def _read_block(
    builder: _LogBuilder, data: bytes, lines: list[bytes], before: int, first: bool
) -> bool:
    """``lines`` (of ``data``, after ``before`` lines) read as :func:`parse_jsonl` reads a
    file's (``first``: no event read yet); whether still no event is read."""
    start = 0
    if first:
        while start < len(lines) and (not lines[start] or lines[start].isspace()):
            start += 1
        if start == len(lines) or (start == len(lines) - 1 and not lines[start]):
            return True  # blank lines only
        start += 1
        _read_lines(builder, lines, 0, start, before)
    if not (MSGSPEC and _read_wire(builder, data, lines, start, before)):
        _read_lines(builder, lines, start, len(lines), before)
    return False


def _too_long(builder: _LogBuilder, before: int) -> NoReturn:
    error = LongLineError(before + 1, b"")
    error.index = builder.base + len(builder.events)
    raise error


#: where a ``.json`` array may be cut: after an object, before the next (or the end)
_CUT = re.compile(rb"\}[ \t\r\n]*[,\]]")


def _array_batches(builder: _LogBuilder, stream: BinaryIO, chunk: int) -> Iterator[None]:
    """Read the ``.json`` array of ``stream`` into ``builder``, a batch of whole events a
    step (:func:`array_parts`), each read as :func:`parse_json_array` reads a file (the
    exact reading of long numbers, their check, then the events in order)."""
    for text, parsed in array_parts(stream, chunk):
        _read_items(builder, text, parsed)
        yield None


def array_parts(stream: BinaryIO, chunk: int = READ_CHUNK) -> Iterator[tuple[bytes, Any]]:
    """A ``.json`` array read ``chunk`` bytes at a time, cut into arrays of whole events:
    each part's text and (None for the last, not parsed yet) its items as orjson reads
    them. The text is cut after an object at a point where what comes before is a valid
    JSON array once closed (only a cut between two events is: one inside a string leaves
    it open, one inside an event leaves a bracket open). ReadWhole: not an array, or no
    cut found in a few chunks (invalid JSON, or one event of megabytes)."""
    data = stream.read(chunk)
    if data.startswith(codecs.BOM_UTF8):
        data = data[3:]
    data = data.lstrip(b" \t\r\n")
    if not data.startswith(b"["):
        raise ReadWhole
    data = data[1:]
    while True:
        more = stream.read(chunk)
        if not more:
            yield b"[" + data, None
            return
        data += more
        parsed, cut, tries = None, len(data), 8
        while tries:  # the last cuts first
            cut = data.rfind(b"}", 0, cut)
            if cut < 0:
                break
            if _CUT.match(data, cut) is None:
                continue
            tries -= 1
            try:
                parsed = orjson.loads(b"[" + data[: cut + 1] + b"]")
            except orjson.JSONDecodeError:
                continue
            cut += 1
            break
        if parsed is None:
            if len(data) > 2 * chunk + MAX_LINE_BYTES:
                raise ReadWhole  # one event of megabytes, or invalid JSON
            continue  # read on
        tail = data[cut:].lstrip(b" \t\r\n")
        if tail.startswith(b","):
            yield b"[" + data[:cut] + b"]", parsed
            data = tail[1:]


def _read_items(builder: _LogBuilder, text: bytes, parsed: Any = None) -> None:
    """A batch of a ``.json`` array (``text``, a whole array) read as
    :func:`parse_json_array` reads a file's."""
    try:
        raw = _loads(text) if parsed is None or _LONG_DIGITS.search(text) else parsed
    except (ValueError, RecursionError):
        raise ReadWhole from None  # read_log says where, in the file's lines
    if not isinstance(raw, list):
        raise ReadWhole
    if _LONG_DIGITS.search(text) is not None:
        for index, item in enumerate(raw, builder.base + len(builder.events)):
            check_numbers(item, None, index)
    for item in raw:
        builder.add(item, None)
