"""Soak: trial and live seasons played to the end through the API, with the workers running.

Run: .venv/bin/python -m bench.soak [--minutes 10] [--trials 200] [--lives 20]
     [--interval 6] [--warmup-s 60] [--dsn …] [--redis …] [--broker redis|rabbitmq] [--amqp …]

--broker rabbitmq: the workers' broker is RabbitMQ in a virtual host of the run's own (ADR-95);
`--trials 100 --lives 0` is issue 28's "100 concurrent trials" on either broker.

On a scratch database, a broker namespace and projection prefix of its own, the bench starts
the real worker processes (`dramatiq entrypoints.resolver_worker`, `dramatiq
entrypoints.projections_worker`, and `seksenbir scheduler` for the live calendar) and serves the
gateway (command + query API, create_app as production builds it) in this process. Then, for
--minutes:

- --trials concurrent players each play trial seasons to the end, one after another: create,
  then for each Divan an order set (hold the memleket), POST /divans, and polls of the status
  until the Divan is resolved; after Divan 16 a Kurultay vote (held at once in trial);
- --lives live seasons run at once on a compressed calendar (`divan_interval_seconds`
  --interval, created by ops, two beys joining): each bey sends its orders once per interval
  and reads its map, until the season is over; a finished live season is replaced by a new one.

When the time is up every season under way is played to its end (a drain, bounded). Then the
same number of client loops run a raw baseline for 30 s: one INSERT into a bare table and one
Redis GET per "command", no app. Printed, for the app and beside it for the raw baseline:
commands/s (accepted POSTs), p50/p99 latency of the POSTs, errors (5xx, transport errors,
answers the flow does not expect; target 0; expected refusals such as a live season's 409
`divan_locked` are counted apart), and resident memory (this process, which serves the API,
and the worker trees) after the warm-up and at the end (target: no growth after warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx
import psutil
import redis
import redis.asyncio as aioredis

from bench.api_orders import DEFAULT_DSN, RAW_TABLE, in_process, quiet_json_logs, scratch_database
from bench.common import redis_given_or_own
from bench.live_surge import tree_rss
from entrypoints.gateway import create_app
from shared.app.access.tokens import token_hash
from shared.domain.state import DIVANS
from shared.settings import Settings
from tests.brokers import broker_of

REPO = Path(__file__).resolve().parents[1]
MEMLEKETS = (6, 34, 35, 1, 7, 16, 21, 42, 55, 61, 25, 27, 33, 44, 58, 65, 26, 10, 38, 63)
# Refusals the flow provokes on purpose and counts apart from errors (problem codes).
POLL_S = 1.0  # a player's status poll while its trial Divan resolves (a person would wait)
EXPECTED = frozenset({
    "not_your_province",  # an order for a memleket the bey has lost
    "divan_locked",  # a live season's orders after the lock, before its Divan is resolved
    "wrong_phase",  # a live season's order racing its phase change (lock, Kurultay)
    "wrong_divan", "season_over", "not_in_kurultay", "registration_closed",
    "season_full", "memleket_taken",
})  # fmt: skip


@dataclass
class Tally:
    """Every POST's status and latency while measuring; errors apart from refusals."""

    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    seasons_done: Counter[str] = field(default_factory=Counter)
    first_error: str = ""

    refusals: Counter[str] = field(default_factory=Counter)
    unfinished: Counter[str] = field(default_factory=Counter)  # given up at the drain's end
    divans: Counter[str] = field(default_factory=Counter)  # trial Divans seen resolved

    def note(self, what: str, status: int | None, seconds: float, detail: str = "") -> None:
        if not self.measuring:
            return
        if status is None or status >= 500:
            self.errors[f"{what} {status}"] += 1
            self.first_error = self.first_error or f"{what} {status} {detail[:300]}"
            return
        self.statuses[status] += 1
        self.latencies.append(seconds)
        if status >= 300:
            code = _code(detail)
            if code in EXPECTED:
                self.refusals[f"{what} {code}"] += 1
            else:
                self.errors[f"{what} {status} {code}"] += 1
                self.first_error = self.first_error or f"{what} {status} {detail[:300]}"

    @property
    def accepted(self) -> int:
        return sum(n for s, n in self.statuses.items() if 200 <= s < 300)


