"""At-least-once delivery, exactly-once effect: duplicates, races, retries and poison messages.

RELIABILITY.md test 12 and the resolver's idempotency (ARCHITECTURE.md, Divan lifecycle), with a
real Dramatiq worker in this process on a Redis broker namespace of its own, over the real
PostgreSQL event store.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import dramatiq
import pytest
from litestar.testing import AsyncTestClient

from entrypoints.gateway import create_app
from services.resolver import resolver_actors as actors
from services.resolver.divan import resolve
from shared import faults
from shared.app.messaging.queues import (
    DIVANS_QUEUE,
    PROJECTIONS_QUEUE,
    RESOLVE_DIVAN,
    resolve_message,
)
from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.eventstore import PostgresEventStore
from tests.brokers import probe
from tests.integration.resolver_support import (
    decoded,
    inprocess_worker,
    locked_divans,
    namespace,
    resolved_divans,
    settings_for,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.fault]


@dataclass(frozen=True)
class Season:
    client: AsyncTestClient[Any]
    season_id: str
    seat: int
    auth: dict[str, str]

    async def status(self) -> dict[str, Any]:
        r = await self.client.get(f"/v1/seasons/{self.season_id}")
        assert r.status_code == 200, r.text
        return dict(r.json())

    async def request_divan(self, n: int) -> None:
        r = await self.client.post(
            f"/v1/seasons/{self.season_id}/divans", json={"divan": n}, headers=self.auth
        )
        assert r.status_code == 202, r.text
        assert r.json()["divan"] == n

    async def resolved(self, n: int) -> dict[str, Any]:
        async def check() -> dict[str, Any] | None:
            s = await self.status()
            return s if s["divan"] == n and not s["resolving"] else None

        return dict(await wait_for(check, f"Divan {n} resolved"))


@asynccontextmanager
async def api(settings: Any, *, enqueue: bool = True) -> AsyncIterator[Season]:
    """The HTTP app and one fresh trial season; `enqueue=False` keeps POST /divans from sending."""
    app = (
        create_app(settings, reads=False)
        if enqueue
        else create_app(settings, reads=False, enqueue=lambda _s, _d: None)
    )
    async with AsyncTestClient(app=app) as client:
        r = await client.post("/v1/seasons", json={"memleket": 34, "seed": "11"})
        assert r.status_code == 201, r.text
        body = r.json()
        auth = {"Authorization": f"Bearer {body['token']}"}
        yield Season(client, body["season_id"], body["seat"], auth)


@pytest.fixture
def ns(broker_url: str) -> Iterator[str]:
    name = namespace()
    yield name
    probe(broker_url, name).cleanup()


async def test_a_message_delivered_twice_resolves_the_divan_once(
    migrated_pg_dsn: str, redis_url: str, broker_url: str, ns: str, event_store: PostgresEventStore
) -> None:
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    with inprocess_worker(settings) as worker:
        async with api(settings, enqueue=False) as season:
            await season.request_divan(1)
            message = resolve_message(season.season_id, 1)
            worker.broker.enqueue(message)
            worker.broker.enqueue(message)  # the same message (same id), delivered again

            async def both() -> bool:
                return len(worker.recorder.of(message.message_id)) == 2

            await wait_for(both, "both deliveries processed")
            assert (await season.status())["divan"] == 1
    assert worker.recorder.outcomes_of(season.season_id) == [
        (1, "resolved"),
        (1, "already_resolved"),
    ]
    assert worker.recorder.failures() == []
    records = await event_store.read_stream(season.season_id)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    assert probe(broker_url, ns).pending() == 0  # both deliveries were acked


async def test_a_resolution_sends_the_projectors_no_message(
    migrated_pg_dsn: str, redis_url: str, broker_url: str, ns: str
) -> None:
    """ADR-112 (ADR-22): the store's NOTIFY wakes the projectors; a wake-up message per Divan
    cost the resolver a broker round trip and made a second projector race the first."""
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    with inprocess_worker(settings) as worker:
        async with api(settings, enqueue=False) as season:
            await season.request_divan(1)
            message = resolve_message(season.season_id, 1)
            worker.broker.enqueue(message)
            await season.resolved(1)
    assert worker.recorder.outcomes_of(season.season_id) == [(1, "resolved")]
    assert probe(broker_url, ns, PROJECTIONS_QUEUE).pending() == 0


async def test_racing_resolvers_append_one_resolution(
    migrated_pg_dsn: str, redis_url: str, broker_url: str, ns: str, event_store: PostgresEventStore
) -> None:
    """Two resolvers (own caches) on one Divan at once: one append wins, the other no-ops."""
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    async with api(settings, enqueue=False) as season:
        await season.request_divan(1)
        sid = season.season_id
        first, second = Seasons(event_store), Seasons(event_store)
        outcomes = await asyncio.gather(resolve(first, sid, 1), resolve(second, sid, 1))
        # The loser either sees the Divan resolved on reload, or re-appends the very same
        # events (deterministic ids) and gets the first recording back: no second copy.
        assert set(outcomes) <= {"resolved", "already_resolved"}
        assert await resolve(Seasons(event_store), sid, 1) == "already_resolved"
        assert await resolve(first, sid, 2) == "not_requested"
        assert await resolve(first, "no-such-season", 1) == "not_found"
        assert (await season.status())["divan"] == 1
    records = await event_store.read_stream(sid)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]


async def test_a_transient_error_mid_resolution_is_retried_and_appends_once(
    migrated_pg_dsn: str,
    redis_url: str,
    broker_url: str,
    ns: str,
    event_store: PostgresEventStore,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """RELIABILITY 12: the first attempt raises before the append; Retries runs it again."""
    monkeypatch.setenv("FAULT_POINT", "mid_resolve:raise")
    monkeypatch.setattr(faults, "_fired", set())
    settings = settings_for(
        migrated_pg_dsn, redis_url, ns, min_backoff_ms=100, broker_url=broker_url
    )
    with inprocess_worker(settings) as worker:
        async with api(settings) as season:
            before = (await season.status())["version"]
            await season.request_divan(1)
            after = await season.resolved(1)
    failures = worker.recorder.failures()
    assert [type(f.exception) for f in failures] == [faults.InjectedFault]
    assert [f.args for f in failures] == [(season.season_id, 1)]
    assert worker.recorder.outcomes_of(season.season_id) == [(1, "resolved")]
    records = await event_store.read_stream(season.season_id)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    # No partial first attempt: the computer turn, the lock and the outcome appear once, as one
    # contiguous append right after the request.
    events = decoded(records)
    divan_1 = events[before + 1 :]
    assert isinstance(events[before], ev.DivanRequested)
    computer = sum(
        1 for e in divan_1 if isinstance(e, ev.OrdersSubmitted) and e.seat != season.seat
    )
    assert computer == 18
    assert isinstance(divan_1[-1], ev.DivanResolved)
    assert after["version"] == len(records)
    assert len({r.event_id for r in records}) == len(records)


def _poison(season_id: str) -> dramatiq.Message[object]:
    """A deterministic bug: a Divan number of the wrong type raises on every attempt."""
    return dramatiq.Message(
        queue_name=DIVANS_QUEUE,
        actor_name=RESOLVE_DIVAN,
        args=(season_id, "one"),
        kwargs={},
        options={},
    )


async def test_a_poison_message_goes_to_the_dead_letter_queue_after_max_retries(
    migrated_pg_dsn: str,
    redis_url: str,
    broker_url: str,
    ns: str,
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 12: max_retries=5 with a small backoff, then `<namespace>:divans.XQ`."""
    settings = settings_for(
        migrated_pg_dsn, redis_url, ns, min_backoff_ms=100, broker_url=broker_url
    )
    keys = probe(broker_url, ns)
    with inprocess_worker(settings) as worker:
        async with api(settings, enqueue=False) as season:
            version = (await season.status())["version"]
            sent = worker.broker.enqueue(_poison(season.season_id))

            async def dead() -> bool:
                return sent.message_id in keys.dead_letters()

            await wait_for(dead, "the poison message in the dead-letter queue", timeout=25)
            assert (await season.status())["version"] == version
    attempts = worker.recorder.of(sent.message_id)
    assert len(attempts) == 1 + actors.MAX_RETRIES
    assert all(isinstance(a.exception, TypeError) for a in attempts)
    stored = keys.dead_letters()[sent.message_id]
    assert stored["args"] == [season.season_id, "one"]
    assert stored["options"]["retries"] == actors.MAX_RETRIES  # as enqueued for the last attempt
    assert keys.pending() == 0
    assert keys.unacked() == set()
    assert len(await event_store.read_stream(season.season_id)) == version


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, *args, **kw: self.events.append(event)


async def test_retry_exhaustion_raises_an_alert(
    migrated_pg_dsn: str, redis_url: str, broker_url: str, ns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = _Log()
    monkeypatch.setattr(actors, "log", log)
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    keys = probe(broker_url, ns)
    with inprocess_worker(settings) as worker:
        # An argument the actor does not take fails every attempt; no retries for this one.
        poison = dramatiq.Message(
            queue_name=DIVANS_QUEUE,
            actor_name=RESOLVE_DIVAN,
            args=("x", 1, "extra"),
            kwargs={},
            options={"max_retries": 0},
        )
        sent = worker.broker.enqueue(poison)

        async def dead() -> bool:
            return sent.message_id in keys.dead_letters()

        await wait_for(dead, "the message dead-lettered", timeout=10)

        async def alerted() -> bool:
            return "resolver.retries_exhausted" in log.events

        await wait_for(alerted, "the retries-exhausted alert", timeout=5)
