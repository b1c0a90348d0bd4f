"""Read-side benchmark: projector throughput beside raw redis-py writes, and append-to-read lag.

Run: .venv/bin/python bench/projections.py [--dsn postgresql://postgres@127.0.0.1/postgres]
     [--redis redis://127.0.0.1:PORT/0] [--seasons 10] [--rate 10] [--lag-seasons 12]

1. Throughput. --seasons whole simulated seasons (19 computer beys, 16 Divans and the
   Kurultay) are appended to a store, then projected with Projector.catch_up: from zero (one
   catch_up per season: batches of 64 events) and incrementally (one catch_up per Divan, the
   way wake-ups arrive). Both on the in-memory store (projector + Redis only) and on
   PostgreSQL. Beside it, in the same run, a plain redis-py pipeline writes as many HSETs
   (same value size, same writes per round trip) as the projector's Lua applies did.
2. Lag. A projector runs in its own process on PostgreSQL; this process appends one Divan
   (~35 events) at --rate Divans per second, round robin over --lag-seasons seasons, and
   polls the read model (the same read the query API does, every 1 ms) until the appended
   version is visible. Lag = commit of the append -> first read showing it; p50 and p99.
   Two wake-up paths: woken directly per season (a Redis list, standing in for the Dramatiq
   project_season message), and a polling sweep every --poll-ms.

It uses a scratch PostgreSQL database (dropped afterwards) and a unique Redis key prefix
(deleted afterwards); it never flushes a Redis db.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import os
import platform
import secrets
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta

import asyncpg
import redis.asyncio as aioredis
import structlog

from bench.common import redis_given_or_own
from services.projections import projector as projector_module
from services.projections.keys import Keys
from services.projections.listener import Listener
from services.projections.projector import Projector
from services.projections.reducers import Op
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.simulate import must
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import (
    EventMetadata,
    EventStore,
    InMemoryEventStore,
    PoolSettings,
    PostgresEventStore,
    create_pool,
    migrate,
)

SYSTEM = EventMetadata(actor="system", command_id="bench")
Chunks = dict[str, list[list[ev.Event]]]


def clock() -> datetime:  # bench/ may read the wall clock
    return datetime.now(UTC)


def quiet() -> None:
    """The projector logs every batch at info: keep the figures readable."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def chunks_of(seed: int, season_id: str) -> Iterator[list[ev.Event]]:
    """A whole computer-bey season: setup, one chunk per Divan, the Kurultay."""
    created = datetime(2026, 12, 1, 9, tzinfo=UTC)  # a live season names its close
    closes = created + timedelta(hours=2)
    create = c.CreateSeason(
        season_id=season_id,
        seed=seed,
        mode="live",
        seed_salt="b",
        counts_on_boards=True,
        registration_closes_at=closes,
        at=created,
    )
    state, events = must(SeasonState(), create)
    state, more = must(state, c.CloseRegistration(at=closes))
    yield events + more
    for _ in range(DIVANS):
        assert state.calendar is not None
        events = run_divan(state, now=state.calendar.at(state.divan + 1))  # held on time
        state = fold(events, state)
        yield events
    yield must(state, c.HoldKurultay())[1]


def simulate(count: int, tag: str) -> Chunks:
    return {f"{tag}-{n}": list(chunks_of(1000 + n, f"{tag}-{n}")) for n in range(count)}


async def append(store: EventStore, season_id: str, events: list[ev.Event], key: str) -> int:
    version = await store.stream_version(season_id)
    await Seasons(store).append(season_id, version, key, events, SYSTEM)
    return version + len(events)


async def delete_prefix(redis: aioredis.Redis, prefix: str) -> None:
    keys = [k async for k in redis.scan_iter(match=f"{prefix}:*", count=1000)]
    for start in range(0, len(keys), 500):
        await redis.unlink(*keys[start : start + 500])


