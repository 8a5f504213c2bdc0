"""``table open``: an operator opens a live table for a club (docs/web.md, "Live tables"):
its id, its key, the links and a QR code the phones at the table scan to record."""

from __future__ import annotations

import json
import os
import secrets
import urllib.error
import urllib.parse
import urllib.request
from datetime import UTC, datetime
from typing import Any

import click

from .options import EXIT_BAD_INPUT, EXIT_USAGE
from .render import echo, fail, note

#: the server a link names when none is given
DEFAULT_URL = "http://127.0.0.1:5000"


@click.group("table")
def table() -> None:
    """Live tables: a game played on the server, followed and recorded by every phone at
    the table (the API's /api/v1/tables)."""


@table.command("open")
@click.option(
    "--players", required=True, metavar="A,B,...", help="the players in seat order, by comma"
)
@click.option(
    "--rules",
    "rules_spec",
    default="israeli",
    show_default=True,
    help="the rule set (a preset, with parameters if any)",
)
@click.option("--game-id", default=None, help="the game's id (default: none)")
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default=None,
    help="open it in this archive file directly (the server reads it from there); "
    "default: $YANIV_AUDIT_DB, else yaniv-archive.duckdb, unless --url",
)
@click.option(
    "--url",
    default=None,
    metavar="BASE",
    help="open it through the server at BASE (its write token from "
    "$YANIV_AUDIT_TOKEN, if set); the links name BASE either way "
    f"(default: {DEFAULT_URL})",
)
@click.option(
    "--qr/--no-qr", default=True, show_default=True, help="print the recording link as a QR code"
)
def table_open(
    players: str, rules_spec: str, game_id: str | None, db: str | None, url: str | None, qr: bool
) -> None:
    """Open a live table: print its id, its key, the link that follows it, the link that
    records to it (the key in the link's fragment, which no server log sees) and that
    link as a QR code."""
    seats = [p.strip() for p in players.split(",")]
    if "" in seats:
        fail(
            f"--players {players!r}: player {seats.index('') + 1} has no name (expected the "
            "names in seat order, by comma)",
            EXIT_USAGE,
        )
    started: dict[str, Any] = {
        "type": "game_started",
        "format": "yaniv-log/1",
        "players": seats,
        "rules": rules_spec,
        "at": datetime.now(UTC).astimezone().isoformat(timespec="seconds"),
    }
    if game_id:
        started["game_id"] = game_id
    line = json.dumps(started).encode()
    if url is not None:
        url = _checked_url(url)
    if url is not None and db is None:
        table_id, key = _open_remote(url.rstrip("/"), line)
    else:
        table_id, key = _open_here(db, line)
    base = (url or DEFAULT_URL).rstrip("/")
    record = f"{base}/record#table={table_id}&key={key}"
    echo(f"table:  {table_id}")
    echo(f"key:    {key}   (the table's only key: whoever holds it records to it)")
    echo(f"follow: {base}/tables/{table_id}")
    echo(f"record: {record}")
    if urllib.parse.urlsplit(base).hostname in ("127.0.0.1", "localhost", "::1"):
        note(
            f"the links name {base}, this machine only: for the phones at the table, "
            "give --url with this machine's address on their network (serve --host 0.0.0.0)"
        )
    if qr:
        import segno  # only when a code is printed

        segno.make(record, error="m").terminal(compact=True)


def _checked_url(url: str) -> str:
    """``--url`` as a server's base address, or a usage error that says what is expected."""
    parts = urllib.parse.urlsplit(url.strip())
    try:
        parts.port  # noqa: B018  (a port that is not a number raises)
    except ValueError:
        parts = parts._replace(netloc="")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        fail(
            f"--url {url!r}: expected the server's address, such as http://192.168.1.20:5000",
            EXIT_USAGE,
        )
    return url.strip()


def _open_remote(base: str, line: bytes) -> tuple[str, str]:
    headers = {"Content-Type": "application/x-ndjson"}
    token = os.environ.get("YANIV_AUDIT_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        f"{base}/api/v1/tables", data=line, headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            said = json.loads(exc.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            said = exc.reason
        fail(f"{base}: the server refused the table ({exc.code}: {said})", EXIT_BAD_INPUT)
    except (urllib.error.URLError, OSError) as exc:
        fail(f"{base}: cannot reach the server ({getattr(exc, 'reason', exc)})", EXIT_USAGE)
    return str(body["id"]), str(body["key"])


def _open_here(db: str | None, line: bytes) -> tuple[str, str]:
    # heavy (DuckDB, the engine): imported when used, for start-up time
    from ..archive import Archive, default_db
    from ..archive import tables as stored
    from ..core.errors import LogFormatError
    from ..io.live import LiveGame
    from ..web.tables import sha256

    game = LiveGame("table")
    try:
        game.append(line)
    except LogFormatError as exc:
        fail(f"the table's {exc.message}", EXIT_USAGE)
    table_id, key = secrets.token_urlsafe(12), secrets.token_urlsafe(24)
    first = game.events[0]
    with Archive(db or default_db()) as archive:
        stored.create_table(
            archive.con,
            table_id,
            sha256(key),
            first,  # type: ignore[arg-type]
            game.leaves[0],
            game.fingerprint(),
            game.state()["report"],
        )
    return table_id, key


COMMANDS: list[click.Command] = [table]
