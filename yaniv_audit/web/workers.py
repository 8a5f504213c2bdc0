"""Worker processes for the one costly thing a request does: auditing a posted log.

A Python process runs Python on one core at a time, so the threads of one
server share one core however many requests wait. ``serve --workers N`` sends
the audit of a posted log (reading it, the replay and the report: a few
milliseconds of CPU for 600 events) to N worker processes instead, so that
concurrent requests use every core. The worker gives back the report as the
JSON the server sends; an unreadable log comes back as the same
:class:`~yaniv_audit.web.errors.ApiError` the server would have raised itself.

The request's thread sends the work to a worker over the worker's own pipe and
reads the answer from it: no thread of the server's in between (a process pool's
two helper threads and its queues cost 0.35 ms of CPU a hand-off against 0.11,
about a twentieth of a 600-event log's audit, issue 35).

The workers come from the bulk audit's fork server (:func:`~yaniv_audit.batch.bulk.
worker_context`): a clean process, never a fork of the threaded server. Each
ends when the server does, even one killed outright. A worker found dead when a
request takes it (it died while idle) is replaced and the request sent to
another; a worker that dies in the middle of an audit fails the requests sent to
it with a 503, and a new worker takes its place.
"""

from __future__ import annotations

import os
import pickle
import threading
import traceback
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from ..batch.bulk import PRELOAD, exit_with_parent, no_gc, worker_context
from .errors import ApiError

T = TypeVar("T")

#: what a worker needs: the audit and the API's reading of a posted log
WEB_PRELOAD = [*PRELOAD, "yaniv_audit.web.api"]


