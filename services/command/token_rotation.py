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
from shared.domain.state import SeasonState
from shared.eventstore import (
    EventMetadata,
)

log = structlog.get_logger(__name__)


async def rotate_token(svc: Services, claim: BeyClaim, secret: str | None = None) -> TokenOut:
    """The old token stops working at once; the new one is shown only in this answer. With the
    client's own `secret` (ADR-178), the rotation sent again with the old token after a lost
    answer is answered with the same new token, appending nothing."""
    state = (await load(svc, claim.season_id)).state
    again = _rotated_before(state, claim, secret)
    if again is not None:
        return again
    seat = seat_of(claim, state)
    # Re-checked on every attempt: a racing rotation may have retired this token meanwhile.
    return await _set_token(svc, claim.season_id, seat, "bey", claim, secret=secret)


def _rotated_before(state: SeasonState, claim: BeyClaim, secret: str | None) -> TokenOut | None:
    """The answer of the rotation this one repeats (ADR-178): the seat already holds the token
    the client's secret makes for it (request_auth.BeyClaim.rotated); None otherwise."""
    if secret is None:
        return None
    found = claim.rotated(state.tokens.get, secret)
    if found is None:
        return None
    not_a_computer_bey(state, found[0])
    log.info("token.rotation_answered_again", season_id=state.season_id, seat=found[0])
    return TokenOut(*found)


async def reissue_token(svc: Services, season_id: str, seat: int) -> TokenOut:
    """Ops reissue a lost token (the caller is ops: the route's guard); an audited event. A
    computer bey's seat has none to reissue (R-11.2)."""
    not_a_computer_bey((await load(svc, season_id)).state, seat)
    return await _set_token(svc, season_id, seat, "ops", None)


async def _set_token(
    svc: Services,
    season_id: str,
    seat: int,
    by: Literal["bey", "ops"],
    claim: BeyClaim | None,
    *,
    secret: str | None = None,
) -> TokenOut:
    """Rotate `seat`'s token on a fresh read each attempt; no Idempotency-Key (a new secret
    each time, or the client's own, by which a retry is recognised), so a conflict simply
    decides again."""

    async def attempt(_n: int) -> TokenOut:
        loaded = await load(svc, season_id)
        if claim is not None:
            again = _rotated_before(loaded.state, claim, secret)
            if again is not None:  # a copy of this rotation committed meanwhile
                return again
            seat_of(claim, loaded.state)
        token = tokens.new_token(season_id, seat, secret)
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
