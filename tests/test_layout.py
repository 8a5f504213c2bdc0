"""The package's layering as docs/design.md draws it, held by a test: every module is in
a layer, and imports only from its own layer or the ones below it (core, reading and
writing, many logs, shells); a shell imports another shell only where named here; the
core imports no file, environment or framework; and no module of the package imports in
a circle (imports inside functions counted too).

The package is read when a test first asks for it, not when the file is collected."""

from __future__ import annotations

import ast
import functools
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


@functools.cache
def known() -> dict[str, Path]:
    return modules()


@functools.cache
def graph() -> dict[str, list[tuple[str, bool, int]]]:
    """Every module of the package and what it imports (read once, by the first test)."""
    return {name: imports(name, path, known()) for name, path in known().items()}


#: the layers, lowest first (docs/design.md's table): a module imports only from its own
#: layer and the ones before it
LAYERS = ("core", "language", "reading and writing", "many logs", "shells")
#: the folders of the package and their layer
FOLDERS = {
    "core": "core",
    "lang": "language",
    "io": "reading and writing",
    "batch": "many logs",
    "archive": "many logs",
    "cli": "shells",
    "web": "shells",
}
#: the modules at the package's root: the package itself (its version, which the core
#: may read) and the programs (``python -m yaniv_audit``, ``python -m
#: yaniv_audit.schema_export``: the writer of schemas/, which asks the web app for its
#: OpenAPI document)
AT_THE_ROOT = {"yaniv_audit": "core", "__main__": "shells", "schema_export": "shells"}
#: a shell imports another shell only here (the importing module, the shell it imports,
#: why); a shell is a folder of the root (cli, web) or a program at the root
SHELL_CROSSINGS = {
    ("yaniv_audit.__main__", "cli"): "the console script runs the command line",
    ("yaniv_audit.cli.serve", "web"): "yaniv-audit serve runs the web app",
    ("yaniv_audit.cli.tables", "web"): "table open hashes the table's key as the API does",
    ("yaniv_audit.cli.logs", "web"): "audit --lang says the findings with the pages' catalogues",
    ("yaniv_audit.schema_export", "web"): "schemas/openapi.json is the API's OpenAPI document",
}


def unit(name: str) -> str:
    """The folder of the root (``cli``), or the program at the root, that ``name`` is in."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer(name: str) -> str | None:
    """The layer of the package's module ``name`` (None: in none)."""
    place = unit(name)
    return FOLDERS.get(place) or AT_THE_ROOT.get(place)


def wrong_direction(found: dict[str, list[tuple[str, bool, int]]]) -> list[str]:
    """The imports of the package's modules that go up a layer, or from a shell into
    another shell where SHELL_CROSSINGS does not name it."""
    wrong = []
    for name, targets in found.items():
        here = LAYERS.index(layer(name) or "shells")
        for target, _, line in targets:
            if not target.startswith("yaniv_audit"):
                continue
            there = LAYERS.index(layer(target) or "shells")
            crossing = here == there == len(LAYERS) - 1 and unit(name) != unit(target)
            if there > here or (crossing and (name, unit(target)) not in SHELL_CROSSINGS):
                wrong.append(f"{name} line {line}: {target} ({LAYERS[there]})")
    return wrong


def test_the_layout_is_read() -> None:
    """The test sees the package (not an empty folder) and its imports."""
    assert {
        "yaniv_audit.core.engine",
        "yaniv_audit.core.rules",
        "yaniv_audit.io.codec",
        "yaniv_audit.cli",
        "yaniv_audit.web",
        "yaniv_audit.archive",
    } <= set(known())
    assert ("yaniv_audit.core.rules", False) in {
        (t, inside) for t, inside, _ in graph()["yaniv_audit.core.audit"]
    }
    assert ("yaniv_audit.io.streaming", True) in {  # inside a function: heavy (marshmallow)
        (t, inside) for t, inside, _ in graph()["yaniv_audit.batch.bulk"]
    }


def test_every_module_is_in_a_layer() -> None:
    """A new module goes into a layer's folder (or is named here, and in docs/design.md)."""
    assert [name for name in known() if layer(name) is None] == []


def test_every_import_goes_down_the_layers() -> None:
    """core <- language <- reading and writing <- many logs <- shells: no module imports
    from a layer above its own, nor a shell from another shell but where SHELL_CROSSINGS
    says why."""
    assert wrong_direction(graph()) == []
    # the check finds an import up a layer, and one from shell to shell
    up = {"yaniv_audit.core.cards": [("yaniv_audit.archive", True, 1)]}
    across = {"yaniv_audit.web.api": [("yaniv_audit.cli.render", False, 1)]}
    assert wrong_direction(up) == ["yaniv_audit.core.cards line 1: yaniv_audit.archive (many logs)"]
    assert wrong_direction(across) == [
        "yaniv_audit.web.api line 1: yaniv_audit.cli.render (shells)"
    ]


def test_the_core_imports_nothing_of_the_shells() -> None:
    """core/ imports only itself (and the package's version): not the reading of files,
    the archive, the command line or the web app."""
    wrong = [
        f"{name} line {line}: {target}"
        for name, found in graph().items()
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
    for name, found in graph().items():
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
        name: {t for t, _, _ in found if t in known() and t != name}
        for name, found in graph().items()
    }
    assert cycles(edges) == []
    # the check finds a circle when there is one
    assert cycles({**edges, "yaniv_audit.core.cards": {"yaniv_audit.cli"}}) != []
