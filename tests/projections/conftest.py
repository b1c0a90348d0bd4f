"""Read-side fixtures: a Redis client on the session's private db, a unique key prefix per test."""

from __future__ import annotations

import io
import logging
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest
import redis.asyncio as aioredis
import structlog

from shared.eventstore import InMemoryEventStore
from shared.logs import configure_logging
from tests.projections.support import delete_prefix
from tests.redis_server import own_redis

if TYPE_CHECKING:
    from tests.conftest import StepClock


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
def wipeable_redis_url() -> Iterator[str]:
    """A whole Redis of this test's own, which it may FLUSHDB: a redis-server it starts on a
    free port (tests/redis_server.py), so it never needs a free db number on the shared
    server, never touches it, and always runs (RELIABILITY 22)."""
    with own_redis() as server:
        yield server.url


@pytest.fixture
def captured_logs() -> Iterator[io.StringIO]:
    """Every structlog and stdlib log line of this process (app, resolver, projector) as JSON,
    for the tests that read what was logged (no secret in a log line, no traceback)."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    config = structlog.get_config()
    out = io.StringIO()
    configure_logging(json=True, level="INFO", file=out)
    try:
        yield out
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.configure(**config)