# --- 1. throughput -----------------------------------------------------------------------------
class Meter:
    """Counts the writes the projector's sink applies and the time spent inside apply."""

    def __init__(self, projector: Projector) -> None:
        self.applies = self.writes = self.value_bytes = 0
        self.seconds = 0.0
        real = projector.sink.apply

        async def apply(
            checkpoint_key: str,
            expected: int,
            new: int,
            ops: Sequence[Op],
            held: tuple[str, int] | None = None,
        ) -> bool:
            writes = [op for op in ops if op[0] != "PUBLISH"]
            self.applies += 1
            self.writes += len(writes)
            self.value_bytes += sum(len(op[-1]) for op in writes if isinstance(op[-1], bytes))
            t0 = time.perf_counter()
            try:
                return await real(checkpoint_key, expected, new, ops, held)
            finally:
                self.seconds += time.perf_counter() - t0

        projector.sink.apply = apply  # type: ignore[method-assign]


async def project_all(
    store: EventStore, redis: aioredis.Redis, prefix: str, seasons: Chunks, incremental: bool
) -> tuple[int, float, Meter]:
    """Project every season; answers events applied, seconds inside catch_up, and the meter."""
    projector = Projector(store, redis, prefix)
    meter = Meter(projector)
    events = 0
    spent = 0.0
    if not incremental:
        for season_id in seasons:
            t0 = time.perf_counter()
            events += await projector.catch_up(season_id)
            spent += time.perf_counter() - t0
        return events, spent, meter
    for season_id, chunks in seasons.items():
        for n, chunk in enumerate(chunks):
            await append(store, season_id, chunk, f"chunk/{n}")
            t0 = time.perf_counter()
            events += await projector.catch_up(season_id)
            spent += time.perf_counter() - t0
    return events, spent, meter


async def raw_pipeline(
    redis: aioredis.Redis, prefix: str, writes: int, *, per_trip: int, size: int, multi: bool
) -> float:
    """The same number of HSETs in pipelines of `per_trip` (MULTI/EXEC or not); answers seconds."""
    value = b"x" * size
    key = f"{prefix}:raw"
    t0 = time.perf_counter()
    done = 0
    while done < writes:
        n = min(per_trip, writes - done)
        pipe = redis.pipeline(transaction=multi)
        for i in range(n):
            pipe.hset(f"{key}:{(done + i) % 64}", str(done + i), value)
        await pipe.execute()
        done += n
    return time.perf_counter() - t0


async def throughput(
    args: argparse.Namespace, dsn: str, redis: aioredis.Redis, prefix: str
) -> None:
    t0 = time.perf_counter()
    seasons = simulate(args.seasons, "tp")
    total = sum(len(ch) for chunks in seasons.values() for ch in chunks)
    print(f"simulated {len(seasons)} seasons, {total} events in {time.perf_counter() - t0:.1f} s")
    print()
    header = (
        f"{'store':9} {'mode':31} {'events/s':>9} {'writes':>7} {'writes/s':>9} {'in apply':>8}"
    )
    print(header)
    baseline = []
    for store_name in ("memory", "postgres"):
        for incremental in (False, True):
            mode = "one catch_up per Divan" if incremental else "from zero (batches of 64)"
            if store_name == "memory":
                store: EventStore = InMemoryEventStore(clock=clock)
            else:
                pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=4))
                await pool.execute(
                    "TRUNCATE events, streams, idempotency_keys, due_work RESTART IDENTITY"
                )
                store = PostgresEventStore(pool, clock=clock)
            if not incremental:
                for season_id, chunks in seasons.items():
                    for n, chunk in enumerate(chunks):
                        await append(store, season_id, chunk, f"chunk/{n}")
            cell = f"{prefix}:{store_name}{int(incremental)}"
            events, spent, meter = await project_all(store, redis, cell, seasons, incremental)
            assert events == total, (events, total)
            await delete_prefix(redis, cell)
            if store_name == "postgres":
                await pool.close()
            print(
                f"{store_name:9} {mode:31} {events / spent:9.0f} {meter.writes:7d} "
                f"{meter.writes / spent:9.0f} {meter.seconds / spent:7.0%}"
            )
            baseline.append(
                (
                    meter.writes,
                    meter.writes // max(meter.applies, 1),
                    meter.value_bytes // max(meter.writes, 1),
                )
            )
    print()
    print(f"{'raw redis-py pipeline, same run':41} {'writes':>7} {'writes/s':>9} {'per trip':>8}")
    for writes, per_trip, size in sorted(set(baseline)):
        for multi in (True, False):
            seconds = await raw_pipeline(
                redis, f"{prefix}:raw", writes, per_trip=max(per_trip, 1), size=size, multi=multi
            )
            await delete_prefix(redis, f"{prefix}:raw")
            label = f"HSET, {size} B values, {'MULTI/EXEC' if multi else 'no MULTI'}"
            print(f"{label:41} {writes:7d} {writes / seconds:9.0f} {per_trip:8d}")


