"""The bulk audit on Dask: the events of an exported archive, audited where they lie.

``yaniv-audit export`` writes the ``events`` table as Hive-partitioned Parquet, every
row of a game under the game's own partition values (the month it started, or the
rules it declared) and with its ``fingerprint`` and declared rules: a game never spans
partition directories, and its events alone are enough to audit it. So the work splits
by directory, with no shuffle: a task reads one directory (or one range of ``game_no``
in it, for a directory of more than ``events_per_task`` events), groups its rows by
game, audits each game with the archive's own
:func:`~yaniv_audit.archive.auditing.audit_archived` and turns the reports into the
archive's derived rows with :func:`~yaniv_audit.archive.rows.derived_rows`, so the rows
are those ``audit --db`` stores.

:func:`audit_parquet` gives the reports as a Dask dataframe (the columns of the
archive's ``audits`` table); :func:`run_audit`, behind ``yaniv-audit audit --parquet``,
writes every derived table as Parquet under ``OUT/<table>/rules=<rules_key>/``, one
file per task and rule set named after the task. A task run again (its worker died:
Dask gives its work to another) writes the same files again, each first to a
temporary name and then renamed, so the output never holds a game twice or half.

Dask, pandas and pyarrow come with the ``dask`` extra: ``pip install 'yaniv-audit[dask]'``.
"""

from __future__ import annotations

import logging
import math
import os
import posixpath
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar
from urllib.parse import quote

import dask.dataframe as dd
import fsspec
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq
from distributed import Client, LocalCluster, progress

from ..archive import DERIVED, add_derived, audit_archived, derived_tables
from ..core.errors import YanivAuditError
from ..core.rules import RuleSet
from ..io.rules_files import resolve_rules

T = TypeVar("T")

#: events a task reads at most (about): a larger partition directory is split by game_no
EVENTS_PER_TASK = 1_000_000
#: tasks a worker gets at least, when the events are few (so that none waits on one)
TASKS_PER_WORKER = 4
#: ... unless tasks would get smaller than this
MIN_EVENTS_PER_TASK = 20_000
#: the columns of the exported events a task reads
EVENT_COLUMNS = ("game_no", "seq", "fingerprint", "event")
#: the verdicts counted, in the order the summary gives them
VERDICTS = ("clean", "claims", "violations", "corrupt", "unreadable")


