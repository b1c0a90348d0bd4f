"""The projectors' wake-up path: LISTEN/NOTIFY from the event store (ARCHITECTURE, RELIABILITY 22).

Writers send no message to wake the read side: the store's NOTIFY names the seasons appended,
and the listener catches them up. A killed listening connection reconnects by itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.listener import APPLICATION_NAME, Listener
from services.projections.projector import Projector
from shared.eventstore import PostgresEventStore
from tests.integration.support import new_event, wait_until
from tests.projections.support import append_chunk, assert_rebuild_equal, season_chunks

pytestmark = [pytest.mark.integration, pytest.mark.fault]


@asynccontextmanager
async def running(listener: Listener) -> AsyncIterator[asyncio.Task[None]]:
    task = asyncio.create_task(listener.run())
    try:
        await asyncio.wait_for(listener.listening.wait(), 10)
        yield task
    finally:
        task.cancel()
        # a listener that swallowed the cancellation would hang here: fail instead
        done, _ = await asyncio.wait([task], timeout=10)
        assert done, "the listener did not stop when cancelled"


async def test_an_append_wakes_the_listener_with_its_season(
    event_store: PostgresEventStore, migrated_pg_dsn: str
):
    woken: list[str] = []

    async def catch_up(season_id: str) -> None:
        woken.append(season_id)

    async with running(Listener(migrated_pg_dsn, catch_up)):
        await event_store.append("s-one", 0, [new_event(1)])
        await asyncio.gather(
            event_store.append("s-two", 0, [new_event(2)]),
            event_store.append("s-three", 0, [new_event(3)]),
        )

        async def all_heard() -> bool:
            return {"s-one", "s-two", "s-three"} <= set(woken)

        await wait_until(all_heard)


async def test_the_listener_projects_what_is_appended_and_survives_a_killed_connection(
    event_store: PostgresEventStore,
    migrated_pg_dsn: str,
    redis: aioredis.Redis,
    prefix: str,
):
    """RELIABILITY 22, LISTEN loss: the listener's backend is terminated; it reconnects and the
    events appended afterwards are projected on its next wake-up. The result is rebuild-equal."""
    season_id = "woken-season"
    projector = Projector(event_store, redis, prefix)
    chunks = list(season_chunks(5, season_id))
    listener = Listener(migrated_pg_dsn, projector.catch_up, reconnect_seconds=0.1)
    appended = 0

    async def projected() -> bool:
        raw = await redis.get(Keys(prefix, season_id, 1).checkpoint)
        return raw is not None and int(raw) == appended

    async with running(listener):
        for n, chunk in enumerate(chunks[:3]):
            await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
            appended += len(chunk)
            await wait_until(projected)
        admin = await asyncpg.connect(migrated_pg_dsn)
        try:
            killed = await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = $1 AND datname = current_database()",
                APPLICATION_NAME,
            )
        finally:
            await admin.close()
        assert killed == 1
        await wait_until(lambda: _cleared(listener))
        await asyncio.wait_for(listener.listening.wait(), 10)  # back, on a new connection
        for n, chunk in enumerate(chunks[3:], start=3):
            await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
            appended += len(chunk)
            await wait_until(projected)
    await assert_rebuild_equal(event_store, redis, prefix, season_id)


async def test_a_cancelled_listener_stops_even_right_after_losing_its_connection(
    migrated_pg_dsn: str,
):
    """Cancellation is never swallowed: not while listening, not while reconnecting."""

    async def catch_up(_season_id: str) -> None:
        return None

    for _ in range(3):
        listener = Listener(migrated_pg_dsn, catch_up, reconnect_seconds=0.05)
        task = asyncio.create_task(listener.run())
        await asyncio.wait_for(listener.listening.wait(), 10)
        admin = await asyncpg.connect(migrated_pg_dsn)
        try:
            await admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE application_name = $1 AND datname = current_database()",
                APPLICATION_NAME,
            )
        finally:
            await admin.close()
        await asyncio.sleep(0.01)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=10)
        assert done and task.cancelled()


async def _cleared(listener: Listener) -> bool:
    return not listener.listening.is_set()
