"""A projector in its own process, for the crash and split-brain tests (RELIABILITY 19, 20).

python -m tests.projections.projector_process DSN REDIS_URL PREFIX [--batch N] [--rounds N]
sweeps every season (catch_up where the head is past the checkpoint) `rounds` times, printing
one line per sweep. FAULT_POINT=mid_apply:exit in its environment makes it die with 137
between computing a batch and applying it.
"""

from __future__ import annotations

import argparse
import asyncio

import redis.asyncio as aioredis

from services.projections import projector as projector_module
from services.projections.projector import Projector
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from tests.clock import StepClock


async def main(dsn: str, redis_url: str, prefix: str, rounds: int) -> None:
    pool = await create_pool(
        dsn, PoolSettings(min_size=1, max_size=2, application_name="projector-test")
    )
    redis = aioredis.Redis.from_url(redis_url)
    try:
        projector = Projector(PostgresEventStore(pool, clock=StepClock()), redis, prefix)
        for n in range(rounds):
            applied = await projector.sweep()
            print(f"sweep {n} applied {applied}", flush=True)
    finally:
        await redis.aclose()
        await pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("dsn")
    parser.add_argument("redis_url")
    parser.add_argument("prefix")
    parser.add_argument("--batch", type=int, default=projector_module.BATCH)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    projector_module.BATCH = args.batch
    asyncio.run(main(args.dsn, args.redis_url, args.prefix, args.rounds))
