"""RELIABILITY 10, 14 and 19 together, ending with the read side compared to a rebuild.

Real workers (`dramatiq entrypoints.resolver_worker` and `entrypoints.projections_worker`, each
in its own process group, with the test broker knobs) against the session's PostgreSQL
database and Redis db, on a broker namespace and a projection prefix of this test's own:

1. kill -9 of the resolver while it is inside a Divan (FAULT_POINT=mid_resolve:sleep) and of
   the projector while it holds a computed batch it has not applied (mid_apply:sleep);
2. fresh workers take over (the Divan is redelivered); more Divans are requested at once on
   every season, and both workers get SIGTERM while that load is in flight;
3. a third pair finishes the work.

Then every Divan was resolved exactly once, every event is stored once, and every season's
live projection equals a from-zero rebuild, key by key, at the stream's head. Every view is at
its head before Divan 2 is requested, and its generation is the same at the end, so Divan 2's
events reached it by the projectors' live applies: the comparison sets a live apply against a
rebuild, never a rebuild against a rebuild.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis
from litestar.testing import AsyncTestClient

from entrypoints.gateway import create_app
from services.projections.keys import Keys
from shared.eventstore import PostgresEventStore
from shared.settings import Settings
from tests.brokers import probe
from tests.integration.resolver_support import (
    WorkerProcess,
    locked_divans,
    namespace,
    resolved_divans,
    wait_for,
)
from tests.projections.support import delete_prefix, generation_dump, rebuilt_dump

pytestmark = [pytest.mark.integration, pytest.mark.fault]

SEASONS = 3
RESOLVER = "entrypoints.resolver_worker"
PROJECTIONS = "entrypoints.projections_worker"


@pytest.fixture
def settings(migrated_pg_dsn: str, redis_url: str, broker_url: str) -> Iterator[Settings]:
    """On each broker (tests/brokers.py, make test-rabbitmq)."""
    ns = namespace()
    s = Settings(
        pg_dsn=migrated_pg_dsn,
        redis_url=redis_url,
        broker_url=broker_url,
        read_redis_url=redis_url,  # this session's own db, for the workers too
        broker_namespace=ns,
        projection_prefix=f"{ns}-read",
        # The test polls every season's status every 50 ms from one client address for as
        # long as the workers take (longer on a loaded box): the per-address read limit, made
        # for a person, answered 429 mid-test (seen on RabbitMQ at load 12). Not under test here.
        reads_per_minute=0,
        reads_per_token_per_minute=0,
    )
    yield s
    probe(broker_url, ns).cleanup()


@pytest.fixture
async def read(settings: Settings) -> Any:
    client = aioredis.Redis.from_url(settings.read_redis)
    yield client
    await delete_prefix(client, settings.projection_prefix)
    await client.aclose()


@pytest.fixture
def workers(tmp_path: Path, settings: Settings) -> Iterator[Any]:
    started: list[WorkerProcess] = []

    def start(name: str, module: str, **env: str) -> WorkerProcess:
        env = {
            "SEKSENBIR_READ_REDIS_URL": settings.read_redis,
            "SEKSENBIR_PROJECTION_PREFIX": settings.projection_prefix,
            "SEKSENBIR_SWEEP_SECONDS": "0.5",
            **env,
        }
        w = WorkerProcess(settings, tmp_path / f"{name}.log", module, **env).start()
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()


def assert_same_keys(live: dict[str, Any], fresh: dict[str, Any], season_id: str) -> None:
    """Key by key: the same keys, and each key's value equal, naming the first that is not."""
    assert sorted(live) == sorted(fresh), (
        season_id,
        sorted(set(live) ^ set(fresh)),
    )
    for key in sorted(live):
        assert live[key] == fresh[key], (season_id, key, live[key], fresh[key])


async def _request(client: Any, season: dict[str, Any], divan: int) -> None:
    auth = {"Authorization": f"Bearer {season['token']}"}
    r = await client.post(
        f"/v1/seasons/{season['season_id']}/divans", json={"divan": divan}, headers=auth
    )
    assert r.status_code == 202, r.text


async def _at(client: Any, season_id: str, divan: int) -> bool:
    """Divan `divan` of the season is resolved and nothing is being resolved."""
    r = await client.get(f"/v1/seasons/{season_id}")
    assert r.status_code == 200, r.text
    body = r.json()
    return bool(body["divan"] == divan and not body["resolving"])


async def _at_head(
    read: aioredis.Redis, store: PostgresEventStore, prefix: str, season_id: str
) -> bool:
    active = await read.get(Keys.active(prefix, season_id))
    if active is None:
        return False
    checkpoint = await read.get(Keys(prefix, season_id, int(active)).checkpoint)
    return int(checkpoint or 0) == await store.stream_version(season_id)


async def _where(
    read: aioredis.Redis, store: PostgresEventStore, prefix: str, season_id: str
) -> dict[str, Any]:
    """A season's projection state beside its stream, for a failure's message."""
    active = await read.get(Keys.active(prefix, season_id))
    gen = int(active) if active is not None else None
    return {
        "season": season_id,
        "version": await store.stream_version(season_id),
        "active": gen,
        "checkpoint": None
        if gen is None
        else await read.get(Keys(prefix, season_id, gen).checkpoint),
        "building": await read.exists(Keys.building(prefix, season_id)),
    }


