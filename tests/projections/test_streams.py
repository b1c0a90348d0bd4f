"""Event streams cannot take the read side down (issue 9 item 3): they hold no connection of the
read pool, are capped per client address and per process, and Redis trouble answers 503."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis
from litestar.response import sse as sse_module
from litestar.utils import sync as litestar_sync

from services.projections import streamlog
from services.projections import streams as streams_module
from services.projections.keys import channel
from services.projections.projector import Projector
from services.projections.streams import StreamHub
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.projections.sse import Stream, served
from tests.projections.support import Gateway, bearer, open_gateway
from tests.redis_server import own_redis

READS = ("map", "leaderboard", "summary", "reports")
PROBLEM = "application/problem+json"


async def _season(client: httpx.AsyncClient, projector: Projector) -> str:
    r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
    assert r.status_code == 201, r.text
    season_id: str = r.json()["season_id"]
    await projector.catch_up(season_id)
    return season_id


async def _opened(stream: Stream) -> int:
    status = await asyncio.wait_for(stream.status, 10)
    if status == 200:
        await stream.until("ready")
    return status


async def _refused(client: httpx.AsyncClient, path: str, status: int, code: str) -> None:
    r = await client.get(path)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith(PROBLEM)
    assert int(r.headers["retry-after"]) > 0
    assert r.json()["code"] == code


async def _published(store: InMemoryEventStore, season_id: str, payload: str) -> bytes:
    """`payload` as the projection publishes it: with the id of a message after the season's
    current version (a stream opened now skips what its position already covers)."""
    version = await store.stream_version(season_id)
    return streamlog.message(streamlog.StreamId(version + 1, 0), payload.encode())


async def _wait_until(predicate, timeout: float = 10) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not await predicate():
            await asyncio.sleep(0.02)


@contextlib.asynccontextmanager
async def _from_addresses(
    base: httpx.URL, addresses: list[str]
) -> AsyncIterator[list[httpx.AsyncClient]]:
    """One HTTP client per loopback source address (127.0.0.0/8 is all this machine's)."""
    async with contextlib.AsyncExitStack() as stack:
        clients = []
        for address in addresses:
            transport = httpx.AsyncHTTPTransport(
                local_address=address, limits=httpx.Limits(max_connections=None)
            )
            clients.append(
                await stack.enter_async_context(
                    httpx.AsyncClient(base_url=base, transport=transport, timeout=10)
                )
            )
        yield clients


async def test_one_client_address_gets_at_most_its_cap_of_streams(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The (cap+1)-th stream from one address is 429 too_many_streams with Retry-After; another
    address is not affected, and a closed stream gives its slot back."""
    gw = Gateway(memory_store, redis, prefix, streams_per_client=3)
    async with served(gw) as client, _from_addresses(client.base_url, ["127.0.0.2"]) as (other,):
        season_id = await _season(client, Projector(memory_store, redis, prefix))
        path = f"/v1/seasons/{season_id}/events"
        streams = [Stream(client, path) for _ in range(3)]
        try:
            assert [await _opened(s) for s in streams] == [200, 200, 200]
            await _refused(client, path, 429, "too_many_streams")
            elsewhere = Stream(other, path)
            streams.append(elsewhere)
            assert await _opened(elsewhere) == 200
            await streams.pop(0).close()

            async def admitted() -> bool:
                again = Stream(client, path)
                if await _opened(again) == 200:
                    streams.append(again)
                    return True
                await again.close()
                return False

            await _wait_until(admitted)
            await _refused(client, path, 429, "too_many_streams")
        finally:
            for s in streams:
                await s.close()


async def test_a_refused_stream_does_not_use_up_its_ticket(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    gw = Gateway(memory_store, redis, prefix, streams_per_client=1)
    async with served(gw) as client:
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id, token = r.json()["season_id"], r.json()["token"]
        await Projector(memory_store, redis, prefix).catch_up(season_id)
        r = await client.post(f"/v1/seasons/{season_id}/tickets", headers=bearer(token))
        ticket = r.json()["ticket"]
        path = f"/v1/seasons/{season_id}/events"
        public = Stream(client, path)
        private: Stream | None = None
        try:
            assert await _opened(public) == 200
            await _refused(client, f"{path}?ticket={ticket}", 429, "too_many_streams")
            await public.close()

            async def admitted() -> bool:
                nonlocal private
                private = Stream(client, f"{path}?ticket={ticket}")
                status = await asyncio.wait_for(private.status, 10)
                assert status in (200, 429), status  # never 401: the ticket is still good
                return status == 200

            await _wait_until(admitted)
            assert private is not None
            ready, _ = await private.until("ready")
            assert ready.data == ['{"channels":2}']
        finally:
            await public.close()
            if private is not None:
                await private.close()


def test_the_stream_caps_are_settings_from_the_environment():
    assert (Settings().streams_per_client, Settings().streams_per_process) == (8, 500)
    env = {"SEKSENBIR_STREAMS_PER_CLIENT": "3", "SEKSENBIR_STREAMS_PER_PROCESS": "40"}
    s = Settings.from_env(env)
    assert (s.streams_per_client, s.streams_per_process) == (3, 40)


async def test_the_process_cap_answers_503_streams_full(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    gw = Gateway(memory_store, redis, prefix, streams_per_client=100, streams_per_process=4)
    async with served(gw) as client:
        season_id = await _season(client, Projector(memory_store, redis, prefix))
        path = f"/v1/seasons/{season_id}/events"
        streams = [Stream(client, path) for _ in range(4)]
        try:
            assert [await _opened(s) for s in streams] == [200] * 4
            await _refused(client, path, 503, "streams_full")
            # the reads go on meanwhile
            for name in READS:
                r = await client.get(f"/v1/seasons/{season_id}/{name}")
                assert r.status_code == 200, r.text
        finally:
            for s in streams:
                await s.close()


async def test_reads_answer_while_120_streams_are_open_and_every_stream_gets_the_news(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The attack of issue 9: more open streams than the read pool has connections (100).
    Every read still answers 200, and one PUBLISH reaches every stream once."""
    addresses = [f"127.0.0.{n}" for n in range(2, 6)]
    gw = Gateway(memory_store, redis, prefix, streams_per_client=30)
    async with served(gw) as client, _from_addresses(client.base_url, addresses) as clients:
        season_id = await _season(client, Projector(memory_store, redis, prefix))
        path = f"/v1/seasons/{season_id}/events"
        streams: list[Stream] = []
        try:
            for start in range(0, 120, 20):  # held at once, opened in waves (not a read burst)
                wave = [Stream(clients[(start + i) // 30], path) for i in range(20)]
                streams += wave
                assert await asyncio.gather(*(_opened(s) for s in wave)) == [200] * 20
            for name in READS:
                r = await client.get(f"/v1/seasons/{season_id}/{name}")
                assert r.status_code == 200, r.text
            assert (await client.get("/ready")).status_code == 200
            news = '{"divan":1,"type":"divan_report"}'
            published = await _published(memory_store, season_id, news)
            assert await redis.publish(channel(prefix, season_id), published) == 1  # one subscriber
            for stream in streams:
                frame, before = await stream.until("divan_report")
                assert frame.data == [news]
                assert all(f.event is None for f in before[:-1])  # keep-alives at most
            assert all(s.queue.empty() for s in streams)  # once each
        finally:
            await asyncio.gather(*(s.close() for s in streams))


async def test_a_stream_is_opened_and_sent_without_a_thread(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """ADR-129: a stream's frames are encoded and its subscription released on the event loop;
    Litestar's ServerSentEvent handed a call to the executor's thread for every stream opened
    (its leading chunks, none here), and its background task another (a sync release, which
    changed the hub's loop objects from that thread), while a flood opened 10-15 a second."""
    hops: list[object] = []
    real = sse_module.sync_to_thread

    def counted(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        hops.append(fn)
        return real(fn, *args, **kwargs)

    monkeypatch.setattr(sse_module, "sync_to_thread", counted)
    monkeypatch.setattr(litestar_sync, "sync_to_thread", counted)
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        season_id = await _season(client, Projector(memory_store, redis, prefix))
        stream = Stream(client, f"/v1/seasons/{season_id}/events")
        try:
            assert await _opened(stream) == 200
            news = '{"divan":1,"type":"divan_report"}'
            published = await _published(memory_store, season_id, news)
            assert await redis.publish(channel(prefix, season_id), published) == 1
            frame, _ = await stream.until("divan_report")
            assert frame.data == [news]
        finally:
            await stream.close()
    assert hops == []


async def test_an_exhausted_redis_pool_answers_503_and_ready_says_so(
    memory_store: InMemoryEventStore, redis_url: str, prefix: str
):
    """Whatever empties the read pool: 503 read_unavailable with Retry-After, never a 500,
    and /ready is 503 naming the read side; all well again once connections come back."""
    small = aioredis.Redis.from_url(redis_url, max_connections=2)
    projector = Projector(memory_store, small, prefix)
    try:
        async with open_gateway(memory_store, small, prefix) as (_gw, client):
            season_id = await _season(client, projector)
            held = [await small.connection_pool.get_connection() for _ in range(2)]
            for name in READS:
                await _refused(client, f"/v1/seasons/{season_id}/{name}", 503, "read_unavailable")
            r = await client.get("/ready")
            assert r.status_code == 503
            assert r.json() == {"status": "unavailable", "unavailable": ["read_side"]}
            for conn in held:
                await small.connection_pool.release(conn)
            for name in READS:
                r = await client.get(f"/v1/seasons/{season_id}/{name}")
                assert r.status_code == 200, r.text
            assert (await client.get("/ready")).json() == {"status": "ready"}
    finally:
        from tests.projections.support import delete_prefix

        await delete_prefix(small, prefix)
        await small.aclose()


@pytest.mark.fault
@pytest.mark.integration  # starts a redis-server of its own
async def test_redis_down_answers_503_and_streams_come_back_with_it(
    memory_store: InMemoryEventStore, prefix: str
):
    """Redis stopped: reads and new streams are 503 (not 500), /ready is 503, open streams end
    (no silent gap); Redis back: a new stream is admitted and delivers."""
    with own_redis() as server:
        redis = aioredis.Redis.from_url(server.url)
        try:
            gw = Gateway(memory_store, redis, prefix)
            async with served(gw) as client:
                season_id = await _season(client, Projector(memory_store, redis, prefix))
                path = f"/v1/seasons/{season_id}/events"
                first = Stream(client, path)
                try:
                    assert await _opened(first) == 200
                    server.stop()
                    await asyncio.wait_for(first.task, 30)  # the stream ended
                    for name in READS:
                        await _refused(
                            client, f"/v1/seasons/{season_id}/{name}", 503, "read_unavailable"
                        )
                    await _refused(client, path, 503, "read_unavailable")
                    r = await client.get("/ready")
                    assert r.status_code == 503
                    assert r.json()["unavailable"] == ["read_side"]
                    server.start()  # an empty Redis on the same port: project the season again
                    await Projector(memory_store, redis, prefix).catch_up(season_id)
                    again = Stream(client, path)
                    try:
                        assert await _opened(again) == 200
                        news = '{"divan":1,"type":"divan_report"}'
                        published = await _published(memory_store, season_id, news)
                        assert await redis.publish(channel(prefix, season_id), published) == 1
                        frame, _ = await again.until("divan_report")
                        assert frame.data == [news]
                    finally:
                        await again.close()
                finally:
                    await first.close()
        finally:
            await redis.aclose()


async def test_a_client_that_does_not_keep_up_is_disconnected_not_buffered(
    redis: aioredis.Redis, prefix: str
):
    """The hub queues at most `queue_size` messages for a stream; one more ends the stream and
    frees its slot (a slow reader costs bounded memory)."""

    hub = _hub(redis, queue_size=3)
    name = channel(prefix, "slow")
    try:
        slow = await hub.open("10.0.0.1", [name])
        fast = await hub.open("10.0.0.2", [name])
        got: list[bytes] = []
        for n in range(4):
            await redis.publish(name, f'{{"n":{n}}}')

        async def ended() -> bool:  # the fast one reads all four meanwhile
            got.extend(await fast.next(0.01) or [])
            return slow.closed is not None and len(got) == 4

        await _wait_until(ended)
        assert got == [f'{{"n":{n}}}'.encode() for n in range(4)]
        assert slow.closed == "slow_client"
        assert await slow.next(1) == []  # its queue is dropped: the stream just ends
        assert fast.closed is None
        assert hub.open_streams == 1
    finally:
        await hub.close()


def _hub(redis: aioredis.Redis, **kw: int) -> StreamHub:
    async def connect():  # type: ignore[no-untyped-def]
        pool = redis.connection_pool
        conn = pool.connection_class(**pool.connection_kwargs)
        await conn.connect()
        return conn

    return StreamHub(connect, per_client=8, per_process=8, **kw)


async def test_the_subscriber_pings_a_quiet_redis_and_stays_up(
    redis: aioredis.Redis, prefix: str, monkeypatch
):
    monkeypatch.setattr(streams_module, "POLL_S", 0.02)
    monkeypatch.setattr(streams_module, "PING_S", 0.05)
    monkeypatch.setattr(streams_module, "DEAD_S", 0.4)
    hub = _hub(redis)
    try:
        sub = await hub.open("10.0.0.1", [channel(prefix, "quiet")])

        async def pinged() -> bool:
            return hub.pongs >= 12  # at least 0.6 s of silence from the channel: past DEAD_S

        await _wait_until(pinged)
        assert sub.closed is None
        await redis.publish(channel(prefix, "quiet"), b"{}")
        assert await sub.next(5) == [b"{}"]
    finally:
        await hub.close()


async def test_a_redis_that_stops_answering_ends_the_streams(
    redis: aioredis.Redis, prefix: str, monkeypatch
):
    """Nothing heard (here: no PING sent) for DEAD_S: the link is taken as lost, the streams
    end rather than wait for ever, and the next stream connects again."""
    monkeypatch.setattr(streams_module, "POLL_S", 0.02)
    monkeypatch.setattr(streams_module, "PING_S", 3600.0)
    monkeypatch.setattr(streams_module, "DEAD_S", 0.2)
    hub = _hub(redis)
    try:
        sub = await hub.open("10.0.0.1", [channel(prefix, "silent")])
        assert await sub.next(10) == []
        assert sub.closed == "redis_lost"
        assert hub.open_streams == 0
        monkeypatch.setattr(streams_module, "DEAD_S", 3600.0)
        again = await hub.open("10.0.0.1", [channel(prefix, "silent")])
        await redis.publish(channel(prefix, "silent"), b"{}")
        assert await again.next(5) == [b"{}"]
    finally:
        await hub.close()


async def test_the_hub_closes_at_once_right_after_its_last_stream_is_released(
    redis: aioredis.Redis, prefix: str
):
    """A shutdown just after a stream ended (its UNSUBSCRIBE being sent) does not hang: the
    writer is told to stop, not only cancelled (Python 3.11's wait_for in redis-py's send can
    swallow the cancel)."""
    hub = _hub(redis)
    sub = await hub.open("10.0.0.1", [channel(prefix, "leaving")])
    sub.release()
    closing = asyncio.create_task(hub.close())
    done, _ = await asyncio.wait([closing], timeout=5)
    assert done == {closing}
