"""RELIABILITY 15 and 16, trial and live: a lost resolver message, and duplicate scheduling.

Issue 9 item 5: stop the resolver, request a Divan (202), lose the broker's Redis, start the
resolver: the season stayed `resolving` for ever. The scheduler's sweep finds the Divan in
PostgreSQL (due_work) and enqueues it again; a real Dramatiq worker resolves it once.

The Redis that is killed is one this test starts itself on a free port (never the shared one).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from litestar.testing import AsyncTestClient

from entrypoints.gateway import create_app
from services.resolver.scheduler import Due, Scheduler, SweepSettings
from shared.app.messaging.queues import due_message, resolve_message
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from shared.settings import Settings
from tests.brokers import probe
from tests.integration.processes import free_port
from tests.integration.resolver_support import (
    BrokerKeys,
    inprocess_worker,
    locked_divans,
    namespace,
    resolved_divans,
    settings_for,
    wait_for,
)

pytestmark = [pytest.mark.integration]
# Small periods so the test's bounded wait is short; the defaults (5 s, 10 s) are documented.
FAST = SweepSettings(interval_s=0.1, redeliver_after_s=0.3, batch=100)


class OwnRedis:
    """`redis-server --port P --save '' --appendonly no`, killed with SIGKILL and restarted."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        exe = shutil.which("redis-server")
        assert exe, "redis-server is not installed"
        args = [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        args += ["--appendonly", "no", "--dir", str(self.folder)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        try:
            for _attempt in range(200):  # bounded: about 10 s
                with contextlib.suppress(redis.ConnectionError):
                    if client.ping():
                        return
                assert self.proc.poll() is None, "redis-server exited"
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=0.05)
            raise AssertionError("own redis-server never answered")
        finally:
            client.close()

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.kill9()


@dataclass(frozen=True)
class Season:
    client: AsyncTestClient[Any]
    season_id: str
    auth: dict[str, str]

    async def status(self) -> dict[str, Any]:
        r = await self.client.get(f"/v1/seasons/{self.season_id}")
        assert r.status_code == 200, r.text
        return dict(r.json())

    async def request_divan(self, n: int) -> None:
        r = await self.client.post(
            f"/v1/seasons/{self.season_id}/divans", json={"divan": n}, headers=self.auth
        )
        assert (r.status_code, r.json()) == (202, {"divan": n, "status": "resolving"}), r.text


@asynccontextmanager
async def trial(settings: Settings, *, enqueue: bool = True) -> AsyncIterator[Season]:
    app = (
        create_app(settings, reads=False)
        if enqueue
        else create_app(settings, reads=False, enqueue=lambda _s, _d: None)
    )
    async with AsyncTestClient(app=app) as client:
        r = await client.post("/v1/seasons", json={"memleket": 34, "seed": "11"})
        assert r.status_code == 201, r.text
        body = r.json()
        yield Season(client, body["season_id"], {"Authorization": f"Bearer {body['token']}"})


@asynccontextmanager
async def schedulers(settings: Settings, send: Any, count: int = 1) -> AsyncIterator[None]:
    """`count` scheduler loops on this test's loop, each with a pool of its own, until exit."""
    pools = [
        await create_pool(settings.pg_dsn, PoolSettings(min_size=1, max_size=2))
        for _ in range(count)
    ]
    stop = asyncio.Event()
    loops = [
        asyncio.ensure_future(
            Scheduler(pool, send, settings=FAST).run(stop)  # the real clock
        )
        for pool in pools
    ]
    try:
        yield
    finally:
        stop.set()
        await asyncio.gather(*loops)
        for pool in pools:
            await pool.close()


async def resolved(season: Season, n: int) -> dict[str, Any]:
    async def check() -> dict[str, Any] | None:
        s = await season.status()
        return s if s["divan"] == n and not s["resolving"] else None

    return dict(await wait_for(check, f"Divan {n} resolved", timeout=30))


@pytest.mark.fault
async def test_reliability_15_a_divan_lost_with_redis_is_resolved_once_after_a_sweep(
    migrated_pg_dsn: str, own_redis: OwnRedis, event_store: PostgresEventStore
) -> None:
    """RELIABILITY 15, trial: the message is enqueued, Redis dies (kill -9, no persistence)
    and comes back empty; the season is stuck until the sweep hands the Divan over again."""
    ns = namespace()
    settings = settings_for(migrated_pg_dsn, own_redis.url, ns)
    async with trial(settings) as season:
        await season.request_divan(1)  # enqueued on the broker; no worker runs yet
        keys = BrokerKeys(own_redis.url, ns)

        async def enqueued() -> bool:  # sent by the API's handover thread (ADR-125)
            return keys.pending() == 1

        await wait_for(enqueued, "the Divan's message on the broker")
        assert keys.pending() == 1
        keys.client.close()

        own_redis.kill9()
        own_redis.start()  # empty: the message is gone
        keys = BrokerKeys(own_redis.url, ns)
        assert keys.pending() == 0
        status = await season.status()
        assert (status["divan"], status["resolving"]) == (0, True)  # stuck

        with inprocess_worker(settings) as worker:
            send = handing_to(worker.broker)
            async with schedulers(settings, send):
                status = await resolved(season, 1)
            assert worker.recorder.failures() == []
        keys.cleanup()
    assert (status["divan"], status["resolving"]) == (1, False)
    records = await event_store.read_stream(season.season_id)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]


