"""The HTTP entry point: the command API and the query API in one app (`seksenbir serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from litestar import Litestar, Router
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from entrypoints import bootstrap
from entrypoints.metrics import metrics, timed
from entrypoints.web import BUILT, web_router
from services.projections.context import QueryContext
from services.projections.query import query_router
from services.projections.streams import StreamHub
from shared.app.client_address import networks
from shared.eventstore import EventStore
from shared.settings import Settings


def query_lifespan(
    settings: Settings,
    store: Callable[[], EventStore],
    redis: aioredis.Redis | None = None,
    rebuild: Callable[[str], None] | None = None,
    clock: Callable[[], datetime] = bootstrap.utc_now,
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The query API's lifespan: its Redis client and rebuild queue (bootstrap's, unless
    injected), the stream hub, the clock (the command side's, so both see one instant), the
    command side's event store (`store`, open once the command side's lifespan ran: one pool
    for both), and the read side's readiness check."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with AsyncExitStack() as opened:
            client = redis
            if client is None:
                client = await opened.enter_async_context(bootstrap.read_redis(settings))
            ask = rebuild
            if ask is None:
                ask = opened.enter_context(bootstrap.rebuild_queue(settings))
            streams = StreamHub(
                lambda: subscriber_connection(client),
                per_client=settings.streams_per_client,
                per_process=settings.streams_per_process,
            )
            opened.push_async_callback(streams.close)
            app.state.broker_namespace = settings.broker_namespace
            app.state.query = QueryContext(
                redis=client,
                prefix=settings.projection_prefix,
                ops=settings.ops_token_hashes,
                auditors=settings.auditor_token_hashes,
                rebuild=ask,
                streams=streams,
                ops_reads=store().ops_reads,
                stored_version=_stored_version(store()),
                trusted=networks(settings.trusted_proxies),
                clock=clock,
            )
            app.state.readiness = {
                **getattr(app.state, "readiness", {}),
                "read_side": read_ready,
            }
            yield

    return lifespan


def _stored_version(store: Any) -> Callable[[str], Awaitable[int]]:
    """The season's version in the event store (0: no such season; issue 20)."""

    async def stored_version(season_id: str) -> int:
        return int(await store.stream_version(season_id))

    return stored_version


async def subscriber_connection(client: aioredis.Redis) -> Any:
    """A connection of the stream hub's own, to the read pool's server, outside that pool.

    On a Redis Cluster, to one of its nodes: a cluster forwards every PUBLISH to every node,
    so a subscriber on any node hears each season's channel."""
    if isinstance(client, RedisCluster):
        node: Any = client.get_default_node()
        conn: Any = node.connection_class(**node.connection_kwargs)
        await conn.connect()
        return conn
    pool = client.connection_pool
    conn = pool.connection_class(**pool.connection_kwargs)
    await conn.connect()
    return conn


async def read_ready(app: Litestar) -> bool:
    """The read side can get a Redis connection and Redis answers (false: pool exhausted,
    Redis down or slow); /ready fails with it."""
    try:
        async with asyncio.timeout(bootstrap.READ_TIMEOUT_S):
            return bool(await app.state.query.redis.ping())
    except (RedisError, OSError, TimeoutError):
        return False


def create_app(settings: Settings, **command_kwargs: Any) -> Litestar:
    """Both APIs on one event store; keyword arguments (store, enqueue, redis, rebuild, clock)
    are for tests."""
    redis = command_kwargs.pop("redis", None)
    rebuild = command_kwargs.pop("rebuild", None)
    clock = command_kwargs.get("clock", bootstrap.utc_now)
    store = bootstrap.ApiStore(settings, clock, command_kwargs.pop("store", None))
    app = bootstrap.command_app(
        settings,
        store=store,
        extra_routers=[query_router(), Router("/", route_handlers=[metrics]), web_router()],
        extra_lifespans=[query_lifespan(settings, store, redis, rebuild, clock)],
        **command_kwargs,
    )
    # Around Litestar's router and its exception handling, not a route's middleware: a request
    # no route matches (404, 405) or CORS answers is timed and logged too ("unmatched").
    app.asgi_handler = timed(app.asgi_handler)
    app.state.web_dir = settings.web_dir or BUILT  # the browser client (entrypoints/web.py)
    return app


def app_from_env() -> Litestar:
    """Entry point for uvicorn --factory: the settings from the environment, read once here."""
    settings = Settings.from_env()
    bootstrap.configure(settings)
    return create_app(settings)
