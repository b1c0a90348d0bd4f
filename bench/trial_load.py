"""Concurrent trial seasons asking for Divans back to back through `seksenbir up` (issue 27).

Run: .venv/bin/python -m bench.trial_load [--seasons 1,10,100] [--seconds 30]
     [--resolvers 2] [--projectors 2] [--port 0] [--dsn …]

It starts `seksenbir up` (bench.idle's `stack`: a scratch PostgreSQL database, a redis-server
of its own) with SEKSENBIR_RESOLVER_PROCESSES and SEKSENBIR_PROJECTION_PROCESSES set as given,
and the per-address request limits off (one address stands for every player), then for each
count N of --seasons plays N trial seasons at once for --seconds, think time 0:
each season POSTs its next Divan, waits until the DivanResolved is committed (woken by the
store's NOTIFY naming the season, then one query for all the seasons the NOTIFYs named:
`Waits`), and asks again at once; a season that has
played its 16 Divans is replaced by a new one (its creation is not timed). It prints, per N,
the Divans resolved per second and p50/p90/p99/max of request -> resolved, as the client saw
it (POST sent -> its DivanResolved seen committed), and where the box's CPU went: utime+stime
(/proc/<pid>/stat) over the count of every process of the stack by role (api, resolver,
projections, scheduler, notify, up), of the database's backends (pg_stat_activity; the bench's
own connections are "pg (bench)"), PostgreSQL's server-wide processes (walwriter, checkpointer …:
shared with anything else on the server), the redis-server and the bench's client, in ms of CPU
per Divan resolved, the rows of the event log every backend read per Divan (PostgreSQL's
table statistics: a count the box's load does not move) and the commands the stack's
redis-server ran per Divan (INFO commandstats, another such count; ADR-150), and where the wait's
spread comes from (`spread`, ADR-164: within a quarter second of sending, between, overtaken).
Target (issue 27): p99 <= 1 s at 100.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import NamedTuple

import asyncpg
import msgspec
import redis

from bench import box
from bench.api_orders import DEFAULT_DSN, MEMLEKETS, scratch_database
from bench.chat_load import Wire
from bench.common import free_port, own_redis
from bench.divan_latency import REQUESTED, RESOLVED, pct
from bench.idle import TICKS, cpu_ticks, name, stack, tree
from shared.domain.state import DIVANS
from shared.eventstore import NOTIFY_CHANNEL, parse_wakeup

JSON = {"content-type": "application/json"}


class Waits:
    """Seasons waiting for their Divan's DivanResolved, and the one checker that finds it.

    A player registers its season (with the version of the last DivanResolved it saw) before
    its POST; the store's NOTIFY after every commit names the seasons it committed to, and the
    checker asks PostgreSQL once, for every waiting season the NOTIFYs named since its last
    question, whether a DivanResolved newer than that version is committed; the player is woken
    with its version. A NOTIFY is sent after its commit, so the question sent once it is heard
    sees the commit: each Divan is seen at the first question after its NOTIFY, as before,
    but one query serves every season named (not one per season and wake-up).
    """

    SQL = (
        "SELECT w.sid, (SELECT max(e.version) FROM events e WHERE e.season_id = w.sid"
        " AND e.version > w.v AND e.type = $3) FROM unnest($1::text[], $2::bigint[]) AS w(sid, v)"
    )

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.waiting: dict[str, tuple[int, asyncio.Future[int]]] = {}
        self.named: set[str] = set()
        self.heard_one = asyncio.Event()

    def heard(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        for season_id in parse_wakeup(payload)[1]:
            if season_id in self.waiting:
                self.named.add(season_id)
                self.heard_one.set()

    def wait(self, season_id: str, after: int) -> asyncio.Future[int]:
        """A future for the version of the season's next DivanResolved after `after`."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.waiting[season_id] = (after, done)
        return done

    async def check(self) -> None:
        """The checker: one question for every waiting season named since the last."""
        while True:
            await self.heard_one.wait()
            self.heard_one.clear()
            named = [s for s in self.named if s in self.waiting]
            self.named.clear()
            if not named:
                continue
            rows = await self.conn.fetch(
                self.SQL, named, [self.waiting[s][0] for s in named], RESOLVED
            )
            for sid, version in rows:
                if version is not None and (entry := self.waiting.get(sid)) is not None:
                    del self.waiting[sid]
                    if not entry[1].done():
                        entry[1].set_result(version)


