"""RELIABILITY tests 1, 3, 4, 5 and 7 for the PostgreSQL event store."""

from __future__ import annotations

import asyncio
import itertools
import multiprocessing
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import asynccontextmanager
from uuid import UUID

import asyncpg
import pytest

from shared.eventstore import (
    DuplicateEventError,
    PostgresEventStore,
    RecordedEvent,
    create_pool,
)
from tests.integration import workers
from tests.integration.support import HeldSession, commit_keys, event_id, new_event

Store = PostgresEventStore

pytestmark = [pytest.mark.integration, pytest.mark.fault]

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


@asynccontextmanager
async def _session(pool: asyncpg.Pool, clock) -> AsyncIterator[tuple[asyncpg.Connection, Store]]:
    """A psql-like session: BEGIN on a connection of its own, and a store appending inside it."""
    conn = await pool.acquire()
    try:
        await conn.execute("BEGIN")
        held = HeldSession(conn)  # one connection: no wake-up sender may share it
        yield conn, PostgresEventStore(held, clock=clock, notify_window=None)  # type: ignore[arg-type]
    finally:
        if conn.is_in_transaction():
            await conn.execute("ROLLBACK")
        await pool.release(conn)


async def _everything(store: PostgresEventStore, after: int = 0) -> list[RecordedEvent]:
    return await store.read_all(after, limit=10_000)


def _ids(events: list[RecordedEvent]) -> list[UUID]:
    return [e.event_id for e in events]


