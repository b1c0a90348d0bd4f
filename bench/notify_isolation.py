"""Notifications never in a Divan's way (issue 25, ADR-99): trial Divan latency with and
without a notifications worker beside it delivering to receivers that hang.

Run: .venv/bin/python -m bench.notify_isolation [--divans 60] [--receivers 1000]
     [--timeout-s 5]

Divans are requested and resolved in this process (the resolver's own `resolve`, an in-memory
store: the figure is the Divan's own work), one after the other, and the p50/p99 of each
resolution is printed twice: alone, then with a second process (`--load`) that plays the
notifications worker's part at its worst: every receiver is a webhook on 127.0.0.1 whose
server accepts the connection and never answers, and the worker fans a delivery out to all of
them again as soon as the last batch timed out (the real worker sends a notice per stored
event, far less often). Nothing is shared between the two but the machine: the resolver never
waits for a notification by design, so any difference is CPU contention. Target: the p99
with the hanging receivers within 10 % of the p99 without (at full size).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime

from bench.api_orders import quiet_json_logs
from bench.common import machine


async def _divans(count: int) -> list[float]:
    from services.command.season_commands import create_season
    from services.command.service import Services
    from services.resolver.divan import resolve
    from shared.app.seasons import Seasons
    from shared.domain import commands as c
    from shared.domain.decide import decide
    from shared.eventstore import EventMetadata, InMemoryEventStore

    store = InMemoryEventStore(clock=lambda: datetime.now(UTC))
    seasons = Seasons(store)
    took: list[float] = []
    season_id, seat, n = "", 1, 16
    for i in range(count + 2):  # two warm-up Divans
        if n == 16:
            created = await create_season(Services(seasons=seasons), 6, 1000 + i)
            season_id, seat, n = created.season_id, created.seat, 0
        n += 1
        loaded = await seasons.load(season_id)
        events = decide(loaded.state, c.RequestDivan(seat=seat, divan=n))
        assert isinstance(events, list), events
        meta = EventMetadata(actor="seat:1", command_id=f"req-{i}")
        await seasons.append(season_id, loaded.version, f"req-{i}", events, meta)
        t0 = time.perf_counter()
        assert await resolve(seasons, season_id, n) == "resolved"
        if i >= 2:
            took.append(time.perf_counter() - t0)
    return took


async def _load(receivers: int, timeout_s: float) -> None:
    """The notifications worker at its worst: every receiver hangs; fan out again and again."""
    from services.notify.delivery import Delivery, Sender, delivery_id
    from shared.app import outbound
    from shared.app.notify_store import MemoryNotifyStore, Webhook

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.Event().wait()

    server = await asyncio.start_server(hang, "127.0.0.1", 0, backlog=receivers * 2)
    port = server.sockets[0].getsockname()[1]
    store = MemoryNotifyStore()
    for i in range(receivers):
        hook = Webhook(
            webhook_id=f"wh_{i}", season_id="s", seat=1, url=f"http://127.0.0.1:{port}/{i}",
            format="json", secret="s",
        )  # fmt: skip
        await store.put(hook)
    sender = Sender(store, outbound.Policy(allow=("127.0.0.1",), timeout_s=timeout_s))
    print("load: ready", flush=True)
    for round_ in range(10**9):
        batch = [
            Delivery(
                delivery_id=delivery_id(f"s/{round_}", f"wh_{i}"),
                season_id="s",
                target=f"wh_{i}",
                event="divan_resolved",
                data={"divan": 1},
                texts={"tr": "1. Divan toplandı.", "en": "Divan 1 is resolved."},
            )
            for i in range(receivers)
        ]
        await asyncio.gather(*(sender.send(d) for d in batch), return_exceptions=True)


def _figures(name: str, took: list[float]) -> float:
    ms = sorted(t * 1000 for t in took)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(f"  {name:<32} n={len(ms):>4}  p50 {statistics.median(ms):7.1f} ms  p99 {p99:7.1f} ms")
    return p99


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--divans", type=int, default=60, help="Divans measured per run")
    p.add_argument("--receivers", type=int, default=1000, help="hanging receivers")
    p.add_argument("--timeout-s", type=float, default=5.0, help="a delivery's timeout")
    p.add_argument("--load", action="store_true", help="(internal) be the notifications load")
    a = p.parse_args()
    quiet_json_logs()
    if a.load:
        asyncio.run(_load(a.receivers, a.timeout_s))
        return 0
    print(f"config: {machine()}; {a.divans} trial Divans per run; {a.receivers} hanging receivers")
    alone = _figures("without receivers", asyncio.run(_divans(a.divans)))
    load = subprocess.Popen(
        [sys.executable, "-m", "bench.notify_isolation", "--load", "--receivers", str(a.receivers),
         "--timeout-s", str(a.timeout_s)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert load.stdout is not None
        load.stdout.readline()  # "load: ready"
        beside = _figures(f"{a.receivers} hanging receivers beside", asyncio.run(_divans(a.divans)))
    finally:
        load.terminate()
        load.wait(timeout=30)
    print(f"  p99 with / without: {beside / alone:.2f} (target <= 1.10 at full size)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