async def _generations(read: aioredis.Redis, prefix: str, ids: list[str]) -> dict[str, bytes]:
    """Each season's active generation, once no rebuild of it is under way."""

    async def settled() -> dict[str, bytes] | None:
        if any([await read.exists(Keys.building(prefix, sid)) for sid in ids]):
            return None
        active = {sid: await read.get(Keys.active(prefix, sid)) for sid in ids}
        return None if None in active.values() else active  # type: ignore[return-value]

    return dict(await wait_for(settled, "no rebuild under way", timeout=30))


async def _assert_once_and_rebuild_equal(
    store: PostgresEventStore, read: aioredis.Redis, prefix: str, season_id: str
) -> None:
    records = await store.read_stream(season_id)
    assert resolved_divans(records) == [1, 2], season_id
    assert locked_divans(records) == [1, 2], season_id
    assert len({r.event_id for r in records}) == len(records), season_id
    live = await generation_dump(read, prefix, season_id)
    fresh = await rebuilt_dump(store, read, prefix, season_id)
    assert len(live) >= 10, sorted(live)  # a whole season's view, not two empty ones
    assert_same_keys(live, fresh, season_id)
    assert live["checkpoint"] == str(await store.stream_version(season_id))


async def test_kill_9_and_sigterm_of_both_workers_leave_each_divan_once_and_projections_rebuilt(
    settings: Settings, workers: Any, event_store: PostgresEventStore, read: aioredis.Redis
) -> None:
    keys = probe(settings.broker_redis, settings.broker_namespace)
    async with AsyncTestClient(app=create_app(settings, reads=False)) as client:
        seasons = []
        for n in range(SEASONS):
            r = await client.post("/v1/seasons", json={"memleket": 6, "seed": str(40 + n)})
            assert r.status_code == 201, r.text
            seasons.append(r.json())
        ids = [s["season_id"] for s in seasons]

        # 1. kill -9 of the resolver mid-Divan and of the projector mid-batch
        resolver = workers("resolver-1", RESOLVER, FAULT_POINT="mid_resolve:sleep=60")
        projector = workers("projections-1", PROJECTIONS, FAULT_POINT="mid_apply:sleep=60")
        await _request(client, seasons[0], 1)

        async def both_inside() -> bool:
            return "fault.injected" in resolver.log() and "fault.injected" in projector.log()

        await wait_for(both_inside, "both workers at their fault points", timeout=40)
        assert keys.unacked(), "the resolver holds no unacked message"
        resolver.kill()
        projector.kill()

        # 2. fresh workers; load on every season; SIGTERM of both while it is in flight
        resolver = workers("resolver-2", RESOLVER)
        projector = workers("projections-2", PROJECTIONS)
        for season in seasons[1:]:
            await _request(client, season, 1)

        async def all_at(divan: int) -> bool:
            return all([await _at(client, sid, divan) for sid in ids])

        await wait_for(lambda: all_at(1), "Divan 1 of every season", timeout=60)
        prefix = settings.projection_prefix

        async def projected() -> bool:
            return all([await _at_head(read, event_store, prefix, sid) for sid in ids])

        # Every season's view at its head before Divan 2: Divan 2's events then reach it by
        # the projectors' live, incremental applies, never by a rebuild (a rebuild only runs
        # for a season with no active generation or checkpoint), so the comparison at the end
        # sets a live apply against a rebuild. Without this wait a run could build every view
        # by rebuilds and compare a rebuild with a rebuild (found by a break-and-run: a
        # reducer that dropped the locked orders only when live passed once in two runs).
        try:
            await wait_for(projected, "every season projected to Divan 1", timeout=60)
        except AssertionError as late:  # seen once in CI (session 23): say where each one was
            where = [await _where(read, event_store, prefix, sid) for sid in ids]
            tail = projector.log()[-6000:]
            raise AssertionError(f"{late}: {where}; projections-2's log ends:\n{tail}") from None

        async def drained() -> bool:
            return keys.pending() == 0 and not keys.unacked()

        # ... and no message of step 1 left in the broker: a rebuild the killed projector had
        # asked for would otherwise run later and move a generation (seen once in CI)
        await wait_for(drained, "step 1's messages acked", timeout=20)
        generations = await _generations(read, prefix, ids)
        for season in seasons:
            await _request(client, season, 2)
        resolver.stop()
        projector.stop()
        assert "Killing worker process" not in resolver.log() + projector.log()

        # 3. a third pair finishes the work
        workers("resolver-3", RESOLVER)
        workers("projections-3", PROJECTIONS)
        await wait_for(lambda: all_at(2), "Divan 2 of every season", timeout=60)
        await wait_for(projected, "every season projected to its head", timeout=60)
        # the same generations: Divan 2 was applied live on the views of Divan 1, not rebuilt
        assert await _generations(read, prefix, ids) == generations
        await wait_for(drained, "every message acked", timeout=20)

    for sid in ids:
        await _assert_once_and_rebuild_equal(event_store, read, settings.projection_prefix, sid)
