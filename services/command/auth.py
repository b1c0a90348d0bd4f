"""Bey, ops and auditor tokens on the command API (shared.app.tokens parses and compares)."""

from __future__ import annotations

from typing import Any

from litestar import Request

from services.command.problems import Problem
from shared.app import tokens
from shared.app.tokens import new_token, token_hash
from shared.domain.state import SeasonState

__all__ = ["bearer", "bey", "new_token", "ops_only", "token_hash"]


def _problem(refused: tokens.TokenRefused) -> Problem:
    return Problem(refused.status, refused.code, refused.detail)


def bearer(request: Request[Any, Any, Any]) -> str | None:
    """The bearer token, or None; 400 `token_in_query` for a token in the URL."""
    query = request.query_params if request.scope["query_string"] else {}
    try:
        return tokens.bearer(request.headers.get("authorization", ""), query)
    except tokens.TokenRefused as refused:
        raise _problem(refused) from None


def ops_only(
    request: Request[Any, Any, Any], ops: tuple[str, ...], auditors: tuple[str, ...]
) -> None:
    """An ops token, or a problem: 401 without one or for a guess, 403 for another caller."""
    token = bearer(request)
    if token is None:
        raise Problem(401, "missing_token", "Ops jetonu gerekli / ops token required")
    role = tokens.staff_role(token, ops, auditors)
    if role == "ops":
        return
    if role is None:
        raise _problem(tokens.not_staff(token))
    raise Problem(403, "forbidden", "Bu işlem yalnız ops içindir / ops only")


def bey(request: Request[Any, Any, Any], season_id: str, state: SeasonState) -> int:
    """The seat a bey token names in this season, or a 400/401/403 problem (an ops or auditor
    token is 403 `forbidden`, not a failed attempt)."""
    token = bearer(request)
    svc = getattr(request.app.state, "services", None)
    staff_hashes = (*svc.ops, *svc.auditors) if svc is not None else ()
    try:
        return tokens.bey_seat(token, season_id, state.tokens.get, staff_hashes)
    except tokens.TokenRefused as refused:
        raise _problem(refused) from None
