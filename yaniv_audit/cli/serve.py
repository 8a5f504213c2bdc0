"""``serve``: the viewer and the JSON API on waitress (or Flask's development server).

Flask, waitress and DuckDB are imported when the server starts, for start-up time.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn

import click

from ..core.errors import ArchiveError
from .options import EXIT_BAD_INPUT, EXIT_USAGE, db_option
from .render import echo, fail, note, shown

#: the archive ``serve --demo`` serves, in the current directory: the sample games apart
#: from the archive a club keeps its own games in
DEMO_DB = "yaniv-demo.duckdb"


@click.command()
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="the address to listen on (0.0.0.0: every network of this machine)",
)
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=5000,
    show_default=True,
    help="the port to listen on (one another program holds: exit 2)",
)
@db_option
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="requests served at once",
)
@click.option(
    "--max-bytes",
    "max_bytes",
    type=click.IntRange(min=1024),
    default=None,
    metavar="N",
    help="the largest request body (default: $YANIV_AUDIT_MAX_BYTES, else 4 MiB)",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=None,
    metavar="N",
    help="processes that audit posted logs, so that requests use every core "
    "(default: $YANIV_AUDIT_WORKERS, else one per core up to --threads; 0: "
    "in the server, as --dev does by default)",
)
@click.option(
    "--client-timeout",
    "client_timeout",
    type=click.IntRange(1, 3600),
    default=15,
    show_default=True,
    metavar="SECONDS",
    help="a connection that sends nothing for this long is closed (slow clients)",
)
@click.option(
    "--dev", is_flag=True, help="Flask's development server, reloading when the code changes"
)
@click.option(
    "--demo",
    is_flag=True,
    help=f"serve the demo archive ({DEMO_DB} here, or --db FILE), holding the "
    "sample games that come with yaniv-audit (stored on its first start)",
)
def serve(
    host: str,
    port: int,
    db: str | None,
    threads: int,
    max_bytes: int | None,
    workers: int | None,
    client_timeout: int,
    dev: bool,
    demo: bool,
) -> None:
    """Serve the step-through viewer (/) and the JSON API (/api/v1/).

    The viewer lists the archive's games (--db) and opens any log file; the API
    is described at /api/v1/openapi.json. It runs on waitress (a production WSGI
    server); --dev runs Flask's reloader instead. Writes (storing a log) need
    $YANIV_AUDIT_TOKEN as a bearer token, or come from this machine. The sample
    games are stored only with --demo, in a demo archive of their own, so that
    the archive that becomes the club's holds only its games.
    """
    # heavy (DuckDB, Flask): imported when used, for start-up time
    from ..archive import default_db
    from ..web import create_app, settings_from_env
    from ..web.store import base_name

    path = db or (DEMO_DB if demo else default_db())
    try:
        settings = settings_from_env()
    except ValueError as exc:
        fail(str(exc), EXIT_USAGE)
    if max_bytes is not None:
        settings["MAX_BYTES"] = max_bytes
    if workers is not None:
        settings["WORKERS"] = workers
    # one per core this process may use, no more than requests served at once; none in
    # --dev's reloading parent, which serves nothing
    reloader_parent = dev and os.environ.get("WERKZEUG_RUN_MAIN") != "true"
    settings.setdefault("WORKERS", 0 if dev else min(usable_cores(), threads))
    settings["THREADS"] = threads  # a live table's followers each hold one (web/tables.py)
    if reloader_parent:
        settings["WORKERS"] = 0
    if not dev or reloader_parent:  # once, not per reload
        if demo:
            seed_archive(path)
        elif not holds_games(path):
            note(
                f"the archive {path} holds no games yet: yaniv-audit ingest PATH stores "
                "your logs (or post them in the viewer); yaniv-audit serve --demo shows the "
                "sample games, in an archive of their own"
            )
        audit_left(path)
    app = create_app({"ARCHIVE": path, "LISTEN_HOST": host.lower(), **settings})
    token = (
        "writes need the token"
        if app.config.get("WRITE_TOKEN")
        else "writes from this machine only"
    )
    pool = app.extensions.get("yaniv_workers")
    audits = f"{pool.processes} audit processes" if pool else "audits in the server"
    # a stop (kill, systemctl, docker) ends the server, its workers closed, with status 0;
    # Ctrl-C as every command ends (waitress itself ends quietly on either)
    interrupted = []

    def on_ctrl_c(*_: object) -> None:
        interrupted.append(True)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, on_ctrl_c)
    try:
        # bound before a worker starts and before "yaniv-audit on" is said: a port taken
        # is a sentence and exit 2, not a server announced and then an internal error
        server = None if dev else bound(app, host, port, threads, client_timeout)
        if reloader_parent:  # Flask binds the port (its reloaded child is handed it)
            check_port(host, port)
        if pool:
            pool.start()
        # the first game stored would import pyarrow and pandas while other requests wait
        from ..archive.rows import prepare

        threading.Thread(target=prepare, name="yaniv-audit prepare", daemon=True).start()
        echo(
            shown(
                f"yaniv-audit on http://{host}:{port}/ (archive {base_name(path)}, "
                f"{'Flask dev server' if dev else f'waitress, {threads} threads'}, "
                f"{audits}, {token})"
            ),
            err=True,
        )
        if server is None:
            app.run(host=host, port=port, debug=False, use_reloader=True)
            return
        server.run()
    finally:
        if pool:
            pool.close()
    if interrupted:
        raise KeyboardInterrupt


def bound(app: Any, host: str, port: int, threads: int, client_timeout: int) -> Any:
    """waitress's server for ``app`` bound to ``host:port``, not yet serving; a port that
    is taken or not allowed is wrong usage (exit 2) naming it and ``--port``."""
    # heavy (waitress): imported when used, for start-up time
    from ..web.serving import listening

    limit = int(app.config["MAX_BYTES"])
    try:
        # a posted log read 64 KiB at a time (waitress's default, 8 KiB, took a 600-event
        # log through its read loop eight times, about 30 % of its time in a profile)
        return listening(
            app,
            host=host,
            port=port,
            threads=threads,
            ident="yaniv-audit",
            max_request_body_size=2 * limit + (1 << 20),
            recv_bytes=1 << 16,
            **slow_client_settings(client_timeout),
        )
    except OSError as exc:
        port_taken(host, port, exc)


def check_port(host: str, port: int) -> None:
    """For --dev (Flask binds the port itself): that ``host:port`` can be bound now."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        family, kind, proto, _, address = infos[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(address)
    except OSError as exc:
        port_taken(host, port, exc)


