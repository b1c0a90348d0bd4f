"""The roles scaled out (issue 28): several gateways, resolvers and projectors at once.

Run: .venv/bin/python -m bench.scale_out [--gateways 3] [--resolvers 2] [--projectors 2]
     [--seasons 12] [--divans 4] [--port 19820] [--cluster-port 19810] [--broker rabbitmq|redis]
     [--amqp amqp://guest:guest@127.0.0.1:5672] [--dsn …]

It starts, itself, every process of the stack as production runs them: `--gateways` API
processes (`seksenbir serve`, ports --port, --port+1, …), `--resolvers` resolver and
`--projectors` projections workers (`python -m dramatiq entrypoints.*_worker`), one scratch
PostgreSQL database, the broker (RabbitMQ in a virtual host of the run's own, or with
--broker redis a redis-server on --port+50), and the read models on a 3-node Redis Cluster
(ports --cluster-port … +2, cluster bus +3 … +5; SEKSENBIR_READ_REDIS_CLUSTER=1).

The load: `--seasons` trial seasons played at once, each request sent to the next gateway in
turn (a season's orders, Divan requests and reads cross every gateway): per Divan a hold order
on the player's home province, then the Divan request, then its status polled until resolved.
Then it checks, and exits 1 if any check fails:

  every Divan once:       each season's DivanResolved events are exactly 1 … --divans
  every acknowledged write kept: each 201 season, each 200 order set (its OrdersSubmitted at
                          the answered version) and each 202 Divan request (its DivanRequested)
                          is in the store
  read models = a rebuild: each season's active read model (on the cluster), key by key, equals
                          a from-zero rebuild of it
and prints the requests each gateway answered and the Divans per second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import redis

from bench.api_orders import DEFAULT_DSN, quiet_json_logs, scratch_database
from bench.common import own_redis
from entrypoints import bootstrap
from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import PoolSettings, PostgresEventStore, create_pool
from shared.settings import Settings
from tests.brokers import broker_of
from tests.projections.support import generation_dump, rebuilt_dump

REPO = Path(__file__).resolve().parents[1]
MEMLEKET = 6


@contextlib.contextmanager
def cluster(port: int, folder: Path) -> Iterator[str]:
    """Three redis-server nodes in cluster mode on port … port+2 (bus port+3 … +5), joined."""
    procs = []
    try:
        for n in range(3):
            node = folder / f"node{n}"
            node.mkdir()
            cmd = ["redis-server", "--port", str(port + n), "--bind", "127.0.0.1",
                   "--cluster-enabled", "yes", "--cluster-port", str(port + 3 + n),
                   "--cluster-config-file", str(node / "nodes.conf"),
                   "--save", "", "--appendonly", "no", "--dir", str(node)]  # fmt: skip
            procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT))
        wait(lambda: all(ping(port + n) for n in range(3)), "the cluster nodes")
        subprocess.run(
            ["redis-cli", "--cluster", "create", *(f"127.0.0.1:{port + n}" for n in range(3)),
             "--cluster-replicas", "0", "--cluster-yes"],
            capture_output=True, timeout=60, check=True,
        )  # fmt: skip

        def ok() -> bool:
            return all(b"cluster_state:ok" in info(port + n) for n in range(3))

        wait(ok, "cluster_state:ok")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)


def ping(port: int) -> bool:
    with contextlib.suppress(redis.RedisError):
        return bool(redis.Redis(port=port, socket_connect_timeout=0.3).ping())
    return False


def info(port: int) -> bytes:
    with contextlib.suppress(redis.RedisError):
        return bytes(redis.Redis(port=port).execute_command("CLUSTER", "INFO"))  # type: ignore[no-untyped-call]
    return b""


def wait(check: Any, what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.1)


def environment(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEKSENBIR_", "dramatiq_"))}
    return env | {
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": settings.pg_dsn,
        "SEKSENBIR_REDIS_URL": settings.read_redis_url,
        "SEKSENBIR_READ_REDIS_URL": settings.read_redis_url,
        "SEKSENBIR_READ_REDIS_CLUSTER": "1",
        "SEKSENBIR_BROKER_URL": settings.broker_url,
        # one client address sends everything: the per-address limits are for people
        **{f"SEKSENBIR_{k}_PER_MINUTE": "0" for k in ("SEASONS", "JOINS", "COMMANDS", "READS")},
        "SEKSENBIR_READS_PER_TOKEN_PER_MINUTE": "0",
        "SEKSENBIR_AUTH_FAILURES_PER_MINUTE": "0",
    }


@contextlib.contextmanager
def processes(settings: Settings, args: argparse.Namespace, logs: Path) -> Iterator[list[str]]:
    """The gateways and workers, each a process (group) of its own; the gateways' URLs."""
    env = environment(settings)
    py = sys.executable
    commands = [
        [py, "-m", "entrypoints.cli", "serve", "--host", "127.0.0.1", "--port", str(args.port + n)]
        for n in range(args.gateways)
    ]
    for kind, count in (("resolver", args.resolvers), ("projections", args.projectors)):
        module = f"entrypoints.{kind}_worker"
        commands += [[py, "-m", "dramatiq", module, "--processes", "1", "--threads", "2"]] * count
    procs = []
    try:
        for n, cmd in enumerate(commands):
            with (logs / f"p{n}.log").open("wb") as out:
                proc = subprocess.Popen(
                    cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT,
                    start_new_session=True,
                )  # fmt: skip
                procs.append(proc)
        urls = [f"http://127.0.0.1:{args.port + n}" for n in range(args.gateways)]

        def ready() -> bool:
            if any(p.poll() is not None for p in procs):
                raise RuntimeError(f"a process of the stack exited; logs in {logs}")
            with contextlib.suppress(httpx.HTTPError):
                return all(httpx.get(f"{u}/ready", timeout=1).status_code == 200 for u in urls)
            return False

        wait(ready, "every gateway ready", 90)
        yield urls
    finally:
        for p in procs:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, 15)
        for p in procs:
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait()


