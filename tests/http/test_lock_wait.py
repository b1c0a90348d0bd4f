"""A command's wait for its season's in-process writer lock is bounded (issue 9 item 7).

The API keeps one writer per season per process; the others queue. Whatever holds the writer
(here a store whose append waits at a gate: a slow disk, a long group statement), a queued
command waits at most the lock timeout (`lock_timeout_ms`) and then answers 503 `store_busy`
with Retry-After; nothing it would have written is written. The row-lock case, where the
queue gives up as soon as the writer ahead meets the held lock, is RELIABILITY 6 over HTTP
(tests/integration/test_zombie_lock_http.py).

Elapsed times are asserted as a bound (2 × lock timeout + a margin for a loaded machine), not
as a speed target.
"""

from __future__ import annotations

import asyncio

import httpx

from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import (
    GatedStore,
    assert_problem,
    create_trial,
    open_api,
    settings,
    stream_types,
)

LOCK_TIMEOUT_MS = 300
BOUND_S = 2 * LOCK_TIMEOUT_MS / 1000 + 1.2


async def test_commands_queued_behind_a_stuck_writer_answer_503_within_the_lock_timeout():
    store = InMemoryEventStore(clock=StepClock())
    gated = GatedStore(store)
    gated.closed = False
    async with open_api(
        store,
        settings(lock_timeout_ms=LOCK_TIMEOUT_MS),
        api_store=gated,  # type: ignore[arg-type]
    ) as api:
        bey = await create_trial(api.client)
        before = await store.stream_version(bey.season_id)
        gated.closed = True
        loop = asyncio.get_running_loop()

        async def orders(key: str) -> tuple[httpx.Response, float]:
            started = loop.time()
            r = await api.client.post(
                bey.url("/orders"),
                json={"orders": [{"province": bey.memleket, "kind": "hold"}]},
                headers=bey.auth(key),
            )
            return r, loop.time() - started

        stuck = asyncio.create_task(orders("stuck"))
        await asyncio.wait_for(gated.entered.wait(), 10)  # it holds the season's writer lock
        async with asyncio.timeout(30):  # a failure, not a hang, if the wait is unbounded
            queued = await asyncio.gather(*(orders(f"queued-{n}") for n in range(6)))
        for r, took in queued:
            assert_problem(r, 503, "store_busy")
            assert r.headers.get("retry-after"), r.headers
            assert took < BOUND_S, [round(t, 2) for _, t in queued]
        assert not stuck.done()
        gated.release.set()
        first, _ = await asyncio.wait_for(stuck, 10)
        assert first.status_code == 200, first.text
        assert await stream_types(store, bey.season_id, before) == ["orders_submitted.v1"]
        again = await asyncio.gather(*(orders(f"queued-{n}") for n in range(6)))
        assert [r.status_code for r, _ in again] == [200] * 6  # not stored as the keys' answer
