"""A rotated token takes its private stream with it (R-14; `POST …/token`: "the old token stops
working"): a ticket asked for with the old token opens no private stream, and a private stream
opened with the old token's ticket ends before it would tell the bey anything more.

Found by h-probe3 against a running stack: a bey who rotated a leaked token still had its
offers and chat notices announced to whoever held the old token's ticket, or a stream opened
with it, for as long as that stream stayed open.
"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import post
from tests.projections.sse import Stream, offered_live
from tests.projections.support import bearer


async def _rotate(o, seat: int) -> None:  # type: ignore[no-untyped-def]
    r = await o.client.post(o.live.url("/token"), headers=bearer(o.live.tokens[seat]))
    assert r.status_code == 200, r.text
    o.live.tokens[seat] = r.json()["token"]
    await o.projector.catch_up(o.live.season_id)


async def test_a_ticket_of_a_token_rotated_since_opens_no_private_stream(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Bey 2's ticket was asked for with its old token: once the token is rotated, the ticket
    is 401 `bad_ticket`; a ticket of the new token opens the private stream."""
    async with offered_live(memory_store, redis, prefix) as o:
        await _rotate(o, 2)
        async with o.client.stream("GET", o.live.url(f"/events?ticket={o.ticket}")) as r:
            assert r.status_code == 401  # (before: 200, and the bey's own events)
            assert (await r.aread()).decode().count('"code":"bad_ticket"') == 1
        fresh = await o.client.post(o.live.url("/tickets"), headers=bearer(o.live.tokens[2]))
        assert fresh.status_code == 201, fresh.text
        stream = Stream(o.client, o.live.url(f"/events?ticket={fresh.json()['ticket']}"))
        try:
            assert await asyncio.wait_for(stream.status, 10) == 200
            ready, _ = await stream.until("ready")
            assert ready.data == ['{"channels":2}']
        finally:
            await stream.close()


async def test_a_private_stream_ends_when_its_token_is_rotated(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Bey 2's private stream was opened with its token's ticket; the token is rotated; bey 1
    then offers bey 2 a pact: the old stream ends without telling it (the new token's stream
    would), and no frame after the rotation is the bey's own."""
    async with offered_live(memory_store, redis, prefix) as o:
        stream = Stream(o.client, o.live.url(f"/events?ticket={o.ticket}"))
        try:
            assert await asyncio.wait_for(stream.status, 10) == 200
            await stream.until("ready")
            await _rotate(o, 2)
            await post(o.client, o.live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
            await o.projector.catch_up(o.live.season_id)
            after = await stream.rest(timeout=10)  # the server ends it
            assert [f.event for f in after if f.event is not None] == []
        finally:
            await stream.close()
