"""Order submissions per second through the real command API, beside two baselines.

Run: .venv/bin/python -m bench.api_orders [--seconds 8] [--rounds 6] [--concurrency 16]
     [--seasons 16] [--pool 10] [--asgi] [--dsn postgresql://postgres@127.0.0.1:5432/test]

Creates a scratch database on the server of --dsn (default $SEKSENBIR_PG_DSN, else
postgresql://postgres@127.0.0.1:5432/test), applies the migrations, and drops it afterwards.
All three figures are measured in the same run on the same database:

1. api: POST /v1/seasons/{id}/orders through create_app as production runs it (its own asyncpg
   pool and a Redis broker on --redis, else on a redis-server of the run's own; a namespace of
   its own, keys deleted afterwards; the full path: token check and decide on the cached
   fold, one append statement that also records the Idempotency-Key, a projector wake-up to
   the broker). --seasons live seasons, each
   filled by 19 human joins (the 19th closes the registration), so all 19 beys of each season
   submit (a hold on their memleket), round-robin.
   Measured twice: with a fresh Idempotency-Key per request, and without one.
2. bare: a bare Litestar endpoint that validates the same msgspec body and does one asyncpg
   INSERT into a scratch table, on a pool of the same size.
3. raw: single-row asyncpg INSERT commits per second (no HTTP), same concurrency and pool.

Both HTTP apps are driven in-process by httpx.AsyncClient over ASGITransport, so the client's
own cost is in both figures alike (about half the API's). `--asgi` drives both apps with bare
ASGI calls instead (no client: the servers' own work, for their CPU per request). Logs are
rendered as in production (JSON, the access line of every API request included) and
discarded, written by a thread of their own as the serving API writes them (`app_from_env`,
ADR-125); `--lines inline` writes them on the event loop, as the bench did before.

`--count N` (with `--asgi`): the keyed API variant alone, N orders after a warm-up of 8 a
loop, not a window: under callgrind for two N (`valgrind --tool=callgrind
--callgrind-out-file=/dev/null .venv/bin/python -m bench.api_orders --asgi --count 320`, then
960), the difference of "Collected" over the difference of N is an order's instructions on
the PostgreSQL path, which `bench.orders_path` (in memory) does not run (ADR-163).

Every variant is started once (the API's seasons joined once), then --rounds rounds measure
one window of each, alternating (A/B/A/B, every other round in reverse order, so a load that
drifts during a round weighs on both); a window is --slices slices (default 5) taken in turn
with the other variants', so both meet the box's pace of the same seconds. Each round prints
its load average, its api/bare ratio and each window's collector runs, and the figure is the
median of the rounds' ratios. Target (issue 27): api / bare >= 0.8.

The process's heap is settled once every variant is up, as the serving process settles its
own (`--heap serving`, the default: `gc.freeze`, a young threshold of 7,000; ADR-164);
`--heap default --slices 1` measures as before 2026-12-07 18:00 UTC (ADR-173).
`--count` and `--profile` do neither.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import platform
import secrets
import statistics
import sys
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx
import msgspec
import redis
from litestar import Litestar, Request, Response, post
from litestar.types import HTTPReceiveMessage, HTTPScope, Message

from bench import box
from entrypoints.gateway import create_app  # what `seksenbir serve` runs: both APIs, metrics
from services.command.schemas import OrdersIn
from shared.domain.state import SEATS
from shared.eventstore import PoolSettings, create_pool, migrate
from shared.log_lines import write_lines_apart
from shared.logs import configure_logging
from shared.settings import Settings

DEFAULT_DSN = "postgresql://postgres@127.0.0.1:5432/test"
# 19 memleket, one per seat of a live season (any free province may be joined, R-1.4)
MEMLEKETS = (6, 34, 35, 1, 7, 16, 42, 61, 21, 55, 25, 38, 65, 27, 44, 10, 52, 20, 59)
BARE_TABLE = """CREATE TABLE IF NOT EXISTS bench_bare (
    id bigserial PRIMARY KEY, season_id text NOT NULL, seat int NOT NULL, body bytea NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now())"""
RAW_TABLE = """CREATE TABLE IF NOT EXISTS bench_raw (
    id bigserial PRIMARY KEY, season_id text NOT NULL, seat int NOT NULL, body bytea NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now())"""
PROFILER: list[Any] = []  # --profile: the cProfile.Profile enabled while `drive` measures
COUNT: list[int] = []  # --count N: `drive` sends N requests (after a warm-up), not a window


def quiet_json_logs() -> None:
    """Production's logging (JSON at INFO), written to /dev/null: the cost stays, the noise not."""
    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    configure_logging(json=True, level="INFO", file=sink)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # the bench client's own request log


