"""A withdrawn offer is told to the bey it was made to (issue 20; R-6.1, R-14): a line of its
private report and a message on its private stream, derived from `offer_withdrawn.v1` (no
event of its own: the golden digests stand)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from services.projections.streamlog import split
from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import Live, create_live, post, resolve_live_divan
from tests.projections.sse import Stream, offered_live, undocumented
from tests.projections.support import (
    OPS_TOKEN,
    assert_rebuild_equal,
    bearer,
    open_gateway,
)

World = tuple[httpx.AsyncClient, Live, Projector]


@pytest.fixture
async def world(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> AsyncIterator[World]:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        yield client, live, Projector(memory_store, redis, prefix)


async def _private(client: httpx.AsyncClient, live: Live, seat: int, lang: str = "tr") -> Any:
    r = await client.get(
        live.url("/private"), headers={**bearer(live.tokens[seat]), "Accept-Language": lang}
    )
    assert r.status_code == 200, r.text
    return r.json()


def _withdrawn(view: Any) -> list[tuple[int, dict[str, Any], str]]:
    return [
        (rep["divan"], line["data"], line["text"])
        for rep in view["reports"]
        for line in rep["lines"]
        if line["kind"] == "offer_withdrawn"
    ]


@pytest.mark.parametrize("batched", [False, True])
async def test_r6_1_a_withdrawn_offer_is_told_to_its_recipient_only(
    world: World,
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    batched: bool,
) -> None:
    """R-6.1, R-14: bey 1 offers bey 2 a pact and withdraws it: bey 2's private report of
    Divan 1 says so (before the Divan, and still after it, first), in its language; its
    private stream announces it; bey 1 and the public reports carry no such line (bey 1's own
    stream is told `offer_answered`, withdrawn: tests/projections/test_offer_answered.py). Projected
    offer and withdrawal in one batch or apart, and rebuilt from event 1: the same."""
    client, live, projector = world
    await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
    if not batched:
        await projector.sweep()  # the offer projected first: its kind comes from the view
        assert (await _private(client, live, 2))["offers_in"] == [
            {"from": 1, "kind": "pact", "answer": None}
        ]
    r = await client.post(live.url("/offers/2/withdraw"), headers=bearer(live.tokens[1]))
    assert r.status_code == 200, r.text
    await projector.sweep()
    data = {"from": 1, "to": 2, "treaty": "pact", "divan": 1}
    mine = await _private(client, live, 2)
    assert mine["offers_in"] == []
    assert _withdrawn(mine) == [
        (
            1,
            data,
            "1. bey size yaptığı saldırmazlık antlaşması teklifini geri çekti (1. Divan'dan önce)",
        )
    ]
    english = _withdrawn(await _private(client, live, 2, "en"))
    assert english == [
        (1, data, "Bey 1 withdrew its non-aggression pact offer to you before Divan 1")
    ]
    assert _withdrawn(await _private(client, live, 1)) == []
    public = (await client.get(live.url("/reports"))).json()["reports"]
    assert "offer_withdrawn" not in str(public)
    gen = int(await redis.get(Keys.active(prefix, live.season_id)) or 0)
    keys = Keys(prefix, live.season_id, gen)
    told = [split(m)[2] for m in await redis.zrange(keys.stream_log(2), 0, -1)]
    assert told == [
        '{"divan":1,"from":1,"kind":"pact","type":"offer_received"}',
        '{"divan":1,"from":1,"type":"offer_withdrawn"}',
    ]
    # the offerer's own stream has what became of its offer (its other devices), no line
    own = '{"answer":"withdrawn","divan":1,"to":2,"type":"offer_answered"}'
    assert [split(m)[2] for m in await redis.zrange(keys.stream_log(1), 0, -1)] == [own]
    assert "offer_withdrawn" not in str(await redis.zrange(keys.stream_log(), 0, -1))
    await assert_rebuild_equal(memory_store, redis, prefix, live.season_id)

    assert await resolve_live_divan(memory_store, live.season_id) == 1
    await projector.sweep()
    (first,) = [rep for rep in (await _private(client, live, 2))["reports"] if rep["divan"] == 1]
    assert first["lines"][0]["kind"] == "offer_withdrawn"  # what came first, first
    assert len(first["lines"]) > 1  # the Divan's own lines follow it
    assert not [x for x in first["lines"] if x["kind"] == "offer"]  # nothing was settled
    await assert_rebuild_equal(memory_store, redis, prefix, live.season_id)


async def test_r6_1_a_trial_withdrawal_is_told_in_the_report_of_the_divan_it_counted_for(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.1, R-1.2: a trial season's withdrawal names no Divan in its event; the notice goes
    in the report of the Divan after the last one resolved (1, then 2 once Divan 1 is), read
    by ops for the computer bey it was made to (R-14: recorded), the same after a rebuild."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        created = (await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})).json()
        sid, bey = created["season_id"], bearer(created["token"])
        for n in (1, 2):
            r = await client.post(
                f"/v1/seasons/{sid}/offers",
                json={"to": 2, "kind": "alliance"},
                headers={**bey, "Idempotency-Key": f"offer-{n}"},
            )
            assert r.status_code == 200, r.text
            r = await client.post(f"/v1/seasons/{sid}/offers/2/withdraw", headers=bey)
            assert r.status_code == 200, r.text
            if n == 1:
                r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": 1}, headers=bey)
                assert r.status_code == 202, r.text
                assert await resolve(Seasons(memory_store), sid, 1) == "resolved"
            await projector.catch_up(sid)
        r = await client.get(f"/v1/ops/seasons/{sid}/beys/2", headers=bearer(OPS_TOKEN))
        assert r.status_code == 200, r.text
        assert [(d, data["divan"], data["treaty"]) for d, data, _t in _withdrawn(r.json())] == [
            (1, 1, "alliance"),
            (2, 2, "alliance"),
        ]
    await assert_rebuild_equal(memory_store, redis, prefix, sid)


async def test_r6_1_the_withdrawal_reaches_the_recipients_private_stream_only(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.1, R-14: bey 2's stream with its ticket gets `offer_withdrawn` `{type, divan,
    from}` as the projection applies the withdrawal (a documented event); the public stream
    never does."""
    async with offered_live(memory_store, redis, prefix) as o:
        client, live, projector, described = o.client, o.live, o.projector, o.described
        public = Stream(client, live.url("/events"))
        private = Stream(client, live.url(f"/events?ticket={o.ticket}"))
        try:
            for stream in (public, private):
                assert await asyncio.wait_for(stream.status, 10) == 200
                await stream.until("ready")
            await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
            await post(client, live, 1, "/offers/2/withdraw", {})
            await projector.catch_up(live.season_id)
            told, _before = await private.until("offer_withdrawn")
            assert told.data == ['{"divan":1,"from":1,"type":"offer_withdrawn"}']
            assert undocumented(described, told) == []
            # the public stream: nothing of it (a Divan report comes next, then compare)
            assert await resolve_live_divan(memory_store, live.season_id) == 1
            await projector.catch_up(live.season_id)
            _report, seen = await public.until("divan_report")
            assert all(f.event != "offer_withdrawn" for f in seen)
        finally:
            await public.close()
            await private.close()
