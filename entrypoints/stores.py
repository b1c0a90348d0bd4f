"""PostgreSQL pools and event stores for every process role, and its logging: the part of the
composition root (entrypoints.bootstrap, which re-exports it) that a CLI verb needs. It imports
no HTTP app, broker or worker, so `seksenbir verify`, `export`, `import`, `replay` and
`migrate` start without loading Litestar or Dramatiq (issue 27).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Literal

import asyncpg

from shared.eventstore import PoolSettings, PostgresEventStore, check_durability, create_pool
from shared.logs import configure_logging
from shared.settings import Settings
from shared.unreachable import DatabaseUnreachable

Role = Literal[
    "api", "resolver", "projections", "projections-woken", "sweeper", "scheduler", "notify", "cli"
]


def utc_now() -> datetime:
    return datetime.now(UTC)


def configure(settings: Settings) -> None:
    """Logging for this process (structlog), as the settings say."""
    configure_logging(json=settings.log_format == "json", level=settings.log_level)


# --- PostgreSQL -------------------------------------------------------------------------------

# Roles that write (they append events or claim due work) carry the settings' lock and statement
# timeouts (RELIABILITY 6, 13) and check the server's durability settings at start; the read
# side's pools keep PoolSettings' defaults.
_DURABLE: frozenset[Role] = frozenset({"api", "resolver"})


def pool_settings(settings: Settings, role: Role) -> PoolSettings:
    """The pool of each process role: its size, timeouts and `application_name`."""
    timeouts = {
        "lock_timeout_ms": settings.lock_timeout_ms,
        "statement_timeout_ms": settings.statement_timeout_ms,
    }
    if role == "api":
        return PoolSettings(max_size=settings.pool_max, application_name="api", **timeouts)
    if role == "resolver":
        # a connection for each Divan in flight (its worker threads, ADR-160), at least 4
        size = max(4, settings.resolver_threads)
        return PoolSettings(max_size=size, application_name="resolver", **timeouts)
    if role == "scheduler":
        return PoolSettings(min_size=1, max_size=2, application_name="scheduler", **timeouts)
    if role in ("projections", "projections-woken"):  # the listener: LANES seasons at once
        return PoolSettings(max_size=4, application_name=role)
    if role in ("sweeper", "notify"):
        return PoolSettings(max_size=2, application_name=role)
    return PoolSettings()  # cli: one verb, then the process exits


async def open_pool(settings: Settings, role: Role, *, dsn: str | None = None) -> asyncpg.Pool:
    """A pool for `role` on `dsn` (default: the settings' DSN)."""
    pool = await create_pool(dsn or settings.pg_dsn, pool_settings(settings, role))
    if role in _DURABLE:
        try:
            await check_durability(pool)
        except BaseException:
            await pool.close()
            raise
    return pool


def store_on(
    pool: asyncpg.Pool, settings: Settings, role: Role, *, clock: Callable[[], datetime] = utc_now
) -> PostgresEventStore:
    """The event store over `pool`; only the API groups appends by the settings' group_commit."""
    if role == "api":
        return PostgresEventStore(pool, clock=clock, group_commit=settings.group_commit)
    return PostgresEventStore(pool, clock=clock)


# what connecting to PostgreSQL raises when the database cannot be reached (refused, unknown
# host, timeout: OSError; a bad password or user; a database that does not exist)
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.InvalidAuthorizationSpecificationError,
    asyncpg.InvalidCatalogNameError,
    asyncpg.CannotConnectNowError,
)


def readable_dsn(dsn: str) -> None:
    """A CLI verb's DSN that asyncpg cannot read (no PostgreSQL URL, an unclosed IPv6 address,
    a port that is no number) is DatabaseUnreachable, the one line and exit 2 a wrong --dsn
    gets, not asyncpg's or urllib's traceback (found by h-probe3)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(dsn)
        _ = parts.port  # read: it raises for a port that is no number
    except ValueError as exc:
        raise DatabaseUnreachable(dsn, exc) from None
    if parts.scheme not in ("postgres", "postgresql"):
        raise DatabaseUnreachable(dsn, asyncpg.ClientConfigurationError(parts.scheme))


@contextlib.asynccontextmanager
async def event_store(
    settings: Settings,
    role: Role,
    *,
    clock: Callable[[], datetime] = utc_now,
    dsn: str | None = None,
) -> AsyncIterator[PostgresEventStore]:
    """A store on a pool of its own, closed on exit (the API's lifespan, the CLI's verbs). For
    the CLI a database it cannot connect to is DatabaseUnreachable (one line, not a trace)."""
    if role == "cli":
        readable_dsn(dsn or settings.pg_dsn)
    try:
        pool = await open_pool(settings, role, dsn=dsn)
    except (*UNREACHABLE, asyncpg.ClientConfigurationError) as exc:
        if role != "cli":
            raise
        raise DatabaseUnreachable(dsn or settings.pg_dsn, exc) from exc
    store = store_on(pool, settings, role, clock=clock)
    try:
        yield store
    finally:
        try:
            await store.drain()  # the last appends' wake-ups, before the pool closes under them
        finally:
            await pool.close()
