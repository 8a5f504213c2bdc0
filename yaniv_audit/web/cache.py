"""A bounded LRU of finished answers (audit reports, board data, pages), by what decides
them: a game's fingerprint, the rule set's parameters, the seat.

A fingerprint names a game's events exactly, so an entry never goes stale; the
cache only forgets the least recently used answers when it holds more than its
byte budget. Each entry keeps its JSON and, once asked for, its gzip form.
"""

from __future__ import annotations

import gzip
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

#: the default budget: about 250 boards of a 600-event game
DEFAULT_BYTES = 64 << 20


class Entry:
    __slots__ = ("_gzipped", "body")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self._gzipped: bytes | None = None

    def gzipped(self) -> bytes:
        if self._gzipped is None:
            self._gzipped = gzip.compress(self.body, compresslevel=5, mtime=0)
        return self._gzipped


class AnswerCache:
    """JSON bodies by key, the least recently used dropped past ``budget`` bytes."""

    def __init__(self, budget: int = DEFAULT_BYTES) -> None:
        self.budget = budget
        self.hits = self.misses = 0
        self._size = 0
        self._entries: OrderedDict[Hashable, Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable) -> Entry | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry

    def put(self, key: Hashable, body: bytes) -> Entry:
        entry = Entry(body)
        if len(body) > self.budget:
            return entry
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= len(old.body)
            self._entries[key] = entry
            self._size += len(body)
            while self._size > self.budget:
                _, dropped = self._entries.popitem(last=False)
                self._size -= len(dropped.body)
        return entry

    def build_once(self, key: Hashable, build: Callable[[], bytes]) -> Entry:
        """The entry for ``key``, made by ``build`` if missing, by one request at a time:
        the others asking for it meanwhile wait for that one's (issue 35: after each write
        the 8 threads serving 40 readers of one game's page each built it again)."""
        entry = self.get(key)
        if entry is not None:
            return entry
        with self._lock:
            building = self._building.setdefault(key, threading.Lock())
        try:
            with building:
                with self._lock:
                    entry = self._entries.get(key)  # built meanwhile by another request
                    if entry is not None:
                        self._entries.move_to_end(key)
                if entry is None:
                    entry = self.put(key, build())
        finally:
            with self._lock:
                if self._building.get(key) is building:
                    del self._building[key]
        return entry

    def __len__(self) -> int:
        return len(self._entries)
