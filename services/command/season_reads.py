"""A season read on the command side, afresh: its status, and a bey's own view (R-14)."""

from __future__ import annotations

from datetime import datetime

import msgspec
import structlog

from services.command.schemas import (
    AdminActOut,
    SeasonStatus,
)
from services.command.service import (
    Services,
    load,
    seat_of,
)
from shared.app.access.request_auth import BeyClaim
from shared.app.answers.bey_names import named_beys
from shared.app.answers.calendar_answer import calendar_out, lock_status
from shared.app.answers.fork_origin import forked_from
from shared.app.answers.private_view import PrivateView, private_view
from shared.domain import calendar as cal
from shared.domain.chat import press_mode
from shared.domain.decide import counting_divan, upcoming_divan
from shared.domain.state import (
    DIVANS,
    AdminAct,
    SeasonState,
    perde,
)

log = structlog.get_logger(__name__)


async def season_status(svc: Services, season_id: str) -> SeasonStatus:
    loaded = await load(svc, season_id)
    s = loaded.state
    over = s.phase == "over"
    nxt = upcoming_divan(s)
    status = SeasonStatus(
        season_id=season_id,
        mode=s.mode,
        phase=s.phase,
        divan=s.divan,
        next_divan=nxt,
        perde=perde(max(1, nxt or s.divan)),
        resolving=s.locked_divan is not None,
        version=loaded.version,
        rules_version=s.rules_version,
        seed_commitment=s.seed_commitment,
        ceasefire=nxt is not None and s.ceasefire_divan == nxt,
        han=s.han,
        seed=str(s.seed) if over else None,
        seed_salt=s.seed_salt if over else None,
        forked_from=forked_from(s),
        press=press_mode(s),
        beys=named_beys(s),
    )
    return _live_status(status, s, svc.clock())


def act_out(act: AdminAct) -> AdminActOut:
    return AdminActOut(act=act.act, reason=act.reason, at=cal.iso(act.at), by=act.by)


def _live_status(status: SeasonStatus, s: SeasonState, now: datetime) -> SeasonStatus:
    """A live season's status fields at `now` (none for a trial season: its answer unchanged)."""
    if s.mode != "live" or s.calendar is None:
        return status
    lock = lock_status(s, now)  # shared with the read side's summary
    return msgspec.structs.replace(
        status,
        calendar=calendar_out(s.calendar),
        next_divan_at=lock.next_divan_at,
        locked=lock.locked,
        seconds_to_lock=lock.seconds_to_lock,
        seconds_to_kurultay_close=lock.seconds_to_kurultay_close,
        listed=s.listed,
        description=s.description,
        paused=s.paused_at is not None,
        cancelled=s.cancelled,
        admin_acts=[act_out(a) for a in s.admin_acts],
    )


async def bey_view(svc: Services, claim: BeyClaim) -> PrivateView:
    """A bey's own view (R-14), on a fresh read: the PrivateView the read side's /private
    answers too (shared.app.answers.private_view; without the private reports the read side
    keeps)."""
    loaded = await load(svc, claim.season_id)
    s = loaded.state
    n: int | None = counting_divan(s, svc.clock())  # a live season's by its calendar
    if n is not None and n > DIVANS:
        n = None
    return private_view(s, seat_of(claim, s), loaded.version, divan=n)


# --- creating a season ----------------------------------------------------------------------
