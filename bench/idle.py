"""Idle cost of the whole stack, and the trial Divan's latency, in one run (issue 14, ADR-54).

Run: .venv/bin/python -m bench.idle [--port 18400 (0: a free one)] [--settle 10] [--seconds 60]
     [--seasons-made 0 (seasons made before: finished and projected, ADR-147)]
     [--divans 30] [--think-ms 1000] [--dsn postgresql://postgres@127.0.0.1:5432/test]

It starts `seksenbir up` (python -m entrypoints.cli up) on a scratch PostgreSQL database and a
throwaway redis-server of its own (a free port, no persistence), with the environment
`seksenbir up` would get in production (nothing else set: Dramatiq's worker timeout is the
stack's own). Then:

1. plays two trial Divans (every process has opened its pools), waits --settle seconds, and
   samples utime+stime (/proc/<pid>/stat) of every process of the stack (`up` and all its
   descendants: API, scheduler, Dramatiq's main processes, their worker processes and forks)
   over --seconds: the idle CPU, as a percentage of one core, in total and per process;
2. plays --divans trial Divans through the stack's HTTP API, each after --think-ms of quiet
   (a player looking at the map: the worker is idle when the request comes), timing
   POST /divans -> DivanResolved committed (seen by a LISTEN connection on the store's NOTIFY).

Targets: idle <= 2 % of one core for the whole stack; trial Divan p50 <= 25 ms.
The redis-server's and PostgreSQL's own CPU are not the stack's and are not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import platform
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from bench.api_orders import DEFAULT_DSN, scratch_database
from bench.common import free_port, own_redis
from bench.divan_latency import listener, new_season, one_divan, pct
from shared.domain.state import DIVANS

REPO = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            out.setdefault(ppid, []).append(int(entry))
    return out


def tree(root: int) -> list[int]:
    """`root` and all its descendants."""
    kids = children()
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def cpu_ticks(pid: int) -> int | None:
    with contextlib.suppress(OSError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return None


def name(pid: int) -> str:
    with contextlib.suppress(OSError):
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        text = " ".join(a.decode(errors="replace") for a in args if a)
        for noise in (sys.executable, "-m "):
            text = text.replace(noise, "").strip()
        return text[:90]
    return "?"


@contextlib.contextmanager
def stack(
    dsn: str, redis_url: str, port: int, log: Path, extra: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`seksenbir up` on `port` with only `dsn`, `redis_url` and `extra` of SEKSENBIR_*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEKSENBIR_", "dramatiq_"))}
    env.pop("FAULT_POINT", None)
    env |= {
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        **(extra or {}),
    }
    cmd = [sys.executable, "-m", "entrypoints.cli", "up", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the stack did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        yield proc
    finally:
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        print(f"stack stopped {time.monotonic() - t0:.1f} s after SIGTERM (exit {proc.returncode})")


def sample(root: int, seconds: float) -> tuple[float, list[tuple[float, int, str]]]:
    """Idle CPU over `seconds`: (% of one core in total, [(%, pid, name)] per process)."""
    pids = tree(root)
    start = {pid: cpu_ticks(pid) for pid in pids}
    t0 = time.monotonic()
    time.sleep(seconds)
    elapsed = time.monotonic() - t0
    per = []
    for pid in pids:
        a, b = start[pid], cpu_ticks(pid)
        if a is not None and b is not None:
            per.append((100.0 * (b - a) / TICKS / elapsed, pid, name(pid)))
    return sum(p for p, _, _ in per), sorted(per, reverse=True)


async def divans(dsn: str, port: int, count: int, think_ms: int) -> list[float]:
    base = f"http://127.0.0.1:{port}"
    out: list[float] = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=30) as client,
        listener(dsn) as (conn, woken),
    ):
        seasons = [await new_season(client, i) for i in range(math.ceil(count / DIVANS))]
        for k in range(count):
            await asyncio.sleep(think_ms / 1000)
            c, _ = await one_divan(client, conn, woken, seasons[k // DIVANS], k % DIVANS + 1)
            out.append(c)
    return out


async def warm_up(dsn: str, port: int) -> None:
    async with (
        httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as client,
        listener(dsn) as (conn, woken),
    ):
        season = await new_season(client, 99)
        for n in (1, 2):
            await one_divan(client, conn, woken, season, n)


async def seasons_made(dsn: str, redis_url: str, count: int) -> None:
    """`count` seasons made before, finished and projected (one event each, written by SQL, a
    read model's pointer and checkpoint each: what the sweep reads; bench.sweep): the stack at
    rest after weeks of trial seasons (ADR-147)."""
    import redis.asyncio as aioredis

    from bench.sweep import add_events, projected
    from shared.eventstore import PoolSettings, create_pool
    from shared.settings import next_db

    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=2))
    redis = aioredis.Redis.from_url(next_db(redis_url))  # the read models' db, as `up` picks it
    try:
        names = [f"made-{n:07d}" for n in range(count)]
        for start in range(0, count, 5000):
            part = dict.fromkeys(names[start : start + 5000], 1)
            await add_events(pool, part)
            await projected(redis, "sb", part)
    finally:
        await redis.aclose()
        await pool.close()


async def main(args: argparse.Namespace) -> int:
    log = Path(tempfile.gettempdir()) / f"seksenbir-bench-idle-{os.getpid()}.log"
    args.port = args.port or free_port()
    async with scratch_database(args.dsn, "seksenbir_bench_idle") as dsn:
        with own_redis() as redis_url:
            await seasons_made(dsn, redis_url, args.seasons_made)
            await idle_and_divans(args, dsn, redis_url, log)
    return 0


async def idle_and_divans(args: argparse.Namespace, dsn: str, redis_url: str, log: Path) -> None:
    """The stack's idle CPU, then its trial Divans' latency, printed."""
    with stack(dsn, redis_url, args.port, log) as proc:
        await warm_up(dsn, args.port)
        await asyncio.sleep(args.settle)
        total, per = await asyncio.to_thread(sample, proc.pid, args.seconds)
        latencies = await divans(dsn, args.port, args.divans, args.think_ms)
    log.unlink(missing_ok=True)
    print(
        f"config: python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}; `seksenbir up` (its default processes) "
        f"on a scratch database and a redis-server of its own; "
        f"{args.seasons_made} seasons made before"
    )
    print(f"idle CPU over {args.seconds:.0f} s after {args.settle:.0f} s of settling:")
    for pct_, pid, what in per:
        print(f"  {pct_:6.2f} %  pid {pid:>7}  {what}")
    print(f"  {total:6.2f} %  of one core, whole stack ({len(per)} processes)  (target <= 2 %)")
    ms = [x * 1000 for x in latencies]
    print(
        f"trial Divan POST -> DivanResolved committed, {args.think_ms} ms think time: "
        f"p50 {pct(ms, 0.5):.1f} ms  p90 {pct(ms, 0.9):.1f}  p99 {pct(ms, 0.99):.1f}  "
        f"max {max(ms):.1f}  mean {statistics.fmean(ms):.1f}  (n={len(ms)})  (target p50 <= 25 ms)"
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--port", type=int, default=18400, help="the stack's port (0: a free one)")
    p.add_argument("--settle", type=float, default=10.0)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--divans", type=int, default=30)
    p.add_argument("--think-ms", type=int, default=1000)
    p.add_argument(
        "--seasons-made",
        type=int,
        default=0,
        help="seasons made before the stack starts (finished, projected): the idle CPU then",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