def with_database(dsn: str, name: str) -> str:
    return urlunsplit(urlsplit(dsn)._replace(path="/" + name))


@asynccontextmanager
async def scratch_database(server_dsn: str, prefix: str) -> AsyncIterator[str]:
    """A new database on the server, migrated, dropped afterwards."""
    name = f"{prefix}_{os.getpid()}_{secrets.token_hex(3)}"
    admin = await asyncpg.connect(server_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    dsn = with_database(server_dsn, name)
    try:
        await migrate(dsn)
        yield dsn
    finally:
        admin = await asyncpg.connect(server_dsn)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@asynccontextmanager
async def in_process(app: Litestar) -> AsyncIterator[httpx.AsyncClient]:
    # Litestar's ASGI callable is typed with its own scope and message TypedDicts, narrower than
    # httpx's mappings: the same protocol, two spellings of it.
    transport = httpx.ASGITransport(app=cast(Any, app))
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=30) as client,
    ):
        yield client


async def asgi_post(app: Litestar, path: str, body: bytes, headers: dict[str, str]) -> int:
    """POST `body` to `path` as one bare ASGI call (--asgi): the answer's status, no client."""
    received = False
    status = 0

    async def receive() -> HTTPReceiveMessage:
        nonlocal received
        if received:  # the app reads nothing more after the body; a wait would be a disconnect
            return {"type": "http.disconnect"}
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    # the keys a server sends (what uvicorn sets); the app adds its own (HTTPScope's others)
    scope: dict[str, Any] = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"bench")]
        + [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("bench", 80),
    }
    await app(cast(HTTPScope, scope), receive, send)
    return status


@dataclass(frozen=True)
class Bey:
    season_id: str
    seat: int
    memleket: int
    token: str

    @property
    def body(self) -> bytes:
        return msgspec.json.encode({"orders": [{"province": self.memleket, "kind": "hold"}]})


@dataclass
class Result:
    name: str
    done: int
    seconds: float
    statuses: Counter[int]
    cpu: float  # this process's CPU seconds while measuring (client, app, driver)
    statements: int = 0  # the API's: its append statements, the appends they held, groups split
    appends: int = 0
    splits: int = 0
    collections: tuple[int, int, int] = (0, 0, 0)  # the collector's runs by generation
    collecting: tuple[float, float, float] = (0.0, 0.0, 0.0)  # its seconds by generation

    @property
    def rate(self) -> float:
        return self.done / self.seconds

    @property
    def cpu_us(self) -> float:
        """CPU microseconds of this process per 2xx request."""
        return 1e6 * self.cpu / max(self.done, 1)

    def note(self) -> str:
        """The API's group commit in the window: appends a statement, groups split."""
        if not self.statements:
            return ""
        said = f", {self.appends / self.statements:.1f} appends per statement"
        return said + (f", {self.splits} groups split" if self.splits else "")

    def __add__(self, other: Result) -> Result:
        """Two windows of one variant as one (--slices)."""
        return Result(
            self.name,
            self.done + other.done,
            self.seconds + other.seconds,
            self.statuses + other.statuses,
            self.cpu + other.cpu,
            self.statements + other.statements,
            self.appends + other.appends,
            self.splits + other.splits,
            tuple(a + b for a, b in zip(self.collections, other.collections, strict=True)),  # type: ignore[arg-type]
            tuple(a + b for a, b in zip(self.collecting, other.collecting, strict=True)),  # type: ignore[arg-type]
        )


