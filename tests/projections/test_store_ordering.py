"""RELIABILITY 4 and 5 for the projector: a late commit is never skipped, a rollback leaves no hole."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.app.repository.seasons import Seasons
from shared.eventstore import IdempotencyKeyTaken, IdempotencyRecord, PostgresEventStore
from tests.projections.support import (
    SYSTEM,
    append_chunk,
    assert_rebuild_equal,
    generation_dump,
    season_chunks,
)

pytestmark = [pytest.mark.integration, pytest.mark.fault]
HELD = ("projector-test", "held")


async def _waiting_on_locks(pool: asyncpg.Pool, count: int) -> None:
    sql = """SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'"""
    async with asyncio.timeout(10):
        while await pool.fetchval(sql) < count:
            await asyncio.sleep(0.01)


async def _open_append(store: PostgresEventStore, pool: asyncpg.Pool, season_id: str, events: list):
    """Session A: a season append claimed but not committed. A copy of its request (the holder,
    in a transaction the test ends) has inserted the same Idempotency-Key and not committed, so
    A's statement waits on the key's primary key. Holder ROLLBACK: A commits. Holder COMMIT:
    A rolls back whole (IdempotencyKeyTaken)."""
    scope, key = HELD
    holder = await pool.acquire()
    await holder.execute("BEGIN")
    await holder.execute(
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,"
        " response_body, created_at, completed_at)"
        " VALUES ($1, $2, 'copy', 'done', 200, '{}', now(), now())",
        scope,
        key,
    )
    version = await store.stream_version(season_id)
    record = IdempotencyRecord(scope, key, b"request", 200, b"{}")
    task = asyncio.create_task(
        Seasons(store).append(season_id, version, "late", events, SYSTEM, idempotency=record)
    )
    await _waiting_on_locks(pool, 1)
    return holder, task


async def _checkpoint(redis: aioredis.Redis, prefix: str, season_id: str) -> int:
    gen = int(await redis.get(Keys.active(prefix, season_id)) or 0)
    return int(await redis.get(Keys(prefix, season_id, gen).checkpoint) or 0)


async def test_an_append_that_commits_late_is_projected_once_and_in_order(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, redis: aioredis.Redis, prefix: str
):
    """While A is open the projector (woken, sweeping) never passes the version before A; B, a
    later append to another season, commits at once (appends of different seasons do not wait
    for each other) and is projected; after A commits, A's events are projected exactly once,
    and then appends after them."""
    late, other = "late-commit", "other-season"
    chunks = list(season_chunks(50, late))
    others = list(season_chunks(51, other))
    projector = Projector(event_store, redis, prefix)
    for n, chunk in enumerate(chunks[:3]):
        await append_chunk(event_store, late, chunk, f"chunk/{n}")
    await append_chunk(event_store, other, others[0], "chunk/0")
    await projector.sweep()
    version = await event_store.stream_version(late)
    before = await generation_dump(redis, prefix, late)

    holder, a = await _open_append(event_store, pg_pool, late, chunks[3])
    try:
        await asyncio.wait_for(append_chunk(event_store, other, others[1], "chunk/1"), 10)
        assert await projector.sweep() == len(others[1])  # B, not A
        for _ in range(3):  # redelivered wake-ups and sweeps while A is open
            assert await projector.catch_up(late) == 0
            assert await projector.sweep() == 0
        assert await _checkpoint(redis, prefix, late) == version
        assert await generation_dump(redis, prefix, late) == before
        assert not a.done()
        await holder.execute("ROLLBACK")  # the copy gives up: A commits
    finally:
        await pg_pool.release(holder)
    await asyncio.wait_for(a, 10)
    assert await projector.catch_up(late) == len(chunks[3])
    assert await projector.catch_up(late) == 0
    assert await projector.sweep() == 0
    assert await _checkpoint(redis, prefix, late) == version + len(chunks[3])
    await append_chunk(event_store, late, chunks[4], "chunk/4")
    assert await projector.sweep() == len(chunks[4])
    positions = [e.position for e in await event_store.read_all(0, limit=10_000)]
    assert positions == list(range(1, len(positions) + 1))
    await assert_rebuild_equal(event_store, redis, prefix, late)
    await assert_rebuild_equal(event_store, redis, prefix, other)


async def test_a_rolled_back_append_leaves_no_hole_and_no_stall(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, redis: aioredis.Redis, prefix: str
):
    """A rolls back: its versions are taken by the next append, which the projector applies at
    once (no waiting for a hole to close), exactly once, in order."""
    season_id = "rolled-back"
    chunks = list(season_chunks(52, season_id))
    projector = Projector(event_store, redis, prefix)
    for n, chunk in enumerate(chunks[:2]):
        await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
    await projector.catch_up(season_id)
    version = await event_store.stream_version(season_id)
    holder, a = await _open_append(event_store, pg_pool, season_id, chunks[2])
    try:
        assert await projector.catch_up(season_id) == 0
        await holder.execute("COMMIT")  # the copy's key commits first: A rolls back whole
    finally:
        await pg_pool.release(holder)
    with pytest.raises(IdempotencyKeyTaken):
        await asyncio.wait_for(a, 10)
    assert await event_store.stream_version(season_id) == version
    assert await projector.catch_up(season_id) == 0
    for n, chunk in enumerate(chunks[2:5], start=2):
        await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
        assert await projector.catch_up(season_id) == len(chunk)
    versions = [e.version for e in await event_store.read_stream(season_id)]
    assert versions == list(range(1, len(versions) + 1))
    await assert_rebuild_equal(event_store, redis, prefix, season_id)