def _code(body: str) -> str:
    try:
        return str(json.loads(body).get("code", "?"))
    except (ValueError, AttributeError):
        return "?"


def pct(samples: list[float], p: float) -> float:
    if not samples:
        return float("nan")
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


class Client:
    """The app's HTTP client with the tally: post() times and counts every command."""

    def __init__(self, http: httpx.AsyncClient, tally: Tally) -> None:
        self.http = http
        self.tally = tally

    async def post(self, what: str, url: str, token: str | None, body: object) -> httpx.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        t = time.perf_counter()
        try:
            r = await self.http.post(url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            self.tally.note(what, None, time.perf_counter() - t, repr(exc))
            raise
        self.tally.note(what, r.status_code, time.perf_counter() - t, r.text)
        return r

    async def status(self, season_id: str) -> dict[str, object]:
        r = await self.http.get(f"/v1/seasons/{season_id}")
        if r.status_code >= 500:
            self.tally.note("status", r.status_code, 0.0, r.text)
        r.raise_for_status()
        return dict(r.json())


async def trial_player(client: Client, n: int, stop_at: float, drain_at: float) -> None:
    """Trial seasons one after another until stop_at; the last one played to its end."""
    while time.monotonic() < stop_at:
        memleket = MEMLEKETS[n % len(MEMLEKETS)]
        r = await client.post("create", "/v1/seasons", None, {"memleket": memleket})
        if r.status_code != 201:
            await asyncio.sleep(1)
            continue
        made = r.json()
        sid, token, seat = made["season_id"], made["token"], made["seat"]
        orders = {"orders": [{"province": memleket, "kind": "hold"}]}
        for divan in range(1, DIVANS + 1):
            await client.post("orders", f"/v1/seasons/{sid}/orders", token, orders)
            await client.post("divan", f"/v1/seasons/{sid}/divans", token, {"divan": divan})
            while (await client.status(sid))["divan"] < divan:  # type: ignore[operator]
                if time.monotonic() > drain_at:
                    client.tally.unfinished["trial"] += 1
                    return
                await asyncio.sleep(POLL_S)
            client.tally.divans["trial"] += client.tally.measuring
        vote = {"candidate": seat % 19 + 1}  # another bey: a vote for oneself is refused
        await client.post("vote", f"/v1/seasons/{sid}/kurultay/vote", token, vote)
        client.tally.seasons_done["trial" if client.tally.measuring else "trial, outside"] += 1


async def live_season(
    client: Client, n: int, *, ops: str, interval: int, stop_at: float, drain_at: float
) -> None:
    """Live seasons on a compressed calendar, one after another, each played to its end."""
    while time.monotonic() < stop_at:
        close = datetime.now(UTC) + timedelta(seconds=interval + 2)
        body = {
            "mode": "live",
            "registration_closes_at": close.isoformat(),
            "divan_interval_seconds": interval,
            "memleket": MEMLEKETS[n % len(MEMLEKETS)],
        }
        r = await client.post("create-live", "/v1/seasons", ops, body)
        if r.status_code != 201:
            await asyncio.sleep(1)
            continue
        made = r.json()
        sid = made["season_id"]
        beys = [(made["creator"]["token"], made["creator"]["memleket"])]
        for k in (1, 2):
            plate = MEMLEKETS[(n + 7 * k) % len(MEMLEKETS)]
            j = await client.post("join", f"/v1/seasons/{sid}/join", None, {"memleket": plate})
            if j.status_code == 201:
                beys.append((j.json()["token"], plate))
        voted = False
        while (phase := (await client.status(sid))["phase"]) != "over":
            if time.monotonic() > drain_at:
                client.tally.unfinished["live"] += 1
                return
            if phase == "kurultay" and not voted:
                for token, _plate in beys:
                    url = f"/v1/seasons/{sid}/kurultay/vote"
                    await client.post("vote-live", url, token, {"candidate": 19})
                voted = True
            for token, plate in beys if phase not in ("registration", "kurultay") else ():
                orders = {"orders": [{"province": plate, "kind": "hold"}]}
                await client.post("orders-live", f"/v1/seasons/{sid}/orders", token, orders)
                await client.http.get(f"/v1/seasons/{sid}/map")
            await asyncio.sleep(interval / 2)
        client.tally.seasons_done["live" if client.tally.measuring else "live, outside"] += 1


@contextlib.contextmanager
def workers(settings: Settings, logs: Path) -> Iterator[list[int]]:
    """The resolver and projections workers and the scheduler, as `seksenbir up` runs them."""
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": settings.pg_dsn,
        "SEKSENBIR_REDIS_URL": settings.redis_url,
        "SEKSENBIR_READ_REDIS_URL": settings.read_redis,
        "SEKSENBIR_BROKER_NAMESPACE": settings.broker_namespace,
        "SEKSENBIR_BROKER_URL": settings.broker_url,
        "SEKSENBIR_PROJECTION_PREFIX": settings.projection_prefix,
        "SEKSENBIR_SWEEP_INTERVAL_S": "1",
    }
    kinds = [
        ("resolver", ["-m", "dramatiq", "entrypoints.resolver_worker", "--processes", "1",
                      "--threads", "2"], b"ready for action"),
        ("projections", ["-m", "dramatiq", "entrypoints.projections_worker", "--processes", "1",
                         "--threads", "1"], b"ready for action"),
        ("scheduler", ["-m", "entrypoints.cli", "scheduler"], b""),
    ]  # fmt: skip
    procs = []
    for kind, cmd, _ in kinds:
        with (logs / f"{kind}.log").open("wb") as out:
            procs.append(
                subprocess.Popen(
                    [sys.executable, *cmd], cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT
                )
            )
    try:
        deadline = time.monotonic() + 90
        for (kind, _, ready), proc in zip(kinds, procs, strict=True):
            while ready not in (logs / f"{kind}.log").read_bytes():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"{kind} did not start:\n{(logs / f'{kind}.log').read_text()}"
                    )
                time.sleep(0.05)
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def trees(pids: list[int]) -> list[float]:
    """Each worker tree's RSS in MiB (resolver, projections, scheduler: workers()' order)."""
    return [tree_rss([pid]) / 2**20 for pid in pids]


