"""Tokens at the HTTP edge of both APIs: the bearer of a request, a bey's claim, staff roles.

shared.app.access.tokens holds the rules (the strict parser, the hash, the comparisons); this module
only takes a token out of a request and turns a `TokenRefused` into a `Problem`. Each API
provides these as Litestar dependencies (services/command/request_context.py, services/projections/
query.py), so no handler reads the Authorization header itself.

A bey's claim is checked against a season state, which only the service has: the command
service authorises on its cached fold first and again on every fresh read (a token rotated in
another process stops working as soon as the append sees the rotation). So the dependency
yields the claim, and the claim refuses (`seat`) when it is checked, in the same order of
refusals as before: body and header validation first, then the season, then the token.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec
from litestar import Request

from shared.app.access import tokens
from shared.app.http.parameters import one_query_value, path_parameters
from shared.app.http.problems import Problem


async def one_authorization(connection: Any, _handler: Any) -> None:
    """An app guard (issue 20, ADR-75): a request with two Authorization headers is 400
    `ambiguous_authorization` on every route, before any token is read; which one a proxy, a
    log or a reviewer saw is not known, so neither is taken (it was the first). Two field
    lines, or one holding a comma: what an intermediary makes of two (RFC 9110 §5.3), and
    never part of one credential (a bearer token, token68, has no comma)."""
    if connection.scope["method"] == "OPTIONS":  # the router's Allow list: reads no token
        return
    given = connection.headers.getall("authorization", [])
    if len(given) > 1 or any("," in value for value in given):
        raise Problem(400, "ambiguous_authorization")


async def edge_checks(request: Any) -> None:
    """The app's own checks, run on every route before its guards' token checks,
    dependencies (the bey claim) and body: a path parameter no resource can have is 404
    before a token is read and a query parameter that takes one value given twice is 422
    (shared.app.http.parameters), then two Authorization headers are 400
    (ADR-75). They are the app's `before_request` hook, not a guard (ADR-111): Litestar copies
    the route handler (41 slots) for every guard it calls on every request, which cost an
    order more than both checks together. A route with guards of its own (ops, staff) calls
    edge_guard first, so the order holds there too."""
    await path_parameters(request)
    await one_query_value(request)
    await one_authorization(request, None)


async def edge_guard(connection: Any, _handler: Any) -> None:
    """edge_checks, first thing in a route's own guard (see there)."""
    await edge_checks(connection)


def bearer(request: Request[Any, Any, Any]) -> str | None:
    """The bearer token, or None; 400 `token_in_query` for a token in the URL."""
    return _bearer(request.headers.get("authorization", ""), _query(request))


def _query(request: Request[Any, Any, Any]) -> Mapping[str, object]:
    # no query string, nothing to parse (the common case on the order path)
    return request.query_params if request.scope["query_string"] else {}


def _bearer(authorization: str, query: Mapping[str, object]) -> str | None:
    try:
        return tokens.bearer(authorization, query)
    except tokens.TokenRefused as refused:
        raise Problem.refused(refused) from None


class BeyClaim(msgspec.Struct, frozen=True):  # a Struct: built in C (ADR-145)
    """What a request presents as a bey of `season_id`: checked by `seat(state's hashes)`."""

    season_id: str
    authorization: str
    query: Mapping[str, object]
    staff: tuple[str, ...]  # ops and auditor token hashes: 403 `forbidden` on a bey endpoint

    @classmethod
    def of(
        cls, request: Request[Any, Any, Any], season_id: str, staff: tuple[str, ...]
    ) -> BeyClaim:
        return cls(season_id, request.headers.get("authorization", ""), _query(request), staff)

    def rotated(self, stored: Callable[[int], str | None], secret: str) -> tuple[int, str] | None:
        """ADR-178: a rotation sent again after its answer was lost carries the old token,
        refused now. Exactly this case is let through: the bearer is a well-formed bey token
        of this season, and the hash its seat keeps is that of the token `secret` makes for
        that seat (only the one who drew the secret knows it). The seat and that token; None
        otherwise (the bearer is then checked as ever)."""
        try:
            token = _bearer(self.authorization, self.query)
        except Problem:
            return None
        bey = None if token is None else tokens.parse(token)
        if bey is None or bey.season_id != self.season_id:
            return None
        made = tokens.new_token(self.season_id, bey.seat, secret)
        return (bey.seat, made) if tokens.holds(stored(bey.seat), made) else None

    def seat(self, stored: Callable[[int], str | None], admin: str = "") -> int:
        """The seat whose token this is (`stored(seat)`: the seat's token hash or None), or a
        400/401/403 problem (an ops or auditor token, or the season's own season-admin token
        whose hash is `admin`, is 403 `forbidden`, not a guess)."""
        token = _bearer(self.authorization, self.query)
        try:
            return tokens.bey_seat(token, self.season_id, stored, self.staff, admin)
        except tokens.TokenRefused as refused:
            raise Problem.refused(refused) from None


def staff_role(
    request: Request[Any, Any, Any], ops: tuple[str, ...], auditors: tuple[str, ...]
) -> str | None:
    """'ops' or 'auditor' for a staff token, else None (no token, or another one)."""
    token = bearer(request)
    return None if token is None else tokens.staff_role(token, ops, auditors)


def require_staff(
    request: Request[Any, Any, Any],
    ops: tuple[str, ...],
    auditors: tuple[str, ...],
    *,
    missing: str,
) -> str:
    """'ops' or 'auditor', or a problem: 401 without a token or for a guess, 403 for a bey's."""
    token = bearer(request)
    if token is None:
        raise Problem.refused(tokens.missing_token(missing))
    role = tokens.staff_role(token, ops, auditors)
    if role is None:
        raise Problem.refused(tokens.not_staff(token))
    return role
