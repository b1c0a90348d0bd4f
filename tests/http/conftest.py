"""HTTP test fixtures: the command API on PostgreSQL (integration) or in memory, with a client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest

from shared.eventstore import EventStore, InMemoryEventStore
from tests.http import support
from tests.http.support import Api, open_api, open_litestar_client

if TYPE_CHECKING:
    from tests.conftest import StepClock


@pytest.fixture(scope="session", autouse=True)
def _limiter_redis(redis_url: str) -> None:
    """The apps under test count failed tokens in this session's own Redis db."""
    support.REDIS_URL["url"] = redis_url


@pytest.fixture
async def pg_api(event_store: EventStore) -> AsyncIterator[Api]:
    """create_app on the PostgresEventStore fixture (clean schema), served on the test's loop."""
    async with open_api(event_store) as api:
        yield api


@pytest.fixture
async def memory_api(clock: StepClock) -> AsyncIterator[Api]:
    """create_app on an InMemoryEventStore, through Litestar's AsyncTestClient."""
    async with open_litestar_client(InMemoryEventStore(clock=clock)) as api:
        yield api


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.integration),
    ]
)
def api_store(request: pytest.FixtureRequest, clock: StepClock) -> EventStore:
    """The store a both-backends test runs on; the PostgreSQL one sits on a clean schema."""
    if request.param == "memory":
        return InMemoryEventStore(clock=clock)
    return request.getfixturevalue("event_store")  # type: ignore[no-any-return]


@pytest.fixture
async def api(api_store: EventStore) -> AsyncIterator[Api]:
    """The API on either backend: AsyncTestClient in memory, in-loop ASGI on PostgreSQL."""
    if isinstance(api_store, InMemoryEventStore):
        async with open_litestar_client(api_store) as opened:
            yield opened
    else:
        async with open_api(api_store) as opened:
            yield opened
