"""Worker processes for the one costly thing a request does: auditing a posted log.

A Python process runs Python on one core at a time, so the threads of one
server share one core however many requests wait. ``serve --workers N`` sends
the audit of a posted log (reading it, the replay and the report: a few
milliseconds of CPU for 600 events) to N worker processes instead, so that
concurrent requests use every core. The worker gives back the report as the
JSON the server sends; an unreadable log comes back as the same
:class:`~yaniv_audit.web.errors.ApiError` the server would have raised itself.

The request's thread hands the work to an idle worker over the worker's own pipe
and reads the answer from it: no thread of the server's in between (a process
pool's two helper threads and its queues cost the server 0.3 ms of CPU a request,
about a twentieth of a 600-event log's audit, issue 35).

The workers come from the bulk audit's fork server (:func:`~yaniv_audit.batch.bulk.
worker_context`): a clean process, never a fork of the threaded server. Each
ends when the server does, even one killed outright. A worker found dead when a
request takes it (it died while idle) is replaced and the request sent to
another; a worker that dies in the middle of an audit fails that request with a
503, and a new worker takes its place.
"""

from __future__ import annotations

import os
import pickle
import threading
import traceback
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


class _Worker:
    __slots__ = ("conn", "process")

    def __init__(self, process: BaseProcess, conn: Connection) -> None:
        self.process = process
        self.conn = conn

    def stop(self, wait: float) -> None:
        self.conn.close()  # the worker reads the end of its pipe and exits
        self.process.join(wait)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(1)


class Workers:
    """``processes`` worker processes, started by :meth:`start` (from the main thread,
    before serving) or by the first request."""

    def __init__(self, processes: int) -> None:
        self.processes = processes
        self._idle: list[_Worker] = []
        self._all: list[_Worker] = []
        self._closed = False
        self._ready = threading.Condition()

    def start(self) -> None:
        """Start every worker now and wait until each answers, so the first requests do
        not pay for it."""
        self._start_missing()
        with self._ready:
            workers = list(self._idle)
        for worker in workers:  # each asked once, unless a request has it already
            with self._ready:
                if worker not in self._idle:
                    continue
                self._idle.remove(worker)
            self._call(worker, _ready, ())

    def run(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)`` on an idle worker (waiting for one), with no garbage
        collection inside it (as the bulk audit runs); what it raises is raised here.

        A worker found dead (it died while idle) is replaced and the work sent to
        another; one dying while it works fails this request with a 503.
        """
        message = pickle.dumps((func, args), pickle.HIGHEST_PROTOCOL)
        while True:
            worker = self._take()
            try:
                if worker.conn.poll():  # an idle worker says nothing: it is gone
                    raise EOFError
                worker.conn.send_bytes(message)
            except (OSError, EOFError):  # died while idle: a new one, and again
                self._replace(worker)
                continue
            result: T = self._answer(worker)
            return result

    def close(self) -> None:
        """Stop the workers (waiting for those at work); a request after this is a 503."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
            while len(self._idle) < len(self._all):  # requests in flight finish first
                self._ready.wait()
            workers, self._idle, self._all = self._all, [], []
        for worker in workers:
            worker.stop(5)

    def _take(self) -> _Worker:
        self._start_missing()
        with self._ready:
            while not self._idle:
                if self._closed:
                    raise _stopped("the server is stopping")
                self._ready.wait()
            if self._closed:
                raise _stopped("the server is stopping")
            return self._idle.pop()

    def _give_back(self, worker: _Worker) -> None:
        with self._ready:
            self._idle.append(worker)
            if self._closed:  # close() waits for it, among the requests refused
                self._ready.notify_all()
            else:
                self._ready.notify()

    def _answer(self, worker: _Worker) -> Any:
        try:
            answer = worker.conn.recv_bytes()
        except (OSError, EOFError):  # died at work
            self._replace(worker)
            raise _stopped() from None
        self._give_back(worker)
        ok, value = pickle.loads(answer)
        if ok:
            return value
        error, where = value
        error.__cause__ = RemoteTraceback(where)
        raise error

    def _call(self, worker: _Worker, func: Callable[..., T], args: tuple[Any, ...]) -> T:
        worker.conn.send_bytes(pickle.dumps((func, args), pickle.HIGHEST_PROTOCOL))
        result: T = self._answer(worker)
        return result

    def _start_missing(self) -> None:
        """Start workers until there are ``processes`` of them (none once closed)."""
        with self._ready:
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
            with self._ready:
                if self._closed or len(self._all) >= self.processes:
                    extra = True
                else:
                    extra = False
                    self._all.append(worker)
                    self._idle.append(worker)
                    self._ready.notify()
            if extra:  # another thread started one meanwhile
                worker.stop(1)

    def _replace(self, dead: _Worker) -> None:
        with self._ready:
            if dead in self._all:
                self._all.remove(dead)
            self._ready.notify_all()  # close() may wait for it
        dead.stop(1)
        self._start_missing()


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
