"""One address's read flood against another season's reads (issue 20 item 5, ADR-67).

Run: .venv/bin/python -m bench.read_flood [--port 18330] [--connections 150] [--seconds 20]
     [--dsn postgresql://postgres@127.0.0.1:5432/NAME] [--redis redis://127.0.0.1:PORT/0]
     [--modes off,nohold,on]

For each mode it starts a real `seksenbir up` (python -m entrypoints.cli up) on --port, with
the read limits off (`SEKSENBIR_READS_PER_MINUTE=0`, `…_PER_TOKEN_PER_MINUTE=0`: the API as it
was before them), on but answering refusals at once (`SEKSENBIR_READ_REFUSAL_HOLD_MS=0`), or
at their defaults, on --dsn (a database of the caller's, used as given;
without it a scratch database on the local server, dropped afterwards) and --redis (without
it a throwaway redis-server of the run's own). It creates two trial seasons, X and Y, and:

1. measures season Y's reads with no flood: two probe clients (from 127.0.0.3 and 127.0.0.4,
   each keep-alive, one read every 100 ms cycling GET /map, /summary, /map, /private) for
   --seconds;
2. starts the flood generator in its OWN process (multiprocessing, spawn): --connections
   keep-alive connections, all from one address (127.0.0.2), each looping GET /map and GET
   /private (with X's token) of season X as fast as the answers come, never waiting a
   Retry-After; and measures Y again for --seconds while it runs.

It prints Y's p50/p99/max per phase, the probes' statuses (a 429 there would be a limit too
tight for a player), and the flood's answers by status and rate. Target (issue 20): Y's p99
<= 50 ms under the flood with the limits on. Figures go into docs/benchmarks.md; no test
asserts a duration.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Coroutine
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

import httpx

from bench.api_orders import DEFAULT_DSN, scratch_database
from bench.common import free_port, own_redis
from bench.idle import stack

FLOOD_ADDRESS = "127.0.0.2"
PROBE_ADDRESSES = ("127.0.0.3", "127.0.0.4")
PROBE_EVERY_S = 0.1
MODES = {  # the stack's environment per mode
    "off": {"SEKSENBIR_READS_PER_MINUTE": "0", "SEKSENBIR_READS_PER_TOKEN_PER_MINUTE": "0"},
    "nohold": {"SEKSENBIR_READ_REFUSAL_HOLD_MS": "0"},  # limits on, refusals answered at once
    "on": {},  # the defaults
}
TITLES = {
    "off": "limits off (the API before them)",
    "nohold": "limits on, refusals answered at once (SEKSENBIR_READ_REFUSAL_HOLD_MS=0)",
    "on": "limits on (defaults)",
}


class Conn:
    """One keep-alive HTTP/1.1 connection from a chosen local address (the client address the
    API limits by), raw: the flood must cost its own process little per request."""

    def __init__(self, port: int, source: str) -> None:
        self.port, self.source = port, source
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(
            "127.0.0.1", self.port, local_addr=(self.source, 0)
        )

    async def get(self, path: str, token: str | None = None) -> int:
        """GET `path`; the status (0: the connection was lost and is opened again)."""
        return (await self.request("GET", path, token))[0]

    async def request(
        self, method: str, path: str, token: str | None = None, body: bytes | None = None
    ) -> tuple[int, bytes]:
        """One request; its status and body (0, b"": the connection was lost, it is opened
        again at the next)."""
        if self.writer is None:
            await self.open()
        assert self.reader is not None and self.writer is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: bench\r\n"
        head += f"Authorization: Bearer {token}\r\n" if token else ""
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + (body or b""))
        try:
            status, length, close = await self.head()
            data = await self.reader.readexactly(length) if length else b""
            if close:
                await self.close()
            return status, data
        except (asyncio.IncompleteReadError, ConnectionError):
            await self.close()
            return 0, b""

    async def head(self) -> tuple[int, int, bool]:
        """An answer's status line and headers: (status, Content-Length, Connection: close)."""
        assert self.reader is not None
        head = await self.reader.readuntil(b"\r\n\r\n")
        length, close = 0, False
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"connection" and value.strip().lower() == b"close":
                close = True
        return int(head[9:12]), length, close

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(Exception):
                await self.writer.wait_closed()
        self.reader = self.writer = None


# --- the flood generator: its own process ---------------------------------------------------


async def run_until(stop: Any, loops: list[Coroutine[Any, Any, None]]) -> float:
    """Run `loops` as tasks until `stop` (a multiprocessing Event) is set, then cancel them;
    the seconds they ran."""
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(loop) for loop in loops]
    while not stop.is_set():
        await asyncio.sleep(0.05)
    elapsed = time.perf_counter() - t0
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return elapsed


def flood(
    *,
    port: int,
    season: str,
    token: str,
    connections: int,
    started: EventType,
    stop: EventType,
    out: Any,
) -> None:
    """`connections` loops of GET /map and GET /private of `season` from FLOOD_ADDRESS until
    `stop`; puts (status counts, requests, seconds) on `out`."""

    async def main() -> None:
        counts: Counter[int] = Counter()
        base = f"/v1/seasons/{season}"

        async def loop(conn: Conn) -> None:
            while not stop.is_set():
                counts[await conn.get(f"{base}/map")] += 1
                counts[await conn.get(f"{base}/private", token)] += 1

        conns = [Conn(port, FLOOD_ADDRESS) for _ in range(connections)]
        await asyncio.gather(*(c.open() for c in conns))
        started.set()
        elapsed = await run_until(stop, [loop(c) for c in conns])
        await asyncio.gather(*(c.close() for c in conns))
        out.put((dict(counts), sum(counts.values()), elapsed))

    asyncio.run(main())


