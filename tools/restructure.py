"""Give the package's layers their folders (issue 38, item 16): move the loose modules
of the "reading and writing" layer into ``yaniv_audit/io/`` and those of the "many logs"
layer into ``yaniv_audit/batch/`` (docs/design.md's table), with ``git mv``, and rewrite
every reference to them.

Run it once, from the root of a clean checkout, then review and commit::

    python3 tools/restructure.py            # the move and the rewrites
    python3 tools/restructure.py --dry-run  # only say what it would move and rewrite

What it rewrites, in every file git tracks (this script excepted):

- the imports inside the package, made relative again from each file's new place
  (``from .codec import x`` in ``bench.py`` becomes ``from ..io.codec import x``, and
  ``from . import __version__`` becomes ``from .. import __version__``), and
  ``from yaniv_audit import codec`` (``from yaniv_audit.io import codec``);
- every dotted name (``yaniv_audit.codec``: absolute imports, ``mock.patch`` and
  ``monkeypatch`` strings, ``python -m yaniv_audit.bench``, mypy's overrides in
  pyproject.toml, the docs) and every path (``yaniv_audit/codec.py``: the docs' links,
  the descriptions of the generated schemas in ``schemas/`` and of their writers);
- tests/test_layout.py's list of the modules still loose (taken out: the folders say it
  now) and docs/design.md's layer names (which now name the folders).

A line that says ``restructure: keep`` is left as it is. Then it sorts the changed
imports and formats the changed Python files with ruff, and lists any line the longer
names made too long for ruff's limit (none in the checkout it was written on).

ruff is the checkout's ``.venv/bin/ruff``, else ``ruff`` on the PATH. ``yaniv_audit.io`` shadows
nothing: inside the package an ``import io`` is absolute (the standard library's), and
the package is never put on ``sys.path`` itself. The script may be deleted after use.
"""

from __future__ import annotations

import argparse
import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE = "yaniv_audit"
#: the new folder of each module that moves, and what the folder holds (its docstring)
FOLDERS = {
    "io": (
        "Reading and writing: the log files and their JSON (codec, log_schema, diagnose,\n"
        "files, live), the JSON Schemas (json_schema, report_schema) and the rules files\n"
        "(rules_files). Imports the core only (docs/design.md)."
    ),
    "batch": (
        "Many logs: bulk work on a pool of workers (bulk), on Dask (distributed), simulated\n"
        "games (simulate) and the throughput benchmark (bench, chess_bench). Imports the\n"
        "core, reading and writing, and the archive only (docs/design.md)."
    ),
}
MOVES = {
    **dict.fromkeys(
        (
            "codec",
            "log_schema",
            "diagnose",
            "json_schema",
            "report_schema",
            "rules_files",
            "fit_schema",
            "streaming",
            "files",
            "live",
        ),
        "io",
    ),
    **dict.fromkeys(
        ("bulk", "distributed", "simulate", "bench", "chess_bench", "fit_sweep"), "batch"
    ),
}
NAMES = "|".join(sorted(MOVES, key=len, reverse=True))
DOTTED = re.compile(rf"(?<![\w.]){PACKAGE}\.({NAMES})(?!\w)")
PATHS = re.compile(rf"(?<![\w-]){PACKAGE}/({NAMES})\.py\b")
KEEP = "restructure: " + "keep"
LOOSE_USE = " or LOOSE.get(place)"
LOOSE_BLOCK = re.compile(
    r"\n# -- the modules still loose at the root.*?# -- end of the loose modules --\n", re.S
)
#: docs/design.md's layer names in its table, and what they become
DESIGN_LABELS = {
    "| reading and writing | `codec.py`": "| `io/`: reading and writing | `codec.py`",
    "| many logs | `bulk.py`": "| `batch/`: many logs | `bulk.py`",
}


def new_name(old: str) -> str:
    """The module's name after the move (``yaniv_audit.codec`` -> ``yaniv_audit.io.codec``)."""
    parts = old.split(".")
    if len(parts) >= 2 and parts[0] == PACKAGE and parts[1] in MOVES:
        return ".".join([PACKAGE, MOVES[parts[1]], *parts[1:]])
    return old


def new_path(path: Path) -> Path:
    """Where the file at ``path`` is after the move."""
    if path.parent == Path(PACKAGE) and path.stem in MOVES:
        return Path(PACKAGE, MOVES[path.stem], path.name)
    return path


