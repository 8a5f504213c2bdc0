"""``report house-rules``: for each group of archived games, the rule set they fit
together and the games that do not fit it (issue 39).

A group is the games of one table or club when their logs say one (``meta.table``,
else ``meta.club``, in game_started), else the games of the same players. Each game
(its latest version) is fitted from its declared rules (:func:`~yaniv_audit.core.fit.
fit_log`: a few dozen replays); the group's rule set takes each parameter at the value
most of its games allow (:func:`~yaniv_audit.core.fit.fit_together`), and each game is
then audited under it: those that are not clean do not fit.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..core.audit import replay_log
from ..core.errors import LogFormatError
from ..core.fit import Fit, fit_log, fit_together
from ..io.codec import parse_jsonl
from . import SIMULATED, Archive

GAMES = f"""
SELECT g.fingerprint, g.game_id, g.players,
       coalesce(json_extract_string(e.event, '$.meta.table'),
                json_extract_string(e.event, '$.meta.club')) AS place
FROM latest_games g JOIN events e ON e.game_no = g.game_no AND e.seq = 0
WHERE ($1 IS NULL OR len(g.players) = $1) AND ($2 OR NOT coalesce({SIMULATED}, false))
ORDER BY g.game_no
"""

COLUMNS = ["group", "games", "fit", "rules", "do_not_fit"]


def house_rules(
    archive: Archive, players: int | None, simulated: bool = False
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The report's columns and rows: one row a group, the most games first (the games
    bots played only with ``simulated``, as every report)."""
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for fingerprint, game_id, seated, place in archive.query(GAMES, [players, simulated])[1]:
        key = f"table {place}" if place else "players " + ", ".join(sorted(seated))
        groups[key].append((fingerprint, game_id))
    rows: list[tuple[Any, ...]] = []
    for key, games in groups.items():
        logs, fits = [], []
        for fingerprint, game_id in games:
            try:
                log = parse_jsonl(archive.log_bytes(fingerprint), game_id)
                found: Fit = fit_log(log)
            except LogFormatError:
                continue  # a game the replay finds unreadable fits nothing: left out
            # a game named by its fingerprint is said as the rulings say it: 16 digits
            logs.append((game_id[:16] if game_id == fingerprint else game_id, log))
            fits.append(found)
        if not logs:
            continue
        together = fit_together(fits, logs[0][1].game.rules)
        misfits = [gid for gid, log in logs if replay_log(log, together).findings]
        rows.append((key, len(logs), len(logs) - len(misfits), together.id, ", ".join(misfits)))
    rows.sort(key=lambda row: (-row[1], row[0]))
    return COLUMNS, rows
