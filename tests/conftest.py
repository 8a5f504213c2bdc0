from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # imported where used: the controller of xdist, which loads this file
    # before it starts the workers, needs none of them (0.4 s)
    from playwright.sync_api import Browser, Page

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
#: where the browser tests save their screenshots (git-ignored)
ARTIFACTS = ROOT / "tests" / "artifacts"
PHONE = {"width": 390, "height": 844}
#: the long sweep (``YANIV_AUDIT_LONG=1``): the Hypothesis properties with their full
#: example counts (test_properties.py: 25 times its default and longer games),
#: test_crash.py's and test_tables_serve.py's kill at every moment, and the whole of what
#: the slowest tests sample (docs/development.md lists them); by default each runs enough
#: to fail on a regression and the whole suite stays quick
LONG = os.environ.get("YANIV_AUDIT_LONG", "") not in ("", "0")


def sweep(default: int, long: int) -> int:
    """A Hypothesis property's example count: ``default``, or ``long`` in the long sweep."""
    return long if LONG else default


LAPTOP = {"width": 1280, "height": 900}

#: the files holding the suite's slowest tests, and their slowest test's seconds in the
#: run that measured them (``pytest --durations=40`` on the 2-core host under a load of
#: 12 to 21, 2026-12-06: relative figures). Their tests are marked ``slow`` and put
#: first, the slowest file first, so that xdist hands them out first (pyproject: --dist
#: loadgroup gives each in turn to the next free worker) and none starts late to end the
#: run alone on one core. The default run runs them; ``-m "not slow"`` leaves them out.
SLOW_FILES = {
    "tests/test_instructions.py": 231,  # two processes under callgrind
    "tests/test_lint.py": 151,  # mypy --strict on the package
    "tests/test_docs.py": 118,  # the README's main job, twice
    "tests/archive/test_crash.py": 67,  # kill -9 during ingest and audit
    "tests/test_packaging.py": 54,  # builds and installs the wheel
    "tests/web/test_browser_record.py": 46,
    "tests/web/test_schemathesis.py": 38,
    "tests/test_distributed.py": 38,  # 300 games and a Dask cluster
    "tests/web/test_serve.py": 37,
    "tests/web/test_browser_board.py": 37,
    "tests/web/test_tables_serve.py": 32,
    "tests/archive/test_archive.py": 27,
    "tests/web/test_web_viewer.py": 26,
    "tests/web/test_tables.py": 24,
    "tests/archive/test_damage.py": 23,
    "tests/test_bulk.py": 22,
    # 2026-12-06, after the samples (YANIV_AUDIT_LONG=1 runs the whole): the files run
    # alone (-n0), the host under a load of 4 to 9
    "tests/web/test_browser_a11y.py": 15,  # axe-core on every page
    "tests/test_streaming.py": 5,  # the logs read 97 bytes at a time
}


def pytest_configure(config: pytest.Config) -> None:
    """The package's bytecode written once, before the workers start: with
    ``PYTHONDONTWRITEBYTECODE`` set (this machine, its CI) Python reads ``.pyc`` files but
    never writes them, and every process the suite starts (the xdist workers, each
    ``yaniv-audit`` a test runs, each fork server of the bulk work and of the archive's
    queries) compiled the package's 63 modules again: 0.2 s of each start."""
    if not hasattr(config, "workerinput"):  # the controller (or -n0's one process)
        import compileall

        compileall.compile_dir(ROOT / "yaniv_audit", quiet=1)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """SLOW_FILES' tests marked ``slow`` and put first, the slowest file first (each file's
    tests kept together and in their order, so that its module fixtures are made once)."""
    for item in items:
        if item.nodeid.split("::")[0] in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: -SLOW_FILES.get(item.nodeid.split("::")[0], 0))


@pytest.fixture(autouse=True)
def no_house_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """No house rules found by default (a yaniv-rules.toml here, $YANIV_AUDIT_RULES) but
    those a test sets: the suite's results do not depend on where it is run."""
    monkeypatch.setenv("YANIV_AUDIT_RULES", "")


@pytest.fixture
def replays_dir() -> Path:
    return REPLAYS


@contextmanager
def held_open_by_another_process(db: Path) -> Iterator[None]:
    """While inside: another process has the DuckDB file ``db`` open for writing."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('ready', flush=True);"
            " time.sleep(60)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        yield
    finally:
        holder.kill()
        holder.wait()


# --- the browser tests: headless Chromium (tests/install-browser.sh installs it;
# YANIV_AUDIT_CHROMIUM names another). Without one they fail: never skipped. ---------

#: flags for a sandboxed machine with no network (see the env notes in the README)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    named = os.environ.get("YANIV_AUDIT_CHROMIUM")
    found = named or next(
        (
            p
            for p in map(
                shutil.which,
                ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"),
            )
            if p
        ),
        None,
    )
    if not found:
        raise RuntimeError(
            "no Chromium found: run tests/install-browser.sh, or set "
            "YANIV_AUDIT_CHROMIUM to a Chromium or Chrome executable"
        )
    return found


#: a six-player game (two decks), 20 rounds: the longest page a table gives a phone
SIX_PLAYERS = REPLAYS / "simulated" / "two-decks" / "game-00006.jsonl"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The hand-written disputes, archived and audited, served."""
    yield from serving(tmp_path_factory, sorted(REPLAYS.glob("*.jsonl")))


