"""Read answers carry an ETag and answer If-None-Match with 304 (issue 11; RFC 9110 §13.1.2).

Polling clients pay nothing when nothing changed; a change gives a new ETag; the event stream
and writes are untouched.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import bearer, open_gateway


async def test_a_read_answers_304_while_nothing_changed_and_200_once_it_did(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season, token = r.json()["season_id"], r.json()["token"]
        await projector.catch_up(season)
        url = f"/v1/seasons/{season}/map"
        first = await client.get(url)
        etag = first.headers["etag"]
        assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
        same = await client.get(url, headers={"If-None-Match": etag})
        assert (same.status_code, same.content, same.headers["etag"]) == (304, b"", etag)
        # the bey's own view: private, and its own ETag
        me = bearer(token)
        private = await client.get(f"/v1/seasons/{season}/private", headers=me)
        assert private.headers["cache-control"] == "private, no-cache"
        again = await client.get(
            f"/v1/seasons/{season}/private",
            headers={**me, "If-None-Match": private.headers["etag"]},
        )
        assert again.status_code == 304
        # a Divan changes the map: the old ETag no longer matches
        r = await client.post(f"/v1/seasons/{season}/divans", json={"divan": 1}, headers=me)
        assert r.status_code == 202, r.text
        from services.resolver.divan import resolve
        from shared.app.repository.seasons import Seasons

        assert await resolve(Seasons(memory_store), season, 1) == "resolved"
        await projector.catch_up(season)
        changed = await client.get(url, headers={"If-None-Match": etag})
        assert changed.status_code == 200 and changed.headers["etag"] != etag
        assert changed.json() != first.json()


async def test_writes_and_refusals_carry_no_etag(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        created = await client.post("/v1/seasons", json={"memleket": 6})
        assert "etag" not in created.headers
        missing = await client.get("/v1/seasons/0123456789abcdef0123456789abcdef/map")
        assert missing.status_code in (404, 503) and "etag" not in missing.headers
