"""RELIABILITY tests 1, 3, 4, 5 and 7 for the PostgreSQL event store."""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import asyncpg
import pytest

from shared.eventstore import (
    DuplicateEventError,
    IdempotencyCompletion,
    IdempotencyStateError,
    PostgresEventStore,
    RecordedEvent,
    create_pool,
)
from tests.integration import workers
from tests.integration.support import event_id, new_event, wait_until

pytestmark = pytest.mark.integration

SPAWN = multiprocessing.get_context("spawn")


async def test_same_version_race_has_exactly_one_winner_per_version(
    event_store: PostgresEventStore, migrated_pg_dsn: str
):
    """RELIABILITY 1: 2 processes x 300 rounds appending at the same expected version."""
    rounds = 300
    with SPAWN.Manager() as manager, ProcessPoolExecutor(2, mp_context=SPAWN) as pool:
        barrier = manager.Barrier(2, timeout=30)
        loop = asyncio.get_running_loop()
        runs = [
            loop.run_in_executor(pool, workers.race, migrated_pg_dsn, "s1", rounds, barrier, w)
            for w in (1, 2)
        ]
        first, second = await asyncio.gather(*runs)
    for n, ((v1, won1), (v2, won2)) in enumerate(zip(first, second, strict=True)):
        assert v1 == v2 == n  # both appended at the same version
        assert won1 != won2  # exactly one winner, the other got ConcurrencyError
    stream = await event_store.read_stream("s1")
    assert [e.version for e in stream] == list(range(1, rounds + 1))
    winners = [event_id(n, 1 if won else 2) for n, (_, won) in enumerate(first)]
    assert [e.event_id for e in stream] == winners


async def test_duplicate_event_id_holds_across_a_restart(
    event_store: PostgresEventStore, migrated_pg_dsn: str, clock
):
    """RELIABILITY 3: the unique event id is durable (unlike a window of recent writes)."""
    first = await event_store.append("s1", 0, [new_event(1)])
    pool = await create_pool(migrated_pg_dsn)  # a "restarted" process: fresh pool and store
    try:
        restarted = PostgresEventStore(pool, clock=clock)
        assert await restarted.append("s1", 1, [new_event(1)]) == first
        with pytest.raises(DuplicateEventError):
            await restarted.append("s1", 1, [new_event(1, data={"changed": 1})])
        with pytest.raises(DuplicateEventError):
            await restarted.append("s2", 0, [new_event(1)])
    finally:
        await pool.close()
    assert await event_store.head_position() == 1


async def _waiting_on_locks(pool: asyncpg.Pool, count: int) -> None:
    sql = """SELECT count(*) FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock'"""

    async def enough() -> bool:
        return await pool.fetchval(sql) >= count

    await wait_until(enough)


async def _open_append(store: PostgresEventStore, pool: asyncpg.Pool):
    """Session A: an append held open after taking its positions (its key row is locked)."""
    await store.idempotency.begin("scope", "held", b"req")
    holder = await pool.acquire()
    await holder.execute("BEGIN")
    await holder.execute("SELECT 1 FROM idempotency_keys WHERE key = 'held' FOR UPDATE")
    done = IdempotencyCompletion("scope", "held", 201, b"{}")
    a = asyncio.create_task(store.append("sA", 0, [new_event(2)], idempotency=done))
    await _waiting_on_locks(pool, 1)
    b = asyncio.create_task(store.append("sB", 0, [new_event(3)]))  # session B
    await _waiting_on_locks(pool, 2)
    return holder, a, b


async def _tail(store: PostgresEventStore, after: int) -> list[RecordedEvent]:
    return await store.read_all(after)


async def test_a_reader_never_passes_an_open_append_that_then_commits(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    """RELIABILITY 4: while A is open nothing after it is visible; then A, B in order, once."""
    await event_store.append("s0", 0, [new_event(1)])
    holder, a, b = await _open_append(event_store, pg_pool)
    try:
        assert [e.position for e in await _tail(event_store, 0)] == [1]
        assert await event_store.head_position() == 1
        assert not b.done()  # B cannot commit a later position while A is open
        await holder.execute("COMMIT")
    finally:
        await pg_pool.release(holder)
    recorded_a, recorded_b = await a, await b
    seen = await _tail(event_store, 1)
    assert [(e.position, e.event_id) for e in seen] == [(2, event_id(2)), (3, event_id(3))]
    assert (recorded_a[0].position, recorded_b[0].position) == (2, 3)


async def test_a_reader_proceeds_at_once_when_the_open_append_rolls_back(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    """RELIABILITY 4/5: A rolls back; B takes its position; no hole, no stall."""
    await event_store.append("s0", 0, [new_event(1)])
    holder, a, b = await _open_append(event_store, pg_pool)
    try:
        await holder.execute("DELETE FROM idempotency_keys WHERE key = 'held'")
        await holder.execute("COMMIT")  # A's completion now finds no key: A rolls back
    finally:
        await pg_pool.release(holder)
    with pytest.raises(IdempotencyStateError):
        await a
    await b
    seen = await _tail(event_store, 1)
    assert [(e.position, e.event_id) for e in seen] == [(2, event_id(3))]
    assert await event_store.stream_version("sA") == 0


async def test_a_rolled_back_position_leaves_no_hole(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    """RELIABILITY 5: the counter moves only with a commit, so positions stay contiguous."""
    await event_store.append("s1", 0, [new_event(1)])
    async with pg_pool.acquire() as conn:
        await conn.execute("BEGIN; UPDATE log_head SET position = position + 1")
        await conn.execute("ROLLBACK")
    with pytest.raises(DuplicateEventError):  # fails after taking the counter, inside SQL
        await event_store.append("s2", 0, [new_event(2), new_event(1)])
    for n in (3, 4, 5):
        await event_store.append("s1", n - 2, [new_event(n)])
    everything = await event_store.read_all(0)
    assert [e.position for e in everything] == [1, 2, 3, 4]
    assert await event_store.head_position() == 4


async def test_concurrent_writers_and_tailing_readers_see_everything_once_in_order(
    event_store: PostgresEventStore, migrated_pg_dsn: str
):
    """RELIABILITY 7: 4 writer processes x 250 transactions x 10 events, 2 tailing readers."""
    writers, transactions, per_tx = 4, 250, 10
    total = writers * transactions * per_tx
    readers = [asyncio.create_task(_follow(event_store, total)) for _ in range(2)]
    with ProcessPoolExecutor(writers, mp_context=SPAWN) as pool:
        loop = asyncio.get_running_loop()
        runs = [
            loop.run_in_executor(
                pool, workers.write, migrated_pg_dsn, f"w{w}", transactions, per_tx, w
            )
            for w in range(writers)
        ]
        assert sum(await asyncio.gather(*runs)) == total
    written = {event_id(n, w) for w in range(writers) for n in range(transactions * per_tx)}
    for seen in await asyncio.gather(*readers):
        positions = [e.position for e in seen]
        assert positions == list(range(1, total + 1))  # strictly increasing, no gaps, no dups
        assert {e.event_id for e in seen} == written
        assert len(seen) == len(written)


async def _follow(store: PostgresEventStore, total: int) -> list[RecordedEvent]:
    seen: list[RecordedEvent] = []
    async with asyncio.timeout(60):
        while len(seen) < total:
            page = await store.read_all(seen[-1].position if seen else 0, limit=500)
            if not page:
                await asyncio.sleep(0.005)
            seen.extend(page)
    return seen
