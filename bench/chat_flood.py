"""A chat flood beside a live season's commands and Divans (issue 24, ADR-107).

Run: .venv/bin/python -m bench.chat_flood [--seconds 3] [--pairs 12] [--rate 19] [--divans 1]
     [--aa] [--concurrency 8] [--streams 19] [--dsn postgresql://postgres@127.0.0.1:5432/postgres]
     [--profile FILE (the API process under cProfile: its stats, for `python -m pstats`)]

The app runs as in production, in processes of its own: `seksenbir up` (resolver, projections,
scheduler, notifications; its API idles) on a scratch database of --dsn's server and a
redis-server of the run's own, and the bench's API process beside it (`seksenbir serve`, the
one difference: the chat's per-minute limit lifted, this being a flood). The load generator is
kept out of the app's processes, and its two halves out of each other's: this process runs
the order loops, the chat side (bench/chat_load.py: the flood and the beys' streams) runs in a
process of its own, the Divan in a third. On a 2-core box a client in the app's event loop, or
order loops sharing an HTTP connection pool with the flood, would measure the client, not the
product.

One live season of 19 human beys, --streams of them with their ticketed event stream open for
the whole bench. Runs alternate, --pairs times: A (orders only), then B (the same orders, and
chat at --rate messages/s in all). Each run: --concurrency order loops (a hold for the bey's
memleket, every bey in turn) for --seconds, and --divans of the next Divans, evenly spaced,
each resolved by the resolver's own code (`resolve`, timed in its process, with the CPU it
took and its attempts: a conflict with an order's append is one more), at its instant as the
bench's API sees it too (`Shift`: its clock moved just past that instant as it is held, so
the orders from then count for the next Divan, R-4.4, as in production; `--for-the-divan`
leaves the API days before, every order an input of the Divan held). Figures per run:
orders/s and their p99, messages sent/s, p99 delivery (a send's start to the `chat_message`
notice on a member's stream; every member's notice counted; `delivered` the share that
came), the median Divan's milliseconds, and the CPU a second of the API process, the chat
side and the order loops. The pairs' ratios (B/A for orders/s, A/B for the Divan's time: 1.0
is no effect, the issue's target >= 0.9) are printed with their median, its 90 % band (a
bootstrap of the pairs) and a sign test against 0.9, and every Divan's median without and with
chat, their ratio with its 90 % band (each side's Divans resampled): a pair's runs are seconds
apart, so the box's load (other work on it) falls on both alike, and the pairs run A-B and B-A
in turn, so a drift within a pair does too. On a shared 2-core box a pair's ratio moves ±0.2
and more without any chat: many short pairs, not a few long ones (ADR-127). `--aa`: B runs
without chat too, its ratios are the noise floor. Every run holds --divans Divans; a season
has 15, so the bench joins as many live seasons as the runs need, and the order loops move to
the season whose Divan is held next (its orders race its Divans, ADR-128), while the chat and
its streams stay on the first. The API's CPU a message is B's CPU less its orders' at A's CPU
an order (`--concurrency 0`: no orders, the chat's cost alone). Figures go into
docs/benchmarks.md
with the load (`uptime`); no test asserts them.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import math
import mmap
import multiprocessing
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import httpx

from bench.api_orders import MEMLEKETS, scratch_database
from bench.chat_load import Run, chat_side
from bench.common import free_port, machine, own_redis
from bench.idle import REPO, TICKS, cpu_ticks, stack

RETRIES = 100  # a Divan's attempts against the order loops' appends


def p99(samples: list[float]) -> float:
    return statistics.quantiles(samples, n=100)[98] if len(samples) >= 2 else max(samples or [0])


def serve(port: int, profile: str | None = None, clock: str | None = None) -> None:
    """The bench's API process: `seksenbir serve`, the chat's per-minute limit lifted; with
    `profile`, run under cProfile and its stats written to that file when it stops; with
    `clock`, its clock runs that file's seconds (a float64 the bench moves) ahead of the real
    one, so that the bench can hold a Divan at its instant as the API sees it (`Shift`)."""
    from entrypoints import cli, gateway
    from shared.domain import chat

    chat.PER_MINUTE = 10**9  # type: ignore[misc]  # a flood, on purpose
    if clock is not None:
        with open(clock, "rb") as f:
            ahead = mmap.mmap(f.fileno(), 8, access=mmap.ACCESS_READ)

        def now() -> datetime:
            return datetime.now(UTC) + timedelta(seconds=struct.unpack_from("d", ahead)[0])

        assert gateway.create_app.__kwdefaults__ is not None
        gateway.create_app.__kwdefaults__["clock"] = now
    argv = ["serve", "--host", "127.0.0.1", "--port", str(port)]
    if profile is None:
        raise SystemExit(cli.main(argv))
    import cProfile
    import signal

    # uvicorn raises the SIGTERM it stopped on again once stopped: exit then, stats written
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    prof = cProfile.Profile()
    prof.enable()
    try:
        cli.main(argv)
    finally:
        prof.disable()
        prof.dump_stats(profile)


class Shift:
    """The bench API's clock, moved ahead of the real one (`serve`'s `clock`): before a Divan
    is held, to just past its instant, as production's API is when its Divan is held, so the
    orders it accepts from then on count for the next Divan (R-4.4) and the Divan's run goes
    in past them (ADR-128). Without it the API's clock is days before the Divan's instant:
    every order then counts for the Divan being held and each one landing during its run is
    a new input of it, so it is decided again (`--for-the-divan` keeps that)."""

    def __init__(self, path: Path) -> None:
        path.write_bytes(bytes(8))
        self.path = path
        with path.open("r+b") as f:
            self.ahead = mmap.mmap(f.fileno(), 8)

    def past(self, instant: float) -> None:
        struct.pack_into("d", self.ahead, 0, instant - time.time() + 0.5)


def instants(dsn: str, sid: str) -> list[float]:
    """The season's Divan instants (epoch seconds, Divan 1 first), read in the Divan's process."""
    from shared.app.repository.seasons import Seasons
    from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

    async def read() -> list[float]:
        pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=1))
        try:
            store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
            state = (await Seasons(store).load(sid)).state
            assert state.calendar is not None
            return [state.calendar.at(n).timestamp() for n in range(1, DIVANS + 1)]
        finally:
            await pool.close()

    return asyncio.run(read())


@contextlib.contextmanager
def api(
    port: int, env: dict[str, str], log: Path, profile: str | None, clock: Path | None
) -> Iterator[int]:
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.chat_flood",
                "--serve",
                str(port),
                *(["--profile", profile] if profile else []),
                *(["--clock", str(clock)] if clock else []),
            ],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the API did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.2)
        yield proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _healthy(port: int) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200
    return False


class Divan(NamedTuple):
    ms: float
    cpu_ms: float  # this process's CPU meanwhile
    tries: int  # attempts: a conflict with an order's append is one more
    load_ms: float  # in the season's reads (PostgreSQL), every attempt's
    append_ms: float  # in the appends (PostgreSQL: the statement and its commit)


def divan_ms(dsn: str, sid: str, divan: int) -> Divan:
    """Divan `divan` locked and resolved by the resolver's code in this (child) process: its
    milliseconds, the CPU milliseconds of this process meanwhile, and its attempts (each
    conflict with an order loop's append is one more: a reload and a decision again)."""
    from bench.api_orders import quiet_json_logs
    from services.resolver.divan import resolve
    from shared.app.repository.seasons import Seasons
    from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

    quiet_json_logs()

    async def run() -> Divan:
        pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=2))
        try:
            store = PostgresEventStore(pool, clock=lambda: datetime.now(UTC))
            seasons = Seasons(store)
            loaded = await seasons.load(sid)
            assert loaded.state.calendar is not None
            tries, waits = 0, {"load": 0.0, "append": 0.0}
            load, append = seasons.load, store.append

            async def counted(season_id: str) -> Any:
                nonlocal tries
                tries += 1
                t = time.perf_counter()
                try:
                    return await load(season_id)
                finally:
                    waits["load"] += 1e3 * (time.perf_counter() - t)

            async def timed(*a: Any, **k: Any) -> Any:
                t = time.perf_counter()
                try:
                    return await append(*a, **k)
                finally:
                    waits["append"] += 1e3 * (time.perf_counter() - t)

            seasons.load = counted  # type: ignore[method-assign]
            store.append = timed  # type: ignore[method-assign]
            t, cpu = time.perf_counter(), time.process_time()
            # a Divan's appends race the order loops' (each conflict is retried, as the
            # resolver's actor is redelivered): the time until it is resolved
            outcome = await resolve(
                seasons, sid, divan, now=loaded.state.calendar.at(divan), retries=RETRIES
            )
            assert outcome == "resolved", outcome
            took = 1e3 * (time.perf_counter() - t), 1e3 * (time.process_time() - cpu)
            await store.drain()  # the projections hear of the Divan at once
            return Divan(*took, tries, waits["load"], waits["append"])
        finally:
            await pool.close()

    return asyncio.run(run())


