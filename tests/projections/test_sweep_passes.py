"""ADR-147: the projections worker's periodic sweep reads only the seasons appended to since its
previous pass and those behind then, and still closes every gap a lost wake-up leaves: after a
Redis wipe, a truncated log and every FULL_SWEEP-th pass it reads every season."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.projections import positions as positions_module
from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import append_chunk, assert_rebuild_equal, season_chunks

pytestmark = pytest.mark.integration

SEASONS = ("first", "second", "third")


def read_passes(monkeypatch: pytest.MonkeyPatch) -> list[list[str] | None]:
    """Each pass's seasons read: their ids, or None for a pass over every season."""
    passes: list[list[str] | None] = []
    real = positions_module.positions

    async def positions(  # type: ignore[no-untyped-def]
        store, redis, prefix, versions=None
    ) -> dict[str, tuple[int, int | None]]:
        passes.append(None if versions is None else sorted(versions))
        return await real(store, redis, prefix, versions)

    monkeypatch.setattr(positions_module, "positions", positions)
    return passes


async def caught_up(
    store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> tuple[Projector, dict[str, int | None], dict[str, object]]:
    """Three seasons' first chunks, swept until none is behind (no wake-up at all)."""
    chunks = {s: season_chunks(40 + n, s) for n, s in enumerate(SEASONS)}
    for season_id, it in chunks.items():
        await append_chunk(store, season_id, next(it), "chunk/0")
    projector = Projector(store, redis, prefix)
    behind: dict[str, int | None] = {}
    await projector.sweep(behind)
    await projector.sweep(behind)
    assert behind == {}
    return projector, behind, chunks  # type: ignore[return-value]


async def test_a_pass_reads_the_seasons_appended_to_since_the_last_and_closes_a_lost_wake_up(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """RELIABILITY 22 kept: a chunk appended with its wake-up lost is projected by the sweep.
    The passes read no season that had no event since: before, every pass read every season
    ever made (~0.25 s of CPU at 20,000 seasons, every 2 s)."""
    projector, behind, chunks = await caught_up(memory_store, redis, prefix)
    passes = read_passes(monkeypatch)
    assert await projector.sweep(behind) == 0
    await append_chunk(memory_store, "second", next(chunks["second"]), "chunk/1")  # type: ignore[call-overload]
    assert await projector.sweep(behind) == 0  # moving: left to its wake-up for one pass
    assert behind.keys() == {"second"}
    applied = await projector.sweep(behind)  # still behind at the same checkpoint: taken
    assert applied > 0 and behind == {}
    assert await projector.sweep(behind) == 0
    assert passes == [[], ["second"], ["second"], []]
    for season_id in SEASONS:
        await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_after_a_redis_wipe_the_next_pass_reads_every_season(
    memory_store: InMemoryEventStore, wipeable_redis_url: str, monkeypatch: pytest.MonkeyPatch
):
    """RELIABILITY 22: Redis restarted empty. Nothing was appended since, yet every season is
    projected again, because the wipe took the sweep's mark with it."""
    redis = aioredis.Redis.from_url(wipeable_redis_url)
    try:
        projector, behind, _ = await caught_up(memory_store, redis, "wiped")
        passes = read_passes(monkeypatch)
        await redis.flushdb()
        assert await projector.sweep(behind) == 0
        assert behind == dict.fromkeys(SEASONS)
        assert await projector.sweep(behind) > 0
        assert behind == {}
        assert passes == [None, list(SEASONS)]
        for season_id in SEASONS:
            await assert_rebuild_equal(memory_store, redis, "wiped", season_id)
    finally:
        await redis.aclose()


async def test_a_log_that_lost_the_sweeps_place_is_read_whole(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """A log whose head is now before the pass's place (a store restored from an older
    backup, a bench's TRUNCATE): the pass reads every season instead of failing."""
    projector, behind, _ = await caught_up(memory_store, redis, prefix)
    passes = read_passes(monkeypatch)
    shorter = InMemoryEventStore(clock=memory_store._clock)  # the same clock
    chunk = next(season_chunks(40, "first"))
    await append_chunk(shorter, "first", chunk[:3], "chunk/0")
    projector.store = projector._positions.store = shorter  # the sweep's reader reads it too
    await projector.sweep(behind)
    assert passes == [None]


async def test_every_full_sweep_th_pass_reads_every_season(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """The belt to the braces: whatever made a season fall behind without an event (a Redis
    Cluster node restarted empty, which a mark on another slot outlives), a full pass finds it
    within FULL_SWEEP passes."""
    monkeypatch.setattr(positions_module, "FULL_SWEEP", 3)
    projector, behind, _ = await caught_up(memory_store, redis, prefix)
    passes = read_passes(monkeypatch)
    for _ in range(6):
        await projector.sweep(behind)
    assert passes == [[], None, [], [], None, []]


async def test_a_season_claimed_by_a_dead_projector_stays_behind_until_the_claim_expires(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """RELIABILITY 10 (seen in a fresh-clone CI run, session 23): a projector killed while it
    held a season's claim (ADR-112) leaves the claim to expire. The periodic sweep, finding the
    season behind and its claim held, dropped it from the seasons behind, so the next passes
    did not read it and it waited for the next full pass (FULL_SWEEP passes: two minutes at
    the worker's 2 s) with its wake-ups already spent. It stays behind until a pass takes it."""
    projector, behind, chunks = await caught_up(memory_store, redis, prefix)
    dead = Projector(memory_store, redis, prefix)  # another process's, about to be killed
    assert await dead.claims.take("second", dead.claims.token(), defer=False)
    await append_chunk(memory_store, "second", next(chunks["second"]), "chunk/1")  # type: ignore[call-overload]
    passes = read_passes(monkeypatch)
    assert await projector.sweep(behind) == 0  # moving: left to its wake-up for one pass
    assert await projector.sweep(behind) == 0  # behind, but claimed: not taken
    assert behind.keys() == {"second"}, "a season it could not take is still behind"
    await redis.delete(Keys.claim(prefix, "second"))  # the dead holder's claim expires
    assert await projector.sweep(behind) > 0
    assert behind == {}
    assert passes == [["second"], ["second"], ["second"]]  # never a full pass
    await assert_rebuild_equal(memory_store, redis, prefix, "second")
