"""The live Divan surge: N live seasons whose Divan falls due at one instant (issue 12).

Run: .venv/bin/python -m bench.live_surge [--seasons 1000] [--idle 100000]
     [--resolvers 2] [--threads 8] [--projectors 1] [--dsn …] [--redis …]
     [--broker redis|rabbitmq] [--amqp …]

--broker rabbitmq: the workers' broker is RabbitMQ (--amqp's server, a virtual host of this
run's own, ADR-95); the read models stay on --redis.

Every live season of the world holds its Divans on Tuesdays and Fridays at 21:00, so the
Divan surge is the product's peak load. On a scratch database the bench stores N live seasons
(compressed calendars, registration closed, 19 computer beys each — the most work a Divan can
be), all with Divan 1 due at the same instant, and starts real worker processes
(`dramatiq entrypoints.resolver_worker --processes R --threads T` and the projections worker
with `--projectors` processes)
on a broker namespace and projection prefix of its own. Then, at the instant, one scheduler
sweep hands every due Divan over, and the bench measures:

  resolved:  from the sweep until every season's DivanResolved is committed
  projected: until every season's read model (Redis) is at its new version
  peak RSS of the worker processes (psutil, sampled every 50 ms)

Then it adds `--idle` live seasons' rows to due_work, all due in a week, and times the
scheduler's sweep when nothing is due (the per-tick cost the table's index keeps flat).
Targets: N=1000 resolved <= 10 s and projected <= 15 s (issue 27; issue 12 asked 20 s for both);
a tick <= 5 ms with 100,000.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import psutil
import redis

from bench import box
from bench.api_orders import DEFAULT_DSN, quiet_json_logs, scratch_database
from bench.common import redis_given_or_own
from entrypoints.bootstrap import due_queue
from services.projections.keys import Keys
from services.resolver.scheduler import Scheduler, SweepSettings
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.domain.state import SeasonState
from shared.eventstore import EventMetadata, PoolSettings, PostgresEventStore, create_pool
from shared.settings import Settings
from tests.brokers import broker_of

REPO = Path(__file__).resolve().parents[1]
SYSTEM = EventMetadata(actor="system")
INTERVAL = 3600  # a compressed calendar: Divan 1 one hour after the close


async def store_seasons(pool: asyncpg.Pool, n: int, due: datetime) -> list[tuple[str, int]]:
    """N live seasons, registration closed, Divan 1 at `due`; returns (id, version) each."""
    seasons = Seasons(PostgresEventStore(pool, clock=lambda: datetime.now(UTC)))
    close = due - timedelta(seconds=INTERVAL)
    out = []
    for i in range(n):
        sid = f"surge-{i:05d}"
        create = c.CreateSeason(
            season_id=sid,
            seed=1000 + i,
            seed_salt=secrets.token_hex(8),
            mode="live",
            registration_closes_at=close,
            divan_interval_seconds=INTERVAL,
            at=close - timedelta(days=1),
        )
        made = decide(SeasonState(), create)
        assert isinstance(made, list), made
        await seasons.append(sid, 0, "create", made, SYSTEM)
        state = (await seasons.load(sid)).state
        closed = decide(state, c.CloseRegistration(at=close))
        assert isinstance(closed, list), closed
        recorded = await seasons.append(sid, len(made), "close", closed, SYSTEM)
        out.append((sid, recorded[-1].version))
    return out


@contextlib.contextmanager
def workers(settings: Settings, args: argparse.Namespace, logs: Path) -> Iterator[list[int]]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": settings.pg_dsn,
        "SEKSENBIR_REDIS_URL": settings.redis_url,
        # the bench reads the read models where it says (--redis), not the derived next db
        "SEKSENBIR_READ_REDIS_URL": settings.redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": settings.broker_namespace,
        "SEKSENBIR_BROKER_URL": settings.broker_url,
        "SEKSENBIR_PROJECTION_PREFIX": settings.projection_prefix,
        # the resolver's pool: a connection for each of its threads (ADR-160)
        "SEKSENBIR_RESOLVER_THREADS": str(args.threads),
    }
    kinds = [
        ("resolver", ["--processes", str(args.resolvers), "--threads", str(args.threads)]),
        ("projections", ["--processes", str(args.projectors), "--threads", "1"]),
    ]
    procs = []
    for kind, opts in kinds:
        log = logs / f"{kind}.log"
        cmd = [sys.executable, "-m", "dramatiq", f"entrypoints.{kind}_worker", *opts]
        with log.open("wb") as out:
            procs.append(
                subprocess.Popen(cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
            )
    try:
        deadline = time.monotonic() + 60
        for (kind, _), proc in zip(kinds, procs, strict=True):
            log = logs / f"{kind}.log"
            while b"ready for action" not in log.read_bytes():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{kind} worker did not start:\n{log.read_text()}")
                time.sleep(0.05)
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def tree_rss(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(pid)
            for proc in [root, *root.children(recursive=True)]:
                with contextlib.suppress(psutil.NoSuchProcess):
                    total += proc.memory_info().rss
    return total


def tree_cpu(pid: int) -> float:
    """User + system CPU seconds of a process and its (living) children."""
    total = 0.0
    with contextlib.suppress(psutil.NoSuchProcess):
        root = psutil.Process(pid)
        for proc in [root, *root.children(recursive=True)]:
            with contextlib.suppress(psutil.NoSuchProcess):
                t = proc.cpu_times()
                total += t.user + t.system
    return total


def projected_count(r: redis.Redis, prefix: str, want: list[tuple[str, int]]) -> int:
    pipe = r.pipeline(transaction=False)
    for sid, _ in want:
        pipe.get(Keys.active(prefix, sid))
    gens = pipe.execute()
    pipe = r.pipeline(transaction=False)
    for (sid, _), gen in zip(want, gens, strict=True):
        pipe.get(Keys(prefix, sid, int(gen or 0)).checkpoint)
    marks = pipe.execute()
    return sum(
        1
        for (_, version), mark in zip(want, marks, strict=True)
        if mark is not None and int(mark) >= version
    )


async def caught_up(pool: asyncpg.Pool, r: redis.Redis, prefix: str, timeout: float) -> None:
    """Wait until every stored season's read model is at its stored version: in production a
    season is projected when it is created, long before its Divan falls due. (A fixed 3 s wait
    was here: at load 8 the projectors were still building the 1,000 read models from zero
    well into the surge, competing with the resolvers and counted in "projected".)"""
    rows = await pool.fetch("SELECT season_id, max(version) AS v FROM events GROUP BY season_id")
    stored = [(row["season_id"], row["v"]) for row in rows]
    started = time.perf_counter()
    while projected_count(r, prefix, stored) < len(stored):
        if time.perf_counter() - started > timeout:
            raise RuntimeError("the projectors did not catch up with the stored seasons")
        await asyncio.sleep(0.1)
    print(f"projected the {len(stored)} stored seasons in {time.perf_counter() - started:.1f} s")


async def surge(dsn: str, args: argparse.Namespace) -> None:
    with broker_of(args.broker, args.redis, args.amqp) as url:
        await surge_on(dsn, url, args)


async def surge_on(dsn: str, broker: str, args: argparse.Namespace) -> None:
    ns = f"bench-surge-{secrets.token_hex(4)}"
    settings = Settings(
        pg_dsn=dsn,
        redis_url=args.redis,
        broker_url=broker,
        broker_namespace=ns,
        projection_prefix=ns,
    )
    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=4))
    logs = Path(tempfile.mkdtemp(prefix="seksenbir-surge-"))
    r = redis.Redis.from_url(args.redis)
    try:
        due = datetime.now(UTC)
        t = time.perf_counter()
        await store_seasons(pool, args.seasons, due)
        print(f"stored {args.seasons} live seasons in {time.perf_counter() - t:.1f} s")
        with workers(settings, args, logs) as pids:
            await caught_up(pool, r, ns, args.timeout)  # as in production: seasons projected
            base_rss = tree_rss(pids)
            cpu0 = [tree_cpu(pid) for pid in pids]
            # after the resolution each season is at (its version + the Divan's events)
            with due_queue(settings) as send:
                scheduler = Scheduler(
                    pool, send, settings=SweepSettings(batch=1000), send_all=send.all
                )
                t0 = time.perf_counter()
                handed = await scheduler.sweep()
            sweep_s = time.perf_counter() - t0
            peak, resolved_s, projected_s = base_rss, None, None
            want: list[tuple[str, int]] = []
            while projected_s is None and time.perf_counter() - t0 < args.timeout:
                await asyncio.sleep(0.05)
                peak = max(peak, tree_rss(pids))
                if resolved_s is None:
                    done = await pool.fetchval(
                        "SELECT count(*) FROM events WHERE type = 'divan_resolved.v1'"
                    )
                    if done >= args.seasons:
                        resolved_s = time.perf_counter() - t0
                        rows = await pool.fetch(
                            "SELECT season_id, max(version) AS v FROM events GROUP BY season_id"
                        )
                        want = [(row["season_id"], row["v"]) for row in rows]
                elif projected_count(r, ns, want) >= len(want):
                    projected_s = time.perf_counter() - t0
            cpu = [
                (tree_cpu(pid) - c) / max(1, len(handed)) * 1000
                for pid, c in zip(pids, cpu0, strict=True)
            ]
        timed = {"sweep": sweep_s, "resolved": resolved_s, "projected": projected_s}
        report(args, len(handed), timed, cpu, (base_rss, peak))
        await idle_ticks(pool, args.idle)
    finally:
        for key in r.scan_iter(f"{ns}:*", count=5000):
            r.delete(key)
        r.close()
        await pool.close()


def report(
    args: argparse.Namespace,
    handed: int,
    timed: dict[str, float | None],
    cpu: list[float],
    rss: tuple[int, int],
) -> None:
    resolved_s, projected_s = timed["resolved"], timed["projected"]
    print(
        f"surge: {handed} Divans due at one instant, "
        f"handed over in {(timed['sweep'] or 0) * 1000:.0f} ms"
    )
    print(f"  all resolved (committed) after: {resolved_s if resolved_s else 'timeout'} s")
    print(f"  all projected (read models) after: {projected_s if projected_s else 'timeout'} s")
    print(f"  CPU per Divan: resolver {cpu[0]:.1f} ms, projections {cpu[1]:.1f} ms")
    print(f"  worker processes' RSS: {rss[0] / 2**20:.0f} MiB idle, peak {rss[1] / 2**20:.0f} MiB")
    if resolved_s:
        print(f"  throughput: {args.seasons / resolved_s:.0f} Divans/s resolved")


async def idle_ticks(pool: asyncpg.Pool, idle: int) -> None:
    """The scheduler's sweep with `idle` live seasons' rows due in a week: nothing to hand."""
    await pool.execute(
        "INSERT INTO due_work (season_id, kind, divan, due_at) "
        "SELECT 'idle-' || g, 'divan', 1, now() + interval '7 days' "
        "FROM generate_series(1, $1) AS g",
        idle,
    )
    await pool.execute("ANALYZE due_work")
    scheduler = Scheduler(pool, lambda due: None, settings=SweepSettings())
    samples = []
    for _ in range(200):
        t = time.perf_counter()
        handed = await scheduler.sweep()
        samples.append(time.perf_counter() - t)
        assert handed == []
    ms = sorted(x * 1000 for x in samples)
    print(
        f"scheduler tick with {idle} idle live seasons: p50 {statistics.median(ms):.2f} ms, "
        f"p99 {ms[int(len(ms) * 0.99) - 1]:.2f} ms, max {ms[-1]:.2f} ms (n={len(ms)})"
    )


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    async with scratch_database(args.dsn, "seksenbir_bench_surge") as dsn:
        print(
            f"config: python {sys.version.split()[0]}, {platform.machine()}, "
            f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}, "
            f"resolver --processes {args.resolvers} --threads {args.threads}, "
            f"projections --processes {args.projectors}, broker {args.broker}"
        )
        print(box.line())  # before the workers' threads: it forks (bench.box)
        await surge(dsn, args)
    print(
        "targets: 1000 seasons resolved <= 10 s and projected <= 15 s (issue 27); "
        "idle tick <= 5 ms at 100,000"
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    p.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672", help="--broker rabbitmq")
    p.add_argument("--seasons", type=int, default=1000, help="live seasons due at one instant")
    p.add_argument("--idle", type=int, default=100_000, help="idle live seasons for the tick")
    p.add_argument("--resolvers", type=int, default=2, help="resolver worker processes")
    p.add_argument("--projectors", type=int, default=1, help="projections worker processes")
    p.add_argument(
        "--threads",
        type=int,
        default=Settings().resolver_threads,
        help="threads per resolver process (default SEKSENBIR_RESOLVER_THREADS's, 8: ADR-160)",
    )
    p.add_argument("--timeout", type=float, default=300, help="give up after this many seconds")
    return p.parse_args(argv)


def cli(args: argparse.Namespace) -> None:
    """`main` on --redis, else on a redis-server of the run's own."""
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli(parse())
