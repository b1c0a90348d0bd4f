"""A fold's read of the event log: `read_stream` (every envelope field) beside `read_data`
(version, type, data, hash: what Seasons.since folds, ADR-142), on one stored season.

Run: .venv/bin/python -m bench.fold_read [--reads 200] [--rounds 3] [--dsn …]

It stores one whole trial season (seed 11, as bench.verify does) in a scratch database, then
alternates rounds of `--reads` reads of the whole stream by each method and prints, per event
read, the client's CPU (process time) and the wall time (client, PostgreSQL and the socket).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Sequence

import asyncpg

from bench.api_orders import DEFAULT_DSN
from bench.verify import clock, store_season
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool, migrate


async def per_event(
    read: Callable[[str], Awaitable[Sequence[object]]], reads: int, events: int
) -> tuple[float, float]:
    """(client CPU, wall) in µs per event read, over `reads` reads of the whole stream."""
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for _ in range(reads):
        await read("bench")
    scale = 1e6 / (reads * events)
    return (time.process_time() - cpu0) * scale, (time.perf_counter() - wall0) * scale


async def main(args: argparse.Namespace) -> None:
    name = f"bench_fold_read_{os.getpid()}"
    admin = await asyncpg.connect(args.dsn)
    await admin.execute(f"CREATE DATABASE {name}")
    try:
        db = args.dsn.rsplit("/", 1)[0] + "/" + name
        await migrate(db)
        pool = await create_pool(db, PoolSettings(min_size=1, max_size=2))
        try:
            store = PostgresEventStore(pool, clock=clock, notify_window=None)
            await store_season(store, "bench", seed=11)
            events = len(await store.read_stream("bench"))
            print(f"one season, {events} events, load average {os.getloadavg()[0]:.1f}")
            for n in range(args.rounds):
                a = await per_event(store.read_stream, args.reads, events)
                b = await per_event(store.read_data, args.reads, events)
                print(
                    f"  round {n + 1}: read_stream {a[0]:5.2f} µs CPU {a[1]:5.2f} µs wall an event;"
                    f" read_data {b[0]:5.2f} µs CPU {b[1]:5.2f} µs wall"
                )
        finally:
            await pool.close()
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--reads", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    return p.parse_args()


if __name__ == "__main__":
    asyncio.run(main(parse()))
