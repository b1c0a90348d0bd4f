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


async def test_a_large_public_answer_goes_gzip_compressed_with_its_own_etag_and_vary(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """The static board (18 KB of JSON) on a phone's first load: compressed when accepted."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        plain = await client.get("/v1/board", headers={"Accept-Encoding": "identity"})
        packed = await client.get("/v1/board", headers={"Accept-Encoding": "gzip, br"})
        refused = await client.get("/v1/board", headers={"Accept-Encoding": "gzip;q=0"})
        again = await client.get(
            "/v1/board",
            headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]},
        )
        crossed = await client.get(
            "/v1/board",
            headers={"Accept-Encoding": "gzip", "If-None-Match": plain.headers["etag"]},
        )
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in refused.headers
    for r in (plain, packed, refused, again):
        assert "Accept-Encoding" in [v.strip() for v in r.headers["vary"].split(",")]
    assert packed.content == plain.content  # httpx decoded it: the same JSON
    assert int(packed.headers["content-length"]) < len(plain.content) // 3
    assert int(plain.headers["content-length"]) == len(plain.content)
    # each form its own strong ETag (RFC 9110 §8.8.3), the compressed one named as such
    assert packed.headers["etag"] == plain.headers["etag"][:-1] + '-gzip"'
    assert refused.headers["etag"] == plain.headers["etag"]
    assert (again.status_code, again.content) == (304, b"")
    assert again.headers["etag"] == packed.headers["etag"]
    assert crossed.status_code == 200  # the identity form's ETag names another representation
    assert crossed.headers["content-encoding"] == "gzip"


async def test_a_small_answer_and_any_answer_to_credentials_go_uncompressed(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A bey's own view is never compressed (secrets beside others' words: BREACH's shape)."""
    projector = Projector(memory_store, redis, prefix)
    gz = {"Accept-Encoding": "gzip"}
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season, token = r.json()["season_id"], r.json()["token"]
        await projector.catch_up(season)
        private = await client.get(f"/v1/seasons/{season}/private", headers={**gz, **bearer(token)})
        board = await client.get("/v1/board", headers={**gz, **bearer(token)})
        small = await client.get(f"/v1/seasons/{season}/titles", headers=gz)
    assert private.status_code == board.status_code == small.status_code == 200
    assert len(private.content) >= 1024 and len(board.content) >= 1024  # large enough
    assert len(small.content) < 1024
    for r in (private, board, small):
        assert "content-encoding" not in r.headers, r.url
        assert "Accept-Encoding" not in r.headers.get("vary", ""), r.url
        assert not r.headers["etag"].endswith('-gzip"')
