"""The event stream's single-use tickets, bound to the token that asked for them (ADR-171).

A ticket keeps `season:seat:<SHA-256 of the token>`: once that token is rotated (or reissued
by ops), the ticket opens no private stream (401 `bad_ticket`), and a private stream it opened
ends before it would tell the bey anything more (R-14: "the old token stops working")."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request

from services.projections.context import ctx, season_read
from services.projections.reads import decode
from shared.app.access import tokens
from shared.app.http.problems import Problem

TICKET_TTL_S = 30
Holds = Callable[[], Awaitable[bool]]  # whether the ticket's token is still the seat's


async def issue(request: Request[Any, Any, Any], season_id: str, seat: int) -> str:
    """A new ticket for `seat`, whose token the request's `seat` dependency has just checked."""
    c = ctx(request)
    value = secrets.token_urlsafe(24)
    token = tokens.bearer(request.headers.get("authorization", ""), {}) or ""
    owner = f"{season_id}:{seat}:{tokens.token_hash(token)}"
    await c.redis.set(f"{c.prefix}:ticket:{value}", owner, ex=TICKET_TTL_S)
    return value


async def use(request: Request[Any, Any, Any], season_id: str, ticket: str) -> tuple[int, Holds]:
    """The seat a ticket of this season was issued to, and its `holds` check; using it uses
    it up. 401 `bad_ticket` for one unknown, used, of another season or of a rotated token."""
    c = ctx(request)
    owner = await c.redis.getdel(f"{c.prefix}:ticket:{ticket}")
    parts = owner.decode().split(":") if owner is not None else []
    if len(parts) != 3 or parts[0] != season_id:
        raise Problem(401, "bad_ticket")
    seat, digest = int(parts[1]), parts[2]

    async def holds() -> bool:  # the projection's token hashes, as `/private` reads them
        _meta, (kept,) = await season_read(
            request, season_id, lambda k, p: p.hget(k.auth, str(seat))
        )
        stored = decode(kept)
        return stored is not None and tokens.same_hash(str(stored), digest)

    if not await holds():
        raise Problem(401, "bad_ticket")  # its token was rotated since
    return seat, holds


async def still_held(
    holds: Holds | None, said: bool, pending: list[tuple[int, str, str]], sent: int
) -> bool:
    """Whether a stream may send what it has now (`said` chat notices, messages `pending` past
    `sent`): always a public one or one with nothing to send, else while its ticket's token
    holds (before it sends anything after `ready`)."""
    if holds is None or not (said or any(score > sent for score, _id, _data in pending)):
        return True
    return await holds()