@dataclass
class Load:
    """The order loops' side (this process)."""

    client: httpx.AsyncClient
    sid: str
    beys: list[dict[str, Any]]
    pids: tuple[int, int]  # the API's and the chat side's processes
    chat: Any  # the pipe to the chat side


async def season(client: httpx.AsyncClient) -> tuple[str, list[dict[str, Any]]]:
    closes = (datetime.now(UTC) + timedelta(hours=2)).isoformat()  # bench/ may read the clock
    r = await client.post("/v1/seasons", json={"mode": "live", "registration_closes_at": closes})
    r.raise_for_status()
    sid = r.json()["season_id"]
    beys = []
    for plate in MEMLEKETS:
        j = await client.post(f"/v1/seasons/{sid}/join", json={"memleket": plate})
        j.raise_for_status()
        beys.append({**j.json(), "auth": {"Authorization": f"Bearer {j.json()['token']}"}})
    return sid, beys


async def orders(load: Load, run: Run, w: int, concurrency: int, stop: float) -> None:
    n = 0
    while time.perf_counter() < stop:
        bey = load.beys[(w + n * concurrency) % len(load.beys)]
        body = {"orders": [{"province": bey["memleket"], "kind": "hold"}]}
        t = time.perf_counter()
        r = await load.client.post(f"/v1/seasons/{load.sid}/orders", json=body, headers=bey["auth"])
        if r.status_code < 300:
            run.orders.append(1e3 * (time.perf_counter() - t))
        n += 1


