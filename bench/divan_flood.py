"""A live Divan beside a flood of orders for the next Divan (ADR-128): its runs and its time.

Run: .venv/bin/python -m bench.divan_flood [--rounds 5] [--concurrency 8] [--lead 0.2]
     [--dsn postgresql://postgres@127.0.0.1:5432/postgres]

On a scratch database of --dsn's server: live seasons of 19 human beys (registration closed by
the 19th join), their Divans resolved one after another by the resolver's own code (`resolve`,
in this process, at 2 s past each Divan's instant, retried up to 100 times). Each round resolves
three Divans, in this order:

  alone    no order loops: one run, the Divan's own time
  rerun    --concurrency order loops appending bey after bey (a hold on the memleket) for the
           NEXT Divan, received after the lock (R-4.4), in a process of their own (each loop
           its own fold: another process's writer); the resolver with ADR-128 switched off
           (REBASES = 0): each conflict decides the Divan again, as before
  rebase   the same loops; ADR-128 on: a conflict with later Divans' orders only appends the
           run already decided at the new head

The loops start --lead seconds before the Divan and stop once it is resolved. Per variant:
the median milliseconds of the Divan, its CPU milliseconds in this process, its runs
(decisions: a rerun is one more), its rebases, and the orders the loops appended meanwhile;
with every Divan's figures. `--for-the-divan`: the loops' orders are for the Divan being
resolved (an edge's clock before the instant, as bench.chat_flood's API has): every conflict is
an input of record, both variants decide again. Figures go into docs/benchmarks.md with the
load (`uptime`); no test asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import secrets
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from multiprocessing.connection import Connection
from typing import Any

from bench.api_orders import MEMLEKETS, quiet_json_logs, scratch_database
from bench.common import machine

RETRIES = 100  # a Divan's decisions against the loops' appends before it gives up
CREATED_AT = datetime.fromisoformat("2026-12-01T12:00:00+03:00")


def instant(state: Any, divan: int) -> datetime:
    assert state.calendar is not None
    return state.calendar.at(divan)  # type: ignore[no-any-return]


async def new_season(seasons: Any) -> str:
    """A live season of 19 humans, as the API leaves it (decided and appended directly)."""
    from shared.domain import commands as c
    from shared.domain.decide import decide
    from shared.domain.evolve import fold
    from shared.domain.state import SeasonState
    from shared.eventstore import EventMetadata

    sid = secrets.token_hex(16)
    state, events = SeasonState(), []
    commands: list[Any] = [
        c.CreateSeason(
            season_id=sid,
            seed=secrets.randbits(63),
            seed_salt="salt",
            mode="live",
            registration_closes_at=CREATED_AT + timedelta(hours=1),
            at=CREATED_AT,
        ),
        *(c.JoinSeason(memleket=m, at=CREATED_AT) for m in MEMLEKETS),
    ]
    for command in commands:
        result = decide(state, command)
        assert isinstance(result, list), result
        state = fold(result, state)
        events.extend(result)
    await seasons.append(sid, 0, "setup", events, EventMetadata(actor="system"))
    return sid


def loops(dsn: str, pipe: Connection, concurrency: int) -> None:
    """The order loops' process: on ("go", season, divan, offset_s) --concurrency loops append
    orders decided at the Divan's instant + offset_s until ("stop", …); answers their count."""
    quiet_json_logs()
    asyncio.run(_loops(dsn, pipe, concurrency))


class Flood:
    """One Divan's order loops: their stop, their count, and the first order's landing."""

    def __init__(self, store: Any, sid: str, divan: int, offset_s: float, loops: int) -> None:
        self.store, self.sid, self.divan, self.offset_s, self.loops = (
            store,
            sid,
            divan,
            offset_s,
            loops,
        )
        self.stop, self.first, self.written = asyncio.Event(), asyncio.Event(), 0

    async def loop(self, w: int) -> None:
        from shared.app.repository.seasons import Seasons, retrying

        seasons = Seasons(self.store)  # a fold of its own: another process's writer
        n = 0
        while not self.stop.is_set():

            async def attempt(_try: int, k: int = n) -> bool:
                return await self.order(seasons, w, k)

            if await retrying(self.sid, 1000, attempt):
                self.written += 1
                self.first.set()
            else:  # --for-the-divan, once it is resolved: nothing to order for it any more
                await asyncio.sleep(0.01)
            n += 1

    async def order(self, seasons: Any, w: int, n: int) -> bool:
        """A bey's hold on its memleket, decided at the Divan's instant + offset_s (R-4.4)."""
        from shared.domain import commands as c
        from shared.domain.decide import decide
        from shared.domain.state import Order
        from shared.eventstore import EventMetadata

        loaded = await seasons.load(self.sid)
        state = loaded.state
        bey = state.beys[(w + n * self.loops) % len(state.beys)]
        at = instant(state, self.divan) + timedelta(seconds=self.offset_s)
        divan = self.divan if self.offset_s < 0 else self.divan + 1
        result = decide(
            state, c.SubmitOrders(bey.seat, divan, (Order(bey.memleket, "hold"),), at=at)
        )
        if not isinstance(result, list):
            assert state.divan >= self.divan, result
            return False
        key = f"o/{self.divan}/{w}/{n}"
        await seasons.append(self.sid, loaded.version, key, result, EventMetadata(actor="seat"))
        return True


