"""A game as it grows (a live table, ``/api/v1/tables``): its log read and audited entry
by entry, each append paying for its own entries only.

:class:`LiveGame` keeps what a full read and audit of the log would build, and brings it
forward with each batch of new entries (:meth:`LiveGame.append`):

- the reader's state (:class:`~yaniv_audit.io.codec._LogBuilder`: the typed events, their
  leaves and the structural checks), which reads the new JSON Lines exactly as
  :func:`~yaniv_audit.io.codec.parse_jsonl` reads a whole log, and is put back as it was
  when one of them is unreadable (nothing of the batch is kept);
- the fingerprint, as RFC 6962's compact range (the roots of the perfect subtrees, a
  binary counter): O(log n) hashes per entry instead of the whole tree;
- the engine's fold (:class:`~yaniv_audit.core.engine.Replay`), applied to the new
  entries only. A ``withdraw`` that takes entries back folds the log again from its
  first event, skipping the entries taken back (what the audit of the whole log does):
  3.6 ms at 1,500 entries, paid by the withdrawal only. The answer after an append
  is the engine's ``finish`` of the log as it stands: when that would change the fold
  (a stock exhaustion pending at the end, rare), it finishes a copy.

The state and report after each append are those of :func:`~yaniv_audit.core.table_state.
table_state` and ``yaniv-audit audit --json`` for the same log, byte for byte
(``tests/web/test_tables.py`` compares them).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import msgspec

from ..core.engine import Replay
from ..core.errors import InconsistentLogError, LogFormatError
from ..core.events import Event, GameStarted, Log
from ..core.merkle import leaf_hash, node_hash
from ..core.table_state import TableState, state_after
from .codec import _LogBuilder, _read_lines, problem_error

_set = msgspec.structs.force_setattr


class CompactRange:
    """The Merkle tree hash of a growing list of leaves, one leaf at a time: the roots of
    its perfect subtrees, largest first (RFC 6962's tree of n leaves is them folded
    from the right)."""

    __slots__ = ("roots", "sizes")

    def __init__(self) -> None:
        self.roots: list[bytes] = []
        self.sizes: list[int] = []

    def add(self, leaf: bytes) -> None:
        roots, sizes = self.roots, self.sizes
        roots.append(leaf_hash(leaf))
        sizes.append(1)
        while len(sizes) > 1 and sizes[-1] == sizes[-2]:
            right, left = roots.pop(), roots.pop()
            sizes.pop()
            sizes[-1] *= 2
            roots.append(node_hash(left, right))

    def root(self) -> bytes:
        if not self.roots:
            import hashlib

            return hashlib.sha256(b"").digest()
        root = self.roots[-1]
        for left in reversed(self.roots[:-1]):
            root = node_hash(left, root)
        return root

    def copy(self) -> CompactRange:
        other = CompactRange()
        other.roots, other.sizes = list(self.roots), list(self.sizes)
        return other


def read_lines(builder: _LogBuilder, data: bytes) -> int:
    """The JSON Lines of ``data`` read into ``builder`` after its events, each line as
    :func:`~yaniv_audit.io.codec.parse_jsonl` reads it (blank lines skipped, errors naming the
    line of ``data``); how many events were read. On an error the builder may hold part
    of them: the caller puts it back."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    before = len(builder.events)
    lines = data.split(b"\n")
    _read_lines(builder, lines, 0, len(lines))
    return len(builder.events) - before


class LiveGame:
    """One game's log so far, read and folded (see the module). Not thread-safe: its
    owner appends under a lock."""

    def __init__(self, source: str = "table") -> None:
        self.source = source
        self.builder = _LogBuilder(source)
        self.range = CompactRange()
        self.replay: Replay | None = None
        #: the fold stopped at an impossible event (as the audit stops)
        self.stopped = False
        #: entries taken back by the withdrawals so far (by seq)
        self.withdrawn: dict[int, int] = {}

    @property
    def count(self) -> int:
        return len(self.builder.events)

    @property
    def events(self) -> list[Event]:
        return self.builder.events

    @property
    def leaves(self) -> list[bytes]:
        return self.builder.leaves

    def fingerprint(self) -> str:
        return self.range.root().hex()

    def log(self) -> Log:
        b = self.builder
        return Log(self.source, tuple(b.events), tuple(b.leaves), b.checker.withdrawals)

    def append(self, data: bytes) -> list[Event]:
        """Read the JSON Lines ``data`` as the next entries and fold them; the events read.
        An unreadable line raises :class:`LogFormatError` (its ``line`` the line of
        ``data``) and nothing of ``data`` is kept. A batch with no event raises too."""
        b = self.builder
        before, saved = len(b.events), b.checker.state()
        try:
            if not read_lines(b, data):
                raise LogFormatError(
                    "no event: send one event per line (JSON Lines)", line=None, index=before
                )
            if before == 0:
                problem = b.checker.finish()
                if problem is not None:
                    raise problem_error(problem)
        except BaseException:
            b.checker.restore(saved)
            del b.events[before:], b.leaves[before:]
            raise
        new = b.events[before:]
        for event in new:
            _set(event, "line", event.index + 1)  # its line in the table's log
            self.range.add(b.leaves[event.index])
        try:
            self._fold(new)
        except BaseException:
            # the engine found the log unreadable (as the audit would): back as before
            b.checker.restore(saved)
            del b.events[before:], b.leaves[before:]
            self._refold_all()
            self.range = CompactRange()
            for leaf in b.leaves:
                self.range.add(leaf)
            raise
        return new

    def _fold(self, new: Sequence[Event]) -> None:
        withdrawals = self.builder.checker.withdrawals
        taken = withdrawals.withdrawn if withdrawals else {}
        if self.replay is None or len(taken) != len(self.withdrawn):
            self._refold_all()  # the first fold, or a withdrawal took entries back
            return
        replay = self.replay
        replay.withdrawals = withdrawals
        if self.stopped:
            return
        try:
            for event in new:
                replay.apply(event)
        except InconsistentLogError:
            self.stopped = True

    def _refold_all(self) -> None:
        """Fold the log again from its first event, as the audit does: the entries taken
        back skipped."""
        b = self.builder
        withdrawals = b.checker.withdrawals
        taken = dict(withdrawals.withdrawn) if withdrawals else {}
        game = b.events[0] if b.events else None
        if not isinstance(game, GameStarted):
            self.replay, self.stopped, self.withdrawn = None, False, taken
            return
        replay = Replay(game, game.rules)
        replay.withdrawals = withdrawals
        stopped = False
        try:
            for event in b.events:
                if event.index not in taken:
                    replay.apply(event)
        except InconsistentLogError:
            stopped = True
        self.replay, self.stopped, self.withdrawn = replay, stopped, taken

    def state(self) -> TableState:
        """:func:`~yaniv_audit.core.table_state.table_state` of the log so far."""
        replay = self.replay
        assert replay is not None
        r = replay.round
        if not self.stopped and r is not None and r.exhaust_pending:
            replay = copy.deepcopy(replay)  # finish would end the round: keep the fold's
        return state_after(self.log(), replay, self.stopped, self.fingerprint())
