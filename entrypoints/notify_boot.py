"""The notifications worker's parts (issue 25, ADR-99), built from Settings: the notify store
in the broker's Redis, the Sender under the outbound policy, and the notifier's thread."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from typing import Any

import dramatiq
import redis.asyncio as aioredis
import structlog

from entrypoints.stores import open_pool, store_on, utc_now
from services.notify import notify_actors
from services.notify.delivery import Delivery, Sender
from services.notify.follower import Follower
from shared.app import outbound
from shared.app.notify_store import MemoryNotifyStore, NotifyStore, RedisNotifyStore, Sealer
from shared.app.rabbit_broker import is_amqp
from shared.app.webpush import VapidKeys
from shared.eventstore import EventStore, InMemoryEventStore
from shared.settings import Settings

log = structlog.get_logger(__name__)


def notify_redis_url(settings: Settings) -> str:
    """The broker's Redis (it must not evict, RELIABILITY 15); SEKSENBIR_REDIS_URL's when the
    broker is RabbitMQ."""
    return settings.redis_url if is_amqp(settings.broker_redis) else settings.broker_redis


def notify_store(settings: Settings) -> RedisNotifyStore:
    """Webhooks and push subscriptions, sealed, in the broker's Redis (ADR-98)."""
    client = aioredis.Redis.from_url(notify_redis_url(settings))
    return RedisNotifyStore(client, settings.broker_namespace, Sealer(settings.notify_key))


@contextlib.asynccontextmanager
async def api_notify_store(settings: Settings, store: EventStore) -> AsyncIterator[NotifyStore]:
    """The API's notify store for its lifespan: in memory beside an in-memory event store (a
    test's, a one-process run's), else in the broker's Redis."""
    if isinstance(store, InMemoryEventStore):
        yield MemoryNotifyStore()
        return
    client = aioredis.Redis.from_url(notify_redis_url(settings))
    try:
        yield RedisNotifyStore(client, settings.broker_namespace, Sealer(settings.notify_key))
    finally:
        await client.aclose()


def vapid(settings: Settings) -> VapidKeys | None:
    key = settings.vapid_private_key
    return VapidKeys.from_private(key) if key else None


def sender(settings: Settings) -> Sender:
    policy = outbound.Policy(allow=settings.outbound_allow, timeout_s=settings.outbound_timeout_s)
    return Sender(notify_store(settings), policy, vapid(settings), settings.vapid_subject)


def declare(settings: Settings, broker: dramatiq.Broker) -> tuple[Any, Any]:
    """The queue's actors, each worker process with one Sender opened on the actors' loop."""
    opened: list[Sender] = []

    async def get() -> Sender:
        if not opened:
            opened.append(sender(settings))
        return opened[0]

    return notify_actors.declare(broker, get)


def start_notifier(settings: Settings, fan_out: Any) -> threading.Thread:
    """The notifier on a daemon thread with its own loop: every `notify_sweep_s`, the followed
    seasons' new events and due warnings go to the queue as fan-out batches."""

    def send(batch: list[Delivery]) -> None:
        fan_out.send([notify_actors.encoded(d) for d in batch])

    async def run() -> None:
        follower: Follower | None = None
        while True:
            try:
                if follower is None:
                    pool = await open_pool(settings, "notify")
                    store = store_on(pool, settings, "notify")
                    follower = Follower(store, notify_store(settings), send, utc_now)
                await follower.sweep()
            except Exception:
                log.exception("notify.sweep_failed")
                follower = None
            await asyncio.sleep(settings.notify_sweep_s)

    thread = threading.Thread(target=lambda: asyncio.run(run()), name="notifier", daemon=True)
    thread.start()
    return thread