def rss(pids: list[int]) -> tuple[float, float]:
    """(this process, the worker trees) in MiB."""
    return psutil.Process().memory_info().rss / 2**20, tree_rss(pids) / 2**20


async def soak(dsn: str, args: argparse.Namespace) -> None:
    with broker_of(args.broker, args.redis, args.amqp) as url:
        await soak_on(dsn, url, args)


async def soak_on(dsn: str, broker: str, args: argparse.Namespace) -> None:
    ns = f"bench-soak-{secrets.token_hex(4)}"
    ops = secrets.token_urlsafe(24)
    settings = Settings(
        pg_dsn=dsn,
        redis_url=args.redis,
        read_redis_url=args.redis,
        broker_url=broker,
        broker_namespace=ns,
        projection_prefix=ns,
        ops_token_hashes=(token_hash(ops),),
        auth_failures_per_minute=0,
        # The players are loops of this one process, one client address: the per-address rate
        # limits (made for one person or one bot) would refuse most of them (the 2026-12-02
        # run: 12,454 answers 429, nearly all season creations), so they are off here.
        seasons_per_minute=0,
        joins_per_minute=0,
        commands_per_minute=0,
        reads_per_minute=0,
        reads_per_token_per_minute=0,
    )
    tally = Tally()
    logs = Path(tempfile.mkdtemp(prefix="seksenbir-soak-"))
    try:
        with workers(settings, logs) as pids:
            async with in_process(create_app(settings)) as http:
                client = Client(http, tally)
                start = time.monotonic()
                stop_at = start + args.minutes * 60
                drain_at = stop_at + args.drain_s
                tasks = [
                    asyncio.create_task(trial_player(client, n, stop_at, drain_at))
                    for n in range(args.trials)
                ] + [
                    asyncio.create_task(
                        live_season(
                            client,
                            n,
                            ops=ops,
                            interval=args.interval,
                            stop_at=stop_at,
                            drain_at=drain_at,
                        )
                    )
                    for n in range(args.lives)
                ]
                await asyncio.sleep(min(args.warmup_s, args.minutes * 30))
                tally.measuring = True
                t0, warm, warm_trees = time.monotonic(), rss(pids), trees(pids)
                samples = [warm]
                while time.monotonic() < stop_at:
                    await asyncio.sleep(5)
                    samples.append(rss(pids))
                measured = time.monotonic() - t0
                end, end_trees = rss(pids), trees(pids)
                tally.measuring = False  # the drain is not measured
                done, pending = await asyncio.wait(tasks, timeout=args.drain_s + 30)
                failed = [t.exception() for t in done if t.exception() is not None]
                for t in pending:
                    t.cancel()
        raw = await raw_baseline(dsn, args)
    finally:
        r = redis.Redis.from_url(args.redis)
        for key in r.scan_iter(f"{ns}:*", count=5000):
            r.delete(key)
        r.close()
    report(
        tally,
        raw,
        args=args,
        measured=measured,
        samples=samples,
        end=end,
        unfinished=(len(pending), len(failed)),
    )
    names = ("resolver", "projections", "scheduler")
    each = ", ".join(
        f"{n} {a:.0f} -> {b:.0f}" for n, a, b in zip(names, warm_trees, end_trees, strict=True)
    )
    print(f"RSS per worker tree MiB: {each}")
    minutes = [f"{w:.0f}" for _api, w in samples[::12]]  # a sample every 5 s: one a minute
    print(f"RSS workers MiB each minute while measuring: {' '.join(minutes)}")
    if failed:
        print(f"first failed player: {failed[0]!r}")


