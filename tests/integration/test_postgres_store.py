"""PostgreSQL specifics: migrations, the durability check, fail-fast locks, pool settings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from shared.eventstore import (
    DurabilityError,
    MigrationError,
    PoolSettings,
    PostgresEventStore,
    StoreBusyError,
    check_durability,
    create_pool,
    migrate,
)
from tests.integration.support import new_event

pytestmark = pytest.mark.integration

ALL = ["0001_event_log", "0002_idempotency_keys"]


@pytest.fixture
async def fresh_dsn(pg_server_dsn: str, pg_dsn: str) -> AsyncIterator[str]:
    """An empty database beside the session's one, for tests that migrate from nothing."""
    parts = urlsplit(pg_dsn)
    name = parts.path.lstrip("/") + "_fresh"
    admin = await asyncpg.connect(pg_server_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield urlunsplit(parts._replace(path="/" + name))
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_migrations_apply_once_and_record_themselves(fresh_dsn: str):
    assert await migrate(fresh_dsn) == ALL
    assert await migrate(fresh_dsn) == []
    conn = await asyncpg.connect(fresh_dsn)
    try:
        rows = await conn.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
    finally:
        await conn.close()
    assert [(r["version"], r["name"]) for r in rows] == [(1, ALL[0]), (2, ALL[1])]


async def test_two_migrators_at_once_apply_each_migration_once(fresh_dsn: str):
    pool = await create_pool(fresh_dsn)
    try:
        results = await asyncio.gather(migrate(fresh_dsn), migrate(pool), migrate(fresh_dsn))
    finally:
        await pool.close()
    assert sorted(results) == [[], [], ALL]


async def test_a_migration_edited_after_it_was_applied_is_refused(fresh_dsn: str):
    await migrate(fresh_dsn)
    conn = await asyncpg.connect(fresh_dsn)
    try:
        await conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
        with pytest.raises(MigrationError, match="changed after it was applied"):
            await migrate(conn)
    finally:
        await conn.close()


async def test_the_durability_check_passes_on_a_durable_server(pg_pool: asyncpg.Pool):
    await check_durability(pg_pool)


async def test_the_durability_check_refuses_asynchronous_commit(migrated_pg_dsn: str):
    pool = await asyncpg.create_pool(
        migrated_pg_dsn, min_size=1, max_size=1, server_settings={"synchronous_commit": "off"}
    )
    try:
        with pytest.raises(DurabilityError, match="synchronous_commit=off"):
            await check_durability(pool)
    finally:
        await pool.close()


async def test_pooled_connections_carry_the_fail_fast_settings(migrated_pg_dsn: str):
    settings = PoolSettings(
        lock_timeout_ms=1234, statement_timeout_ms=5678, idle_in_transaction_timeout_ms=9000
    )
    pool = await create_pool(migrated_pg_dsn, settings)
    try:
        row = await pool.fetchrow(
            "SELECT current_setting('lock_timeout') AS l,"
            " current_setting('statement_timeout') AS s,"
            " current_setting('idle_in_transaction_session_timeout') AS i,"
            " current_setting('synchronous_commit') AS c"
        )
    finally:
        await pool.close()
    assert tuple(row) == ("1234ms", "5678ms", "9s", "on")


async def test_an_append_behind_a_zombie_lock_fails_fast(migrated_pg_dsn: str, pg_pool, clock):
    """RELIABILITY 6, store side: lock_timeout turns a hang into StoreBusyError (503)."""
    pool = await create_pool(migrated_pg_dsn, PoolSettings(lock_timeout_ms=200))
    store = PostgresEventStore(pool, clock=clock)
    zombie = await asyncpg.connect(migrated_pg_dsn)
    try:
        await zombie.execute("BEGIN; SELECT position FROM log_head FOR UPDATE")
        with pytest.raises(StoreBusyError):
            await store.append("s1", 0, [new_event(1)])
        await zombie.execute("ROLLBACK")
        recorded = await store.append("s1", 0, [new_event(1)])
    finally:
        await zombie.close()
        await pool.close()
    assert [e.position for e in recorded] == [1]


async def test_a_slow_statement_is_cancelled_as_busy(migrated_pg_dsn: str, clock):
    """RELIABILITY 13, store side: statement_timeout cancels a blocked read."""
    pool = await create_pool(migrated_pg_dsn, PoolSettings(statement_timeout_ms=200))
    store = PostgresEventStore(pool, clock=clock)
    locker = await asyncpg.connect(migrated_pg_dsn)
    try:
        await locker.execute("BEGIN; LOCK TABLE streams IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StoreBusyError):
            await store.list_seasons()
    finally:
        await locker.close()
        await pool.close()
