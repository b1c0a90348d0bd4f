"""Issue 14: the broker's queues and the read models in different Redis databases. A FLUSHDB of
the read models leaves queued Divans untouched, the read side answers 503 "rebuilding" (never
an empty view), and one sweep of the projector makes the season whole again within 5 s.

Both databases are on a redis-server of this test's own (the shared one is never flushed).
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis
from litestar.testing import AsyncTestClient

from entrypoints.bootstrap import event_store
from entrypoints.gateway import create_app
from services.projections.projector import Projector
from shared.settings import next_db
from tests.integration.resolver_support import BrokerKeys, namespace, settings_for
from tests.projections.support import generation_dump, open_gateway
from tests.redis_server import own_redis

pytestmark = [pytest.mark.integration, pytest.mark.fault]


async def test_issue_14_a_flushed_read_model_database_leaves_the_queued_divan_and_heals(
    migrated_pg_dsn: str, pg_pool: asyncpg.Pool
) -> None:
    # pg_pool empties the store first: the projector's sweep below rebuilds every season in the
    # database, and another test's made-up events (thing_happened.v1) are no season's
    with own_redis() as server:
        ns, prefix = namespace(), "apart"
        settings = settings_for(
            migrated_pg_dsn,
            server.url,
            ns,
            broker_url=server.url,
            read_redis_url=next_db(server.url),
            projection_prefix=prefix,
        )
        assert settings.broker_redis != settings.read_redis
        async with AsyncTestClient(app=create_app(settings, reads=False)) as client:
            r = await client.post("/v1/seasons", json={"memleket": 34, "seed": "11"})
            assert r.status_code == 201, r.text
            created: dict[str, Any] = r.json()
            sid = created["season_id"]
            auth = {"Authorization": f"Bearer {created['token']}"}
            asked = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": 1}, headers=auth)
            assert asked.status_code == 202, asked.text  # queued; no worker runs
        broker = BrokerKeys(settings.broker_redis, ns)
        assert broker.pending() == 1
        reads = aioredis.Redis.from_url(settings.read_redis)
        try:
            async with event_store(settings, "cli") as store:
                projector = Projector(store, reads, prefix)
                await projector.sweep()
                before = await generation_dump(reads, prefix, sid)
                async with open_gateway(store, reads, prefix) as (_gw, http):
                    summary = f"/v1/seasons/{sid}/summary"
                    whole = (await http.get(summary)).content
                    assert await reads.flushdb()
                    wiped = await http.get(summary)
                    assert wiped.status_code == 503, wiped.text
                    assert wiped.json()["code"] == "projection_rebuilding"
                    assert broker.pending() == 1  # the queued Divan is untouched
                    async with asyncio.timeout(5.0):  # a deadline to heal by, not a timing
                        await projector.sweep()
                    assert (await http.get(summary)).content == whole
                assert await generation_dump(reads, prefix, sid) == before
        finally:
            await reads.aclose()
            broker.cleanup()