class Load:
    """Requests to the gateways in turn; the acknowledged writes and per-gateway counts."""

    def __init__(self, client: httpx.AsyncClient, urls: list[str]) -> None:
        self.client = client
        self.turn = itertools.cycle(urls)
        self.answered: Counter[str] = Counter()
        self.acked: list[tuple[str, str, int]] = []  # (season, event type, Divan or version)

    async def send(self, method: str, path: str, **kw: Any) -> httpx.Response:
        url = next(self.turn)
        r = await self.client.request(method, url + path, **kw)
        self.answered[url] += 1
        return r

    async def season(self, i: int, divans: int) -> str:
        r = await self.send("POST", "/v1/seasons", json={"memleket": MEMLEKET, "seed": str(i)})
        r.raise_for_status()
        sid: str = r.json()["season_id"]
        auth = {"Authorization": f"Bearer {r.json()['token']}"}
        self.acked.append((sid, "season_created.v1", 0))
        for n in range(1, divans + 1):
            order = {"orders": [{"province": MEMLEKET, "kind": "hold"}], "divan": n}
            r = await self.send("POST", f"/v1/seasons/{sid}/orders", json=order, headers=auth)
            if r.status_code == 200:
                self.acked.append((sid, "orders_submitted.v1", r.json()["version"]))
            r = await self.send(
                "POST", f"/v1/seasons/{sid}/divans", json={"divan": n}, headers=auth
            )
            if r.status_code != 202:
                raise RuntimeError(f"{sid} Divan {n}: {r.status_code} {r.text}")
            self.acked.append((sid, "divan_requested.v1", n))
            while True:
                s = await self.send("GET", f"/v1/seasons/{sid}")
                if s.status_code == 200 and s.json()["divan"] >= n and not s.json()["resolving"]:
                    break
                await asyncio.sleep(0.05)
        return sid


def divans_once(streams: dict[str, list[Any]], divans: int) -> list[str]:
    failures = []
    for sid, records in streams.items():
        found = [codec.decode_event(r.data) for r in records]
        resolved = [e.divan for e in found if isinstance(e, ev.DivanResolved)]
        if resolved != list(range(1, divans + 1)):
            failures.append(f"{sid}: Divans resolved {resolved}")
    return failures


def kept(records: list[Any], kind: str, n: int) -> bool:
    if kind == "orders_submitted.v1":
        return any(r.version == n and r.type == kind for r in records)
    if kind == "divan_requested.v1":
        requested = [codec.decode_event(r.data) for r in records if r.type == kind]
        return any(getattr(e, "divan", None) == n for e in requested)
    return any(r.type == kind for r in records)


