"""Instructions an event of the audit end to end, counted by callgrind: a figure the host's
speed does not move, to compare two checkouts of the code (the timed `yaniv-audit bench`
varies by a third between runs on a shared machine).

Run from the repository root (needs valgrind; not part of the test suite):

    .venv/bin/python bench/instructions.py --logs 30 [--checkout ../other-checkout]

It takes the logs of ``--corpus`` (default: the corpus `yaniv-audit bench --games 300
--players 4` simulated and keeps in the temporary directory; run that first), then runs
a small program under callgrind, importing the package of ``--checkout`` (default: this
one), then reading and auditing the first ``--logs`` logs, each report written as its
JSON line (what `audit --json --jobs 1` does for a log). The program marks the audit's
start and end with a call callgrind knows (``os.getppid()``, libc's ``getppid``, which
nothing else of the program calls); callgrind counts each part apart
(``--dump-before=getppid``), and the audit's part, over the logs' events, is what one
event costs. (Until 2026-12-06 the program ran twice, with the audit and importing only,
and the difference was taken: the same figure within 0.3 %, at twice the cost.)

The gate (tests/test_instructions.py runs it with the suite): ``--check`` measures the
corpus that bench/instructions-baseline.json names (6 checked-in simulated logs, about a
minute on the project's host) and fails, saying by how much, if an event costs more than
5 % above the stored figure; ``--update`` measures it and stores the new figure (commit
it with the change that moved it, saying why):

    .venv/bin/python bench/instructions.py --check
    .venv/bin/python bench/instructions.py --update
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the stored figure the gate compares against, and the corpus it was measured on
BASELINE = ROOT / "bench" / "instructions-baseline.json"
#: the gate's corpus when --update writes the first baseline: checked-in logs, so that the
#: figure moves with the audit's code only
GATE_CORPUS, GATE_LOGS = "replays/simulated/israeli", 6
#: how far above the stored figure an event may cost before the gate fails
TOLERANCE = 0.05

#: what the program imports, by the checkout's layout: the layers' folders
#: (io/, batch/), the modules loose at the package's root before them,
#: and the layout before issue 29 (yaniv_audit/audit.py held audit_file); the codec is
#: imported by the first audit otherwise, and is not an event's cost
IMPORTS = {
    "folders": (
        "from yaniv_audit.batch.bulk import audit_file, no_gc",
        "from yaniv_audit.core.audit import to_json_line",
        "import yaniv_audit.io.codec",
        "import yaniv_audit.io.streaming",
    ),
    "loose": (
        "from yaniv_audit.bulk import audit_file, no_gc",
        "from yaniv_audit.core.audit import to_json_line",
        "import yaniv_audit.codec",
    ),
    "flat": (
        "from yaniv_audit.bulk import no_gc",
        "from yaniv_audit.audit import audit_file, to_json_line",
        "import yaniv_audit.codec",
    ),
}
#: the audit between two calls of os.getppid(): callgrind starts a new count at each
PROGRAM = """
import os, sys
{imports}
os.getppid()
for path in sys.argv[1:]:
    with no_gc():
        report = audit_file(path)
    to_json_line(report)
os.getppid()
"""


def program_for(checkout: Path) -> str:
    package = checkout / "yaniv_audit"
    layout = (
        "folders"
        if (package / "batch").is_dir()
        else "loose"
        if (package / "core").is_dir()
        else "flat"
    )
    imports = list(IMPORTS[layout])
    if layout == "loose" and (package / "streaming.py").is_file():  # read the files it streams
        imports.append("import yaniv_audit.streaming")
    return PROGRAM.format(imports="\n".join(imports))


def instructions(checkout: Path, files: list[str]) -> int:
    """The instructions of PROGRAM's audit of ``files``: callgrind's second count (the
    first, out.1, is the start and the imports; the last, out, the interpreter's end)."""
    program = program_for(checkout)
    env = dict(os.environ, PYTHONPATH=str(checkout), PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={tmp}/out",
                "--dump-before=getppid",
                sys.executable,
                "-c",
                program,
                *files,
            ],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            check=True,
        )
        audit = Path(tmp, "out.2")
        found = re.search(r"^totals: (\d+)$", audit.read_text(), re.M) if audit.exists() else None
    if found is None:
        raise SystemExit(f"no count of the audit in callgrind's output:\n{result.stderr}")
    return int(found.group(1))


