"""Redelivery after a killed resolver worker, with production's broker settings (ADR-54, ADR-95).

Run: .venv/bin/python -m bench.redelivery [--runs 3] [--heartbeat-ms 10000]
     [--broker redis|rabbitmq] [--amqp amqp://guest:guest@127.0.0.1:5672] [--redis-port 0]
     [--dsn postgresql://postgres@127.0.0.1:5432/test]

--broker rabbitmq: the broker is RabbitMQ (--amqp's server) in a virtual host of this run's
own (rabbitmqctl), deleted afterwards; RabbitMQ requeues a dead connection's unacked messages
at once, so --heartbeat-ms plays no part there.

Each run: a trial season on a scratch database and a redis-server of this run's own; Divan 1 is
requested through the command API (in-process, its real broker); a resolver worker
(`seksenbir worker resolver --processes 1 --threads 1`, production's environment but
FAULT_POINT=mid_resolve:sleep=600) takes the message and stops inside the Divan; it is killed
with `kill -9` (its process group) and a fresh worker is started at once, as a supervisor would.
Timed: kill -9 -> DivanResolved committed (seen by a LISTEN connection). No scheduler runs, so
this is the broker's own recovery: the dead worker's heartbeat expires (--heartbeat-ms, the
SEKSENBIR_HEARTBEAT_TIMEOUT_MS under test), then the new worker's timed maintenance (every
heartbeat / 4) puts the message back and its consumer takes it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.api_orders import DEFAULT_DSN, in_process, quiet_json_logs, scratch_database
from bench.common import own_redis
from bench.divan_latency import RESOLVED, listener, new_season
from entrypoints.gateway import create_app
from shared.settings import Settings
from tests.brokers import broker_of

REPO = Path(__file__).resolve().parents[1]


@contextlib.contextmanager
def resolver(
    settings: Settings, log: Path, heartbeat_ms: int, fault: str | None
) -> Iterator[subprocess.Popen[bytes]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEKSENBIR_", "dramatiq_"))}
    env.pop("FAULT_POINT", None)
    env |= {
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": settings.pg_dsn,
        "SEKSENBIR_REDIS_URL": settings.redis_url,
        "SEKSENBIR_BROKER_URL": settings.broker_url,
        "SEKSENBIR_HEARTBEAT_TIMEOUT_MS": str(heartbeat_ms),
    }
    if fault:
        env["FAULT_POINT"] = fault
    cmd = [sys.executable, "-m", "entrypoints.cli", "worker", "resolver", "--threads", "1"]
    with log.open("ab") as out:
        proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


async def one_run(dsn: str, redis_url: str, broker_url: str, heartbeat_ms: int) -> float:
    settings = Settings(
        pg_dsn=dsn, redis_url=redis_url, broker_url=broker_url, heartbeat_timeout_ms=heartbeat_ms
    )
    log = Path(tempfile.mkdtemp(prefix="seksenbir-bench-redelivery-")) / "workers.log"
    async with (
        in_process(create_app(settings, reads=False)) as client,
        listener(dsn) as (conn, woken),
    ):
        sid, auth = await new_season(client, 0)
        r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": 1}, headers=auth)
        r.raise_for_status()
        with resolver(settings, log, heartbeat_ms, "mid_resolve:sleep=600") as first:
            deadline = time.monotonic() + 60
            while b"fault.injected" not in log.read_bytes():
                if time.monotonic() > deadline or first.poll() is not None:
                    raise RuntimeError(log.read_text(errors="replace"))
                await asyncio.sleep(0.05)
            os.killpg(first.pid, signal.SIGKILL)
            killed = time.monotonic()
        sql = "SELECT count(*) FROM events WHERE season_id = $1 AND type = $2"
        with resolver(settings, log, heartbeat_ms, None):
            async with asyncio.timeout(heartbeat_ms / 1000 * 3 + 60):
                while not await conn.fetchval(sql, sid, RESOLVED):
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(woken.wait(), 1)
                    woken.clear()
            return time.monotonic() - killed


async def main(args: argparse.Namespace) -> None:
    quiet_json_logs()
    times = []
    for n in range(args.runs):
        async with scratch_database(args.dsn, "seksenbir_bench_redelivery") as dsn:
            with (
                own_redis(args.redis_port) as redis_url,
                broker_of(args.broker, redis_url, args.amqp) as url,
            ):
                took = await one_run(dsn, redis_url, url, args.heartbeat_ms)
        print(f"run {n + 1}: kill -9 -> DivanResolved committed in {took:.1f} s", flush=True)
        times.append(took)
    knobs = (
        "RabbitMQ (requeues on the dead connection)"
        if args.broker == "rabbitmq"
        else f"Redis, SEKSENBIR_HEARTBEAT_TIMEOUT_MS={args.heartbeat_ms} (maintenance every "
        f"{args.heartbeat_ms // 4} ms)"
    )
    print(
        f"{knobs}, no scheduler: median {statistics.median(times):.1f} s, "
        f"min {min(times):.1f} s, max {max(times):.1f} s over {len(times)} runs "
        f"(load average {os.getloadavg()[0]:.1f})"
    )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--heartbeat-ms", type=int, default=10_000)
    p.add_argument("--broker", choices=("redis", "rabbitmq"), default="redis")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672")
    p.add_argument("--redis-port", type=int, default=0, help="the run's redis-server (0: free)")
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
