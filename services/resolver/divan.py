"""Resolve one Divan: load, fold, no-op if done, run the pure pipeline, append at the version."""

from __future__ import annotations

from typing import Literal

import structlog

from shared.app.seasons import SeasonNotFound, Seasons
from shared.domain import codec
from shared.domain.lifecycle import run_divan
from shared.eventstore import ConcurrencyError, EventMetadata
from shared.faults import fault

log = structlog.get_logger(__name__)
Outcome = Literal["resolved", "already_resolved", "not_requested", "not_found"]
SYSTEM = EventMetadata(actor="system")


async def resolve(seasons: Seasons, season_id: str, divan: int, retries: int = 5) -> Outcome:
    """Idempotent: a repeated or late message changes nothing (R-12.3, ARCHITECTURE.md).

    The computer turn, the lock with its inputs of record and the outcome are appended in one
    append at the version the season was loaded at; a conflict reloads and decides again.
    """
    for attempt in range(retries + 1):
        try:
            loaded = await seasons.load(season_id)
        except SeasonNotFound:
            log.warning("resolver.season_not_found", season_id=season_id, divan=divan)
            return "not_found"
        state = loaded.state
        if state.divan >= divan:
            log.info("resolver.already_resolved", season_id=season_id, divan=divan)
            return "already_resolved"
        # a request locks the next Divan only (decide.request_divan), so divan == state.divan + 1
        if state.locked_divan != divan or divan != state.divan + 1 or state.phase != "running":
            log.info(
                "resolver.not_requested",
                season_id=season_id,
                divan=divan,
                locked=state.locked_divan,
            )
            return "not_requested"
        events = run_divan(state)  # the computer turn, the lock and the resolution of `divan`
        fault("mid_resolve")
        meta = EventMetadata(
            actor="system", command_id=f"divan/{divan}", causation_id=f"divan/{divan}"
        )
        try:
            await seasons.append(season_id, loaded.version, f"divan/{divan}", events, meta)
        except ConcurrencyError:
            log.info("resolver.conflict", season_id=season_id, divan=divan, attempt=attempt)
            continue
        fault("after_append")
        log.info(
            "resolver.resolved",
            season_id=season_id,
            divan=divan,
            events=len(events),
            version=loaded.version + len(events),
            types=sorted({codec.event_type(e) for e in events}),
        )
        return "resolved"
    raise ConcurrencyError(season_id, -1, None)
