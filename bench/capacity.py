"""The cost of a season, for the capacity model of docs/scaling.md (issue 28).

Run: .venv/bin/python -m bench.capacity [--seasons 10] [--divans 16] [--broker redis|rabbitmq]
     [--redis-port 0] [--amqp amqp://guest:guest@127.0.0.1:5672] [--dsn …]

On a scratch database, a redis-server of the run's own (the read models; the broker too with
--broker redis) and the chosen broker, it starts the real worker processes (one resolver,
`--processes 1 --threads 1`, and one projections worker, as bench.live_surge does), serves the
command API in this process, and plays `--seasons` trial seasons at once (18 computer beys and
one player who gives no orders), each Divan after Divan up to `--divans`, until every read
model is at its stream's head. Then it prints, per season and per Divan:

  events and bytes: events stored per season; the database's growth and the events' own
                    column bytes (pg_column_size) per season
  CPU per Divan:    the resolver's and the projector's process trees (psutil user+system), and
                    this process (the API and the bench's client together: an upper bound)
  Redis memory:     used_memory's growth and keys per season (the read models)
  broker messages:  per Divan, the request's resolve message (the projectors wake on the
                    store's NOTIFY, ADR-112): from the code path, not counted on the broker
                    (neither broker counts published messages without a plugin)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis

from bench.api_orders import DEFAULT_DSN, in_process, quiet_json_logs, scratch_database
from bench.common import own_redis
from bench.divan_latency import RESOLVED, new_season
from bench.live_surge import projected_count, tree_cpu, workers
from entrypoints.gateway import create_app
from shared.settings import Settings
from tests.brokers import broker_of


async def play(client: httpx.AsyncClient, pool: asyncpg.Pool, i: int, divans: int) -> str:
    """One trial season, Divan after Divan, each waited for (polling the store)."""
    sid, auth = await new_season(client, i)
    sql = "SELECT count(*) FROM events WHERE season_id = $1 AND type = $2"
    for n in range(1, divans + 1):
        r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": n}, headers=auth)
        if r.status_code != 202:
            raise RuntimeError(f"Divan {n}: {r.status_code} {r.text}")
        async with asyncio.timeout(120):
            while await pool.fetchval(sql, sid, RESOLVED) < n:
                await asyncio.sleep(0.01)
    return sid


async def store_figures(pool: asyncpg.Pool, seasons: int) -> dict[str, float]:
    events = await pool.fetchval("SELECT count(*) FROM events")
    column = await pool.fetchval("SELECT sum(pg_column_size(e.*)) FROM events e")
    size = await pool.fetchval("SELECT pg_database_size(current_database())")
    return {"events": events / seasons, "column_bytes": column / seasons, "db_bytes": size}


async def measure(dsn: str, redis_url: str, broker: str, args: argparse.Namespace) -> None:
    settings = Settings(
        pg_dsn=dsn, redis_url=redis_url, read_redis_url=redis_url, broker_url=broker
    )
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=4)
    r = redis.Redis.from_url(redis_url)
    logs = Path(tempfile.mkdtemp(prefix="seksenbir-capacity-"))
    shape = argparse.Namespace(resolvers=1, threads=1, projectors=1)
    try:
        with workers(settings, shape, logs) as (resolver, projector):
            async with in_process(create_app(settings, reads=False)) as client:
                await asyncio.sleep(1)
                db0 = await pool.fetchval("SELECT pg_database_size(current_database())")
                mem0, keys0 = int(r.info("memory")["used_memory"]), int(r.dbsize())
                cpu0 = (tree_cpu(resolver), tree_cpu(projector), time.process_time())
                t0 = time.monotonic()
                played = [play(client, pool, i, args.divans) for i in range(args.seasons)]
                ids = await asyncio.gather(*played)
                want = [
                    (
                        sid,
                        await pool.fetchval(
                            "SELECT max(version) FROM events WHERE season_id = $1", sid
                        ),
                    )
                    for sid in ids
                ]
                while projected_count(r, "sb", want) < len(want):
                    await asyncio.sleep(0.05)
                wall = time.monotonic() - t0
                cpu1 = (tree_cpu(resolver), tree_cpu(projector), time.process_time())
                mem1, keys1 = int(r.info("memory")["used_memory"]), int(r.dbsize())
        measured = {"db0": db0, "wall": wall, "cpu0": cpu0, "cpu1": cpu1}
        measured["redis"] = (mem1 - mem0, keys1 - keys0)
        report(args, await store_figures(pool, args.seasons), measured)
    finally:
        await pool.close()
        r.close()


def report(args: argparse.Namespace, store: dict[str, float], measured: dict[str, Any]) -> None:
    k, divans = args.seasons, args.seasons * args.divans
    db0, wall, redis_growth = measured["db0"], measured["wall"], measured["redis"]
    cpu0, cpu1 = measured["cpu0"], measured["cpu1"]
    per: list[Any] = [(b - a) / divans * 1000 for a, b in zip(cpu0, cpu1, strict=True)]
    print(
        f"{k} trial seasons x {args.divans} Divans in {wall:.1f} s ({divans / wall:.1f} Divans/s)"
    )
    print(
        f"  store: {store['events']:.0f} events per season; "
        f"{(store['db_bytes'] - db0) / k / 1024:.0f} KiB database growth per season, "
        f"events' own bytes {store['column_bytes'] / 1024:.0f} KiB"
    )
    print(
        f"  CPU per Divan: resolver {per[0]:.1f} ms, projector {per[1]:.1f} ms, "
        f"API + bench client {per[2]:.1f} ms"
    )
    print(
        f"  Redis (read models): {redis_growth[0] / k / 1024:.0f} KiB used_memory and "
        f"{redis_growth[1] / k:.0f} keys per season"
    )
    print(
        f"  broker messages: 1 per Divan (its resolve message; the projectors wake on the "
        f"store's NOTIFY, ADR-112), {args.divans} per season of {args.divans} Divans"
    )


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    print(
        f"config: python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}, broker {args.broker}, "
        f"resolver --processes 1 --threads 1, 1 projections worker"
    )
    async with scratch_database(args.dsn, "seksenbir_bench_capacity") as dsn:
        with (
            own_redis(args.redis_port) as redis_url,
            broker_of(args.broker, redis_url, args.amqp) as broker,
        ):
            await measure(dsn, redis_url, broker, args)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--seasons", type=int, default=10)
    p.add_argument("--divans", type=int, default=16)
    p.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672")
    p.add_argument("--redis-port", type=int, default=0, help="the run's redis-server (0: free)")
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
