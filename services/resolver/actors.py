"""Dramatiq actors of the resolver: thin, idempotent, retried a bounded number of times."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import dramatiq
import structlog

from services.resolver.divan import resolve
from shared.app.queues import (
    DIVANS_QUEUE,
    RESOLVE_DIVAN,
    add_worker_metrics,
    make_broker,
    project_message,
)
from shared.app.seasons import Seasons
from shared.eventstore import PoolSettings, PostgresEventStore, check_durability, create_pool
from shared.faults import fault
from shared.settings import Settings

log = structlog.get_logger(__name__)
MAX_RETRIES = 5  # RELIABILITY test 12: not Dramatiq's default 20 (about 30 days)


class _Resources:
    """The worker's pool and season cache, opened lazily on the worker's event loop."""

    seasons: Seasons | None = None


async def _seasons(settings: Settings) -> Seasons:
    if _Resources.seasons is None:
        pool = await create_pool(
            settings.pg_dsn,
            PoolSettings(
                max_size=4,
                lock_timeout_ms=settings.lock_timeout_ms,
                statement_timeout_ms=settings.statement_timeout_ms,
                application_name="resolver",
            ),
        )
        await check_durability(pool)
        _Resources.seasons = Seasons(PostgresEventStore(pool, clock=lambda: datetime.now(UTC)))
    return _Resources.seasons


EXHAUSTED_ACTOR = "resolve_divan_exhausted"


def on_retry_exhausted(message: dict[str, object], retry_info: dict[str, object]) -> None:
    """RELIABILITY 12: the alert for a dead-lettered Divan (ops requeue it once fixed)."""
    log.error(
        "resolver.retries_exhausted",
        message_id=message.get("message_id"),
        args=message.get("args"),
        retries=retry_info.get("retries"),
    )


def declare(settings: Settings) -> dramatiq.Actor[..., object]:
    """Set the broker and declare the actor (called once by the worker bootstrap)."""
    broker = make_broker(
        settings.redis_url,
        namespace=settings.broker_namespace,
        heartbeat_timeout=settings_value("SEKSENBIR_HEARTBEAT_TIMEOUT_MS", 60_000),  # tests: 2000
    )
    broker.maintenance_chance = settings_value("SEKSENBIR_MAINTENANCE_CHANCE", 1_000)  # per 1e6
    broker.add_middleware(dramatiq.middleware.AsyncIO())
    add_worker_metrics(broker)  # only if started with queues.worker_metrics
    dramatiq.set_broker(broker)

    @dramatiq.actor(
        actor_name=RESOLVE_DIVAN,
        queue_name=DIVANS_QUEUE,
        max_retries=MAX_RETRIES,
        min_backoff=int(settings_value("SEKSENBIR_MIN_BACKOFF_MS", 500)),
        max_backoff=30_000,
        time_limit=settings.resolve_time_limit_ms,  # above statement_timeout (Settings)
        on_retry_exhausted=EXHAUSTED_ACTOR,
    )
    async def resolve_divan_message(season_id: str, divan: int) -> None:
        seasons = await _seasons(settings)
        outcome = await resolve(seasons, season_id, divan)
        fault("before_ack")
        if outcome == "resolved":
            try:
                broker.enqueue(project_message(season_id))
            except Exception:
                log.warning("resolver.notify_failed", season_id=season_id)

    dramatiq.actor(actor_name=EXHAUSTED_ACTOR, queue_name=DIVANS_QUEUE, max_retries=3)(
        on_retry_exhausted
    )
    return resolve_divan_message


def settings_value(name: str, default: int) -> int:
    return int(os.environ.get(name, default))
