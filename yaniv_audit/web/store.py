"""The archive as the web app reads it.

Each request that needs the archive opens it read-only and closes it when the
request ends, rather than the app holding one connection for its lifetime:
DuckDB lets one process write a file only while no other process has it open,
so a viewer that held it would stop ``yaniv-audit ingest`` for as long as it runs.

The app runs no SQL a visitor writes: its statements are these constants, and
what a request gives (a player, a fingerprint, a page) goes in as a parameter.
It still opens the archive ``locked``, on the connection ``yaniv-audit query``
uses for a user's SQL (no file, network, extension or setting reachable), so a
mistake here could only ever read the archive's tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import current_app, g

from ..archive import LATEST, Archive
from ..codec import parse_jsonl
from ..events import Log

LISTING = f"""
SELECT g.fingerprint, g.game_id, g.source, g.players, g.rules_id, g.events, g.started_at,
       a.verdict, a.winners, g.extends,
       NOT {LATEST} AS superseded
FROM games g
LEFT JOIN audits a ON a.game_no = g.game_no AND a.rules_key = g.rules_key
WHERE $1 IS NULL OR list_contains(g.players, $1)
ORDER BY g.game_no
LIMIT $2 OFFSET $3
"""
COUNT = "SELECT count(*) FROM games g WHERE $1 IS NULL OR list_contains(g.players, $1)"


def archive_path() -> str | None:
    """The archive file the app shows, if it is set and exists."""
    path = current_app.config.get("ARCHIVE")
    return str(path) if path and Path(path).is_file() else None


def _archive() -> Archive | None:
    if "archive" not in g:
        path = archive_path()
        g.archive = Archive(path, locked=True) if path else None
    archive: Archive | None = g.archive
    return archive


def close_archive(_: BaseException | None = None) -> None:
    archive = g.pop("archive", None)
    if archive is not None:
        archive.close()


def archive_games(player: str | None, *, limit: int, offset: int) -> dict[str, Any] | None:
    """A page of the archive's games (with their audit under the declared rules, if any)."""
    archive = _archive()
    if archive is None:
        return None
    columns, rows = archive.query(LISTING, [player, limit, offset])
    (total,) = archive.query(COUNT, [player])[1][0]
    games = [dict(zip(columns, row, strict=True)) for row in rows]
    for game in games:
        started = game["started_at"]
        game["started_at"] = started.isoformat() if started is not None else None
    return {"games": games, "total": total}


def stored_log(fingerprint: str) -> tuple[Log, str] | None:
    """An archived game read back from its stored events, and the file it came from."""
    archive = _archive()
    if archive is None:
        return None
    rows = archive.query("SELECT source FROM games WHERE fingerprint = ?", [fingerprint])[1]
    if not rows:
        return None
    source = str(rows[0][0])
    return parse_jsonl(archive.log_bytes(fingerprint), source), source