async def drive(
    name: str,
    concurrency: int,
    seconds: float,
    warmup: float,
    one: Callable[[int, int], Awaitable[int]],
) -> Result:
    """`concurrency` loops calling one(worker, n) -> status for warmup + seconds; count 2xx.
    With --count: 8 requests a loop, then COUNT[0] in all (one loop's share each)."""
    if COUNT:
        return await _counted(name, concurrency, COUNT[0], one)
    statuses: Counter[int] = Counter()
    done = 0
    measuring = False
    stop_at = time.perf_counter() + warmup + seconds

    async def loop(worker: int) -> None:
        nonlocal done
        n = 0
        while time.perf_counter() < stop_at:
            status = await one(worker, n)
            n += 1
            if measuring:
                statuses[status] += 1
                if 200 <= status < 300:
                    done += 1

    tasks = [asyncio.create_task(loop(w)) for w in range(concurrency)]
    await asyncio.sleep(warmup)
    measuring = True
    if PROFILER:
        PROFILER[0].enable()
    with Collections() as collected:
        started, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*tasks)
        cpu = time.process_time() - cpu
    if PROFILER:
        PROFILER[0].disable()
    result = Result(name, done, time.perf_counter() - started, statuses, cpu)
    result.collections = (collected.runs[0], collected.runs[1], collected.runs[2])
    result.collecting = (collected.seconds[0], collected.seconds[1], collected.seconds[2])
    return result


