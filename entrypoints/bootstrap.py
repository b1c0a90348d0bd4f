"""The composition root: every long-lived object of every process, built from one `Settings`.

STYLE.md, "one composition root": the entry points (the CLI verbs, the HTTP gateway, the worker
bootstraps, the scheduler) call this module; the services receive what they need as arguments
and build none of it. This module and its light part, entrypoints.stores (PostgreSQL pools,
event stores, each role's pool settings, logging; ADR-120), open the pools and build the event
stores, Dramatiq brokers, Redis clients and projectors; the broker
policy check (shared/app/messaging/queues.py) and `seksenbir deadletters` (entrypoints/cli_ops.py)
open a short-lived Redis client of their own, `seksenbir up` (entrypoints/stack.py) its own servers.

Nothing here reads the environment: `Settings.from_env()` (shared/settings.py) does, once per
process, in the entry point.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import dramatiq
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from entrypoints import stores
from entrypoints.notify_boot import api_notify_store
from entrypoints.stores import Role
from services.projections import projection_actors
from services.projections.listener import start_listener
from services.projections.projection_actors import REBUILD_ACTOR, start_sweeper
from services.projections.projector import Cursors, Projector
from services.resolver import resolver_actors
from services.resolver.scheduler import Due, Scheduler, SweepSettings
from shared.app.messaging.notify_store import NotifyStore
from shared.app.messaging.prefetch import PrefetchPerThread
from shared.app.messaging.queues import (
    PROJECTIONS_QUEUE,
    add_worker_metrics,
    check_broker_policy,
    due_message,
    make_broker,
    resolve_message,
)
from shared.app.messaging.wakeup_broker import WakeupRedisBroker
from shared.app.repository.seasons import Seasons
from shared.eventstore import (
    EventStore,
)
from shared.handover import Handover
from shared.logs import get_logger
from shared.settings import Settings, environment

T = TypeVar("T")
log = get_logger(__name__)
# The light part, which CLI verbs import alone (entrypoints.stores), under its old names here
UNREACHABLE = stores.UNREACHABLE
configure = stores.configure
event_store = stores.event_store
open_pool = stores.open_pool
pool_settings = stores.pool_settings
store_on = stores.store_on
utc_now = stores.utc_now
Enqueue = Callable[[str, int], None]


class Lazy(Generic[T]):
    """A resource opened on first use, on the loop that first asks (a Dramatiq worker's AsyncIO
    middleware loop), and kept for the process's life; `value` is None until then."""

    def __init__(self, opener: Callable[[], Awaitable[T]]) -> None:
        self._open = opener
        self.value: T | None = None

    async def get(self) -> T:
        if self.value is None:
            self.value = await self._open()
        return self.value


async def open_seasons(settings: Settings) -> Seasons:
    """The resolver's season repository over a pool of its own."""
    pool = await open_pool(settings, "resolver")
    return Seasons(store_on(pool, settings, "resolver"))


# --- Redis ------------------------------------------------------------------------------------


def redis_client(settings: Settings) -> aioredis.Redis:
    """A Redis client on the read side's URL (read models, failed-token counts): a cluster
    client when SEKSENBIR_READ_REDIS_CLUSTER=1 (it speaks the same commands; each season's
    atomic step names keys of one hash slot only)."""
    if settings.read_redis_cluster:
        return cast("aioredis.Redis", RedisCluster.from_url(settings.read_redis))
    return aioredis.Redis.from_url(settings.read_redis)


async def open_projector(
    settings: Settings, role: Role, cursors: Cursors | None = None
) -> Projector:
    """A projector with a pool (`role`: projections, projections-woken, sweeper) and a client;
    `cursors`: the folds table it shares with its process's other projectors (issue 14)."""
    pool = await open_pool(settings, role)
    return Projector(
        store_on(pool, settings, role),
        redis_client(settings),
        settings.projection_prefix,
        cursors=cursors if cursors is not None else Cursors(),
    )


READ_POOL_MAX = 100  # the read pool's connections (event streams hold none of them)
READ_TIMEOUT_S = 2.0


@contextlib.asynccontextmanager
async def read_redis(settings: Settings) -> AsyncIterator[aioredis.Redis]:
    """The query API's Redis client: a blocking pool of READ_POOL_MAX connections (on a
    cluster, READ_POOL_MAX per node; a node's pool that is full answers at once with an error,
    a 503, rather than waiting)."""
    if settings.read_redis_cluster:
        cluster = RedisCluster.from_url(
            settings.read_redis,
            max_connections=READ_POOL_MAX,
            socket_timeout=READ_TIMEOUT_S,
            socket_connect_timeout=READ_TIMEOUT_S,
        )
        try:
            yield cast("aioredis.Redis", cluster)
        finally:
            await cluster.aclose()
        return
    # A burst waits for a connection at most READ_TIMEOUT_S, then ConnectionError: 503.
    pool = aioredis.BlockingConnectionPool.from_url(
        settings.read_redis,
        max_connections=READ_POOL_MAX,
        timeout=READ_TIMEOUT_S,
        socket_timeout=READ_TIMEOUT_S,  # a Redis that hangs is a 503, not a hung read
        socket_connect_timeout=READ_TIMEOUT_S,
    )
    client = aioredis.Redis(connection_pool=pool)
    try:
        yield client
    finally:
        await client.aclose()
        await pool.disconnect()


