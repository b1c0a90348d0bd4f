"""The read side of reports and records: battles per Divan, the Kurultay report, the seed (R-14)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.scenario import (
    Live,
    create_live,
    hold_kurultay,
    pact_and_betrayal,
    resolve_live_divan,
)
from tests.projections.support import OPS_TOKEN, bearer, open_gateway

World = tuple[httpx.AsyncClient, Live, Projector]


@pytest.fixture
async def world(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> AsyncIterator[World]:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        yield client, live, Projector(memory_store, redis, prefix)


async def get(client: httpx.AsyncClient, path: str, token: str | None = None) -> httpx.Response:
    return await client.get(path, headers=bearer(token))


async def test_r1_1_battles_of_a_divan_that_does_not_exist_yet_are_404(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await pact_and_betrayal(client, memory_store, live)  # Divan 1 resolved
    await projector.sweep()
    a = live.tokens[1]
    assert (await get(client, live.url("/battles/1"), a)).status_code == 200
    for divan in (0, -1, 2, 17):
        for token in (a, OPS_TOKEN):
            r = await get(client, live.url(f"/battles/{divan}"), token)
            assert r.status_code == 404, (divan, r.text)
            assert r.json()["code"] == "divan_not_found"
    while await resolve_live_divan(memory_store, live.season_id) < 16:
        pass
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()
    assert (await get(client, live.url("/battles/16"))).status_code == 200
    for divan in (0, 17):
        r = await get(client, live.url(f"/battles/{divan}"))
        assert (r.status_code, r.json()["code"]) == (404, "divan_not_found")


async def finish(memory_store: InMemoryEventStore, live: Live, projector: Projector) -> None:
    """Every Divan up to 16, then the Kurultay (with the seed revealed), projected."""
    while await resolve_live_divan(memory_store, live.season_id) < 16:
        pass
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()


async def test_r1_5_the_summary_reveals_seed_and_salt_that_check_the_commitment(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await projector.sweep()
    during = (await get(client, live.url("/summary"))).json()["status"]
    assert (during["seed"], during["seed_salt"]) == (None, None)
    await finish(memory_store, live, projector)
    status = (await get(client, live.url("/summary"))).json()["status"]
    assert (status["seed"], status["seed_salt"]) == ("7", "salt")
    check = hashlib.sha256(f"{status['seed_salt']}:{status['seed']}".encode()).hexdigest()
    assert check == status["seed_commitment"]