class RemoteTraceback(Exception):
    """Where an exception was raised in a worker (its ``__cause__`` in the server, so that
    the server's log of an internal error shows the worker's traceback)."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}" if self.args else ""


class _Waiter:
    """A request waiting for its turn: handed a worker (or None: the server stops), or
    free to read its answer, when its lock is released."""

    __slots__ = ("idle", "lock", "worker")

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.lock.acquire()
        self.worker: _Worker | None = None
        self.idle = False


class _Worker:
    __slots__ = ("conn", "load", "process", "readers", "sending")

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        #: requests given this worker whose answers are not read yet (the pool's lock)
        self.load = 0
        #: the requests sent to it, in the order sent, each reading its answer in turn
        self.readers: deque[_Waiter] = deque()
        self.sending = threading.Lock()

    def stop(self, wait: float) -> None:
        self.conn.close()  # the worker reads the end of its pipe and exits
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1)


class Workers:
    """``processes`` worker processes, started by :meth:`start` (from the main thread,
    before serving) or by the first request.

    A request goes to the worker with the fewest requests, at most :attr:`DEPTH` each:
    the next one waits in the worker's pipe while it works, so that a worker never
    waits for the server's threads between two audits. Past that, requests wait their
    turn, first come first served (as a process pool's queue serves them).
    """

    #: requests sent to one worker at once
    DEPTH = 2

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._lock = threading.Lock()
        #: a worker came back or died (what :meth:`close` waits for)
        self._changed = threading.Condition(self._lock)
        self._all: list[_Worker] = []
        #: requests waiting for a worker, the first first (none while one has room)
        self._waiting: deque[_Waiter] = deque()
        self._closed = False

    def start(self) -> None:
        """Start every worker now and wait until each answers, so the first requests do
        not pay for it."""
        self._start_missing()
        with self._lock:
            workers = [w for w in self._all if w.load == 0]
            for worker in workers:
                worker.load += 1
        for worker in workers:
            self._exchange(worker, pickle.dumps((_ready, ()), pickle.HIGHEST_PROTOCOL))

    def run(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` on a worker (waiting for one with room), with no garbage
        collection inside it (as the bulk audit runs); what it raises is raised here.

        A worker found dead with nothing sent to it (it died while idle) is replaced
        and the work sent to another; one dying while it works fails the requests sent
        to it with a 503.
        """
        message = pickle.dumps((func, args), pickle.HIGHEST_PROTOCOL)
        while True:
            worker, idle = self._take()
            if idle:
                try:
                    dead = worker.conn.poll()  # an idle worker says nothing: it is gone
                except OSError:
                    dead = True
                if dead:
                    self._replace(worker)
                    continue
            result: T = self._exchange(worker, message)
            return result

    def close(self) -> None:
        """Stop the workers (waiting for those at work); a request after this is a 503."""
        with self._lock:
            self._closed = True
            for waiter in self._waiting:  # each raises the 503
                waiter.lock.release()
            self._waiting.clear()
            while any(w.load for w in self._all):  # requests at work finish first
                self._changed.wait()
            workers, self._all = self._all, []
        for worker in workers:
            worker.stop(5)

    def _take(self) -> tuple[_Worker, bool]:
        """A worker for one more request (counted in its load), and whether it was idle."""
        self._start_missing()
        with self._lock:
            if self._closed:
                raise _stopped("the server is stopping")
            if self._all:
                worker = min(self._all, key=_load)
                if worker.load < self.DEPTH:
                    worker.load += 1
                    return worker, worker.load == 1
            waiter = _Waiter()
            self._waiting.append(waiter)
        waiter.lock.acquire()  # until a worker is handed to this request
        if waiter.worker is None:
            raise _stopped("the server is stopping")
        return waiter.worker, waiter.idle

    def _exchange(self, worker: _Worker, message: bytes) -> Any:
        """Send ``message`` to ``worker`` and read its answer, in turn with the requests
        sent to it before."""
        me = _Waiter()
        with worker.sending:
            first = not worker.readers
            worker.readers.append(me)
            try:
                worker.conn.send_bytes(message)
                sent = True
            except OSError:  # dead: reading says so
                sent = False
        if not first:
            me.lock.acquire()  # the requests sent before have read their answers
        try:
            if not sent:
                raise EOFError
            answer = worker.conn.recv_bytes()
        except (OSError, EOFError):  # died at work
            self._next_reader(worker)
            self._replace(worker)
            raise _stopped() from None
        self._next_reader(worker)
        self._done(worker)
        ok, value = pickle.loads(answer)
        if ok:
            return value
        error, where = value
        error.__cause__ = RemoteTraceback(where)
        raise error

    @staticmethod
    def _next_reader(worker: _Worker) -> None:
        with worker.sending:
            worker.readers.popleft()
            if worker.readers:
                worker.readers[0].lock.release()

    def _done(self, worker: _Worker) -> None:
        """One request less on ``worker``: room for the request that has waited longest."""
        with self._lock:
            worker.load -= 1
            self._hand(worker)
            self._changed.notify_all()

    def _hand(self, worker: _Worker) -> None:
        """``worker`` to waiting requests while it has room (the lock held)."""
        while self._waiting and worker.load < self.DEPTH and not self._closed:
            waiter = self._waiting.popleft()
            worker.load += 1
            waiter.worker, waiter.idle = worker, worker.load == 1
            waiter.lock.release()

    def _start_missing(self) -> None:
        """Start workers until there are ``processes`` of them (none once closed)."""
        with self._lock:
            missing = 0 if self._closed else self.processes - len(self._all)
        for _ in range(missing):
            context = worker_context(WEB_PRELOAD)
            ours, theirs = context.Pipe()
            process = context.Process(
                target=_serve, args=(theirs, os.getpid()), name="yaniv-audit worker", daemon=True
            )
            process.start()
            theirs.close()
            worker = _Worker(process, ours)
            with self._lock:
                extra = self._closed or len(self._all) >= self.processes
                if not extra:
                    self._all.append(worker)
                    self._hand(worker)
            if extra:  # another thread started one meanwhile
                worker.stop(1)

    def _replace(self, dead: _Worker) -> None:
        with self._lock:
            if dead not in self._all:
                return  # replaced already (by another request sent to it)
            self._all.remove(dead)
            self._changed.notify_all()  # close() may wait for it
        dead.stop(1)
        self._start_missing()


def _load(worker: _Worker) -> int:
    return worker.load


def _stopped(
    why: str = "the worker process auditing this log stopped before it finished",
) -> Exception:
    return ApiError(503, f"{why}; send the request again", None, "worker_stopped", "Worker stopped")


def _serve(conn: Connection, parent: int) -> None:
    """A worker: read a call from ``conn``, send back its result (or what it raised),
    until the server closes its end."""
    exit_with_parent(parent)
    while True:
        try:
            message = conn.recv_bytes()
        except (EOFError, OSError):
            return
        try:
            func, args = pickle.loads(message)
            with no_gc():
                answer = pickle.dumps((True, func(*args)), pickle.HIGHEST_PROTOCOL)
        except Exception as exc:
            where = "".join(traceback.format_exception(exc))
            try:
                answer = pickle.dumps((False, (exc, where)), pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that does not pickle: what it said
                error = RuntimeError(f"{type(exc).__name__}: {exc}")
                answer = pickle.dumps((False, (error, where)), pickle.HIGHEST_PROTOCOL)
        try:
            conn.send_bytes(answer)
        except OSError:
            return


def _ready() -> int:
    """A worker is ready once started: the fork server imported what it needs
    (:data:`WEB_PRELOAD`) before forking it."""
    return os.getpid()
