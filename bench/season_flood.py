"""A flood of one season leaves the other seasons within their targets (issue 27, ADR-122).

Run: .venv/bin/python -m bench.season_flood [--addresses 4] [--connections 8] [--streams 4]
     [--seconds 20] [--trials 3] [--port 0] [--dsn …] [--server-dsn …] [--redis …]
     [--flood-nice 0: the flood's process at that lower CPU priority]
     [--modes off,on]  (off: SEKSENBIR_SEASON_CONCURRENCY=0, the API before ADR-122; on: the
     defaults; N: a season's share of N; a stack and a scratch database per mode, in order)

It starts a real `seksenbir up` (bench.idle's `stack`) on a scratch database and a
redis-server of its own (or --dsn / --redis, used as given), every limit at its default
(docs/configuration.md), and creates two live seasons, X and Y, each filled by 19 joins (the
beys' tokens; orders for Divan 1 are taken). Then, for --seconds each, two phases:

1. no flood: the probes alone;
2. the flood, in a process of its own (multiprocessing, spawn): from --addresses addresses
   (127.0.0.10, .11, …) --connections keep-alive connections each, looping as fast as answers
   come and never honouring Retry-After: POST an order set as one of X's beys in turn, GET
   X's /map, /private (that bey's token), /summary; and --streams loops each opening X's
   event stream with a ticket (POST /tickets, GET /events?ticket=…, read until `ready`,
   close, again).

The probes, the same in both phases: Y's reads (bench.read_flood's `probe`: two addresses, a
read every 100 ms each), Y's order submissions (one address, one every 200 ms, Y's beys in
turn), and --trials trial seasons Z asking for Divans back to back (bench.trial_load's
`player`, each from an address of its own; request -> DivanResolved committed). It prints
p50/p99/max per probe per phase, every probe's statuses, the flood's answers by kind and
status and their rate, the API process's CPU share and the load average. Targets: Y's reads
p99 <= 50 ms under the flood (issue 20); Y's orders and Z's Divans within their no-flood
figures. No test asserts a duration: the figures go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

import httpx
import msgspec

from bench.api_orders import DEFAULT_DSN, Bey, api_beys, scratch_database
from bench.chat_load import Wire
from bench.common import free_port, own_redis
from bench.idle import TICKS, cpu_ticks, name, stack, tree
from bench.read_flood import Conn, figures, probe, projected, run_until
from bench.trial_load import player, watching

JOIN_ADDRESSES = ("127.0.0.5", "127.0.0.6")  # X's and Y's 19 joins (30 a minute an address)
ORDER_PROBE_ADDRESS = "127.0.0.7"
ORDER_PROBE_EVERY_S = 0.2
FLOOD_FIRST = 10  # the flood's addresses: 127.0.0.10, .11, …
TRIAL_FIRST = 30  # Z's: 127.0.0.30, .31, …


def mode_env(mode: str) -> tuple[dict[str, str], str]:
    """A mode's environment for the stack and its title: `on` the defaults, `off` no season
    share (the API before ADR-122), a number N: SEKSENBIR_SEASON_CONCURRENCY=N."""
    if mode == "on":
        return {}, "every setting at its default"
    n = "0" if mode == "off" else str(int(mode))
    title = "no season share (the API before ADR-122)" if n == "0" else f"a season's share {n}"
    return {"SEKSENBIR_SEASON_CONCURRENCY": n}, title


def address(n: int) -> str:
    return f"127.0.0.{n}"


# --- the flood: its own process ---------------------------------------------------------------


async def _flood(
    port: int, beys: list[Bey], args: dict[str, int], stop: EventType
) -> dict[str, Any]:
    counts: dict[str, Counter[int]] = {k: Counter() for k in ("order", "read", "stream")}
    base = f"/v1/seasons/{beys[0].season_id}"

    async def commands(conn: Conn, k: int) -> None:
        while not stop.is_set():
            bey = beys[k % len(beys)]
            k += 1
            status, _ = await conn.request("POST", f"{base}/orders", bey.token, bey.body)
            counts["order"][status] += 1
            for path, token in ((f"{base}/map", None), (f"{base}/private", bey.token)):
                counts["read"][await conn.get(path, token)] += 1
            counts["read"][await conn.get(f"{base}/summary")] += 1

    async def streams(conn: Conn, k: int) -> None:
        while not stop.is_set():
            bey = beys[k % len(beys)]
            k += 1
            status, body = await conn.request("POST", f"{base}/tickets", bey.token, b"")
            counts["read"][status] += 1
            if status != 201:
                continue
            ticket = msgspec.json.decode(body)["ticket"]
            counts["stream"][await ready(conn, f"{base}/events?ticket={ticket}")] += 1

    loops = []
    for a in range(args["addresses"]):
        source = address(FLOOD_FIRST + a)
        loops += [commands(Conn(port, source), a + 7 * c) for c in range(args["connections"])]
        loops += [streams(Conn(port, source), a + 5 * c) for c in range(args["streams"])]
    elapsed = await run_until(stop, loops)
    return {"counts": {k: dict(v) for k, v in counts.items()}, "seconds": elapsed}


async def ready(conn: Conn, path: str) -> int:
    """Open an event stream, read until its `ready`, close it: the status (0: lost)."""
    with contextlib.suppress(OSError):
        await conn.open()
    if conn.writer is None or conn.reader is None:
        return 0
    conn.writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
    try:
        status, length, _close = await conn.head()
        if status == 200:
            await conn.reader.readuntil(b"event: ready")
        elif length:
            await conn.reader.readexactly(length)
        return status
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return 0
    finally:
        await conn.close()


def flood(port: int, beys: list[Bey], args: dict[str, int], events: Any, out: Any) -> None:
    """The flood's process: (started, stop) are `events`; its answers go on `out`. With
    `nice`, it runs at that lower CPU priority (--flood-nice)."""
    started, stop = events
    if args.get("nice"):
        os.nice(args["nice"])
    started.set()
    out.put(asyncio.run(_flood(port, beys, args, stop)))


# --- the probes -------------------------------------------------------------------------------


async def order_probe(
    port: int, beys: list[Bey], seconds: float
) -> tuple[list[float], Counter[int]]:
    """Y's order submissions from ORDER_PROBE_ADDRESS, one every ORDER_PROBE_EVERY_S."""
    conn, latencies, statuses = Conn(port, ORDER_PROBE_ADDRESS), [], Counter[int]()
    base = f"/v1/seasons/{beys[0].season_id}"
    deadline, n = time.perf_counter() + seconds, 0
    while time.perf_counter() < deadline:
        bey = beys[n % len(beys)]
        n += 1
        t0 = time.perf_counter()
        statuses[(await conn.request("POST", f"{base}/orders", bey.token, bey.body))[0]] += 1
        latencies.append(time.perf_counter() - t0)
        await asyncio.sleep(max(0.0, ORDER_PROBE_EVERY_S - (time.perf_counter() - t0)))
    await conn.close()
    return latencies, statuses


