"""Read-your-writes (issue 20): a season read answers at a version at least `?min_version=`,
waiting briefly for the projection, and a season not projected yet is "not yet projected",
never "being rebuilt" (R-14: every read says the version it reflects)."""

from __future__ import annotations

import asyncio

import httpx
import redis.asyncio as aioredis

from services.projections import context
from services.projections.keys import Keys, swept
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import append_chunk, open_gateway, season_chunks

SEASON = "0" * 31 + "7"  # the shape of an id the API makes
READS = ("map", "leaderboard", "summary", "reports", "treaties", "betrayals/history")


async def _waiting(client_app: object, count: int = 1) -> None:
    """Until `count` reads wait on the process's stream hub (polled, with a deadline)."""
    hub = client_app.state.query.streams  # type: ignore[attr-defined]
    async with asyncio.timeout(10):
        while len(hub._waiters) < count:
            await asyncio.sleep(0.005)


def _not_yet(r: httpx.Response, version: int, projected: int) -> None:
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert int(r.headers["retry-after"]) > 0
    body = r.json()
    assert (body["code"], body["version"], body["projected_version"]) == (
        "not_yet_projected",
        version,
        projected,
    ), body


async def test_a_read_with_min_version_waits_for_that_version_and_answers_it(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """R-14, issue 20: after a command answered version V (or the status said Divan n is
    resolved at V), `?min_version=V` answers at V or later: the read waits for the
    projectors' announcement instead of answering the Divan before."""
    monkeypatch.setattr(
        context, "WAIT_S", 30.0, raising=False
    )  # only a wake-up ends the wait in time
    projector = Projector(memory_store, redis, prefix)
    chunks = list(season_chunks(21, SEASON))
    for n in range(3):
        await append_chunk(memory_store, SEASON, chunks[n], f"chunk/{n}")
    await projector.catch_up(SEASON)
    before = await memory_store.stream_version(SEASON)
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        r = await client.get(f"/v1/seasons/{SEASON}/map", params={"min_version": before})
        assert (r.status_code, r.json()["version"]) == (200, before)  # reached: at once
        after = await append_chunk(memory_store, SEASON, chunks[3], "chunk/3")
        reads = [
            asyncio.create_task(
                client.get(f"/v1/seasons/{SEASON}/{name}", params={"min_version": after})
            )
            for name in READS
        ]
        await _waiting(gw.app, len(READS))
        assert not any(r.done() for r in reads)  # behind: they wait, never answer Divan 2
        await projector.catch_up(SEASON)  # the projection announces `after`
        for r in await asyncio.wait_for(asyncio.gather(*reads), 10):
            assert r.status_code == 200, r.text
            assert r.json()["version"] == after
            assert r.headers["x-season-version"] == str(after)
        assert await _idle(gw.app)


async def _idle(app: object) -> bool:
    hub = app.state.query.streams  # type: ignore[attr-defined]
    return not hub._waiters and not hub._channels


async def test_a_read_behind_min_version_answers_503_not_yet_projected_in_either_language(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """issue 20: a projection that does not get there within the wait is said plainly: 503
    `not_yet_projected` with the version asked for, the read side's, and Retry-After; a version
    past the stored season's is one it has not reached, 422 naming the greatest it may ask."""
    monkeypatch.setattr(context, "WAIT_S", 0.05, raising=False)
    projector = Projector(memory_store, redis, prefix)
    chunks = list(season_chunks(22, SEASON))
    at = await append_chunk(memory_store, SEASON, chunks[0], "chunk/0")
    await projector.catch_up(SEASON)
    ahead = await append_chunk(memory_store, SEASON, chunks[1], "chunk/1")  # stored, not projected
    assert ahead > at
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        for lang, text in (
            ("tr", f"Okuma tarafı henüz {ahead}. sürümde değil (şu an {at})"),
            ("en", f"The read side has not reached version {ahead} yet (it is at {at})"),
        ):
            r = await client.get(
                f"/v1/seasons/{SEASON}/leaderboard",
                params={"min_version": ahead},
                headers={"Accept-Language": lang},
            )
            _not_yet(r, ahead, at)
            assert r.json()["detail"].startswith(text), r.json()["detail"]
        # a version the season has not reached: no wait can give it (schemathesis found the
        # 503 after a 2 s wait for min_version=14232570)
        r = await client.get(f"/v1/seasons/{SEASON}/map", params={"min_version": ahead + 1})
        assert r.status_code == 422, r.text
        assert {k: r.json()[k] for k in ("code", "field", "maximum")} == {
            "code": "invalid_parameter",
            "field": "min_version",
            "maximum": ahead,
        }
        assert await _idle(gw.app)
        for bad in ("-1", "x", "1.5", str(2**53)):
            r = await client.get(f"/v1/seasons/{SEASON}/map", params={"min_version": bad})
            assert r.status_code in (400, 422), r.text
            assert r.json()["code"] == "invalid_parameter", r.text
        doc = (await client.get("/v1/schema/openapi.json")).json()
    for path, item in doc["paths"].items():
        for method, op in item.items():
            names = {p["name"] for p in op.get("parameters", [])}
            versioned = "X-Season-Version" in op["responses"].get("200", {}).get("headers", {})
            # every read that says its version takes a version to wait for, and only those;
            # the status, a bey's own view (`/me`, read from the store's fold, as the commands)
            # and the commands say theirs (the store's: nothing to wait for)
            store_reads = ("/v1/seasons/{season_id}", "/v1/seasons/{season_id}/me")
            store_side = path in store_reads or method != "get"
            assert ("min_version" in names) == (versioned and not store_side), (method, path)
            if "min_version" in names:
                assert "not_yet_projected" in str(op["responses"]["503"]), path
    commands = ("orders", "spend", "offers", "offers/{to}/withdraw", "offers/{frm}/answer")
    for tail in (*commands, "kurultay/vote"):
        op = doc["paths"][f"/v1/seasons/{{season_id}}/{tail}"]["post"]
        assert "X-Season-Version" in op["responses"]["200"]["headers"], tail
    status = doc["paths"]["/v1/seasons/{season_id}"]["get"]["responses"]["200"]
    assert "X-Season-Version" in status["headers"]


async def test_a_new_season_is_not_yet_projected_never_being_rebuilt(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """issue 20: right after `POST /seasons` the season's first projection is being made:
    a read waits for it and answers it; if it takes longer than the wait, 503
    `not_yet_projected` (Retry-After), never `projection_rebuilding` (nothing is rebuilt)."""
    projector = Projector(memory_store, redis, prefix)
    await projector.sweep()  # the read side has swept: Redis holds every projected season
    assert await redis.exists(swept(prefix))
    chunks = list(season_chunks(23, SEASON))
    await append_chunk(memory_store, SEASON, chunks[0], "chunk/0")
    # a projector has begun the season's first generation (RELIABILITY 21's marker)
    await redis.set(Keys.building(prefix, SEASON), "1")
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        monkeypatch.setattr(context, "WAIT_S", 0.05, raising=False)
        r = await client.get(f"/v1/seasons/{SEASON}/map")
        _not_yet(r, 1, 0)
        monkeypatch.setattr(context, "WAIT_S", 30.0, raising=False)
        read = asyncio.create_task(client.get(f"/v1/seasons/{SEASON}/summary"))
        await _waiting(gw.app)
        await projector.catch_up(SEASON)  # the first generation is switched in: announced
        r = await asyncio.wait_for(read, 10)
        assert r.status_code == 200, r.text
        assert r.json()["version"] == await memory_store.stream_version(SEASON)
        assert gw.rebuilds == []  # nothing was asked to be rebuilt


async def test_a_season_just_created_is_waited_for_before_any_projector_began_it(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """issue 20: in the first milliseconds after `POST /seasons` no projector has begun the
    season and nothing in Redis names it; the store does, so a read waits for its first
    projection and answers it (it said 404 `season_not_found`), and, if none comes in time,
    503 `not_yet_projected`. An id of the API's shape the store does not hold is 404 at once,
    with or without a version named."""
    monkeypatch.setattr(context, "WAIT_S", 30.0, raising=False)
    projector = Projector(memory_store, redis, prefix)
    await projector.sweep()
    second = "0" * 31 + "6"
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        for seed, (season_id, named) in enumerate(((SEASON, False), (second, True))):
            chunk = next(season_chunks(24 + seed, season_id))
            at = await append_chunk(memory_store, season_id, chunk, "chunk/0")
            params = {"min_version": at} if named else {}
            read = asyncio.create_task(client.get(f"/v1/seasons/{season_id}/map", params=params))
            await _waiting(gw.app)
            await projector.catch_up(season_id)
            r = await asyncio.wait_for(read, 10)
            assert (r.status_code, r.json()["version"]) == (200, at), r.text
        nobody = "0" * 31 + "9"
        for params in ({}, {"min_version": 1}):
            r = await asyncio.wait_for(
                client.get(f"/v1/seasons/{nobody}/map", params=params), 10
            )  # 30 s of waiting would not fit: answered at once
            assert (r.status_code, r.json()["code"]) == (404, "season_not_found"), r.text
        later = "0" * 31 + "8"
        await append_chunk(memory_store, later, next(season_chunks(25, later)), "chunk/0")
        monkeypatch.setattr(context, "WAIT_S", 0.05, raising=False)
        _not_yet(await client.get(f"/v1/seasons/{later}/summary"), 1, 0)
        assert await _idle(gw.app)


async def test_reads_waiting_are_capped_per_process_and_answer_at_once_over_it(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """issue 20: at most `waiters` reads of a process wait for a version at once (one
    subscription each on the hub's connection); over it a read behind answers 503
    `not_yet_projected` at once instead of piling up, and the first ones still get theirs."""
    monkeypatch.setattr(context, "WAIT_S", 30.0, raising=False)
    projector = Projector(memory_store, redis, prefix)
    chunks = list(season_chunks(26, SEASON))
    at = await append_chunk(memory_store, SEASON, chunks[0], "chunk/0")
    await projector.catch_up(SEASON)
    after = await append_chunk(memory_store, SEASON, chunks[1], "chunk/1")
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        gw.app.state.query.streams.waiters = 2
        url = f"/v1/seasons/{SEASON}/map"
        first = [
            asyncio.create_task(client.get(url, params={"min_version": after})) for _ in range(2)
        ]
        await _waiting(gw.app, 2)
        r = await asyncio.wait_for(client.get(url, params={"min_version": after}), 10)
        _not_yet(r, after, at)  # the third: over the cap, answered without waiting 30 s
        await projector.catch_up(SEASON)
        for r in await asyncio.wait_for(asyncio.gather(*first), 10):
            assert (r.status_code, r.json()["version"]) == (200, after), r.text
        assert await _idle(gw.app)
