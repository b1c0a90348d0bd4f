"""Trial Divan latency: from POST /divans to the stored outcome, with a real Dramatiq worker.

Run: .venv/bin/python -m bench.divan_latency [--divans 50] [--worker-timeouts 20,1000]
     [--think-ms 1000] [--dsn postgresql://postgres@127.0.0.1:5432/test]
     [--redis redis://127.0.0.1:PORT/0]

For each worker timeout (Dramatiq's `dramatiq_worker_timeout`; it capped the idle consumer's
poll interval until ADR-54, and an idle consumer now blocks on a wake-up instead) it starts
`python -m dramatiq entrypoints.resolver_worker --processes 1 --threads 1` as a subprocess,
runs the command API in-process (create_app with its own pool and Redis broker, on a broker
namespace of its own) and plays trial seasons Divan after Divan:

  t0: just before POST /v1/seasons/{id}/divans (answered 202 after DivanRequested is committed)
  t1: when a LISTEN connection sees the DivanResolved row committed (woken by the store's
      NOTIFY, then checked with a query)

and prints p50/p90/p99/max of t1 - t0 over --divans Divans (after 2 warm-up Divans), plus the
same interval from the events' own recorded_at stamps (the API's clock at the request, the
worker's at the outcome). --think-ms is the pause before each request, as a player looks at the
map: the idle worker's poll interval then grows to its cap, as it would in real use (0: Divans
back to back). A scratch database is created and dropped; the namespace's Redis keys are
deleted afterwards. Target: p50 <= 150 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import platform
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import redis

from bench.api_orders import DEFAULT_DSN, MEMLEKETS, in_process, quiet_json_logs, scratch_database
from bench.common import redis_given_or_own
from entrypoints.gateway import create_app
from shared.domain.state import DIVANS
from shared.eventstore import NOTIFY_CHANNEL
from shared.settings import Settings

REPO = Path(__file__).resolve().parents[1]
RESOLVED = "divan_resolved.v1"
REQUESTED = "divan_requested.v1"


@dataclass
class Figures:
    worker_timeout_ms: int
    client: list[float]  # seconds, POST -> DivanResolved committed
    server: list[float]  # seconds, recorded_at(DivanResolved) - recorded_at(DivanRequested)


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, max(0, math.ceil(len(s) * p) - 1))]


def describe(samples: list[float]) -> str:
    ms = [x * 1000 for x in samples]
    return (
        f"p50 {pct(ms, 0.5):6.1f} ms  p90 {pct(ms, 0.9):6.1f}  p99 {pct(ms, 0.99):6.1f}  "
        f"max {max(ms):6.1f}  mean {statistics.fmean(ms):6.1f}  (n={len(ms)})"
    )


@contextlib.contextmanager
def worker(settings: Settings, timeout_ms: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": settings.pg_dsn,
        "SEKSENBIR_REDIS_URL": settings.redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": settings.broker_namespace,
        "dramatiq_worker_timeout": str(timeout_ms),
    }
    env.pop("FAULT_POINT", None)
    cmd = [sys.executable, "-m", "dramatiq", "entrypoints.resolver_worker"]
    cmd += ["--processes", "1", "--threads", "1"]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 30
        while b"ready for action" not in log.read_bytes():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@asynccontextmanager
async def listener(dsn: str) -> AsyncIterator[tuple[asyncpg.Connection, asyncio.Event]]:
    conn = await asyncpg.connect(dsn)
    woken = asyncio.Event()
    await conn.add_listener(NOTIFY_CHANNEL, lambda *_: woken.set())
    try:
        yield conn, woken
    finally:
        await conn.close()


async def new_season(client: httpx.AsyncClient, i: int) -> tuple[str, dict[str, str]]:
    r = await client.post("/v1/seasons", json={"memleket": MEMLEKETS[i % len(MEMLEKETS)]})
    r.raise_for_status()
    body = r.json()
    return body["season_id"], {"Authorization": f"Bearer {body['token']}"}


async def one_divan(
    client: httpx.AsyncClient,
    conn: asyncpg.Connection,
    woken: asyncio.Event,
    season: tuple[str, dict[str, str]],
    n: int,
) -> tuple[float, float]:
    sid, auth = season
    done_sql = "SELECT count(*) FROM events WHERE season_id = $1 AND type = $2"
    woken.clear()
    t0 = time.perf_counter()
    r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": n}, headers=auth)
    if r.status_code != 202 or r.json()["divan"] != n:
        raise RuntimeError(f"Divan {n}: {r.status_code} {r.text}")
    async with asyncio.timeout(60):
        while await conn.fetchval(done_sql, sid, RESOLVED) < n:
            await woken.wait()
            woken.clear()
    t1 = time.perf_counter()
    stamps = await conn.fetch(
        "SELECT type, recorded_at FROM events WHERE season_id = $1 AND type = ANY($2::text[])"
        " ORDER BY version DESC LIMIT 2",
        sid,
        [REQUESTED, RESOLVED],
    )
    at = {row["type"]: row["recorded_at"] for row in stamps}
    return t1 - t0, (at[RESOLVED] - at[REQUESTED]).total_seconds()


async def run(dsn: str, args: argparse.Namespace, timeout_ms: int) -> Figures:
    ns = f"bench-divan-{secrets.token_hex(4)}"
    settings = Settings(pg_dsn=dsn, redis_url=args.redis, broker_namespace=ns)
    log = Path(tempfile.gettempdir()) / f"{ns}.log"
    figures = Figures(timeout_ms, [], [])
    try:
        with worker(settings, timeout_ms, log):
            async with (
                in_process(create_app(settings, reads=False)) as client,
                listener(dsn) as (conn, woken),
            ):
                warm = await new_season(client, 0)
                for n in (1, 2):
                    await one_divan(client, conn, woken, warm, n)
                needed = math.ceil(args.divans / DIVANS)
                seasons = [await new_season(client, i + 1) for i in range(needed)]
                for k in range(args.divans):
                    await asyncio.sleep(args.think_ms / 1000)
                    season, n = seasons[k // DIVANS], k % DIVANS + 1
                    c, s = await one_divan(client, conn, woken, season, n)
                    figures.client.append(c)
                    figures.server.append(s)
    finally:
        r = redis.Redis.from_url(args.redis)
        for key in r.scan_iter(f"{ns}:*"):
            r.delete(key)
        r.close()
        log.unlink(missing_ok=True)
    return figures


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    timeouts = [int(t) for t in args.worker_timeouts.split(",")]
    async with scratch_database(args.dsn, "seksenbir_bench_divan") as dsn:
        conn = await asyncpg.connect(dsn)
        try:
            server = await conn.fetchval("SHOW server_version")
        finally:
            await conn.close()
        print(
            f"config: python {sys.version.split()[0]}, {platform.machine()}, "
            f"{os.cpu_count()} cpus, load average {os.getloadavg()[0]:.1f}, "
            f"PostgreSQL {server}, Redis {args.redis}, worker --processes 1 --threads 1, "
            f"{args.divans} Divans per setting after 2 warm-up, think time {args.think_ms} ms"
        )
        results = [await run(dsn, args, t) for t in timeouts]
    for f in results:
        print(f"dramatiq_worker_timeout={f.worker_timeout_ms} ms")
        print(f"  POST /divans -> DivanResolved committed: {describe(f.client)}")
        print(f"  recorded_at request -> outcome:          {describe(f.server)}")
    print("target: p50 <= 150 ms (POST -> committed outcome)")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    p.add_argument("--divans", type=int, default=50)
    p.add_argument("--worker-timeouts", default="20,1000", help="comma-separated, in ms")
    p.add_argument("--think-ms", type=int, default=1000)
    return p.parse_args(argv)


def cli(args: argparse.Namespace) -> None:
    """`main` on --redis, else on a redis-server of the run's own."""
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli(parse())
