"""The audit of one log file as it is read: the memory of a long game held to what its
report needs (docs/cli.md, memory).

:func:`audit_path` reads the file a batch at a time (:func:`~yaniv_audit.io.codec.stream_log`)
and folds each batch into the replay as it comes: no event is kept once folded, the
fingerprint is hashed as the leaves come (:class:`~yaniv_audit.core.merkle.TreeHasher`),
and each round once over is kept as its report's JSON text, compressed a thousand
rounds at a time (:class:`Packed`), as are the findings and the ruling's disputes of a
game that has many: a fiftieth of the memory of their dicts or less. The report is the one
:func:`~yaniv_audit.core.audit.audit_log` gives for :func:`~yaniv_audit.io.codec.read_log`'s
log, byte for byte (``tests/test_streaming.py`` checks every log of the repository,
read in batches of a few hundred bytes). A log holding a ``withdraw`` (which takes back
events read before it) is read twice: first for its withdrawals, then streamed as any
other, the events they take back left out of the replay. Standard input is read from
its copy in a temporary file (:func:`~yaniv_audit.io.codec.open_stdin`).
"""

from __future__ import annotations

import contextlib
import itertools
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, SupportsIndex, overload

import orjson

from ..core import audit
from ..core.audit import round_json, rules_json
from ..core.engine import HANDLERS, Replay, StopReplay
from ..core.errors import InconsistentLogError, LogFormatError
from ..core.events import GameStarted, Log, Withdrawals
from ..core.merkle import TreeHasher
from ..core.report import AuditReport
from ..core.rules import RuleSet
from .codec import READ_CHUNK, HoldsWithdrawals, ReadWhole, read_log, stream_log, withdrawals_in


class Block:
    """The JSON texts of consecutive items of a report's list (rounds, findings...), joined
    by commas and compressed (zlib): written out as they are (:meth:`json_fragment`), read
    back as JSON reads them."""

    __slots__ = ("count", "data")

    def __init__(self, data: bytes, count: int) -> None:
        self.data = data
        self.count = count

    @classmethod
    def of_texts(cls, texts: list[bytes]) -> Block:
        return cls(zlib.compress(b",".join(texts), 1), len(texts))

    def text(self) -> bytes:
        return zlib.decompress(self.data)

    def json_fragment(self) -> orjson.Fragment:
        """What orjson writes for the block (``to_json_line``'s ``default``): its items'
        texts, as they are."""
        return orjson.Fragment(self.text())

    def items(self) -> list[dict[str, Any]]:
        return orjson.loads(b"[" + self.text() + b"]")  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return Block, (self.data, self.count)


class Packed(list[Any]):
    """A long list of a report (a long game's ``rounds``, its ``findings``, the ruling's
    ``disputes``), its items held as their JSON texts compressed a :data:`BLOCK` at a
    time (:class:`Block`, a tenth of the texts' memory or less): orjson writes the report
    with them as they are (``to_json_line``, :func:`json_pieces`), and Python code
    reading the report gets each item back as JSON reads it, as from a list (iterating,
    indexing, ``len``)."""

    size: int

    @classmethod
    def of_blocks(cls, blocks: list[Block]) -> Packed:
        rounds = cls(blocks)
        rounds.size = sum(block.count for block in blocks)
        return rounds

    def blocks(self) -> Iterator[Block]:
        return list.__iter__(self)

    def __len__(self) -> int:
        return self.size

    def __bool__(self) -> bool:
        return self.size > 0

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for block in self.blocks():
            yield from block.items()

    def __reversed__(self) -> Iterator[dict[str, Any]]:
        items: list[dict[str, Any]] = list(self)
        return iter(items[::-1])

    def __contains__(self, item: object) -> bool:
        return any(item == r for r in self)

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if isinstance(index, slice):
            return list(self)[index]
        at = index.__index__()
        if at < 0:
            at += self.size
        if not 0 <= at < self.size:
            raise IndexError("round index out of range")
        for block in self.blocks():
            if at < block.count:
                return block.items()[at]
            at -= block.count
        raise IndexError("round index out of range")  # pragma: no cover

    def __eq__(self, other: object) -> bool:
        return list(self) == other if isinstance(other, list) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return list(self) != other if isinstance(other, list) else NotImplemented

    def __reduce__(self) -> tuple[Any, ...]:  # a worker's report reaches its parent
        return Packed.of_blocks, (list(self.blocks()),)

    def __repr__(self) -> str:
        return f"Packed({list(self)!r})"


#: the report's rounds as a long game's are held (the name the tests knew first)
Rounds = Packed


def pack(items: Iterator[Any]) -> list[Any]:
    """The items as a list (``report_of``'s ``collect``): a plain one for up to
    :data:`KEEP_ROUNDS` items, else :class:`Packed`, each item made, written and let go
    in turn."""
    head = list(itertools.islice(items, KEEP_ROUNDS + 1))
    if len(head) <= KEEP_ROUNDS:
        return head
    dumps = orjson.dumps
    texts = [b"%b" % dumps(item) for item in head]  # copies of the exact size
    del head
    blocks: list[Block] = []
    for item in items:
        texts.append(b"%b" % dumps(item))
        if len(texts) >= BLOCK:
            blocks.append(Block.of_texts(texts))
            texts = []
    blocks += [Block.of_texts(texts[i : i + BLOCK]) for i in range(0, len(texts), BLOCK)]
    return Packed.of_blocks(blocks)