# --- season Y's probes ----------------------------------------------------------------------


async def probe(
    port: int, season: str, token: str, seconds: float
) -> tuple[list[float], Counter[int]]:
    """Y's reads from PROBE_ADDRESSES for `seconds`: latencies (s) and statuses."""
    base = f"/v1/seasons/{season}"
    cycle: list[tuple[str, str | None]] = [(f"{base}/map", None), (f"{base}/summary", None)]
    cycle.append((f"{base}/map", None))
    cycle.append((f"{base}/private", token))
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    deadline = time.perf_counter() + seconds

    async def one(source: str) -> None:
        conn = Conn(port, source)
        await conn.open()
        n = 0
        while time.perf_counter() < deadline:
            path, auth = cycle[n % len(cycle)]
            n += 1
            t0 = time.perf_counter()
            status = await conn.get(path, auth)
            latencies.append(time.perf_counter() - t0)
            statuses[status] += 1
            await asyncio.sleep(max(0.0, PROBE_EVERY_S - (time.perf_counter() - t0)))
        await conn.close()

    await asyncio.gather(*(one(a) for a in PROBE_ADDRESSES))
    return latencies, statuses


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def figures(name: str, latencies: list[float], statuses: Counter[int]) -> str:
    ms = [x * 1000 for x in latencies]
    return (
        f"  {name:<22} n={len(ms):4d}  p50 {statistics.median(ms):7.1f} ms  "
        f"p99 {pct(ms, 0.99):7.1f} ms  max {max(ms):7.1f} ms  statuses {dict(statuses)}"
    )


def new_trial(base: str, memleket: int) -> tuple[str, str]:
    r = httpx.post(f"{base}/v1/seasons", json={"memleket": memleket}, timeout=30)
    r.raise_for_status()
    body = r.json()
    return body["season_id"], body["token"]


def projected(base: str, season: str) -> None:
    deadline = time.monotonic() + 30
    while httpx.get(f"{base}/v1/seasons/{season}/map", timeout=10).status_code != 200:
        if time.monotonic() > deadline:
            raise RuntimeError(f"season {season} was never projected")
        time.sleep(0.1)


def run_mode(mode: str, dsn: str, redis_url: str, args: argparse.Namespace) -> None:
    env = MODES[mode]
    log = Path(tempfile.mkdtemp(prefix="seksenbir-read-flood-")) / f"stack-{mode}.log"
    with stack(dsn, redis_url, args.port, log, env):
        base = f"http://127.0.0.1:{args.port}"
        x, x_token = new_trial(base, 6)
        y, y_token = new_trial(base, 34)
        projected(base, x)
        projected(base, y)
        print(TITLES[mode])
        quiet, quiet_statuses = asyncio.run(probe(args.port, y, y_token, args.seconds))
        print(figures("Y, no flood", quiet, quiet_statuses))
        ctx = multiprocessing.get_context("spawn")
        started, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
        proc = ctx.Process(
            target=flood,
            kwargs={
                "port": args.port,
                "season": x,
                "token": x_token,
                "connections": args.connections,
                "started": started,
                "stop": stop,
                "out": out,
            },
        )
        proc.start()
        try:
            if not started.wait(60):
                raise RuntimeError("the flood did not start")
            time.sleep(1.0)  # the flood at full speed before Y is measured
            loud, loud_statuses = asyncio.run(probe(args.port, y, y_token, args.seconds))
        finally:
            stop.set()
            counts, total, elapsed = out.get(timeout=60)
            proc.join(30)
        print(figures(f"Y, flood of {args.connections}", loud, loud_statuses))
        print(
            f"  flood from {FLOOD_ADDRESS}: {total} answers in {elapsed:.1f} s "
            f"({total / elapsed:.0f}/s), by status {dict(sorted(counts.items()))}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--connections", type=int, default=150)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--dsn", help="a database of yours, used as given (else a scratch one)")
    parser.add_argument("--server-dsn", default=DEFAULT_DSN, help="where a scratch one is made")
    parser.add_argument("--redis", help="a Redis of yours (else a throwaway redis-server)")
    parser.add_argument("--modes", default="off,nohold,on", help="of: off, nohold, on")
    args = parser.parse_args()
    args.port = args.port or free_port()
    print(f"read flood — {platform.node()}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with contextlib.ExitStack() as held:
        redis_url = args.redis or held.enter_context(own_redis())
        loop = asyncio.new_event_loop()
        if args.dsn:
            dsn = args.dsn
        else:
            scratch = scratch_database(args.server_dsn, "bench_read_flood")
            dsn = loop.run_until_complete(scratch.__aenter__())
            held.callback(lambda: loop.run_until_complete(scratch.__aexit__(None, None, None)))
        for mode in args.modes.split(","):
            run_mode(mode, dsn, redis_url, args)


if __name__ == "__main__":
    main()