@contextlib.asynccontextmanager
async def watching(dsn: str) -> AsyncIterator[tuple[asyncpg.Connection, Waits]]:
    settings = {"application_name": "trial_load"}
    conn = await asyncpg.connect(dsn, server_settings=settings)
    asking = await asyncpg.connect(dsn, server_settings=settings)
    waits = Waits(asking)
    await conn.add_listener(NOTIFY_CHANNEL, waits.heard)
    checker = asyncio.create_task(waits.check())
    try:
        yield conn, waits  # the listening one: free for the meter's own questions
    finally:
        checker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await checker
        await conn.close()
        await asking.close()


async def new_season(wire: Wire, i: int) -> tuple[str, dict[str, str]]:
    body = msgspec.json.encode({"memleket": MEMLEKETS[i % len(MEMLEKETS)]})
    status, answer = await wire.post("/v1/seasons", JSON, body)
    if status != 201:
        raise RuntimeError(f"a new season: {status} {answer!r}")
    made = msgspec.json.decode(answer)
    return made["season_id"], {**JSON, "authorization": f"Bearer {made['token']}"}


class Seen(NamedTuple):
    """One Divan as the client saw it: its season and number, when its POST was sent (the
    wall clock, to set beside the events' recorded_at) and how long until it was seen."""

    season_id: str
    divan: int
    sent: float  # time.time() at the POST
    seconds: float  # POST sent -> its DivanResolved seen committed


async def player(wire: Wire, waits: Waits, i: int, until: float) -> list[Seen]:
    """One seat of the load: Divan after Divan until `until`; the Divans it saw.

    The POSTs are plain HTTP/1.1 on kept-alive connections (bench.chat_load's `Wire`), not
    httpx: the client shares the box's 2 cores with the stack it measures, and httpx cost
    it more CPU a Divan than the API's own handling of the request."""
    out: list[Seen] = []
    while time.perf_counter() < until:
        sid, auth = await new_season(wire, i)
        seen = 0  # the version of the last DivanResolved seen (none yet)
        for n in range(1, DIVANS + 1):
            if time.perf_counter() >= until:
                break
            resolved = waits.wait(sid, seen)  # before the POST: its NOTIFY may come first
            sent, t0 = time.time(), time.perf_counter()
            path = f"/v1/seasons/{sid}/divans"
            status, answer = await wire.post(path, auth, b'{"divan":%d}' % n)
            if status != 202:
                raise RuntimeError(f"Divan {n}: {status} {answer!r}")
            async with asyncio.timeout(120):
                seen = await resolved
            out.append(Seen(sid, n, sent, time.perf_counter() - t0))
        waits.waiting.pop(sid, None)
    return out


ROLES = (
    ("resolver_worker", "resolver"),
    ("projections_worker", "projections"),
    ("notify_worker", "notify"),
    (" serve ", "api"),
    (" scheduler", "scheduler"),
)


def role(cmdline: str) -> str:
    for needle, label in ROLES:
        if needle in f"{cmdline} ":
            return label
    return "up" if " up " in f"{cmdline} " else cmdline[:40]


