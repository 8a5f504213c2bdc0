"""The package's layering as docs/design.md draws it, held by a test: the core imports
nothing of the shells, no file, environment or framework, and no module of the package
imports in a circle (imports inside functions counted too)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "yaniv_audit"

#: what the core may import besides itself and the standard library: the JSON libraries
CORE_THIRD_PARTY = {"msgspec", "orjson"}
#: the standard library's ways out of a pure function: files, the environment, processes,
#: the clock, threads, the network
OUTSIDE_WORLD = {
    "os",
    "sys",
    "io",
    "pathlib",
    "shutil",
    "tempfile",
    "glob",
    "subprocess",
    "socket",
    "time",
    "datetime",
    "random",
    "secrets",
    "threading",
    "multiprocessing",
    "concurrent",
    "asyncio",
    "signal",
    "logging",
    "sqlite3",
    "urllib",
    "http",
    "tomllib",
    "locale",
    "gettext",
}


def modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, bool, int]]:
    """What module ``name`` imports: (the module, whether inside a function, the line);
    a name imported from a package that is one of its modules counts as that module."""
    found: list[tuple[str, bool, int]] = []
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            deeper = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # for the type checker only: never run
            if isinstance(child, ast.ImportFrom):
                base = (
                    ".".join(
                        package[: len(package) - child.level + 1]
                        + ([child.module] if child.module else [])
                    )
                    if child.level
                    else child.module or ""
                )
                subs = [f"{base}.{a.name}" for a in child.names if f"{base}.{a.name}" in known]
                targets = subs if subs and len(subs) == len(child.names) else [base, *subs]
                found.extend((t, deeper, child.lineno) for t in targets)
            elif isinstance(child, ast.Import):
                found.extend((a.name, deeper, child.lineno) for a in child.names)
            visit(child, deeper)

    visit(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


KNOWN = modules()
GRAPH = {name: imports(name, path, KNOWN) for name, path in KNOWN.items()}


def test_the_layout_is_read() -> None:
    """The test sees the package (not an empty folder) and its imports."""
    assert {
        "yaniv_audit.core.engine",
        "yaniv_audit.core.rules",
        "yaniv_audit.codec",
        "yaniv_audit.cli",
        "yaniv_audit.web",
        "yaniv_audit.archive",
    } <= set(KNOWN)
    assert ("yaniv_audit.core.rules", False) in {
        (t, inside) for t, inside, _ in GRAPH["yaniv_audit.core.audit"]
    }
    assert ("yaniv_audit.streaming", True) in {  # inside a function: heavy (marshmallow)
        (t, inside) for t, inside, _ in GRAPH["yaniv_audit.bulk"]
    }


def test_the_core_imports_nothing_of_the_shells() -> None:
    """core/ imports only itself (and the package's version): not the reading of files,
    the archive, the command line or the web app."""
    wrong = [
        f"{name} line {line}: {target}"
        for name, found in GRAPH.items()
        if name.startswith("yaniv_audit.core")
        for target, _, line in found
        if target.startswith("yaniv_audit")
        and not (target == "yaniv_audit" or target.startswith("yaniv_audit.core"))
    ]
    assert wrong == []


def test_the_core_reads_nothing_and_needs_no_framework() -> None:
    """core/ imports the standard library's pure parts and msgspec and orjson only: no
    file, environment, clock or thread, and no marshmallow, DuckDB, Flask or click."""
    wrong = []
    for name, found in GRAPH.items():
        if not name.startswith("yaniv_audit.core"):
            continue
        for target, _, line in found:
            top = target.split(".")[0]
            if top == "yaniv_audit" or top == "__future__":
                continue
            if top in OUTSIDE_WORLD or (
                top not in sys.stdlib_module_names and top not in CORE_THIRD_PARTY
            ):
                wrong.append(f"{name} line {line}: {target}")
    assert wrong == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in edges:
        if v not in index:
            connect(v)
    return found


def test_no_module_imports_in_a_circle() -> None:
    edges = {
        name: {t for t, _, _ in found if t in KNOWN and t != name} for name, found in GRAPH.items()
    }
    assert cycles(edges) == []
    # the check finds a circle when there is one
    assert cycles({**edges, "yaniv_audit.core.cards": {"yaniv_audit.cli"}}) != []