def report(
    tally: Tally,
    raw: Raw,
    *,
    args: argparse.Namespace,
    measured: float,
    samples: list[tuple[float, float]],
    end: tuple[float, float],
    unfinished: tuple[int, int],
) -> None:
    warm = samples[0]
    peak = max(s[0] for s in samples), max(s[1] for s in samples)
    print(f"measured {measured:.0f} s after a {args.warmup_s:.0f} s warm-up")
    print(
        f"seasons played to the end while measuring: {tally.seasons_done['trial']} trial, "
        f"{tally.seasons_done['live']} live (in the warm-up or the drain: "
        f"{tally.seasons_done['trial, outside']} trial, "
        f"{tally.seasons_done['live, outside']} live); "
        f"trial Divans resolved while measuring: "
        f"{tally.divans['trial']}; given up at the end of the drain: {dict(tally.unfinished)}, "
        f"still running {unfinished[0]}, {unfinished[1]} players failed"
    )
    ms = [x * 1000 for x in tally.latencies]
    raw_ms = [x * 1000 for x in raw.latencies]
    print(f"{'':28}{'app':>14}{'raw baseline':>16}")
    print(f"{'commands/s (accepted)':28}{tally.accepted / measured:14.1f}{raw.rate:16.1f}")
    print(f"{'latency p50 ms':28}{pct(ms, 0.5):14.1f}{pct(raw_ms, 0.5):16.2f}")
    print(f"{'latency p99 ms':28}{pct(ms, 0.99):14.1f}{pct(raw_ms, 0.99):16.2f}")
    errors = sum(tally.errors.values())
    print(f"{'errors (target 0)':28}{errors:14d}{raw.errors:16d}")
    print(f"{'expected refusals':28}{sum(tally.refusals.values()):14d}{'-':>16}")
    print(f"{'RSS API process MiB':28}{f'{warm[0]:.0f} -> {end[0]:.0f}':>14}{raw.rss:>16}")
    print(f"{'RSS workers MiB':28}{f'{warm[1]:.0f} -> {end[1]:.0f}':>14}{'-':>16}")
    print(f"peak RSS while measuring: API {peak[0]:.0f} MiB, workers {peak[1]:.0f} MiB")
    print(f"statuses: {dict(sorted(tally.statuses.items()))}; errors: {dict(tally.errors)}")
    print(f"refusals: {dict(tally.refusals)}")
    if tally.first_error:
        print(f"first error: {tally.first_error}")


