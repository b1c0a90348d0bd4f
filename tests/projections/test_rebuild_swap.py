"""Rebuild and swap under read load (RELIABILITY 21), a wiped Redis heals itself (RELIABILITY 22)."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections import projector as projector_module
from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.live_calendar import CREATED_AT
from tests.projections.support import (
    append_chunk,
    assert_rebuild_equal,
    delete_prefix,
    generation_dump,
    global_dump,
    keys_matching,
    open_gateway,
    season_chunks,
)

pytestmark = pytest.mark.fault  # RELIABILITY tests: never skipped silently in CI
READS = ("leaderboard", "titles")
# ids of the shape the API makes (tokens.new_season_id) for seasons with no events: only such an
# id can be a season lost in a flush (503 and a rebuild); any other is 404 at once
NOT_REBUILT = "0" * 31 + "2"
NOPE = "0" * 31 + "3"


async def _project_divans(
    store: InMemoryEventStore, projector: Projector, season_id: str, seed: int, upto: int
) -> list[list]:
    chunks = list(season_chunks(seed, season_id))
    for n, chunk in enumerate(chunks[:upto]):
        await append_chunk(store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
    return chunks


async def _season_keys(redis: aioredis.Redis, prefix: str, season_id: str) -> list[str]:
    return await keys_matching(redis, f"{prefix}:{{s:{season_id}}}:g[0-9]*")


# --- RELIABILITY 21 ------------------------------------------------------------------------------
async def test_rebuild_and_swap_under_read_load_answers_every_read_in_full(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    season_id = "swap"
    projector = Projector(memory_store, redis, prefix)
    await _project_divans(memory_store, projector, season_id, 13, upto=11)
    old_gen = await projector.active_gen(season_id)
    old_dump = await generation_dump(redis, prefix, season_id)
    monkeypatch.setattr(projector_module, "BATCH", 8)  # many round trips: reads interleave
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        expected = {}
        for name in READS:
            r = await client.get(f"/v1/seasons/{season_id}/{name}")
            assert r.status_code == 200, r.text
            expected[name] = r.content
        assert len(r.json()["regions"]) > 0
        rebuilding = asyncio.Event()
        done = asyncio.Event()
        seen: list[tuple[str, bool, int, bytes]] = []

        async def reader(name: str) -> None:
            await rebuilding.wait()
            for _ in range(400):  # bounded: at most 400 reads per reader
                r = await client.get(f"/v1/seasons/{season_id}/{name}")
                seen.append((name, not done.is_set(), r.status_code, r.content))
                if done.is_set() and sum(1 for s in seen if not s[1]) >= 20:
                    return

        async def rebuild() -> None:
            rebuilding.set()
            await asyncio.sleep(0)
            await Projector(memory_store, redis, prefix).rebuild(season_id)
            done.set()

        await asyncio.wait_for(
            asyncio.gather(rebuild(), *(reader(n) for n in READS for _ in range(3))), 60
        )
    during = [s for s in seen if s[1]]
    assert len(during) >= 10, "the reads did not overlap the rebuild"
    for name, _during, status, body in seen:
        assert status == 200, body
        assert body == expected[name]  # never empty, never partial: the whole old or new view
    new_gen = await projector.active_gen(season_id)
    assert new_gen is not None and old_gen is not None and new_gen > old_gen
    assert await generation_dump(redis, prefix, season_id) == old_dump
    assert await generation_dump(redis, prefix, season_id, old_gen) == old_dump  # still readable
    old_keys = await keys_matching(redis, f"{Keys(prefix, season_id, old_gen).base}:*")
    assert old_keys
    for key in old_keys:
        ttl = await redis.pttl(key)
        assert 0 < ttl <= projector_module.OLD_GENERATION_TTL_MS, (key, ttl)
    assert not await redis.exists(Keys.building(prefix, season_id))


async def test_the_old_generation_is_gone_after_its_ttl(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    season_id = "expiring"
    projector = Projector(memory_store, redis, prefix)
    await _project_divans(memory_store, projector, season_id, 14, upto=4)
    old = Keys(prefix, season_id, int(await projector.active_gen(season_id) or 0)).base
    monkeypatch.setattr(projector_module, "OLD_GENERATION_TTL_MS", 50)
    await projector.rebuild(season_id)
    async with asyncio.timeout(10):
        while await keys_matching(redis, f"{old}:*"):
            await asyncio.sleep(0.02)
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    # the projection goes on in the new generation
    chunks = list(season_chunks(14, season_id))
    await append_chunk(memory_store, season_id, chunks[4], "chunk/4")
    assert await projector.catch_up(season_id) == len(chunks[4])
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


# --- RELIABILITY 22 ------------------------------------------------------------------------------
async def _expect_rebuilding(client: httpx.AsyncClient, path: str) -> None:
    r = await client.get(path)
    assert r.status_code == 503, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert int(r.headers["retry-after"]) > 0
    assert r.json()["code"] == "projection_rebuilding"


@pytest.mark.fault
async def test_a_flushed_redis_answers_503_then_rebuilds_from_event_1_to_the_same_dump(
    memory_store: InMemoryEventStore, wipeable_redis_url: str, redis_key_prefix: str
):
    redis = aioredis.Redis.from_url(wipeable_redis_url)
    prefix = f"{redis_key_prefix}wipe"
    season_id = "0" * 31 + "1"  # the shape of an id the API makes (a wiped season)
    try:
        projector = Projector(memory_store, redis, prefix)
        chunks = await _project_divans(memory_store, projector, season_id, 15, upto=9)
        before = await generation_dump(redis, prefix, season_id)
        globals_before = await global_dump(redis, prefix)
        # one instant for every read: the summary's lock countdown is computed at the read
        async with open_gateway(memory_store, redis, prefix, lambda: CREATED_AT) as (gw, client):
            paths = [
                f"/v1/seasons/{season_id}/{name}"
                for name in ("leaderboard", "titles", "map", "summary")
            ]
            bodies = [(await client.get(p)).content for p in paths]
            assert await redis.flushdb()
            for path in paths:
                await _expect_rebuilding(client, path)  # not an empty leaderboard
            assert set(gw.rebuilds) == {season_id}  # the read side asked the projectors to rebuild
            version = await memory_store.stream_version(season_id)
            assert await projector.catch_up(season_id) == version  # the wipe is seen: from event 1
            # until a whole sweep has healed every season, an unknown one may be a missing one
            await _expect_rebuilding(client, f"/v1/seasons/{NOT_REBUILT}/summary")
            await projector.sweep()
            assert (await client.get(f"/v1/seasons/{NOT_REBUILT}/summary")).status_code == 404
            assert await generation_dump(redis, prefix, season_id) == before
            assert await global_dump(redis, prefix) == globals_before
            assert [(await client.get(p)).content for p in paths] == bodies
        for n, chunk in enumerate(chunks[9:], start=9):  # and the season goes on
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
        await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    finally:
        await redis.flushdb()
        await redis.aclose()


async def test_a_season_being_rebuilt_answers_503_without_asking_again(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "building"
    projector = Projector(memory_store, redis, prefix)
    await _project_divans(memory_store, projector, season_id, 16, upto=2)
    await redis.delete(Keys.active(prefix, season_id))
    await redis.set(Keys.building(prefix, season_id), "7")
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        await _expect_rebuilding(client, f"/v1/seasons/{season_id}/leaderboard")
        assert gw.rebuilds == []
    assert await projector.catch_up(season_id) == await memory_store.stream_version(season_id)
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


# --- races around the switch ---------------------------------------------------------------------
async def _orphans(redis: aioredis.Redis, prefix: str, season_id: str) -> list[str]:
    """Keys of a generation that is not the active one and that will never expire."""
    active = int(await redis.get(Keys.active(prefix, season_id)) or 0)
    live = Keys(prefix, season_id, active).base + ":"
    return [
        k
        for k in await _season_keys(redis, prefix, season_id)
        if not k.startswith(live) and await redis.pttl(k) == -1
    ]


async def test_two_rebuilds_at_once_leave_no_generation_behind(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "double-rebuild"
    projector = Projector(memory_store, redis, prefix)
    await _project_divans(memory_store, projector, season_id, 18, upto=3)
    first, second = Projector(memory_store, redis, prefix), Projector(memory_store, redis, prefix)
    entered, release = asyncio.Event(), asyncio.Event()
    real = second.sink.switch

    async def gated(*args, **kwargs):
        entered.set()
        await release.wait()
        return await real(*args, **kwargs)

    second.sink.switch = gated  # type: ignore[method-assign]
    late = asyncio.create_task(second.rebuild(season_id))
    await asyncio.wait_for(entered.wait(), 10)
    await first.rebuild(season_id)
    release.set()
    await asyncio.wait_for(late, 10)
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    assert await _orphans(redis, prefix, season_id) == []


async def test_a_catch_up_racing_the_switch_leaves_no_generation_behind(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "racing-switch"
    projector = Projector(memory_store, redis, prefix)
    chunks = await _project_divans(memory_store, projector, season_id, 19, upto=3)
    await append_chunk(memory_store, season_id, chunks[3], "chunk/3")
    entered, release = asyncio.Event(), asyncio.Event()
    real = projector.sink.apply

    async def gated(*args, **kwargs):
        entered.set()
        await release.wait()
        return await real(*args, **kwargs)

    projector.sink.apply = gated  # type: ignore[method-assign]
    catching_up = asyncio.create_task(projector.catch_up(season_id))
    await asyncio.wait_for(entered.wait(), 10)
    await Projector(memory_store, redis, prefix).rebuild(season_id)
    release.set()
    await asyncio.wait_for(catching_up, 10)
    projector.sink.apply = real  # type: ignore[method-assign]
    await projector.catch_up(season_id)
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    assert await _orphans(redis, prefix, season_id) == []


async def test_reads_of_unknown_seasons_leave_nothing_in_redis(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        for n in range(3):
            r = await client.get(f"/v1/seasons/no-such-season-{n}/map")
            assert r.status_code in (404, 503), r.text
            r = await client.get(f"/v1/seasons/{n:032x}/map")
            assert r.status_code in (404, 503), r.text
        projector = Projector(memory_store, redis, prefix)
        for season_id in gw.rebuilds:
            await projector.rebuild(season_id)
    assert await keys_matching(redis, f"{prefix}:*") == []


async def test_cleanup_helper_removes_a_prefix(redis: aioredis.Redis, prefix: str):
    await redis.set(f"{prefix}:x", "1")
    await delete_prefix(redis, prefix)
    assert await keys_matching(redis, f"{prefix}:*") == []


async def test_a_server_with_no_season_yet_answers_404_once_swept(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Before any sweep, an empty read side looks like a wiped one: 503 and a rebuild request.
    After the first sweep (which finds nothing), an unknown season is simply unknown: 404, and
    no rebuild is asked for (a stranger cannot make the read side enqueue work)."""
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        await _expect_rebuilding(client, f"/v1/seasons/{NOPE}/summary")
        assert gw.rebuilds == [NOPE]
        assert await Projector(memory_store, redis, prefix).sweep() == 0
        r = await client.get(f"/v1/seasons/{NOPE}/summary")
        assert r.status_code == 404, r.text
        assert r.json()["code"] == "season_not_found"
        assert gw.rebuilds == [NOPE]


