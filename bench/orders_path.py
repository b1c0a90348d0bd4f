"""The order path's own CPU: the app with the order fast path (ADR-124) against Litestar's path.

Run: .venv/bin/python -m bench.orders_path [--orders 600] [--windows 8]

Two apps from create_app (the command API, `timed` around it as `seksenbir serve` runs it:
the access line of every request, rendered as in production and discarded), each on an
InMemoryEventStore of its own (no PostgreSQL statement, no client: what the path around the
unit of work costs shows), one with `fast_orders` and one without. Each window sends --orders
keyed hold orders of one bey as bare ASGI calls and takes this process's CPU time per order;
the windows alternate A/B/B/A … so that the box's load falls on both alike. Prints every
window and the medians.

`--only N`: the fast path's app alone, N keyed orders, nothing printed but the CPU time: for
instruction counts independent of the box's load (ADR-130), run it under callgrind for two
N and divide the difference of the totals by the difference of the N, e.g.
`valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python -m bench.orders_path
--only 200` and `--only 1200` ("Collected"; each process's start-up is the same).

`--window N` (with `--only`, ADR-140): after the `--only` orders (the warm-up), `gc.collect();
gc.freeze()`, then N more keyed orders inside one `functools.reduce`, each driven to its end
by `send(None)` (the in-memory path never suspends; one that did stops the run): count that
stretch alone with `--collect-atstart=no --toggle-collect=functools_reduce` and divide
"Collected" by N. Unlike the difference of two whole runs, it holds no start-up and no
full collection of a heap that grows with the run. `--auth-failures 30`: the failed-token
limit on, as production and bench.api_orders run it (ADR-159).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import statistics
import time
from contextlib import AsyncExitStack
from typing import Any

import msgspec

from bench.api_orders import asgi_post, quiet_json_logs
from entrypoints import gateway
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.http.support import Bey, build_season, lifespan, settings

BODY = msgspec.json.encode({"orders": [{"province": 6, "kind": "hold"}]})


async def window(app: Any, bey: Bey, orders: int, tag: str) -> float:
    """CPU microseconds per order over `orders` keyed orders."""
    headers = {"Authorization": f"Bearer {bey.token}", "Content-Type": "application/json"}
    path = f"/v1/seasons/{bey.season_id}/orders"
    started = time.process_time()
    for n in range(orders):
        status = await asgi_post(app, path, BODY, {**headers, "Idempotency-Key": f"{tag}-{n}"})
        if status != 200:
            raise SystemExit(f"order answered {status}")
    return 1e6 * (time.process_time() - started) / orders


def counted(app: Any, bey: Bey, orders: int) -> None:
    """`orders` keyed orders inside one functools.reduce, after a collection and a freeze."""
    headers = {"Authorization": f"Bearer {bey.token}", "Content-Type": "application/json"}
    path = f"/v1/seasons/{bey.season_id}/orders"

    async def one(n: int) -> None:
        status = await asgi_post(app, path, BODY, {**headers, "Idempotency-Key": f"window-{n}"})
        if status != 200:
            raise SystemExit(f"order answered {status}")

    def run(_: None, order: Any) -> None:
        try:
            order.send(None)
        except StopIteration:
            return
        raise SystemExit("an order waited: the window counts only orders that never suspend")

    orders_ = [one(n) for n in range(orders)]
    gc.collect()
    gc.freeze()
    functools.reduce(run, orders_, None)
    print(f"window: {orders} orders counted inside one functools.reduce")


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    # the failed-token limit is off unless asked (`--auth-failures 30`: production's, which
    # bench.api_orders runs; its Redis is asked only on a 401, which no order here answers)
    config = settings(commands_per_minute=0, auth_failures_per_minute=args.auth_failures)
    async with AsyncExitStack() as stack:
        apps: dict[bool, tuple[Any, Bey]] = {}
        for fast in (True,) if args.only else (True, False):
            store = InMemoryEventStore(clock=StepClock())
            app = gateway.create_app(  # timed and logged as `seksenbir serve` runs it
                config,
                reads=False,
                store=store,
                enqueue=lambda *_: None,
                fast_orders=fast,
                timing=True,
            )
            await stack.enter_async_context(lifespan(app))
            apps[fast] = (app, (await build_season(store, [6, 34, 35]))[0])
        if args.only:
            cpu = await window(*apps[True], args.only, "only")
            print(f"fast path: {args.only} orders, CPU per order {cpu:.0f} µs")
            if args.window:
                counted(*apps[True], args.window)
            return
        figures: dict[bool, list[float]] = {True: [], False: []}
        for n in range(args.windows):
            for fast in (True, False) if n % 2 == 0 else (False, True):
                app, bey = apps[fast]
                figures[fast].append(await window(app, bey, args.orders, f"w{n}"))
    load = os.getloadavg()[0]
    for fast, name in ((True, "fast path"), (False, "Litestar's path")):
        shown = ", ".join(f"{x:.0f}" for x in figures[fast])
        print(
            f"{name:16}: CPU per order median {statistics.median(figures[fast]):.0f} µs ({shown})"
        )
    ratio = statistics.median(figures[True]) / statistics.median(figures[False])
    print(
        f"fast/Litestar {ratio:.2f}; {args.windows} windows of {args.orders}; load now {load:.1f}"
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--orders", type=int, default=600, help="keyed orders a window")
    p.add_argument("--windows", type=int, default=8, help="windows of each app, alternating")
    p.add_argument(
        "--only", type=int, default=0, help="N: the fast path alone, N orders (callgrind)"
    )
    p.add_argument(
        "--window",
        type=int,
        default=0,
        help="N: with --only, N more orders inside one functools.reduce (callgrind's toggle)",
    )
    p.add_argument(
        "--auth-failures",
        type=int,
        default=0,
        help="N: the failed-token limit on, N a minute (production: 30); default off",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
