"""Idempotency-Key answers (RELIABILITY test 2 at store level), against both stores."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shared.eventstore import EventStore, Mismatch, Replay, request_hash

pytestmark = pytest.mark.fault  # RELIABILITY tests: never skipped silently in CI
SCOPE = "season:s1:seat:3"
BODY = request_hash("POST", "/v1/seasons/s1/orders", b'{"orders":[]}')
OTHER_BODY = request_hash("POST", "/v1/seasons/s1/orders", b'{"orders":[1]}')


async def test_the_same_key_and_body_replays_the_first_response(store: EventStore):
    keys = store.idempotency
    assert await keys.record(SCOPE, "k1", BODY, 201, b'{"id":1}') is None
    for _ in range(3):
        assert await keys.record(SCOPE, "k1", BODY, 201, b'{"id":2}') == Replay(201, b'{"id":1}')
        assert await keys.look(SCOPE, "k1", BODY) == Replay(201, b'{"id":1}')


async def test_the_same_key_with_another_body_is_a_mismatch(store: EventStore):
    keys = store.idempotency
    await keys.record(SCOPE, "k1", BODY, 201, b"{}")
    assert await keys.record(SCOPE, "k1", OTHER_BODY, 201, b"{}") == Mismatch()
    assert await keys.look(SCOPE, "k1", OTHER_BODY) == Mismatch()


async def test_keys_are_scoped(store: EventStore):
    keys = store.idempotency
    await keys.record(SCOPE, "k1", BODY, 201, b"{}")
    assert await keys.record("season:s1:seat:4", "k1", OTHER_BODY, 200, b"{}") is None


async def test_purge_forgets_keys_older_than_the_retention(store: EventStore, clock):
    keys = store.idempotency
    await keys.record(SCOPE, "old", BODY, 200, b"{}")
    clock.advance(timedelta(hours=25))
    await keys.record(SCOPE, "new", BODY, 200, b"{}")
    assert await keys.purge(timedelta(hours=24)) == 1
    assert await keys.look(SCOPE, "old", OTHER_BODY) is None
    assert await keys.look(SCOPE, "new", BODY) == Replay(200, b"{}")
