"""Dramatiq actors of the projections: woken after each append; a periodic sweep closes gaps."""

from __future__ import annotations

import asyncio
import os
import threading
from datetime import UTC, datetime

import dramatiq
import redis.asyncio as aioredis
import structlog

from services.projections.projector import Projector
from shared.app.queues import PROJECT_SEASON, PROJECTIONS_QUEUE, add_worker_metrics, make_broker
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from shared.settings import Settings

log = structlog.get_logger(__name__)
SWEEP_SECONDS = float(os.environ.get("SEKSENBIR_SWEEP_SECONDS", "2"))
REBUILD_ACTOR = "rebuild_season"


class _Resources:
    projector: Projector | None = None


async def projector(settings: Settings) -> Projector:
    if _Resources.projector is None:
        pool = await create_pool(
            settings.pg_dsn, PoolSettings(max_size=4, application_name="projections")
        )
        store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
        redis = aioredis.Redis.from_url(settings.redis_url)
        _Resources.projector = Projector(store, redis, settings.projection_prefix)
    return _Resources.projector


def declare(settings: Settings) -> tuple[dramatiq.Actor[..., object], dramatiq.Actor[..., object]]:
    broker = make_broker(settings.redis_url, namespace=settings.broker_namespace)
    broker.add_middleware(dramatiq.middleware.AsyncIO())
    add_worker_metrics(broker)  # only if started with queues.worker_metrics
    dramatiq.set_broker(broker)

    @dramatiq.actor(
        actor_name=PROJECT_SEASON, queue_name=PROJECTIONS_QUEUE, max_retries=5, min_backoff=200
    )
    async def project_season(season_id: str) -> None:
        await (await projector(settings)).catch_up(season_id)

    @dramatiq.actor(
        actor_name=REBUILD_ACTOR, queue_name=PROJECTIONS_QUEUE, max_retries=3, min_backoff=500
    )
    async def rebuild_season(season_id: str) -> None:
        await (await projector(settings)).rebuild(season_id)

    return project_season, rebuild_season


def start_sweeper(settings: Settings, seconds: float = SWEEP_SECONDS) -> threading.Thread:
    """A daemon thread with its own event loop: catch every season up every few seconds."""

    def loop() -> None:
        async def run() -> None:
            sweeper: Projector | None = None
            while True:
                try:
                    if sweeper is None:
                        pool = await create_pool(
                            settings.pg_dsn, PoolSettings(max_size=2, application_name="sweeper")
                        )
                        store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
                        sweeper = Projector(
                            store,
                            aioredis.Redis.from_url(settings.redis_url),
                            settings.projection_prefix,
                        )
                    await sweeper.sweep()
                except Exception:
                    log.exception("projections.sweep_failed")
                    sweeper = None
                await asyncio.sleep(seconds)

        asyncio.run(run())

    thread = threading.Thread(target=loop, name="projection-sweeper", daemon=True)
    thread.start()
    return thread
