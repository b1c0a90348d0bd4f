"""A rebuild retires the season's older generations by their names, not by a scan (ADR-148)."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from services.projections import projector as projector_module
from services.projections.keys import Keys
from services.projections.projector import Projector
from services.projections.release import Releaser
from shared.eventstore import InMemoryEventStore
from tests.projections.support import (
    append_chunk,
    assert_rebuild_equal,
    keys_matching,
    season_chunks,
)
from tests.projections.test_release import later

pytestmark = pytest.mark.fault  # crash-safety: never skipped silently in CI


async def _projected(store: InMemoryEventStore, projector: Projector, season_id: str) -> None:
    for n, chunk in enumerate(list(season_chunks(31, season_id))[:3]):
        await append_chunk(store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)


def _counting_scans(redis: aioredis.Redis) -> list[object]:
    """Every SCAN the client sends (scan_iter sends them through `scan`)."""
    scans: list[object] = []
    real = redis.scan

    async def counting(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        scans.append(kwargs.get("match"))
        return await real(*args, **kwargs)  # type: ignore[arg-type]

    redis.scan = counting  # type: ignore[method-assign]
    return scans


async def _held(redis: aioredis.Redis, prefix: str, season_id: str) -> set[int]:
    return {int(g) for g in await redis.smembers(Keys.held(prefix, season_id))}


async def _lasting(redis: aioredis.Redis, prefix: str, season_id: str, gen: int) -> list[str]:
    """The keys of generation `gen` that never expire."""
    keys = await keys_matching(redis, f"{Keys(prefix, season_id, gen).base}:*")
    return [k for k in keys if await redis.pttl(k) == -1]


async def _active(redis: aioredis.Redis, prefix: str, season_id: str) -> int:
    return int(await redis.get(Keys.active(prefix, season_id)) or 0)


async def test_a_rebuild_retires_every_older_generation_without_a_scan(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """Older generations (one a rebuild that died half-way) all get an expiry; the active one
    keeps its keys; not one SCAN is sent (it read every key of Redis: issue 27)."""
    season_id = "retired-by-name"
    projector = Projector(memory_store, redis, prefix)
    await _projected(memory_store, projector, season_id)
    await projector.rebuild(season_id)  # generation 2
    monkeypatch.setattr(projector_module, "BATCH", 8)
    dying = Projector(memory_store, redis, prefix)
    real, calls = dying.sink.apply, []

    async def dies_after_a_batch(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise RuntimeError("the process died")
        return await real(*args, **kwargs)

    dying.sink.apply = dies_after_a_batch  # type: ignore[method-assign]
    with pytest.raises(RuntimeError):
        await dying.rebuild(season_id)  # generation 3: one batch written, no expiry
    assert await _lasting(redis, prefix, season_id, 3)
    await redis.delete(Keys.building(prefix, season_id))  # its flag lapsed (BUILDING_TTL_MS)
    scans = _counting_scans(redis)
    await projector.rebuild(season_id)  # generation 4
    assert scans == []
    assert await _active(redis, prefix, season_id) == 4
    for gen in (1, 2, 3):
        assert await _lasting(redis, prefix, season_id, gen) == [], gen
    assert await keys_matching(redis, f"{Keys(prefix, season_id, 4).base}:*")
    assert await _lasting(redis, prefix, season_id, 4) == await keys_matching(
        redis, f"{Keys(prefix, season_id, 4).base}:*"
    )
    assert await _held(redis, prefix, season_id) == {4}
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_a_rebuild_retired_before_its_first_batch_writes_nothing(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Crash-safety: a rebuild overtaken by a newer one before its first batch (its generation
    retired while it held no key) and dying after that batch leaves no key that never expires:
    a retired generation takes no more writes."""
    season_id = "overtaken"
    projector = Projector(memory_store, redis, prefix)
    await _projected(memory_store, projector, season_id)
    older = Projector(memory_store, redis, prefix)
    real, entered, go = older.sink.apply, asyncio.Event(), asyncio.Event()

    async def gated_then_dies(*args, **kwargs):
        entered.set()
        await go.wait()
        await real(*args, **kwargs)
        raise RuntimeError("the process died")

    older.sink.apply = gated_then_dies  # type: ignore[method-assign]
    task = asyncio.create_task(older.rebuild(season_id))  # generation 2
    await asyncio.wait_for(entered.wait(), 10)
    await projector.rebuild(season_id)  # generation 3: active, retires 1 and 2
    go.set()
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(task, 10)
    assert await _active(redis, prefix, season_id) == 3
    assert await _lasting(redis, prefix, season_id, 2) == []
    assert await _held(redis, prefix, season_id) == {3}
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_keys_written_before_the_record_are_retired_by_one_scan(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A season projected before generations were recorded (no `held-gens`): its first
    rebuild finds the older generations' keys by a scan, once; later rebuilds send none."""
    season_id = "legacy"
    projector = Projector(memory_store, redis, prefix)
    await _projected(memory_store, projector, season_id)
    await projector.rebuild(season_id)  # generation 2, generation 1 retired
    # as before the record: no held generations, an older generation's leftovers
    await redis.delete(Keys.held(prefix, season_id), Keys.held_from(prefix, season_id))
    for key in await keys_matching(redis, f"{Keys(prefix, season_id, 1).base}:*"):
        await redis.persist(key)
    assert await _lasting(redis, prefix, season_id, 1)
    scans = _counting_scans(redis)
    await projector.rebuild(season_id)  # generation 3
    assert len(scans) >= 1  # the fallback (SCAN pages: one or more)
    for gen in (1, 2):
        assert await _lasting(redis, prefix, season_id, gen) == [], gen
    assert await _held(redis, prefix, season_id) == {3}
    assert await redis.get(Keys.held_from(prefix, season_id)) == b"1"
    before = len(scans)
    await projector.rebuild(season_id)  # generation 4: recorded, no scan
    assert len(scans) == before
    assert await _lasting(redis, prefix, season_id, 3) == []
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_a_released_season_is_rebuilt_without_a_scan(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """ADR-158's routine rebuild (a released season's first read) sends no SCAN, and the
    released generation leaves the held ones with its keys."""
    season_id = "released"
    projector = Projector(memory_store, redis, prefix)
    await _projected(memory_store, projector, season_id)
    await projector.rebuild(season_id)  # generation 2
    releaser = Releaser(redis, prefix, 60.0, await later(redis, 3600))
    counts = await releaser.run()
    assert counts is not None and counts.released == 1
    assert await _held(redis, prefix, season_id) == set()
    scans = _counting_scans(redis)
    await projector.catch_up(season_id)  # the read's rebuild: generation 3
    assert scans == []
    assert await _active(redis, prefix, season_id) == 3
    assert await _held(redis, prefix, season_id) == {3}
    for gen in (1, 2):
        assert await _lasting(redis, prefix, season_id, gen) == [], gen
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
