"""A token bucket per client address: how often one address may do something (open a
live table: ``POST /api/v1/tables``, docs/web.md "Live tables").

Each address has a bucket of ``per_minute`` tokens, refilled at ``per_minute`` a minute;
each request takes one, and a request that finds none is refused with the seconds until
one is back (the ``Retry-After`` of its 429). The buckets are bounded in number: a full
bucket is forgotten (it is what an address never seen gets), and past :data:`MAX_ADDRESSES`
the address unseen the longest is forgotten first.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

#: the addresses whose buckets are kept at most (about 100 bytes each)
MAX_ADDRESSES = 10_000


class RateLimit:
    """``per_minute`` requests a minute per address, ``per_minute`` at once at most; 0:
    no limit. ``clock`` gives seconds (monotonic; a test gives its own)."""

    def __init__(
        self,
        per_minute: float,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.max_addresses = max_addresses
        self.lock = threading.Lock()
        #: address -> (tokens, when they were counted), the address seen latest last
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, address: str) -> float:
        """Take a token for ``address``: 0.0 when it had one, else the seconds until it
        has one (nothing taken)."""
        if self.per_minute <= 0:
            return 0.0
        rate, full = self.per_minute / 60.0, float(self.per_minute)
        now = self.clock()
        with self.lock:
            tokens, then = self.buckets.pop(address, (full, now))
            tokens = min(full, tokens + (now - then) * rate)
            if tokens < 1.0:
                self.buckets[address] = (tokens, now)
                return (1.0 - tokens) / rate
            self.buckets[address] = (tokens - 1.0, now)
            self._forget(now, rate, full)
        return 0.0

    def _forget(self, now: float, rate: float, full: float) -> None:
        """Forget the buckets full again (from the address unseen the longest), and the
        oldest past :attr:`max_addresses`."""
        while len(self.buckets) > self.max_addresses:
            self.buckets.popitem(last=False)
        for address, (tokens, then) in list(self.buckets.items())[:8]:
            if tokens + (now - then) * rate < full:
                break
            del self.buckets[address]


def retry_after(seconds: float) -> int:
    """The whole seconds of a ``Retry-After`` that waits at least ``seconds``."""
    return max(1, math.ceil(seconds))
