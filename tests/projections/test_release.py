"""ADR-158 (issue 27): the read models of a season quiet for the release period (no event, no
read) leave Redis; its next read answers 503 `projection_rebuilding` once and rebuilds them, the
same key by key; a new event brings it back; no sweep rebuilds it meanwhile; an interrupted
release is finished (or undone) by the next pass."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import pytest
import redis.asyncio as aioredis

from entrypoints import metrics
from services.projections import release as release_module
from services.projections.keys import Keys
from services.projections.positions import positions
from services.projections.projector import Projector
from services.projections.reads import ActiveGens, read
from services.projections.release import (
    ROW_FIELDS,
    Held,
    Releaser,
    released_key,
    released_rows,
    releasing_key,
    to_release,
)
from shared.eventstore import InMemoryEventStore
from tests.projections.support import (
    append_chunk,
    bearer,
    canonical,
    generation_dump,
    keys_matching,
    new_bey_token,
    open_gateway,
    rebuilt_dump,
    season_chunks,
)

pytestmark = pytest.mark.integration

WEEK = 7 * 86_400.0


# --- the pure part: which seasons a pass releases -------------------------------------------
def _held(season_id: str, seen: float | None) -> Held:
    return Held(season_id, 1, 10, seen, "over")


@pytest.mark.parametrize(
    ("seen", "now", "after", "lobby", "released"),
    [
        (1000.0, 1000.0 + WEEK, WEEK, set(), True),  # quiet for the whole period
        (1000.0, 1000.0 + WEEK - 1, WEEK, set(), False),  # a second short of it
        (None, 10 * WEEK, WEEK, set(), False),  # never noted: its clock starts now
        (1000.0, 1000.0 + WEEK, 0.0, set(), False),  # 0: release off
        (1000.0, 1000.0 + WEEK, WEEK, {"s"}, False),  # open for registration in the lobby
    ],
)
def test_a_season_is_released_after_the_period_without_event_or_read(
    seen: float | None, now: float, after: float, lobby: set[str], released: bool
):
    assert (to_release([_held("s", seen)], now, after, lobby) != []) is released


# --- with Redis -------------------------------------------------------------------------------
def _id() -> str:
    return secrets.token_hex(16)  # the shape of the ids the API makes


async def _project(
    store: InMemoryEventStore, projector: Projector, season_id: str, chunks: int | None = None
) -> list[list]:
    """The season's first `chunks` chunks (all: a finished season), each caught up live."""
    every = list(season_chunks(61, season_id))
    for n, chunk in enumerate(every[:chunks]):
        await append_chunk(store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
    return every


async def now(redis: aioredis.Redis) -> float:
    """The wall clock as Redis tells it (the tests read no clock of their own; the projector
    and the reads note theirs)."""
    seconds, _micro = await redis.time()
    return float(seconds)


async def later(redis: aioredis.Redis, seconds: float) -> Callable[[], float]:
    """The release pass's clock, standing `seconds` from now."""
    at = await now(redis) + seconds
    return lambda: at


async def _season_keys(redis: aioredis.Redis, prefix: str, season_id: str) -> list[str]:
    return await keys_matching(redis, f"{prefix}:{{s:{season_id}}}:g[0-9]*")


async def test_a_finished_season_is_released_after_the_period_and_not_before(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = _id()
    projector = Projector(memory_store, redis, prefix)
    await _project(memory_store, projector, season_id)
    assert (await generation_dump(redis, prefix, season_id))["meta"]["phase"] == '"over"'
    held = await _season_keys(redis, prefix, season_id)

    early = await Releaser(redis, prefix, WEEK, await later(redis, WEEK - 60)).run()
    assert early is not None and early.released == 0 and early.held == 1
    assert await _season_keys(redis, prefix, season_id) == held

    counts = await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
    assert counts is not None and (counts.released, counts.finished) == (1, 1)
    assert counts.keys == len(held) - 1  # the checkpoint went in the atomic step
    assert await _season_keys(redis, prefix, season_id) == []  # Keys.every names them all
    assert await redis.get(Keys.active(prefix, season_id)) is None
    version = await memory_store.stream_version(season_id)
    assert await redis.hget(released_key(prefix), season_id) == str(version).encode()
    assert await redis.hlen(releasing_key(prefix)) == 0
    # and a full read of the positions (the sweep's, the metrics') leaves it out
    assert season_id not in await positions(memory_store, redis, prefix)


async def test_a_quiet_season_mid_way_is_released_and_a_read_noted_holds_it(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    quiet, read_one = _id(), _id()
    projector = Projector(memory_store, redis, prefix)
    for season_id in (quiet, read_one):
        await _project(memory_store, projector, season_id, chunks=4)
        # as if their last event was projected more than a week ago
        await redis.set(Keys.seen(prefix, season_id), str(int(await now(redis) - WEEK - 60)))
    await read(redis, prefix, read_one, lambda k, p: None, ActiveGens())  # noted in its MULTI
    counts = await Releaser(redis, prefix, WEEK).run()
    assert counts is not None and (counts.released, counts.finished) == (1, 0)
    assert await redis.hexists(released_key(prefix), quiet)
    assert not await redis.hexists(released_key(prefix), read_one)
    assert await redis.get(Keys.active(prefix, read_one)) is not None


async def test_a_read_of_a_released_season_answers_503_once_then_the_same_views_rebuilt(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id, other = _id(), _id()
    projector = Projector(memory_store, redis, prefix)
    token, rotated = new_bey_token(season_id, 3)
    every = list(season_chunks(61, season_id))
    for n, chunk in enumerate(every):
        extra = [rotated] if n == 0 else []
        await append_chunk(memory_store, season_id, chunk + extra, f"chunk/{n}")
        await projector.catch_up(season_id)
    await _project(memory_store, projector, other)  # a neighbour that stays held
    await redis.set(Keys.seen(prefix, other), str(int(await now(redis) + WEEK)))
    await projector.sweep()  # the read side is initialised (`swept`): not a wiped Redis
    before = await generation_dump(redis, prefix, season_id)
    paths = [
        f"/v1/seasons/{season_id}/{name}" for name in ("map", "leaderboard", "reports", "summary")
    ]
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        bodies = [(await client.get(p)).content for p in paths]
        mine = (await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(token))).content
        listed = (await client.get("/v1/seasons/all")).json()
        gw.app.state.query.gens = ActiveGens()  # a read's note is due again (once a minute)

        counts = await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
        assert counts is not None and counts.released == 1
        # nothing secret is kept for the list: its public row only
        row = await redis.hget(released_rows(prefix), season_id)
        assert row is not None and set(release_module.msgspec.json.decode(row)) == set(ROW_FIELDS)
        assert await keys_matching(redis, f"{prefix}:{{s:{season_id}}}:g*private*") == []
        # the list shows it as before, not as `rebuilding`
        assert (await client.get("/v1/seasons/all")).json() == listed

        r = await client.get(paths[0])
        assert r.status_code == 503 and r.json()["code"] == "projection_rebuilding"
        assert r.headers["Retry-After"] == "2"
        assert gw.rebuilds == [season_id]  # the read side asked for the rebuild
        r = await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(token))
        assert r.status_code == 503  # not the bey's view, not a 401: the season first
        await projector.rebuild(season_id)  # what the rebuild actor does
        assert not await redis.hexists(released_key(prefix), season_id)  # held again
        assert [(await client.get(p)).content for p in paths] == bodies
        r = await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(token))
        assert r.content == mine
        other_token, _ = new_bey_token(season_id, 4)  # a token the season never saw
        r = await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(other_token))
        assert r.status_code == 401
    after = await generation_dump(redis, prefix, season_id)
    assert canonical(after) == canonical(before)  # byte-identical views, key by key


