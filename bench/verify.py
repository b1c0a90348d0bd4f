"""Verification speed (issue 13): one whole season in process, and many stored seasons against
the raw rate of reading the same events from PostgreSQL.

Run: .venv/bin/python -m bench.verify [--dsn postgresql://postgres@127.0.0.1/postgres]
     [--seasons 1000] [--repeat 5]

1. One season, in process (no interpreter start): a whole trial season of computer beys (16
   Divans and the Kurultay) through an in-memory event store, then `shared.app.ops.export.check`
   on its records, median of --repeat runs: the whole check (chain, every Divan re-run, the
   computer beys' turns re-derived, the seed), and its parts: the chain alone, the re-run
   without the computer turns. Target: the whole check <= 100 ms.
2. --seasons stored seasons in a scratch database on --dsn (dropped afterwards): each a whole
   trial season of its own (its own id and seed) played through PostgresEventStore, then
   verified as `seksenbir verify --all` does (read_stream, store.verify_chain against
   streams.last_hash, check): seasons/s and events/s, beside the rate of reading the same
   events (read_stream of every season, and one bare `SELECT data FROM events` per season)
   in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from datetime import UTC, datetime

import asyncpg

from bench.common import machine
from shared.app.ops.export import Export
from shared.app.ops.export_check import check
from shared.app.repository.seasons import Seasons
from shared.domain import codec
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.replay import verify as replay_verify
from shared.domain.simulate import must
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import (
    EventMetadata,
    EventStore,
    InMemoryEventStore,
    PoolSettings,
    PostgresEventStore,
    RecordedEvent,
    create_pool,
    migrate,
    verify_chain,
)

SYSTEM = EventMetadata(actor="system")


def clock() -> datetime:
    return datetime(2026, 12, 1, tzinfo=UTC)


async def store_season(store: EventStore, season_id: str, seed: int) -> None:
    """A whole trial season as the resolver appends it: setup, 16 Divans, the Kurultay."""
    seasons = Seasons(store)
    state, events = must(SeasonState(), c.CreateSeason(season_id=season_id, seed=seed))
    state, more = must(state, c.CloseRegistration())
    version = len(await seasons.append(season_id, 0, "setup", [*events, *more], SYSTEM))
    for n in range(1, DIVANS + 1):
        divan = run_divan(state)
        state = fold(divan, state)
        version += len(await seasons.append(season_id, version, f"divan/{n}", divan, SYSTEM))
    held = decide(state, c.HoldKurultay())
    assert isinstance(held, list), held
    await seasons.append(season_id, version, "kurultay", held, SYSTEM)


async def one_season(seed: int) -> list[RecordedEvent]:
    store = InMemoryEventStore(clock=clock)
    await store_season(store, "bench", seed)
    return await store.read_stream("bench")


def median_ms(fn: object, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - t0)
    return statistics.median(out) * 1000


def in_process(repeat: int) -> None:
    records = asyncio.run(one_season(11))
    export = Export("bench", None, None, records, chain=2)
    verdict = check(export)
    assert verdict.ok and verdict.complete, verdict.as_json(False)
    decoded = [codec.decode_event(r.data) for r in records]
    whole = median_ms(lambda: check(export), repeat)
    chain = median_ms(lambda: verify_chain(records, chain=2), repeat)
    decode = median_ms(lambda: [codec.decode_event(r.data) for r in records], repeat)
    rerun = median_ms(lambda: replay_verify(decoded, bots_too=False), repeat)
    print(
        f"one season in process ({len(records)} events, median of {repeat}), {machine()}, "
        "load average {:.1f}:".format(os.getloadavg()[0])
    )
    print(f"  whole check (chain, re-run, computer turns, seed) {whole:8.1f} ms  (target 100)")
    print(f"  hash chain alone                                   {chain:8.1f} ms")
    print(f"  decoding every event                               {decode:8.1f} ms")
    print(f"  re-run of every Divan, no computer turns           {rerun:8.1f} ms")
    bots = whole - chain - decode - rerun
    print(f"  computer beys' turns re-derived (the rest)         {bots:8.1f} ms")


async def stored(dsn: str, seasons: int) -> None:
    name = f"bench_verify_{os.getpid()}"
    admin = await asyncpg.connect(dsn)
    await admin.execute(f"CREATE DATABASE {name}")
    try:
        db = dsn.rsplit("/", 1)[0] + "/" + name
        await migrate(db)
        pool = await create_pool(db, PoolSettings(min_size=1, max_size=4))
        try:
            await _stored(pool, seasons)
        finally:
            await pool.close()
    finally:
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


async def _stored(pool: asyncpg.Pool, seasons: int) -> None:
    store = PostgresEventStore(pool, clock=clock, notify_window=None)
    t0 = time.perf_counter()
    ids = []
    for n in range(seasons):
        # each a season of its own, played under its id (a copy of another season's events
        # under a new id is a relabelled season, which the check refuses)
        season_id = f"bench-{n:05d}"
        await store_season(store, season_id, seed=100 + n)
        ids.append(season_id)
    events = 0
    for season_id in ids:
        events += await store.stream_version(season_id)
    print(
        f"{seasons} seasons played and stored ({events} events) in {time.perf_counter() - t0:.1f} s"
    )

    t0 = time.perf_counter()
    for season_id in ids:
        await store.read_stream(season_id)
    read = time.perf_counter() - t0
    t0 = time.perf_counter()
    async with pool.acquire() as conn:
        for season_id in ids:
            await conn.fetch(
                "SELECT data, hash FROM events WHERE season_id = $1 ORDER BY version", season_id
            )
    bare = time.perf_counter() - t0

    t0 = time.perf_counter()
    failed = 0
    for season_id in ids:
        records = await store.read_stream(season_id)
        await store.verify_chain(season_id)
        chain = await store.chain_version(season_id)
        if not check(Export(season_id, None, None, records, chain=chain)).ok:
            failed += 1
    took = time.perf_counter() - t0
    assert failed == 0, failed
    print(f"verify {seasons} stored seasons (as `seksenbir verify --all`): {took:.1f} s")
    print("  load average (1, 5, 15 min) at the end: {:.1f} {:.1f} {:.1f}".format(*os.getloadavg()))
    print(f"  verify              {seasons / took:10.1f} seasons/s {events / took:12.0f} events/s")
    print(f"  read_stream alone   {seasons / read:10.1f} seasons/s {events / read:12.0f} events/s")
    print(f"  bare SELECT         {seasons / bare:10.1f} seasons/s {events / bare:12.0f} events/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_dsn = os.environ.get(
        "SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--dsn", default=default_dsn, help="a server DSN (scratch db made there)")
    parser.add_argument("--seasons", type=int, default=1000, help="stored seasons to verify")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the in-process check")
    args = parser.parse_args()
    in_process(args.repeat)
    asyncio.run(stored(args.dsn, args.seasons))


if __name__ == "__main__":
    main()