class CpuMeter:
    """utime+stime by role between `start` and `stop` (processes that end in between are lost)."""

    def __init__(self, stack_pid: int, redis_url: str) -> None:
        self.stack_pid = stack_pid
        self.redis_url = redis_url
        self.redis_port = redis_url.rsplit(":", 1)[1].split("/", maxsplit=1)[0]
        self.start_ticks: dict[int, tuple[str, int]] = {}
        self.start_calls: dict[str, int] = {}
        self.calls: dict[str, int] = {}  # Redis commands by name between `start` and `stop`

    def redis_calls(self) -> dict[str, int]:
        """The stack's redis-server's commands so far by name (INFO commandstats; a script's
        own commands are counted under their names too, beside its EVALSHA)."""
        client = redis.Redis.from_url(self.redis_url)
        try:
            stats = client.info("commandstats")
        finally:
            client.close()
        return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}

    async def roles(self, conn: asyncpg.Connection) -> dict[int, str]:
        out = {pid: role(name(pid)) for pid in tree(self.stack_pid)}
        mine = {conn.get_server_pid()}
        rows = await conn.fetch(
            "SELECT pid, datname = current_database() AS ours, backend_type, application_name "
            "FROM pg_stat_activity"
        )
        for r in rows:
            if r["ours"]:
                bench = r["application_name"] == "trial_load" or r["pid"] in mine
                out[r["pid"]] = "pg (bench)" if bench else "pg backends"
            elif r["backend_type"] != "client backend":
                out[r["pid"]] = "pg server-wide"
        for entry in filter(str.isdigit, os.listdir("/proc")):
            title = name(int(entry))
            if "redis-server" in title and title.endswith(f":{self.redis_port}"):
                out[int(entry)] = "redis-server"
        out[os.getpid()] = "bench client"
        return out

    async def start(self, conn: asyncpg.Connection) -> None:
        self.start_calls = self.redis_calls()
        self.start_ticks = {
            pid: (label, t)
            for pid, label in (await self.roles(conn)).items()
            if (t := cpu_ticks(pid)) is not None
        }

    async def stop(self, conn: asyncpg.Connection) -> dict[str, float]:
        """CPU seconds by role since `start`; processes new since then count from zero."""
        now = self.redis_calls()
        self.calls = {k: n - self.start_calls.get(k, 0) for k, n in now.items()}
        out: dict[str, float] = {}
        for pid, label in (await self.roles(conn)).items():
            t1 = cpu_ticks(pid)
            if t1 is None:
                continue
            t0 = self.start_ticks.get(pid, (label, 0))[1] if pid in self.start_ticks else 0
            out[label] = out.get(label, 0.0) + (t1 - t0) / TICKS
        return out


# Rows of the event log read by every backend (index and sequential scans of its partitions):
# a figure the box's load does not move. A resolver whose fold is a Divan behind reads the other
# process's ~40 events again (ADR-135, ADR-136). PostgreSQL flushes a busy backend's counts
# about once a second, so the window is the run's within a second at each end.
EVENTS_READ = (
    "SELECT coalesce(sum(coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0)), 0)::bigint"
    " FROM pg_stat_user_tables WHERE relname ~ '^events_p[0-9]+$'"
)


STAMPS = (
    "SELECT season_id, type, recorded_at FROM events WHERE season_id = ANY($1::text[])"
    " AND type = ANY($2::text[]) ORDER BY season_id, version"
)


WINDOW_S = 0.25  # `spread`: Divans sent within this long of each other were asked together
OVERTAKE_NEXT = 40  # `spread`: each Divan against the next this many requested after it


def spread(waits: list[tuple[float, float]], runs: list[tuple[float, float]]) -> str:
    """Where the wait's spread comes from (ADR-164), in figures the box's pace moves less than
    p99: `waits` are (sent, wait) and `runs` (requested, resolved) stamps, in seconds.

    - the wait's standard deviation split into *within* (about the mean of the Divans sent in
      the same WINDOW_S: asked together, waited differently: the order they were served in)
      and *between* (the windows' means moving: the box's and the stack's pace over time);
    - *overtaken*: of each Divan and the next OVERTAKE_NEXT requested after it, the share of
      pairs resolved the other way round (FIFO service: 0)."""
    if not waits:
        return "      spread: no Divan"
    t0 = min(t for t, _ in waits)
    windows: dict[int, list[float]] = {}
    for t, w in waits:
        windows.setdefault(int((t - t0) / WINDOW_S), []).append(w)
    within = sum((w - statistics.fmean(ws)) ** 2 for ws in windows.values() for w in ws)
    within /= len(waits)
    total = statistics.pvariance([w for _, w in waits])
    ordered = sorted(runs)
    pairs = overtaken = 0
    for i, (_, done) in enumerate(ordered):
        for _, later_done in ordered[i + 1 : i + 1 + OVERTAKE_NEXT]:
            pairs += 1
            overtaken += later_done < done
    mean = statistics.fmean(w for _, w in waits)
    p99 = pct([w for _, w in waits], 0.99)
    return (
        f"      spread: p99/mean {p99 / mean:.2f}; sd {1000 * total**0.5:.0f} ms, within "
        f"{WINDOW_S:g} s of sending {1000 * within**0.5:.0f}, between "
        f"{1000 * max(total - within, 0.0) ** 0.5:.0f}; overtaken "
        f"{100 * overtaken / max(pairs, 1):.1f} % of pairs (a Divan and the next "
        f"{OVERTAKE_NEXT} requested)"
    )


