"""The query API's authentication (shared.app.access.request_auth does the work).

- `staff`: a dependency that answers 'ops' or 'auditor' for a staff token (401 without a token
  or for a guess, 403 for a bey's), resolved before the handler reads Redis;
- `ops_guard`: a guard that lets only an ops token through (the same 401s; 403 for an
  auditor's or a bey's);
- `seat`: a dependency that answers the bey's seat for its token, after reading the token
  hashes the season's projection holds (so 404 unknown / 503 rebuilding answer first);
- `role` and `bey_seat`: checks a handler makes itself where what they allow depends on the
  season it has read (battles and orders: the phase decides whether a token is needed at all).
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.di import Provide
from litestar.handlers.base import BaseRouteHandler

from services.projections.context import ctx, season_read
from services.projections.reads import decode
from shared.app.access import request_auth as edge
from shared.app.http.problems import Problem

STAFF_MISSING = "missing_token.staff"  # shared.domain.messages
ADMIN_FIELD = "admin"  # the auth view's field of the season-admin token hash (views.all_views)


def staff(request: Request[Any, Any, Any]) -> str:
    """'ops' or 'auditor'; a bey's token 403, a guess 401 (shared.app.access.request_auth)."""
    c = ctx(request)
    return edge.require_staff(request, c.ops, c.auditors, missing=STAFF_MISSING)


async def ops_guard(connection: Any, _handler: BaseRouteHandler) -> None:
    """Ops only: an auditor's token, like a bey's, is 403 (guards run before the handler)."""
    await edge.edge_guard(connection, _handler)  # the app's checks come first (edge_checks)
    if staff(connection) != "ops":
        raise Problem(403, "forbidden.ops")


def role(request: Request[Any, Any, Any]) -> str | None:
    """'ops' or 'auditor' for a staff token, else None."""
    c = ctx(request)
    return edge.staff_role(request, c.ops, c.auditors)


def bey_seat(request: Request[Any, Any, Any], season_id: str, auth: dict[bytes, bytes]) -> int:
    """The seat whose token hash the projection holds, or a 401/403 problem
    (shared.app.access.tokens: the same strict parser as the command API)."""

    def stored(seat: int) -> str | None:
        kept = decode(auth.get(str(seat).encode()))
        return None if kept is None else str(kept)

    c = ctx(request)
    admin = decode(auth.get(ADMIN_FIELD.encode()))  # a live season's season-admin token hash
    claim = edge.BeyClaim.of(request, season_id, (*c.ops, *c.auditors))
    return claim.seat(stored, str(admin) if admin else "")


async def seat(request: Request[Any, Any, Any], season_id: str) -> int:
    """The requesting bey's seat: the season read first (404/503), then its token (401/403)."""
    _meta, (hashes,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.auth))
    return bey_seat(request, season_id, hashes)


STAFF = {"staff": Provide(staff, sync_to_thread=False)}
BEY = {"seat": Provide(seat)}
