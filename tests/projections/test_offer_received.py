"""An offer is told to the bey it was made to as it is made (R-6.1, R-14): a message on its
private stream, so a live player's screen shows the offer while it can still be answered,
before the Divan that settles it. Derived from `treaty_offered.v1` (no event of its own)."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from services.projections.streamlog import split
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import post
from tests.projections.sse import Stream, offered_live, undocumented
from tests.projections.support import append_season, assert_rebuild_equal


async def test_r6_1_an_offer_reaches_the_recipients_private_stream_only(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.1, R-14: bey 1 offers bey 2 a pact: bey 2's stream with its ticket gets
    `offer_received` `{type, divan, from, kind}` (a documented event) as the projection
    applies the offer; bey 1's and the public log carry nothing of it; the same after a
    rebuild."""
    async with offered_live(memory_store, redis, prefix) as o:
        client, live, projector, described = o.client, o.live, o.projector, o.described
        private = Stream(client, live.url(f"/events?ticket={o.ticket}"))
        try:
            assert await asyncio.wait_for(private.status, 10) == 200
            await private.until("ready")
            await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
            await projector.catch_up(live.season_id)
            told, _before = await private.until("offer_received")
            assert told.data == ['{"divan":1,"from":1,"kind":"pact","type":"offer_received"}']
            assert undocumented(described, told) == []
        finally:
            await private.close()
    gen = int(await redis.get(Keys.active(prefix, live.season_id)) or 0)
    keys = Keys(prefix, live.season_id, gen)
    told_2 = [split(m)[2] for m in await redis.zrange(keys.stream_log(2), 0, -1)]
    assert told_2 == ['{"divan":1,"from":1,"kind":"pact","type":"offer_received"}']
    assert await redis.zrange(keys.stream_log(1), 0, -1) == []
    assert "offer_received" not in str(await redis.zrange(keys.stream_log(), 0, -1))
    await assert_rebuild_equal(memory_store, redis, prefix, live.season_id)


async def test_nothing_is_announced_to_a_computer_bey(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A computer bey (R-11.1) has no token, so no ticket opens its private stream: nothing is
    logged for it there (its offers received, ~3 a Divan, and its private_report, 18 a trial
    Divan, were writes for nobody). A whole computer season: offers made and Divans resolved,
    and every seat's stream log empty; the public one still has its reports."""
    season_id = "offers-to-computers"
    await append_season(memory_store, 11, season_id)
    offered = [
        r for r in await memory_store.read_stream(season_id) if r.type == "treaty_offered.v1"
    ]
    assert offered, "the season makes no offer: the test would prove nothing"
    await Projector(memory_store, redis, prefix).catch_up(season_id)
    gen = int(await redis.get(Keys.active(prefix, season_id)) or 0)
    keys = Keys(prefix, season_id, gen)
    for seat in range(1, 20):
        assert await redis.zrange(keys.stream_log(seat), 0, -1) == [], seat
    public = [split(m)[2] for m in await redis.zrange(keys.stream_log(), 0, -1)]
    assert sum("divan_report" in m for m in public) == 16
