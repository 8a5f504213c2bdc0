"""What DuckDB's indexes cost a writer, by the size of the table (not part of the suite).

Run from the repository root:

    .venv/bin/python bench/index_memory.py --rows 10000 --rows 100000 --rows 1000000

For each size and each index of the archive's schema that grows with the games
(``games``' unique fingerprint, its integer primary key, ``audits``' primary key of
a game number and a rule set's key; ``archive_info``'s key holds a few rows) it
builds a table of that many rows in a file, then, in a fresh process, opens the
file, appends 1,000 rows, checkpoints and prints the peak RSS of that process. The
same table without the index is the baseline: the difference is what a command
pays for the index each time it writes to that table (``ingest`` to ``games``,
``audit --db`` to ``audits``). Writes to other tables of the same file are not
measured here.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

#: (name, the table's columns, how a row is made from i, the index)
INDEXES = [
    (
        "games: fingerprint UNIQUE",
        "k INTEGER, fingerprint VARCHAR",
        "i, sha256(i::VARCHAR || $1)",
        "UNIQUE (fingerprint)",
    ),
    (
        "games: game_no PRIMARY KEY",
        "game_no INTEGER, fingerprint VARCHAR",
        "i, sha256(i::VARCHAR || $1)",
        "PRIMARY KEY (game_no)",
    ),
    (
        "audits: (game_no, rules_key) PRIMARY KEY",
        "game_no INTEGER, rules_key VARCHAR",
        "i, md5('israeli')",
        "PRIMARY KEY (game_no, rules_key)",
    ),
]

#: the measured step, in a process of its own: append 1,000 rows after the others
APPEND = """
import sys, duckdb
path, rows, make = sys.argv[1], int(sys.argv[2]), sys.argv[3]
con = duckdb.connect(path)
con.execute(f"INSERT INTO t SELECT {make} FROM range({rows}, {rows + 1000}) r(i)",
            ["new"] if "$1" in make else None)
con.execute("CHECKPOINT")
# VmHWM, this process's own peak (ru_maxrss would count the parent's, inherited at fork)
status = open("/proc/self/status").read().split("VmHWM:")[1]
print(int(status.split()[0]) // 1024)
"""


def build(path: Path, rows: int, columns: str, make: str, index: str | None) -> None:
    con = duckdb.connect(str(path))
    con.execute(f"CREATE TABLE t ({columns}{', ' + index if index else ''})")
    con.execute(
        f"INSERT INTO t SELECT {make} FROM range({rows}) r(i)", ["old"] if "$1" in make else None
    )
    con.execute("CHECKPOINT")
    con.close()


def append_peak(path: Path, rows: int, make: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", APPEND, str(path), str(rows), make],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--rows",
        type=int,
        action="append",
        help="table size (repeatable; default 10,000, 100,000, 1,000,000)",
    )
    args = parser.parse_args()
    sizes = args.rows or [10_000, 100_000, 1_000_000]
    print(f"duckdb {duckdb.__version__}: peak RSS (MiB) of appending 1,000 rows to a table")
    print(f"{'index':44}" + "".join(f"{n:>12,}" for n in sizes))
    with tempfile.TemporaryDirectory(prefix="yaniv-index-memory-") as work:
        for name, columns, make, index in INDEXES:
            cells: dict[bool, list[int]] = {True: [], False: []}
            for rows in sizes:
                for indexed in (True, False):
                    path = Path(work) / f"t-{rows}-{indexed}.duckdb"
                    build(path, rows, columns, make, index if indexed else None)
                    cells[indexed].append(append_peak(path, rows, make))
                    path.unlink()
            print(f"{name:44}" + "".join(f"{v:>12,}" for v in cells[True]))
            print(
                f"{'  the same table without it':44}" + "".join(f"{v:>12,}" for v in cells[False])
            )


if __name__ == "__main__":
    main()
