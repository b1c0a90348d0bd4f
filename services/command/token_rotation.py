"""A bey's token rotated by the bey, or reissued by ops; the new token is shown once."""

from __future__ import annotations

from typing import Literal

import structlog

from services.command.schemas import (
    TokenOut,
)
from services.command.service import (
    Services,
    load,
    new_id,
    not_a_computer_bey,
    seat_of,
    write,
)
from shared.app.access import tokens
from shared.app.access.request_auth import BeyClaim
from shared.app.http.problems import Problem
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.eventstore import (
    EventMetadata,
)

log = structlog.get_logger(__name__)


async def rotate_token(svc: Services, claim: BeyClaim) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer."""
    seat = seat_of(claim, (await load(svc, claim.season_id)).state)
    # Re-checked on every attempt: a racing rotation may have retired this token meanwhile.
    return await _set_token(svc, claim.season_id, seat, "bey", claim)


async def reissue_token(svc: Services, season_id: str, seat: int) -> TokenOut:
    """Ops reissue a lost token (the caller is ops: the route's guard); an audited event. A
    computer bey's seat has none to reissue (R-11.2)."""
    not_a_computer_bey((await load(svc, season_id)).state, seat)
    return await _set_token(svc, season_id, seat, "ops", None)


async def _set_token(
    svc: Services, season_id: str, seat: int, by: Literal["bey", "ops"], claim: BeyClaim | None
) -> TokenOut:
    """Rotate `seat`'s token on a fresh read each attempt; no Idempotency-Key (a new secret
    each time), so a conflict simply decides again."""

    async def attempt(_n: int) -> TokenOut:
        loaded = await load(svc, season_id)
        if claim is not None:
            seat_of(claim, loaded.state)
        token = tokens.new_token(season_id, seat)
        result = decide(
            loaded.state, c.RotateToken(seat=seat, token_hash=tokens.token_hash(token), by=by)
        )
        if isinstance(result, c.Rejection):
            raise Problem.of(result)
        command_id = f"token/{new_id()}"
        meta = EventMetadata(
            actor="seat" if by == "bey" else "ops", seat=str(seat), command_id=command_id
        )
        await svc.seasons.append(season_id, loaded.version, command_id, result, meta)
        return TokenOut(seat, token)

    # not queued behind the season's writers, as before: a rotation is rare and its own
    return await write(svc, season_id, attempt, queued=False)
