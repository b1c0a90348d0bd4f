"""The command API's authentication, as Litestar dependencies (shared.app.access.request_auth does
the work).

- `claim`: the bey claim of a request on a season's endpoint, checked by the service on the
  fold it decides on (shared.app.access.request_auth.BeyClaim);
- `context`: that claim with the request's Idempotency-Key (and the hash of the request it
  came with) and correlation id: the service's `Context`; a bey's command routes
  (services/command/bey_routes.py) read it with `command_of`, one call in the handler, not as
  a dependency (ADR-119);
- `ops_guard`: a guard that lets only an ops token through (401 without one or for a guess,
  403 for an auditor's or a bey's).
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import Headers
from litestar.di import Provide
from litestar.handlers.base import BaseRouteHandler

from services.command.service import Context, Key, Services
from shared.app.access import request_auth as auth
from shared.app.http.bodies import ParsedBody
from shared.app.http.language import negotiate
from shared.app.http.problems import Problem
from shared.app.http.strict import StrictRequest
from shared.eventstore import request_hash


def services(request: Request[Any, Any, Any]) -> Services:
    return request.app.state.services  # type: ignore[no-any-return]


# `claim` and `context` take `services` as a dependency of their own (not only the handler):
# Litestar resolves dependencies of one level together in an anyio task group, a task per
# dependency per request; one after the other they cost no task (bench.api_orders).
async def claim(
    request: Request[Any, Any, Any], season_id: str, services: Services
) -> auth.BeyClaim:
    return auth.BeyClaim.of(request, season_id, services.staff)


async def context(request: Request[Any, Any, Any], season_id: str, services: Services) -> Context:
    # The header's length (≤ 200) is the route's Idempotency-Key parameter's to refuse.
    keyed = request.headers.get("idempotency-key") is not None
    return context_of(
        request.scope,
        request.headers,
        auth.BeyClaim.of(request, season_id, services.staff),
        _parsed(request, await request.body()) if keyed else None,
    )


def context_of(
    scope: Any, headers: Headers, claim: auth.BeyClaim, parsed: ParsedBody | None
) -> Context:
    """The `Context` of a request with these headers and claim; `parsed`, its body's parse,
    when it has an Idempotency-Key. `context`'s, and the order fast path's, which has no
    Request (ADR-134)."""
    # The same JSON is the same request, whatever its layout: the hash is over its canonical form.
    value = headers.get("idempotency-key")
    key = (
        Key(value, request_hash(scope["method"], scope["path"], _body_of(parsed).canonical))
        if value is not None
        else None
    )
    return Context(
        claim=claim,
        key=key,
        correlation_id=headers.get("x-request-id"),
        # what request.url.path is (Litestar's URL.from_scope), without building the URL: its
        # host look-up walks the headers and its query string is decoded (ADR-130)
        instance=scope.get("root_path", "") + scope["path"],
        lang=negotiate(scope),
    )


async def key_of(request: Request[Any, Any, Any]) -> Key | None:
    """A request's Idempotency-Key and the hash of the request it came with, on a route that
    is no bey's command (a creation, ADR-178); None without one."""
    value = request.headers.get("idempotency-key")
    if value is None:
        return None
    parsed = _parsed(request, await request.body())
    return Key(
        value, request_hash(request.scope["method"], request.scope["path"], parsed.canonical)
    )


def _body_of(parsed: ParsedBody | None) -> ParsedBody:
    if parsed is None:
        raise TypeError("a keyed request's Context needs its body's parse")
    return parsed


AnyRequest = Request[Any, Any, Any]


async def command_of(request: AnyRequest, season_id: str) -> tuple[Services, Context]:
    """The services and the `Context` of a bey's command, read in the handler (ADR-119).

    The same values as the `services` and `context` dependencies, read at the same point
    (after the body and the path parameters were parsed, before the handler runs; neither
    refuses anything): as dependencies Litestar resolved each one per request through its
    signature model (a msgspec conversion of its arguments) and a resolver, ~30 µs an order.
    """
    svc: Services = request.app.state.services
    return svc, await context(request, season_id, svc)


def _parsed(request: Request[Any, Any, Any], body: bytes) -> ParsedBody:
    """The body's parse its duplicate-key check read too (a StrictRequest's), else one."""
    if isinstance(request, StrictRequest):
        return request.parsed_body(body)
    return ParsedBody(body)


async def ops_guard(connection: Any, _handler: BaseRouteHandler) -> None:
    """Ops only: a staff token of ops (guards run before the handler's parameters parse)."""
    await auth.edge_guard(connection, _handler)  # the app's checks come first (edge_checks)
    svc = services(connection)
    role = auth.require_staff(connection, svc.ops, svc.auditors, missing="missing_token.ops")
    if role != "ops":
        raise Problem(403, "forbidden.ops")


async def staff_guard(connection: Any, _handler: BaseRouteHandler) -> None:
    """Auditors and ops: 401 without a token or for a guess, 403 for a bey's."""
    await auth.edge_guard(connection, _handler)  # the app's checks come first (edge_checks)
    svc = services(connection)
    auth.require_staff(connection, svc.ops, svc.auditors, missing="missing_token.staff")


DEPENDENCIES = {
    "services": Provide(services, sync_to_thread=False),
    "claim": Provide(claim),
    "context": Provide(context),
}
