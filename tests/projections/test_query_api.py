"""The query API: reads say which season version they reflect; the event stream delivers reports."""

from __future__ import annotations

import asyncio
from collections import Counter

import redis.asyncio as aioredis

from services.projections.keys import Keys, swept
from services.projections.projector import Projector
from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.domain.evolve import fold
from shared.domain.state import SeasonState
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import canaries, mission_lists
from tests.projections.sse import Stream, served
from tests.projections.support import Gateway, append_chunk, bearer, open_gateway, season_chunks

VERSIONED = ("map", "leaderboard", "titles", "treaties", "reports", "betrayals", "summary")


# --- 7: which version a read reflects -----------------------------------------------------------
async def test_every_read_names_the_season_version_it_reflects(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "versioned"
    projector = Projector(memory_store, redis, prefix)
    chunks = list(season_chunks(60, season_id))
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, chunk in enumerate(chunks[:5]):
            version = await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
            for name in VERSIONED:
                r = await client.get(f"/v1/seasons/{season_id}/{name}")
                assert r.status_code == 200, r.text
                assert r.headers["x-season-version"] == str(version)
                assert r.json()["version"] == version
                assert r.json()["season_id"] == season_id
        # the projection lags the store: reads still say the version they show
        ahead = await append_chunk(memory_store, season_id, chunks[5], "chunk/5")
        r = await client.get(f"/v1/seasons/{season_id}/leaderboard")
        assert r.headers["x-season-version"] == str(version)
        assert (await client.get(f"/v1/seasons/{season_id}")).json()["version"] == ahead
        await projector.catch_up(season_id)
        r = await client.get(f"/v1/seasons/{season_id}/leaderboard")
        assert (r.headers["x-season-version"], r.json()["version"]) == (str(ahead), ahead)
        listed = (await client.get("/v1/seasons/all")).json()["seasons"]
        assert [(s["season_id"], s["version"]) for s in listed] == [(season_id, ahead)]


async def test_the_season_list_shows_the_newest_seasons(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    projector = Projector(memory_store, redis, prefix)
    ids = [f"season-{n:03d}" for n in range(201)]  # created in lexical order: the newest is last
    for seed, season_id in enumerate(ids):
        await append_chunk(memory_store, season_id, next(season_chunks(seed, season_id)), "setup")
        await projector.catch_up(season_id)
    await redis.delete(Keys.active(prefix, ids[-2]))  # a projection gone (a rebuild is due)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        seasons = (await client.get("/v1/seasons/all")).json()["seasons"]
    assert [s["season_id"] for s in seasons] == ids[::-1][:200]  # newest first, 200 at most
    assert seasons[1] == {"season_id": ids[-2], "status": "rebuilding"}
    for s in [seasons[0], *seasons[2:]]:
        assert s["version"] == await memory_store.stream_version(s["season_id"])
    # issue 20: once a sweep has run, a listed season not readable yet is a new one whose
    # first projection is under way: not yet projected, never "rebuilding"
    await redis.set(swept(prefix), "1")
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        seasons = (await client.get("/v1/seasons/all")).json()["seasons"]
    assert seasons[1] == {"season_id": ids[-2], "status": "not_yet_projected"}


# --- 6: server-sent events ----------------------------------------------------------------------
async def test_the_event_stream_delivers_the_divan_report_publicly_and_privately(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    gw = Gateway(memory_store, redis, prefix)
    projector = Projector(memory_store, redis, prefix)
    async with served(gw) as client:
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        assert r.status_code == 201, r.text
        season_id, token = r.json()["season_id"], r.json()["token"]
        await projector.catch_up(season_id)
        r = await client.post(f"/v1/seasons/{season_id}/tickets", headers=bearer(token))
        assert r.status_code == 201, r.text
        ticket = r.json()["ticket"]
        public = Stream(client, f"/v1/seasons/{season_id}/events")
        private = Stream(client, f"/v1/seasons/{season_id}/events?ticket={ticket}")
        try:
            assert await asyncio.wait_for(public.status, 10) == 200
            assert await asyncio.wait_for(private.status, 10) == 200
            ready, _ = await public.until("ready")
            assert ready.data == ['{"channels":1}']
            ready, _ = await private.until("ready")
            assert ready.data == ['{"channels":2}']
            # the ticket was single use
            again = await client.get(f"/v1/seasons/{season_id}/events", params={"ticket": ticket})
            assert again.status_code == 401
            assert again.json()["code"] == "bad_ticket"
            # a Divan with a battle of the human's own (so it has a private report)
            order = {"province": 6, "kind": "advance", "target": 71, "units": 11}
            r = await client.post(
                f"/v1/seasons/{season_id}/orders", json={"orders": [order]}, headers=bearer(token)
            )
            assert r.status_code == 200, r.text
            r = await client.post(
                f"/v1/seasons/{season_id}/divans", json={"divan": 1}, headers=bearer(token)
            )
            assert r.status_code == 202, r.text
            assert gw.enqueued == [(season_id, 1)]
            assert await resolve(Seasons(memory_store), season_id, 1) == "resolved"
            await projector.catch_up(season_id)
            report, before = await public.until("divan_report")
            assert report.data == ['{"divan":1,"type":"divan_report"}']
            mine, before_private = await private.until("private_report")
            assert mine.data == ['{"divan":1,"type":"private_report"}']
            for frame in before + before_private:
                # a frame is a named event with data, or a comment: never an anonymous message
                assert frame.event is not None or frame.data == [], frame
                assert canaries(frame.data) == []
                assert mission_lists(frame.data) == []
            assert all(f.event != "private_report" for f in before)
        finally:
            await public.close()
            await private.close()


async def test_tickets_are_bound_to_their_season_and_need_a_bey_token(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        seasons = []
        for memleket in (6, 34):
            body = (
                await client.post("/v1/seasons", json={"memleket": memleket, "seed": "3"})
            ).json()
            await projector.catch_up(body["season_id"])
            seasons.append(body)
        first, second = seasons
        assert (await client.post(f"/v1/seasons/{first['season_id']}/tickets")).status_code == 401
        r = await client.post(
            f"/v1/seasons/{first['season_id']}/tickets", headers=bearer(second["token"])
        )
        assert r.status_code == 403
        ticket = (
            await client.post(
                f"/v1/seasons/{first['season_id']}/tickets", headers=bearer(first["token"])
            )
        ).json()["ticket"]
        r = await client.get(f"/v1/seasons/{second['season_id']}/events", params={"ticket": ticket})
        assert r.status_code == 401
        assert r.json()["code"] == "bad_ticket"
        r = await client.get(
            f"/v1/seasons/{first['season_id']}/private", params={"token": first["token"]}
        )
        assert r.status_code == 400  # a token in the URL is refused, never taken as a credential
        assert r.json()["code"] == "token_in_query"
        assert (
            await redis.exists(f"{prefix}:ticket:{ticket}") == 0
        )  # used up even by a wrong season


async def test_the_han_memleket_board_counts_each_season_once(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """GET /boards/han-memleket: Hans by memleket, over the seasons that count (R-1.5);
    a repeated catch-up or a rebuild of a season counts it no twice."""
    projector = Projector(memory_store, redis, prefix)
    expected: Counter[int] = Counter()
    for seed, counts in ((3, True), (5, True), (9, True), (11, False)):
        season_id = f"board-{seed}"
        state = SeasonState()
        for n, chunk in enumerate(season_chunks(seed, season_id, counts_on_boards=counts)):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            state = fold(chunk, state)
        await projector.catch_up(season_id)
        han = state.bey(state.han or 0)
        if counts and han is not None:
            expected[han.memleket] += 1
    await projector.rebuild("board-3")
    await Projector(memory_store, redis, prefix).catch_up("board-5")
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        rows = (await client.get("/v1/boards/han-memleket")).json()["rows"]
    assert sum(expected.values()) == 3
    assert rows == [
        {"memleket": plate, "hans": n}
        for plate, n in sorted(expected.items(), key=lambda x: (-x[1], x[0]))
    ]
