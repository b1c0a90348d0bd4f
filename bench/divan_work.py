"""One trial Divan's work in each process of the stack, in process, against a real PostgreSQL
and Redis: the API's request, the projector's two batches, the resolver's message (issue 27).

Run: .venv/bin/python -m bench.divan_work [--seasons 4] [--count ROLE] [--dsn …] [--redis …]

It plays --seasons trial seasons (one human bey, 18 computer beys, seeds 11, 12, …) Divan by
Divan, 16 each, in one process and one event loop, as the stack's processes do with one
resolver and one projections process: for each Divan n, (api) the season caught up with
what the resolver appended (`Seasons.load`) and the bey's DivanRequested appended; (projector)
the request's batch projected (`Projector.woken`); (resolver) `divan.resolve(season, n)`, its
load, turn, resolution and append; (projector) the resolution's batch projected. Each role
has a store (and a pool of one connection) of its own, so its PostgreSQL backend's CPU is its
own; production's JSON log lines are written to /dev/null.

It prints, per role, the client's CPU and its backend's CPU a Divan (process time and
/proc/<backend>/stat; the box's load moves both) and the events and rows a Divan. For counts
the box's load does not move: `--count ROLE` (api, resolver, projector) runs that role's
steps inside one `functools.reduce` (each step driven by `run_until_complete`, after
`gc.collect(); gc.freeze()` and a warm-up season) so that callgrind counts them alone:

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=functools_reduce \\
        --callgrind-out-file=/dev/null .venv/bin/python -m bench.divan_work --count resolver

and "Collected" over the Divans it prints is one Divan's instructions in that process (its
Python client only: PostgreSQL and redis-server are processes of their own).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import gc
import os
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as aioredis

from bench.api_orders import DEFAULT_DSN, quiet_json_logs, scratch_database
from bench.common import redis_given_or_own
from services.projections.projector import Projector
from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.simulate import must
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import EventMetadata, PoolSettings, PostgresEventStore, create_pool

ROLES = ("api", "resolver", "projector")
WORKER_YOUNG = 7_000  # the workers' youngest threshold (entrypoints.bootstrap, ADR-135)
TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
Step = tuple[str, Callable[[], Awaitable[object]]]


def clock() -> datetime:
    return datetime(2026, 12, 1, tzinfo=UTC)


class Role:
    """One process's share: its store on a pool of one connection, and its CPU."""

    def __init__(self, name: str, pool: asyncpg.Pool, backend: int) -> None:
        self.name, self.pool, self.backend = name, pool, backend
        self.store = PostgresEventStore(pool, clock=clock)
        self.cpu = 0.0  # seconds of this process's CPU in the role's steps
        self.backend_ticks = 0

    async def timed(self, step: Awaitable[object]) -> None:
        b0, t0 = _ticks(self.backend), time.process_time()
        await step
        self.cpu += time.process_time() - t0
        self.backend_ticks += _ticks(self.backend) - b0


def _ticks(pid: int) -> int:
    """utime + stime of a process (a local PostgreSQL backend), in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


async def role(name: str, dsn: str) -> Role:
    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=1))
    async with pool.acquire() as conn:
        backend = await conn.fetchval("SELECT pg_backend_pid()")
    return Role(name, pool, backend)


async def new_season(seasons: Seasons, season_id: str, seed: int) -> int:
    """A trial season with one human bey (seat 1, memleket 6): its setup appended."""
    state, events = must(SeasonState(), c.CreateSeason(season_id=season_id, seed=seed))
    state, more = must(state, c.JoinSeason(memleket=6))
    state, closed = must(state, c.CloseRegistration())
    await seasons.append(season_id, 0, "setup", [*events, *more, *closed], SYSTEM)
    return 1


SYSTEM = EventMetadata(actor="system")


class Stack:
    """The three roles' objects, as one resolver and one projections process hold them."""

    def __init__(self, roles: dict[str, Role], redis: aioredis.Redis, prefix: str) -> None:
        self.roles = roles
        self.api = Seasons(roles["api"].store)
        self.resolver = Seasons(roles["resolver"].store)
        self.projector = Projector(roles["projector"].store, redis, prefix)
        self.events = 0

    def steps(self, season_id: str, seat: int, n: int) -> list[Step]:
        """Divan n's steps in the order the stack runs them, each with its role."""

        async def request() -> None:
            loaded = await self.api.load(season_id)
            events = decide(loaded.state, c.RequestDivan(seat=seat, divan=n))
            assert isinstance(events, list), events
            meta = EventMetadata(actor="seat", seat=str(seat), command_id=f"request/{n}")
            await self.api.append(season_id, loaded.version, f"request/{n}", events, meta)

        async def resolved() -> None:
            before = self.resolver.peek(season_id)
            outcome = await resolve(self.resolver, season_id, n)
            assert outcome == "resolved", outcome
            after = self.resolver.peek(season_id)
            if before is not None and after is not None:  # the request's event, then its own
                self.events += after.version - before.version - 1

        async def projected() -> None:
            await self.projector.woken(season_id)

        def drained(name: str, step: Callable[[], Awaitable[None]]) -> Step:
            async def run() -> None:  # its NOTIFY sent within its own step
                await step()
                await self.roles[name].store.drain()

            return name, run

        return [
            drained("api", request),
            drained("projector", projected),
            drained("resolver", resolved),
            drained("projector", projected),
        ]