# --- Dramatiq ---------------------------------------------------------------------------------


def broker(settings: Settings, *, confirm: bool = True) -> dramatiq.Broker:
    """The settings' broker, where senders and workers meet: RabbitMQ for an amqp:// URL
    (ADR-95; `confirm`: enqueues wait for its confirm), else Redis in the settings' namespace
    with their heartbeat timeout (a worker's; a sender's broker never consumes)."""
    s = settings
    return make_broker(s.broker_redis, s.broker_namespace, s.heartbeat_timeout_ms, confirm=confirm)


def worker_broker(settings: Settings, *, env: Mapping[str, str] | None = None) -> dramatiq.Broker:
    """A worker's broker: AsyncIO actors, Dramatiq's Prometheus middleware when the launcher
    asked for it (`env`: the process's environment, where Dramatiq reads its own variables),
    and set as Dramatiq's global broker, which the actors declared next are bound to."""
    check_broker_policy(settings.broker_redis)  # RELIABILITY 15: refused if it may evict
    b = broker(settings)
    if isinstance(b, WakeupRedisBroker):
        b.maintenance_chance = settings.maintenance_chance  # per million broker calls
    b.add_middleware(dramatiq.middleware.AsyncIO())
    add_worker_metrics(b, environment() if env is None else env)
    dramatiq.set_broker(b)
    return b


@contextlib.contextmanager
def resolve_queue(settings: Settings) -> Iterator[Enqueue]:
    """`enqueue(season_id, divan)`: asks the resolver workers for a Divan, sent by a thread of
    its own (the broker's round trip never stops the event loop, ADR-125); a send that fails
    is logged as `divan.enqueue_failed` (the scheduler hands the Divan over); the handover
    sends what waits, then the broker closes. The Divans waiting when the thread wakes go
    together: on the Redis broker in one round trip with their wake-up tokens (ADR-160, as
    the scheduler's hand-over, ADR-112), elsewhere one by one."""
    b = broker(settings)

    def failed(divan: tuple[str, int], exc: Exception) -> None:
        season_id, n = divan
        log.warning("divan.enqueue_failed", season_id=season_id, divan=n, error=type(exc).__name__)

    def send(divans: list[tuple[str, int]]) -> None:
        if isinstance(b, WakeupRedisBroker) and len(divans) > 1:
            b.enqueue_many([resolve_message(*divan) for divan in divans])  # a failure: each
            return
        for divan in divans:
            try:
                b.enqueue(resolve_message(*divan))
            except Exception as exc:  # the next one may pass
                failed(divan, exc)

    handover = Handover(lambda divan: send([divan]), failed, name="resolve-handover", batch=send)
    try:
        yield lambda season_id, divan: handover((season_id, divan))
    finally:
        handover.close()
        b.close()


@dataclass(frozen=True)
class DueQueue:
    """The scheduler's sender (`Scheduler(pool, q, send_all=q.all)`): `q(due)` hands one row
    of due work to the resolver workers, `q.all(rows)` a batch (on the Redis broker in one
    round trip, ADR-112); on RabbitMQ unconfirmed (ADR-97: due_work is the truth, the sweep
    sends a lost copy again)."""

    broker: dramatiq.Broker

    def __call__(self, due: Due) -> None:
        self.broker.enqueue(due_message(due.kind, due.season_id, due.divan))

    def all(self, rows: Sequence[Due]) -> None:
        messages = [due_message(d.kind, d.season_id, d.divan) for d in rows]
        if isinstance(self.broker, WakeupRedisBroker):
            self.broker.enqueue_many(messages)
            return
        for message in messages:
            self.broker.enqueue(message)


@contextlib.contextmanager
def due_queue(settings: Settings) -> Iterator[DueQueue]:
    """The scheduler's sender on the settings' broker (DueQueue), closed on exit."""
    b = broker(settings, confirm=False)
    try:
        yield DueQueue(b)
    finally:
        b.close()


@contextlib.contextmanager
def rebuild_queue(settings: Settings) -> Iterator[Callable[[str], None]]:
    """`rebuild(season_id)`: asks the projections workers to rebuild a season's read model."""
    b = broker(settings)

    def ask(season_id: str) -> None:
        msg: dramatiq.Message[Any] = dramatiq.Message(
            queue_name=PROJECTIONS_QUEUE,
            actor_name=REBUILD_ACTOR,
            args=(season_id,),
            kwargs={},
            options={},
        )
        b.enqueue(msg)

    try:
        yield ask
    finally:
        b.close()


# --- processes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiClients:
    """What the HTTP gateway (entrypoints/gateway.py) runs on while it serves."""

    store: EventStore
    enqueue: Enqueue
    redis: aioredis.Redis | None = None  # the read side's (None: the command API alone)
    rebuild: Callable[[str], None] | None = None
    notify: NotifyStore | None = None  # webhooks and push subscriptions (ADR-98)