class Collections:
    """The cyclic collector's runs by generation and their time while in the block: a full
    collection walks every object the process holds (the app, the client, their modules),
    tens of milliseconds each, and falls in one variant's window or another's by chance."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._began = 0.0

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.runs[info["generation"]] += 1
            self.seconds[info["generation"]] += time.perf_counter() - self._began

    def __enter__(self) -> Collections:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


async def _counted(
    name: str, concurrency: int, count: int, one: Callable[[int, int], Awaitable[int]]
) -> Result:
    """--count: a fixed number of requests, for instruction counts of two counts' difference."""

    async def loop(worker: int, first: int, requests: int) -> None:
        for n in range(first, first + requests):
            status = await one(worker, n)
            if not 200 <= status < 300:
                raise SystemExit(f"{name}: answered {status}")

    await asyncio.gather(*(loop(w, 0, 8) for w in range(concurrency)))  # warm-up
    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(loop(w, 8, count // concurrency) for w in range(concurrency)))
    cpu = time.process_time() - cpu
    done = count // concurrency * concurrency
    return Result(name, done, time.perf_counter() - started, Counter({200: done}), cpu)


async def api_beys(client: httpx.AsyncClient, seasons: int) -> list[Bey]:
    """--seasons live seasons, each filled by 19 human joins (R-1.4; the 19th closes the
    registration, so orders for Divan 1 are taken): 19 beys with a token each. Computer beys
    have no token (R-11.2), so a trial season has only its creator to submit as."""
    beys: list[Bey] = []
    closes = (datetime.now(UTC) + timedelta(hours=2)).isoformat()  # bench/ may read the clock
    for _ in range(seasons):
        r = await client.post(
            "/v1/seasons", json={"mode": "live", "registration_closes_at": closes}
        )
        r.raise_for_status()
        sid = r.json()["season_id"]
        for memleket in MEMLEKETS:
            r = await client.post(f"/v1/seasons/{sid}/join", json={"memleket": memleket})
            r.raise_for_status()
            joined = r.json()
            beys.append(Bey(sid, joined["seat"], joined["memleket"], joined["token"]))
    return beys


def picker(beys: list[Bey], args: argparse.Namespace) -> Callable[[int, int], Bey]:
    """Which bey a client loop sends as at its n-th request.

    spread=seasons (default): loop w plays season w mod --seasons, its beys in turn, so
    concurrent requests fall on different seasons when there are enough of them (a server with
    many live seasons, where one season's beys act at human pace). spread=beys: every loop
    walks all beys round robin; loops in step then send the same season's beys at once and
    queue on its writer (one append at a time per season in a process).
    """
    if args.spread == "beys":
        return lambda worker, n: beys[(worker + n * args.concurrency) % len(beys)]
    by_season: dict[str, list[Bey]] = {}
    for bey in beys:
        by_season.setdefault(bey.season_id, []).append(bey)
    seasons = list(by_season.values())

    def pick(worker: int, n: int) -> Bey:
        mine = seasons[worker % len(seasons)]
        return mine[(n + worker // len(seasons)) % len(mine)]

    return pick


# one measured window of one variant: (seconds measured, seconds of warm-up before them)
Window = Callable[[float, float], Awaitable[Result]]


@asynccontextmanager
async def api_variants(
    dsn: str, args: argparse.Namespace, fast: bool = True
) -> AsyncIterator[tuple[Window, Window]]:
    """The API up once, its seasons joined once: a window with a fresh Idempotency-Key per
    request, and one without the header (`fast` False: orders through Litestar's own path,
    the app before ADR-124, for --ab)."""
    ns = f"bench-orders-{secrets.token_hex(4)}"  # the broker's keys, deleted afterwards
    settings = Settings(
        pg_dsn=dsn,
        redis_url=args.redis,
        broker_namespace=ns,
        pool_max=args.pool,
        group_commit=args.group_commit,
        # one load generator on one address: the request limits (ADR-55) would refuse it; their
        # cost, one Redis call per POST, is left out of this figure
        seasons_per_minute=0,
        joins_per_minute=0,
        commands_per_minute=0,
        reads_per_minute=0,
        reads_per_token_per_minute=0,
    )
    app = create_app(settings, fast_orders=fast)
    try:
        # As in production: a real Redis broker, to which accepted commands send projector
        # wake-ups.
        async with in_process(app) as client:
            pick = picker(await api_beys(client, args.seasons), args)
            windows = iter(range(1_000_000))  # every window's keys are its own: no replays
            suffix = "" if fast else " via Litestar"

            def variant(key: bool) -> Window:
                return lambda seconds, warmup: _api_window(
                    app,
                    client,
                    pick,
                    args,
                    window=next(windows) if key else None,
                    span=(seconds, warmup),
                    suffix=suffix,
                )

            yield variant(True), variant(False)
    finally:
        r = redis.Redis.from_url(args.redis)
        for k in r.scan_iter(f"{ns}:*"):
            r.delete(k)
        r.close()


async def _api_window(
    app: Litestar,
    client: httpx.AsyncClient,
    pick: Callable[[int, int], Bey],
    args: argparse.Namespace,
    *,
    window: int | None,
    span: tuple[float, float],
    suffix: str = "",
) -> Result:
    async def one(worker: int, n: int) -> int:
        bey = pick(worker, n)
        headers = {"Authorization": f"Bearer {bey.token}", "Content-Type": "application/json"}
        if window is not None:
            headers["Idempotency-Key"] = f"r{window}-w{worker}-{n}"
        path = f"/v1/seasons/{bey.season_id}/orders"
        if args.asgi:
            return await asgi_post(app, path, bey.body, headers)
        r = await client.post(path, content=bey.body, headers=headers)
        return r.status_code

    name = "api" if window is not None else "api (no Idempotency-Key)"
    name += suffix
    store = app.state.services.seasons.store
    before = store.group_stats()
    result = await drive(name, args.concurrency, *span, one)
    result.statements, result.appends, result.splits = (
        a - b for a, b in zip(store.group_stats(), before, strict=True)
    )
    return result


def bare_app(dsn: str, pool_size: int) -> Litestar:
    """The least a real endpoint does: validate the msgspec body, one INSERT, answer JSON."""
    pools: dict[str, asyncpg.Pool] = {}

    @post("/bare/{season_id:str}/orders", status_code=200)
    async def submit(request: Request[Any, Any, Any], season_id: str) -> Response[bytes]:
        raw = await request.body()
        body = msgspec.json.decode(raw, type=OrdersIn)
        seat = int(request.headers.get("x-seat", "1"))
        async with pools["pg"].acquire() as conn:
            await conn.execute(
                "INSERT INTO bench_bare (season_id, seat, body) VALUES ($1, $2, $3)",
                season_id,
                seat,
                raw,
            )
        out = msgspec.json.encode({"divan": body.divan or 1, "orders": len(body.orders)})
        return Response(out, media_type="application/json")

    @asynccontextmanager
    async def lifespan(_app: Litestar) -> AsyncIterator[None]:
        pools["pg"] = await create_pool(dsn, PoolSettings(max_size=pool_size))
        try:
            yield
        finally:
            await pools["pg"].close()

    return Litestar(route_handlers=[submit], lifespan=[lifespan])


@asynccontextmanager
async def bare_variant(dsn: str, args: argparse.Namespace) -> AsyncIterator[Window]:
    app = bare_app(dsn, args.pool)
    async with in_process(app) as client:
        body = Bey("s", 1, 6, "").body

        async def one(worker: int, n: int) -> int:
            headers = {"Content-Type": "application/json", "x-seat": str(1 + worker % SEATS)}
            path = f"/bare/season-{n % 8}/orders"
            if args.asgi:
                return await asgi_post(app, path, body, headers)
            r = await client.post(path, content=body, headers=headers)
            return r.status_code

        yield lambda seconds, warmup: drive("bare", args.concurrency, seconds, warmup, one)


@asynccontextmanager
async def raw_variant(dsn: str, args: argparse.Namespace) -> AsyncIterator[Window]:
    pool = await create_pool(dsn, PoolSettings(max_size=args.pool))
    body = Bey("s", 1, 6, "").body
    try:

        async def one(worker: int, n: int) -> int:
            await pool.execute(
                "INSERT INTO bench_raw (season_id, seat, body) VALUES ($1, $2, $3)",
                f"season-{n % 8}",
                1 + worker % SEATS,
                body,
            )
            return 200

        yield lambda seconds, warmup: drive("raw", args.concurrency, seconds, warmup, one)
    finally:
        await pool.close()


async def counted(dsn: str, args: argparse.Namespace) -> None:
    """--count N: the keyed API variant alone, N orders after a warm-up of 8 a loop. Under
    callgrind for two N, the difference of the totals over the difference of N is an order's
    instructions on the PostgreSQL path (ADR-163), whatever the box's load."""
    COUNT.append(args.count)
    async with api_variants(dsn, args) as (keyed, _plain):
        result = await keyed(args.seconds, args.warmup)
    print(f"counted: {result.done} orders, {result.cpu_us:.0f} µs CPU each{result.note()}")


async def profile(dsn: str, args: argparse.Namespace) -> None:
    """--profile: the keyed API variant alone under cProfile (its figure is not comparable);
    prints where the process's time goes, by own time and by cumulative time."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    PROFILER.append(prof)
    async with api_variants(dsn, args) as (keyed, _plain):
        result = await keyed(args.seconds, args.warmup)
    print(f"profiled: {result.rate:.0f} /s (under cProfile)")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(args.profile)
    stats.sort_stats("cumulative").print_stats(args.profile)


@dataclass
class Round:
    load: float  # the 1-minute load average as the round started
    api: Result
    plain: Result
    bare: Result
    raw: Result
    litestar: Result | None = None  # --ab: the API's orders through Litestar's own path


async def measure(dsn: str, args: argparse.Namespace) -> list[Round]:
    """Every variant up once (the API's seasons joined once), then --rounds rounds of one
    window each, alternating: A/B/A/B, and each round in the reverse order of the one before,
    so that a load that drifts during a round hits the API and the bare endpoint alike.

    A window is --slices slices of `seconds / slices` (each after `warmup / slices`), the
    variants taking turns slice by slice, every other slice in reverse order, and each
    variant's slices summed: the box's pace changes over seconds (a shared VM's CPU), and
    two 5 s windows in a row met different paces often enough to spread the rounds' ratios
    0.6-1.1 on a quiet box; a slice apart, both variants meet the same."""
    rounds: list[Round] = []
    async with AsyncExitStack() as stack:
        keyed, plain = await stack.enter_async_context(api_variants(dsn, args))
        bare = await stack.enter_async_context(bare_variant(dsn, args))
        raw = await stack.enter_async_context(raw_variant(dsn, args))
        order = {"api": keyed, "bare": bare, "plain": plain, "raw": raw}
        if args.ab:
            order["litestar"], _ = await stack.enter_async_context(
                api_variants(dsn, args, fast=False)
            )
        if args.heap == "serving":
            settle(args)
        for n in range(args.rounds):
            load = os.getloadavg()[0]
            got: dict[str, Result] = {}
            seconds, warmup = args.seconds / args.slices, args.warmup / args.slices
            for k in range(args.slices):
                turn = n * args.slices + k
                for name in list(order) if turn % 2 == 0 else list(reversed(order)):
                    part = await order[name](seconds, warmup)
                    got[name] = got[name] + part if name in got else part
            rounds.append(
                Round(load, got["api"], got["plain"], got["bare"], got["raw"], got.get("litestar"))
            )
    return rounds


def settle(args: argparse.Namespace) -> None:
    """--heap serving (the default): the process's heap settled once every variant is up, as
    the serving process's factory settles its own (`gateway.app_from_env`: `gc.freeze` and a
    young threshold of 7,000, ADR-125/164), so the API is measured with the collector it runs
    with in production. The bare endpoint shares the process and so the setting: the ratio
    compares the two code paths under one runtime. Without it (`--heap default`, the figures
    before 2026-12-07 18:00 UTC) a full collection walked the app, the client and their modules
    (150-300 ms) in whichever window it fell, and the young collections took 2-5 % of each."""
    from entrypoints.bootstrap import WORKER_YOUNG, settle_heap

    settle_heap(young=WORKER_YOUNG)


def report_ab(rounds: list[Round]) -> None:
    """--ab: the keyed orders on the fast path (ADR-124) against Litestar's own path."""
    pairs = [(r.api, r.litestar) for r in rounds if r.litestar is not None]
    if not pairs:
        return
    rates = [a.rate / b.rate for a, b in pairs]
    cpus = [a.cpu_us / b.cpu_us for a, b in pairs]
    print(
        f"fast path / Litestar's path (keyed orders, paired rounds): rate "
        f"{statistics.median(rates):.2f} (rounds {', '.join(f'{x:.2f}' for x in rates)}); CPU "
        f"per order {statistics.median(a.cpu_us for a, _ in pairs):.0f} against "
        f"{statistics.median(b.cpu_us for _, b in pairs):.0f} µs (ratio "
        f"{statistics.median(cpus):.2f})"
    )


def report(rounds: list[Round], args: argparse.Namespace) -> None:
    for n, rnd in enumerate(rounds, start=1):
        print(
            f"round {n} (load average {rnd.load:.1f}): api/bare {rnd.api.rate / rnd.bare.rate:.2f}"
        )
        for r in (rnd.api, rnd.plain, rnd.bare, rnd.raw, *([rnd.litestar] if rnd.litestar else [])):
            other = {s: k for s, k in r.statuses.items() if not 200 <= s < 300}
            runs = "/".join(str(n) for n in r.collections)
            took = "/".join(f"{1000 * t:.0f}" for t in r.collecting)
            print(
                f"  {r.name:26}: {r.rate:7.0f} /s  {r.cpu_us:5.0f} µs CPU each "
                f"({r.done} ok in {r.seconds:.1f} s, {100 * r.cpu / r.seconds:.0f} % of a core; "
                f"non-2xx {other}{r.note()}; collector runs by generation {runs}, {took} ms)"
            )
    keyed = [r.api.rate / r.bare.rate for r in rounds]
    plain = [r.plain.rate / r.bare.rate for r in rounds]
    cpu = [r.bare.cpu_us / r.api.cpu_us for r in rounds]
    loads = [r.load for r in rounds]
    print(
        f"median of {args.rounds} paired rounds (load average {min(loads):.1f}–{max(loads):.1f}, "
        f"now {os.getloadavg()[0]:.1f}): ratio api/bare = {statistics.median(keyed):.2f} "
        f"(target >= 0.8; rounds {', '.join(f'{x:.2f}' for x in keyed)}); without the key "
        f"{statistics.median(plain):.2f}; CPU per request bare/api = "
        f"{statistics.median(cpu):.2f}; bare/raw = "
        f"{statistics.median(r.bare.rate / r.raw.rate for r in rounds):.2f}"
    )
    report_ab(rounds)


async def main(args: argparse.Namespace) -> None:
    if args.redis is None:  # never the shared server's unless asked for
        from bench.common import own_redis

        with own_redis() as url:
            args.redis = url
            await main(args)
        return
    quiet_json_logs()
    if args.lines == "apart":
        write_lines_apart()  # as app_from_env: no line's write on the event loop (ADR-125)
    async with scratch_database(args.dsn, "seksenbir_bench_orders") as dsn:
        if args.profile:
            await profile(dsn, args)
            return
        if args.count:
            await counted(dsn, args)
            return
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute(BARE_TABLE)
            await conn.execute(RAW_TABLE)
            server = await conn.fetchval("SHOW server_version")
            commit = await conn.fetchval("SHOW synchronous_commit")
        finally:
            await conn.close()
        print(
            f"config: python {sys.version.split()[0]}, {platform.machine()}, "
            f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}, "
            f"PostgreSQL {server} (synchronous_commit={commit}), "
            f"concurrency {args.concurrency}, pool {args.pool}, {args.seconds:g} s measured "
            f"after {args.warmup:g} s warm-up, {args.seasons} seasons x {SEATS} beys, "
            f"spread over {args.spread}, {args.rounds} rounds of {args.slices} slices, "
            f"{'bare ASGI calls (no client)' if args.asgi else 'httpx client'}, "
            f"heap {args.heap}, log lines written {args.lines}"
        )
        print(box.line())  # before the app's log thread: it forks (bench.box)
        rounds = await measure(dsn, args)
    report(rounds, args)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--warmup", type=float, default=2.0)
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--pool", type=int, default=10, help="pool size of every variant")
    p.add_argument("--seasons", type=int, default=16)
    p.add_argument(
        "--spread",
        choices=["seasons", "beys"],
        default="seasons",
        help="how concurrent requests fall on seasons (see picker)",
    )
    p.add_argument(
        "--group-commit",
        type=int,
        default=Settings().group_commit,
        help="the API's group commit: statements in flight (0: one statement per append)",
    )
    p.add_argument(
        "--rounds", type=int, default=6, help="alternating paired rounds; medians reported"
    )
    p.add_argument(
        "--profile", type=int, default=0, help="N: profile the API alone, print its top N lines"
    )
    p.add_argument(
        "--count",
        type=int,
        default=0,
        help="N: the keyed API alone, N orders (not a window), for callgrind (ADR-163)",
    )
    p.add_argument(
        "--asgi",
        action="store_true",
        help="drive both apps with bare ASGI calls, no httpx client (the servers' own work)",
    )
    p.add_argument(
        "--ab",
        action="store_true",
        help="also the API with its orders through Litestar's own path (ADR-124), paired",
    )
    p.add_argument(
        "--slices",
        type=int,
        default=5,
        help="each window as N slices, the variants taking turns slice by slice (1: whole)",
    )
    p.add_argument(
        "--heap",
        choices=["serving", "default"],
        default="serving",
        help="the collector as the serving process sets it (freeze, young 7,000) or CPython's",
    )
    p.add_argument(
        "--lines",
        choices=["apart", "inline"],
        default="apart",
        help="log lines written by a thread of their own, as the serving API (app_from_env)"
        " writes them, or on the event loop, as every bench before 2026-12-07 22:00 UTC did",
    )
    p.add_argument(
        "--redis",
        default=None,
        help="the broker's Redis, used as given (else a redis-server of the run's own)",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
