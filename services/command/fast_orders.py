"""POST /v1/seasons/{season_id}/orders outside Litestar's per-request path (ADR-124).

An order is the API's most frequent command (19 beys, every Divan, issue 27). Litestar spent
about two fifths of an order's server work around the handler: its router, the CORS and HEAD
layers, three middlewares that only act on reads (`reads_only`), and inside the route the
kwargs model (an extractor per parameter) and the signature model (a msgspec conversion of
every argument). `orders_fast` answers a *plain* order request without them, and sends every
other request, untouched, to Litestar:

- plain: POST, the path exactly `/v1/seasons/<a season id>/orders` (no root path, no query
  string), a valid Host if any, no Origin (CORS), at most one Authorization header without a
  comma, at most one Idempotency-Key of 1 … 200 characters. Anything else is Litestar's,
  which answers it (its refusals, its order of refusals) as before;
- what it keeps, as the same objects: the app's middlewares that act on a command (the
  language, the failed-token and request limits, the JSON depth scan) with Litestar's two
  exception layers around and inside them (every refusal rendered by the app's own handlers,
  through the same send wrappers), the route's request class (the strict body decode, the body
  size limit), the `before_request` hook (but edge_checks, which a plain request passes by
  construction: ADR-130), the handler function itself and its
  `to_response`; the scope gets what Litestar's router sets (route handler, path template and
  parameters, exception handlers), so the access log and metrics around it are the same;
- an empty body goes to Litestar's own route (its "no data" answer).

The route stays declared in Litestar (the OpenAPI document is unchanged); tests/http/
test_fast_orders.py sends one corpus of requests to both paths and compares every answer.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Litestar
from litestar._asgi.utils import is_valid_host, wrap_in_exception_handler
from litestar.datastructures.headers import Headers
from litestar.routes import HTTPRoute
from litestar.types import Empty
from litestar.utils.scope.state import ScopeState
from multidict import CIMultiDict

from shared.app.access.request_auth import edge_checks
from shared.app.access.tokens import is_season_id

ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]
TEMPLATE = "/v1/seasons/{season_id}/orders"  # the path template Litestar's router names
_PATH = re.compile(r"/v1/seasons/([^/]*)/orders")
KEY_MAX = 200  # the route's Idempotency-Key parameter: 1 … 200 characters (route_parts.Key)


def reads_only(factory: Any) -> Any:
    """Mark a middleware factory whose middleware passes every command through untouched (it
    acts on GETs, HEADs and stream tickets only): the fast path leaves it out."""
    factory.reads_only = True
    return factory


def plain(scope: dict[str, Any]) -> str | None:
    """The season id of a plain order request (see the module docstring), else None."""
    if scope["method"] != "POST" or scope.get("root_path") or scope.get("query_string"):
        return None
    m = _PATH.fullmatch(scope["path"])
    if m is None or not is_season_id(sid := m.group(1)):
        return None
    authorizations = keys = 0
    for name, value in scope["headers"]:
        if name == b"authorization":
            authorizations += 1
            if authorizations > 1 or b"," in value:
                return None
        elif name == b"idempotency-key":
            keys += 1
            if keys > 1 or not 0 < len(value) <= KEY_MAX:
                return None
        elif name == b"origin" or (name == b"host" and not is_valid_host(value)):
            return None
    return sid


def headers_of(raw: list[tuple[bytes, bytes]]) -> Headers:
    """`Headers(raw)`, what a Litestar connection builds on its first look at its headers,
    without `Headers.__init__`'s two ABC isinstance checks (a raw header list is neither a
    MultiMapping nor a Mapping): the same CIMultiDict of latin-1 strings behind the same proxy
    (ADR-134; tests/http/test_fast_orders.py compares the two)."""
    made = Headers.__new__(
        Headers, CIMultiDict([(k.decode("latin-1"), v.decode("latin-1")) for k, v in raw])
    )
    made._header_list = None
    return made


def _route(app: Litestar) -> HTTPRoute:
    for route in app.routes:
        if isinstance(route, HTTPRoute) and route.path_format == TEMPLATE:
            return route
    raise LookupError(TEMPLATE)


def orders_fast(app: Litestar, litestar: ASGIApp) -> ASGIApp:
    """`litestar` (the app's handler) with plain order requests answered beside it."""
    route = _route(app)
    handler, _kwargs_model = route.route_handler_map["POST"]
    # what the fast path does not do must not be there to do
    assert not handler.resolve_guards() and not handler.cache
    assert handler.resolve_after_response() is None and handler.resolve_return_dto() is None
    assert not handler.has_sync_callable
    before = handler.resolve_before_request()
    if before is edge_checks:
        # A plain request passes the app's edge checks by construction (`plain`: a season id of
        # 32 hex digits is a possible one and holds no NUL; at most one Authorization, without
        # a comma): nothing to run (~5 % of an order's path, ADR-130). Another hook runs.
        before = None
    request_class = handler.resolve_request_class()
    fn = handler.fn
    exception_handlers = handler.resolve_exception_handlers()
    # handler.to_response without its look-ups: no return DTO (asserted above), and the handler
    # it picks for a Response (the route returns one) is the one it picks for any value
    respond = handler.get_response_handler(is_response_type_data=True)
    assert respond is handler.get_response_handler(is_response_type_data=False)

    async def handle(scope: Any, receive: Any, send: Any) -> None:
        """Litestar's HTTPRoute.handle for this route, its parameters read directly."""
        state = ScopeState.from_scope(scope)
        if state.headers is Empty:  # as Headers.from_scope caches them, built for less
            state.headers = headers_of(scope["headers"])
        request = request_class(scope=scope, receive=receive, send=send)
        if before is not None:
            await before(request)
        if not await request.body():  # Litestar's "no data": its own route answers (cached body)
            await route.handle(scope, receive, send)
            return
        data = await request.json()
        key = request.headers.get("idempotency-key")
        answer = await fn(request, scope["path_params"]["season_id"], data, key)
        response = await respond(app=scope["litestar_app"], data=answer, request=request)
        await response(scope, receive, send)

    stack: Any = wrap_in_exception_handler(handle)
    # as Litestar builds a route's stack (build_route_middleware_stack): its list is innermost first
    for factory in handler.resolve_middleware():
        if not getattr(factory, "reads_only", False):
            made: Any = factory  # the app's middlewares are factories of ASGI apps
            stack = made(app=stack)
    stack = wrap_in_exception_handler(stack)

    async def dispatch(scope: Any, receive: Any, send: Any) -> None:
        sid = plain(scope) if scope["type"] == "http" else None
        if sid is None:
            await litestar(scope, receive, send)
            return
        # what Litestar's router sets for a request it routed here
        scope["path_params"] = {"season_id": sid}
        scope["route_handler"] = handler
        scope["path_template"] = TEMPLATE
        ScopeState.from_scope(scope).exception_handlers = exception_handlers
        await stack(scope, receive, send)

    return dispatch
