"""Ops reset a bey's name (R-15.2, R-15.5; issue 23): an insulting name is the first thing
moderation meets ("Memlekete laf söylenmez"); the reset is an event with its reason and the
server instant, and the bey is shown by its seat again. A live season's lobby description is
reset the same way (ADR-105): the lobby then shows none."""

from __future__ import annotations

import msgspec
import structlog

from services.command.service import Services, decided, load, new_id, stamp, write
from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.names import display_name
from shared.eventstore import EventMetadata

log = structlog.get_logger(__name__)


class NameResetOut(msgspec.Struct, frozen=True):
    """The reset as recorded: the seat, the name it is shown by now, why, when (+03:00), and
    the season's version with it."""

    seat: int
    name: str
    reason: str
    at: str
    version: int


async def reset_name(svc: Services, season_id: str, seat: int, reason: str) -> NameResetOut:
    """R-15.2: decided on a fresh read at the server instant; refused `invalid_name` for a seat
    without a chosen name, `reason_required` for a blank reason."""
    await load(svc, season_id)

    async def attempt(_n: int) -> NameResetOut:
        loaded, at = await load(svc, season_id), svc.clock()
        events: list[ev.Event] = []
        after = decided(loaded.state, events, c.ResetName(seat=seat, reason=reason, at=at))
        command_id = f"name-reset/{new_id()}"
        meta = EventMetadata(actor="ops", command_id=command_id, at=stamp(at))
        await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        log.info("season.name_reset", season_id=season_id, seat=seat)
        bey = after.bey(seat)
        assert bey is not None
        shown = display_name(after.names, seat, bey.memleket, bey.computer)
        version = loaded.version + len(events)
        return NameResetOut(seat, shown, reason, cal.exact(at), version)

    return await write(svc, season_id, attempt)


class DescriptionResetOut(msgspec.Struct, frozen=True):
    """The reset as recorded: the season listed or not (as it was), its description now
    (none), why, when (+03:00), and the season's version with it."""

    listed: bool
    description: str | None
    reason: str
    at: str
    version: int


async def reset_description(svc: Services, season_id: str, reason: str) -> DescriptionResetOut:
    """R-15.2, ADR-105: decided on a fresh read at the server instant; refused
    `no_description` for a season without one, `not_allowed_in_mode` for a trial season,
    `reason_required` for a blank reason."""
    await load(svc, season_id)

    async def attempt(_n: int) -> DescriptionResetOut:
        loaded, at = await load(svc, season_id), svc.clock()
        events: list[ev.Event] = []
        after = decided(loaded.state, events, c.ResetDescription(reason=reason, at=at))
        command_id = f"description-reset/{new_id()}"
        meta = EventMetadata(actor="ops", command_id=command_id, at=stamp(at))
        await svc.seasons.append(season_id, loaded.version, command_id, events, meta)
        log.info("season.description_reset", season_id=season_id)
        version = loaded.version + len(events)
        return DescriptionResetOut(after.listed, after.description, reason, cal.exact(at), version)

    return await write(svc, season_id, attempt)