def port_taken(host: str, port: int, exc: OSError) -> NoReturn:
    """Exit 2: the server cannot listen on ``host:port`` (taken, not allowed, no such
    address), and what to do."""
    why = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        why = "another program is listening on it"
    fail(
        f"cannot listen on {host}:{port} ({why}): give another port with --port N "
        f"(e.g. --port {port + 1 if port < 65535 else 8000})",
        EXIT_USAGE,
    )


#: connections waitress holds at once: its default, 100, let 120 clients sending a byte
#: every 17 s keep every other request waiting (issue 27); each costs a file descriptor
CONNECTION_LIMIT = 1000


def slow_client_settings(client_timeout: int) -> dict[str, Any]:
    """waitress's settings against slow clients: a connection waits in its event loop (no
    thread) until its request is whole, so only their number and idle time need bounds.
    The proxy headers are kept for the app (waitress drops X-Forwarded-For and Forwarded
    unless told otherwise), which refuses a write without a token that a proxy forwarded.
    The file-descriptor limit is raised to the connections' need where the system lets."""
    try:
        import resource  # not on Windows (the ImportError below)

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = CONNECTION_LIMIT + 100
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(
                resource.RLIMIT_NOFILE,
                (want if hard == resource.RLIM_INFINITY else min(want, hard), hard),
            )
    except (ImportError, ValueError, OSError):  # not on Windows; a hard limit below
        pass
    return {
        "connection_limit": CONNECTION_LIMIT,
        "channel_timeout": client_timeout,
        "cleanup_interval": max(1, min(5, client_timeout // 2)),
        "max_request_header_size": 64 << 10,
        "clear_untrusted_proxy_headers": False,
    }


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system says)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on macOS or Windows
        return os.cpu_count() or 1


#: the sample games ``serve --demo`` stores: the package's copy of replays/*.jsonl (package
#: data, so that an installed yaniv-audit has them; tests/test_packaging.py checks the copy)
SAMPLES = Path(__file__).resolve().parents[1] / "samples" / "games"


def audit_left(path: str) -> None:
    """Audit the stored games that have no audit under their declared rules (a server
    killed between storing and auditing them), and say so; an archive that cannot be
    opened now is the server's to report."""
    from ..web.store import audit_on_start  # heavy (DuckDB, Flask): imported when used

    try:
        audited = audit_on_start(path)
    except ArchiveError:
        return
    if audited:
        note(
            f"audited {audited} stored game{'s' if audited != 1 else ''} of {path} that "
            f"had no audit under {'their' if audited != 1 else 'its'} declared rules (a "
            "server stopped between storing and auditing them)"
        )


def holds_games(path: str) -> bool:
    """Whether the archive at ``path`` exists and holds a game (or cannot be read: the
    server's own error then says why)."""
    from ..archive import Archive  # heavy (DuckDB): imported when used

    if path == ":memory:" or not Path(path).is_file():
        return False
    try:
        with Archive(path, read_only=True) as archive:
            return bool(archive.count_games())
    except ArchiveError:
        return True


def seed_archive(path: str) -> None:
    """Ingest the sample games (:data:`SAMPLES`, replays/*.jsonl as the package ships
    them) into a missing or empty demo archive, and say so."""
    # heavy (DuckDB, Flask): imported when used
    from ..archive import Archive
    from ..web.store import ingest_into

    samples = sorted(str(p) for p in SAMPLES.glob("*.jsonl"))
    if path == ":memory:" or holds_games(path):
        return
    if not samples:
        echo(
            shown(
                f"the demo archive {path} is empty, and the sample games ({SAMPLES} in "
                "the package) are not here: ingest some logs into it with "
                f"yaniv-audit ingest --db {path} LOG..."
            ),
            err=True,
        )
        return
    try:
        with Archive(path) as archive:
            result = ingest_into(archive, samples)
    except ArchiveError as exc:
        fail(str(exc), EXIT_BAD_INPUT)
    echo(
        shown(
            f"the demo archive was empty: ingested the {result.games} sample games "
            f"(replays/ of yaniv-audit's source) into {path} (and audited them)"
        ),
        err=True,
    )


#: the commands this module adds to `yaniv-audit`
COMMANDS: list[click.Command] = [serve]