async def phases(conn: asyncpg.Connection, seen: list[Seen], dump: Path | None = None) -> list[str]:
    """Where the wait goes, from the events' recorded_at (the API's and the resolver's clocks,
    this box's): POST sent -> DivanRequested recorded (the API), -> DivanResolved recorded (the
    queue, the fold and the run), -> seen committed (the commit, its NOTIFY, the client); and
    the wait by Divan number. A trial season's k-th request and outcome are its Divan k."""
    rows = await conn.fetch(STAMPS, sorted({x.season_id for x in seen}), [REQUESTED, RESOLVED])
    at: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        at.setdefault((r["season_id"], r["type"]), []).append(r["recorded_at"].timestamp())
    out: list[str] = []
    api: list[float] = []
    run: list[float] = []
    back: list[float] = []
    lines: list[bytes] = []
    waits: list[tuple[float, float]] = []
    stamped: list[tuple[float, float]] = []
    for x in seen:
        asked, done = at.get((x.season_id, REQUESTED), []), at.get((x.season_id, RESOLVED), [])
        if x.divan > min(len(asked), len(done)):
            continue
        got = x.sent + x.seconds
        stamps = (asked[x.divan - 1], done[x.divan - 1])
        api.append(stamps[0] - x.sent)
        run.append(stamps[1] - stamps[0])
        back.append(got - stamps[1])
        waits.append((x.sent, x.seconds))
        stamped.append(stamps)
        lines.append(msgspec.json.encode([*x, api[-1], run[-1], back[-1]]))
    if dump is not None:  # one JSON array a Divan: Seen's fields and the three phases, s
        with dump.open("ab") as f:
            f.writelines(line + b"\n" for line in lines)
    for label, xs in (("POST -> requested", api), ("-> resolved", run), ("-> seen", back)):
        if xs:
            ms = [1000 * v for v in xs]
            out.append(
                f"      {label:<18} p50 {pct(ms, 0.5):7.1f} ms  p99 {pct(ms, 0.99):7.1f}  "
                f"mean {statistics.fmean(ms):7.1f}"
            )
    out.append(spread(waits, stamped))
    by_n: dict[int, list[float]] = {}
    for x in seen:
        by_n.setdefault(x.divan, []).append(1000 * x.seconds)
    out.append(
        "      mean wait by Divan number, ms: "
        + " ".join(f"{n}:{statistics.fmean(v):.0f}" for n, v in sorted(by_n.items()))
    )
    return out


