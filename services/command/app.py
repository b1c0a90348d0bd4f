"""The command API's parts: its routes, services, limits, middleware and OpenAPI settings, which
the one HTTP app factory (entrypoints/gateway.py, `create_app`) puts together."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import redis.asyncio as aioredis
import structlog
from litestar import Request, Response, Router, get
from litestar.openapi.config import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin

from services.command.fast_orders import reads_only
from services.command.request_context import DEPENDENCIES
from services.command.routes import ROUTES
from services.command.service import Receivers, Services
from shared.app.http.bodies import limit_json_depth
from shared.app.http.docs_ui import SwaggerOffline
from shared.app.http.etag import conditional_get
from shared.app.http.language import content_language
from shared.app.http.openapi import COMPONENTS
from shared.app.http.ratelimit import (
    AuthFailures,
    RequestLimits,
    SharedFailures,
    limit_failed_auth,
    limit_requests,
)
from shared.app.http.read_limits import ReadLimits, limit_reads
from shared.app.http.season_share import SeasonShare, share_seasons
from shared.app.messaging.notify_store import MemoryNotifyStore, NotifyStore
from shared.app.messaging.outbound import Policy
from shared.app.messaging.webpush import VapidKeys
from shared.app.repository.seasons import Seasons
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


def command_router() -> Router:
    """The command API's routes under /v1, with authentication as dependencies."""
    return Router("/v1", route_handlers=ROUTES, dependencies=DEPENDENCIES)


def services(
    settings: Settings,
    store: EventStore,
    enqueue: Callable[[str, int], None],
    clock: Callable[[], datetime],
    notify: NotifyStore | None = None,
) -> Services:
    """The command side's services on the gateway's clients (entrypoints/gateway.py)."""
    return Services(
        notify=notify if notify is not None else MemoryNotifyStore(),
        receivers=Receivers(
            policy=Policy(allow=settings.outbound_allow),
            push_key=(
                VapidKeys.from_private(settings.vapid_private_key).public_key
                if settings.vapid_private_key
                else None
            ),
        ),
        seasons=Seasons(store, queue_wait=settings.lock_timeout_ms / 1000),
        enqueue=enqueue,
        ops=settings.ops_token_hashes,
        auditors=settings.auditor_token_hashes,
        retries=settings.append_retries,
        clock=clock,
    )


def shared_failures(
    settings: Settings, client_of: Callable[[], aioredis.Redis]
) -> SharedFailures | None:
    """Failed tokens are counted in Redis, for all API processes (asked on 401 answers only);
    `client_of` builds the client (entrypoints/bootstrap.py) when they are counted at all."""
    if settings.auth_failures_per_minute <= 0:
        return None
    client = client_of()
    return SharedFailures(client, settings.broker_namespace, settings.auth_failures_per_minute)


def request_limits(
    settings: Settings, client_of: Callable[[], aioredis.Redis]
) -> RequestLimits | None:
    """Season creation, joins and commands per client address, also counted in Redis."""
    per_minute = {
        "create": settings.seasons_per_minute,
        "join": settings.joins_per_minute,
        "command": settings.commands_per_minute,
    }
    if not any(n > 0 for n in per_minute.values()):
        return None
    return RequestLimits(client_of(), settings.broker_namespace, per_minute)


def middleware(
    settings: Settings,
    shared: SharedFailures | None,
    limits: RequestLimits | None,
    extra: Sequence[Any],
    limiter_clock: Callable[[], float],
) -> list[Any]:
    """Both APIs' middleware, outermost first (`reads_only`: left out of the order fast path,
    services/command/fast_orders.py, as it passes every command through)."""
    trusted = settings.trusted_proxies
    # Reads per client address and per token, in this process's memory (no Redis per read).
    reads = ReadLimits(
        settings.reads_per_minute, settings.reads_per_token_per_minute, settings.read_burst
    )
    failures = AuthFailures(settings.auth_failures_per_minute, limiter_clock)
    hold = settings.read_refusal_hold_ms / 1000
    per_season = settings.season_concurrency
    return [
        content_language,  # Content-Language, Vary: Accept-Language (docs/api.md Language)
        *extra,
        *([limit_failed_auth(failures, shared, trusted)] if shared is not None else []),
        *([limit_requests(limits, trusted)] if limits is not None else []),
        *([reads_only(limit_reads(reads, trusted, hold))] if reads.active else []),
        # one season's reads in service at once are capped: the event loop stays shared
        *([reads_only(share_seasons(SeasonShare(per_season)))] if per_season > 0 else []),
        limit_json_depth(),  # every body of both APIs, before any decoder sees it
        reads_only(conditional_get),  # ETag and 304 for every JSON answer to a GET
    ]


class YamlOnce(YamlRenderPlugin):
    """Litestar's YAML document, rendered once per app: the document never changes, and PyYAML
    spent ~0.5 s of CPU on every GET of openapi.yaml (the hostile-parameter walk asked for it 64
    times, 90 % of its time). The bytes served are the ones Litestar renders."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._rendered: tuple[dict[str, Any], bytes] | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        rendered = self._rendered
        if rendered is None or rendered[0] is not openapi_schema:  # a new document: render it
            rendered = self._rendered = (openapi_schema, super().render(request, openapi_schema))
        return rendered[1]


def openapi_config() -> OpenAPIConfig:
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
            YamlOnce(path=["/openapi.yaml", "/openapi.yml"]),
        ],
    )