async def same_as_rebuild(store: Any, read: Any, prefix: str, sid: str, head: int) -> list[str]:
    """The season's read model once at its head, key by key against a from-zero rebuild."""

    async def live() -> dict[str, Any]:
        with contextlib.suppress(AssertionError):  # no active generation yet
            return await generation_dump(read, prefix, sid)
        return {}

    async with asyncio.timeout(60):
        while (await live()).get("checkpoint") != str(head):
            await asyncio.sleep(0.1)
    now, fresh = await live(), await rebuilt_dump(store, read, prefix, sid)
    differ = sorted(k for k in set(now) | set(fresh) if now.get(k) != fresh.get(k))
    return [f"{sid}: read model differs from a rebuild at {differ[:5]}"] if differ else []


async def check(settings: Settings, load: Load, ids: list[str], divans: int) -> list[str]:
    """Every Divan once, every acknowledged write kept, read models equal to a rebuild."""
    pool = await create_pool(settings.pg_dsn, PoolSettings(min_size=1, max_size=2))
    read = bootstrap.redis_client(settings)
    try:
        store = PostgresEventStore(pool, clock=bootstrap.utc_now)
        streams = {sid: await store.read_stream(sid) for sid in ids}
        failures = divans_once(streams, divans)
        failures += [
            f"{sid}: acknowledged {kind} {n} is not stored"
            for sid, kind, n in load.acked
            if not kept(streams[sid], kind, n)
        ]
        for sid, records in streams.items():
            prefix = settings.projection_prefix
            failures += await same_as_rebuild(store, read, prefix, sid, records[-1].version)
    finally:
        await read.aclose()
        await pool.close()
    return failures


async def run(dsn: str, args: argparse.Namespace, read_url: str, broker: str) -> int:
    settings = Settings(
        pg_dsn=dsn, redis_url=read_url, read_redis_url=read_url, read_redis_cluster=True,
        broker_url=broker,
    )  # fmt: skip
    logs = Path(tempfile.mkdtemp(prefix="seksenbir-scale-out-"))
    with processes(settings, args, logs) as urls:
        async with httpx.AsyncClient(timeout=30) as client:
            load = Load(client, urls)
            t0 = time.monotonic()
            ids = await asyncio.gather(*(load.season(i, args.divans) for i in range(args.seasons)))
            took = time.monotonic() - t0
        failures = await check(settings, load, list(ids), args.divans)
    divans = args.seasons * args.divans
    print(
        f"{args.gateways} gateways, {args.resolvers} resolvers, {args.projectors} projectors, "
        f"broker {args.broker}, read models on a 3-node Redis Cluster: {args.seasons} seasons x "
        f"{args.divans} Divans in {took:.1f} s ({divans / took:.1f} Divans/s)"
    )
    print("  requests answered per gateway: " + ", ".join(
        f"{u.rsplit(':', 1)[1]}: {n}" for u, n in sorted(load.answered.items())))  # fmt: skip
    print(
        f"  checks: {divans} Divans each resolved once, {len(load.acked)} acknowledged writes "
        f"kept, {args.seasons} read models equal to a rebuild: "
        + ("all hold" if not failures else f"{len(failures)} FAILED")
    )
    for line in failures:
        print(f"  FAILED {line}")
    if failures:
        print(f"  logs: {logs}")
    else:
        shutil.rmtree(logs, ignore_errors=True)
    return 1 if failures else 0


async def main(args: argparse.Namespace) -> int:
    quiet_json_logs()
    folder = Path(tempfile.mkdtemp(prefix="seksenbir-scale-out-cluster-"))
    try:
        async with scratch_database(args.dsn, "seksenbir_bench_scale") as dsn:
            with (
                cluster(args.cluster_port, folder) as read_url,
                own_redis(args.port + 50) as redis_url,
                broker_of(args.broker, redis_url, args.amqp) as broker,
            ):
                return await run(dsn, args, read_url, broker)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--gateways", type=int, default=3)
    p.add_argument("--resolvers", type=int, default=2)
    p.add_argument("--projectors", type=int, default=2)
    p.add_argument("--seasons", type=int, default=12)
    p.add_argument("--divans", type=int, default=4)
    p.add_argument("--port", type=int, default=19820, help="the first gateway's port")
    p.add_argument("--cluster-port", type=int, default=19810)
    p.add_argument("--broker", choices=("redis", "rabbitmq"), default="rabbitmq")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672")
    return p.parse_args(argv)


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(parse())))