async def one_count(
    dsn: str,
    port: int,
    seasons: int,
    seconds: float,
    meter: CpuMeter | None = None,
    *,
    dump: Path | None = None,
) -> None:
    wire = Wire(f"http://127.0.0.1:{port}")
    async with watching(dsn) as (conn, waits):
        load0 = os.getloadavg()[0]
        read0 = await conn.fetchval(EVENTS_READ)
        if meter is not None:
            await meter.start(conn)
        until = time.perf_counter() + seconds
        t0 = time.perf_counter()
        runs = await asyncio.gather(*(player(wire, waits, i, until) for i in range(seasons)))
        elapsed = time.perf_counter() - t0
        cpu = await meter.stop(conn) if meter is not None else {}
        events_read = await conn.fetchval(EVENTS_READ) - read0
        seen = [x for run in runs for x in run]
        where = await phases(conn, seen, dump) if seen else []
    for _reader, writer in wire.idle:
        writer.close()
    ms = [x.seconds * 1000 for x in seen]
    if not ms:
        print(f"{seasons:>4} seasons: no Divan resolved in {seconds:.0f} s")
        return
    print(
        f"{seasons:>4} seasons, load {load0:.1f}-{os.getloadavg()[0]:.1f}: "
        f"{len(ms) / elapsed:6.1f} Divans/s; request -> resolved p50 {pct(ms, 0.5):7.1f} ms  "
        f"p90 {pct(ms, 0.9):7.1f}  p99 {pct(ms, 0.99):7.1f}  max {max(ms):7.1f}  "
        f"mean {statistics.fmean(ms):7.1f}  (n={len(ms)})"
    )
    print("\n".join(where))
    print(f"      event rows read per Divan resolved (every backend): {events_read / len(ms):.1f}")
    if cpu:
        # the Divans resolved while metered: those the players saw, a close lower bound
        total = sum(cpu.values())
        print(
            f"      CPU per Divan resolved, ms (of {total / elapsed:.2f} cores busy over "
            f"{elapsed:.0f} s): total {1000 * total / len(ms):.1f}"
        )
        for label, secs in sorted(cpu.items(), key=lambda kv: -kv[1]):
            if secs > 0:
                print(f"        {label:<16} {1000 * secs / len(ms):6.2f}")
    if meter is not None and meter.calls:
        # a count the box's load does not move (ADR-150): the broker's and the projectors' calls
        top = sorted(meter.calls.items(), key=lambda kv: -kv[1])[:6]
        print(
            f"      Redis commands per Divan resolved: {sum(meter.calls.values()) / len(ms):.1f} ("
            + ", ".join(f"{k} {n / len(ms):.2f}" for k, n in top)
            + ")"
        )


async def main(args: argparse.Namespace) -> None:
    counts = [int(x) for x in args.seasons.split(",")]
    port = args.port or free_port()
    log = Path(tempfile.gettempdir()) / f"seksenbir-bench-trial-load-{os.getpid()}.log"
    extra = {
        "SEKSENBIR_RESOLVER_PROCESSES": str(args.resolvers),
        "SEKSENBIR_PROJECTION_PROCESSES": str(args.projectors),
        **({"SEKSENBIR_RESOLVER_THREADS": str(args.threads)} if args.threads else {}),
        # one client address stands for every player here: its per-address limits are off
        **{f"SEKSENBIR_{k}_PER_MINUTE": "0" for k in ("SEASONS", "JOINS", "COMMANDS", "READS")},
    }
    print(
        f"config: python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}; `seksenbir up` with {args.resolvers} resolver "
        f"and {args.projectors} projections processes, think time 0, {args.seconds:.0f} s a count"
    )
    print(box.line())  # before the stack's threads: it forks (bench.box)
    async with scratch_database(args.dsn, "seksenbir_bench_trial_load") as dsn:
        with own_redis() as redis_url, stack(dsn, redis_url, port, log, extra) as up:
            for n in counts:
                meter = CpuMeter(up.pid, redis_url)
                await one_count(dsn, port, n, args.seconds, meter, dump=args.dump)
    log.unlink(missing_ok=True)
    print("target (issue 27): p99 <= 1 s at 100 seasons; throughput grows with resolvers")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--seasons", default="1,10,100", help="comma-separated counts, one run each")
    p.add_argument("--seconds", type=float, default=30.0, help="how long each count plays")
    p.add_argument("--resolvers", type=int, default=2, help="resolver worker processes")
    p.add_argument("--projectors", type=int, default=2, help="projections worker processes")
    p.add_argument(
        "--threads", type=int, default=0, help="threads a resolver process (0: the setting's)"
    )
    p.add_argument("--port", type=int, default=0, help="the stack's port (0: a free one)")
    p.add_argument(
        "--dump", type=Path, help="append each Divan seen to this file (JSON lines; `phases`)"
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