def json_pieces(report: Any) -> Iterator[bytes] | None:
    """A report's JSON line (``to_json_line``'s text, as UTF-8) a piece at a time, without
    its line end, when it holds :class:`Packed` lists (None when it holds none): such a
    report is never written whole into memory (the text between them, and each of their
    blocks in turn)."""
    packed: list[Packed] = []

    def shell(value: Any) -> Any:  # the report, each Packed list a NUL
        if isinstance(value, Packed):
            packed.append(value)
            return orjson.Fragment(b"\x00")
        if type(value) is dict:
            return {key: shell(item) for key, item in value.items()}
        return value

    # no NUL is in orjson's text but these (it escapes control characters in strings)
    parts = orjson.dumps(shell(report)).split(b"\x00")
    if not packed:
        return None
    assert len(parts) == len(packed) + 1
    return _pieces(parts, packed)


def _pieces(parts: list[bytes], packed: list[Packed]) -> Iterator[bytes]:
    for part, items in zip(parts, packed, strict=False):
        yield part + b"["
        for n, block in enumerate(items.blocks()):
            yield (b"," + block.text()) if n else block.text()
        yield b"]"
    yield parts[-1]


#: rounds compressed together (:class:`Block`)
BLOCK = 1024
#: rounds a replay holds as records before those over are kept as their JSON text only
KEEP_ROUNDS = 256


def audit_path(
    path: str | Path,
    rules: RuleSet | None = None,
    *,
    strict: bool = False,
    chunk: int = READ_CHUNK,
) -> AuditReport:
    """The audit report of the log file at ``path``, read ``chunk`` bytes at a time and
    folded as it is read: :func:`~yaniv_audit.core.audit.audit_log` of
    :func:`~yaniv_audit.io.codec.read_log`'s log, with the same errors (LogFormatError).

    A log the replay finds unreadable (a stock draw without its card where the order is
    unknown) is read to its end first: a problem of the file after it comes first, as
    when the file is read whole.

    A log that holds a ``withdraw`` (which may take back any of the entries before it)
    is read twice: once for its withdrawals (:func:`~yaniv_audit.io.codec.withdrawals_in`,
    which parses only the lines that may be a ``note`` or a ``withdraw``), then again,
    replaying the events they leave standing."""
    twice = False
    try:
        return _audit_stream(path, rules, strict, chunk)
    except HoldsWithdrawals:  # read again once its frames (the first batches) are let go
        twice = True
    except ReadWhole:
        pass
    if twice:
        with contextlib.suppress(ReadWhole):
            known = withdrawals_in(path, chunk)
            return _audit_stream(path, rules, strict, chunk, known)
    return audit.audit_log(read_log(path), rules, strict=strict)


def _audit_stream(
    path: str | Path,
    rules: RuleSet | None,
    strict: bool,
    chunk: int,
    withdrawals: Withdrawals | None = None,
) -> AuditReport:
    hasher = TreeHasher()
    replay: Replay | None = None
    game: GameStarted | None = None
    stopped = False  # the replay stopped (an inconsistency, --strict)
    unreadable: LogFormatError | None = None  # what the replay found, raised at the end
    rounds: list[bytes] = []  # the JSON texts of rounds over, till a BLOCK of them
    blocks: list[Block] = []
    params: dict[str, Any] | None = None  # the rules' parameters, which each round's rule names
    handlers, dumps = HANDLERS, orjson.dumps
    taken_back = withdrawals.withdrawn if withdrawals is not None else None
    for events, leaves in stream_log(path, chunk, withdrawals):
        hasher.extend(leaves)
        if replay is None:
            first = events[0]
            assert isinstance(first, GameStarted)  # the structural checks' first
            game = first
            replay = Replay(game, rules or game.rules, strict=strict)
            replay.withdrawals = withdrawals
        if stopped or unreadable is not None:
            continue
        try:
            if taken_back is None:
                for event in events:
                    handlers[type(event)](replay, event)
            else:  # as if the entries taken back had never been written (Replay.run)
                for event in events:
                    if event.index not in taken_back:
                        handlers[type(event)](replay, event)
        except (InconsistentLogError, StopReplay):
            stopped = True
        except LogFormatError as exc:
            unreadable = exc
        records = replay.records
        if len(records) > KEEP_ROUNDS:  # every round but the last is over: kept as its JSON
            # a copy of the exact size: orjson's own buffer takes 4 KiB a round
            if params is None:
                params = rules_json(replay.rules)["params"]
            rounds += [b"%b" % dumps(round_json(record, params)) for record in records[:-1]]
            del records[:-1]
            while len(rounds) >= BLOCK:
                blocks.append(Block.of_texts(rounds[:BLOCK]))
                del rounds[:BLOCK]
    if unreadable is not None:
        raise unreadable
    assert replay is not None and game is not None
    if not stopped:
        with contextlib.suppress(InconsistentLogError, StopReplay):
            replay.finish()
    log = Log(str(path), (game,), (), withdrawals)
    report = audit.report_of(log, replay, hasher.root().hex(), pack)
    if rounds or blocks:
        rounds += [dumps(r) for r in report["rounds"]]
        blocks += [Block.of_texts(rounds[i : i + BLOCK]) for i in range(0, len(rounds), BLOCK)]
        report["rounds"] = Packed.of_blocks(blocks)  # a list of the rounds, kept compressed
    return report
