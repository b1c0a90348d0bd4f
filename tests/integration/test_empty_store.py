"""The pg_pool fixture's reset (tests.conftest.empty_store) leaves the store as TRUNCATE …
RESTART IDENTITY did: every table a test writes to without a row, every sequence they own
from its start, and the append-only guards still on afterwards."""

from __future__ import annotations

import asyncpg
import pytest

from shared.eventstore import PostgresEventStore
from tests.clock import StepClock
from tests.conftest import STORE_TABLES, empty_store
from tests.integration.test_postgres_store import batch

WRITABLE = """SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"""
KEPT = {"schema_migrations", "log_head"}  # the schema's own rows


async def test_the_reset_empties_every_store_table_and_restarts_its_sequences(
    pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    tables = {row["relname"] for row in await pg_pool.fetch(WRITABLE)}
    assert tables - KEPT == set(STORE_TABLES), "a new table: add it to STORE_TABLES"
    store = PostgresEventStore(pg_pool, clock=clock)
    await store.append("s1", 0, batch(1, 2))
    await pg_pool.execute(
        "INSERT INTO ops_reads (season_id, what, actor, recorded_at) VALUES ('s1', 'orders/1', 'ops', now())"
    )
    assert await pg_pool.fetchval("SELECT count(*) FROM event_ids") == 2
    await empty_store(pg_pool)
    for table in STORE_TABLES:
        assert await pg_pool.fetchval(f"SELECT count(*) FROM {table}") == 0, table
    assert [e.position for e in await store.append("s1", 0, batch(1, 2))] == [1, 2]
    assert await pg_pool.fetchval("SELECT nextval('ops_reads_id_seq')") == 1
    with pytest.raises(
        asyncpg.InsufficientPrivilegeError, match="append-only"
    ):  # the append-only trigger is on again
        await pg_pool.execute("DELETE FROM events")
