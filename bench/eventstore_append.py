"""Append throughput of the event store: the counter-row design against an xid8 alternative.

Run: .venv/bin/python bench/eventstore_append.py [--dsn postgresql://postgres@127.0.0.1/postgres]
It creates a scratch database, runs each design for --seconds per cell with W concurrent
writers (each on its own season, so no version conflicts) and batches of B events, prints
appends/s and events/s, and drops the database.
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

from shared.eventstore import EventMetadata, NewEvent, PostgresEventStore, create_pool, migrate
from shared.eventstore.hashing import GENESIS, chain_hashes
from shared.eventstore.pool import PoolSettings

ALT_SCHEMA = """
CREATE TABLE alt_streams (season_id text PRIMARY KEY, version integer NOT NULL,
                          last_hash bytea NOT NULL);
CREATE TABLE alt_events (
    position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
    season_id text NOT NULL, version integer NOT NULL, event_id uuid NOT NULL UNIQUE,
    type text NOT NULL, data bytea NOT NULL, metadata jsonb NOT NULL,
    recorded_at timestamptz NOT NULL, prev_hash bytea NOT NULL, hash bytea NOT NULL,
    UNIQUE (season_id, version));
CREATE INDEX alt_events_tx ON alt_events (tx, position);
"""

# Same claim + insert as the store, minus the counter row: positions come from an identity
# sequence and readers would order by (tx, position) below pg_snapshot_xmin.
ALT_APPEND = """
WITH claim AS (
    INSERT INTO alt_streams AS s (season_id, version, last_hash)
    VALUES ($1::text, $2::int + $9::int, $8::bytea)
    ON CONFLICT (season_id) DO UPDATE SET version = EXCLUDED.version,
        last_hash = EXCLUDED.last_hash
    WHERE s.version = $2 RETURNING 1)
INSERT INTO alt_events (season_id, version, event_id, type, data, metadata, recorded_at,
                        prev_hash, hash)
SELECT $1, $2::int + e.n, e.id, e.type, e.data, '{"actor":"system"}'::jsonb, now(), e.prev, e.hash
FROM claim, unnest($3::uuid[], $4::text[], $5::bytea[], $6::bytea[], $7::bytea[])
    WITH ORDINALITY AS e(id, type, data, prev, hash, n)
"""

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


def alt_appender(pool: asyncpg.Pool) -> Appender:
    async def append(season: str, expected: int, events: list[NewEvent]) -> None:
        async with pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT version, last_hash FROM alt_streams WHERE season_id = $1", season
            )
            last = row["last_hash"] if row else GENESIS
            links = chain_hashes(last, season, expected, events)
            status = await conn.execute(
                ALT_APPEND,
                season,
                expected,
                [e.event_id for e in events],
                [e.type for e in events],
                [e.data for e in events],
                [p for p, _ in links],
                [h for _, h in links],
                links[-1][1],
                len(events),
            )
            assert status == f"INSERT 0 {len(events)}", status

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
        try:
            await pool.execute(ALT_SCHEMA)
            await run_all(pool, args)
        finally:
            await pool.close()
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


async def run_all(pool: asyncpg.Pool, args: argparse.Namespace) -> None:
    """Every design x writers x batch cell, one line each."""
    designs = {
        "counter row (chosen)": PostgresEventStore(pool, clock=clock).append,
        "xid8 + identity (alt)": alt_appender(pool),
    }
    print(f"{'design':24} {'writers':>7} {'batch':>5} {'appends/s':>10} {'events/s':>9}")
    cells = [(label, w, b) for label in designs for w in args.writers for b in args.batch]
    for cell, (label, writers, size) in enumerate(cells, start=1):
        n = await run_cell(designs[label], cell, writers, size, args.seconds)
        rate = n / args.seconds
        print(f"{label:24} {writers:7} {size:5} {rate:10.0f} {rate * size:9.0f}")


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
