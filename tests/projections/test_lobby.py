"""`GET /v1/lobby` (issue 23): the listed live seasons open for registration, soonest close
first, with free seats that shrink with joins; unlisted, cancelled and closed seasons are not
in it; paged; cacheable (an ETag and 304); names shown on every public read."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import httpx
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, SEASON_NOW, bearer, open_gateway


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def create(client: httpx.AsyncClient, close: datetime, **body: Any) -> dict[str, Any]:
    json = {"mode": "live", "registration_closes_at": close.isoformat(), **body}
    r = await client.post("/v1/seasons", json=json)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


async def lobby(client: httpx.AsyncClient, **params: Any) -> dict[str, Any]:
    r = await client.get("/v1/lobby", params=params)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_the_lobby_lists_listed_live_seasons_in_registration_by_close(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 23: listed / unlisted, free seats shrinking with joins, paging, ETag, and the
    seasons whose registration closed (by the clock or cancelled) gone."""
    clock = Clock(SEASON_NOW)
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix, clock=clock) as (_gw, client):
        soon = await create(client, SEASON_NOW + timedelta(hours=3), memleket=6, name="Ayşe")
        hidden = await create(client, SEASON_NOW + timedelta(hours=2), listed=False)
        later = await create(
            client, SEASON_NOW + timedelta(hours=4), description="<b>Akşamcılar</b> &amp;"
        )
        await create(client, SEASON_NOW + timedelta(hours=5))  # one to cancel
        trial = await client.post("/v1/seasons", json={"memleket": 6})
        ids = [soon["season_id"], hidden["season_id"], later["season_id"]]
        for season_id in await memory_store.list_seasons():
            await projector.catch_up(season_id)
        seasons = (await lobby(client))["seasons"]
        assert hidden["season_id"] not in [s["season_id"] for s in seasons]
        assert trial.json()["season_id"] not in [s["season_id"] for s in seasons]
        assert [s["season_id"] for s in seasons][:2] == [ids[0], ids[2]]  # soonest close first
        first, second = seasons[0], seasons[1]
        assert first["free_seats"] == 18 and second["free_seats"] == 19
        assert first["registration_closes_at"] == soon["calendar"]["registration_closes_at"]
        assert first["first_divan_at"] == soon["calendar"]["divans"][0]["at"]
        assert second["description"] == "<b>Akşamcılar</b> &amp;"  # as written: text, never markup
        # free seats shrink with joins
        r = await client.post(f"/v1/seasons/{ids[0]}/join", json={"memleket": 34})
        assert r.status_code == 201, r.text
        await projector.catch_up(ids[0])
        assert (await lobby(client))["seasons"][0]["free_seats"] == 17
        # paged, and cacheable
        page = await lobby(client, limit=1)
        assert ([s["season_id"] for s in page["seasons"]], page["next_offset"]) == ([ids[0]], 1)
        page = await lobby(client, limit=1, offset=1)
        assert [s["season_id"] for s in page["seasons"]] == [ids[2]]
        r = await client.get("/v1/lobby")
        again = await client.get("/v1/lobby", headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304
        # a cancelled season leaves at once; one whose close has passed leaves with the clock
        last = (await lobby(client))["seasons"][-1]["season_id"]
        admin = f"/v1/seasons/{last}/admin/cancel"
        r = await client.post(admin, json={"reason": "test"}, headers=bearer(OPS_TOKEN))
        assert r.status_code == 200, r.text
        await projector.catch_up(last)
        assert last not in [s["season_id"] for s in (await lobby(client))["seasons"]]
        clock.now = SEASON_NOW + timedelta(hours=3, seconds=1)
        assert [s["season_id"] for s in (await lobby(client))["seasons"]] == [ids[2]]


async def test_names_are_on_every_public_read_of_a_season(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-15.5: the leaderboard's beys carry their names; titles, treaties, reports and
    betrayals carry `names` (seat -> name) for the seats they refer to."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "name": "O'Brien"})
        sid = r.json()["season_id"]
        await projector.catch_up(sid)
        board = (await client.get(f"/v1/seasons/{sid}/leaderboard")).json()["leaderboard"]
        named = {b["seat"]: b["name"] for b in board}
        assert named[1] == "O'Brien" and len(named) == 19
        for read in ("titles", "treaties", "reports", "betrayals"):
            body = (await client.get(f"/v1/seasons/{sid}/{read}")).json()
            assert body["names"] == {str(s): n for s, n in named.items()}, read
        status = (await client.get(f"/v1/seasons/{sid}")).json()
        assert {b["seat"]: b["name"] for b in status["beys"]} == named


async def test_a_full_season_leaves_the_lobby(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 23, R-1.4: the 19th join closes registration at once: the season leaves."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        sid = (await create(client, SEASON_NOW + timedelta(hours=3)))["season_id"]
        for plate in range(1, 19):
            r = await client.post(f"/v1/seasons/{sid}/join", json={"memleket": plate})
            assert r.status_code == 201, r.text
        await projector.catch_up(sid)
        assert [(s["season_id"], s["free_seats"]) for s in (await lobby(client))["seasons"]] == [
            (sid, 1)
        ]
        r = await client.post(f"/v1/seasons/{sid}/join", json={"memleket": 40})
        assert r.status_code == 201, r.text
        await projector.catch_up(sid)
        assert (await lobby(client))["seasons"] == []


async def test_an_ops_description_reset_leaves_the_season_in_the_lobby_without_one(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-15.2, ADR-105: after ops reset a description the lobby lists the season with none,
    and the auditor's export (redacted, during the season) shows the act: by ops, the reason
    and the instant, as a name's reset."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        sid = (await create(client, SEASON_NOW + timedelta(hours=3), description="Kaba söz"))[
            "season_id"
        ]
        await projector.catch_up(sid)
        assert [s["description"] for s in (await lobby(client))["seasons"]] == ["Kaba söz"]
        url = f"/v1/ops/seasons/{sid}/description/reset"
        r = await client.post(url, json={"reason": "hakaret"}, headers=bearer(OPS_TOKEN))
        assert r.status_code == 200, r.text
        await projector.catch_up(sid)
        seasons = (await lobby(client))["seasons"]
        assert [(s["season_id"], s["description"]) for s in seasons] == [(sid, None)]
        r = await client.get(f"/v1/seasons/{sid}/export", headers=bearer(AUDITOR_TOKEN))
        assert r.status_code == 200, r.text
        lines = [json.loads(x) for x in r.content.splitlines()[1:]]
        listed = [x for x in lines if x["type"] == "season_listed.v1"]
        assert [json.loads(x["data"]) for x in listed][-1] == {
            "type": "season_listed.v1",
            "by": "ops",
            "reason": "hakaret",
            "at": json.loads(listed[-1]["data"])["at"],
        }
        assert json.loads(listed[0]["data"])["description"] == "Kaba söz"
        assert listed[-1]["metadata"]["actor"] == "ops"