# --- 2. lag ------------------------------------------------------------------------------------
def projector_process(dsn: str, redis_url: str, prefix: str, mode: str, poll_ms: int) -> None:
    """The projector in its own process: woken by the store's NOTIFY (as in production), per
    season from a list, or sweeping on a timer."""

    quiet()

    async def run() -> None:
        pool = await create_pool(
            dsn, PoolSettings(min_size=1, max_size=2, application_name="bench-projector")
        )
        redis = aioredis.Redis.from_url(redis_url)
        projector = Projector(PostgresEventStore(pool, clock=clock), redis, prefix)
        wake = f"{prefix}:wake"
        try:
            if mode == "listen":  # production's path: the store's NOTIFY names the seasons
                listening = asyncio.create_task(Listener(dsn, projector.catch_up).run())
                try:
                    while not await redis.exists(f"{prefix}:stop"):
                        await asyncio.sleep(0.1)
                finally:
                    listening.cancel()
                return
            while True:
                if mode == "wake":
                    popped = await redis.blpop([wake], timeout=1)
                    if popped is None:
                        await projector.sweep()  # the fallback sweep
                        continue
                    member = popped[1]
                    season_id = member.decode() if isinstance(member, bytes) else member
                    if season_id == "stop":
                        return
                    await projector.catch_up(season_id)
                else:
                    if await redis.exists(f"{prefix}:stop"):
                        return
                    await projector.sweep()
                    await asyncio.sleep(poll_ms / 1000)
        finally:
            await redis.aclose()
            await pool.close()

    asyncio.run(run())


class Watcher:
    """One reader for every append in flight: each 1 ms tick reads, for every season with
    appends in flight, the active generation and then its meta version (what the query API
    reads first), in two pipelined round trips however many appends are pending."""

    def __init__(self, redis: aioredis.Redis, prefix: str) -> None:
        self.redis, self.prefix = redis, prefix
        self.pending: dict[str, list[tuple[int, float]]] = {}
        self.samples: list[float] = []

    def expect(self, season_id: str, version: int, committed: float) -> None:
        self.pending.setdefault(season_id, []).append((version, committed))

    async def run(self, stop: asyncio.Event) -> None:
        while not (stop.is_set() and not self.pending):
            if self.pending:
                await self._tick()
            await asyncio.sleep(0.001)

    async def _tick(self) -> None:
        seasons = list(self.pending)
        pipe = self.redis.pipeline(transaction=False)
        for season_id in seasons:
            pipe.get(Keys.active(self.prefix, season_id))
        gens = await pipe.execute()
        pipe = self.redis.pipeline(transaction=False)
        for season_id, gen in zip(seasons, gens, strict=True):
            pipe.hget(Keys(self.prefix, season_id, int(gen or 0)).meta, "version")
        versions = await pipe.execute()
        now = time.perf_counter()
        for season_id, raw in zip(seasons, versions, strict=True):
            shown = int(raw or 0)
            waiting = []
            for version, committed in self.pending[season_id]:
                if shown >= version:
                    self.samples.append(now - committed)
                else:
                    waiting.append((version, committed))
            if waiting:
                self.pending[season_id] = waiting
            else:
                del self.pending[season_id]


