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
- an empty body goes to Litestar's own route (its "no data" answer);
- without a Request (ADR-134): while the route is what `_bare` reads (`_is_bare`), a plain
  order's body is read by `read_body` (Request.stream's loop and refusals), decoded by
  StrictRequest's own `decode_strict`, and answered by submit_orders' own steps (`orders_of`,
  `context_of`, `execute`, `answered`) on the scope and its Headers, through the route's
  response handler; else the Request path above.

The route stays declared in Litestar (the OpenAPI document is unchanged); tests/http/
test_fast_orders.py sends one corpus of requests to both paths and compares every answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Awaitable, Callable
from enum import Enum
from typing import Any, cast

from litestar import Litestar
from litestar._asgi.utils import is_valid_host, wrap_in_exception_handler
from litestar.datastructures.headers import Headers
from litestar.exceptions import ClientException, InternalServerException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.handlers.http_handlers._utils import normalize_headers
from litestar.routes import HTTPRoute
from litestar.types import Empty
from litestar.utils.scope.state import ScopeState
from multidict import CIMultiDict

from services.command.bey_routes import orders_of, submit_orders
from services.command.request_context import context_of
from services.command.route_parts import answered
from services.command.schemas import OrdersIn
from services.command.service import Services
from services.command.unit_of_work import execute
from shared.app.access.request_auth import BeyClaim, edge_checks
from shared.app.access.tokens import is_season_id
from shared.app.http.bodies import ParsedBody
from shared.app.http.strict import StrictRequest, decode_strict

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
            # find, not `in`: bytes.__contains__ tries the operand as an int first (a
            # TypeError made and dropped, ~2 k instructions an order: ADR-145)
            if authorizations > 1 or value.find(b",") >= 0:
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


async def read_body(headers: Headers, receive: Any, limit: float) -> bytes:
    """`await request.body()` on a request nobody has read: Request.stream's loop and its
    refusals, in their order, without its async generator (ADR-134). A Content-Length that is
    not a number is 400, one above `limit` (the route's request_max_body_size) 413 before
    anything is read, as are more bytes than that read; a disconnect before the end is 500."""
    announced = headers.get("content-length")
    try:
        length = int(announced) if announced is not None else None
    except ValueError:
        raise ClientException(f"Invalid content-length: {announced!r}") from None
    if length is not None and length > limit:
        raise RequestEntityTooLarge
    chunks: list[bytes] = []
    total = 0
    while event := await receive():
        if event["type"] == "http.request":
            chunk = event["body"]
            if chunk:
                total += len(chunk)
                if total > limit:
                    raise RequestEntityTooLarge
                chunks.append(chunk)
            if not event.get("more_body", False):
                break
        if event["type"] == "http.disconnect":
            raise InternalServerException("client disconnected prematurely")
    return b"".join(chunks)


def _route(app: Litestar) -> HTTPRoute:
    for route in app.routes:
        if isinstance(route, HTTPRoute) and route.path_format == TEMPLATE:
            return route
    raise LookupError(TEMPLATE)


def _is_bare(handler: Any, before: Any) -> bool:
    """Whether `_bare` answers as `handle` does: the route's handler is submit_orders with no
    hook before it, a StrictRequest decoding an OrdersIn, and a response handler that answers
    an Answer as Answer.to_asgi_response does with no route media type, headers, cookies,
    background or after-request hook (the differential test holds the two equal)."""
    media = handler.media_type
    media = media.value if isinstance(media, Enum) else media
    return bool(
        handler.fn is submit_orders.fn  # the route's function (`submit_orders`: its handler)
        and before is None
        and handler.resolve_request_class() is StrictRequest
        and handler.parsed_fn_signature.parameters["data"].annotation is OrdersIn
        and not any(layer.after_request for layer in handler.ownership_layers)
        and media in (None, "", "application/json")
        and not (handler.background or handler.resolve_response_cookies())
        and not normalize_headers(handler.resolve_response_headers())
    )


def _bare(route: HTTPRoute, handler: Any, handle: ASGIApp) -> ASGIApp:
    """`handle` without a Request (ADR-134): what its Request, StrictRequest.json and
    submit_orders do, in their order, by the same functions (read_body for Request.body,
    decode_strict, orders_of, context_of, answered, execute); the answer as the route's
    response handler makes it, which an Answer does not ask for the request."""
    limit = handler.resolve_request_max_body_size() or math.inf

    async def bare(scope: Any, receive: Any, send: Any) -> None:
        state = ScopeState.from_scope(scope)
        if state.body is not Empty or state.headers is not Empty:  # read before: `handle`
            await handle(scope, receive, send)
            return
        headers = state.headers = headers_of(scope["headers"])
        body = state.body = await read_body(headers, receive, limit)
        if not body:  # Litestar's "no data": its own route answers (cached body)
            await route.handle(scope, receive, send)
            return
        parsed = ParsedBody(body)
        data = state.json = decode_strict(body, headers.get("content-type", ""), OrdersIn, parsed)
        sid = scope["path_params"]["season_id"]
        orders = orders_of(data)
        svc: Services = scope["litestar_app"].state.services
        claim = BeyClaim(sid, headers.get("authorization", ""), {}, svc.staff)  # no query: plain
        answer = answered(await execute(svc, context_of(scope, headers, claim, parsed), orders))
        # What the route's response handler returns for an Answer while `_is_bare` holds (no
        # after-request hook, route media type, headers, cookies or background: it passes none
        # to the Answer, which then ignores its status and encoders): the Answer's own
        # to_asgi_response, without the handler's coroutine and keywords (ADR-145)
        response = answer.to_asgi_response(None, cast("Any", None))
        await response(scope, receive, send)

    return bare


def _wrapped(handler: Any, inner: ASGIApp) -> ASGIApp:
    """`inner` in the route's middlewares and exception layers, as Litestar builds a route's
    stack (build_route_middleware_stack: its list is innermost first)."""
    stack: Any = wrap_in_exception_handler(inner)
    for factory in handler.resolve_middleware():
        if not getattr(factory, "reads_only", False):
            made: Any = factory  # the app's middlewares are factories of ASGI apps
            stack = made(app=stack)
    return cast("ASGIApp", wrap_in_exception_handler(stack))


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
    picked = handler.get_response_handler(is_response_type_data=True)
    assert picked is handler.get_response_handler(is_response_type_data=False)
    respond = cast("Any", picked)  # a response handler: called with app, data and request

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

    inner = _bare(route, handler, handle) if _is_bare(handler, before) else handle
    stack = _wrapped(handler, inner)

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