@dataclass
class Raw:
    rate: float
    latencies: list[float]
    errors: int
    rss: str


async def raw_baseline(dsn: str, args: argparse.Namespace) -> Raw:
    """The same number of loops, no app: one bare INSERT and one Redis GET per command."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=10)
    r = aioredis.Redis.from_url(args.redis)
    await pool.execute(RAW_TABLE)
    latencies: list[float] = []
    errors = 0
    stop_at = time.monotonic() + args.raw_s
    before = psutil.Process().memory_info().rss / 2**20

    async def loop(n: int) -> None:
        nonlocal errors
        while time.monotonic() < stop_at:
            t = time.perf_counter()
            try:
                await pool.execute(
                    "INSERT INTO bench_raw (season_id, seat, body) VALUES ($1, 1, $2)",
                    f"raw-{n}",
                    b'{"orders":[]}',
                )
                await r.get(f"raw-{n}")
            except (asyncpg.PostgresError, OSError, redis.RedisError):
                errors += 1
                continue
            latencies.append(time.perf_counter() - t)
            await asyncio.sleep(0)

    t0 = time.monotonic()
    await asyncio.gather(*(loop(n) for n in range(args.trials + args.lives)))
    seconds = time.monotonic() - t0
    after = psutil.Process().memory_info().rss / 2**20
    await pool.close()
    await r.aclose()
    return Raw(len(latencies) / seconds, latencies, errors, f"{before:.0f} -> {after:.0f}")


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    print(
        f"config: python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cpus, "
        f"load average {os.getloadavg()[0]:.1f}; {args.trials} trial players, {args.lives} live "
        f"seasons (interval {args.interval} s), {args.minutes} min, broker {args.broker}"
    )
    async with scratch_database(args.dsn, "seksenbir_bench_soak") as dsn:
        await soak(dsn, args)
    print("targets: 0 errors; RSS at the end within noise of RSS after the warm-up")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    p.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672", help="--broker rabbitmq")
    p.add_argument("--minutes", type=float, default=10.0, help="how long to play (the target: 10)")
    p.add_argument("--trials", type=int, default=200, help="concurrent trial players")
    p.add_argument("--lives", type=int, default=20, help="live seasons at once")
    p.add_argument("--interval", type=int, default=6, help="a live Divan every this many seconds")
    p.add_argument("--warmup-s", type=float, default=60.0, help="not measured")
    p.add_argument("--drain-s", type=float, default=300.0, help="at most this long to finish")
    p.add_argument("--raw-s", type=float, default=30.0, help="the raw baseline's length")
    return p.parse_args(argv)


def cli(args: argparse.Namespace) -> None:
    """`main` on --redis, else on a redis-server of the run's own."""
    with redis_given_or_own(args.redis) as args.redis:
        asyncio.run(main(args))


if __name__ == "__main__":
    cli(parse())