async def test_a_reader_never_passes_an_open_append_that_then_commits(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """RELIABILITY 4: A appends and stays open; B, another season, appends and commits without
    waiting for A. The reader stops before A while A is open; after A commits it gets A, then
    B, once each."""
    await event_store.append("s0", 0, [new_event(1)])
    async with _session(pg_pool, clock) as (a, store_a):
        recorded_a = await store_a.append("sA", 0, [new_event(2)])
        recorded_b = await asyncio.wait_for(event_store.append("sB", 0, [new_event(3)]), 10)
        assert (recorded_a[0].position, recorded_b[0].position) == (2, 3)
        for _ in range(3):  # polls while A is open
            assert _ids(await _everything(event_store)) == [event_id(1)]
            assert await event_store.read_all(1) == []
            assert await event_store.head_position() == 1
        await a.execute("COMMIT")
    seen = await _everything(event_store, 1)
    assert seen == recorded_a + recorded_b
    assert await event_store.read_all(3) == []
    assert await event_store.head_position() == 3


async def test_an_event_committed_with_a_lower_position_is_still_read_after_a_higher_one(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """RELIABILITY 4, the case positions alone get wrong. B's transaction starts first, A draws
    position 2, B draws 3 and commits while A is open. B is settled (its xid is older than A's),
    so the reader hands out 3 and checkpoints there; A then commits with position 2. Reading by
    position would skip A for ever; reading in (xid, position) order hands it out next."""
    await event_store.append("s0", 0, [new_event(1)])
    async with _session(pg_pool, clock) as (b, store_b), _session(pg_pool, clock) as (a, store_a):
        await b.fetchval("SELECT pg_current_xact_id()")  # B's transaction id comes first
        recorded_a = await store_a.append("sA", 0, [new_event(2)])
        recorded_b = await store_b.append("sB", 0, [new_event(3)])
        await b.execute("COMMIT")
        first = await _everything(event_store)
        assert [e.position for e in first] == [1, 3]
        assert first[1:] == recorded_b
        assert await event_store.read_all(3) == []
        await a.execute("COMMIT")
    assert await event_store.read_all(3) == recorded_a  # not skipped
    assert await event_store.read_all(2) == []
    keys = await commit_keys(pg_pool)
    order = [keys[p] for p in (1, 3, 2)]
    assert order == sorted(order) and len(set(order)) == 3  # strictly increasing checkpoints
    naive = await pg_pool.fetch(
        """SELECT position FROM events WHERE position > 3
           AND xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY position"""
    )
    assert naive == []  # the position-ordered reader would never see A


async def test_adr_147_the_sweeps_read_never_passes_an_open_append_that_then_commits(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """RELIABILITY 4 for the projection sweep's read of changed seasons (ADR-147): A appends
    and stays open; B appends and commits. The read stops before A (naming neither) while A
    is open; after A commits it names both, so a pass never moves past a season's events."""
    await event_store.append("s0", 0, [new_event(1)])
    async with _session(pg_pool, clock) as (a, store_a):
        await store_a.append("sA", 0, [new_event(2)])
        await asyncio.wait_for(event_store.append("sB", 0, [new_event(3)]), 10)
        assert await event_store.changed_streams(1) == (1, {})
        await a.execute("COMMIT")
    assert await event_store.changed_streams(1) == (3, {"sA": 1, "sB": 1})


async def test_adr_147_the_sweeps_read_never_passes_an_append_committed_with_a_lower_position(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """RELIABILITY 4 for the projection sweep's read of changed seasons (ADR-147): B commits
    position 3 while A holds position 2 open; the read names sB and continues from 3, and
    after A commits the next read from 3 names sA (continuing from 2, A's place in the
    commit-safe order), not nothing."""
    await event_store.append("s0", 0, [new_event(1)])
    async with _session(pg_pool, clock) as (b, store_b), _session(pg_pool, clock) as (a, store_a):
        await b.fetchval("SELECT pg_current_xact_id()")  # B's transaction id comes first
        await store_a.append("sA", 0, [new_event(2)])
        await store_b.append("sB", 0, [new_event(3)])
        await b.execute("COMMIT")
        assert await event_store.changed_streams(1) == (3, {"sB": 1})
        assert await event_store.changed_streams(3) == (3, {})
        await a.execute("COMMIT")
    assert await event_store.changed_streams(3) == (2, {"sA": 1})
    assert await event_store.changed_streams(2) == (2, {})


async def test_a_reader_proceeds_at_once_when_the_open_append_rolls_back(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """RELIABILITY 4/5: A rolls back; its position stays a hole, and the reader's next poll
    passes it and hands out B, without waiting."""
    await event_store.append("s0", 0, [new_event(1)])
    async with _session(pg_pool, clock) as (a, store_a):
        await store_a.append("sA", 0, [new_event(2)])
        recorded_b = await asyncio.wait_for(event_store.append("sB", 0, [new_event(3)]), 10)
        assert _ids(await _everything(event_store)) == [event_id(1)]
        await a.execute("ROLLBACK")
    assert await event_store.read_all(1) == recorded_b
    assert [e.position for e in await _everything(event_store)] == [1, 3]
    assert await event_store.stream_version("sA") == 0
    assert await event_store.head_position() == 3


async def test_a_rolled_back_position_is_a_hole_the_reader_skips_at_once(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    """RELIABILITY 5: positions drawn by a rolled-back transaction, and by an append that failed
    inside its statement, are dead holes; one read returns everything after them."""
    await event_store.append("s1", 0, [new_event(1)])
    async with pg_pool.acquire() as conn:
        await conn.execute("BEGIN; SELECT nextval('events_position_seq')")
        await conn.execute("ROLLBACK")
    with pytest.raises(DuplicateEventError):  # fails after drawing its positions, inside SQL
        await event_store.append("s2", 0, [new_event(2), new_event(1)])
    for n in (3, 4, 5):
        await event_store.append("s1", n - 2, [new_event(n)])
    everything = await event_store.read_all(0)  # one call: nothing waits for the holes
    positions = [e.position for e in everything]
    assert _ids(everything) == [event_id(n) for n in (1, 3, 4, 5)]
    assert positions == sorted(positions) and positions[0] == 1
    assert positions[1] > 2  # the holes are there
    assert await event_store.head_position() == positions[-1]
    assert await event_store.read_all(positions[-1]) == []


async def test_concurrent_writers_and_tailing_readers_see_everything_once_in_order(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, migrated_pg_dsn: str
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
    keys = await commit_keys(pg_pool)
    for seen in await asyncio.gather(*readers):
        checkpoints = [keys[e.position] for e in seen]
        assert all(a < b for a, b in itertools.pairwise(checkpoints))  # strictly increasing
        assert {e.event_id for e in seen} == written  # the set read is the set written
        assert len(seen) == len(written) == total  # no duplicates
        for stream in {e.season_id for e in seen}:  # and each season in version order
            versions = [e.version for e in seen if e.season_id == stream]
            assert versions == list(range(1, transactions * per_tx + 1))


async def _follow(store: PostgresEventStore, total: int) -> list[RecordedEvent]:
    seen: list[RecordedEvent] = []
    async with asyncio.timeout(60):
        while len(seen) < total:
            page = await store.read_all(seen[-1].position if seen else 0, limit=500)
            if not page:
                await asyncio.sleep(0.005)
            seen.extend(page)
    return seen