async def one_run(load: Load, args: argparse.Namespace, chat: bool, divans: Any, count: int) -> Run:
    """One run: its figures over the order loops' own span (the flood's sends still in flight
    when they stop, and the Divans, are waited for after it). `count` Divans, evenly spaced,
    one after the other (`--concurrency 0`: no orders, the chat's cost alone)."""
    run = Run()

    async def beside() -> None:
        for k in range(count):
            await asyncio.sleep(max(0.0, started + (k + 1) * span - time.perf_counter()))
            run.divans.append(await asyncio.wrap_future(divans()))

    pids = (*load.pids, os.getpid())
    ticks = [cpu_ticks(p) or 0 for p in pids]
    started = time.perf_counter()
    stop = started + args.seconds
    span = args.seconds / (count + 1)
    divan_task = asyncio.create_task(beside())
    if chat:
        load.chat.send(("flood", stop))  # perf_counter is the system's monotonic clock
    await asyncio.gather(
        *(orders(load, run, w, args.concurrency, stop) for w in range(args.concurrency)),
        asyncio.sleep(args.seconds),
    )
    run.seconds = time.perf_counter() - started
    spent = [(cpu_ticks(p) or 0) - t for p, t in zip(pids, ticks, strict=True)]
    run.cpu = tuple(t / TICKS / run.seconds for t in spent)
    if chat:
        run.started, run.members = await asyncio.to_thread(load.chat.recv)
    await divan_task
    return run


