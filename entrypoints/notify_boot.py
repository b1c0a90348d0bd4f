"""The notifications worker's parts (issue 25, ADR-99, ADR-108), built from Settings: the
notify store in PostgreSQL, the Sender under the outbound policy, and the notifier's thread."""

from __future__ import annotations

import asyncio
import os
import threading
from typing import Any

import asyncpg
import dramatiq
import structlog

from entrypoints.stores import open_pool, store_on, utc_now
from services.notify import notify_actors
from services.notify.delivery import Delivery, Sender
from services.notify.follower import Follower
from shared.app.messaging import outbound
from shared.app.messaging.notify_pg import PostgresNotifyStore
from shared.app.messaging.notify_store import MemoryNotifyStore, NotifyStore, Sealer
from shared.app.messaging.webpush import VapidKeys
from shared.eventstore import EventStore, PostgresEventStore
from shared.settings import Settings

log = structlog.get_logger(__name__)


def api_notify_store(settings: Settings, store: EventStore) -> NotifyStore:
    """The API's notify store: in PostgreSQL beside the PostgreSQL event store, on its pool
    (registrations are acknowledged writes, ADR-108); in memory beside an in-memory one."""
    if isinstance(store, PostgresEventStore):
        return PostgresNotifyStore(store.pool, Sealer(settings.notify_key))
    return MemoryNotifyStore()


def lower_priority(nice: int) -> int:
    """The worker's CPU priority lowered by `nice` (SEKSENBIR_NOTIFY_NICE, ADR-108): on a
    shared machine a fan-out to a thousand receivers takes the CPU a Divan leaves over. Linux
    keeps niceness per thread and a thread inherits its creator's, so this runs before the
    worker starts any thread. Returns the niceness now."""
    return os.nice(max(0, min(nice, 19)))


def vapid(settings: Settings) -> VapidKeys | None:
    key = settings.vapid_private_key
    return VapidKeys.from_private(key) if key else None


async def sender(settings: Settings) -> Sender:
    """The actors' Sender, on a pool of its own (the actors' event loop is not the notifier's)."""
    policy = outbound.Policy(allow=settings.outbound_allow, timeout_s=settings.outbound_timeout_s)
    store = PostgresNotifyStore(await open_pool(settings, "notify"), Sealer(settings.notify_key))
    return Sender(store, policy, vapid(settings), settings.vapid_subject)


def declare(settings: Settings, broker: dramatiq.Broker) -> tuple[Any, Any]:
    """The queue's actors, each worker process with one Sender opened on the actors' loop."""
    opened: list[Sender] = []

    async def get() -> Sender:
        if not opened:
            opened.append(await sender(settings))
        return opened[0]

    return notify_actors.declare(broker, get)


def start_notifier(settings: Settings, fan_out: Any) -> threading.Thread:
    """The notifier on a daemon thread with its own loop: every `notify_sweep_s`, the followed
    seasons' new events and due warnings go to the queue as fan-out batches, each with the
    owner id that claims its deliveries (ADR-108)."""

    def send(batch: list[Delivery]) -> None:
        fan_out.send(*notify_actors.batch_args(batch))

    async def run() -> None:
        pool: asyncpg.Pool | None = None
        follower: Follower | None = None
        while True:
            try:
                if pool is None or follower is None:
                    pool = await open_pool(settings, "notify")
                    notify = PostgresNotifyStore(pool, Sealer(settings.notify_key))
                    follower = Follower(store_on(pool, settings, "notify"), notify, send, utc_now)
                await follower.sweep()
            except Exception:
                log.exception("notify.sweep_failed")
                if pool is not None:  # a new pool and a new fold next time
                    pool.terminate()
                pool, follower = None, None
            await asyncio.sleep(settings.notify_sweep_s)

    thread = threading.Thread(target=lambda: asyncio.run(run()), name="notifier", daemon=True)
    thread.start()
    return thread
