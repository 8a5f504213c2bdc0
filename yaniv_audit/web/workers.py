"""Worker processes for the one costly thing a request does: auditing a posted log.

A Python process runs Python on one core at a time, so the threads of one
server share one core however many requests wait. ``serve --workers N`` sends
the audit of a posted log (reading it, the replay and the report: a few
milliseconds of CPU for 600 events) to a pool of N worker processes instead, so
that concurrent requests use every core. The worker gives back the report as
the JSON the server sends; an unreadable log comes back as the same
:class:`~yaniv_audit.web.errors.ApiError` the server would have raised itself.

The workers come from the bulk audit's fork server (:func:`~yaniv_audit.batch.bulk.
worker_context`): a clean process, never a fork of the threaded server. Each
ends when the server does, even one killed outright. A worker that dies in the
middle of an audit fails the requests in flight with a 503 and the pool is
started again for the next one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from ..batch.bulk import PRELOAD, exit_with_parent, no_gc, worker_context
from .errors import ApiError

T = TypeVar("T")

#: what a worker needs: the audit and the API's reading of a posted log
WEB_PRELOAD = [*PRELOAD, "yaniv_audit.web.api"]


class Workers:
    """A pool of ``processes`` worker processes, started by :meth:`start` (from the
    main thread, before serving) or by the first request."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._closed = False
        self._lock = threading.Lock()

    def start(self) -> None:
        """Start every worker now and wait until each has imported what it needs, so the
        first requests do not pay for it."""
        pool = self._get()
        for done in [pool.submit(_ready) for _ in range(self.processes)]:
            done.result()

    def run(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` on a worker, with no garbage collection inside it (as the bulk
        audit runs); what it raises is raised here.

        A pool found broken before the work is sent (a worker died while idle) is
        replaced and the work sent to the new one; a worker dying while it works fails
        the requests in flight on that pool with a 503.
        """
        pool = self._get()
        try:
            try:
                future: Future[T] = pool.submit(_without_gc, func, *args)
            except BrokenProcessPool:  # a worker died while idle: a new pool, once
                self._replace(pool)
                pool = self._get()
                future = pool.submit(_without_gc, func, *args)
            return future.result()
        except BrokenProcessPool:
            self._replace(pool)
            raise _stopped() from None

    def close(self) -> None:
        """Stop the workers (waiting for them); a request after this is a 503."""
        with self._lock:
            pool, self._pool, self._closed = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _get(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise _stopped("the server is stopping")
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes,
                    mp_context=worker_context(WEB_PRELOAD),
                    initializer=exit_with_parent,
                    initargs=(os.getpid(),),
                )
            return self._pool

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is broken:
                self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)


def _stopped(
    why: str = "the worker process auditing this log stopped before it finished",
) -> Exception:
    return ApiError(503, f"{why}; send the request again", None, "worker_stopped", "Worker stopped")


def _without_gc(func: Callable[..., T], *args: Any) -> T:
    with no_gc():
        return func(*args)


def _ready() -> int:
    """A worker is ready once started: the fork server imported what it needs
    (:data:`WEB_PRELOAD`) before forking it."""
    return os.getpid()
