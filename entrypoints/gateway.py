"""The HTTP entry point: the one app factory, `create_app`, serving the command API and the query
API (`seksenbir serve`); its clients come from entrypoints/bootstrap.py or a test."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from litestar import Litestar, Router
from litestar.config.cors import CORSConfig
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from entrypoints import bootstrap
from entrypoints.cli_args import settings_or_refusal
from entrypoints.metrics import begun, ended, metrics, timed
from entrypoints.web import BUILT, web_router
from services.command import app as command_app
from services.command.fast_orders import orders_fast
from services.projections.context import QueryContext
from services.projections.query import query_router
from services.projections.streams import StreamHub
from shared.app.access.request_auth import edge_checks
from shared.app.answers.chat_book import ChatBooks
from shared.app.http.client_address import networks
from shared.app.http.head import answer_head
from shared.app.http.problems import exception_handlers
from shared.app.http.ratelimit import RequestLimits, SharedFailures
from shared.app.http.strict import StrictRequest, strict_path_integers
from shared.app.http.uri_limit import refuse_long_targets
from shared.app.messaging.chat_wakeup import publisher
from shared.eventstore import EventStore
from shared.log_lines import write_lines_apart
from shared.settings import Settings


def _lifespan(
    settings: Settings,
    clients: Callable[[], AbstractAsyncContextManager[bootstrap.ApiClients]],
    clock: Callable[[], datetime],
    closing: tuple[SharedFailures | None, RequestLimits | None],
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """The app's lifespan: its clients open (`clients`), the command side's services on them
    and, when the read side is served (a read Redis client is among them), the query API's
    context: the stream hub, the same clock (both sides see one instant), the command side's
    store (one pool for both) and the read side's readiness check. The limits' clients close
    after it."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        try:
            async with clients() as opened, AsyncExitStack() as stack:
                app.state.services = command_app.services(
                    settings, opened.store, opened.enqueue, clock, opened.notify
                )
                if opened.redis is not None and opened.rebuild is not None:
                    # one fold of each season's chat for both sides; a message wakes the
                    # members' streams at once (ADR-107)
                    chats = app.state.services.chats
                    app.state.query = _query_context(settings, opened, stack, (clock, chats))
                    app.state.services.chat_listeners.append(
                        publisher(opened.redis, settings.projection_prefix)
                    )
                    app.state.broker_namespace = settings.broker_namespace
                    app.state.readiness = {"read_side": read_ready}
                yield
        finally:
            for client in closing:
                if client is not None:
                    await client.close()

    return lifespan


def _query_context(
    settings: Settings,
    opened: bootstrap.ApiClients,
    stack: AsyncExitStack,
    shared: tuple[Callable[[], datetime], ChatBooks],
) -> QueryContext:
    """The query API's context; `shared`: the clock and the chat fold of the command side."""
    (clock, chats), client, store = shared, opened.redis, opened.store
    assert client is not None and opened.rebuild is not None
    streams = StreamHub(
        lambda: subscriber_connection(client),
        per_client=settings.streams_per_client,
        per_process=settings.streams_per_process,
    )
    stack.push_async_callback(streams.close)
    return QueryContext(
        redis=client,
        prefix=settings.projection_prefix,
        ops=settings.ops_token_hashes,
        auditors=settings.auditor_token_hashes,
        rebuild=opened.rebuild,
        streams=streams,
        ops_reads=store.ops_reads,
        players=store.players,
        chat=store.chat,
        chats=chats,
        stored_version=_stored_version(store),
        trusted=networks(settings.trusted_proxies),
        clock=clock,
    )


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


