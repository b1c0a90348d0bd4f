"""GET /metrics answered `Content-Type: text/plain; version=1.0.0; charset=utf-8;
charset=utf-8` (found from outside): prometheus_client's CONTENT_TYPE_LATEST already names
the charset and Litestar appends its own to every text/ type. One charset now, the exposition
format's version kept (a scraper reads it to pick the parser)."""

from __future__ import annotations

import redis.asyncio as aioredis

from shared.eventstore import InMemoryEventStore
from tests.projections.support import open_gateway


async def test_metrics_name_one_charset_and_the_format_version(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.get("/metrics")
    assert r.status_code == 200
    params = [p.strip() for p in r.headers["content-type"].split(";")]
    assert params[0] == "text/plain"
    assert "version=1.0.0" in params
    assert params.count("charset=utf-8") == 1, r.headers["content-type"]
