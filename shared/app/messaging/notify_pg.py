"""The notify store in PostgreSQL (issue 25, ADR-108): registrations, cursors and claims.

A registration is an acknowledged write, so it is kept where acknowledged writes are: a row of
`notify_records` (migration 0013), sealed by `Sealer` before it leaves the process, so the
table and its backups hold no URL, secret or push key in the clear when SEKSENBIR_NOTIFY_KEY
is set. The broker's Redis keeps only the queue: flushing or replacing it loses no
registration, no season's cursor and no claim. `notify_once` holds what must happen once
across notifier processes: a delivery's first attempt (the claiming batch is its owner) and a
deadline warning per subscription and Divan; a season's rows go with the season.
"""

from __future__ import annotations

import asyncpg
import msgspec

from shared.app.messaging.notify_store import (
    PushSubscription,
    Record,
    Sealer,
    Webhook,
    decoder,
    fitted,
    id_of,
    kind_of,
)

PUT = """INSERT INTO notify_records (record_id, season_id, kind, sealed) VALUES ($1, $2, $3, $4)
         ON CONFLICT (record_id) DO UPDATE SET sealed = EXCLUDED.sealed, stored_at = now()
         WHERE notify_records.season_id = EXCLUDED.season_id"""
ALL = """SELECT record_id, sealed FROM notify_records WHERE season_id = $1 AND kind = $2
         ORDER BY record_id"""
# One season's additions of one kind take turns (the lock goes with the transaction): the
# owner's count and the write are one decision, whatever the number of API processes.
TURN = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))"
ONE = "SELECT sealed FROM notify_records WHERE season_id = $1 AND record_id = $2"
DELETE = "DELETE FROM notify_records WHERE season_id = $1 AND record_id = $2"
# A batch claims the delivery ids nobody holds, and keeps those it holds already (the same
# queue message delivered again after a crash): one statement, so two batches never both win.
CLAIM = """INSERT INTO notify_once (key, season_id, owner)
           SELECT k, $2, $3 FROM unnest($1::text[]) AS k
           ON CONFLICT (key) DO UPDATE SET owner = notify_once.owner
           WHERE notify_once.owner = EXCLUDED.owner
           RETURNING key"""
ONCE = """INSERT INTO notify_once (key, season_id, owner) VALUES ($1, $2, '')
          ON CONFLICT (key) DO NOTHING RETURNING key"""
FOLLOW = """INSERT INTO notify_cursors (season_id, version) VALUES ($1, $2)
            ON CONFLICT (season_id) DO NOTHING"""
CURSORS = "SELECT season_id, version FROM notify_cursors"
ADVANCE = """INSERT INTO notify_cursors (season_id, version) VALUES ($1, $2)
             ON CONFLICT (season_id) DO UPDATE
             SET version = greatest(notify_cursors.version, EXCLUDED.version)"""
UNFOLLOW = "DELETE FROM notify_cursors WHERE season_id = $1"
DROP = [
    "DELETE FROM notify_records WHERE season_id = $1",
    "DELETE FROM notify_once WHERE season_id = $1",
]


class PostgresNotifyStore:
    def __init__(self, pool: asyncpg.Pool, sealer: Sealer) -> None:
        self._pool = pool
        self._sealer = sealer

    def _open(self, record_id: str, sealed: bytes) -> Record:
        return decoder.decode(self._sealer.open(sealed, record_id.encode()))

    async def put(self, record: Record) -> None:
        rid = id_of(record)
        sealed = self._sealer.seal(msgspec.json.encode(record), rid.encode())
        await self._pool.execute(PUT, rid, record.season_id, kind_of(rid), sealed)

    async def add(self, record: Record, limit: int) -> Record | None:
        """A new registration kept as `fitted` decides on the season's registrations of its
        kind, read and written in one transaction that holds the season's and kind's turn; None
        (nothing written) when its owner has `limit` of them already."""
        kind = kind_of(id_of(record))
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(TURN, f"notify:{record.season_id}:{kind}")
            rows = await conn.fetch(ALL, record.season_id, kind)
            have = [self._open(r["record_id"], r["sealed"]) for r in rows]
            kept = fitted(record, have, limit)
            if kept is not None:
                rid = id_of(kept)
                sealed = self._sealer.seal(msgspec.json.encode(kept), rid.encode())
                await conn.execute(PUT, rid, kept.season_id, kind, sealed)
        return kept

    async def _all(self, season_id: str, kind: str) -> list[Record]:
        rows = await self._pool.fetch(ALL, season_id, kind)
        return [self._open(r["record_id"], r["sealed"]) for r in rows]

    async def webhooks(self, season_id: str) -> list[Webhook]:
        return [r for r in await self._all(season_id, "wh") if isinstance(r, Webhook)]

    async def subscriptions(self, season_id: str) -> list[PushSubscription]:
        rs = await self._all(season_id, "push")
        return [r for r in rs if isinstance(r, PushSubscription)]

    async def record(self, season_id: str, record_id: str) -> Record | None:
        sealed = await self._pool.fetchval(ONE, season_id, record_id)
        return None if sealed is None else self._open(record_id, sealed)

    async def delete(self, season_id: str, record_id: str) -> bool:
        return bool(await self._pool.execute(DELETE, season_id, record_id) != "DELETE 0")

    async def drop_season(self, season_id: str) -> None:
        async with self._pool.acquire() as conn, conn.transaction():
            for statement in DROP:
                await conn.execute(statement, season_id)

    async def first_warning(self, season_id: str, subscription_id: str, divan: int) -> bool:
        key = f"warn/{subscription_id}/{divan}"
        return await self._pool.fetchval(ONCE, key, season_id) is not None

    async def claim(self, season_id: str, delivery_ids: list[str], owner: str) -> set[str]:
        rows = await self._pool.fetch(CLAIM, sorted(set(delivery_ids)), season_id, owner)
        return {r["key"] for r in rows}

    async def follow(self, season_id: str, version: int) -> None:
        """Notices start after `version` (the season's version when its first receiver came)."""
        await self._pool.execute(FOLLOW, season_id, version)

    async def cursors(self) -> dict[str, int]:
        return {r["season_id"]: r["version"] for r in await self._pool.fetch(CURSORS)}

    async def set_cursor(self, season_id: str, version: int | None) -> None:
        if version is None:
            await self._pool.execute(UNFOLLOW, season_id)
        else:
            await self._pool.execute(ADVANCE, season_id, version)
