"""Issue 20 item 4: a held event stream never silently skips a Divan across a read-Redis flush.

A flush loses the read models and the stream log; the projector rebuilds the season from event
1 (RELIABILITY 22) without publishing (a rebuild would announce the whole season again), so a
Divan resolved while the projection was gone reached the log of the new generation but no open
stream. The `ready` event promises everything after its id (R-14: the bey's own report only on
its own channel): the stream must deliver it, or end so that EventSource resumes with its id.
"""

from __future__ import annotations

import json

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections import streamlog
from services.projections.keys import channel
from services.projections.projector import Projector
from shared.app.access import tokens
from shared.domain import events as ev
from shared.eventstore import InMemoryEventStore
from tests.projections.sse import Frame, Stream, served
from tests.projections.support import Gateway, append_chunk, bearer, new_bey_token, season_chunks

SEAT = 1


async def _ticket(client: httpx.AsyncClient, season_id: str, token: str) -> str:
    r = await client.post(f"/v1/seasons/{season_id}/tickets", headers=bearer(token))
    assert r.status_code == 201, r.text
    ticket: str = r.json()["ticket"]
    return ticket


def _divans(frames: list[Frame], event: str) -> list[int]:
    return [json.loads(f.data[0])["divan"] for f in frames if f.event == event]


async def _until_divan(stream: Stream, event: str, divan: int) -> list[Frame]:
    """Frames up to the `event` of `divan` (a timeout if it never comes: the silent gap)."""
    seen: list[Frame] = []
    while divan not in _divans(seen, event):
        _frame, more = await stream.until(event, timeout=8)
        seen += more
    return seen


def _once_in_order(frames: list[Frame]) -> None:
    ids = [f.id for f in frames if f.event not in (None, "ready")]
    assert len(ids) == len(set(ids)), ids  # nothing twice
    keys = [tuple(map(int, str(i).split("-"))) for i in ids]
    assert keys == sorted(keys)  # in id order


@pytest.mark.fault
async def test_a_held_stream_delivers_the_divan_resolved_across_a_read_redis_flush(
    memory_store: InMemoryEventStore, wipeable_redis_url: str, redis_key_prefix: str
) -> None:
    """R-14, RELIABILITY 22: hold a public and a private stream, resolve Divans 1-5, flush
    the read Redis, resolve Divan 6 (the projector rebuilds from event 1): both streams get
    Divan 6's `divan_report` (and the private one its `private_report`) once, in id order,
    then go on with Divans 7 and 8 as before."""
    redis = aioredis.Redis.from_url(wipeable_redis_url)
    prefix = f"{redis_key_prefix}flush"
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(11, season_id))
    projector = Projector(memory_store, redis, prefix)
    sent = 0

    async def resolve(n: int) -> None:
        nonlocal sent
        for _ in range(n):
            await append_chunk(memory_store, season_id, chunks[sent], f"chunk/{sent}")
            sent += 1
            await projector.catch_up(season_id)

    try:
        token, rotated = new_bey_token(season_id, SEAT)
        await append_chunk(memory_store, season_id, [*chunks[0], rotated], "chunk/0")
        sent = 1
        await projector.catch_up(season_id)
        gw = Gateway(memory_store, redis, prefix)
        async with served(gw) as client:
            path = f"/v1/seasons/{season_id}/events"
            public = Stream(client, path)
            own = Stream(client, f"{path}?ticket={await _ticket(client, season_id, token)}")
            try:
                await public.until("ready")
                await own.until("ready")
                await resolve(5)  # Divans 1-5, live
                before_public = await _until_divan(public, "divan_report", 5)
                before_own = await _until_divan(own, "private_report", 5)
                assert await redis.flushdb()
                await resolve(1)  # Divan 6: the catch-up finds no projection and rebuilds
                got_public = await _until_divan(public, "divan_report", 6)
                got_own = await _until_divan(own, "private_report", 6)
                await resolve(2)  # Divans 7 and 8, live again on the new generation
                got_public += await _until_divan(public, "divan_report", 8)
                got_own += await _until_divan(own, "private_report", 8)
            finally:
                await public.close()
                await own.close()
        for before, after in ((before_public, got_public), (before_own, got_own)):
            _once_in_order(before + after)
            assert _divans(after, "divan_report") == [6, 7, 8]
        assert _divans(got_own, "private_report") == [6, 8]  # seat 1 has none in Divan 7
        assert _divans(got_public, "private_report") == []  # never another bey's
        assert SEAT in next(e for e in chunks[6] if isinstance(e, ev.DivanResolved)).private
    finally:
        await redis.flushdb()
        await redis.aclose()


@pytest.mark.fault
async def test_a_stream_that_cannot_read_the_rebuilt_log_ends_so_the_client_resumes(
    memory_store: InMemoryEventStore, wipeable_redis_url: str, redis_key_prefix: str
) -> None:
    """RELIABILITY 22: a rebuild announced while the season's projection is gone again (a
    second flush) leaves nothing to read past the stream's last id: the stream ends (EventSource
    reconnects with its Last-Event-ID) rather than staying open with a gap."""
    redis = aioredis.Redis.from_url(wipeable_redis_url)
    prefix = f"{redis_key_prefix}gone"
    season_id = tokens.new_season_id()
    try:
        chunks = list(season_chunks(11, season_id))
        await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
        await Projector(memory_store, redis, prefix).catch_up(season_id)
        async with served(Gateway(memory_store, redis, prefix)) as client:
            stream = Stream(client, f"/v1/seasons/{season_id}/events")
            try:
                await stream.until("ready")
                assert await redis.flushdb()
                assert await redis.publish(channel(prefix, season_id), streamlog.REBUILT) == 1
                rest = await stream.rest(timeout=8)  # ended by the server
                assert [f.event for f in rest if f.event is not None] == []
            finally:
                await stream.close()
    finally:
        await redis.flushdb()
        await redis.aclose()