async def trials(dsn: str, port: int, count: int, seconds: float) -> list[float]:
    """Z: `count` trial seasons asking for Divans back to back, each from its own address."""
    base = f"http://127.0.0.1:{port}"
    wires = [Wire(base, local=address(TRIAL_FIRST + i)) for i in range(count)]
    try:
        async with watching(dsn) as (_conn, waits):
            until = time.perf_counter() + seconds
            runs = await asyncio.gather(*(player(w, waits, i, until) for i, w in enumerate(wires)))
    finally:
        for w in wires:
            w.close()
    return [x.seconds for run in runs for x in run]  # bench.trial_load's Seen


async def probes(dsn: str, port: int, y: list[Bey], args: argparse.Namespace) -> list[str]:
    (reads, read_statuses), (orders, order_statuses), divans = await asyncio.gather(
        probe(port, y[0].season_id, y[0].token, args.seconds),
        order_probe(port, y, args.seconds),
        trials(dsn, port, args.trials, args.seconds),
    )
    lines = [figures("Y reads", reads, read_statuses), figures("Y orders", orders, order_statuses)]
    if divans:
        lines.append(figures("Z Divans (-> resolved)", divans, Counter({202: len(divans)})))
    return lines


def short(command: str) -> str:
    """A stack process's role from its command line (`… entrypoints.cli serve …`: serve)."""
    words = [w for w in command.split() if w.startswith("entrypoints.")]
    role = words[-1].removeprefix("entrypoints.") if words else command[:30]
    return "api" if role == "cli" and " serve" in command else role


class Cpu:
    """The stack's processes' CPU over a phase, as a share of one core, by process."""

    def __init__(self, root: int, flood: int | None = None) -> None:
        self.pids = tree(root) + ([flood] if flood else [])
        self.flood = flood
        self.start = {pid: cpu_ticks(pid) for pid in self.pids}
        self.t0, self.load0 = time.monotonic(), os.getloadavg()[0]

    def line(self) -> str:
        elapsed = time.monotonic() - self.t0
        shares = []
        for pid in self.pids:
            a, b = self.start[pid], cpu_ticks(pid)
            if a is not None and b is not None and b > a:
                role = "the flood (bench)" if pid == self.flood else short(name(pid))
                shares.append((100 * (b - a) / TICKS / elapsed, role))
        top = ", ".join(f"{s:.0f} % {n}" for s, n in sorted(shares, reverse=True)[:6])
        return f"  load {self.load0:.1f}-{os.getloadavg()[0]:.1f}; CPU of one core: {top}"


class _Access(msgspec.Struct):
    """An access line of the stack's log (shared.logs.AccessLine), the fields read here."""

    event: str = ""
    timestamp: datetime | None = None
    method: str = ""
    status: int = 0
    duration_ms: float = 0.0
    season_id: str | None = None


_access = msgspec.json.Decoder(_Access)