def figures(heard: dict[int, list[float]], run: Run) -> dict[str, float]:
    delivered = [
        1e3 * (arrived - run.started[m]) for m in run.started for arrived in heard.get(m, [])
    ]
    expected = sum(run.members.values())
    return {
        "orders_per_s": len(run.orders) / run.seconds,
        "order_p99_ms": p99(run.orders),
        "messages_per_s": len(run.started) / run.seconds,
        "delivery_p99_ms": p99(delivered),
        "delivered": len(delivered) / expected if expected else 1.0,
        **{
            f"divan_{k}": statistics.median(getattr(d, k) for d in run.divans)
            if run.divans
            else float("nan")
            for k in Divan._fields
        },
        "api_cpu": run.cpu[0],
        "chat_cpu": run.cpu[1],
        "orders_cpu": run.cpu[2],
    }


Figures = tuple[dict[str, float], list[float]]  # a run's figures, its Divans' milliseconds
DIVANS = 15  # a season has 16 Divans: the bench resolves at most the first 15


def divan_seasons(args: argparse.Namespace) -> int:
    """The live seasons whose Divans the runs hold: every run holds --divans, a season has
    DIVANS to give (the first season, the chat's, included)."""
    divans: int = 2 * args.pairs * args.divans
    return max(1, -(-divans // DIVANS))


async def drive(
    base: str, dsn: str, api_pid: int, args: argparse.Namespace, shift: Shift | None
) -> list[Figures]:
    spawn = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=spawn) as divans:
        divans.submit(machine).result()  # started and imported before any run
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            sid, beys = await season(client)
            held = [(sid, beys)] + [await season(client) for _ in range(divan_seasons(args) - 1)]
            at = {s: divans.submit(instants, dsn, s).result() for s, _ in held} if shift else {}
            ours, theirs = spawn.Pipe()
            side = spawn.Process(target=chat_side, args=(theirs, base, sid, beys, args))
            side.start()
            assert side.pid is not None
            try:
                assert await asyncio.to_thread(ours.recv) == "ready"
                load = Load(client, sid, beys, (api_pid, side.pid), ours)
                runs = []
                numbers = iter([(s, n) for s, _ in held for n in range(1, DIVANS + 1)])

                def resolved() -> concurrent.futures.Future[Divan]:
                    s, n = next(numbers)
                    if s != load.sid:  # the order loops go where the Divans are held next
                        load.sid, load.beys = s, dict(held)[s]
                    if shift:  # the API's clock past the Divan's instant as it is held
                        shift.past(at[s][n - 1])
                    return divans.submit(divan_ms, dsn, s, n)

                for p in range(args.pairs):
                    count = args.divans
                    # A then B, then B then A: a drift of the box's load within a pair (or the
                    # season's growing streams) falls on each side in turn; `--aa`: B takes
                    # no chat either (the noise floor)
                    pair = {}
                    for side_b in (False, True) if p % 2 == 0 else (True, False):
                        chat = side_b and not args.aa
                        pair[side_b] = await one_run(load, args, chat, resolved, count)
                    runs += [pair[False], pair[True]]
                ours.send(("done", 0.0))
                heard = await asyncio.to_thread(ours.recv)
            finally:
                side.join(timeout=30)
                if side.is_alive():
                    side.kill()
            return [(figures(heard, r), [d.ms for d in r.divans]) for r in runs]


def message_ms(a: dict[str, float], b: dict[str, float]) -> float:
    """The API's CPU milliseconds a message in run b, its orders' CPU taken out at run a's
    CPU an order (`--concurrency 0`: b's CPU past a's idle one)."""
    if a["orders_per_s"] > 0:
        orders = b["orders_per_s"] * a["api_cpu"] / a["orders_per_s"]
    else:
        orders = a["api_cpu"]
    return 1e3 * (b["api_cpu"] - orders) / max(b["messages_per_s"], 1e-9)


BOOTSTRAP = 10_000  # resamples of the pairs for a median's band
TARGET = 0.9  # issue 24: within 10 % of the run without chat


def band(ratios: list[float], level: float = 0.9) -> tuple[float, float, float]:
    """The median of the pairs' ratios and its `level` band: the percentile bootstrap of the
    median (the pairs resampled with replacement, a fixed seed: the same figures give the
    same band)."""
    rng = random.Random(24)
    medians = sorted(
        statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(BOOTSTRAP)
    )
    tail = (1 - level) / 2
    low, high = medians[int(tail * BOOTSTRAP)], medians[int((1 - tail) * BOOTSTRAP) - 1]
    return statistics.median(ratios), low, high


def ratio_band(a: list[float], b: list[float], level: float = 0.9) -> tuple[float, float, float]:
    """median(a) / median(b) and its `level` band: the percentile bootstrap of the ratio, each
    side's Divans resampled with replacement on its own (a fixed seed, as `band`)."""
    rng = random.Random(24)
    ratios = sorted(
        statistics.median(rng.choices(a, k=len(a)))
        / max(statistics.median(rng.choices(b, k=len(b))), 1e-9)
        for _ in range(BOOTSTRAP)
    )
    tail = (1 - level) / 2
    low, high = ratios[int(tail * BOOTSTRAP)], ratios[int((1 - tail) * BOOTSTRAP) - 1]
    return statistics.median(a) / max(statistics.median(b), 1e-9), low, high


def sign_p(ratios: list[float], line: float) -> float:
    """One-sided sign test against "the median ratio is `line` or below": the chance of at
    least this many pairs at or above the line if each pair were a coin toss at the line."""
    n, above = len(ratios), sum(r >= line for r in ratios)
    return sum(math.comb(n, k) for k in range(above, n + 1)) / float(1 << n)


def verdict(name: str, ratios: list[float]) -> None:
    """A pair ratio's figures: every pair, the median with its 90 % band, the spread (the
    noise: the A/A pairs of `--aa` give the floor), and the sign test against the target."""
    ratios = [r for r in ratios if math.isfinite(r)]
    if not ratios:
        return
    print(f"  {name} per pair: " + ", ".join(f"{x:.2f}" for x in ratios))
    if len(ratios) < 2:
        return
    mid, low, high = band(ratios)
    spread = statistics.quantiles(ratios, n=4)
    print(
        f"    median {mid:.2f} (90 % band {low:.2f}–{high:.2f}, {len(ratios)} pairs); "
        f"pairs' quartiles {spread[0]:.2f}–{spread[2]:.2f}; at or above {TARGET}: "
        f"{sum(r >= TARGET for r in ratios)} of {len(ratios)} (sign test: p "
        f"{sign_p(ratios, TARGET):.3f} that the median is {TARGET} or below)"
    )


def report(measured: list[Figures], args: argparse.Namespace) -> None:
    b_name = "B without chat (A/A)" if args.aa else "B with chat"
    print(
        f"chat_flood: {machine()}, load {os.getloadavg()[0]:.2f}, {args.pairs} pairs of "
        f"{args.seconds} s runs (AB, BA in turn), {args.concurrency} order loops, "
        f"{'no chat (A/A: the noise floor)' if args.aa else f'chat at {args.rate}/s'}, "
        f"{args.streams} ticketed streams open, {args.divans} Divans a run from "
        f"{divan_seasons(args)} live seasons (the order loops on the one held), "
        + (
            "orders for the Divan held (--for-the-divan)"
            if args.for_the_divan
            else "the API's clock past each Divan's instant as it is held"
        )
    )
    runs = [r for r, _ in measured]
    for i, r in enumerate(runs):
        name = b_name if i % 2 else "A without chat"
        print(f"  {name:20s}: " + ", ".join(f"{k} {v:.2f}" for k, v in r.items()))
    pairs = list(zip(runs[::2], runs[1::2], strict=True))
    verdict(
        "command throughput B/A",
        [b["orders_per_s"] / a["orders_per_s"] for a, b in pairs if a["orders_per_s"] > 0],
    )
    verdict(
        "Divan time A/B (the pair's median Divan)",
        [a["divan_ms"] / b["divan_ms"] for a, b in pairs],
    )
    without = [d for _, ds in measured[::2] for d in ds]
    with_chat = [d for _, ds in measured[1::2] for d in ds]
    if without and with_chat:
        mid, low, high = ratio_band(without, with_chat)
        print(
            f"  every Divan: median {statistics.median(without):.1f} ms in A ({len(without)}), "
            f"{statistics.median(with_chat):.1f} ms in B ({len(with_chat)}): ratio "
            f"{mid:.2f} (90 % band {low:.2f}–{high:.2f}, each side's Divans resampled)"
        )
    if not args.aa:
        cost = [message_ms(a, b) for a, b in pairs]
        print(
            "  the API's CPU ms a message per pair: "
            + ", ".join(f"{x:.2f}" for x in cost)
            + f"; median {statistics.median(cost):.2f}"
        )


def main(args: argparse.Namespace) -> None:
    env = {
        "SEKSENBIR_COMMANDS_PER_MINUTE": "0",
        "SEKSENBIR_SEASONS_PER_MINUTE": "0",
        "SEKSENBIR_JOINS_PER_MINUTE": "0",
        "SEKSENBIR_READS_PER_MINUTE": "0",
        "SEKSENBIR_READS_PER_TOKEN_PER_MINUTE": "0",
        "SEKSENBIR_AUTH_FAILURES_PER_MINUTE": "0",
        "SEKSENBIR_STREAMS_PER_CLIENT": "100",
    }
    folder = Path(tempfile.mkdtemp(prefix="seksenbir-bench-chat-"))
    port = args.port or free_port()

    async def database() -> None:
        async with scratch_database(args.dsn, "bench_chat") as dsn:
            await asyncio.to_thread(stacked, dsn)

    def stacked(dsn: str) -> None:
        with own_redis() as redis_url, stack(dsn, redis_url, free_port(), folder / "up.log", env):
            api_env = {
                **os.environ,
                **env,
                "SEKSENBIR_PG_DSN": dsn,
                "SEKSENBIR_REDIS_URL": redis_url,
            }
            api_env["PYTHONPATH"] = str(REPO)
            shift = None if args.for_the_divan else Shift(folder / "clock")
            clock = shift.path if shift else None
            with api(port, api_env, folder / "api.log", args.profile, clock) as pid:
                runs = asyncio.run(drive(f"http://127.0.0.1:{port}", dsn, pid, args, shift))
        report(runs, args)

    asyncio.run(database())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--pairs", type=int, default=12, help="A/B pairs (without, with chat)")
    parser.add_argument(
        "--aa", action="store_true", help="B without chat too: A/A pairs, the noise floor"
    )
    parser.add_argument("--rate", type=float, default=19.0, help="chat messages a second in all")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--streams", type=int, default=19, help="beys with their stream open")
    parser.add_argument(
        "--divans", type=int, default=1, help="Divans a run, evenly spaced, while they last"
    )
    parser.add_argument("--drain", type=float, default=1.0, help="seconds for the last notices")
    parser.add_argument("--port", type=int, default=0, help="the bench API's port (0: a free one)")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the API process's own
    parser.add_argument("--clock", help=argparse.SUPPRESS)  # its clock's file (Shift)
    parser.add_argument(
        "--for-the-divan",
        action="store_true",
        help="the API's clock left days before the Divans: the orders count for the Divan held",
    )
    parser.add_argument(
        "--profile", help="the API process under cProfile, its stats written to this file"
    )
    parser.add_argument(
        "--dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", "postgresql://postgres@127.0.0.1:5432/postgres"),
    )
    parsed = parser.parse_args()
    if parsed.pairs < 1 or parsed.divans < 0:
        parser.error("--pairs at least 1, --divans at least 0")
    if parsed.serve is not None:
        serve(parsed.serve, parsed.profile, parsed.clock)
    main(parsed)