def measure(checkout: Path, files: list[str]) -> tuple[int, int]:
    """(events, instructions an event) of auditing ``files`` with ``checkout``'s package."""
    events = sum(Path(f).read_bytes().count(b"\n") for f in files)
    return events, round(instructions(checkout, files) / events)


def environment() -> dict[str, str]:
    """What the count depends on besides the code: the interpreter and the readers."""
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "msgspec": version("msgspec"),
        "orjson": version("orjson"),
    }


def corpus_files(corpus: Path, logs: int) -> list[str]:
    return sorted(str(p.resolve()) for p in corpus.glob("*.jsonl"))[:logs]


def gate(update: bool) -> int:
    """``--check`` (0: within TOLERANCE of the stored figure, 1: above it) or ``--update``."""
    stored = json.loads(BASELINE.read_text()) if BASELINE.exists() else None
    if stored is None and not update:
        print(
            f"no stored figure in {BASELINE}: run bench/instructions.py --update", file=sys.stderr
        )
        return 1
    corpus, logs = (stored["corpus"], stored["logs"]) if stored else (GATE_CORPUS, GATE_LOGS)
    files = corpus_files(ROOT / corpus, logs)
    events, per_event = measure(ROOT, files)
    here = environment()
    if update:
        BASELINE.write_text(
            json.dumps(
                {
                    "instructions_per_event": per_event,
                    "corpus": corpus,
                    "logs": logs,
                    "events": events,
                    "tolerance": TOLERANCE,
                    **here,
                    "update": ".venv/bin/python bench/instructions.py --update",
                },
                indent=2,
            )
            + "\n"
        )
        print(
            f"stored in {BASELINE.name}: {per_event:,} instructions an event "
            f"({logs} logs of {corpus}, {events:,} events)"
        )
        return 0
    assert stored is not None
    limit = stored["instructions_per_event"] * (1 + stored.get("tolerance", TOLERANCE))
    change = per_event / stored["instructions_per_event"] - 1
    said = (
        f"the audit costs {per_event:,} instructions an event ({logs} logs of {corpus}, "
        f"{events:,} events), {change:+.1%} against the stored "
        f"{stored['instructions_per_event']:,}"
    )
    if per_event > limit:
        moved = {k: f"{stored.get(k)} then, {v} now" for k, v in here.items() if stored.get(k) != v}
        print(
            f"SLOWER: {said}, more than {stored.get('tolerance', TOLERANCE):.0%} above it."
            + (
                f" Measured elsewhere ({'; '.join(f'{k}: {v}' for k, v in moved.items())})."
                if moved
                else ""
            )
            + " Make the change cheaper, or, if the cost is wanted, store the new figure "
            "with .venv/bin/python bench/instructions.py --update and say why in the "
            "commit.",
            file=sys.stderr,
        )
        return 1
    print(said)
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("--logs", type=int, default=30, help="logs audited (1-300)")
    parser.add_argument(
        "--checkout", type=Path, default=ROOT, help="the repository whose package is measured"
    )
    parser.add_argument("--corpus", type=Path, help="a directory of logs")
    parser.add_argument(
        "--check",
        action="store_true",
        help="the gate: measure the corpus of bench/instructions-baseline.json "
        "and fail if an event costs more than 5 %% above its figure",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="measure the gate's corpus and store the figure in bench/instructions-baseline.json",
    )
    args = parser.parse_args()
    if args.check or args.update:
        raise SystemExit(gate(args.update))
    if not 1 <= args.logs <= 300:
        parser.error("--logs: expected 1 to 300")
    kept = sorted(Path(tempfile.gettempdir()).glob("yaniv-audit-bench/g300-p4-*"))
    corpus = args.corpus or (kept[-1] if kept else None)
    if corpus is None:
        parser.error("no corpus: run `yaniv-audit bench --games 300 --players 4`, or give --corpus")
    files = corpus_files(corpus, args.logs)
    if not files:
        parser.error(f"--corpus: no .jsonl logs in {corpus}")
    events, per_event = measure(args.checkout.resolve(), files)
    print(
        f"{args.checkout}: {args.logs} logs, {events:,} events: {per_event:,} instructions an event"
    )


if __name__ == "__main__":
    main()