def create_app(
    settings: Settings,
    *,
    reads: bool = True,
    clock: Callable[[], datetime] = bootstrap.utc_now,
    limiter_clock: Callable[[], float] = time.monotonic,
    store: EventStore | None = None,
    enqueue: bootstrap.Enqueue | None = None,
    redis: aioredis.Redis | None = None,
    rebuild: Callable[[str], None] | None = None,
    fast_orders: bool = True,
    timing: bool | None = None,
) -> Litestar:
    """The one HTTP app: the command API and, with `reads`, the query API, /metrics and the
    browser client (what `seksenbir serve` runs; without `reads`, the command API alone, for the
    write side's tests). Its clients are the ones given (a test's store, enqueue, read Redis,
    rebuild) and, for each one missing, bootstrap's, opened for the app's lifespan
    (`bootstrap.api_clients`); the limiters' Redis clients are bootstrap's too; `fast_orders`
    False: every order on Litestar's own path (tests/http/test_fast_orders.py compares);
    `timing` (default: `reads`): every request timed into /metrics and its access line
    written, as `seksenbir serve` does (the write side's tests and benches ask for it)."""
    clients = functools.partial(
        bootstrap.api_clients, settings, reads=reads, clock=clock, store=store, enqueue=enqueue
    )
    clients = functools.partial(clients, redis=redis, rebuild=rebuild)

    shared = command_app.shared_failures(settings, lambda: bootstrap.redis_client(settings))
    limits = command_app.request_limits(settings, lambda: bootstrap.limiter_redis(settings))
    strict_path_integers()  # "+2", "02", "٢" in a path match no route (D-27)
    cors = CORSConfig(allow_origins=list(settings.cors_origins)) if settings.cors_origins else None
    extra = [query_router(), Router("/", route_handlers=[metrics]), web_router()] if reads else []
    app = Litestar(
        route_handlers=[
            command_app.command_router(),
            *extra,
            command_app.health,
            command_app.ready,
        ],
        lifespan=[_lifespan(settings, clients, clock, (shared, limits))],
        # before every route's dependencies and body (and, called by them, its own guards' token
        # checks): a season id no season can have is 404 before a token is checked or a store
        # asked (issue 20), and two Authorization headers are 400, never first-wins (ADR-75);
        # a hook, not a guard: Litestar copies the handler for every guard call (ADR-111)
        before_request=edge_checks,
        exception_handlers=exception_handlers(),  # one problem+json mapping for both APIs
        cors_config=cors,
        middleware=command_app.middleware(settings, shared, limits, (), limiter_clock),
        request_max_body_size=settings.max_body_bytes,
        request_class=StrictRequest,  # bodies decode strictly into their types (D-27)
        logging_config=None,  # shared.logs configures logging; Litestar's would replace it
        openapi_config=command_app.openapi_config(),
        debug=settings.debug,
    )
    _around(app, timing=reads if timing is None else timing, fast_orders=fast_orders)
    if reads:
        app.state.web_dir = settings.web_dir or BUILT  # the browser client (entrypoints/web.py)
    return app


def _around(app: Litestar, *, timing: bool, fast_orders: bool) -> None:
    """What goes around Litestar's handler, innermost first: HEAD answered as GET without a
    body on every GET path (ADR-61); with `timing`, every request timed and logged around
    Litestar's router and exception handling, not as a route's middleware, so that a request
    no route matches (404, 405) or CORS answers is timed and logged too; with `fast_orders`,
    a plain order beside them all (ADR-124), timed by the fast path itself (ADR-151)."""
    app.asgi_handler = answer_head(app.asgi_handler)
    if timing:
        app.asgi_handler = timed(app.asgi_handler)
    if fast_orders:
        app.asgi_handler = orders_fast(app, app.asgi_handler, (begun, ended) if timing else None)


def app_from_env() -> Litestar:
    """Entry point for uvicorn --factory: the settings from the environment, read once here;
    the log lines written by a thread of their own, the heap settled once the app is built.
    Settings refused: one line and exit 2, not uvicorn's traceback (ADR-172)."""
    settings = settings_or_refusal("entrypoints.gateway:app_from_env")
    bootstrap.configure(settings)
    app = create_app(settings)
    # outermost: a target the server's protocol marked too long is 414 problem+json (ADR-156)
    app.asgi_handler = refuse_long_targets(app.asgi_handler)
    write_lines_apart()  # no log line's write blocks the event loop (ADR-125)
    bootstrap.settle_heap(young=bootstrap.WORKER_YOUNG)  # as the workers (ADR-125, 135, 164)
    return app
