"""Export: every table as Parquet files, partitioned Hive-style by month or by rule set."""

from __future__ import annotations

from pathlib import Path

import duckdb

from ..core.errors import ArchiveError
from .base import ArchiveBase, _first_line, _one, damaged_block

#: export: rows of one partition DuckDB buffers before writing them, and partitions open at
#: once (so at most about 480,000 rows of a table in memory, some 70 MB of events)
EXPORT_FLUSH_ROWS = 60_000
EXPORT_OPEN_FILES = 8


#: the tables export writes (the checkpoints stay with the archive they vouch for)
EXPORTED = (
    "games",
    "events",
    "deals",
    "audits",
    "findings",
    "rounds",
    "standings",
    "player_rounds",
)
#: how ``export`` can partition the Parquet files
EXPORT_BY = ("month", "rules")
#: the year and month partition of a game without a start time (no real year or month)
UNDATED = 0


def _export_select(table: str, by: str) -> tuple[str, list[str]]:
    """The SELECT of one table with its partition columns added, and their names."""
    game = "t" if table == "games" else "g"
    join = "" if table == "games" else " JOIN games g USING (game_no)"
    # the events carry their game's fingerprint and declared rules: audited without `games`
    extra = ", g.fingerprint, g.rules_key, g.rules_id" if table == "events" else ""
    if by == "month":
        # a game without a date (a hand-written log) goes under year=0/month=0: a null would
        # make DuckDB write __HIVE_DEFAULT_PARTITION__, which pyarrow (pandas) cannot read
        # back with the dated partitions ("Cannot yet unify dictionaries with nulls")
        columns = (
            f"coalesce(year({game}.started_at), {UNDATED}) AS year, "
            f"coalesce(month({game}.started_at), {UNDATED}) AS month"
        )
        names = ["year", "month"]
    else:
        key = f"{game}.rules_key" if table in ("games", "events", "deals") else "t.rules_key"
        columns, names = f"{key} AS rules", ["rules"]
    return f"SELECT t.*{extra}, {columns} FROM {table} t{join}", names


class Exporting(ArchiveBase):
    """Export (:meth:`export`)."""

    def export(self, target: str | Path, by: str = "month") -> dict[str, int]:
        """Every table as Parquet files under ``target``, partitioned Hive-style by the
        month the game started (``year=/month=``; ``year=0/month=0`` for a game without a
        date) or by rule set (``rules=``); rows per table.

        Under ``rules`` the games and events go by the rules each game declared,
        the derived tables by the rules they were audited under. Every row of a game's
        events carries the game's partition values, so a game never spans partitions,
        and its ``fingerprint``, ``rules_key`` and ``rules_id`` (declared), so the events
        alone can be audited elsewhere (:mod:`yaniv_audit.batch.distributed`).
        """
        if by not in EXPORT_BY:
            raise ValueError(f"unknown partitioning {by!r}; expected {' or '.join(EXPORT_BY)}")
        out = Path(target)
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            raise ArchiveError(
                f"{out}: exists and is not an empty directory; export writes "
                "into a new or empty one"
            )
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArchiveError(f"{out}: cannot create the directory ({exc.strerror})") from None
        # DuckDB buffers each partition's rows before it writes them out: by default half
        # a million rows per partition, which put 10,000 games (12 months) over the
        # archive's memory limit; bounded here, in rows and in partitions open at once
        self.con.execute(f"SET partitioned_write_flush_threshold = {EXPORT_FLUSH_ROWS}")
        self.con.execute(f"SET partitioned_write_max_open_files = {EXPORT_OPEN_FILES}")
        counts = {}
        for table in EXPORTED:
            sql, partition = _export_select(table, by)
            (rows,) = _one(self.con.execute(f"SELECT count(*) FROM {table}")) or (0,)
            counts[table] = int(rows)
            if not rows:
                continue
            try:
                self.con.sql(sql).write_parquet(str(out / table), partition_by=partition)
            except duckdb.Error as exc:
                if damaged_block(exc):  # the archive's fault, not the directory's: said as
                    raise  # every command says it (exit 3)
                raise ArchiveError(
                    f"{out / table}: cannot write ({_first_line(str(exc))})"
                ) from None
        return counts
