"""What each of bench.season_flood's requests costs the API process: its CPU per request, by kind.

Run: .venv/bin/python -m bench.flood_costs [--requests 200] [--rounds 3] [--kinds map,stream]
     [--port 0] [--dsn …] [--server-dsn …] [--redis …]

A real `seksenbir up` (bench.idle's `stack`) on a scratch database, every limit at its
default, one live season of 19 beys (bench.api_orders' `api_beys`), projected. Then, in
--rounds rounds, each kind in turn: --requests requests of that kind one after another, each
from the next of 20 client addresses on a keep-alive connection of its own and as the next
bey, while the API process's CPU (every thread's, /proc/PID/task/*/schedstat: nanoseconds on
a CPU) is read before and after. Kinds: the flood's own (an order set, GET /map, /private,
/summary, POST /tickets; a stream: a ticket, the stream opened, read until `ready` and closed)
and one 404 (an unknown path: what a request costs before any route). Prints the median over
the rounds of the CPU per request in microseconds, each kind's statuses and the load.

CPU per request is what the API has to give each of the flood's requests whatever the box's
load (a busy box makes it a little dearer: caches shared with other processes); the closed
loops and the latency are bench.season_flood's. No test asserts a duration.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
import msgspec

from bench.api_orders import DEFAULT_DSN, Bey, api_beys, scratch_database
from bench.common import free_port, own_redis
from bench.idle import name, stack, tree
from bench.read_flood import Conn, projected
from bench.season_flood import ready, short

ADDRESSES = [f"127.0.0.{n}" for n in range(40, 60)]


def cpu_ns(pid: int) -> int:
    """Every thread's time on a CPU so far, in nanoseconds."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            total += int((task / "schedstat").read_text().split()[0])
    return total


def api_pid(root: int) -> int:
    for pid in tree(root):
        if short(name(pid)) == "api":
            return pid
    raise RuntimeError("no API process in the stack")


Kind = Callable[[Conn, Bey], Awaitable[int]]


def kinds(base: str, port: int) -> dict[str, Kind]:
    async def order(c: Conn, b: Bey) -> int:
        return (await c.request("POST", f"{base}/orders", b.token, b.body))[0]

    async def ticket(c: Conn, b: Bey) -> int:
        return (await c.request("POST", f"{base}/tickets", b.token, b""))[0]

    async def stream(c: Conn, b: Bey) -> int:
        status, body = await c.request("POST", f"{base}/tickets", b.token, b"")
        if status != 201:
            return status
        opened = Conn(port, c.source)
        return await ready(opened, f"{base}/events?ticket={msgspec.json.decode(body)['ticket']}")

    return {
        "order": order,
        "map": lambda c, b: c.get(f"{base}/map"),
        "private": lambda c, b: c.get(f"{base}/private", b.token),
        "summary": lambda c, b: c.get(f"{base}/summary"),
        "ticket": ticket,
        "stream (ticket, open, ready, close)": stream,
        "404": lambda c, b: c.get("/v1/nothing-here"),
    }


async def one_kind(
    pid: int, kind: Kind, beys: list[Bey], conns: list[Conn], n: int
) -> tuple[float, Counter[int]]:
    statuses: Counter[int] = Counter()
    for k in range(3):  # warm: connections open, caches filled
        await kind(conns[k % len(conns)], beys[k % len(beys)])
    before = cpu_ns(pid)
    for k in range(n):
        statuses[await kind(conns[k % len(conns)], beys[k % len(beys)])] += 1
    return (cpu_ns(pid) - before) / n / 1000, statuses


async def measure(port: int, pid: int, beys: list[Bey], args: argparse.Namespace) -> None:
    base = f"/v1/seasons/{beys[0].season_id}"
    conns = [Conn(port, a) for a in ADDRESSES]
    costs: dict[str, list[float]] = {}
    seen: dict[str, Counter[int]] = {}
    for _ in range(args.rounds):
        for label, kind in kinds(base, port).items():
            if args.kinds and label.split()[0] not in args.kinds.split(","):
                continue
            us, statuses = await one_kind(pid, kind, beys, conns, args.requests)
            costs.setdefault(label, []).append(us)
            seen.setdefault(label, Counter()).update(statuses)
            await asyncio.sleep(0.5)  # the projectors' work after the orders, apart
    for c in conns:
        await c.close()
    print(f"  the API's CPU per request, µs (median of {args.rounds} rounds; the rounds)")
    for label, values in costs.items():
        rounds = ", ".join(f"{v:.0f}" for v in values)
        print(
            f"  {label:<38} {statistics.median(values):7.0f}  ({rounds})  "
            f"{dict(sorted(seen[label].items()))}"
        )


def run(dsn: str, redis_url: str, args: argparse.Namespace) -> None:
    log = Path(tempfile.mkdtemp(prefix="seksenbir-flood-costs-")) / "stack.log"
    with stack(dsn, redis_url, args.port, log) as up:
        base = f"http://127.0.0.1:{args.port}"

        async def season() -> list[Bey]:
            transport = httpx.AsyncHTTPTransport(local_address="127.0.0.5")
            async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as c:
                return await api_beys(c, 1)

        beys = asyncio.run(season())
        projected(base, beys[0].season_id)
        load0 = os.getloadavg()[0]
        asyncio.run(measure(args.port, api_pid(up.pid), beys, args))
        print(f"  load {load0:.1f}-{os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--requests", type=int, default=200, help="of each kind a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kinds", default="", help="only these (order,map,…,stream,404)")
    parser.add_argument("--dsn", help="a database of yours, used as given (else a scratch one)")
    parser.add_argument(
        "--server-dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN),
        help="where a scratch one is made",
    )
    parser.add_argument("--redis", help="a Redis of yours (else a throwaway redis-server)")
    args = parser.parse_args()
    args.port = args.port or free_port()
    print(f"flood costs — {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    with contextlib.ExitStack() as held:
        redis_url = args.redis or held.enter_context(own_redis())
        if args.dsn:
            run(args.dsn, redis_url, args)
            return
        loop = asyncio.new_event_loop()
        scratch = scratch_database(args.server_dsn, "bench_flood_costs")
        dsn = loop.run_until_complete(scratch.__aenter__())
        try:
            run(dsn, redis_url, args)
        finally:
            loop.run_until_complete(scratch.__aexit__(None, None, None))


if __name__ == "__main__":
    main()
