"""HTTP test fixtures: the command API on PostgreSQL (integration) or in memory, with a client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING

import pytest

from shared.eventstore import EventStore, InMemoryEventStore
from tests.http import support
from tests.http.support import Api, open_api, open_litestar_client

if TYPE_CHECKING:
    from tests.conftest import StepClock


@pytest.fixture(autouse=True)
def _limiter_redis(request: pytest.FixtureRequest) -> Iterator[None]:
    """Where the apps under test count failed tokens: this session's own Redis db for an
    integration test, and for any other a closed port, so an in-memory test needs no server
    (each app still limits on its own then, as it does whenever Redis does not answer)."""
    if request.node.get_closest_marker("integration") is not None:
        support.REDIS_URL["url"] = request.getfixturevalue("redis_url")
    try:
        yield
    finally:
        support.REDIS_URL["url"] = support.NO_REDIS


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
