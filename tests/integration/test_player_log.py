"""Players' own log (issue 23, ADR-87, migration 0011): the same contract in PostgreSQL and in
memory; append-only; a version taken is a conflict."""

from __future__ import annotations

import asyncpg
import pytest

from shared.eventstore import ConcurrencyError, InMemoryEventStore, PostgresEventStore


@pytest.fixture(params=["memory", "postgres"])
def log(request: pytest.FixtureRequest, clock):  # type: ignore[no-untyped-def]
    if request.param == "memory":
        return InMemoryEventStore(clock=clock).players
    return request.getfixturevalue("event_store").players


async def test_a_players_events_are_read_back_in_order_and_a_taken_version_conflicts(log):  # type: ignore[no-untyped-def]
    await log.append("p1", 0, [("player_created.v1", b"{}")])
    await log.append("p1", 1, [("player_key_rotated.v1", b"{}"), ("player_left.v1", b"{}")])
    await log.append("p2", 0, [("player_created.v1", b"{}")])
    with pytest.raises(ConcurrencyError):
        await log.append("p1", 1, [("player_left.v1", b"{}")])
    assert [t for t, _ in await log.read("p1")] == [
        "player_created.v1",
        "player_key_rotated.v1",
        "player_left.v1",
    ]
    assert set(await log.read_many(["p1", "p2", "p3"])) == {"p1", "p2"}
    assert await log.read("p3") == []


async def test_player_events_are_append_only(event_store: PostgresEventStore, pg_pool):  # type: ignore[no-untyped-def]
    await event_store.players.append("p1", 0, [("player_created.v1", b"{}")])
    for statement in ("UPDATE player_events SET type = 'x'", "DELETE FROM player_events"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await pg_pool.execute(statement)
