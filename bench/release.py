"""Redis memory held by finished seasons before and after a release pass (issue 27, ADR-158).

Run: .venv/bin/python -m bench.release [--seasons 100] [--redis redis://127.0.0.1:PORT/0]

It projects --seasons whole simulated seasons (19 computer beys, 16 Divans, the Kurultay) from
the in-memory store under a unique Redis key prefix (deleted afterwards; no db is flushed),
then runs a release pass whose clock stands past the quiet period (SEKSENBIR_RELEASE_AFTER),
and prints:
- the bytes Redis holds for the prefix (the sum of MEMORY USAGE of its keys: the seasons'
  read models and the cross-season keys), before and after the pass, and per season;
- the pass: its wall time, this process's CPU, the Redis commands it sent (INFO commandstats,
  of the whole server: run it on a Redis nobody else uses for a clean count);
- one season's rebuild with every season held (a keyspace of --seasons x ~80 keys), and one
  released season's rebuild (its first read's cost), after the pass: each one's wall time,
  the Redis commands it sent, how many were SCANs (ADR-148: none; a SCAN of the whole keyspace
  before) and the keys those SCANs walked (the keyspace's size, at COUNT 1000 a page).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import time

import redis.asyncio as aioredis

from bench.common import machine, redis_given_or_own
from bench.projections import append, clock, delete_prefix, quiet, simulate
from services.projections.projector import Projector
from services.projections.release import RELEASE_AFTER_S, Releaser
from shared.eventstore import InMemoryEventStore


async def held_bytes(redis: aioredis.Redis, prefix: str) -> tuple[int, int]:
    """The keys under `prefix` and the bytes Redis accounts them (MEMORY USAGE, every sample)."""
    keys = [k async for k in redis.scan_iter(match=f"{prefix}:*", count=1000)]
    pipe = redis.pipeline(transaction=False)
    for k in keys:
        pipe.memory_usage(k, samples=0)
    return len(keys), sum(n or 0 for n in await pipe.execute())


async def commands(redis: aioredis.Redis) -> int:
    stats = await redis.info("commandstats")
    return sum(int(v["calls"]) for k, v in stats.items() if k.startswith("cmdstat_"))


async def scans(redis: aioredis.Redis) -> int:
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_scan", {}).get("calls", 0))


async def timed_rebuild(redis: aioredis.Redis, projector: Projector, season_id: str) -> str:
    """One rebuild: its wall time, Redis commands (less the INFOs), SCANs and the keyspace."""
    size = await redis.dbsize()
    sent0, scan0 = await commands(redis), await scans(redis)
    t0 = time.perf_counter()
    await projector.rebuild(season_id)
    wall = time.perf_counter() - t0
    scanned = await scans(redis) - scan0
    sent = await commands(redis) - sent0 - 2  # less the INFOs that read them
    return f"{wall * 1e3:.1f} ms wall, {sent} Redis commands, {scanned} SCAN (keyspace {size} keys)"


async def main(args: argparse.Namespace) -> None:
    quiet()
    redis = aioredis.Redis.from_url(args.redis)
    prefix = f"bench-release-{secrets.token_hex(4)}"
    store = InMemoryEventStore(clock=clock)
    projector = Projector(store, redis, prefix)
    try:
        seasons = simulate(args.seasons, "released")
        for season_id, chunks in seasons.items():
            for n, chunk in enumerate(chunks):
                await append(store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
        seasons_ids = list(seasons)
        held_rebuild = await timed_rebuild(redis, projector, seasons_ids[-1])
        keys0, bytes0 = await held_bytes(redis, prefix)
        # the pass's clock past the quiet period: every season is quiet
        releaser = Releaser(
            redis, prefix, RELEASE_AFTER_S, lambda: time.time() + 2 * RELEASE_AFTER_S
        )
        sent0 = await commands(redis)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        counts = await releaser.run()
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        sent = await commands(redis) - sent0 - 1  # less the INFO that read it
        keys1, bytes1 = await held_bytes(redis, prefix)
        assert counts is not None and counts.released == args.seasons, counts
        released_rebuild = await timed_rebuild(redis, projector, seasons_ids[0])
        n = args.seasons
        print(f"release of {n} finished seasons ({machine()})")
        print(
            f"  before: {keys0} keys, {bytes0 / 2**20:.2f} MiB "
            f"({bytes0 / n / 1024:.1f} KiB a season)"
        )
        print(f"  after:  {keys1} keys, {bytes1 / 2**20:.3f} MiB ({bytes1 / n:.0f} B a season)")
        print(
            f"  pass: {wall * 1e3:.1f} ms wall, {cpu * 1e3:.1f} ms CPU, {sent} Redis commands "
            f"({sent / n:.1f} a season), {counts.keys} keys deleted"
        )
        print(f"  one season's rebuild, {n} held: {held_rebuild}")
        print(f"  one released season's rebuild (its first read): {released_rebuild}")
    finally:
        await delete_prefix(redis, prefix)
        await redis.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seasons", type=int, default=100)
    parser.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    args = parser.parse_args()
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(main(args))