class DistributedError(YanivAuditError):
    """The Parquet, the scheduler or the output directory cannot be used (one line).
    ``usage``: the command was given something it cannot use (exit 2), not bad data."""

    def __init__(self, message: str, *, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def filesystem(url: str) -> tuple[fsspec.AbstractFileSystem, str]:
    """The fsspec file system of ``url`` (a path, ``file://``, ``s3://bucket/x``,
    ``simplecache::s3://...``) and the path in it; a protocol fsspec does not know, or
    whose package is not installed, in one line saying what to install."""
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except ImportError as exc:
        missing = getattr(exc.__cause__, "name", None) or exc.name
        protocol = url.split("://", 1)[0]
        if not missing:
            raise DistributedError(
                f"{url}: {protocol}:// cannot be used here ({exc})", usage=True
            ) from None
        raise DistributedError(
            f"{url}: fsspec opens {protocol}:// with the package {missing}, which is not "
            f"installed: pip install {missing} (here and on every Dask worker)",
            usage=True,
        ) from None
    except ValueError as exc:  # fsspec's "Protocol not known: foo"
        if "protocol not known" not in str(exc).lower():
            raise DistributedError(
                f"{url}: not a path or URL fsspec can open ({exc})", usage=True
            ) from None
        protocol = url.split("://", 1)[0]
        raise DistributedError(
            f"{url}: fsspec knows no file system {protocol}://; give a local path or a URL "
            "such as file:///data/export or s3://bucket/export",
            usage=True,
        ) from None
    return fs, str(path)


@dataclass(frozen=True, slots=True)
class Task:
    """One task's share of the events: the games of ``low <= game_no < high`` in one
    partition directory (its ``files``)."""

    index: int
    partition: str
    files: tuple[str, ...]
    low: int
    high: int


# --- planning: which task reads what ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Directory:
    """One partition directory of the events, from its Parquet footers."""

    partition: str
    files: tuple[str, ...]
    rows: int
    low: int
    high: int


def scan(source: str) -> tuple[fsspec.AbstractFileSystem, list[Directory]]:
    """The file system of ``source`` (an export's directory, or an fsspec URL such as
    ``s3://bucket/export``) and the partition directories of its events, read from the
    Parquet footers only (row counts, and the min and max ``game_no`` of each row group)."""
    fs, root = filesystem(source)
    events = posixpath.join(root.rstrip("/"), "events")
    if not _probe(source, lambda: fs.isdir(events)):
        raise DistributedError(
            f"{source}: no events/ directory; give the directory `yaniv-audit export DIR` wrote"
        )
    by_dir: dict[str, list[str]] = {}
    for path in sorted(fs.find(events)):
        if path.endswith(".parquet"):
            by_dir.setdefault(posixpath.dirname(path), []).append(path)
    if not by_dir:
        raise DistributedError(f"{source}: events/ holds no Parquet file")
    found = []
    for directory, files in sorted(by_dir.items()):
        rows, low, high = _extent(fs, files)
        if rows:
            found.append(
                Directory(posixpath.relpath(directory, events), tuple(files), rows, low, high)
            )
    if not found:
        raise DistributedError(f"{source}: the events hold no rows")
    return fs, found


def _probe(url: str, call: Callable[[], T]) -> T:
    """``call()``, the first access to a user's file system: whatever it raises (a
    missing directory, a refused connection, no credentials: each store has its own
    exceptions) said in one line."""
    try:
        return call()
    except Exception as exc:
        raise DistributedError(
            f"{url}: cannot be read or written ({type(exc).__name__}: {exc})"
        ) from None


def split(directories: Sequence[Directory], events_per_task: int) -> list[Task]:
    """The tasks: each directory whole, or cut into ranges of game_no of about
    ``events_per_task`` events each (every game_no in exactly one range)."""
    if events_per_task < 1:
        raise ValueError("events_per_task must be at least 1")
    tasks: list[Task] = []
    for d in directories:
        pieces = max(1, math.ceil(d.rows / events_per_task))
        width = math.ceil((d.high + 1 - d.low) / pieces)
        for start in range(d.low, d.high + 1, width):
            tasks.append(
                Task(len(tasks), d.partition, d.files, start, min(start + width, d.high + 1))
            )
    return tasks


def plan(
    source: str,
    events_per_task: int = EVENTS_PER_TASK,
) -> tuple[fsspec.AbstractFileSystem, list[Task]]:
    """The file system of ``source`` and the tasks that read its events."""
    fs, directories = scan(source)
    return fs, split(directories, events_per_task)


def _extent(fs: fsspec.AbstractFileSystem, files: Sequence[str]) -> tuple[int, int, int]:
    """(rows, min game_no, max game_no) of the event files of one directory."""
    rows, low, high = 0, sys.maxsize, -1
    for path in files:
        with fs.open(path, "rb") as handle:
            try:
                meta = pq.read_metadata(handle)
            except (OSError, pa.ArrowException) as exc:
                raise DistributedError(f"{path}: not a Parquet file ({exc})") from None
        names = meta.schema.to_arrow_schema().names
        missing = [c for c in EVENT_COLUMNS if c not in names]
        if missing:
            raise DistributedError(
                f"{path}: the events have no {', '.join(missing)} column; export the "
                "archive again with this version (yaniv-audit export)"
            )
        column = next(i for i in range(meta.num_columns) if meta.schema.column(i).path == "game_no")
        groups = [meta.row_group(g) for g in range(meta.num_row_groups)]
        stats = [g.column(column).statistics for g in groups if g.num_rows]
        if all(s is not None and s.has_min_max for s in stats):
            rows += sum(g.num_rows for g in groups)
            low = min([low, *(s.min for s in stats)])
            high = max([high, *(s.max for s in stats)])
            continue
        with fs.open(path, "rb") as handle:  # no statistics: read the column
            games = pq.read_table(handle, columns=["game_no"])["game_no"]
        if len(games):
            rows += len(games)
            low = min(low, pc.min(games).as_py())
            high = max(high, pc.max(games).as_py())
    return rows, low, high


# --- one task: read, group by game, audit -----------------------------------------------


def _games(fs: fsspec.AbstractFileSystem, task: Task) -> Iterator[tuple[int, str, bytes]]:
    """(game_no, fingerprint, JSON Lines) of each game of the task, in game_no order."""
    dataset = pads.dataset(list(task.files), filesystem=fs, format="parquet")
    wanted = (pads.field("game_no") >= task.low) & (pads.field("game_no") < task.high)
    table = dataset.to_table(columns=list(EVENT_COLUMNS), filter=wanted)
    table = table.sort_by([("game_no", "ascending"), ("seq", "ascending")])
    numbers = table["game_no"].to_pylist()
    seqs = table["seq"].to_pylist()
    prints = table["fingerprint"].to_pylist()
    events = table["event"].to_pylist()
    start = 0
    while start < len(numbers):
        game = numbers[start]
        end = start
        while end < len(numbers) and numbers[end] == game:
            end += 1
        if seqs[start:end] != list(range(end - start)):
            raise DistributedError(
                f"{task.partition}: game_no {game} has events {seqs[start]} to "
                f"{seqs[end - 1]} of {end - start} here: its events are not all in this "
                "partition, or are repeated; export the archive again"
            )
        yield game, prints[start], ("\n".join(events[start:end]) + "\n").encode("utf-8")
        start = end


def _audit_task(
    task: Task,
    fs: fsspec.AbstractFileSystem,
    rule_sets: Sequence[RuleSet | None],
) -> tuple[dict[str, pa.Table], Counter[str]]:
    """The derived tables of the task's games under each rule set (as Arrow tables with
    the archive's column types), and counts: games, events, reports of each verdict."""
    rows: dict[str, list[tuple[Any, ...]]] = {table: [] for table in DERIVED}
    counts: Counter[str] = Counter()
    keys: dict[str, str] = {}
    now = datetime.now(UTC)
    for game_no, fingerprint, data in _games(fs, task):
        counts["games"] += 1
        counts["events"] += data.count(b"\n")
        source = f"{task.partition} game_no {game_no}"
        for report in audit_archived((fingerprint, source, data, rule_sets)):
            counts[report["verdict"]] += 1
            add_derived(rows, report, game_no, keys, now)  # as audit --db
    return derived_tables(rows), counts


# --- the Python API ---------------------------------------------------------------------


def _rule_sets(rules: Sequence[RuleSet | str | None]) -> list[RuleSet | None]:
    resolved = [resolve_rules(r) if isinstance(r, str) else r for r in rules]
    return list(dict.fromkeys(resolved)) or [None]


def _frame(table: pa.Table) -> pd.DataFrame:
    """Arrow-typed columns, so that Dask leaves lists (``winners``) as lists."""
    return table.to_pandas(types_mapper=pd.ArrowDtype)


def _reports(
    task: Task, fs: fsspec.AbstractFileSystem, rule_sets: Sequence[RuleSet | None]
) -> pd.DataFrame:
    return _frame(_audit_task(task, fs, rule_sets)[0]["audits"])


def audit_parquet(
    source: str,
    rules: Sequence[RuleSet | str | None] = (),
    *,
    events_per_task: int = EVENTS_PER_TASK,
) -> dd.DataFrame:
    """The audit reports of the games of an export (``yaniv-audit export DIR``; a path or
    an fsspec URL), as a lazy Dask dataframe: one row per game and rule set, with the
    columns of the archive's ``audits`` table (``report`` is the report's JSON).

    ``rules``: rule sets or their ids (none: each game under the rules it declares).
    Compute it on whichever Dask client is current::

        from distributed import Client
        from yaniv_audit.batch.distributed import audit_parquet
        with Client("tcp://scheduler:8786"):
            reports = audit_parquet("s3://club/export", ["israeli", "classic"]).compute()
    """
    fs, tasks = plan(source, events_per_task)
    meta = _frame(derived_tables({})["audits"])
    reports: dd.DataFrame = dd.from_map(
        _reports,
        tasks,
        args=(fs, _rule_sets(rules)),
        meta=meta,
        label="yaniv-audit",
        enforce_metadata=False,
    )
    return reports


# --- the command: audit and write the derived tables ------------------------------------


def _audit_and_write(
    task: Task,
    fs: fsspec.AbstractFileSystem,
    rule_sets: Sequence[RuleSet | None],
    out_fs: fsspec.AbstractFileSystem,
    out: str,
) -> pd.DataFrame:
    """Audit one task and write its derived tables under ``out``; its counts, one row."""
    tables, counts = _audit_task(task, fs, rule_sets)
    for name, table in tables.items():
        counts[name] = table.num_rows
        for key in pc.unique(table["rules_key"]).to_pylist():
            directory = posixpath.join(out, name, "rules=" + quote(key, safe=""))
            out_fs.makedirs(directory, exist_ok=True)
            final = posixpath.join(directory, f"part-{task.index:05d}.parquet")
            temporary = posixpath.join(directory, f".part-{task.index:05d}.{uuid.uuid4().hex}.tmp")
            with out_fs.open(temporary, "wb") as handle:
                pq.write_table(table.filter(pc.equal(table["rules_key"], key)), handle)
            out_fs.mv(temporary, final)
    return pd.DataFrame([{c: counts.get(c, 0) for c in COUNTS}])


#: what each task counts
COUNTS = ("games", "events", *VERDICTS, *DERIVED)


@dataclass(frozen=True, slots=True)
class Summary:
    """What ``audit --parquet`` did."""

    counts: dict[str, int]
    rule_sets: int
    #: from the first task sent to the last result back
    seconds: float
    #: connecting, or starting the local cluster
    startup: float
    workers: int
    tasks: int

    @property
    def events_per_second(self) -> float:
        return self.counts["events"] * self.rule_sets / self.seconds if self.seconds else 0.0


@contextmanager
def connect(scheduler: str, workers: int | None = None) -> Iterator[Client]:
    """A client of a new local cluster (``local``: ``workers`` processes, all cores by
    default) or of the scheduler at an address (``tcp://host:8786``)."""
    if scheduler == "local":
        with (
            LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
            yield client
        return
    if workers is not None:
        raise DistributedError(
            "--workers goes with --scheduler local; a running scheduler has the workers it has"
        )
    try:
        client = Client(scheduler, timeout="20s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise DistributedError(f"cannot reach the Dask scheduler at {scheduler} ({exc})") from None
    with client:
        yield client


def prepare_out(out: str) -> tuple[fsspec.AbstractFileSystem, str]:
    """The file system and path of a new or empty output directory."""
    out_fs, path = filesystem(out)
    if _probe(
        out, lambda: out_fs.exists(path) and (not out_fs.isdir(path) or bool(out_fs.ls(path)))
    ):
        raise DistributedError(
            f"{out}: exists and is not an empty directory; the results go into a new or empty one",
            usage=True,
        )
    _probe(out, lambda: out_fs.makedirs(path, exist_ok=True))
    return out_fs, path


def run_audit(
    source: str,
    rules: Sequence[RuleSet | str | None],
    scheduler: str,
    out: str,
    *,
    workers: int | None = None,
    events_per_task: int = EVENTS_PER_TASK,
    show_progress: bool = False,
) -> Summary:
    """``audit --parquet``: audit the export at ``source`` on a Dask cluster and write the
    derived tables under ``out`` (``OUT/<table>/rules=<rules_key>/part-N.parquet``)."""
    filesystem(out)  # a URL of no usable file system said before the export is read
    fs, directories = scan(source)
    out_fs, out_path = prepare_out(out)
    rule_sets = _rule_sets(rules)
    begun = time.perf_counter()
    with connect(scheduler, workers) as client:
        start = time.perf_counter()
        # at least TASKS_PER_WORKER tasks a worker, for balance, unless they get tiny
        total = sum(d.rows for d in directories)
        share = math.ceil(total / (TASKS_PER_WORKER * max(1, len(client.nthreads()))))
        tasks = split(directories, min(events_per_task, max(MIN_EVENTS_PER_TASK, share)))
        frame = dd.from_map(
            _audit_and_write,
            tasks,
            args=(fs, rule_sets, out_fs, out_path),
            meta=pd.DataFrame({c: pd.Series(dtype="int64") for c in COUNTS}),
            label="yaniv-audit",
            enforce_metadata=False,
        )
        future = client.compute(frame)
        if show_progress:
            with redirect_stdout(sys.stderr):  # Dask draws its bar on stdout
                progress(future)
        counts = future.result()
        seconds = time.perf_counter() - start
        size = len(client.nthreads())
    for leftover in out_fs.glob(posixpath.join(out_path, "*", "*", ".part-*.tmp")):
        out_fs.rm(leftover)  # written by a task whose worker died before renaming it
    totals = {c: int(counts[c].sum()) if len(counts) else 0 for c in COUNTS}
    return Summary(totals, len(rule_sets), seconds, start - begun, size, len(tasks))
