"""RELIABILITY 13 for the resolver actor: a blocked statement versus the actor's time limit.

Dramatiq's TimeLimit cannot interrupt a statement blocked in the server, so PostgreSQL's
statement_timeout, which Settings keeps below the actor's time limit, must cancel it. Here a
zombie transaction holds the season's stream row, so the resolver's append blocks (its
lock_timeout is set longer than its statement_timeout, so the statement timeout is what
fires). Expected: each attempt is cancelled by statement_timeout well within the time limit
(StoreBusyError from QueryCanceledError), its statement rolls back with nothing appended, the
Retries middleware tries again, and once the zombie is gone the message resolves the Divan
exactly once.
"""

from __future__ import annotations

from collections.abc import Iterator

import asyncpg
import httpx
import pytest

from entrypoints.gateway import create_app
from shared.app.messaging.queues import resolve_message
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.eventstore import EventMetadata, PostgresEventStore, StoreBusyError
from shared.settings import Settings
from tests.integration.resolver_support import (
    BrokerKeys,
    inprocess_worker,
    locked_divans,
    namespace,
    resolved_divans,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.fault]

STATEMENT_TIMEOUT_MS = 500
TIME_LIMIT_MS = 5_000


@pytest.fixture
def ns(redis_url: str) -> Iterator[str]:
    name = namespace()
    yield name
    BrokerKeys(redis_url, name).cleanup()


async def requested_trial(settings: Settings, store: PostgresEventStore) -> str:
    """A trial season (over HTTP) whose bey has asked for Divan 1 (appended directly: nothing
    is enqueued, the test sends the message itself)."""
    app = create_app(settings, reads=False, enqueue=lambda _s, _d: None)
    transport = httpx.ASGITransport(app=app)
    async with app.lifespan(), httpx.AsyncClient(transport=transport, base_url="http://a") as h:
        r = await h.post("/v1/seasons", json={"memleket": 34, "seed": "11"})
        assert r.status_code == 201, r.text
        season_id, seat = r.json()["season_id"], r.json()["seat"]
    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    events = decide(loaded.state, c.RequestDivan(seat=seat, divan=loaded.state.divan + 1))
    assert isinstance(events, list), events
    meta = EventMetadata(actor="seat", seat=str(seat), command_id="ask-1")
    await seasons.append(season_id, loaded.version, "ask-1", events, meta)
    return season_id


def test_settings_keep_statement_timeout_below_the_resolvers_time_limit() -> None:
    assert Settings().statement_timeout_ms < Settings().resolve_time_limit_ms
    with pytest.raises(ValueError, match="below SEKSENBIR_RESOLVE_TIME_LIMIT_MS"):
        Settings(statement_timeout_ms=60_000, resolve_time_limit_ms=60_000)
    with pytest.raises(ValueError, match="below SEKSENBIR_RESOLVE_TIME_LIMIT_MS"):
        Settings.from_env(
            {"SEKSENBIR_STATEMENT_TIMEOUT_MS": "9000", "SEKSENBIR_RESOLVE_TIME_LIMIT_MS": "5000"}
        )
    env = Settings.from_env(
        {
            "SEKSENBIR_STATEMENT_TIMEOUT_MS": "500",
            "SEKSENBIR_RESOLVE_TIME_LIMIT_MS": "5000",
            "SEKSENBIR_LOCK_TIMEOUT_MS": "300",
        }
    )
    assert (env.statement_timeout_ms, env.resolve_time_limit_ms, env.lock_timeout_ms) == (
        500,
        5000,
        300,
    )


async def test_a_blocked_resolver_statement_is_cancelled_and_the_message_retries_cleanly(
    migrated_pg_dsn: str,
    redis_url: str,
    ns: str,
    event_store: PostgresEventStore,
) -> None:
    settings = Settings(
        min_backoff_ms=100,
        pg_dsn=migrated_pg_dsn,
        redis_url=redis_url,
        broker_namespace=ns,
        statement_timeout_ms=STATEMENT_TIMEOUT_MS,
        lock_timeout_ms=30_000,  # longer: the statement timeout is what cancels the append
        resolve_time_limit_ms=TIME_LIMIT_MS,
    )
    season_id = await requested_trial(settings, event_store)
    version = await event_store.stream_version(season_id)
    zombie = await asyncpg.connect(migrated_pg_dsn)
    try:
        with inprocess_worker(settings) as worker:
            await zombie.execute("BEGIN")
            await zombie.execute("SELECT 1 FROM streams WHERE season_id = $1 FOR UPDATE", season_id)
            assert worker.actor.options["time_limit"] == TIME_LIMIT_MS
            sent = worker.broker.enqueue(resolve_message(season_id, 1))

            async def failed_twice() -> bool:
                return len(worker.recorder.of(sent.message_id)) >= 2

            await wait_for(failed_twice, "two attempts cancelled by statement_timeout", 30)
            # Nothing of the cancelled attempts is stored: the append is one statement.
            assert await event_store.stream_version(season_id) == version
            await zombie.execute("ROLLBACK")

            async def resolved() -> bool:
                return (1, "resolved") in worker.recorder.outcomes_of(season_id)

            await wait_for(resolved, "the retried message to resolve Divan 1", 30)
    finally:
        await zombie.close()
    attempts = worker.recorder.of(sent.message_id)
    failures = [a for a in attempts if a.exception is not None]
    assert len(failures) >= 2 and attempts[-1].exception is None
    assert len(attempts) == len(failures) + 1  # retried until it worked, then acked
    for failure in failures:  # statement_timeout cancelled it, not the actor's time limit
        assert isinstance(failure.exception, StoreBusyError), failure.exception
        cause = failure.exception.__cause__
        assert isinstance(cause, asyncpg.QueryCanceledError), cause
        assert "statement timeout" in str(cause)
    assert [a.retries for a in attempts] == list(range(len(attempts)))
    assert worker.recorder.outcomes_of(season_id) == [(1, "resolved")]
    records = await event_store.read_stream(season_id)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    assert len({r.event_id for r in records}) == len(records)
    await event_store.verify_chain(season_id)
