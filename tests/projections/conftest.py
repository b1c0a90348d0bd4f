"""Read-side fixtures: a Redis client on the session's private db, a unique key prefix per test."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest
import redis.asyncio as aioredis

from shared.eventstore import InMemoryEventStore
from tests.projections.support import delete_prefix

if TYPE_CHECKING:
    from tests.conftest import StepClock

LOCAL_REDIS = "redis://127.0.0.1:6379"


@pytest.fixture
def prefix(redis_key_prefix: str) -> str:
    """A projection prefix no other test uses (the keys are deleted afterwards)."""
    return f"{redis_key_prefix}proj-{secrets.token_hex(4)}"


@pytest.fixture
async def redis(redis_url: str, prefix: str) -> AsyncIterator[aioredis.Redis]:
    client = aioredis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        for suffix in ("", "-scratch", "-other"):
            await delete_prefix(client, prefix + suffix)
        await client.aclose()


@pytest.fixture
def memory_store(clock: StepClock) -> InMemoryEventStore:
    return InMemoryEventStore(clock=clock)


@pytest.fixture
def wipeable_redis_url(redis_url: str) -> Iterator[str | None]:
    """A whole Redis db of this test's own, which it may FLUSHDB (None if none can be had).

    The session db is shared by every test of the session, so the wipe test claims another
    free db number on the local server the same way the session fixture does.
    """
    if not redis_url.startswith(LOCAL_REDIS):
        yield None
        return
    from tests.conftest import _claimed_db

    claim = _claimed_db(LOCAL_REDIS)
    try:
        url = claim.__enter__()
    except RuntimeError:  # every db number is claimed by other sessions
        yield None
        return
    try:
        yield url
    finally:
        claim.__exit__(None, None, None)