@contextlib.asynccontextmanager
async def api_clients(
    settings: Settings,
    *,
    reads: bool = True,
    clock: Callable[[], datetime] = utc_now,
    store: EventStore | None = None,
    enqueue: Enqueue | None = None,
    redis: aioredis.Redis | None = None,
    rebuild: Callable[[str], None] | None = None,
) -> AsyncIterator[ApiClients]:
    """The gateway's clients for its lifespan: each one given (a test's) as it is, each one
    missing opened here (the API's pool, a resolve broker; with `reads` the read pool and a
    rebuild broker) and closed after it."""
    async with contextlib.AsyncExitStack() as opened:
        if store is None:
            store = await opened.enter_async_context(event_store(settings, "api", clock=clock))
        if enqueue is None:
            enqueue = opened.enter_context(resolve_queue(settings))
        if reads and redis is None:
            redis = await opened.enter_async_context(read_redis(settings))
        if reads and rebuild is None:
            rebuild = opened.enter_context(rebuild_queue(settings))
        notify = api_notify_store(settings, store)
        yield ApiClients(store, enqueue, redis, rebuild, notify)


def limiter_redis(settings: Settings) -> aioredis.Redis:
    """The request limits' client (shared/app/http/ratelimit.py), on the read side's URL."""
    return aioredis.Redis.from_url(settings.read_redis)


# the youngest generation's threshold of the serving process and the resolver and projections
# workers (settle_heap; the API's since ADR-164)
WORKER_YOUNG = 7_000


def settle_heap(young: int | None = None) -> None:
    """Move every object alive now (the modules, the app, its routes and schemas: ~130,000) out
    of the garbage collector's reach for good (`gc.freeze`), after one full collection.

    They live as long as the process, yet each of CPython's full (generation-2) collections
    walked them all: 110-215 ms a collection with the event loop stopped, every ten seconds or
    so under load, which every request in flight then waited out (issue 27, ADR-125: the tail
    of the reads' p99). A full collection now walks only what was made since. Called once, by
    the serving process's factory and at the end of each worker's bootstrap module (ADR-135:
    the resolver's and projections' full collections, ~40 ms each, walked their modules the
    same way); a test's app is not frozen (its process builds hundreds).

    `young`: the youngest generation's threshold from now on (CPython's is 700). Each worker
    passes WORKER_YOUNG: its allocations come and go by the thousand within one Divan (events
    decoded, views built, dropped by reference counting), and at 700 the collector ran 400-660
    times in a 20 s run for ~0.1 s of CPU a process, at 7,000 7-9 times (ADR-135). The serving
    process too (ADR-164): at 700 its collector stopped the event loop ~770 times in a 20 s
    trial load, six of them full collections of 40-80 ms; at 7,000 ~24 times, none full."""
    gc.collect()
    gc.freeze()
    if young is not None:
        gc.set_threshold(young, *gc.get_threshold()[1:])


def resolver_worker(
    settings: Settings, *, env: Mapping[str, str] | None = None
) -> tuple[dramatiq.Actor[[str, int], None], Lazy[Seasons]]:
    """The resolver worker: its broker, its lazily opened seasons, its actor."""
    b = worker_broker(settings, env=env)
    b.add_middleware(PrefetchPerThread())  # one message a thread and two spare (ADR-164)
    seasons: Lazy[Seasons] = Lazy(lambda: open_seasons(settings))
    return resolver_actors.declare(settings, b, seasons.get, utc_now), seasons


def projections_worker(
    settings: Settings,
) -> tuple[dramatiq.Actor[[str], None], dramatiq.Actor[[str], None]]:
    """The projections worker: its actors, the periodic sweep and the wake-up listener, each with
    a projector (and pool) of its own, the three sharing one table of season folds."""
    b = worker_broker(settings)
    folds = Cursors()  # one table of season folds for the three (issue 14)
    projector: Lazy[Projector] = Lazy(lambda: open_projector(settings, "projections", folds))
    actors = projection_actors.declare(b, projector.get)
    start_sweeper(
        lambda: open_projector(settings, "sweeper", folds),
        settings.projection_sweep_s,
        settings.release_after_s,
    )
    start_listener(settings.pg_dsn, lambda: open_projector(settings, "projections-woken", folds))
    return actors


def sweep_settings(settings: Settings) -> SweepSettings:
    return SweepSettings(
        interval_s=settings.sweep_interval_s,
        redeliver_after_s=settings.sweep_redeliver_s,
        batch=settings.sweep_batch,
        key_retention_s=settings.idempotency_key_retention_s,
        purge_every_s=settings.purge_interval_s,
    )


@contextlib.asynccontextmanager
async def scheduler(settings: Settings) -> AsyncIterator[Scheduler]:
    """The Divan scheduler over its own pool and broker, both closed on exit."""
    check_broker_policy(settings.broker_redis)  # RELIABILITY 15: refused if it may evict
    pool = await open_pool(settings, "scheduler")
    try:
        with due_queue(settings) as send:
            yield Scheduler(pool, send, settings=sweep_settings(settings), send_all=send.all)
    finally:
        await pool.close()