async def test_a_new_event_unreleases_the_season_and_the_full_sweep_does_not_rebuild_it(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    moving, finished = _id(), _id()
    projector = Projector(memory_store, redis, prefix)
    chunks = await _project(memory_store, projector, moving, chunks=5)
    await _project(memory_store, projector, finished)
    counts = await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
    assert counts is not None and counts.released == 2

    assert await projector.sweep() == 0  # a full pass: neither is rebuilt
    backlog = metrics.Backlog(memory_store, redis, prefix)
    await backlog.read()
    assert backlog.behind == {}  # nor counted as behind
    assert metrics.RELEASED._value.get() == 2  # type: ignore[attr-defined]
    assert metrics.HELD._value.get() == 0  # type: ignore[attr-defined]
    assert await redis.get(Keys.active(prefix, moving)) is None

    await append_chunk(memory_store, moving, chunks[5], "chunk/5")  # its wake-up lost
    behind: dict[str, int | None] = {}
    await projector.sweep(behind)
    await projector.sweep(behind)  # the worker's sweep takes a season behind at two passes
    assert await redis.get(Keys.active(prefix, moving)) is not None
    assert not await redis.hexists(released_key(prefix), moving)
    assert await redis.hexists(released_key(prefix), finished)
    assert canonical(await generation_dump(redis, prefix, moving)) == canonical(
        await rebuilt_dump(memory_store, redis, prefix, moving)
    )
    await backlog.read()
    assert metrics.RELEASED._value.get() == 1  # type: ignore[attr-defined]
    assert metrics.HELD._value.get() == 1  # type: ignore[attr-defined]


async def test_a_release_interrupted_after_its_atomic_step_is_finished_by_the_next_pass(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    season_id = _id()
    projector = Projector(memory_store, redis, prefix)
    await _project(memory_store, projector, season_id)
    await projector.sweep()  # the read side is initialised (`swept`): not a wiped Redis

    async def crash(_self: Releaser, _season_id: str, _gen: int) -> int:
        raise ConnectionError("the sweeper died")

    with monkeypatch.context() as m:
        m.setattr(Releaser, "_unlink", crash)
        with pytest.raises(ConnectionError):
            await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
    # half-present, but the read path sees it missing: no active generation, released
    assert await redis.get(Keys.active(prefix, season_id)) is None
    assert await redis.hexists(released_key(prefix), season_id)
    assert await _season_keys(redis, prefix, season_id) != []
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        r = await client.get(f"/v1/seasons/{season_id}/map")
        assert r.status_code == 503 and r.json()["code"] == "projection_rebuilding"
        assert gw.rebuilds == [season_id]
    counts = await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
    assert counts is not None and counts.finished_halfway == 1
    assert await _season_keys(redis, prefix, season_id) == []
    assert await redis.hlen(releasing_key(prefix)) == 0


async def test_a_release_interrupted_before_its_atomic_step_is_undone_and_done_again(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    season_id = _id()
    projector = Projector(memory_store, redis, prefix)
    await _project(memory_store, projector, season_id)
    held = await _season_keys(redis, prefix, season_id)

    releaser = Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60))

    async def crash(**_kw: object) -> int:
        raise ConnectionError("the sweeper died")

    monkeypatch.setattr(releaser, "_drop", crash)
    with pytest.raises(ConnectionError):
        await releaser.run()
    assert await _season_keys(redis, prefix, season_id) == held  # whole, and served
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        assert (await client.get(f"/v1/seasons/{season_id}/map")).status_code == 200
    counts = await Releaser(redis, prefix, 0.0).run()  # release off: the record is undone
    assert counts is not None and counts.finished_halfway == 1 and counts.released == 0
    assert await _season_keys(redis, prefix, season_id) == held
    assert not await redis.hexists(released_key(prefix), season_id)
    counts = await Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60)).run()
    assert counts is not None and counts.released == 1
    assert await _season_keys(redis, prefix, season_id) == []


