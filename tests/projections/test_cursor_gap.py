"""ADR-131: a projections process whose fold of a season is behind the checkpoint (another
process projected the last batches: both hear every NOTIFY, either takes the claim) reads and
folds only the gap, not the season from event 1, also when the season is at the head."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore, RecordedEvent
from tests.projections.support import append_chunk, assert_rebuild_equal, season_chunks

pytestmark = pytest.mark.integration


class CountingStore:
    """The store as one projector sees it, recording each read's `from_version`."""

    def __init__(self, store: InMemoryEventStore) -> None:
        self._store = store
        self.reads: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        self.reads.append(from_version)
        return await self._store.read_stream(season_id, from_version)


async def test_projectors_taking_turns_fold_only_the_gap(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Two processes' projectors (a fold table each) take a season's batches in turn: after
    its first batch neither reads the stream from event 1 again, and the read models are
    those of a rebuild."""
    season_id = "taking-turns"
    stores = [CountingStore(memory_store) for _ in range(2)]
    projectors = [Projector(s, redis, prefix) for s in stores]  # type: ignore[arg-type]
    appended = 0
    for n, chunk in enumerate(season_chunks(31, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        appended += len(chunk)
        assert await projectors[n % 2].catch_up(season_id) == len(chunk)
        assert await redis.get(Keys(prefix, season_id, 1).checkpoint) == str(appended).encode()
    assert n >= 4
    # the first batch of each (a rebuild from 0, then a fold of a season never folded here)
    assert [s.reads.count(0) for s in stores] == [1, 1], [s.reads for s in stores]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_a_projector_behind_finding_the_season_at_the_head_reads_only_the_gap(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A wake-up that the other process already caught up: this one, whose fold is some
    batches behind, reads the events after its fold, not the whole stream, and applies none."""
    season_id = "at-the-head"
    store = CountingStore(memory_store)
    behind = Projector(store, redis, prefix)  # type: ignore[arg-type]
    first = Projector(memory_store, redis, prefix)
    chunks = list(season_chunks(32, season_id))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    await behind.catch_up(season_id)
    folded = await memory_store.stream_version(season_id)
    for n, chunk in enumerate(chunks[1:4], start=1):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await first.catch_up(season_id)
    store.reads.clear()
    assert await behind.catch_up(season_id) == 0
    assert store.reads == [folded]
