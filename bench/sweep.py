"""What one pass of the projections worker's catch-up sweep costs, by seasons ever made (ADR-147).

Run: .venv/bin/python -m bench.sweep [--seasons 20000] [--changed 10] [--passes 5]
     [--dsn postgresql://postgres@127.0.0.1:5432/postgres] [--redis redis://127.0.0.1:PORT/0]

It fills a scratch PostgreSQL database (dropped afterwards) with --seasons seasons of one
event each, written by SQL (the sweep reads `streams` and the events' order, not their
contents), and gives each a projected read model's pointer and checkpoint under a unique
Redis key prefix (deleted afterwards; no db is flushed). Then a projections worker's sweeper
(`Projector.sweep` with its `behind` map, as `start_sweeper` runs it) makes --passes passes,
each after one more event in each of --changed seasons, which it finds behind (the bench
moves their checkpoints on as a projector would, one event behind, so none is ever decoded).
It prints, for the first pass (every season: what every pass read before ADR-147) and the
passes after it (the seasons appended to since and those behind), the wall time and this
process's CPU a pass. PostgreSQL's and redis-server's
own CPU are not counted. A worker sweeps every SEKSENBIR_SWEEP_SECONDS (2 s).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import time

import asyncpg
import redis.asyncio as aioredis

from bench.api_orders import scratch_database
from bench.common import redis_given_or_own
from bench.projections import clock, quiet
from services.projections.keys import Keys
from services.projections.projector import Projector
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

ONE_EVENT = """
INSERT INTO events (season_id, version, event_id, type, data, metadata, recorded_at,
                    prev_hash, hash)
SELECT s, v, gen_random_uuid(), 'BenchSweep', '\\x00'::bytea, '{}'::jsonb, now(),
       decode(repeat('00', 32), 'hex'), decode(repeat('00', 32), 'hex')
FROM unnest($1::text[], $2::int[]) AS t(s, v)"""
STREAMS = """
INSERT INTO streams (season_id, version, last_hash)
SELECT s, v, decode(repeat('00', 32), 'hex') FROM unnest($1::text[], $2::int[]) AS t(s, v)
ON CONFLICT (season_id) DO UPDATE SET version = excluded.version"""


async def add_events(pool: asyncpg.Pool, versions: dict[str, int]) -> None:
    seasons, numbers = list(versions), list(versions.values())
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(ONE_EVENT, seasons, numbers)
        await conn.execute(STREAMS, seasons, numbers)


async def projected(redis: aioredis.Redis, prefix: str, versions: dict[str, int]) -> None:
    """Each season's read model as caught up: its active generation and checkpoint."""
    pipe = redis.pipeline(transaction=False)
    for season_id, version in versions.items():
        pipe.set(Keys.active(prefix, season_id), 1)
        pipe.set(Keys(prefix, season_id, 1).checkpoint, version)
    await pipe.execute()


async def run(args: argparse.Namespace) -> None:
    quiet()
    async with scratch_database(args.dsn, "bench_sweep") as dsn:
        pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=2))
        redis = aioredis.Redis.from_url(args.redis)
        prefix = f"bench-sweep-{secrets.token_hex(4)}"
        try:
            versions = {f"sweep-{n:07d}": 1 for n in range(args.seasons)}
            t0 = time.perf_counter()
            for start in range(0, args.seasons, 5000):
                part = dict(list(versions.items())[start : start + 5000])
                await add_events(pool, part)
                await projected(redis, prefix, part)
            print(
                f"{args.seasons} seasons stored and projected in {time.perf_counter() - t0:.1f} s"
            )
            store = PostgresEventStore(pool, clock=clock)
            projector = Projector(store, redis, prefix)
            behind: dict[str, int | None] = {}
            walls: list[float] = []
            cpus: list[float] = []
            changed = sorted(versions)[:: max(1, args.seasons // max(args.changed, 1))][
                : args.changed
            ]
            for _ in range(args.passes + 1):
                c0, w0 = time.process_time(), time.perf_counter()
                await projector.sweep(behind)
                walls.append(time.perf_counter() - w0)
                cpus.append(time.process_time() - c0)
                for season_id in changed:  # appended to, their wake-ups lost
                    versions[season_id] += 1
                await add_events(pool, {s: versions[s] for s in changed})
                # the sweep found them behind once: projected "by the sweep" at the next pass
                await projected(redis, prefix, {s: versions[s] - 1 for s in changed})
            print(f"{'pass':44} {'wall ms':>8} {'CPU ms':>8}")
            print(
                f"{'first (every season; every pass before ADR-147)':44} "
                f"{walls[0] * 1e3:8.1f} {cpus[0] * 1e3:8.1f}"
            )
            print(
                f"{f'after it, median of {args.passes} ({args.changed} seasons moved)':44} "
                f"{statistics.median(walls[1:]) * 1e3:8.1f} "
                f"{statistics.median(cpus[1:]) * 1e3:8.1f}"
            )
        finally:
            keys = [k async for k in redis.scan_iter(match=f"{prefix}:*", count=5000)]
            for start in range(0, len(keys), 1000):
                await redis.unlink(*keys[start : start + 1000])
            await redis.aclose()
            await pool.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=20_000)
    parser.add_argument("--changed", type=int, default=10)
    parser.add_argument("--passes", type=int, default=5)
    parser.add_argument(
        "--dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    parser.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    args = parser.parse_args()
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(run(args))


if __name__ == "__main__":
    main()
