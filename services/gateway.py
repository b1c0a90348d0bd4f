"""The HTTP entry point: the command API and the query API in one app (`seksenbir serve`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import dramatiq
import redis.asyncio as aioredis
from litestar import Litestar, Router
from redis.exceptions import RedisError

from services.command.app import create_app as create_command_app
from services.metrics import metrics, timed
from services.projections.actors import REBUILD_ACTOR
from services.projections.query import QueryContext, query_router
from services.projections.streams import StreamHub
from shared.app.queues import PROJECTIONS_QUEUE, make_broker
from shared.app.ratelimit import networks
from shared.logs import configure_logging
from shared.settings import Settings

READ_POOL_MAX = 100  # the read pool's connections (event streams hold none of them)
READ_TIMEOUT_S = 2.0


def query_lifespan(
    settings: Settings,
    redis: aioredis.Redis | None = None,
    rebuild: Callable[[str], None] | None = None,
):  # type: ignore[no-untyped-def]
    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        pool = None
        if redis is None:
            # A burst waits for a connection at most READ_TIMEOUT_S, then ConnectionError: 503.
            pool = aioredis.BlockingConnectionPool.from_url(
                settings.redis_url,
                max_connections=READ_POOL_MAX,
                timeout=READ_TIMEOUT_S,
                socket_timeout=READ_TIMEOUT_S,  # a Redis that hangs is a 503, not a hung read
                socket_connect_timeout=READ_TIMEOUT_S,
            )
        client = redis or aioredis.Redis(connection_pool=pool)
        streams = StreamHub(
            lambda: subscriber_connection(client),
            per_client=settings.streams_per_client,
            per_process=settings.streams_per_process,
        )
        broker = None
        ask = rebuild
        if ask is None:
            broker = make_broker(settings.redis_url, namespace=settings.broker_namespace)

            def ask(season_id: str) -> None:
                msg: dramatiq.Message[Any] = dramatiq.Message(
                    queue_name=PROJECTIONS_QUEUE,
                    actor_name=REBUILD_ACTOR,
                    args=(season_id,),
                    kwargs={},
                    options={},
                )
                broker.enqueue(msg)

        app.state.broker_namespace = settings.broker_namespace
        app.state.query = QueryContext(
            redis=client,
            prefix=settings.projection_prefix,
            ops=settings.ops_token_hashes,
            auditors=settings.auditor_token_hashes,
            rebuild=ask,
            streams=streams,
            trusted=networks(settings.trusted_proxies),
        )
        app.state.readiness = {**getattr(app.state, "readiness", {}), "read_side": read_ready}
        try:
            yield
        finally:
            await streams.close()
            if broker is not None:
                broker.close()
            if pool is not None:
                await client.aclose()
                await pool.disconnect()

    return lifespan


async def subscriber_connection(client: aioredis.Redis) -> Any:
    """A connection of the stream hub's own, to the read pool's server, outside that pool."""
    pool = client.connection_pool
    conn = pool.connection_class(**pool.connection_kwargs)
    await conn.connect()
    return conn


async def read_ready(app: Litestar) -> bool:
    """The read side can get a Redis connection and Redis answers (false: pool exhausted,
    Redis down or slow); /ready fails with it."""
    try:
        async with asyncio.timeout(READ_TIMEOUT_S):
            return bool(await app.state.query.redis.ping())
    except (RedisError, OSError, TimeoutError):
        return False


def create_app(settings: Settings, **command_kwargs: Any) -> Litestar:
    """Both APIs; keyword arguments (store, enqueue, redis, rebuild) are for tests."""
    redis = command_kwargs.pop("redis", None)
    rebuild = command_kwargs.pop("rebuild", None)
    return create_command_app(
        settings,
        extra_routers=[query_router(), Router("/", route_handlers=[metrics])],
        extra_middleware=[timed],
        extra_lifespans=[query_lifespan(settings, redis, rebuild)],
        **command_kwargs,
    )


def app_from_env() -> Litestar:
    """Entry point for uvicorn --factory."""
    configure_logging()
    return create_app(Settings.from_env())
