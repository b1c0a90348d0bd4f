"""A notifier process in a test: a Dramatiq Redis broker of its own on a given Redis, the
notifications actors on it with a Sender over the PostgreSQL notify store (a pool opened on the
actors' loop, as the worker does), a worker, and a Follower that feeds the broker.

Dramatiq runs every async actor of a process on one global event loop thread, which the
AsyncIO middleware of the first worker started (`first=True`) starts and stops; the notifiers
of one test share that thread and nothing else: brokers, workers, Senders and pools are each
their own, and claims are decided in PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import asyncpg
import dramatiq
from dramatiq.asyncio import get_event_loop_thread
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import AsyncIO

from services.notify import notify_actors
from services.notify.delivery import Delivery, Sender
from services.notify.follower import Follower
from shared.app.messaging import outbound
from shared.app.messaging.notify_pg import PostgresNotifyStore
from shared.app.messaging.notify_store import Sealer
from shared.app.messaging.queues import NOTIFY_QUEUE
from shared.eventstore import EventStore
from shared.eventstore.pool import PoolSettings, create_pool
from tests.clock import StepClock

LOCAL = outbound.Policy(allow=("127.0.0.1",), timeout_s=2.0)


@dataclass
class Notifier:
    broker: RedisBroker
    worker: dramatiq.Worker
    follower: Follower

    async def settle(self) -> None:
        """Until its broker's queue is empty and its worker has nothing in hand."""
        await asyncio.to_thread(self.broker.join, NOTIFY_QUEUE, timeout=20_000)
        await asyncio.to_thread(self.worker.join)


@contextlib.asynccontextmanager
async def notifier(
    redis_url: str,
    namespace: str,
    dsn: str,
    store: EventStore,
    notify: PostgresNotifyStore,
    key: str,
    *,
    first: bool = True,
) -> AsyncIterator[Notifier]:
    broker = RedisBroker(url=redis_url, namespace=namespace)
    if first:
        broker.add_middleware(AsyncIO())
    pools: list[asyncpg.Pool] = []

    async def open_sender() -> Sender:
        if not pools:
            pools.append(await create_pool(dsn, PoolSettings(min_size=1, max_size=2)))
        return Sender(PostgresNotifyStore(pools[0], Sealer(key)), LOCAL)

    _deliver, fan_out = notify_actors.declare(broker, open_sender, backoff_ms=1)

    def send(batch: list[Delivery]) -> None:
        fan_out.send(*notify_actors.batch_args(batch))

    worker = dramatiq.Worker(broker, worker_timeout=50, worker_threads=2)
    worker.start()
    try:
        yield Notifier(broker, worker, Follower(store, notify, send, StepClock()))
    finally:
        loop = get_event_loop_thread()
        for pool in pools:  # closed on the loop it was opened on
            assert loop is not None
            await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(pool.close(), loop.loop))
        worker.stop()
        broker.close()