async def test_a_season_that_moved_after_it_was_judged_is_not_released(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = _id()
    projector = Projector(memory_store, redis, prefix)
    chunks = await _project(memory_store, projector, season_id, chunks=3)
    releaser = Releaser(redis, prefix, WEEK, await later(redis, WEEK + 60))
    (held,) = await releaser._held()
    await append_chunk(memory_store, season_id, chunks[3], "chunk/3")
    await projector.catch_up(season_id)  # an event between the judgement and the release
    assert await releaser.release(held) is None
    assert not await redis.hexists(released_key(prefix), season_id)
    assert await redis.get(Keys.active(prefix, season_id)) is not None


async def test_a_pass_releases_at_most_per_pass_seasons_and_the_next_pass_the_rest(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
):
    """A backlog (every season quiet at once) goes over several passes, each well within the
    lock that keeps one pass at a time."""
    projector = Projector(memory_store, redis, prefix)
    for _ in range(3):
        await _project(memory_store, projector, _id(), chunks=2)
    monkeypatch.setattr(release_module, "PER_PASS", 2)
    clock = await later(redis, WEEK + 60)
    first = await Releaser(redis, prefix, WEEK, clock).run()
    second = await Releaser(redis, prefix, WEEK, clock).run()
    assert first is not None and second is not None
    assert (first.held, first.released, second.held, second.released) == (3, 2, 1, 1)
    assert await redis.hlen(released_key(prefix)) == 3


async def test_one_pass_at_a_time(redis: aioredis.Redis, prefix: str):
    """Two projections processes' sweepers: the second pass waits for the next period."""
    await redis.set(f"{prefix}:{{x}}:release-lock", "1", px=60_000)
    assert await Releaser(redis, prefix, WEEK).run() is None
