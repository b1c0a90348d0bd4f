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

    async def read_data(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """The projector's read (ADR-141), counted as read_stream's was."""
        self.reads.append(from_version)
        return await self._store.read_data(season_id, from_version)


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


async def test_wake_ups_go_to_the_process_that_caught_the_season_up_last(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Two processes hear every wake-up: the one that let go of the season last catches it up
    (its fold is the newest), the other leaves it its mark; nothing is lost, no race is lost,
    and the read models are those of a rebuild."""
    season_id = "owned"
    projectors = [Projector(memory_store, redis, prefix) for _ in range(2)]
    applied: list[list[int]] = [[], []]
    appended = 0
    for n, chunk in enumerate(season_chunks(33, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        appended += len(chunk)
        # the other process first: it defers to the owner, which catches up for both
        order = [1, 0] if n % 2 else [0, 1]
        for i in order:
            applied[i].append(await projectors[i].woken(season_id))
        assert await redis.get(Keys(prefix, season_id, 1).checkpoint) == str(appended).encode()
    first = 0 if applied[0][0] else 1
    assert sum(applied[first]) == appended
    assert sum(applied[1 - first]) == 0, applied
    assert await redis.get(Keys.claim(prefix, season_id)) is None
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_an_owner_that_stopped_leaves_its_seasons_to_the_sweep_and_then_to_others(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The owner hears nothing more (it died): the other process's wake-up defers to it while
    its ownership lasts, the worker's sweep does not defer, and once the ownership has lapsed
    a wake-up catches the season up at once."""
    season_id = "owner-gone"
    gone, other = (Projector(memory_store, redis, prefix) for _ in range(2))
    chunks = list(season_chunks(34, season_id))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    assert await gone.woken(season_id) == len(chunks[0])
    await append_chunk(memory_store, season_id, chunks[1], "chunk/1")
    assert await other.woken(season_id) == 0  # deferred: the mark is left for the owner
    assert await other.woken(season_id, defer=False) == len(chunks[1])  # the sweep's way
    assert await other.woken(season_id) == 0  # its own now: nothing new
    await append_chunk(memory_store, season_id, chunks[2], "chunk/2")
    assert await gone.woken(season_id) == 0  # `other` owns it now
    await redis.delete(Keys.owner(prefix, season_id))  # as OWNER_TTL_MS after its last release
    assert await gone.woken(season_id) == len(chunks[2])
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


class LeanOnly(CountingStore):
    """A store whose whole envelope a projector must not ask for (ADR-141)."""

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        raise AssertionError(f"read_stream({season_id!r}, {from_version}): an envelope read")


async def test_adr_141_a_projector_catches_up_and_rebuilds_on_the_lean_read(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A projector's catch-ups, batch after batch, a cold one and a rebuild read `read_data`
    (version, type, data, hash, position), never the envelope, and end rebuild-equal."""
    season_id = "lean"
    store = LeanOnly(memory_store)
    kept = Projector(store, redis, prefix)  # type: ignore[arg-type]
    appended = 0
    for n, chunk in enumerate(season_chunks(17, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        appended += len(chunk)
        # every other batch a cold projector (the whole stream), then `kept` folds the gap
        cold = Projector(store, redis, prefix)  # type: ignore[arg-type]
        assert await (cold if n % 2 else kept).catch_up(season_id) == len(chunk)
    assert n >= 3 and 0 in store.reads and max(store.reads) > 0
    assert await Projector(store, redis, prefix).rebuild(season_id) == appended  # type: ignore[arg-type]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
