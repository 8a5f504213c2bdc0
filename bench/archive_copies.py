"""A larger archive from a smaller one, its games copied in SQL: for timing the reports
at 100,000 games in minutes (not part of the test suite).

Run from the repository root, on an archive that ``bench/archive.py --keep`` kept:

    .venv/bin/python bench/archive_copies.py archive-10000.duckdb archive-100000.duckdb --times 10

It copies the archive's file, then adds ``--times - 1`` copies of every game with all
its rows (events, the summaries of the events, every audit and its derived rows), each
copy under game numbers of its own and with fingerprints of its own (the SHA-256 of the
original's and the copy's number), as ``bench/archive.py`` makes its archives from
copies of 500 simulated games. What the reports read is then what ingesting and
auditing that many copies would store, but the copies' fingerprints are not those of
their events, so ``verify`` finds every copy altered (the archive says it was copied,
in ``archive_info``); ``bench/archive.py`` is the measure of ingest, audit and verify.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import duckdb

#: every table but games with a game_no column, as the archive's own schema says
TABLES = """
SELECT c.table_name FROM information_schema.columns c
JOIN information_schema.tables t USING (table_schema, table_name)
WHERE t.table_type = 'BASE TABLE' AND c.column_name = 'game_no' AND c.table_name <> 'games'
ORDER BY c.table_name
"""
#: the columns of games holding a fingerprint (a link to another version included)
FINGERPRINTS = ("fingerprint", "extends", "part_of", "rewrites")


def copy_games(db: duckdb.DuckDBPyConnection, copy: int, games: int) -> None:
    """Copy number ``copy`` of the first ``games`` game numbers, in one transaction."""
    offset = copy * games
    db.execute("BEGIN")
    renamed = ", ".join(f"sha256({c} || '/{copy}') AS {c}" for c in FINGERPRINTS)
    db.execute(
        f"INSERT INTO games SELECT * REPLACE (game_no + {offset} AS game_no, {renamed}, "
        f"md5(opening_md5 || '/{copy}') AS opening_md5) FROM games "
        f"WHERE game_no BETWEEN 1 AND {games}"
    )
    for (table,) in db.execute(TABLES).fetchall():
        db.execute(
            f"INSERT INTO {table} SELECT * REPLACE (game_no + {offset} AS game_no) "
            f"FROM {table} WHERE game_no BETWEEN 1 AND {games}"
        )
    db.execute("COMMIT")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path)
    parser.add_argument(
        "--times",
        type=int,
        default=10,
        help="the copy holds this many times the source's games (default 10)",
    )
    args = parser.parse_args()
    if args.times < 2:
        sys.exit(f"--times {args.times}: at least 2 (the source's games and one copy)")
    if args.dest.exists():
        sys.exit(f"{args.dest}: exists already")
    shutil.copyfile(args.source, args.dest)
    db = duckdb.connect(str(args.dest))
    first, last, count = db.execute(
        "SELECT min(game_no), max(game_no), count(*) FROM games"
    ).fetchone() or (0, 0, 0)
    if (first, last) != (1, count):
        sys.exit(f"{args.source}: game numbers 1 to {count} expected, found {first} to {last}")
    start = time.perf_counter()
    for copy in range(1, args.times):
        copy_games(db, copy, count)
        print(
            f"copy {copy}: {(copy + 1) * count:,} games after {time.perf_counter() - start:.0f} s",
            flush=True,
        )
    db.execute(
        "INSERT OR REPLACE INTO archive_info VALUES "
        "('copied_by', 'bench/archive_copies.py: fingerprints not of their events')"
    )
    db.execute("CHECKPOINT")
    db.close()
    print(
        f"{args.dest}: {args.times * count:,} games, {args.dest.stat().st_size / 2**20:,.0f} "
        f"MiB, in {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
