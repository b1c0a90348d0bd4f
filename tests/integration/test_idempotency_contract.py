"""Idempotency-Key answers (RELIABILITY test 2 at store level), against both stores."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shared.eventstore import (
    Begun,
    EventStore,
    IdempotencyStateError,
    InProgress,
    Mismatch,
    Replay,
    request_hash,
)

pytestmark = pytest.mark.fault  # RELIABILITY tests: never skipped silently in CI
SCOPE = "season:s1:seat:3"
BODY = request_hash("POST", "/v1/seasons/s1/orders", b'{"orders":[]}')
OTHER_BODY = request_hash("POST", "/v1/seasons/s1/orders", b'{"orders":[1]}')


async def test_a_new_key_begins(store: EventStore):
    assert await store.idempotency.begin(SCOPE, "k1", BODY) == Begun()


async def test_the_same_key_and_body_replays_the_first_response(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    await keys.complete(SCOPE, "k1", 201, b'{"id":1}')
    for _ in range(3):
        assert await keys.begin(SCOPE, "k1", BODY) == Replay(201, b'{"id":1}')


async def test_the_same_key_with_another_body_is_a_mismatch(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    assert await keys.begin(SCOPE, "k1", OTHER_BODY) == Mismatch()
    await keys.complete(SCOPE, "k1", 201, b"{}")
    assert await keys.begin(SCOPE, "k1", OTHER_BODY) == Mismatch()


async def test_a_key_still_running_is_in_progress(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    assert await keys.begin(SCOPE, "k1", BODY) == InProgress()


async def test_keys_are_scoped(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    assert await keys.begin("season:s1:seat:4", "k1", OTHER_BODY) == Begun()


async def test_an_abandoned_key_can_begin_again(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    await keys.abandon(SCOPE, "k1")
    assert await keys.begin(SCOPE, "k1", OTHER_BODY) == Begun()


async def test_abandon_leaves_a_completed_key_alone(store: EventStore):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    await keys.complete(SCOPE, "k1", 200, b"{}")
    await keys.abandon(SCOPE, "k1")
    assert await keys.begin(SCOPE, "k1", BODY) == Replay(200, b"{}")


async def test_completing_twice_or_unbegun_is_refused(store: EventStore):
    keys = store.idempotency
    with pytest.raises(IdempotencyStateError):
        await keys.complete(SCOPE, "never", 200, b"{}")
    await keys.begin(SCOPE, "k1", BODY)
    await keys.complete(SCOPE, "k1", 200, b"{}")
    with pytest.raises(IdempotencyStateError):
        await keys.complete(SCOPE, "k1", 500, b"{}")


async def test_a_crashed_holders_key_is_taken_over_after_the_lease(store: EventStore, clock):
    keys = store.idempotency
    await keys.begin(SCOPE, "k1", BODY)
    clock.advance(timedelta(seconds=61))
    assert await keys.begin(SCOPE, "k1", OTHER_BODY) == Mismatch()
    assert await keys.begin(SCOPE, "k1", BODY) == Begun()
    assert await keys.begin(SCOPE, "k1", BODY) == InProgress()  # the lease restarted


async def test_purge_forgets_keys_older_than_the_retention(store: EventStore, clock):
    keys = store.idempotency
    await keys.begin(SCOPE, "old", BODY)
    await keys.complete(SCOPE, "old", 200, b"{}")
    clock.advance(timedelta(hours=25))
    await keys.begin(SCOPE, "new", BODY)
    assert await keys.purge(timedelta(hours=24)) == 1
    assert await keys.begin(SCOPE, "old", OTHER_BODY) == Begun()
