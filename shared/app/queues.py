"""Queue and actor names both services use, and the broker they meet on (Dramatiq, Redis)."""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.redis import RedisBroker

DIVANS_QUEUE = "divans"
RESOLVE_DIVAN = "resolve_divan"
PROJECTIONS_QUEUE = "projections"
PROJECT_SEASON = "project_season"


def make_broker(
    redis_url: str, namespace: str = "dramatiq", heartbeat_timeout: int = 60_000
) -> RedisBroker:
    """A Redis broker; `namespace` keeps test runs and deployments apart on one Redis."""
    return RedisBroker(url=redis_url, namespace=namespace, heartbeat_timeout=heartbeat_timeout)


def resolve_message(season_id: str, divan: int) -> dramatiq.Message[object]:
    """The message a resolver worker answers: resolve Divan `divan` of a season (idempotent)."""
    return dramatiq.Message(
        queue_name=DIVANS_QUEUE,
        actor_name=RESOLVE_DIVAN,
        args=(season_id, divan),
        kwargs={},
        options={},
    )


def project_message(season_id: str) -> dramatiq.Message[object]:
    """A wake-up for the projectors: a season has new events (a hint; the sweep is the truth)."""
    return dramatiq.Message(
        queue_name=PROJECTIONS_QUEUE,
        actor_name=PROJECT_SEASON,
        args=(season_id,),
        kwargs={},
        options={},
    )
