"""Append throughput of the event store, against the counter-row design it replaced.

Run: .venv/bin/python bench/eventstore_append.py [--dsn postgresql://postgres@127.0.0.1/postgres]
     [--seconds 5] [--writers 1 4 16] [--batch 1 10]

It creates a scratch database, runs each design for --seconds per cell with W concurrent
writers (each on its own season, so no version conflicts) and batches of B events, prints
appends/s and events/s, and drops the database. The designs:

- store: `PostgresEventStore.append` as shipped (0003): positions from a sequence, the
  transaction id on each row, no global lock; NOTIFY sent after the commit.
- counter row: the append statement of the store before 0003, verbatim, on the 0001 schema in
  a schema of its own: a `log_head` row taken inside the statement, NOTIFY inside it.
- no counter, NOTIFY inside: the shipped statement with the NOTIFY moved back inside the
  transaction; shows that NOTIFY alone serialises commits (it holds a database-wide lock from
  pre-commit until the commit is flushed).

All three read the stream head first and compute the hash chain in Python, as the store does.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

import asyncpg
import msgspec

from shared.eventstore import (
    NOTIFY_CHANNEL,
    EventMetadata,
    NewEvent,
    PostgresEventStore,
    create_pool,
    migrate,
)
from shared.eventstore import sql as store_sql
from shared.eventstore.append import Batch
from shared.eventstore.hashing import CHAIN_VERSION, GENESIS, chain_hashes
from shared.eventstore.migrate import load_migrations
from shared.eventstore.pool import PoolSettings, server_settings

# The counter-row append as shipped before 0003 (its $1..$11: `array_params`).
_OLD_CLAIM_NEXT = """UPDATE streams SET version = $3 + cardinality($4::uuid[]), last_hash = $10
    WHERE season_id = $1 AND version = $3 AND last_hash = $2 RETURNING season_id"""
_OLD_CLAIM_FIRST = """INSERT INTO streams (season_id, version, last_hash)
    SELECT $1, $3 + cardinality($4::uuid[]), $10
    WHERE $3 = 0 AND $2::bytea = decode(repeat('00', 32), 'hex')
    ON CONFLICT (season_id) DO NOTHING RETURNING season_id"""
_OLD_APPEND = """
WITH claim AS ({claim}),
head AS (
    UPDATE log_head SET position = position + cardinality($4::uuid[])
    WHERE singleton AND EXISTS (SELECT 1 FROM claim)
    RETURNING position - cardinality($4::uuid[]) AS base, position AS last
),
inserted AS (
    INSERT INTO events (position, season_id, version, event_id, type, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT head.base + e.n, $1, $3 + e.n, e.id, e.type, e.data, e.meta::jsonb, $8, e.prev, e.hash
    FROM head, unnest($4::uuid[], $5::text[], $6::bytea[], $7::text[], $9::bytea[],
                      $11::bytea[]) WITH ORDINALITY AS e(id, type, data, meta, prev, hash, n)
)
SELECT head.base FROM head, LATERAL pg_notify('{channel}', head.last::text)"""
OLD_FIRST = _OLD_APPEND.format(claim=_OLD_CLAIM_FIRST, channel=NOTIFY_CHANNEL)
OLD_NEXT = _OLD_APPEND.format(claim=_OLD_CLAIM_NEXT, channel=NOTIFY_CHANNEL)

_TAIL = "SELECT pos.ps AS positions, true AS key_held FROM pos"
_NOTIFY_INSIDE = f"{_TAIL}, LATERAL pg_notify('{NOTIFY_CHANNEL}', pos.ps[1]::text)"
NOTIFYING_FIRST = store_sql.APPEND_FIRST.replace(_TAIL, _NOTIFY_INSIDE)
NOTIFYING_NEXT = store_sql.APPEND_NEXT.replace(_TAIL, _NOTIFY_INSIDE)
assert NOTIFYING_FIRST != store_sql.APPEND_FIRST, "the store's statement changed: update the bench"

Appender = Callable[[str, int, list[NewEvent]], Awaitable[object]]


def clock() -> datetime:  # bench/ may read the wall clock
    return datetime.now(UTC)


def batch(cell: int, writer: int, seq: int, size: int) -> list[NewEvent]:
    meta = EventMetadata(actor="system")
    return [
        NewEvent(
            event_id=uuid.UUID(int=(cell << 96) | (writer << 64) | (seq * size + i)),
            type="bench_happened.v1",
            data=msgspec.json.encode({"writer": writer, "seq": seq, "i": i, "pad": "x" * 100}),
            metadata=meta,
        )
        for i in range(size)
    ]


async def run_cell(append: Appender, cell: int, writers: int, size: int, seconds: float) -> int:
    stop = time.perf_counter() + seconds

    async def writer(w: int) -> int:
        season, version, seq = f"cell{cell}-w{w}", 0, 0
        while time.perf_counter() < stop:
            await append(season, version, batch(cell, w, seq, size))
            version, seq = version + size, seq + 1
        return seq

    return sum(await asyncio.gather(*(writer(w) for w in range(writers))))


# The 0001 schema has no `chain` column (0007 added it): its streams are chain version 1.
OLD_STREAM_HEAD = "SELECT version, last_hash, 1 AS chain FROM streams WHERE season_id = $1"

Params = Callable[[Batch, bytes], tuple[object, ...]]


def array_params(batch: Batch, last_hash: bytes) -> tuple[object, ...]:
    """The old statements' $1..$11, each event column an array (the store's one-append
    statements have taken their events as one JSON parameter since ADR-168)."""
    es = batch.events
    return (
        batch.season_id,
        last_hash,
        batch.expected,
        [e.event_id for e in es],
        [e.type for e in es],
        [e.data for e in es],
        [msgspec.json.encode(e.metadata).decode() for e in es],
        batch.recorded_at,
        [prev for prev, _ in batch.links],
        batch.links[-1][1],
        [digest for _, digest in batch.links],
    )


def statement_appender(
    pool: asyncpg.Pool,
    first: str,
    following: str,
    head_query: str = store_sql.STREAM_HEAD,
    new_chain: int = CHAIN_VERSION,
    *,
    params_of: Params = Batch.params,  # the store's one-append statements'
) -> Appender:
    """Head read, chain in Python, then one autocommit statement (the store's shape); a new
    stream is chained with `new_chain`."""

    async def append(season: str, expected: int, events: list[NewEvent]) -> None:
        async with pool.acquire() as conn:
            head = await conn.fetchrow(head_query, season)
            last = head["last_hash"] if head else GENESIS
            chain = int(head["chain"]) if head else new_chain
            links = chain_hashes(last, season, expected, events, chain)
            params = params_of(Batch(season, expected, events, clock(), links), last)
            if await conn.fetchval(following if expected else first, *params) is None:
                raise RuntimeError(f"{season}: the claim failed at version {expected}")

    return append


async def main(args: argparse.Namespace) -> None:
    name = f"bench_eventstore_{os.getpid()}"
    admin = await asyncpg.connect(args.dsn)
    await admin.execute(f"CREATE DATABASE {name}")
    try:
        dsn = args.dsn.rsplit("/", 1)[0] + "/" + name
        await migrate(dsn)
        settings = PoolSettings(min_size=1, max_size=max(args.writers) + 2)
        pool = await create_pool(dsn, settings)
        old_pool = await _counter_row_schema(dsn, settings)
        try:
            designs: dict[str, Appender] = {
                "store (0003)": PostgresEventStore(pool, clock=clock).append,
                "counter row (pre-0003)": statement_appender(
                    old_pool, OLD_FIRST, OLD_NEXT, OLD_STREAM_HEAD, 1, params_of=array_params
                ),
                "no counter, NOTIFY inside": statement_appender(
                    pool, NOTIFYING_FIRST, NOTIFYING_NEXT
                ),
            }
            await run_all(designs, args)
        finally:
            await pool.close()
            await old_pool.close()
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


async def _counter_row_schema(dsn: str, settings: PoolSettings) -> asyncpg.Pool:
    """The 0001 schema (counter row) in schema `counter`, and a pool whose path points there."""
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("CREATE SCHEMA counter; SET search_path = counter")
        await conn.execute(load_migrations()[0].sql)
    finally:
        await conn.close()
    pool = await asyncpg.create_pool(
        dsn,
        min_size=settings.min_size,
        max_size=settings.max_size,
        server_settings=server_settings(settings) | {"search_path": "counter"},
    )
    assert pool is not None
    return pool


async def run_all(designs: dict[str, Appender], args: argparse.Namespace) -> None:
    """Every design x writers x batch cell, one line each."""
    print(f"{'design':26} {'writers':>7} {'batch':>5} {'appends/s':>10} {'events/s':>9}")
    cells = [(label, w, b) for label in designs for w in args.writers for b in args.batch]
    for cell, (label, writers, size) in enumerate(cells, start=1):
        n = await run_cell(designs[label], cell, writers, size, args.seconds)
        rate = n / args.seconds
        print(f"{label:26} {writers:7} {size:5} {rate:10.0f} {rate * size:9.0f}", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_dsn = os.environ.get(
        "SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--dsn", default=default_dsn, help="a server DSN (scratch db made there)")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--batch", type=int, nargs="+", default=[1, 10])
    asyncio.run(main(parser.parse_args()))
