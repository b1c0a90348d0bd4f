"""ADR-112: on the wake-up paths one projector catches a season up at a time, and a wake-up
that finds the season held is caught up by the holder: no race lost, no wake-up lost."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import append_chunk, assert_rebuild_equal, season_chunks

pytestmark = pytest.mark.integration


def counting_applies(projector: Projector) -> list[bool]:
    """Record each atomic apply's outcome (False: the checkpoint race was lost)."""
    outcomes: list[bool] = []
    real = projector.sink.apply

    async def apply(*args: Any) -> bool:
        ok = await real(*args)
        outcomes.append(ok)
        return ok

    projector.sink.apply = apply  # type: ignore[method-assign]
    return outcomes


async def test_wake_ups_of_several_projectors_at_once_fold_each_batch_once(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Three processes' projectors woken for the same season at the same instant, Divan after
    Divan (every projections process hears every NOTIFY): every event is applied once, no
    apply loses the checkpoint race, and the result is rebuild-equal."""
    season_id = "woken-thrice"
    projectors = [Projector(memory_store, redis, prefix) for _ in range(3)]
    outcomes = [counting_applies(p) for p in projectors]
    appended = applied = 0
    for n, chunk in enumerate(season_chunks(23, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        appended += len(chunk)
        applied += sum(await asyncio.gather(*(p.woken(season_id) for p in projectors)))
        assert await redis.get(Keys(prefix, season_id, 1).checkpoint) == str(appended).encode()
    assert applied == appended
    assert all(all(o) for o in outcomes), outcomes  # no race lost
    assert await redis.get(Keys.claim(prefix, season_id)) is None  # let go
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_a_wake_up_while_the_season_is_held_is_caught_up_by_the_holder(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The holder read the stream before the new events came; the second wake-up finds the
    season held, leaves its mark and returns; the holder sees the mark before letting go and
    catches up again, so the new events are projected without waiting for the sweep."""
    season_id = "held"
    chunks = list(season_chunks(24, season_id))
    holder, other = (Projector(memory_store, redis, prefix) for _ in range(2))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    real = holder.catch_up
    calls = 0

    async def catch_up_then_more_arrive(sid: str, *read: Any) -> int:
        nonlocal calls
        calls += 1
        done = await real(sid, *read)
        if calls == 1:  # new events and their wake-up while the holder still holds the season
            await append_chunk(memory_store, season_id, chunks[1], "chunk/1")
            assert await other.woken(season_id) == 0
        return done

    holder.catch_up = catch_up_then_more_arrive  # type: ignore[method-assign]
    applied = await holder.woken(season_id)
    assert calls == 2
    assert applied == len(chunks[0]) + len(chunks[1])
    head = str(applied).encode()
    assert await redis.get(Keys(prefix, season_id, 1).checkpoint) == head
    assert await redis.get(Keys.again(prefix, season_id)) is None


async def test_a_claim_left_by_a_dead_projector_never_stops_the_sweep(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """RELIABILITY 19/22: a projector killed while it held a season leaves its claim until it
    expires; the sweep asks for no claim, so the season is projected meanwhile."""
    season_id = "orphaned"
    await append_chunk(memory_store, season_id, next(season_chunks(25, season_id)), "chunk/0")
    await redis.set(Keys.claim(prefix, season_id), "dead-holder", px=60_000)
    projector = Projector(memory_store, redis, prefix)
    assert await projector.woken(season_id) == 0  # held: left to the holder
    assert await projector.sweep() > 0
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_the_workers_sweep_takes_a_season_only_once_it_stayed_behind_a_whole_pass(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The periodic sweep leaves a season that is new or moving since its last pass to the
    wake-up on its way (at a surge it raced the listener for hundreds of seasons), takes it at
    the next pass if it is still behind at the same checkpoint (a lost wake-up), and marks
    every season projected only once none is left behind (an unknown season is then 404)."""
    from services.projections.keys import swept

    season_id = "late"
    chunk = next(season_chunks(26, season_id))
    await append_chunk(memory_store, season_id, chunk, "chunk/0")
    projector = Projector(memory_store, redis, prefix)
    behind: dict[str, int | None] = {}
    assert await projector.sweep(behind) == 0
    assert behind == {season_id: None}
    assert await redis.get(swept(prefix)) is None
    assert await projector.sweep(behind) == len(chunk)
    assert behind == {}
    assert await redis.get(swept(prefix)) == b"1"


def counting_gets(projector: Projector) -> list[str]:
    """Record each plain GET the projector sends (its catch-up's reads of the pointers)."""
    keys: list[str] = []
    real = projector.redis.get

    async def get(key: str) -> Any:
        keys.append(key)
        return await real(key)

    projector.redis.get = get  # type: ignore[method-assign]
    return keys


async def test_adr_141_a_wake_up_reads_the_generation_and_checkpoint_in_its_claim(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The projector that projected a season last reads its active generation and checkpoint
    in the claim's round trip: no GET of its own a batch. One whose guess is stale (another
    rebuilt the season at a new generation meanwhile) reads them again and catches up on the
    new one; a season new to it is projected as before. Every step ends rebuild-equal."""
    season_id = "claim-reads"
    ours, other = Projector(memory_store, redis, prefix), Projector(memory_store, redis, prefix)
    gets = counting_gets(ours)
    chunks = list(season_chunks(29, season_id))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    assert await ours.woken(season_id) == len(chunks[0])  # new here: no projection yet
    for n, chunk in enumerate(chunks[1:4], start=1):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        gets.clear()
        assert await ours.woken(season_id) == len(chunk)
        assert gets == [], gets  # its guess held: the claim read both
    await other.rebuild(season_id)  # generation 2 now; ours still guesses 1
    await append_chunk(memory_store, season_id, chunks[4], "chunk/4")
    gets.clear()
    assert await ours.woken(season_id, defer=False) == len(chunks[4])
    assert gets == [Keys.active(prefix, season_id), Keys(prefix, season_id, 2).checkpoint]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