def handing_to(broker: Any) -> Any:
    """The scheduler's `send`, onto a worker's broker (as entrypoints.bootstrap.due_queue)."""

    def send(due: Due) -> None:
        broker.enqueue(due_message(due.kind, due.season_id, due.divan))

    return send


@pytest.fixture
def ns(broker_url: str) -> Iterator[str]:
    """The RELIABILITY 16 tests run on each broker (tests/brokers.py, make test-rabbitmq)."""
    name = namespace()
    yield name
    probe(broker_url, name).cleanup()


@pytest.mark.fault
async def test_reliability_16_two_schedulers_and_five_copies_resolve_the_divan_once(
    migrated_pg_dsn: str,
    redis_url: str,
    broker_url: str,
    ns: str,
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 16 (trial): two schedulers sweep the same due Divan while the same message
    is sent five times: one resolution; every other delivery acks as a no-op."""
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    with inprocess_worker(settings) as worker:
        async with trial(settings, enqueue=False) as season:  # the API's own message is lost
            await season.request_divan(1)
            send = handing_to(worker.broker)
            async with schedulers(settings, send, count=2):
                for _ in range(5):
                    worker.broker.enqueue(resolve_message(season.season_id, 1))
                await resolved(season, 1)

                async def drained() -> bool:
                    return probe(broker_url, ns).pending() == 0

                await wait_for(drained, "every copy processed and acked")
    outcomes = worker.recorder.outcomes_of(season.season_id)
    assert outcomes.count((1, "resolved")) >= 1
    assert {o for _d, o in outcomes} <= {"resolved", "already_resolved"}
    assert worker.recorder.failures() == []
    records = await event_store.read_stream(season.season_id)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]


# --- live seasons: the same sweep hands over Divans due by the clock (issue 12) --------------
async def live_due_now(event_store: PostgresEventStore, sid: str, interval_s: int = 60) -> None:
    """A live season (compressed calendar, registration closed) whose Divan 1 fell due a
    second ago by the real clock, which the worker reads; Divan 2 is a minute away."""
    from datetime import timedelta

    from entrypoints.bootstrap import utc_now  # the clock the worker reads
    from shared.app.repository.seasons import Seasons
    from shared.domain import commands as c
    from shared.domain.decide import decide
    from shared.domain.evolve import fold
    from shared.domain.state import SeasonState
    from shared.eventstore import EventMetadata

    close = utc_now() - timedelta(seconds=interval_s + 1)
    create = c.CreateSeason(
        season_id=sid,
        seed=5,
        mode="live",
        registration_closes_at=close,
        divan_interval_seconds=interval_s,
        at=close - timedelta(hours=1),
    )
    made = decide(SeasonState(), create)
    assert isinstance(made, list)
    closed = decide(fold(made), c.CloseRegistration(at=close))
    assert isinstance(closed, list)
    await Seasons(event_store).append(
        sid, 0, "setup", [*made, *closed], EventMetadata(actor="system")
    )


async def live_resolved(event_store: PostgresEventStore, sid: str, n: int) -> None:
    async def check() -> bool:
        return n in resolved_divans(await event_store.read_stream(sid))

    await wait_for(check, f"live Divan {n} resolved", timeout=30)


@pytest.mark.fault
async def test_reliability_15_live_a_divan_due_by_the_clock_and_lost_with_redis_is_resolved_once(
    migrated_pg_dsn: str, own_redis: OwnRedis, event_store: PostgresEventStore
) -> None:
    """RELIABILITY 15, live: the scheduler handed the due Divan over, Redis died (kill -9, no
    persistence) before a worker took it; the next sweeps hand it over again; resolved once."""
    ns = namespace()
    settings = settings_for(migrated_pg_dsn, own_redis.url, ns)
    await live_due_now(event_store, "live-15")
    keys = BrokerKeys(own_redis.url, ns)
    from entrypoints.bootstrap import due_queue

    with due_queue(settings) as send:
        pool = await create_pool(settings.pg_dsn, PoolSettings(min_size=1, max_size=2))
        try:
            handed = await Scheduler(pool, send, settings=FAST).sweep()
        finally:
            await pool.close()
    assert [(d.kind, d.divan) for d in handed] == [("divan", 1)]
    assert keys.pending() == 1
    keys.client.close()
    own_redis.kill9()
    own_redis.start()  # empty: the message is gone
    keys = BrokerKeys(own_redis.url, ns)
    assert keys.pending() == 0
    with inprocess_worker(settings) as worker:
        async with schedulers(settings, handing_to(worker.broker)):
            await live_resolved(event_store, "live-15", 1)
        assert worker.recorder.failures() == []
    keys.cleanup()
    records = await event_store.read_stream("live-15")
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]


@pytest.mark.fault
async def test_reliability_16_live_two_schedulers_and_five_copies_hold_the_divan_once(
    migrated_pg_dsn: str,
    redis_url: str,
    broker_url: str,
    ns: str,
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 16, live: two schedulers sweep the live Divan due by the clock while its
    message is sent five more times: one resolution, the other deliveries ack as no-ops."""
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    await live_due_now(event_store, "live-16")
    with inprocess_worker(settings) as worker:
        async with schedulers(settings, handing_to(worker.broker), count=2):
            for _ in range(5):
                worker.broker.enqueue(resolve_message("live-16", 1))
            await live_resolved(event_store, "live-16", 1)

            async def drained() -> bool:
                return probe(broker_url, ns).pending() == 0

            await wait_for(drained, "every copy processed and acked")
        assert worker.recorder.failures() == []
    records = await event_store.read_stream("live-16")
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]


