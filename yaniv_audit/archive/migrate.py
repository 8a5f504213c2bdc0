"""An archive of an older schema (1 to 4) brought forward to
:data:`~yaniv_audit.archive.schema.SCHEMA_VERSION` when it is opened, in one transaction, a
schema at a time (:class:`Migration`).
"""

from __future__ import annotations

import json

import duckdb

from .. import ENGINE
from ..core.errors import LogFormatError
from ..core.rules import parse_rules
from .base import READ_BATCH, _insert, _one, transaction
from .rows import deal_rows, opening_md5, player_round_rows
from .schema import DERIVED, DERIVED_TABLES, GAME_TABLES, SCHEMA_VERSION, VIEWS, _summarize
from .versions import Versions, _relate, _Version

#: schema 2's player_rounds (keyed by fingerprint), made when migrating from schema 1
PLAYER_ROUNDS_2 = DERIVED_TABLES[
    DERIVED_TABLES.index("CREATE TABLE IF NOT EXISTS player_rounds") :
].replace("game_no INTEGER", "fingerprint VARCHAR", 1)


#: SQL: the typed columns of ``events`` from each stored event's JSON, for an archive
#: of schema 1 (what :func:`~yaniv_audit.archive.rows.event_columns` gives at ingest)
BACKFILL = """
UPDATE events SET round = t.round, source = t.source, cards = t.cards
FROM (
    SELECT game_no, seq,
           CASE WHEN type IN ('round_started', 'round_ended')
                    THEN TRY_CAST(event->>'round' AS INTEGER)
                WHEN type IN ('game_started', 'game_ended') THEN NULL
                ELSE last_value(CASE WHEN type = 'round_started'
                                     THEN TRY_CAST(event->>'round' AS INTEGER) END
                                IGNORE NULLS) OVER (PARTITION BY game_no ORDER BY seq
                                    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
           END AS round,
           CASE WHEN type = 'draw' THEN event->>'source' END AS source,
           CASE WHEN type = 'discard' THEN json_extract_string(event, '$.cards[*]')
                WHEN type IN ('draw', 'slap') AND event->>'card' IS NOT NULL
                    THEN [event->>'card']
           END AS cards
    FROM events
) t
WHERE events.game_no = t.game_no AND events.seq = t.seq
"""


