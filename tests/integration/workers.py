"""Process bodies for the multi-process reliability tests (run under the spawn start method)."""

from __future__ import annotations

import asyncio
from typing import Any

from shared.eventstore import ConcurrencyError, PoolSettings, PostgresEventStore, create_pool
from tests.clock import StepClock
from tests.integration.support import batch, new_event


async def _store(dsn: str) -> PostgresEventStore:
    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=2, lock_timeout_ms=10_000))
    return PostgresEventStore(pool, clock=StepClock())


def race(dsn: str, season: str, rounds: int, barrier: Any, space: int) -> list[tuple[int, bool]]:
    """RELIABILITY 1: each round, read the version, meet the rival, append at that version."""

    async def run() -> list[tuple[int, bool]]:
        store = await _store(dsn)
        outcomes = []
        for n in range(rounds):
            version = await store.stream_version(season)
            barrier.wait()
            try:
                await store.append(season, version, [new_event(n, space=space)])
                outcomes.append((version, True))
            except ConcurrencyError:
                outcomes.append((version, False))
        return outcomes

    return asyncio.run(run())


def write(dsn: str, season: str, transactions: int, per_tx: int, space: int) -> int:
    """RELIABILITY 7: append `transactions` batches of `per_tx` events to one season."""

    async def run() -> int:
        store = await _store(dsn)
        for n in range(transactions):
            await store.append(season, n * per_tx, batch(n * per_tx, per_tx, space=space))
        return transactions * per_tx

    return asyncio.run(run())