async def _loops(dsn: str, pipe: Connection, concurrency: int) -> None:
    from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

    pool = await create_pool(dsn, PoolSettings(min_size=concurrency, max_size=concurrency))
    store = PostgresEventStore(pool, clock=lambda: CREATED_AT)
    pipe.send("ready")
    try:
        while True:
            what, sid, divan, offset_s = await asyncio.to_thread(pipe.recv)
            if what == "done":
                return
            flood = Flood(store, sid, divan, offset_s, concurrency)
            tasks = [asyncio.create_task(flood.loop(w)) for w in range(concurrency)]
            await flood.first.wait()
            pipe.send("started")
            await asyncio.to_thread(pipe.recv)  # ("stop", …)
            flood.stop.set()
            await asyncio.gather(*tasks)
            pipe.send(flood.written)
    finally:
        await pool.close()


@contextmanager
def counted() -> Iterator[dict[str, int]]:
    """The resolver's runs of a Divan and its rebases (ADR-128), counted in this process."""
    from services.resolver import divan as resolver

    counts = {"runs": 0, "rebases": 0}
    played_divan, keeps_divan = resolver.played_divan, resolver.keeps_divan

    def runs(*a: Any, **k: Any) -> Any:
        counts["runs"] += 1
        return played_divan(*a, **k)

    def rebases(*a: Any, **k: Any) -> bool:
        kept = keeps_divan(*a, **k)
        counts["rebases"] += kept
        return kept

    resolver.played_divan, resolver.keeps_divan = runs, rebases
    try:
        yield counts
    finally:
        resolver.played_divan, resolver.keeps_divan = played_divan, keeps_divan


async def drive(dsn: str, args: argparse.Namespace) -> dict[str, list[dict[str, float]]]:
    from services.resolver import divan as resolver
    from services.resolver.divan import resolve
    from shared.app.repository.seasons import Seasons
    from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

    spawn = multiprocessing.get_context("spawn")
    ours, theirs = spawn.Pipe()
    side = spawn.Process(target=loops, args=(dsn, theirs, args.concurrency))
    side.start()
    pool = await create_pool(dsn, PoolSettings(min_size=2, max_size=4))
    figures: dict[str, list[dict[str, float]]] = {"alone": [], "rerun": [], "rebase": []}
    rebases = resolver.REBASES
    offset_s = -1.0 if args.for_the_divan else 1.0
    try:
        assert await asyncio.to_thread(ours.recv) == "ready"
        store = PostgresEventStore(pool, clock=lambda: CREATED_AT)
        seasons = Seasons(store)
        sid, divan = await new_season(seasons), 0
        for _ in range(args.rounds):
            for variant, runs in figures.items():
                if divan == 16:
                    sid, divan = await new_season(seasons), 0
                divan += 1
                loaded = await seasons.load(sid)
                now = instant(loaded.state, divan) + timedelta(seconds=2)
                if variant != "alone":
                    ours.send(("go", sid, divan, offset_s))
                    assert await asyncio.to_thread(ours.recv) == "started"
                    await asyncio.sleep(args.lead)
                resolver.REBASES = 0 if variant == "rerun" else rebases
                with counted() as counts:
                    t, cpu = time.perf_counter(), time.process_time()
                    outcome = await resolve(Seasons(store), sid, divan, RETRIES, now=now)
                    took = 1e3 * (time.perf_counter() - t), 1e3 * (time.process_time() - cpu)
                resolver.REBASES = rebases
                assert outcome == "resolved", outcome
                orders = 0
                if variant != "alone":
                    ours.send(("stop", sid, divan, offset_s))
                    orders = await asyncio.to_thread(ours.recv)
                runs.append({"ms": took[0], "cpu_ms": took[1], **counts, "orders": orders})
        ours.send(("done", "", 0, 0.0))
    finally:
        side.join(timeout=30)
        if side.is_alive():
            side.kill()
        await pool.close()
    return figures


def report(figures: dict[str, list[dict[str, float]]], args: argparse.Namespace) -> None:
    whose = "this Divan (before the lock)" if args.for_the_divan else "the next Divan (R-4.4)"
    print(
        f"divan_flood: {machine()}, load {os.getloadavg()[0]:.2f}, {args.rounds} rounds, "
        f"{args.concurrency} order loops for {whose}, lead {args.lead} s"
    )
    for variant, runs in figures.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        ms = sorted(r["ms"] for r in runs)
        print(
            f"  {variant:6}: median {med['ms']:.1f} ms (max {ms[-1]:.0f}), mean "
            f"{statistics.mean(ms):.1f} ms, CPU median {med['cpu_ms']:.1f} ms; runs "
            f"{sum(r['runs'] for r in runs):.0f} for {len(runs)} Divans (max "
            f"{max(r['runs'] for r in runs):.0f}), rebases {sum(r['rebases'] for r in runs):.0f}; "
            f"orders meanwhile, median {med['orders']:.0f}"
        )
        print(
            "          every Divan: "
            + "; ".join(
                f"{r['ms']:.0f} ms {r['runs']:.0f} runs {r['rebases']:.0f} rebases" for r in runs
            )
        )


def main(args: argparse.Namespace) -> None:
    quiet_json_logs()

    async def run() -> None:
        async with scratch_database(args.dsn, "bench_divan_flood") as dsn:
            figures = await drive(dsn, args)
        report(figures, args)

    asyncio.run(run())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=8, help="order loops")
    parser.add_argument("--lead", type=float, default=0.2, help="seconds of orders before")
    parser.add_argument(
        "--for-the-divan",
        action="store_true",
        help="the loops' orders are for the Divan being resolved (decided before its instant)",
    )
    parser.add_argument(
        "--dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    main(parser.parse_args())