async def lag(args: argparse.Namespace, dsn: str, redis_url: str, mode: str) -> None:
    prefix = f"bench:{os.getpid()}:{secrets.token_hex(3)}:lag"
    redis = aioredis.Redis.from_url(redis_url)
    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=4))
    await pool.execute("TRUNCATE events, streams, idempotency_keys, due_work RESTART IDENTITY")
    store = PostgresEventStore(pool, clock=clock)
    seasons = simulate(args.lag_seasons, f"lag-{mode}")
    for season_id, chunks in seasons.items():  # setup chunks and first projection, untimed
        await append(store, season_id, chunks[0], "chunk/0")
    warm = Projector(store, redis, prefix)
    for season_id in seasons:
        await warm.catch_up(season_id)
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=projector_process, args=(dsn, redis_url, prefix, mode, args.poll_ms))
    proc.start()
    await asyncio.sleep(2)  # let the process start and connect
    watcher = Watcher(redis, prefix)
    stop = asyncio.Event()
    watching = asyncio.create_task(watcher.run(stop))
    appends: list[float] = []
    interval = 1 / args.rate
    order = [(s, n) for n in range(1, DIVANS + 2) for s in seasons]
    start = time.perf_counter()
    try:
        for i, (season_id, n) in enumerate(order):
            await asyncio.sleep(max(0.0, start + i * interval - time.perf_counter()))
            t0 = time.perf_counter()
            version = await append(store, season_id, seasons[season_id][n], f"chunk/{n}")
            committed = time.perf_counter()
            appends.append(committed - t0)
            if mode == "wake":
                await redis.rpush(f"{prefix}:wake", season_id)
            watcher.expect(season_id, version, committed)
        stop.set()
        await asyncio.wait_for(watching, 60)
        elapsed = time.perf_counter() - start
    finally:
        watching.cancel()
        if mode == "wake":
            await redis.rpush(f"{prefix}:wake", "stop")
        else:
            await redis.set(f"{prefix}:stop", "1")
        proc.join(10)
        if proc.is_alive():
            proc.kill()
        await delete_prefix(redis, prefix)
        await redis.aclose()
        await pool.close()
    samples = watcher.samples
    events = sum(len(seasons[s][n]) for s, n in order)
    label = {
        "listen": "LISTEN (production)",
        "wake": "woken per season (list)",
    }.get(mode, f"polling sweep every {args.poll_ms} ms")
    print(
        f"{label:28} {len(samples):5d} {events / elapsed:8.0f} "
        f"{ms(statistics.median(samples)):8} {ms(pct(samples, 0.99)):8} {ms(max(samples)):8} "
        f"{ms(statistics.median(appends)):9}"
    )


def pct(samples: list[float], q: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * q))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


# --- main --------------------------------------------------------------------------------------
async def main(args: argparse.Namespace) -> None:
    print(f"python {sys.version.split()[0]} on {platform.machine()}, {os.cpu_count()} cpus")
    print(f"redis {args.redis}, postgres {args.dsn} (scratch database)")
    redis = aioredis.Redis.from_url(args.redis)
    info = await redis.info("server")
    print(f"redis-server {info['redis_version']}, projector BATCH {projector_module.BATCH}")
    name = f"bench_projections_{os.getpid()}"
    admin = await asyncpg.connect(args.dsn)
    print(f"postgres {admin.get_server_version().major}.{admin.get_server_version().minor}")
    await admin.execute(f"CREATE DATABASE {name}")
    prefix = f"bench:{os.getpid()}:{secrets.token_hex(3)}"
    try:
        dsn = args.dsn.rsplit("/", 1)[0] + "/" + name
        await migrate(dsn)
        if "throughput" in args.parts:
            print()
            print("== 1. throughput")
            await throughput(args, dsn, redis, prefix)
        if "lag" in args.parts:
            print()
            print(
                f"== 2. lag from append (commit) to visible read, {args.rate} Divans/s, "
                f"{args.lag_seasons} seasons round robin"
            )
            print(
                f"{'wake-up':28} {'n':>5} {'events/s':>8} {'p50':>8} {'p99':>8} {'max':>8} "
                f"{'append p50':>9}"
            )
            for mode in ("listen", "wake", "poll"):
                await lag(args, dsn, args.redis, mode)
    finally:
        await delete_prefix(redis, prefix)
        await redis.aclose()
        await admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        await admin.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_dsn = os.environ.get(
        "SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"
    )
    parser.add_argument("--dsn", default=default_dsn, help="a server DSN (scratch db made there)")
    parser.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    parser.add_argument("--seasons", type=int, default=10, help="seasons for the throughput part")
    parser.add_argument("--rate", type=float, default=10.0, help="Divans appended per second")
    parser.add_argument("--lag-seasons", type=int, default=12, help="seasons for the lag part")
    parser.add_argument("--parts", nargs="+", default=["throughput", "lag"], help="which parts")
    parser.add_argument("--poll-ms", type=int, default=100, help="sweep interval when polling")
    quiet()
    args = parser.parse_args()
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(main(args))
