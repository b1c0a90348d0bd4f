"""Notifications never in a Divan's way (issue 25, ADR-99, ADR-108): trial Divan latency with
and without a notifications worker beside it delivering to receivers that hang.

Run: .venv/bin/python -m bench.notify_isolation [--rounds 20] [--divans 20] [--receivers 1000]
     [--timeout-s 5] [--nice 10]

Divans are requested and resolved in this process (the resolver's own `resolve`, an in-memory
store: the figure is the Divan's own work), one after the other. Beside it a second process
(`--load`) plays the notifications worker's part at its worst: every receiver is a webhook on
127.0.0.1 whose server accepts the connection and never answers, and the worker fans a
delivery out to all of them again as soon as the last batch timed out (the real worker sends
a notice per stored event, far less often), at the worker's niceness (SEKSENBIR_NOTIFY_NICE,
10 by default: `--nice 0` shows the worker without it). Nothing is shared between the two but
the machine: the resolver never waits for a notification by design, so any difference is CPU
contention.

On a shared box one run alone against one run beside measures the neighbours, not the
notifier (a single pair read 279.6 ms alone, 94.9 ms beside). So the runs alternate in
rounds, A/B/A/B…: A with the load stopped (SIGSTOP), B with it running (SIGCONT), `--divans`
Divans each, seconds apart, so the neighbours' load is nearly the same for both halves of a
round. Printed: each round's p99 and p50 and its B/A ratio with the load average; the median
of the rounds' ratios with their spread (lowest, quartiles, highest); the pooled p99 of all A
and all B Divans; the load averages before and after. Target: the median p99 ratio <= 1.10
at full size.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime

from bench.api_orders import quiet_json_logs
from bench.common import machine
from shared.settings import Settings

Ms = list[float]


async def _divans(count: int) -> list[float]:
    from services.command.season_commands import create_season
    from services.command.service import Services
    from services.resolver.divan import resolve
    from shared.app.repository.seasons import Seasons
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
        meta = EventMetadata(actor="seat", seat=str(seat), command_id=f"req-{i}")
        await seasons.append(season_id, loaded.version, f"req-{i}", events, meta)
        t0 = time.perf_counter()
        assert await resolve(seasons, season_id, n) == "resolved"
        if i >= 2:
            took.append(time.perf_counter() - t0)
    return took


async def _load(receivers: int, timeout_s: float, nice: int) -> None:
    """The notifications worker at its worst: every receiver hangs; fan out again and again.
    `nice`: the worker's CPU priority (SEKSENBIR_NOTIFY_NICE); the receivers stand for other
    machines, so they run at it too."""
    from entrypoints.notify_boot import lower_priority
    from services.notify.delivery import Delivery, Sender, delivery_id
    from shared.app.messaging import outbound
    from shared.app.messaging.notify_store import MemoryNotifyStore, Webhook

    lower_priority(nice)  # as the worker does at its start

    async def hang(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # never answers; done when the caller gives up and closes
        writer.close()

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
        await sender.send_all(batch)  # as the fan-out actor does


def _p(ms: list[float], q: float) -> float:
    ordered = sorted(ms)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def _load_process(a: argparse.Namespace) -> subprocess.Popen[str]:
    load = subprocess.Popen(
        [sys.executable, "-m", "bench.notify_isolation", "--load", "--receivers", str(a.receivers),
         "--timeout-s", str(a.timeout_s), "--nice", str(a.nice)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert load.stdout is not None
    load.stdout.readline()  # "load: ready": its receivers are listening and it is sending
    return load


async def _rounds(a: argparse.Namespace, load: subprocess.Popen[str]) -> list[tuple[Ms, Ms]]:
    """Each round: A with the load stopped (SIGSTOP: it holds its connections and uses no CPU),
    then B with it running (SIGCONT: the timeouts that fell due while it was stopped fire and
    it fans out to every receiver again: the worker at its worst)."""
    out: list[tuple[Ms, Ms]] = []
    for i in range(a.rounds):
        load.send_signal(signal.SIGSTOP)
        alone = [t * 1000 for t in await _divans(a.divans)]
        load.send_signal(signal.SIGCONT)
        beside = [t * 1000 for t in await _divans(a.divans)]
        out.append((alone, beside))
        a50, b50 = statistics.median(alone), statistics.median(beside)
        print(f"  round {i + 1:>2}: A p99 {_p(alone, 0.99):7.1f} ms (p50 {a50:6.1f})"
              f"  B p99 {_p(beside, 0.99):7.1f} ms (p50 {b50:6.1f})"
              f"  B/A {_p(beside, 0.99) / _p(alone, 0.99):.2f}   load {_loadavg()}",
              flush=True)  # fmt: skip
    return out


def _spread(name: str, ratios: list[float]) -> None:
    q = sorted(ratios)
    quartiles = statistics.quantiles(q, n=4, method="inclusive") if len(q) > 1 else [q[0]] * 3
    print(f"  {name} B/A per round: median {statistics.median(q):.2f}; spread min {q[0]:.2f}, "
          f"quartiles {quartiles[0]:.2f}-{quartiles[2]:.2f}, max {q[-1]:.2f}")  # fmt: skip


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=20, help="A/B pairs (alone, then beside)")
    p.add_argument("--divans", type=int, default=20, help="Divans measured per run")
    p.add_argument("--receivers", type=int, default=1000, help="hanging receivers")
    p.add_argument("--timeout-s", type=float, default=5.0, help="a delivery's timeout")
    p.add_argument(
        "--nice",
        type=int,
        default=Settings().notify_nice,
        help="the load's niceness (the worker's: SEKSENBIR_NOTIFY_NICE's default)",
    )
    p.add_argument("--load", action="store_true", help="(internal) be the notifications load")
    a = p.parse_args()
    quiet_json_logs()
    if a.load:
        asyncio.run(_load(a.receivers, a.timeout_s, a.nice))
        return 0
    print(f"config: {machine()}; {os.cpu_count()} cpus; {a.rounds} rounds A/B of {a.divans} "
          f"trial Divans each; {a.receivers} hanging receivers in B, nice {a.nice}")  # fmt: skip
    print(f"load average before (1/5/15 min): {_loadavg()}")
    load = _load_process(a)
    try:
        rounds = asyncio.run(_rounds(a, load))
    finally:
        load.send_signal(signal.SIGCONT)
        load.terminate()
        load.wait(timeout=30)
    print(f"load average after (1/5/15 min): {_loadavg()}")
    every_a = [t for alone, _ in rounds for t in alone]
    every_b = [t for _, beside in rounds for t in beside]
    print(f"  pooled: A p99 {_p(every_a, 0.99):.1f} ms (n={len(every_a)}), "
          f"B p99 {_p(every_b, 0.99):.1f} ms (n={len(every_b)}), "
          f"ratio {_p(every_b, 0.99) / _p(every_a, 0.99):.2f}")  # fmt: skip
    _spread("p99", [_p(b, 0.99) / _p(a_, 0.99) for a_, b in rounds])
    _spread("p50", [statistics.median(b) / statistics.median(a_) for a_, b in rounds])
    print("  target: the median p99 B/A <= 1.10 at full size")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