async def test_a_new_seasons_first_generation_never_scans_the_keyspace(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """The surge (issue 12, bench.live_surge): 1,000 new seasons were projected in quadratic
    time, each first build scanning every key of Redis for older generations it cannot have.
    A first generation retires nothing; a later rebuild still retires the older ones."""
    scans: list[str] = []
    original = redis.scan_iter

    def counting(*args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        scans.append(str(kwargs.get("match")))
        return original(*args, **kwargs)  # type: ignore[arg-type]

    redis.scan_iter = counting  # type: ignore[method-assign]
    projector = Projector(memory_store, redis, prefix)
    await _project_divans(memory_store, projector, "first", 15, upto=2)
    assert scans == []
    await projector.rebuild("first")
    assert scans == []  # generation 2 retires generation 1 by its names (ADR-148)
    assert [
        k
        for k in await _season_keys(redis, prefix, "first")
        if "g1:" in k and await redis.pttl(k) == -1
    ] == []


@pytest.mark.parametrize(
    "name", ["map", "leaderboard", "titles", "summary", "reports", "battles/1"]
)
async def test_issue_11_a_path_that_is_no_season_id_is_404_even_before_any_sweep(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, name: str
):
    """`GET /v1/seasons/<not-an-id>/map` is 404 season_not_found (listed in the operation's
    OpenAPI answers), not 503 projection_rebuilding, even on a read side that has not swept
    yet (which answers 503 for an id the API could have made); and no rebuild is asked for."""
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        for lang, text in (("tr", "Böyle bir sezon yok"), ("en", "There is no such season")):
            r = await client.get(f"/v1/seasons/not-an-id/{name}", headers={"Accept-Language": lang})
            assert r.status_code == 404, r.text
            assert r.headers["content-type"].startswith("application/problem+json")
            assert (r.json()["code"], r.json()["detail"]) == ("season_not_found", text)
        assert gw.rebuilds == []
        doc = (await client.get("/v1/schema/openapi.json")).json()
        template = "/v1/seasons/{season_id}/" + name.replace("/1", "/{divan}")
        assert "404" in doc["paths"][template]["get"]["responses"]


async def test_an_older_rebuild_switching_leaves_a_newer_one_under_way_whole_and_flagged(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """RELIABILITY 21, issue 20 item 10 (a worker's generation went 3 -> 4 under load): two
    rebuilds of one season at once (a sweeper and a wake-up both finding no active view), the
    older generation finishing while the newer one is half built. The older one's switch must
    not clear the building flag of the newer one (readers and ops would take the season as
    settled and see its generation move later), and its retire must not give the newer one's
    keys an expiry (its next batch was then refused as `retired`, it switched to a half-built
    generation anyway, and that one expired 30 s later into yet another rebuild)."""
    season_id = "overlapping-rebuilds"
    await _project_divans(memory_store, Projector(memory_store, redis, prefix), season_id, 20, 4)
    monkeypatch.setattr(projector_module, "BATCH", 8)  # the newer one pauses after a batch
    older, newer = Projector(memory_store, redis, prefix), Projector(memory_store, redis, prefix)
    older_in, older_go, newer_in, newer_go = (asyncio.Event() for _ in range(4))

    def gate(projector: Projector, entered: asyncio.Event, go: asyncio.Event, after: int) -> None:
        real, calls = projector.sink.apply, []

        async def gated(*args, **kwargs):
            calls.append(1)
            if len(calls) == after:
                entered.set()
                await go.wait()
            return await real(*args, **kwargs)

        projector.sink.apply = gated  # type: ignore[method-assign]

    gate(older, older_in, older_go, after=1)  # before its first batch
    gate(newer, newer_in, newer_go, after=2)  # with one batch of its own generation written
    first = asyncio.create_task(older.rebuild(season_id))
    await asyncio.wait_for(older_in.wait(), 10)
    second = asyncio.create_task(newer.rebuild(season_id))
    await asyncio.wait_for(newer_in.wait(), 10)
    older_go.set()
    await asyncio.wait_for(first, 10)  # the older generation is active now
    older_gen = await older.active_gen(season_id)
    newer_keys = await keys_matching(redis, f"{Keys(prefix, season_id, older_gen + 1).base}:*")
    assert newer_keys, "the newer rebuild wrote nothing before the older one switched"
    assert await redis.exists(Keys.building(prefix, season_id)), "a rebuild is still under way"
    assert [k for k in newer_keys if await redis.pttl(k) != -1] == []
    held = await redis.smembers(Keys.held(prefix, season_id))
    assert str(older_gen + 1).encode() in held  # still recorded: it may write (ADR-148)
    newer_go.set()
    await asyncio.wait_for(second, 10)
    assert await newer.active_gen(season_id) == older_gen + 1
    assert not await redis.exists(Keys.building(prefix, season_id))
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    live = await keys_matching(redis, f"{Keys(prefix, season_id, older_gen + 1).base}:*")
    assert [k for k in live if await redis.pttl(k) != -1] == []  # the active view never expires
    assert await _orphans(redis, prefix, season_id) == []
