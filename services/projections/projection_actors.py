"""Dramatiq actors of the projections: woken after each append; a periodic sweep closes gaps."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable

import dramatiq
import structlog

from services.projections.projector import Projector
from services.projections.release import PASS_EVERY_S, RELEASE_AFTER_S, Releaser
from shared.app.messaging.queues import PROJECT_SEASON, PROJECTIONS_QUEUE

log = structlog.get_logger(__name__)
REBUILD_ACTOR = "rebuild_season"


def declare(
    broker: dramatiq.Broker, projector: Callable[[], Awaitable[Projector]]
) -> tuple[dramatiq.Actor[[str], None], dramatiq.Actor[[str], None]]:
    """Declare the actors on `broker` (the worker bootstrap's, entrypoints.bootstrap);
    `projector` gives the worker's projector, opened on first use on the actors' loop."""

    @dramatiq.actor(
        broker=broker,
        actor_name=PROJECT_SEASON,
        queue_name=PROJECTIONS_QUEUE,
        max_retries=5,
        min_backoff=200,
    )
    async def project_season(season_id: str) -> None:
        await (await projector()).woken(season_id)

    @dramatiq.actor(
        broker=broker,
        actor_name=REBUILD_ACTOR,
        queue_name=PROJECTIONS_QUEUE,
        max_retries=3,
        min_backoff=500,
    )
    async def rebuild_season(season_id: str) -> None:
        await (await projector()).rebuild(season_id)

    return project_season, rebuild_season


def start_sweeper(
    open_projector: Callable[[], Awaitable[Projector]],
    seconds: float,
    release_after: float = RELEASE_AFTER_S,
) -> threading.Thread:
    """A daemon thread with its own event loop: catch every season up every `seconds`, and
    every PASS_EVERY_S release the seasons quiet for `release_after` seconds (ADR-158; the
    pass also finishes an interrupted release, so it runs when `release_after` is 0 too); after
    a failed pass the next one opens a fresh projector (`open_projector`, on this thread's
    loop)."""

    def loop() -> None:
        async def run() -> None:
            sweeper: Projector | None = None
            behind: dict[str, int | None] = {}  # seasons behind at the last pass (ADR-112)
            released_at = time.monotonic()  # the first release pass: PASS_EVERY_S after start
            while True:
                try:
                    if sweeper is None:
                        sweeper = await open_projector()
                    await sweeper.sweep(behind)
                    if time.monotonic() - released_at >= PASS_EVERY_S:
                        released_at = time.monotonic()
                        await Releaser(sweeper.redis, sweeper.prefix, release_after).run()
                except Exception:
                    log.exception("projections.sweep_failed")
                    sweeper = None
                await asyncio.sleep(seconds)

        asyncio.run(run())

    thread = threading.Thread(target=loop, name="projection-sweeper", daemon=True)
    thread.start()
    return thread