def served(log: Path, season: str, since: datetime, until: datetime) -> list[float]:
    """The API's own durations (s, its access log: from its middleware to the answer's end) of
    `season`'s reads (GETs) answered between `since` and `until`."""
    out = []
    with log.open("rb") as lines:
        for line in lines:
            if b'"http.request"' not in line or season.encode() not in line:
                continue
            with contextlib.suppress(msgspec.DecodeError):
                a = _access.decode(line)
                if a.method == "GET" and a.timestamp is not None and since <= a.timestamp <= until:
                    out.append(a.duration_ms / 1000)
    return out


def phase(
    up: int,
    dsn: str,
    y: list[Bey],
    args: argparse.Namespace,
    log: Path,
    *,
    flood: int | None = None,
) -> None:
    cpu, since = Cpu(up, flood), datetime.now(UTC)
    for line in asyncio.run(probes(dsn, args.port, y, args)):
        print(line)
    # the same reads as the API timed them: the gap to the probes' is the time outside its
    # middleware (the socket, the loop's queue before the request's first step, the bench)
    own = served(log, y[0].season_id, since, datetime.now(UTC))
    if own:
        print(figures("Y reads (API's own)", own, Counter({200: len(own)})))
    print(cpu.line())


def run(dsn: str, redis_url: str, args: argparse.Namespace, mode: str) -> None:
    log = Path(tempfile.mkdtemp(prefix="seksenbir-season-flood-")) / f"stack-{mode}.log"
    env, title = mode_env(mode)
    print(f"--- {title}")
    with stack(dsn, redis_url, args.port, log, env) as up:
        base = f"http://127.0.0.1:{args.port}"

        async def seasons() -> tuple[list[Bey], list[Bey]]:
            out = []
            for source in JOIN_ADDRESSES:
                transport = httpx.AsyncHTTPTransport(local_address=source)
                async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as c:
                    out.append(await api_beys(c, 1))
            return out[0], out[1]

        x, y = asyncio.run(seasons())
        projected(base, x[0].season_id)
        projected(base, y[0].season_id)
        print(f"no flood, {args.seconds:.0f} s")
        phase(up.pid, dsn, y, args, log)
        ctx = multiprocessing.get_context("spawn")
        started, stop, out = ctx.Event(), ctx.Event(), ctx.Queue()
        sizes = {k: getattr(args, k) for k in ("addresses", "connections", "streams")}
        sizes["nice"] = args.flood_nice
        proc = ctx.Process(target=flood, args=(args.port, x, sizes, (started, stop), out))
        proc.start()
        try:
            if not started.wait(60):
                raise RuntimeError("the flood did not start")
            time.sleep(1.0)  # the flood at full speed before the probes
            print(
                f"flood of X: {args.addresses} addresses x ({args.connections} order-and-read "
                f"loops + {args.streams} stream loops), {args.seconds:.0f} s"
                + (f", the flood at nice {args.flood_nice}" if args.flood_nice else "")
            )
            phase(up.pid, dsn, y, args, log, flood=proc.pid)
        finally:
            stop.set()
            result = out.get(timeout=60)
            proc.join(30)
        seconds = result["seconds"]
        for kind, counts in result["counts"].items():
            total = sum(counts.values())
            print(
                f"  flood {kind + 's':<7} {total:6d} answers, {total / seconds:6.0f}/s, "
                f"by status {dict(sorted(counts.items()))}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--addresses", type=int, default=4, help="the flood's client addresses")
    parser.add_argument("--connections", type=int, default=8, help="order-and-read loops each")
    parser.add_argument("--streams", type=int, default=4, help="event-stream loops each")
    parser.add_argument("--seconds", type=float, default=20.0, help="each phase")
    parser.add_argument("--trials", type=int, default=3, help="Z: trial seasons probing")
    parser.add_argument(
        "--flood-nice",
        type=int,
        default=0,
        help="the flood's process at this lower CPU priority (an attacker is another machine: "
        "on one box its client competes with the server for the cores); 0: as is",
    )
    parser.add_argument("--dsn", help="a database of yours, used as given (else a scratch one)")
    parser.add_argument(
        "--server-dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN),
        help="where a scratch one is made",
    )
    parser.add_argument("--redis", help="a Redis of yours (else a throwaway redis-server)")
    parser.add_argument(
        "--modes", default="off,on", help="of: off (no season share), on, N (a share of N)"
    )
    args = parser.parse_args()
    args.port = args.port or free_port()
    print(
        f"season flood — {platform.node()}, Python {sys.version.split()[0]}, "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; every limit at its default"
    )
    with contextlib.ExitStack() as held:
        redis_url = args.redis or held.enter_context(own_redis())
        for mode in args.modes.split(","):
            if args.dsn:
                run(args.dsn, redis_url, args, mode)
                continue
            loop = asyncio.new_event_loop()  # a scratch database a mode: X and Y start afresh
            scratch = scratch_database(args.server_dsn, "bench_season_flood")
            dsn = loop.run_until_complete(scratch.__aenter__())
            try:
                run(dsn, redis_url, args, mode)
            finally:
                loop.run_until_complete(scratch.__aexit__(None, None, None))


if __name__ == "__main__":
    main()