def module_of(path: Path) -> tuple[str, bool]:
    """The module a package file is (its name before the move), and whether a package."""
    parts = list(path.with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def relative(package: list[str], target: list[str]) -> str:
    """``target`` as a relative import's module from inside ``package``."""
    common = 0
    while common < min(len(package), len(target)) and package[common] == target[common]:
        common += 1
    return "." * (len(package) - common + 1) + ".".join(target[common:])


def rewrite_imports(path: Path, source: str) -> str:
    """``source`` with its ``from ... import`` statements pointing at the modules' new
    places (and, for a package file, relative from the file's new place)."""
    tree = ast.parse(source)
    inside = path.parts[0] == PACKAGE
    old, is_package = module_of(path) if inside else ("", False)
    old_package = old.split(".") if is_package else old.split(".")[:-1]
    new = new_name(old) if inside else ""
    new_package = new.split(".") if is_package else new.split(".")[:-1]
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line.encode()))
    data = source.encode()
    edits: list[tuple[int, int, bytes]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            if not inside:
                continue
            base = old_package[: len(old_package) - node.level + 1]
            base_name = ".".join(base + ([node.module] if node.module else []))
        elif node.module == PACKAGE:
            base_name = PACKAGE
        else:
            continue  # an absolute dotted name: the text rewrite's
        moving = [a.name for a in node.names if base_name == PACKAGE and a.name in MOVES]
        if moving:
            folders = {MOVES[name] for name in moving}
            if len(folders) > 1 or len(moving) < len(node.names):
                raise SystemExit(
                    f"{path}:{node.lineno}: imports modules of several folders in one "
                    "statement: split it by hand, then run the script again"
                )
            target = f"{PACKAGE}.{folders.pop()}"
        else:
            target = new_name(base_name)
        spec = relative(new_package, target.split(".")) if node.level else target
        start = offsets[node.lineno - 1] + node.col_offset
        head = re.compile(rb"from\s+([.\w]+(?:\s*\.\s*\w+)*)").match(data, start)
        assert head, (path, node.lineno)
        if head.group(1).decode() != spec:
            edits.append((head.start(1), head.end(1), spec.encode()))
    for start, end, text in sorted(edits, reverse=True):
        data = data[:start] + text + data[end:]
    return data.decode()


def rewrite_text(text: str) -> str:
    """Every dotted name and path of a moved module in ``text`` at its new place, but on
    a line that says ``restructure: keep`` (bench/instructions.py's imports for the
    checkouts from before the move)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if KEEP in line:
            continue
        line = DOTTED.sub(lambda m: f"{PACKAGE}.{MOVES[m.group(1)]}.{m.group(1)}", line)
        lines[i] = PATHS.sub(lambda m: f"{PACKAGE}/{MOVES[m.group(1)]}/{m.group(1)}.py", line)
    return "".join(lines)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def ruff() -> str:
    local = Path(".venv/bin/ruff")
    found = str(local) if local.exists() else shutil.which("ruff")
    if not found:
        raise SystemExit("no ruff: install it (pip install ruff) and run the script again")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="say what, change nothing")
    args = parser.parse_args(argv)
    if not Path(PACKAGE, "__init__.py").is_file() or not Path(".git").exists():
        raise SystemExit(f"run it from the root of a checkout (where {PACKAGE}/ is)")
    present = [name for name in MOVES if Path(PACKAGE, f"{name}.py").is_file()]
    if not present:
        raise SystemExit("nothing to move: the modules are in their folders already")
    if any(Path(PACKAGE, folder).exists() for folder in FOLDERS):
        raise SystemExit(f"{PACKAGE}/io or {PACKAGE}/batch exists already: not moving into it")
    me = Path(__file__).resolve()
    changed: list[Path] = []
    for name in git("ls-files", "-z").split("\0"):
        path = Path(name)
        if not name or not path.is_file() or path.resolve() == me:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # not text
        new = text
        if path.suffix == ".py":
            new = rewrite_imports(path, new)
        new = rewrite_text(new)
        if path.as_posix() == "tests/test_layout.py":
            new = LOOSE_BLOCK.sub("\n", new).replace(LOOSE_USE, "")
        if path.as_posix() == "docs/design.md":
            for before, after in DESIGN_LABELS.items():
                new = new.replace(before, after)
        if new != text:
            changed.append(path)
            if args.dry_run:
                print(f"would rewrite {path}")
            else:
                path.write_text(new, encoding="utf-8")
    moved: list[Path] = []
    for folder, doc in FOLDERS.items():
        names = [name for name in present if MOVES[name] == folder]
        if not names:
            continue
        target = Path(PACKAGE, folder)
        if args.dry_run:
            print(f"would move {', '.join(f'{n}.py' for n in names)} into {target}/")
            continue
        target.mkdir()
        init = target / "__init__.py"
        init.write_text(f'"""{doc}"""\n', encoding="utf-8")
        git("add", str(init))
        for name in names:
            git("mv", str(Path(PACKAGE, f"{name}.py")), str(target / f"{name}.py"))
            moved.append(target / f"{name}.py")
    if args.dry_run:
        return 0
    python = sorted(
        {
            *(str(new_path(p)) for p in changed if p.suffix == ".py"),
            *map(str, moved),
        }
    )
    subprocess.run([ruff(), "check", "--select", "I", "--fix", "--quiet", *python], check=False)
    subprocess.run([ruff(), "format", "--quiet", *python], check=True)
    git("add", "-u")
    long = subprocess.run(
        [ruff(), "check", "--select", "E501", "--output-format", "concise", *python],
        capture_output=True,
        text=True,
    ).stdout
    if "E501" in long:
        print("lines the longer names made too long (wrap them by hand):\n" + long)
    print(
        f"moved {len(moved)} modules into {', '.join(f'{PACKAGE}/{f}/' for f in FOLDERS)}; "
        f"rewrote {len(changed)} files. Now: ruff check, mypy, the suite; then commit."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
