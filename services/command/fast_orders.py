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
from litestar._asgi.utils import is_valid_host
from litestar.datastructures.headers import Headers
from litestar.exceptions import ClientException, InternalServerException, LitestarException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.handlers.http_handlers._utils import normalize_headers
from litestar.middleware._internal.exceptions import ExceptionHandlerMiddleware
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
from shared.app.http.language import CHOSEN, content_language, negotiate, with_language
from shared.app.http.strict import StrictRequest, decode_strict

ASGIApp = Callable[[Any, Any, Any], Awaitable[None]]
# The gateway's request timing (entrypoints/metrics.py `begun`, `ended`): the fast path times
# and logs a plain order itself, in its one send wrapper (ADR-151)
Timing = tuple[Callable[[], float], Callable[[Any, int, float], None]]
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
            await handle(scope, receive, flagging(state, send))
            return
        headers = state.headers = headers_of(scope["headers"])
        body = state.body = await read_body(headers, receive, limit)
        if not body:  # Litestar's "no data": its own route answers (cached body)
            await route.handle(scope, receive, flagging(state, send))
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
        # The inner exception layer's flag (ADR-151): the answer's first message is its start
        # (ASGIResponse.__call__ sends it first), which the layer's wrapper flagged as it passed
        state.response_started = True
        await response(scope, receive, send)

    return bare


def flagging(state: ScopeState, send: Any) -> Any:
    """`send`, flagging the response started as its start passes: the inner exception layer's
    own send wrapper (ExceptionHandlerMiddleware's `capture_response_started`), for the
    answers `bare` does not send itself (ADR-151)."""

    async def captured(message: Any) -> None:
        if message["type"] == "http.response.start":
            state.response_started = True
        await send(message)

    return captured


async def handled(
    layer: ExceptionHandlerMiddleware, scope: Any, receive: Any, send: Any, exc: Exception
) -> None:
    """What Litestar's exception layer does with `exc`, caught from the app it wraps, `send`
    being the send it was given (ExceptionHandlerMiddleware.__call__'s `except`, line by line;
    called inside an `except` clause, so that `sys.exc_info()` is `exc`'s, as there): a
    response already started is LitestarException, else the app's logging, after-exception
    hooks and debugger as configured, and the problem rendered by the scope's exception
    handlers and sent. tests/http/test_fast_orders.py pins the method this follows (ADR-151)."""
    if ScopeState.from_scope(scope).response_started:
        raise LitestarException("Exception caught after response started") from exc
    litestar_app = scope["litestar_app"]
    if litestar_app.logging_config and (logger := litestar_app.logger):
        layer.handle_exception_logging(
            logger=logger, logging_config=litestar_app.logging_config, scope=scope
        )
    for hook in litestar_app.after_exception:
        await hook(exc, scope)
    if litestar_app.pdb_on_exception:
        litestar_app.debugger_module.post_mortem()
    await layer.handle_request_exception(
        litestar_app=litestar_app, scope=scope, receive=receive, send=send, exc=exc
    )


class Caught(ExceptionHandlerMiddleware):
    """Litestar's exception layer (wrap_in_exception_handler) without its send wrapper: what
    the app it wraps sends goes on as it is; the route flags the response started itself
    (`bare`, `flagging`). The inner layer of a plain order's stack (ADR-151)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception as exc:
            await handled(self, scope, receive, send, exc)


def _wrapped(handler: Any, inner: ASGIApp) -> tuple[ASGIApp, bool]:
    """`inner` in the route's middlewares that act on a command and the inner exception layer,
    as Litestar builds a route's stack (build_route_middleware_stack: its list is innermost
    first), and whether the outermost of them, the language, is left to `orders_fast`'s send
    wrapper (ADR-151): it is when it is `content_language` itself; else it stays a layer."""
    stack: Any = Caught(app=inner, debug=None)
    factories = [f for f in handler.resolve_middleware() if not getattr(f, "reads_only", False)]
    speaks = bool(factories) and factories[-1] is content_language
    for factory in factories[:-1] if speaks else factories:
        made: Any = factory  # the app's middlewares are factories of ASGI apps
        stack = made(app=stack)
    return cast("ASGIApp", stack), speaks


def orders_fast(app: Litestar, litestar: ASGIApp, timing: Timing | None = None) -> ASGIApp:
    """`litestar` (the app's handler, timed if `timing`) with plain order requests answered
    beside it: timed by `timing` (the gateway's `begun` and `ended`) in the one send wrapper
    that also says the language and flags the response started (ADR-151)."""
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

    if _is_bare(handler, before):
        inner = _bare(route, handler, handle)
    else:

        async def inner(scope: Any, receive: Any, send: Any) -> None:
            await handle(scope, receive, flagging(ScopeState.from_scope(scope), send))

    return _dispatch(litestar, handler, _wrapped(handler, inner), timing)


def _untimed() -> float:
    return 0.0


def _unlogged(_scope: Any, _status: int, _started: float) -> None:
    """An app without timing (create_app(timing=False)): no observation, no access line."""


def _dispatch(
    litestar: ASGIApp, handler: Any, wrapped: tuple[ASGIApp, bool], timing: Timing | None
) -> ASGIApp:
    """A plain order to `stack` (`_wrapped`), the rest to `litestar`. One send wrapper for
    four (ADR-151), what each did in its order, outermost last: the inner exception layer's
    flag (`bare` sets it, `flagging` where it does not send), the language's headers
    (content_language's `said`, when `speaks`), the outer exception layer's flag, the status
    `timed` observes; around the stack, the outer exception layer's `except` and `timed`'s
    timing and access line."""
    stack, speaks = wrapped
    exception_handlers = handler.resolve_exception_handlers()
    outer = ExceptionHandlerMiddleware(app=stack, debug=None)  # its `handle…` methods alone
    begun, ended = timing if timing is not None else (_untimed, _unlogged)

    async def dispatch(scope: Any, receive: Any, send: Any) -> None:
        sid = plain(scope) if scope["type"] == "http" else None
        if sid is None:
            await litestar(scope, receive, send)
            return
        # what Litestar's router sets for a request it routed here
        scope["path_params"] = {"season_id": sid}
        scope["route_handler"] = handler
        scope["path_template"] = TEMPLATE
        state = ScopeState.from_scope(scope)
        state.exception_handlers = exception_handlers
        status = 500
        lang = None
        if speaks:
            lang = scope[CHOSEN] = negotiate(scope)

        async def sent(message: Any) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                if lang is not None:
                    headers = with_language(message.get("headers", []), lang)
                    message = {**message, "headers": headers}
                state.response_started = True
                status = message["status"]
            await send(message)

        started = begun()
        try:
            try:
                await stack(scope, receive, sent)
            except Exception as exc:  # the outer exception layer's: its problem, no language

                async def watched(message: Any) -> None:
                    nonlocal status
                    if message["type"] == "http.response.start":
                        status = message["status"]
                    await send(message)

                await handled(outer, scope, receive, watched, exc)
        finally:
            ended(scope, status, started)

    return dispatch
