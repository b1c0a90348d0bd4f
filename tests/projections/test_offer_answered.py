"""What became of an offer is told to the bey that made it as it happens (R-6.1, R-14): an
`offer_answered` message on the offerer's private stream when the recipient accepts or rejects
it, or when the offerer withdraws it (so each of its devices knows), before the Divan that
settles it. Derived from `offer_answered.v1` and `offer_withdrawn.v1` (no event of its own)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.streamlog import split
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import post
from tests.projections.sse import offered_live, private_stream, undocumented
from tests.projections.support import assert_rebuild_equal

RECEIVED = '{"divan":1,"from":1,"kind":"pact","type":"offer_received"}'


@pytest.mark.parametrize(("answer", "said"), [("accept", "accepted"), ("reject", "rejected")])
async def test_r6_1_an_answer_reaches_the_offerers_private_stream(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, answer: str, said: str
) -> None:
    """R-6.1, R-14: bey 1 offers bey 2 a pact and bey 2 answers it: bey 1's stream with its
    ticket gets `offer_answered` `{type, divan, to, answer}` (a documented event) as the
    projection applies the answer; the public log carries nothing of it; bey 2's has only the
    offer; the same after a rebuild."""
    async with offered_live(memory_store, redis, prefix) as o:
        client, live, projector, described = o.client, o.live, o.projector, o.described
        async with private_stream(client, live, 1) as mine:
            await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
            await post(client, live, 2, "/offers/1/answer", {"answer": answer})
            await projector.catch_up(live.season_id)
            told, _before = await mine.until("offer_answered")
            expected = f'{{"answer":"{said}","divan":1,"to":2,"type":"offer_answered"}}'
            assert told.data == [expected]
            assert undocumented(described, told) == []
    gen = int(await redis.get(Keys.active(prefix, live.season_id)) or 0)
    keys = Keys(prefix, live.season_id, gen)
    assert [split(m)[2] for m in await redis.zrange(keys.stream_log(1), 0, -1)] == [expected]
    assert [split(m)[2] for m in await redis.zrange(keys.stream_log(2), 0, -1)] == [RECEIVED]
    assert "offer_answered" not in str(await redis.zrange(keys.stream_log(), 0, -1))
    await assert_rebuild_equal(memory_store, redis, prefix, live.season_id)


async def test_r6_1_a_withdrawal_reaches_the_offerers_other_devices(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.1: bey 1 withdraws its offer: its own stream says so (`answer` withdrawn), for the
    screens of its other devices; bey 2 is told `offer_withdrawn` as before."""
    async with offered_live(memory_store, redis, prefix) as o:
        client, live, projector, described = o.client, o.live, o.projector, o.described
        async with private_stream(client, live, 1) as mine:
            await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
            await post(client, live, 1, "/offers/2/withdraw", {})
            await projector.catch_up(live.season_id)
            told, _before = await mine.until("offer_answered")
            assert told.data == ['{"answer":"withdrawn","divan":1,"to":2,"type":"offer_answered"}']
            assert undocumented(described, told) == []
    gen = int(await redis.get(Keys.active(prefix, live.season_id)) or 0)
    keys = Keys(prefix, live.season_id, gen)
    assert [split(m)[2] for m in await redis.zrange(keys.stream_log(2), 0, -1)] == [
        RECEIVED,
        '{"divan":1,"from":1,"type":"offer_withdrawn"}',
    ]
    await assert_rebuild_equal(memory_store, redis, prefix, live.season_id)
