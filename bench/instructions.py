"""Instructions an event of the audit end to end, counted by callgrind: a figure the host's
speed does not move, to compare two checkouts of the code (the timed `yaniv-audit bench`
varies by a third between runs on a shared machine).

Run from the repository root (needs valgrind; not part of the test suite):

    .venv/bin/python bench/instructions.py --logs 30 [--checkout ../other-checkout]

It takes the logs of ``--corpus`` (default: the corpus `yaniv-audit bench --games 300
--players 4` simulated and keeps in the temporary directory; run that first), then runs
the same small program under callgrind twice, importing the package of ``--checkout``
(default: this one): once reading and auditing the first ``--logs`` logs, each report
written as its JSON line (what `audit --json --jobs 1` does for a log), and once
importing only. The difference, over the logs' events, is what one event costs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = """
import sys
from yaniv_audit.bulk import audit_file, no_gc
from yaniv_audit.core.audit import to_json_line
import yaniv_audit.codec  # imported by the first audit otherwise: not an event's cost
for path in sys.argv[1:]:
    with no_gc():
        report = audit_file(path)
    to_json_line(report)
"""

#: the layout before issue 29 (yaniv_audit/audit.py held audit_file): for comparison
PROGRAM_FLAT = PROGRAM.replace(
    "from yaniv_audit.bulk import audit_file, no_gc\nfrom yaniv_audit.core.audit import "
    "to_json_line", "from yaniv_audit.bulk import no_gc\nfrom yaniv_audit.audit import "
    "audit_file, to_json_line")


def instructions(checkout: Path, files: list[str]) -> int:
    program = PROGRAM if (checkout / "yaniv_audit" / "core").is_dir() else PROGRAM_FLAT
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
             sys.executable, "-c", program, *files],
            env=env, cwd=tmp, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", result.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{result.stderr}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--logs", type=int, default=30, help="logs audited (1-300)")
    parser.add_argument("--checkout", type=Path, default=ROOT,
                        help="the repository whose package is measured")
    parser.add_argument("--corpus", type=Path, help="a directory of logs")
    args = parser.parse_args()
    if not 1 <= args.logs <= 300:
        parser.error("--logs: expected 1 to 300")
    kept = sorted(Path(tempfile.gettempdir()).glob("yaniv-audit-bench/g300-p4-*"))
    corpus = args.corpus or (kept[-1] if kept else None)
    if corpus is None:
        parser.error("no corpus: run `yaniv-audit bench --games 300 --players 4`, or give --corpus")
    files = sorted(str(p) for p in corpus.glob("*.jsonl"))[: args.logs]
    if not files:
        parser.error(f"--corpus: no .jsonl logs in {corpus}")
    events = sum(Path(f).read_bytes().count(b"\n") for f in files)
    base = instructions(args.checkout.resolve(), [])
    total = instructions(args.checkout.resolve(), files)
    print(f"{args.checkout}: {args.logs} logs, {events:,} events: "
          f"{total - base:,} instructions ({(total - base) / events:,.0f} an event)")


if __name__ == "__main__":
    main()
