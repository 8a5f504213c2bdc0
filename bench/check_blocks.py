"""What reading every block of an archive costs (``Archive.check_blocks``: ``verify``
first, and every command that writes before it writes), on archives given on the
command line (not part of the test suite).

Run from the repository root, for instance on the sample games' archive and a larger
one ``bench/archive_copies.py`` made:

    .venv/bin/python bench/check_blocks.py yaniv-archive.duckdb archive-100000.duckdb

For each: its size, and the best and median of five reads of every block, in seconds.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from yaniv_audit.archive import Archive


def main(paths: list[str]) -> None:
    for path in paths:
        size = Path(path).stat().st_size
        times = []
        with Archive(path, read_only=True) as archive:
            for _ in range(5):
                start = time.perf_counter()
                archive.check_blocks()
                times.append(time.perf_counter() - start)
        print(
            f"{path}: {size / 1e6:,.1f} MB, every block read in {min(times):.3f} s (best), "
            f"{statistics.median(times):.3f} s (median of 5); "
            f"{size / 1e6 / min(times):,.0f} MB/s"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
