"""create_app(settings): the command API, wired in one place (STYLE.md: one bootstrap)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    AsyncExitStack,
    asynccontextmanager,
)
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
import structlog
from litestar import Litestar, Request, Response, Router, get
from litestar.config.cors import CORSConfig
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin

from services.command.request_context import DEPENDENCIES
from services.command.routes import ROUTES
from services.command.service import Services
from shared.app.bodies import limit_json_depth
from shared.app.docs_ui import SwaggerOffline
from shared.app.etag import conditional_get
from shared.app.head import answer_head
from shared.app.language import content_language
from shared.app.openapi import COMPONENTS
from shared.app.parameters import path_parameters
from shared.app.problems import exception_handlers
from shared.app.ratelimit import (
    AuthFailures,
    RequestLimits,
    SharedFailures,
    limit_failed_auth,
    limit_requests,
)
from shared.app.read_limits import ReadLimits, limit_reads
from shared.app.request_auth import one_authorization
from shared.app.seasons import Seasons
from shared.app.strict import StrictRequest, strict_path_integers
from shared.eventstore import EventStore
from shared.settings import Settings

log = structlog.get_logger(__name__)


def utc_now() -> datetime:
    return datetime.now(UTC)


@get("/health", summary="Liveness", include_in_schema=False)
async def health() -> dict[str, str]:
    return {"status": "ok"}


@get("/ready", summary="Readiness: the event store answers", include_in_schema=False)
async def ready(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """503 naming what is unavailable: the event store, and what the gateway adds to
    `app.state.readiness` (name -> async check of the app: the read side's Redis)."""
    svc: Services = request.app.state.services
    down = []
    try:
        await svc.seasons.store.head_position()
    except Exception:
        down.append("event_store")
    for name, check in getattr(request.app.state, "readiness", {}).items():
        if not await check(request.app):
            down.append(name)
    if down:
        return Response(
            {"status": "unavailable", "unavailable": down},
            status_code=503,
            headers={"Retry-After": "1"},
        )
    return Response({"status": "ready"})


def create_app(
    settings: Settings,
    *,
    store: EventStore | None = None,
    enqueue: Callable[[str, int], None] | None = None,
    clock: Callable[[], datetime] = utc_now,
    extra_routers: Sequence[Router] = (),
    extra_lifespans: Sequence[Callable[[Litestar], Any]] = (),
    extra_handlers: dict[int | type[Exception], Callable[..., Any]] | None = None,
    extra_middleware: Sequence[Any] = (),
    open_store: Callable[[], AbstractAsyncContextManager[EventStore]] | None = None,
    open_enqueue: Callable[[], AbstractContextManager[Callable[[str, int], None]]] | None = None,
    failures_redis: Callable[[], aioredis.Redis] | None = None,
    limiter_clock: Callable[[], float] = time.monotonic,
) -> Litestar:
    """The API on an injected `store` and `enqueue`, or on what `open_store` / `open_enqueue`
    open in its lifespan and close after it (entrypoints.bootstrap.command_app passes those:
    the API builds no pool or broker itself)."""
    if store is None and open_store is None:
        raise TypeError("create_app: give a store, or open_store (entrypoints.bootstrap)")
    if enqueue is None and open_enqueue is None:
        raise TypeError("create_app: give enqueue, or open_enqueue (entrypoints.bootstrap)")
    shared, limits = _shared_failures(settings, failures_redis), _request_limits(settings)
    lifespan = _lifespan(
        settings, clock, (store, open_store), (enqueue, open_enqueue), closing=(shared, limits)
    )
    strict_path_integers()  # "+2", "02", "٢" in a path match no route (D-27)
    cors = CORSConfig(allow_origins=list(settings.cors_origins)) if settings.cors_origins else None
    app = Litestar(
        route_handlers=[
            Router("/v1", route_handlers=ROUTES, dependencies=DEPENDENCIES),
            *extra_routers,
            health,
            ready,
        ],
        lifespan=[lifespan, *extra_lifespans],
        # before every route's own guards and dependencies: a season id no season can have is
        # 404 before a token is checked or a store asked (issue 20)
        # and two Authorization headers are 400, never first-wins (ADR-75)
        guards=[edge_guard],
        # one problem+json mapping for both APIs (shared.app.problems)
        exception_handlers={**exception_handlers(), **(extra_handlers or {})},
        cors_config=cors,
        middleware=_middleware(settings, shared, limits, extra_middleware, limiter_clock),
        request_max_body_size=settings.max_body_bytes,
        request_class=StrictRequest,  # bodies decode strictly into their types (D-27)
        logging_config=None,  # shared.logs configures logging; Litestar's would replace it
        openapi_config=_openapi_config(),
        debug=settings.debug,
    )
    # Around the router: HEAD answered as GET without a body, on every GET path (ADR-61)
    app.asgi_handler = answer_head(app.asgi_handler)
    return app


async def edge_guard(connection: Any, handler: Any) -> None:
    """The app's guards as one: Litestar copies the route handler for every guard it calls on
    every request (issue 27). A season id no season can have is 404 before a token is read,
    then two Authorization headers are 400 (ADR-75)."""
    await path_parameters(connection, handler)
    await one_authorization(connection, handler)


Opener = Callable[[], AbstractAsyncContextManager[EventStore]]
EnqueueOpener = Callable[[], AbstractContextManager[Callable[[str, int], None]]]


def _lifespan(
    settings: Settings,
    clock: Callable[[], datetime],
    stores: tuple[EventStore | None, Opener | None],
    queues: tuple[Callable[[str, int], None] | None, EnqueueOpener | None],
    *,
    closing: tuple[SharedFailures | None, RequestLimits | None],
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The app's `Services`: on the injected store and enqueue, or on what the openers open
    (closed after the app, with the rate limits' Redis clients)."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        try:
            async with AsyncExitStack() as opened:
                store, open_store = stores
                if store is None:
                    assert open_store is not None
                    store = await opened.enter_async_context(open_store())
                send, open_enqueue = queues
                if send is None:
                    assert open_enqueue is not None
                    send = opened.enter_context(open_enqueue())
                app.state.services = Services(
                    seasons=Seasons(store, queue_wait=settings.lock_timeout_ms / 1000),
                    enqueue=send,
                    ops=settings.ops_token_hashes,
                    auditors=settings.auditor_token_hashes,
                    retries=settings.append_retries,
                    clock=clock,
                )
                yield
        finally:
            for client in closing:
                if client is not None:
                    await client.close()

    return lifespan


def _shared_failures(
    settings: Settings, failures_redis: Callable[[], aioredis.Redis] | None
) -> SharedFailures | None:
    """Failed tokens are counted in Redis, for all API processes (asked on 401 answers only)."""
    if settings.auth_failures_per_minute <= 0:
        return None
    client = (failures_redis or (lambda: aioredis.Redis.from_url(settings.read_redis)))()
    return SharedFailures(client, settings.broker_namespace, settings.auth_failures_per_minute)


def _request_limits(settings: Settings) -> RequestLimits | None:
    """Season creation, joins and commands per client address, also counted in Redis."""
    per_minute = {
        "create": settings.seasons_per_minute,
        "join": settings.joins_per_minute,
        "command": settings.commands_per_minute,
    }
    if not any(n > 0 for n in per_minute.values()):
        return None
    client = aioredis.Redis.from_url(settings.read_redis)
    return RequestLimits(client, settings.broker_namespace, per_minute)


def _middleware(
    settings: Settings,
    shared: SharedFailures | None,
    limits: RequestLimits | None,
    extra: Sequence[Any],
    limiter_clock: Callable[[], float],
) -> list[Any]:
    """Both APIs' middleware, outermost first."""
    trusted = settings.trusted_proxies
    # Reads per client address and per token, in this process's memory (no Redis per read).
    reads = ReadLimits(
        settings.reads_per_minute, settings.reads_per_token_per_minute, settings.read_burst
    )
    failures = AuthFailures(settings.auth_failures_per_minute, limiter_clock)
    hold = settings.read_refusal_hold_ms / 1000
    return [
        content_language,  # Content-Language, Vary: Accept-Language (docs/api.md Language)
        *extra,
        *([limit_failed_auth(failures, shared, trusted)] if shared is not None else []),
        *([limit_requests(limits, trusted)] if limits is not None else []),
        *([limit_reads(reads, trusted, hold)] if reads.active else []),
        limit_json_depth(),  # every body of both APIs, before any decoder sees it
        conditional_get,  # ETag and 304 for every JSON answer to a GET
    ]


def _openapi_config() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Seksenbir API",
        version="1",
        path="/v1/schema",
        description="Seksenbir game server: commands (write side), read models (query side). "
        "Texts for people (every problem's `detail`, every report line's `text`) are Turkish "
        "by default and English on `Accept-Language: en` or `?lang=en`; every answer says "
        "its language in `Content-Language`.",
        components=COMPONENTS,
        # Swagger UI from the product's own files, at /v1/schema and /swagger (ADR-70)
        render_plugins=[
            SwaggerOffline(),
            JsonRenderPlugin(),
            YamlRenderPlugin(path=["/openapi.yaml", "/openapi.yml"]),
        ],
    )
