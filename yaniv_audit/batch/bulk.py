"""Bulk audit: many log files, one report each, streamed, on all cores.

:func:`audit_stream` is the one path ``yaniv-audit audit`` and
``yaniv-audit bench`` use. Reports come back in the order of the files, one
at a time: nothing holds the whole corpus (or all its reports) in memory, so
memory stays flat in the number of games. With ``jobs > 1`` the files are
audited by a pool of worker processes (:func:`worker_pool`) fed in chunks.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from multiprocessing import forkserver, resource_tracker
from typing import Any

from ..core.errors import InternalError, LogFormatError
from ..core.report import AnyReport
from ..core.rules import RuleSet

Job = tuple[str, "RuleSet | None", bool]


def audit_one(job: Job) -> AnyReport:
    """The report of one file (the unreadable report when it cannot be read)."""
    path, rules, strict = job
    with no_gc():
        return audit_file(path, rules, strict=strict)


def audit_file(path: str, rules: RuleSet | None = None, *, strict: bool = False) -> AnyReport:
    """Read and audit one file; an unreadable one gives the unreadable report."""
    # heavy (marshmallow, the engine): imported by the workers that audit, not by
    # every command that imports this module
    from ..core.audit import unreadable_report
    from ..io.streaming import audit_path

    try:  # folded as it is read: a long game is never held whole
        report = audit_path(path, rules, strict=strict)
    except LogFormatError as exc:
        return unreadable_report(path, exc)
    except Exception as exc:  # a bug: name the log, so that it can be sent to us
        raise InternalError(path, f"{type(exc).__name__}: {exc}") from exc
    report["file"] = path
    return report


@contextmanager
def no_gc() -> Iterator[None]:
    """No cyclic garbage collection inside one log's work: a replay makes no reference
    cycles (its handlers are a class-level table), so the collector's passes over the
    many small objects of a log are pure cost. It runs again between logs."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


#: what a worker needs, imported once in the fork server rather than in every worker
PRELOAD = [
    "yaniv_audit.core.audit",
    "yaniv_audit.io.codec",
    "yaniv_audit.io.streaming",
    "yaniv_audit.core.engine",
    "yaniv_audit.batch.bulk",
    "yaniv_audit.batch.simulate",
]


def worker_pool(processes: int) -> Any:
    """A pool of worker processes that inherit nothing but the modules they need
    (from :func:`worker_context`), each ending when this process does.

    Ctrl-C is held off while the pool starts: one arriving in the middle left the
    workers already started to a pool nobody could end (``Pool()`` ends them on an
    Exception only), and a worker still reading its start-up data when this process
    exited printed a traceback (its semaphore gone). Held, it comes as soon as the pool
    exists, which is then ended before the KeyboardInterrupt goes on."""
    context = worker_context()
    hold = (
        hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    )
    if hold:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pool = None
    try:
        pool = context.Pool(processes, initializer=exit_with_parent, initargs=(os.getpid(),))
    finally:
        if hold:
            try:  # a Ctrl-C held meanwhile is raised here, by the unblocking call
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            except KeyboardInterrupt:
                if pool is not None:
                    pool.terminate()
                    pool.join()
                raise
    return pool


