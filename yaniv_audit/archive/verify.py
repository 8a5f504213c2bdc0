"""Verify and checkpoints: every stored game's fingerprint recomputed from its events,
its audits done again and compared row by row, and the Merkle root over the games'
fingerprints recorded, to show later that the archive only grew.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import duckdb

from .. import ENGINE
from ..batch.bulk import mapped, no_gc
from ..core.errors import ArchiveError, LogFormatError
from ..core.merkle import tree_hash
from ..core.rules import RuleSet, parse_rules
from .auditing import audit_archived
from .base import WORKER_PRELOAD, ArchiveBase, Progress, _no_progress, damaged, trouble
from .rows import derived_rows
from .schema import DERIVED

_HEX = frozenset("0123456789abcdefABCDEF")


def _comparable(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return sorted(
        (tuple(tuple(v) if isinstance(v, list) else v for v in row) for row in rows), key=repr
    )


def _audit_difference(
    stored: dict[str, list[tuple[Any, ...]]], fresh: dict[str, list[tuple[Any, ...]]]
) -> str | None:
    """What a game's stored derived rows say that a new audit does not, or None."""
    if not stored.get("audits"):
        return "the stored audit has lost its audits row"
    old, new = stored["audits"][0], fresh["audits"][0]
    said = []
    for name, i in (("verdict", 4), ("finished", 5), ("winners", 6)):
        if _comparable([(old[i],)]) != _comparable([(new[i],)]):
            said.append(f"{name} {old[i]!r} where a new audit gives {new[i]!r}")
    if said:
        return "the stored audit says " + "; ".join(said)
    for table in ("audits", "findings", "rounds", "standings", "player_rounds"):
        if _comparable(stored.get(table, [])) != _comparable(fresh[table]):
            return f"its stored {table} rows differ from a new audit"
    return None


