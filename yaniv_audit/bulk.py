"""Bulk audit: many log files, one report each, streamed, on all cores.

:func:`audit_stream` is the one path ``yaniv-audit audit`` and
``yaniv-audit bench`` use. Reports come back in the order of the files, one
at a time: nothing holds the whole corpus (or all its reports) in memory, so
memory stays flat in the number of games. With ``jobs > 1`` the files are
audited by a pool of worker processes (fork where available) fed in chunks.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from .rules import RuleSet

Job = tuple[str, "RuleSet | None", bool]


def audit_one(job: Job) -> dict[str, Any]:
    """The report of one file (the unreadable report when it cannot be read)."""
    from .audit import audit_file

    path, rules, strict = job
    return audit_file(path, rules, strict=strict)


def chunk_size(files: int, jobs: int) -> int:
    """Files per task sent to a worker: big enough to amortize, small enough to balance."""
    return max(1, min(64, files // (jobs * 8)))


@contextmanager
def audit_stream(
    files: Sequence[str], rules: RuleSet | None = None, *, strict: bool = False,
    jobs: int | None = None,
) -> Iterator[Iterator[dict[str, Any]]]:
    """Yield an iterator of the files' reports, in file order, audited on ``jobs`` processes.

    ``jobs`` defaults to every core; one file or one job audits in this process.
    The pool, if any, is closed and joined on leaving the ``with`` block.
    """
    jobs = jobs or os.cpu_count() or 1
    work: Iterable[Job] = ((f, rules, strict) for f in files)
    if jobs > 1 and len(files) > 1:
        import multiprocessing

        method = "spawn" if sys.platform == "darwin" else "fork"
        pool = multiprocessing.get_context(method).Pool(min(jobs, len(files)))
        try:
            yield pool.imap(audit_one, work, chunksize=chunk_size(len(files), jobs))
        finally:
            pool.close()
            pool.join()
    else:
        yield map(audit_one, work)