@pytest.mark.fault
async def test_reliability_15_the_schedulers_lost_copy_is_sent_again_on_each_broker(
    migrated_pg_dsn: str,
    redis_url: str,
    broker_url: str,
    ns: str,
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 15 through the scheduler's own sender (bootstrap.due_queue), on Redis and on
    RabbitMQ, where it publishes without waiting for each confirm (ADR-97): its copy is lost
    (the broker's queues deleted before a worker took it); the next sweeps send it again; the
    Divan is resolved once."""
    from entrypoints.bootstrap import due_queue

    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    await live_due_now(event_store, "live-15b")
    keys = probe(broker_url, ns)
    pool = await create_pool(settings.pg_dsn, PoolSettings(min_size=1, max_size=2))
    try:
        with due_queue(settings) as send:
            handed = await Scheduler(pool, send, settings=FAST).sweep()
        assert [(d.kind, d.divan) for d in handed] == [("divan", 1)]

        async def stored() -> bool:
            return keys.pending() == 1

        await wait_for(stored, "the scheduler's copy on the broker")
        keys.cleanup()  # lost with the broker's queues
        assert keys.pending() == 0
        with due_queue(settings) as send, inprocess_worker(settings) as worker:
            async with schedulers(settings, send):
                await live_resolved(event_store, "live-15b", 1)
            assert worker.recorder.failures() == []
    finally:
        await pool.close()
    records = await event_store.read_stream("live-15b")
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
