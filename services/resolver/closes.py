"""A live season's timed closes: registration (R-1.4, R-11.1) and the Kurultay (R-10.4, R-10.5).

Like a Divan's resolution, each is idempotent and decided at the version the season was
loaded at: a message that arrives twice, early or after the close changes nothing. The close
is recorded at its scheduled instant, not at the worker's clock: a late worker changes no
calendar (live.closing_calendar keeps every instant when the close is at or after the set one).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import structlog

from shared.app.repository.seasons import (
    AuditCopyRefused,
    SeasonNotFound,
    Seasons,
    close_key,
    close_metadata,
    retrying,
)
from shared.domain import codec
from shared.domain import commands as c
from shared.domain.decide import decide

log = structlog.get_logger(__name__)
Outcome = Literal["closed", "already_closed", "not_due", "not_found", "audit_copy"]


async def close_registration(
    seasons: Seasons, season_id: str, now: datetime, retries: int = 5
) -> Outcome:
    """R-1.4: at its instant, a live season's registration closes and empty seats are filled."""
    return await _close(seasons, season_id, "registration", now, retries)


async def close_kurultay(
    seasons: Seasons, season_id: str, now: datetime, retries: int = 5
) -> Outcome:
    """R-10.4: 24 hours after Divan 16 the live Kurultay closes and the Han is crowned."""
    return await _close(seasons, season_id, "kurultay", now, retries)


async def _close(
    seasons: Seasons,
    season_id: str,
    kind: Literal["registration", "kurultay"],
    now: datetime,
    retries: int,
) -> Outcome:

    async def attempt(_n: int) -> Outcome:
        try:
            loaded = await seasons.load(season_id)
        except SeasonNotFound:
            log.warning("resolver.season_not_found", season_id=season_id, kind=kind)
            return "not_found"
        state, cal = loaded.state, loaded.state.calendar
        phase = "registration" if kind == "registration" else "kurultay"
        # a season cancelled by its admin (D-30) has nothing left to close
        if state.mode != "live" or cal is None or state.phase != phase or state.cancelled:
            log.info("resolver.already_closed", season_id=season_id, kind=kind)
            return "already_closed"
        due = cal.registration_closes_at if kind == "registration" else cal.kurultay_closes_at
        if due > now:
            log.info("resolver.not_due", season_id=season_id, kind=kind)
            return "not_due"
        command: c.Command = (
            c.CloseRegistration(at=due) if kind == "registration" else c.HoldKurultay()
        )
        events = decide(state, command)
        if isinstance(events, c.Rejection):  # the phases checked above make this a defect
            raise RuntimeError(f"{kind} close refused: {events.code}")
        try:
            await seasons.append(
                season_id, loaded.version, close_key(kind), events, close_metadata(kind)
            )
        except AuditCopyRefused:  # an imported copy is never resolved (ADR-58)
            log.warning("resolver.audit_copy", season_id=season_id, kind=kind)
            return "audit_copy"
        log.info(
            "resolver.closed",
            season_id=season_id,
            kind=kind,
            late_s=round((now - due).total_seconds(), 3),
            types=sorted({codec.event_type(e) for e in events}),
        )
        return "closed"

    async def conflict(n: int) -> None:
        log.info("resolver.conflict", season_id=season_id, kind=kind, attempt=n)

    return await retrying(season_id, retries, attempt, on_conflict=conflict)