def serving(tmp_path_factory: pytest.TempPathFactory, logs: list[Path]) -> Iterator[str]:
    """A server of an archive of ``logs`` (ingested and audited): its base URL."""
    from werkzeug.serving import make_server

    from yaniv_audit.archive import Archive
    from yaniv_audit.web import create_app

    db = tmp_path_factory.mktemp("browser") / "games.duckdb"
    with Archive(db) as archive:
        archive.ingest([str(p) for p in logs], jobs=1)
        list(archive.audit(jobs=1))
    # werkzeug's threads are not counted as waitress's are: room for every page's stream
    # of a live table (a closed page's holds its place until the server next writes to it)
    app = create_app({"ARCHIVE": str(db), "TABLE_FOLLOWERS": 64})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    thread.join()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def watch(opened: Page, errors: list[str]) -> None:
    """Every script error of the tab ``opened`` put in ``errors``: a script or style the
    Content-Security-Policy blocks is a console error (an error page's own status is one
    too, and expected)."""
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.on(
        "console",
        lambda msg: (
            errors.append(msg.text)
            if msg.type == "error"
            and not msg.text.startswith("Failed to load resource: the server responded")
            else None
        ),
    )


def checked_page(browser: Browser, **options: object) -> Iterator[Page]:
    opened = browser.new_page(**options)  # type: ignore[arg-type]
    errors: list[str] = []
    watch(opened, errors)
    yield opened
    opened.close()
    assert errors == [], f"JavaScript or Content-Security-Policy errors: {errors}"


#: what a phone-sized touch screen tab is opened with
PHONE_TAB: dict[str, object] = {
    "viewport": PHONE,
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 2,
}


@pytest.fixture(scope="module")
def kept_tabs(browser: Browser) -> Iterator[dict[str, tuple[Page, list[str]]]]:
    """A module's laptop tab and phone tab, each with the errors it has seen, made when a
    test first asks (see :func:`kept_tab`)."""
    tabs: dict[str, tuple[Page, list[str]]] = {}
    yield tabs
    for tab, _ in tabs.values():
        tab.close()


def kept_tab(
    tabs: dict[str, tuple[Page, list[str]]], browser: Browser, size: str
) -> Iterator[Page]:
    """The module's tab of ``size`` ("laptop" or "phone"), for pages that keep nothing in
    the browser but the language cookie (the viewer's, the rules, the analytics: no
    storage, no service worker): a new tab costs 0.3 to 0.5 s to start, one a test. Each
    test gets it blank (its first page opened anew, never a same-page jump to a fragment),
    with no cookie, at its size, with no permission granted, and fails on any script
    error as :func:`checked_page`'s do."""
    if size not in tabs:
        errors: list[str] = []
        options = PHONE_TAB if size == "phone" else {"viewport": LAPTOP}
        made = browser.new_page(**options)  # type: ignore[arg-type]
        watch(made, errors)
        tabs[size] = (made, errors)
    tab, errors = tabs[size]
    tab.goto("about:blank")
    tab.context.clear_cookies()  # the language a ?lang= chose
    tab.set_viewport_size(PHONE if size == "phone" else LAPTOP)
    errors.clear()
    yield tab
    tab.context.clear_permissions()
    assert errors == [], f"JavaScript or Content-Security-Policy errors: {errors}"


def tab(request: pytest.FixtureRequest, browser: Browser, size: str) -> Iterator[Page]:
    """A new tab of ``size``, or the module's kept one (:func:`kept_tab`) in a module that
    says ``KEPT_TABS = True`` (its pages keep nothing in the browser)."""
    if getattr(request.module, "KEPT_TABS", False):
        yield from kept_tab(request.getfixturevalue("kept_tabs"), browser, size)
    else:
        yield from checked_page(browser, **(PHONE_TAB if size == "phone" else {"viewport": LAPTOP}))


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A laptop-sized tab; the test fails on any script or Content-Security-Policy error."""
    yield from tab(request, browser, "laptop")


@pytest.fixture
def phone(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:
    """A phone-sized touch screen tab (390 x 844), failing on script errors likewise."""
    yield from tab(request, browser, "phone")


#: whether the browser tests save their screenshots, for a person to look at (no test
#: reads them): with YANIV_AUDIT_SCREENSHOTS=1 or in the long sweep; a whole page's PNG
#: costs 0.3 to 2.4 s (a six-player game's), 13 s of test_browser_reach.py's 35
SCREENSHOTS = LONG or os.environ.get("YANIV_AUDIT_SCREENSHOTS", "") not in ("", "0")


@pytest.fixture
def screenshot() -> Callable[[Page, str], Path]:
    """``screenshot(page, "board-phone")`` saves the whole page in tests/artifacts/
    (when SCREENSHOTS is set)."""

    def save(page: Page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        if SCREENSHOTS:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(path), full_page=True)
        return path

    return save