def worker_context(preload: Sequence[str] = PRELOAD) -> Any:
    """The multiprocessing context worker processes are started from.

    On Linux the workers come from a fork server: a clean process started once
    that imports ``preload`` and forks each worker. Forking the caller
    itself would copy whatever threads it runs (DuckDB's, a web server's) in
    the middle of what they were doing, which can crash or hang a worker.
    Elsewhere (macOS, Windows) the workers are spawned.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    server = multiprocessing.get_context("forkserver")
    server.set_forkserver_preload(list(preload))
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "pthread_sigmask"):
        # the fork server starts with Ctrl-C blocked, which it and its workers keep
        # (Ctrl-C is the parent's to handle; the server then ignores it, and so does
        # each worker once it runs): one arriving while the server imports would print
        # its traceback. Blocked, not ignored, here: one arriving meanwhile is raised
        # as soon as the server is up, or at once by a thread of this process that does
        # not block it (ignored, it was lost and the work went on). The resource
        # tracker the server needs is started first, as its start unblocks Ctrl-C
        resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            forkserver.ensure_running()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    return server


def exit_with_parent(parent: int, every: float = 0.25) -> None:
    """In a worker: ignore Ctrl-C (the parent ends the pool) and exit as soon as the
    process that started the pool is gone.

    A pool's workers outlive a parent that was killed outright (``kill -9``):
    nothing tells them. A daemon thread looks every ``every`` seconds and ends
    the worker when the parent no longer exists or the worker was handed to
    another parent (the fork server, its own parent, exits with the caller).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    first = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(every)
            try:
                os.kill(parent, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass  # the pid exists
            if os.getppid() != first:
                os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def chunk_size(files: int, jobs: int) -> int:
    """Files per task sent to a worker: big enough to amortize, small enough to balance."""
    return max(1, min(16, files // (jobs * 8)))


@contextmanager
def mapped(
    func: Callable[[Any], Any],
    items: Iterable[Any],
    count: int,
    jobs: int | None = None,
    preload: Sequence[str] = PRELOAD,
) -> Iterator[Iterator[Any]]:
    """Yield ``func`` over the ``count`` items, in order, on ``jobs`` worker processes
    (default: every core) when there is work for several, else in this process.

    ``preload``: what the fork server imports when it starts here, so that each worker
    has it at no cost (``func``'s module and what it imports at its first item): one
    import in the server instead of one in every worker. A process has one fork server,
    started with the preload of the first pool or process it started.

    The pool, if any, is closed and joined on leaving the ``with`` block.
    """
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1 and count > 1:
        if preload is not PRELOAD:
            worker_context(preload)  # the fork server, started with these if not running
        pool = worker_pool(min(jobs, count))
        chunk = chunk_size(count, jobs)
        bounded = _Bounded(pool, func, items, chunk, window=2 * jobs * chunk)
        try:
            yield iter(bounded)
        except BaseException:
            bounded.stop()
            pool.terminate()  # an error or Ctrl-C: the rest of the work is not wanted
            raise
        else:
            pool.close()
        finally:
            pool.join()
    else:
        yield map(func, items)


class _Bounded:
    """``pool.imap`` with at most ``window`` items in flight.

    A pool's task thread reads its input as fast as it can and keeps every
    result until it is taken, so a consumer slower than the workers (one that
    writes to a database, say) would hold the whole corpus in memory. Here
    an item is handed on only when fewer than ``window`` are out.
    """

    def __init__(
        self, pool: Any, func: Callable[[Any], Any], items: Iterable[Any], chunk: int, window: int
    ) -> None:
        self.free = threading.Semaphore(window)
        self.stopped = False
        self.results = pool.imap(func, self._fed(iter(items)), chunksize=chunk)

    def _fed(self, source: Iterator[Any]) -> Iterator[Any]:
        while True:
            # before the item is even read (a read log is memory held); never blocks
            # for good, so that the pool's task thread can end when the pool does
            while not self.free.acquire(timeout=0.05):
                if self.stopped:
                    return
            try:
                item = next(source)
            except StopIteration:
                return
            yield item

    def __iter__(self) -> Iterator[Any]:
        for result in self.results:
            self.free.release()
            yield result

    def stop(self) -> None:
        self.stopped = True


#: below this many bytes of logs a worker pool costs more than it saves: starting one
#: takes about 0.4 s here, the time one core audits some 3 MB of logs (about 7 MB/s)
POOL_MIN_BYTES = 4 << 20


def small_work(files: Sequence[str]) -> bool:
    """Whether the files are few and small enough to audit in this process."""
    total = 0
    for path in files:
        try:
            total += os.stat(path).st_size
        except OSError:
            continue  # unreadable: the audit says so, at no cost
        if total >= POOL_MIN_BYTES:
            return False
    return True


def audit_stream(
    files: Sequence[str],
    rules: RuleSet | None = None,
    *,
    strict: bool = False,
    jobs: int | None = None,
) -> AbstractContextManager[Iterator[dict[str, Any]]]:
    """The files' reports, in file order, audited on ``jobs`` processes (a ``with`` block).

    Without ``jobs``, a handful of small files is audited in this process (see
    :data:`POOL_MIN_BYTES`), else on every core.
    """
    if jobs is None and small_work(files):
        jobs = 1
    work: Iterable[Job] = ((f, rules, strict) for f in files)
    return mapped(audit_one, work, len(files), jobs)
