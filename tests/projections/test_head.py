"""ADR-61, RFC 9110 §9.3.2: HEAD wherever GET is served, on both APIs, as `seksenbir serve` runs.

Every GET operation of the served document (so a new one is covered too) is asked GET and then
HEAD, by a bey and by ops, over a real uvicorn server: HEAD answers GET's status and headers
(ETag, Cache-Control, Content-Type, Content-Length …) and no body. A HEAD of the event stream
answers its headers and ends. HEAD on a path that takes no GET is still 405, and every Allow
header that names GET names HEAD (OPTIONS, 405).
"""

from __future__ import annotations

import asyncio
import itertools
import re
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.http import head
from shared.eventstore import InMemoryEventStore
from tests.projections.sse import served
from tests.projections.support import OPS_TOKEN, Gateway, bearer

SCHEMA = "/v1/schema/openapi.json"
STREAM = "/v1/seasons/{season_id}/events"
SAME = ("etag", "cache-control", "content-type", "content-length", "content-language", "vary")


def _url(path: str, season_id: str) -> str:
    values = {"season_id": season_id, "seat": "1", "divan": "1", "plate": "6"}
    values["name"] = "han-scores"
    values["player_id"] = "0" * 32  # issue 23: no player
    values["channel_id"] = "all"  # issue 24: the public channel
    return re.sub(r"\{(\w+)\}", lambda m: values[m[1]], path)


def _headers(r: httpx.Response) -> dict[str, str | None]:
    return {name: r.headers.get(name) for name in SAME}


async def test_head_answers_every_get_as_get_does_without_a_body(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        created = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id, token = created.json()["season_id"], created.json()["token"]
        await Projector(memory_store, redis, prefix).catch_up(season_id)
        doc = (await client.get(SCHEMA)).json()
        gets = [p for p, item in doc["paths"].items() if "get" in item and p != STREAM]
        assert len(gets) >= 20
        statuses: dict[str, set[int]] = {}
        for path in gets:
            url = _url(path, season_id)
            for who in (token, OPS_TOKEN):
                got = await client.get(url, headers=bearer(who))
                head = await client.head(url, headers=bearer(who))
                assert head.status_code == got.status_code, (path, got.text)
                assert _headers(head) == _headers(got), path
                assert head.content == b"", path
                statuses.setdefault(path, set()).add(got.status_code)
        # both successes and refusals were compared: a bey's own view, ops' 403 there
        assert statuses["/v1/seasons/{season_id}/me"] == {200, 403}
        assert 200 in statuses["/v1/seasons/{season_id}/map"]
        # a conditional HEAD is answered like a conditional GET
        etag = (await client.get(f"/v1/seasons/{season_id}/map")).headers["etag"]
        r = await client.head(f"/v1/seasons/{season_id}/map", headers={"If-None-Match": etag})
        assert r.status_code == 304 and r.content == b""
        # counted and logged as HEAD, by its route, as the GET is by its own
        metrics = (await client.get("/metrics")).text
        assert 'method="HEAD",path="/v1/seasons/{season_id}/map",status="304"' in metrics


async def test_head_of_the_event_stream_answers_its_headers_and_ends(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        created = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id = created.json()["season_id"]
        await Projector(memory_store, redis, prefix).catch_up(season_id)
        hub: Any = gw.app.state.query.streams
        for _ in range(hub.per_client + 2):  # each gives its slot back: never too_many_streams
            r = await client.head(f"/v1/seasons/{season_id}/events", timeout=5)
            assert r.status_code == 200 and r.content == b"", r.headers
            assert r.headers["content-type"].startswith("text/event-stream")
            async with asyncio.timeout(5):
                while hub.open_streams:  # released as the stream ends, just after its headers
                    await asyncio.sleep(0.01)


async def test_head_where_no_get_is_405_and_allow_names_head_with_get(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Allow names HEAD beside GET, in one order of methods (RFC 9110's), not the order of the
    set Litestar builds it from, which differs between processes."""
    gw = Gateway(memory_store, redis, prefix)
    async with served(gw) as client:
        created = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id = created.json()["season_id"]
        r = await client.head(f"/v1/seasons/{season_id}/orders")
        assert (r.status_code, r.headers["allow"]) == (405, "POST, OPTIONS")
        r = await client.options(f"/v1/seasons/{season_id}")
        assert (r.status_code, r.headers["allow"]) == (204, "GET, HEAD, OPTIONS")
        r = await client.delete(f"/v1/seasons/{season_id}")
        assert (r.status_code, r.headers["allow"]) == (405, "GET, HEAD, OPTIONS")


@pytest.mark.parametrize("given", list(itertools.permutations([b"OPTIONS", b"POST", b"GET"])))
def test_allow_is_in_one_order_whatever_the_order_given(given: tuple[bytes, ...]) -> None:
    """The same methods in any order give the same Allow, HEAD added after GET; other headers
    pass through as they are."""
    headers = [(b"content-type", b"a, b"), (b"allow", b", ".join(given))]
    assert head._with_head(headers) == [
        (b"content-type", b"a, b"),
        (b"allow", b"GET, HEAD, POST, OPTIONS"),
    ]
