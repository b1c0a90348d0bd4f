"""Incremental == rebuilt: the projection built Divan by Divan equals a from-zero rebuild, key by key."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.projections import projector as projector_module
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import (
    append_chunk,
    generation_dump,
    global_dump,
    rebuilt_dump,
    rebuilt_globals,
    season_chunks,
)

SEEDS = (3, 11, 2024)


async def _play_interleaved(
    store: InMemoryEventStore, projector: Projector, seeds: tuple[int, ...]
) -> list[str]:
    """Append every season a Divan at a time, round robin, catching each season up in between."""
    streams = {f"season-{seed}": season_chunks(seed, f"season-{seed}") for seed in seeds}
    n = 0
    while streams:
        for season_id in list(streams):
            chunk = next(streams[season_id], None)
            if chunk is None:
                del streams[season_id]
                continue
            await append_chunk(store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
        n += 1
    return [f"season-{seed}" for seed in seeds]


async def test_the_incremental_projection_equals_a_rebuild_key_by_key(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    projector = Projector(memory_store, redis, prefix)
    seasons = await _play_interleaved(memory_store, projector, SEEDS)
    for season_id in seasons:
        live = await generation_dump(redis, prefix, season_id)
        fresh = await rebuilt_dump(memory_store, redis, prefix, season_id)
        assert sorted(live) == sorted(fresh)
        for key in live:
            assert live[key] == fresh[key], key
        assert live["checkpoint"] == str(await memory_store.stream_version(season_id))
        assert live["meta"]["phase"] == '"over"'
    assert await global_dump(redis, prefix) == await rebuilt_globals(memory_store, redis, prefix)


async def test_every_read_model_is_present_after_a_whole_season(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The dump covers what ARCHITECTURE.md lists: map, leaderboard, titles, reports, orders, …"""
    projector = Projector(memory_store, redis, prefix)
    (season_id,) = await _play_interleaved(memory_store, projector, (5,))
    dump = await generation_dump(redis, prefix, season_id)
    assert {"meta", "map", "beys", "leaderboard", "titles", "reports", "kurultay"} <= set(dump)
    assert {f"battles:{n}" for n in range(1, 17)} <= set(dump)
    assert {f"orders:{n}" for n in range(1, 17)} <= set(dump)
    assert {f"private:{seat}" for seat in range(1, 20)} <= set(dump)
    assert len(dump["map"]) == 81
    assert len(dump["leaderboard"]) == 19
    assert sorted(dump["reports"]) == sorted(
        [*map(str, range(1, 17)), *(f"head:{n}" for n in range(1, 17)), "kurultay"]
    )  # each Divan's report and the chain head it publishes (docs/export.md "Chain heads")
    assert dump["meta"]["phase"] == '"over"'
    boards = await global_dump(redis, prefix)
    assert [s for s, _pos in boards["seasons"]] == [season_id]  # scored by creation position
    assert {"boards:han_scores", "boards:best_scores", "boards:han_memleket"} <= set(boards)


@pytest.mark.parametrize("batch", [1, 7])
async def test_the_projection_does_not_depend_on_batch_boundaries(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch, batch: int
):
    """Derived views are diffed per batch and records added per event: any cut gives one result."""
    projector = Projector(memory_store, redis, prefix)
    seasons = await _play_interleaved(memory_store, projector, (9,))
    reference = await generation_dump(redis, prefix, seasons[0])
    monkeypatch.setattr(projector_module, "BATCH", batch)
    other = f"{prefix}-other"
    await Projector(memory_store, redis, other).catch_up(seasons[0])
    assert await generation_dump(redis, other, seasons[0]) == reference


async def test_a_projector_restarted_mid_season_continues_from_the_checkpoint(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A fresh process has no cursor: it refolds the store up to the checkpoint and goes on."""
    season_id = "restarted"
    chunks = list(season_chunks(17, season_id))
    first = Projector(memory_store, redis, prefix)
    for n, chunk in enumerate(chunks[:9]):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await first.catch_up(season_id)
    for n, chunk in enumerate(chunks[9:], start=9):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await Projector(memory_store, redis, prefix).catch_up(season_id)
    live = await generation_dump(redis, prefix, season_id)
    assert live == await rebuilt_dump(memory_store, redis, prefix, season_id)
