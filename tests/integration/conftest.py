"""The `store` fixture: each contract test runs on InMemoryEventStore and PostgresEventStore."""

from __future__ import annotations

import pytest

from shared.eventstore import EventStore, InMemoryEventStore


@pytest.fixture(
    params=[
        pytest.param("memory", id="memory"),
        pytest.param("postgres", id="postgres", marks=pytest.mark.integration),
    ]
)
def store_kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def store(store_kind: str, clock, request: pytest.FixtureRequest) -> EventStore:
    """The store under the contract; the PostgreSQL one sits on a clean schema."""
    if store_kind == "memory":
        return InMemoryEventStore(clock=clock)
    return request.getfixturevalue("event_store")