def check_stored(
    job: tuple[str, bytes, int, str | None, int | None],
) -> tuple[str, str | None]:
    """What is wrong with one archived game's stored events, for ``verify`` (in a
    worker): (its fingerprint, None when nothing is). The job: the fingerprint, the
    stored JSON Lines, the events ingested, and the version it extends with that
    version's events (None: it extends none, or that version is not archived)."""
    from ..io.codec import parse_jsonl  # heavy (marshmallow): only where logs are read

    fingerprint, data, expected, extends, extends_size = job
    with no_gc():
        try:
            log = parse_jsonl(data, fingerprint)
        except LogFormatError as exc:
            return fingerprint, f"its stored events no longer read: {exc}"
        if len(log.events) != expected:
            return fingerprint, f"{len(log.events)} events stored, {expected} ingested"
        got = tree_hash(log.leaves).hex()
        if got != fingerprint:
            return fingerprint, f"its stored events give fingerprint {got}"
        if extends is not None and (
            extends_size is None or tree_hash(log.leaves[:extends_size]).hex() != extends
        ):
            return fingerprint, (
                f"it does not continue the version {extends} it was stored as extending"
            )
    return fingerprint, None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The archive at one moment: its first ``games`` games have the Merkle tree
    hash ``root`` over their fingerprints, in ingest order."""

    games: int
    root: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "root": self.root, "created_at": self.created_at}

    @classmethod
    def from_json(cls, data: bytes | str) -> Checkpoint:
        """A checkpoint as ``yaniv-audit checkpoint --json`` printed it."""
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError):
            raise ArchiveError(
                "the checkpoint is not JSON: expected the line "
                "yaniv-audit checkpoint --json printed"
            ) from None
        if not isinstance(raw, dict):
            raise ArchiveError('the checkpoint: expected an object {"games", "root", "created_at"}')
        games, root = raw.get("games"), raw.get("root")
        if type(games) is not int or games < 0:
            raise ArchiveError(f"the checkpoint's games: expected a count, got {games!r}")
        if not isinstance(root, str) or len(root) != 64 or not set(root) <= _HEX:
            raise ArchiveError(f"the checkpoint's root: expected 64 hex digits, got {root!r}")
        return cls(games, root.lower(), str(raw.get("created_at", "an unknown time")))


@dataclass(frozen=True, slots=True)
class Mismatch:
    """A stored game whose events no longer give its fingerprint."""

    fingerprint: str
    game_id: str
    problem: str


class Verifying(ArchiveBase):
    """Verify (:meth:`verify`, :meth:`verify_audits`) and checkpoints."""

    def check_blocks(self) -> None:
        """Read every block of every table of the archive, each column whole, so that
        DuckDB checks each block's checksum; a damaged one raises the
        :class:`ArchiveError` that says so (:func:`~yaniv_audit.archive.base.damaged`).
        ``verify`` vouches only for what it read, and ``ingest`` and ``audit --db``
        check before they write into a file (about 120 MB/s: bench/check_blocks.py)."""
        tables = [
            name
            for (name,) in self.con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
                "AND table_type = 'BASE TABLE' ORDER BY table_name"
            ).fetchall()
        ]
        for table in tables:
            try:  # every value hashed: no column is skipped, no block left unread
                self.con.execute(f'SELECT bit_xor(hash(COLUMNS(*))) FROM "{table}"').fetchall()
            except duckdb.Error as exc:
                raise (trouble(self.path, exc) or damaged(self.path, exc)) from None

    def verify(
        self,
        *,
        jobs: int | None = None,
        progress: Progress = _no_progress,
    ) -> tuple[int, list[Mismatch]]:
        """Recompute every game's fingerprint from its stored events, on ``jobs`` processes
        (default: every core), after reading every block of the file
        (:meth:`check_blocks`): (games, mismatches)."""
        self.check_blocks()
        numbers = [
            n for (n,) in self.con.execute("SELECT game_no FROM games ORDER BY game_no").fetchall()
        ]
        info = {
            fp: (events, game_id, extends)
            for fp, events, game_id, extends in self.con.execute(
                "SELECT fingerprint, events, game_id, extends FROM games"
            ).fetchall()
        }

        def job(fingerprint: str, data: bytes) -> tuple[str, bytes, int, str | None, int | None]:
            events, _, extends = info[fingerprint]
            return fingerprint, data, events, extends, info[extends][0] if extends in info else None

        work = (job(log.fingerprint, log.data) for log in self._stored_logs(numbers))
        mismatches = []
        seen = 0
        jobs = self._jobs_for(jobs, numbers)
        with (
            mapped(check_stored, work, len(numbers), jobs, WORKER_PRELOAD) as results,
            progress(results, len(numbers), "verifying") as bar,
        ):
            for fingerprint, problem in bar:
                seen += 1
                if problem is not None:
                    mismatches.append(Mismatch(fingerprint, info[fingerprint][1], problem))
        if seen != len(numbers):  # a game with no events at all never comes out of the join
            missing = self.con.execute(
                "SELECT fingerprint, game_id FROM games g WHERE NOT EXISTS "
                "(SELECT 1 FROM events e WHERE e.game_no = g.game_no)"
            ).fetchall()
            mismatches.extend(Mismatch(fp, gid, "no events stored") for fp, gid in missing)
        return len(numbers), mismatches

    def verify_audits(
        self,
        *,
        jobs: int | None = None,
        progress: Progress = _no_progress,
    ) -> tuple[int, int, list[Mismatch]]:
        """Audit every stored game again under each rule set it was audited under by this
        engine, and compare every derived row: (audits checked, audits by another engine
        version, not checked, mismatches)."""
        rows = self.con.execute(
            "SELECT g.game_no, g.game_id, g.fingerprint, a.rules_key, a.rules_id, a.engine "
            "FROM audits a JOIN games g USING (game_no) ORDER BY g.game_no, a.rules_key"
        ).fetchall()
        wanted: dict[str, list[RuleSet | None]] = {}
        game_of: dict[str, tuple[int, str]] = {}
        stale = 0
        for game_no, game_id, fp, _key, rules_id, engine in rows:
            if engine != ENGINE:
                stale += 1
                continue
            wanted.setdefault(fp, []).append(parse_rules(rules_id))
            game_of[fp] = (game_no, game_id)
        order = sorted(wanted, key=lambda fp: game_of[fp][0])
        jobs_iter = (
            (log.fingerprint, log.source, log.data, wanted[log.fingerprint])
            for log in self._stored_logs([game_of[fp][0] for fp in order])
        )
        mismatches: list[Mismatch] = []
        checked = 0
        keys: dict[str, str] = {}
        jobs = self._jobs_for(
            jobs, [game_of[fp][0] for fp in order], max(map(len, wanted.values()), default=1)
        )
        with (
            mapped(audit_archived, jobs_iter, len(order), jobs, WORKER_PRELOAD) as results,
            progress(results, len(order), "re-auditing") as bar,
        ):
            for reports in bar:
                if reports[0]["verdict"] == "unreadable":
                    continue  # verify's check of the events says what happened
                fp = reports[0]["fingerprint"]
                stored = self._stored_rows(game_of[fp][0])
                for report in reports:
                    checked += 1
                    fresh = derived_rows(report, game_of[fp][0], keys)
                    key = fresh["audits"][0][1]
                    problem = _audit_difference(stored.get(key, {}), fresh)
                    if problem is not None:
                        mismatches.append(
                            Mismatch(
                                fp, game_of[fp][1], f"under {report['rules']['id']}: {problem}"
                            )
                        )
        return checked, stale, mismatches

    def _stored_rows(self, game_no: int) -> dict[str, dict[str, list[tuple[Any, ...]]]]:
        """The derived rows stored for one game: rules_key -> table -> rows."""
        out: dict[str, dict[str, list[tuple[Any, ...]]]] = {}
        for table in DERIVED:
            columns = "* EXCLUDE (audited_at)" if table == "audits" else "*"
            for row in self.con.execute(
                f"SELECT {columns} FROM {table} WHERE game_no = ?",
                [game_no],
            ).fetchall():
                out.setdefault(row[1], {}).setdefault(table, []).append(row)
        return out

    # --- checkpoints ------------------------------------------------------------

    def _fingerprints(self) -> list[bytes]:
        return [
            bytes.fromhex(fp)
            for (fp,) in self.con.execute(
                "SELECT fingerprint FROM games ORDER BY game_no"
            ).fetchall()
        ]

    def checkpoint(self) -> Checkpoint:
        """Record and return the archive's checkpoint: how many games it holds and the
        Merkle tree hash of their fingerprints in ingest order. Kept outside the
        archive, it lets :meth:`check_checkpoint` show later that the archive only
        grew: no game removed, replaced or reordered."""
        fingerprints = self._fingerprints()
        point = Checkpoint(
            len(fingerprints),
            tree_hash(fingerprints).hex(),
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        self.con.execute(
            "INSERT INTO checkpoints VALUES (?, ?, ?)",
            [point.games, point.root, datetime.fromisoformat(point.created_at)],
        )
        return point

    def check_checkpoint(self, point: Checkpoint) -> str | None:
        """None if the archive still begins with the games of ``point``, else what differs."""
        fingerprints = self._fingerprints()
        if len(fingerprints) < point.games:
            return (
                f"the checkpoint of {point.created_at} vouches for {point.games} games; "
                f"the archive holds {len(fingerprints)}"
            )
        if tree_hash(fingerprints[: point.games]).hex() != point.root.lower():
            return (
                f"the archive's first {point.games} games are not those of the checkpoint "
                f"of {point.created_at}: a game was removed, replaced or reordered"
            )
        return None

    def checkpoints(self) -> list[Checkpoint]:
        return [
            Checkpoint(n, root, at.isoformat(timespec="seconds"))
            for n, root, at in self.con.execute(
                "SELECT games, root, created_at FROM checkpoints ORDER BY created_at, games"
            ).fetchall()
        ]
