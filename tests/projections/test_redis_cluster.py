"""The read side on a real Redis Cluster (issue 14, "Past one machine").

Three redis-server processes in cluster mode on free local ports, joined by `redis-cli
--cluster create` (tests/redis_server.py, own_cluster). The projector and the query API get
their clients from bootstrap with SEKSENBIR_READ_REDIS_CLUSTER=1, as production does. Two
seasons are played Divan by Divan, projected on the cluster and on the single-node Redis at
once, then rebuilt on the cluster; every key and every read answer must equal the single-node
run. redis-py's cluster client refuses, before sending, a script or a transaction whose keys
span slots (and the server would answer CROSSSLOT): the run passing is the proof that every
multi-key operation stays in one season's slot, and the cross-season keys in their own.
"""

from __future__ import annotations

from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.crc import key_slot

from entrypoints import bootstrap
from entrypoints.gateway import create_app, subscriber_connection
from services.projections.keys import CROSS_TAG, Keys, channel
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.http.support import lifespan
from tests.projections.support import (
    append_chunk,
    canonical,
    delete_prefix,
    generation_dump,
    global_dump,
    keys_matching,
    open_gateway,
    season_chunks,
    settings,
)
from tests.redis_server import own_cluster

pytestmark = [pytest.mark.integration, pytest.mark.fault]

SEEDS = (5, 17)
PATHS = (
    "/v1/seasons/all",
    "/v1/seasons/{s}",
    "/v1/seasons/{s}/map",
    "/v1/seasons/{s}/leaderboard",
    "/v1/seasons/{s}/titles",
    "/v1/seasons/{s}/treaties",
    "/v1/seasons/{s}/reports",
    "/v1/seasons/{s}/betrayals",
    "/v1/seasons/{s}/summary",
    "/v1/seasons/{s}/battles/3",
    "/v1/seasons/{s}/orders/3",
    "/v1/boards/han-scores",
    "/v1/boards/best-scores",
    "/v1/boards/han-memleket",
)


async def _play_on_both(
    store: InMemoryEventStore, projectors: tuple[Projector, Projector]
) -> list[str]:
    """Every season a Divan at a time, round robin; both projectors catch up after each."""
    streams = {f"season-{seed}": season_chunks(seed, f"season-{seed}") for seed in SEEDS}
    n = 0
    while streams:
        for season_id in list(streams):
            chunk = next(streams[season_id], None)
            if chunk is None:
                del streams[season_id]
                continue
            await append_chunk(store, season_id, chunk, f"chunk/{n}")
            for projector in projectors:
                await projector.catch_up(season_id)
        n += 1
    return [f"season-{seed}" for seed in SEEDS]


async def _dumps(redis: aioredis.Redis, prefix: str, seasons: list[str]) -> dict[str, Any]:
    return {
        "globals": await global_dump(redis, prefix),
        **{s: await generation_dump(redis, prefix, s) for s in seasons},
    }


async def _answers(client: httpx.AsyncClient, seasons: list[str]) -> dict[str, Any]:
    out = {}
    for season_id in seasons:
        for path in PATHS:
            url = path.format(s=season_id)
            r = await client.get(url)
            out[url] = (r.status_code, r.json())
    return out


async def test_the_read_side_on_a_redis_cluster_equals_a_single_node_run(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    with own_cluster(3) as cluster:
        on_cluster = msgspec.structs.replace(
            settings(prefix), read_redis_url=cluster.url, read_redis_cluster=True
        )
        client = bootstrap.redis_client(on_cluster)
        assert isinstance(client, RedisCluster)
        try:
            seasons = await _play_on_both(
                memory_store,
                (Projector(memory_store, client, prefix), Projector(memory_store, redis, prefix)),
            )
            single = await _dumps(redis, prefix, seasons)
            assert canonical(await _dumps(client, prefix, seasons)) == canonical(single)
            for season_id in seasons:  # a from-zero rebuild on the cluster, then the switch
                await Projector(memory_store, client, prefix).rebuild(season_id)
            assert canonical(await _dumps(client, prefix, seasons)) == canonical(single)
            for season_id in seasons:
                assert await client.get(Keys.active(prefix, season_id)) == b"2"

            _each_season_on_one_slot(await keys_matching(client, f"{prefix}:*"), seasons)

            # the query API, its client from bootstrap's read pool (a cluster client too)
            app = create_app(
                on_cluster, store=memory_store, enqueue=lambda s, d: None, rebuild=lambda s: None
            )
            transport = httpx.ASGITransport(app=app)
            async with (
                lifespan(app),
                httpx.AsyncClient(transport=transport, base_url="http://testserver") as http,
            ):
                assert isinstance(app.state.query.redis, RedisCluster)
                served = await _answers(http, seasons)
            async with open_gateway(memory_store, redis, prefix) as (_gw, plain):
                assert served == await _answers(plain, seasons)
            assert all(status == 200 for status, _body in served.values()), served
        finally:
            await delete_prefix(client, prefix)
            await client.aclose()


def _each_season_on_one_slot(keys: list[str], seasons: list[str]) -> None:
    """Every key names its season's hash tag or the cross-season one: one slot for each."""
    slots: dict[str, set[int]] = {}
    for key in keys:
        tag = next((s for s in seasons if f"{{s:{s}}}" in key), None)
        group = tag if tag is not None else CROSS_TAG
        assert tag is not None or CROSS_TAG in key, key
        slots.setdefault(group, set()).add(key_slot(key.encode()))
    assert set(slots) == {*seasons, CROSS_TAG}
    assert all(len(s) == 1 for s in slots.values()), slots


async def test_the_event_stream_subscriber_hears_a_season_channel_on_any_cluster_node(
    prefix: str,
):
    """The query API's one subscriber connects to one node; a cluster forwards every PUBLISH
    (the projector's, from inside the season's script on the season's node) to all nodes."""
    with own_cluster(3) as cluster:
        on_cluster = msgspec.structs.replace(
            settings(prefix), read_redis_url=cluster.url, read_redis_cluster=True
        )
        client = bootstrap.redis_client(on_cluster)
        try:
            await client.initialize()  # type: ignore[attr-defined]
            conn = await subscriber_connection(client)
            try:
                name = channel(prefix, "season-x")
                await conn.send_command("SUBSCRIBE", name)
                assert (await conn.read_response(timeout=5, push_request=True))[0] == b"subscribe"
                script = client.register_script("return redis.call('PUBLISH', ARGV[1], 'hi')")
                # the script runs on the node of the season's slot, whichever that is
                await script(keys=[Keys(prefix, "season-x", 1).checkpoint], args=[name])
                assert await conn.read_response(timeout=5, push_request=True) == [
                    b"message",
                    name.encode(),
                    b"hi",
                ]
            finally:
                await conn.disconnect()
        finally:
            await client.aclose()