async def season_steps(stack: Stack, season_id: str, seed: int) -> list[Step]:
    await new_season(stack.api, season_id, seed)
    await stack.projector.woken(season_id)  # the season's first projection (not a Divan's)
    await stack.resolver.load(season_id)
    return [s for n in range(1, DIVANS + 1) for s in stack.steps(season_id, 1, n)]


def run(args: argparse.Namespace) -> None:
    quiet_json_logs()
    if args.orders_twice:
        orders_twice()
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    database = scratch_database(args.dsn, "bench_divan_work")
    dsn = loop.run_until_complete(database.__aenter__())
    redis = aioredis.Redis.from_url(args.redis)
    prefix = f"bdw{secrets.token_hex(3)}"
    roles: dict[str, Role] = {}
    try:
        roles.update((name, loop.run_until_complete(role(name, dsn))) for name in ROLES)
        play(args, Stack(roles, redis, prefix), loop)
    finally:
        for r in roles.values():
            loop.run_until_complete(r.store.drain())
            loop.run_until_complete(r.pool.close())
        loop.run_until_complete(_clean(redis, prefix))
        loop.run_until_complete(database.__aexit__(None, None, None))
        loop.close()


async def _clean(redis: aioredis.Redis, prefix: str) -> None:
    keys = [k async for k in redis.scan_iter(match=f"{prefix}:*", count=1000)]
    for start in range(0, len(keys), 500):
        await redis.delete(*keys[start : start + 500])
    await redis.aclose()


def orders_twice() -> None:
    """A measurement of what an event costs, not a product's mode (--orders-twice): the
    resolver writes each computer bey's OrdersSubmitted twice, the same event again right after
    it (a set that replaces itself: every fold, view and outcome stays the same), so against a
    plain run each role pays for ~17 more events a Divan of that size and nothing else."""
    from services.resolver import divan

    played = divan.played_divan

    def twice(state: SeasonState, *a: Any, **k: Any) -> tuple[list[ev.Event], SeasonState | None]:
        events, after = played(state, *a, **k)
        doubled: list[ev.Event] = []
        again: list[ev.Event] = []
        for e in events:
            doubled.append(e)
            if isinstance(e, ev.OrdersSubmitted):
                doubled.append(e)
                again.append(e)
        # each copy folded once, as the turn folds what it makes (ADR-135): the same state
        return doubled, fold(again, after) if after is not None else None

    divan.played_divan = twice


def play(args: argparse.Namespace, stack: Stack, loop: asyncio.AbstractEventLoop) -> None:
    """A warm-up season, then --seasons seasons' Divans, timed by role or one role counted."""
    for _role, step in loop.run_until_complete(season_steps(stack, "warm", 10)):
        loop.run_until_complete(step())  # imports, caches, the first statements
    stack.events = 0
    steps: list[Step] = []
    for k in range(args.seasons):
        steps += loop.run_until_complete(season_steps(stack, f"s{k}", 11 + k))
    gc.collect()
    gc.freeze()
    gc.set_threshold(WORKER_YOUNG, *gc.get_threshold()[1:])
    divans = args.seasons * DIVANS
    if args.count:
        counted(args.count, steps, loop)
    elif args.profile:
        profiled(args.profile, steps, loop)
    else:
        for name, step in steps:
            loop.run_until_complete(stack.roles[name].timed(step()))
    print(
        f"{divans} Divans of {args.seasons} trial seasons, {stack.events / divans:.1f} events a"
        f" Divan written by the resolver; load average {os.getloadavg()[0]:.1f}"
    )
    if args.count:
        print(f"counted: the {args.count}'s steps of {divans} Divans (Collected / {divans})")
        return
    for name in ROLES:
        r = stack.roles[name]
        print(
            f"  {name:9}: CPU {1000 * r.cpu / divans:6.2f} ms a Divan,"
            f" its PostgreSQL backend {TICK_MS * r.backend_ticks / divans:5.2f} ms"
        )


def counted(name: str, steps: list[Step], loop: asyncio.AbstractEventLoop) -> None:
    """Every step in order; `name`'s inside one functools.reduce (callgrind's toggle: each
    driven by run_until_complete there), the other roles' between them, outside it."""
    ahead: list[Callable[[], Awaitable[object]]] = []
    for role_, step in steps:
        if role_ != name:
            ahead.append(step)
            continue
        for other in ahead:
            loop.run_until_complete(other())
        ahead = []
        functools.reduce(lambda _, s: loop.run_until_complete(s()), [step], None)
    for other in ahead:
        loop.run_until_complete(other())


def profiled(name: str, steps: list[Step], loop: asyncio.AbstractEventLoop) -> None:
    """Every step in order, `name`'s under cProfile: where that role's time goes, by function
    (cProfile's own cost inflates calls; read it for shares, not totals)."""
    import cProfile
    import pstats

    prof = cProfile.Profile()
    for role_, step in steps:
        if role_ == name:
            prof.enable()
            loop.run_until_complete(step())
            prof.disable()
        else:
            loop.run_until_complete(step())
    pstats.Stats(prof).sort_stats(os.environ.get("BENCH_SORT", "cumulative")).print_stats(45)


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument(
        "--dsn",
        default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN).rsplit("/", 1)[0] + "/postgres",
    )
    p.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    p.add_argument("--seasons", type=int, default=4)
    p.add_argument("--count", choices=ROLES, default=None)
    p.add_argument("--profile", choices=ROLES, default=None)
    p.add_argument("--orders-twice", action="store_true", help="see orders_twice: per event")
    return p.parse_args()


if __name__ == "__main__":
    _args = parse()
    with redis_given_or_own(_args.redis) as _args.redis:
        run(_args)
