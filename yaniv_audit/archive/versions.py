"""The versions of a game: a log with the ``game_id`` and ``game_started`` of an archived
game is another version of it, which continues one unchanged (``extends``), is the start
of a longer one archived before it (``part_of``), or changes its events (``rewrites``:
kept as evidence, never counted).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from .base import ArchiveBase, _one
from .rows import IngestRow


@dataclass(slots=True)
class _Version:
    """A version of a game met while ingesting: the md5 of its first event (the
    canonical game_started), and its events once they are needed."""

    fingerprint: str
    opening: str | None
    game_no: int | None
    leaves: list[str] | None = None
    #: the version it rewrites, if it does
    rewrites: str | None = None
    #: the log it is, when it is being ingested with this one
    row: IngestRow | None = None


@dataclass(frozen=True, slots=True)
class Rewrite:
    """An archived log that rewrites an archived game: the same game_id and game_started,
    then other events from ``differs_at`` on. It is kept as evidence and never counted."""

    game_id: str
    fingerprint: str
    source: str
    rewrites: str
    rewrites_source: str
    differs_at: int
    #: it is the rewritten version unchanged and more: a continuation of a game that had
    #: ended, kept as evidence unless its writer asked for it to count (``--reopen``)
    after_end: bool = False


def _common_prefix(a: Sequence[str], b: Sequence[str]) -> int:
    """How many events two versions of a game share from the start."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(frozen=True, slots=True)
class _Relation:
    """How a log relates to the archived versions of its game (by fingerprint)."""

    #: the longest version it continues unchanged, and how many events that one has
    extends: str | None = None
    shared: int = 0
    #: the longest version it is the unchanged start of
    part_of: str | None = None
    #: the longest version, itself no rewrite, whose events it changes, and the first
    #: event that differs
    rewrites: str | None = None
    differs_at: int = 0
    #: the longest version, itself no rewrite, that it continues unchanged and that had
    #: ended (:func:`ended`)
    after_end: str | None = None


def ended(leaves: Sequence[str]) -> bool:
    """Whether a version of a game had ended: its last event but notes is a
    ``game_ended`` (one taken back by a ``withdraw`` after it has not)."""
    for leaf in reversed(leaves):
        if '"note"' in leaf or '"game_ended"' in leaf:
            kind = json.loads(leaf).get("type")
            if kind == "note":
                continue
            return bool(kind == "game_ended")
        return False
    return False


def _relate(leaves: Sequence[str], versions: Sequence[_Version]) -> _Relation:
    """How a log of ``leaves`` relates to ``versions`` of the same game_id, in ingest
    order (those with the same game_started have their leaves read). A version with
    another game_started is another game that happens to have the same game_id.

    The first version archived is the game: a later one that changes its events (the
    same game_started, then other events) rewrites it, and is kept as evidence but
    never counted (:data:`~yaniv_audit.archive.schema.LATEST`). A log that changes only a
    rewrite does not rewrite.
    """
    extends = part_of = rewrites = after_end = None
    shared = differs_at = rewritten_size = whole_size = ended_size = 0
    for version in versions:
        theirs = version.leaves
        if theirs is None or not theirs or not leaves or theirs[0] != leaves[0]:
            continue
        same = _common_prefix(theirs, leaves)
        if same == len(theirs) < len(leaves):
            if same > shared:
                extends, shared = version.fingerprint, same
            if version.rewrites is None and same > ended_size and ended(theirs):
                after_end, ended_size = version.fingerprint, same
        elif same == len(leaves) < len(theirs):
            if len(theirs) > whole_size:
                part_of, whole_size = version.fingerprint, len(theirs)
        elif same < len(theirs) and version.rewrites is None and len(theirs) > rewritten_size:
            rewrites, differs_at, rewritten_size = version.fingerprint, same, len(theirs)
    return _Relation(extends, shared, part_of, rewrites, differs_at, after_end)


class Versions(ArchiveBase):
    """The events of the versions met while ingesting or migrating, and the rewrites
    archived."""

    def _leaves(self, version: _Version) -> list[str]:
        """The events of a version met while ingesting (archived, or in this batch),
        read once."""
        if version.row is not None:
            version.leaves = version.row.leaves()
            return version.leaves
        (leaves,) = _one(
            self.con.execute(
                "SELECT list(event ORDER BY seq) FROM events WHERE game_no = ?", [version.game_no]
            )
        ) or ([],)
        version.leaves = list(leaves or [])
        return version.leaves

    def rewrites(self) -> list[Rewrite]:
        """Every archived log that rewrites an archived game, in ingest order."""
        found = []
        for game_id, fp, source, no, other, other_source, other_no in self.con.execute(
            "SELECT g.game_id, g.fingerprint, g.source, g.game_no, o.fingerprint, o.source, "
            "o.game_no FROM games g JOIN games o ON o.fingerprint = g.rewrites "
            "ORDER BY g.game_no"
        ).fetchall():
            mine = self._leaves(_Version(fp, None, no))
            theirs = self._leaves(_Version(other, None, other_no))
            same = _common_prefix(mine, theirs)
            found.append(
                Rewrite(
                    game_id, fp, source, other, other_source, same, same == len(theirs) < len(mine)
                )
            )
        return found
