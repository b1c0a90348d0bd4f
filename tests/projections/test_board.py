"""GET /v1/board: the static board a frontend draws from (R-1.1, R-1.3, R-2, R-8.1, R-10.1).

It must agree with the domain's own map, deck and missions, and be cheap to poll (ETag, 304).
"""

from __future__ import annotations

from collections import Counter

import redis.asyncio as aioredis

from shared.domain.map import REGIONS, game_map
from shared.domain.season import MISSIONS, news_deck
from shared.eventstore import InMemoryEventStore
from tests.projections.support import open_gateway

GM = game_map()


async def test_the_board_is_the_domains_map_missions_news_and_calendar(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.get("/v1/board")
    assert r.status_code == 200, r.text
    board = r.json()
    provinces = {p["plate"]: p for p in board["provinces"]}
    assert sorted(provinces) == list(range(1, 82))
    for plate, p in provinces.items():
        il = GM[plate]
        assert (p["name"], p["region"], p["population"]) == (il.name, il.region, il.population)
        assert p["full_milis"] == il.full_milis
        assert p["gold_yield"] == il.gold_yield
        assert p["big_city"] == il.big_city
        assert p["neighbours"] == list(GM.neighbours(plate))
        assert all(plate in provinces[n]["neighbours"] for n in p["neighbours"])  # symmetric
    assert provinces[34]["gold_yield"] == 3 and provinces[6]["name"] == "Ankara"
    regions = {r["name"]: r["plates"] for r in board["regions"]}
    assert list(regions) == list(REGIONS)
    assert sorted(p for plates in regions.values() for p in plates) == list(range(1, 82))
    assert [m["id"] for m in board["missions"]] == list(MISSIONS)
    assert all(m["name"]["tr"] and m["name"]["en"] for m in board["missions"])
    counted = {m["id"]: (m["target"], m["measure"]) for m in board["missions"] if m["target"]}
    assert counted == {
        "M-3": (10, "provinces"),
        "M-4": (3, "outside_provinces"),
        "M-7": (2, "repelled"),
        "M-8": (15, "gold"),
    }
    deck = Counter(card.card for card in news_deck())  # 25 cards
    assert {n["card"]: n["count"] for n in board["news"]} == dict(deck)
    assert [p["divans"] for p in board["perdes"]] == [[1, 6], [7, 12], [13, 16]]
    calendar = board["calendar"]
    assert (calendar["divans"], calendar["seats"], calendar["utc_offset"]) == (16, 19, "+03:00")
    assert calendar["divan_time"] == "21:00"


async def test_the_board_is_cacheable_and_answers_if_none_match_with_304(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        first = await client.get("/v1/board")
        etag = first.headers["etag"]
        assert etag.startswith('"') and "max-age=86400" in first.headers["cache-control"]
        again = await client.get("/v1/board", headers={"If-None-Match": etag})
        assert (again.status_code, again.content) == (304, b"")
        assert again.headers["etag"] == etag
        weak = await client.get("/v1/board", headers={"If-None-Match": f'"other", W/{etag}'})
        assert weak.status_code == 304
        stale = await client.get("/v1/board", headers={"If-None-Match": '"not-this-one"'})
        assert stale.status_code == 200 and stale.json() == first.json()


async def test_the_board_is_documented_as_a_typed_schema(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        doc = (await client.get("/v1/schema/openapi.json")).json()
    ok = doc["paths"]["/v1/board"]["get"]["responses"]["200"]
    ref = ok["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/StaticBoard"  # no module prefix: a unique name
    assert "security" not in doc["paths"]["/v1/board"]["get"]