class Migration(Versions):
    """An archive of an older schema being brought forward, on its open connection."""

    def __init__(self, con: duckdb.DuckDBPyConnection, path: str) -> None:
        self.con = con
        self.path = path

    def migrate(self, version: str) -> None:
        """Bring an archive of schema ``version`` forward to :data:`SCHEMA_VERSION`, in one
        transaction, a schema at a time (:meth:`_schema_2` to :meth:`_schema_5`)."""
        con = self.con
        with transaction(con):
            if version == "1":
                self._schema_2()  # its player_rounds is made with schema 5's opened
            elif version == "2":
                self._schema_5("fingerprint")  # before schema 3 copies player_rounds
            if version in ("1", "2"):
                self._schema_3()
            else:
                self._schema_5("game_no")
            if version != "4":
                self._schema_4()
            self._openings()
            for view in ("games", *DERIVED):  # made again: a view's columns are fixed when made
                con.execute(f"DROP VIEW IF EXISTS latest_{view}")
            con.execute(VIEWS)
            con.execute("UPDATE archive_info SET value = ? WHERE key = 'schema'", [SCHEMA_VERSION])
            con.execute(
                "INSERT OR REPLACE INTO archive_info VALUES (?, ?)",
                [f"migrated_from_{version}", ENGINE],
            )

    def _schema_2(self) -> None:
        """Schema 1 to 2: the typed columns of ``events`` added and filled from each
        event's JSON (:data:`BACKFILL`); ``player_rounds`` created and filled from every
        stored audit report."""
        con = self.con
        for column, kind in (("round", "INTEGER"), ("source", "VARCHAR"), ("cards", "VARCHAR[]")):
            con.execute(f"ALTER TABLE events ADD COLUMN {column} {kind}")
        con.execute(BACKFILL)
        con.execute(PLAYER_ROUNDS_2)
        audits = con.execute(
            "SELECT fingerprint, rules_key FROM audits ORDER BY fingerprint, rules_key"
        ).fetchall()
        for start in range(0, len(audits), READ_BATCH):
            batch = audits[start : start + READ_BATCH]
            reports = con.execute(
                "SELECT fingerprint, rules_key, report FROM audits WHERE "
                "(fingerprint, rules_key) IN "
                "(SELECT unnest($1::VARCHAR[]), unnest($2::VARCHAR[]))",
                [[fp for fp, _ in batch], [key for _, key in batch]],
            ).fetchall()
            rows = [
                row
                for fp, key, text in reports
                for row in player_round_rows(json.loads(text), key, fp)
            ]
            if rows:
                _insert(con, "player_rounds", [list(column) for column in zip(*rows, strict=True)])

    def _schema_3(self) -> None:
        """Schema 2 to 3: the derived tables keyed by ``game_no`` instead of the
        fingerprint (rows of a game no longer archived are dropped); ``games.rewrites``
        added and filled (:meth:`_flag_rewrites`); the ``latest_*`` views."""
        con = self.con
        con.execute("DROP VIEW IF EXISTS latest_games")
        con.execute("ALTER TABLE games ADD COLUMN rewrites VARCHAR")
        for table in DERIVED:
            con.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
        con.execute(GAME_TABLES)  # deals: the other tables are there
        con.execute(DERIVED_TABLES)
        for table in DERIVED:
            con.execute(
                f"INSERT INTO {table} SELECT g.game_no, o.* EXCLUDE (fingerprint) "
                f"FROM old_{table} o JOIN games g USING (fingerprint)"
            )
            con.execute(f"DROP TABLE old_{table}")
        self._flag_rewrites()
        self._fill_deals()
        con.execute(VIEWS)

    def _schema_4(self) -> None:
        """Schema 3 to 4: ``round_turns`` and ``draw_cards`` created and filled from the
        stored events (:data:`~yaniv_audit.archive.schema.SUMMARIES`)."""
        self.con.execute(GAME_TABLES)  # the new tables: the others are there
        (last,) = _one(self.con.execute("SELECT coalesce(max(game_no), 0) FROM games")) or (0,)
        _summarize(self.con, 1, last)

    def _schema_5(self, key: str) -> None:
        """Schema 4 to 5: ``player_rounds.opened``, from each round's starter in ``rounds``
        (joined on ``key``: the fingerprint before schema 3). The table is made again, as
        DuckDB cannot make a filled column NOT NULL in the transaction that fills it."""
        con = self.con
        con.execute("ALTER TABLE player_rounds RENAME TO old_player_rounds")
        con.execute(PLAYER_ROUNDS_2 if key == "fingerprint" else DERIVED_TABLES)
        con.execute(f"""INSERT INTO player_rounds
                        SELECT o.*, coalesce(o.player = r.starter, false)
                        FROM old_player_rounds o LEFT JOIN rounds r
                        ON o.{key} = r.{key} AND o.rules_key = r.rules_key
                        AND o.round = r.round""")
        con.execute("DROP TABLE old_player_rounds")

    def _openings(self) -> None:
        """Schema 4 to 5, the other part: ``games.opening_md5`` added and filled from each
        game's first stored event (DuckDB's md5 of the same text :func:`opening_md5`
        hashes)."""
        con = self.con
        con.execute("ALTER TABLE games ADD COLUMN opening_md5 VARCHAR")
        con.execute(
            "UPDATE games SET opening_md5 = md5(e.event) FROM events e "
            "WHERE e.game_no = games.game_no AND e.seq = 0"
        )

    def _fill_deals(self) -> None:
        """Fill ``deals`` of an archive ingested before it was kept, from the stored
        round_started events (:func:`deal_rows`)."""
        from ..io.codec import parse_jsonl  # heavy (marshmallow): only where logs are read

        con = self.con
        numbers = [
            n
            for (n,) in con.execute(
                "SELECT DISTINCT game_no FROM events WHERE type = 'round_started' "
                "AND event LIKE '%\"hands\"%' ORDER BY game_no"
            ).fetchall()
        ]
        rules_of = dict(con.execute("SELECT game_no, rules_id FROM games").fetchall())
        for stored in self._stored_logs(numbers):
            try:
                log = parse_jsonl(stored.data, stored.source)
            except LogFormatError:
                continue  # altered since it was stored: verify says so
            n = stored.game_no
            deals = [(n, *deal) for deal in deal_rows(log.events, parse_rules(rules_of[n]))]
            if deals:
                _insert(con, "deals", [list(column) for column in zip(*deals, strict=True)])

    def _flag_rewrites(self) -> None:
        """Fill ``games.rewrites`` of an archive ingested before it was kept: every game_id
        with several versions is classified again in ingest order, as ingest does
        (:meth:`~yaniv_audit.archive.ingest.Ingesting._versions`)."""
        con = self.con
        shared = con.execute(
            "SELECT game_id, list(game_no ORDER BY game_no) FROM games GROUP BY game_id "
            "HAVING count(*) > 1"
        ).fetchall()
        for _, numbers in shared:
            versions: list[_Version] = []
            for number in numbers:
                (fingerprint,) = _one(
                    con.execute("SELECT fingerprint FROM games WHERE game_no = ?", [number])
                ) or ("",)
                version = _Version(fingerprint, None, number)
                leaves = self._leaves(version)
                version.opening = opening_md5(leaves[0].encode()) if leaves else None
                target = _relate(version.leaves or [], versions).rewrites
                if target is not None:
                    version.rewrites = target
                    con.execute("UPDATE games SET rewrites = ? WHERE game_no = ?", [target, number])
                versions.append(version)
