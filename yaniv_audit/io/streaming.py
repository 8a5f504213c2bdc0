"""The audit of one log file as it is read: the memory of a long game held to what its
report needs (docs/cli.md, memory).

:func:`audit_path` reads the file a batch at a time (:func:`~yaniv_audit.io.codec.stream_log`)
and folds each batch into the replay as it comes: no event is kept once folded, the
fingerprint is hashed as the leaves come (:class:`~yaniv_audit.core.merkle.TreeHasher`),
and each round once over is kept as its report's JSON text (:class:`Rounds`), about a
fifth of the memory of its record and its dict. The report is the one
:func:`~yaniv_audit.core.audit.audit_log` gives for :func:`~yaniv_audit.io.codec.read_log`'s
log, byte for byte (``tests/test_streaming.py`` checks every log of the repository,
read in batches of a few hundred bytes). A log holding a ``withdraw`` (which takes back
events read before it) is read twice: first for its withdrawals, then streamed as any
other, the events they take back left out of the replay. Standard input is read whole.
"""

from __future__ import annotations

import contextlib
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


class Rounds(list[Any]):
    """A report's ``rounds``, each held as its JSON text: orjson writes the report with
    them as they are (``orjson.Fragment``), and Python code reading the report gets each
    round's dict back, as from a list (iterating, indexing, ``len``)."""

    texts: list[bytes]

    @classmethod
    def of_json(cls, texts: list[bytes]) -> Rounds:
        rounds = cls(map(orjson.Fragment, texts))
        rounds.texts = texts  # the fragments' own (they do not give them back)
        return rounds

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return map(orjson.loads, self.texts)

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: SupportsIndex | slice) -> Any:
        if isinstance(index, slice):
            return list(map(orjson.loads, self.texts[index]))
        return orjson.loads(self.texts[index])

    def __eq__(self, other: object) -> bool:
        return list(self) == other if isinstance(other, list) else NotImplemented

    def __reduce__(self) -> tuple[Any, ...]:  # a worker's report reaches its parent
        return Rounds.of_json, (self.texts,)

    def __repr__(self) -> str:
        return f"Rounds({list(self)!r})"


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
    try:
        return _audit_stream(path, rules, strict, chunk)
    except HoldsWithdrawals:
        with contextlib.suppress(ReadWhole):
            known = withdrawals_in(path, chunk)
            return _audit_stream(path, rules, strict, chunk, known)
    except ReadWhole:
        pass
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
    rounds: list[bytes] = []
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
    if unreadable is not None:
        raise unreadable
    assert replay is not None and game is not None
    if not stopped:
        with contextlib.suppress(InconsistentLogError, StopReplay):
            replay.finish()
    log = Log(str(path), (game,), (), withdrawals)
    report = audit.report_of(log, replay, hasher.root().hex())
    if rounds:
        rounds += [b"%b" % dumps(r) for r in report["rounds"]]
        report["rounds"] = Rounds.of_json(rounds)  # a list of the rounds, kept as their JSON
    return report
