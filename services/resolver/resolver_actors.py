"""Dramatiq actors of the resolver: thin, idempotent, retried a bounded number of times."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import dramatiq
import structlog

from services.resolver.closes import close_kurultay, close_registration
from services.resolver.divan import resolve
from shared.app.messaging.queues import (
    CLOSE_KURULTAY,
    CLOSE_REGISTRATION,
    DIVANS_QUEUE,
    RESOLVE_DIVAN,
)
from shared.app.repository.seasons import Seasons
from shared.faults import fault
from shared.settings import Settings

# resolve is looked up through this module at each message: the seam the resolver's tests wrap.
__all__ = ["EXHAUSTED_ACTOR", "MAX_RETRIES", "Closer", "declare", "on_retry_exhausted", "resolve"]
log = structlog.get_logger(__name__)
Closer = Callable[[Seasons, str, datetime], Awaitable[str]]
MAX_RETRIES = 5  # RELIABILITY test 12: not Dramatiq's default 20 (about 30 days)


EXHAUSTED_ACTOR = "resolve_divan_exhausted"


def on_retry_exhausted(message: dict[str, object], retry_info: dict[str, object]) -> None:
    """RELIABILITY 12: the alert for a dead-lettered Divan (ops requeue it once fixed)."""
    log.error(
        "resolver.retries_exhausted",
        message_id=message.get("message_id"),
        args=message.get("args"),
        retries=retry_info.get("retries"),
    )


def declare(
    settings: Settings,
    broker: dramatiq.Broker,
    seasons: Callable[[], Awaitable[Seasons]],
    clock: Callable[[], datetime],
) -> dramatiq.Actor[[str, int], None]:
    """Declare the actors on `broker` (the worker bootstrap's, entrypoints.bootstrap); `seasons`
    gives the worker's season repository, opened on first use on the actor's event loop;
    `clock` is the worker's clock, which decides whether a live deadline has passed."""

    # Every actor of the divans queue: retried a bounded number of times, then dead-lettered
    # with one alert (RELIABILITY 12); the time limit is above statement_timeout (Settings).
    options: dict[str, Any] = {
        "broker": broker,
        "queue_name": DIVANS_QUEUE,
        "max_retries": MAX_RETRIES,
        "min_backoff": settings.min_backoff_ms,
        "max_backoff": 30_000,
        "time_limit": settings.resolve_time_limit_ms,
        "on_retry_exhausted": EXHAUSTED_ACTOR,
    }

    # No wake-up message for the projectors after an append (ADR-112): the store's NOTIFY
    # wakes them (ADR-22) and their sweep is the truth; a message per Divan cost the resolver
    # two Redis round trips and the projectors a second, racing catch-up of the season.

    @dramatiq.actor(actor_name=RESOLVE_DIVAN, **options)
    async def resolve_divan_message(season_id: str, divan: int) -> None:
        await resolve(await seasons(), season_id, divan, now=clock())
        fault("before_ack")

    def closer(actor_name: str, close: Closer) -> None:
        """A live season's registration or Kurultay close, retried and dead-lettered like a
        Divan (the scheduler sends it again while it stays due)."""

        async def close_message(season_id: str) -> None:
            await close(await seasons(), season_id, clock())

        dramatiq.actor(actor_name=actor_name, **options)(close_message)

    closer(CLOSE_REGISTRATION, close_registration)
    closer(CLOSE_KURULTAY, close_kurultay)
    dramatiq.actor(
        broker=broker, actor_name=EXHAUSTED_ACTOR, queue_name=DIVANS_QUEUE, max_retries=3
    )(on_retry_exhausted)
    return resolve_divan_message
