"""Helpers for the resolver's integration tests: workers (in-process and subprocess), polling.

Two ways to run a real Dramatiq worker against the test PostgreSQL and Redis:
- `inprocess_worker(settings)`: `declare(settings)` then `dramatiq.Worker(...)` in this process,
  with a `Recorder` middleware that keeps every processed message's result or exception;
- `WorkerProcess`: `python -m dramatiq entrypoints.resolver_worker --processes 1 --threads 1` in
  its own process group (so `kill()` is a `kill -9` of the whole worker), logging to a file.
Every test uses its own broker namespace (`namespace()`), so queues never collide.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import asyncpg
import dramatiq
import msgspec
import redis

from entrypoints import bootstrap
from services.resolver import resolver_actors as actors
from services.resolver.divan import Outcome
from shared.app.messaging.queues import DIVANS_QUEUE
from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import RecordedEvent
from shared.settings import Settings

Resolve = Callable[..., Coroutine[Any, Any, Outcome]]

REPO = Path(__file__).resolve().parents[2]
# RELIABILITY.md test knobs: a dead worker's messages come back 2 s after its last heartbeat.
FAST_BROKER_ENV = {
    "SEKSENBIR_HEARTBEAT_TIMEOUT_MS": "2000",
    "SEKSENBIR_MAINTENANCE_CHANCE": "1000000",
    "SEKSENBIR_MIN_BACKOFF_MS": "100",
    "dramatiq_worker_timeout": "100",
}


def namespace() -> str:
    """A broker namespace unique to one test."""
    return f"sbtest-{secrets.token_hex(6)}"


def settings_for(pg_dsn: str, redis_url: str, ns: str, **knobs: Any) -> Settings:
    """Settings on the test's PostgreSQL and Redis (`broker_url=`: the broker, RabbitMQ or
    Redis, tests/brokers.py; the Redis by default)."""
    return Settings(pg_dsn=pg_dsn, redis_url=redis_url, broker_namespace=ns, **knobs)


async def wait_for(
    check: Callable[[], Awaitable[Any]], what: str, timeout: float = 20.0, every: float = 0.05
) -> Any:
    """Poll `check` until it returns something truthy (returned); fail the test on timeout."""
    try:
        async with asyncio.timeout(timeout):
            while not (result := await check()):
                await asyncio.sleep(every)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None
    return result


# --- reading what the resolver stored -----------------------------------------------------------


def decoded(records: list[RecordedEvent]) -> list[ev.Event]:
    return [codec.decode_event(r.data) for r in records]


def resolved_divans(records: list[RecordedEvent]) -> list[int]:
    """The Divan number of every DivanResolved in the stream, in order."""
    return [e.divan for e in decoded(records) if isinstance(e, ev.DivanResolved)]


def locked_divans(records: list[RecordedEvent]) -> list[int]:
    return [e.divan for e in decoded(records) if isinstance(e, ev.DivanLocked)]


# --- Redis: the broker's keys (dramatiq/brokers/redis/dispatch.lua) ------------------------------


class BrokerKeys:
    """The Redis keys the Dramatiq broker keeps for one namespace."""

    def __init__(self, redis_url: str, ns: str, queue: str = DIVANS_QUEUE) -> None:
        self.client = redis.Redis.from_url(redis_url)
        self.ns = ns
        self.queue = queue

    def unacked(self) -> set[str]:
        """Redis message ids fetched by some worker and not yet acked (or nacked)."""
        ids: set[str] = set()
        for key in self.client.scan_iter(f"{self.ns}:__acks__.*.{self.queue}"):
            ids |= {m.decode() for m in cast(set[bytes], self.client.smembers(key))}
        return ids

    def pending(self) -> int:
        """Messages whose bodies are still stored: enqueued, in flight, or unacked."""
        return int(self.client.hlen(f"{self.ns}:{self.queue}.msgs")) + int(
            self.client.hlen(f"{self.ns}:{self.queue}.DQ.msgs")
        )

    def dead_letters(self) -> dict[str, dict[str, Any]]:
        """Dead-lettered messages (`<ns>:<queue>.XQ`) by Dramatiq message id.

        A retry re-enqueues the message under a new Redis id, so look them up by message id.
        """
        xq = f"{self.ns}:{self.queue}.XQ"
        out: dict[str, dict[str, Any]] = {}
        for redis_id in cast(list[bytes], self.client.zrange(xq, 0, -1)):
            body = self.client.hget(f"{xq}.msgs", redis_id)
            if body is not None:
                message = msgspec.json.decode(body)
                out[message["message_id"]] = message
        return out

    def cleanup(self) -> None:
        for key in self.client.scan_iter(f"{self.ns}:*"):
            self.client.delete(key)
        self.client.close()


# --- in-process worker ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Processed:
    message_id: str
    args: tuple[Any, ...]
    exception: BaseException | None
    retries: int


class Recorder(dramatiq.Middleware):
    """Keeps every processed message's outcome or exception (thread-safe).

    The actor returns nothing, so the outcome of `divan.resolve` ("resolved",
    "already_resolved", ...) is taken from a wrapper around it (`outcomes`).
    """

    def __init__(self) -> None:
        self.seen: list[Processed] = []
        self.outcomes: list[tuple[str, int, str]] = []
        self.lock = threading.Lock()

    def wrap(self, resolve: Resolve) -> Resolve:
        async def recording(
            seasons: Any, season_id: str, divan: int, *args: Any, **kwargs: Any
        ) -> Outcome:
            outcome = await resolve(seasons, season_id, divan, *args, **kwargs)
            with self.lock:
                self.outcomes.append((season_id, divan, outcome))
            return outcome

        return recording

    def outcomes_of(self, season_id: str) -> list[tuple[int, str]]:
        with self.lock:
            return [(d, o) for s, d, o in self.outcomes if s == season_id]

    def after_process_message(
        self,
        broker: dramatiq.Broker,
        message: dramatiq.broker.MessageProxy,
        *,
        result: Any = None,
        exception: BaseException | None = None,
    ) -> None:
        done = Processed(
            message.message_id,
            tuple(message.args),
            exception,
            int(message.options.get("retries", 0)),
        )
        with self.lock:
            self.seen.append(done)

    def of(self, message_id: str) -> list[Processed]:
        with self.lock:
            return [p for p in self.seen if p.message_id == message_id]

    def failures(self) -> list[Processed]:
        with self.lock:
            return [p for p in self.seen if p.exception is not None]


@dataclass(frozen=True)
class InProcess:
    broker: dramatiq.Broker
    actor: dramatiq.Actor[..., Any]
    recorder: Recorder


@contextlib.contextmanager
def inprocess_worker(settings: Settings, worker_timeout: int = 50) -> Iterator[InProcess]:
    """`bootstrap.resolver_worker(settings)` and a one-thread Dramatiq worker in this process,
    stopped afterwards.

    The bootstrap sets the global broker, and the actor opens its pool lazily on the AsyncIO
    middleware's loop; the pool is closed on that loop before the worker stops.
    """
    previous_broker = dramatiq.broker.global_broker  # the worker's broker becomes the global one
    unwrapped = actors.resolve
    actor, lazy_seasons = bootstrap.resolver_worker(settings)
    broker = actor.broker
    recorder = Recorder()
    broker.add_middleware(recorder)
    actors.resolve = recorder.wrap(unwrapped)
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=worker_timeout)
    try:
        worker.start()
        yield InProcess(broker, actor, recorder)
    finally:
        seasons = lazy_seasons.value
        loop_thread = dramatiq.asyncio.get_event_loop_thread()
        if seasons is not None and loop_thread is not None:
            pool = seasons.store._pool  # type: ignore[attr-defined]
            with contextlib.suppress(Exception):
                loop_thread.run_coroutine(pool.close())
        worker.stop()
        broker.close()
        actors.resolve = unwrapped
        dramatiq.broker.global_broker = previous_broker


# --- subprocess worker ----------------------------------------------------------------------------


class WorkerProcess:
    """`dramatiq entrypoints.resolver_worker --processes 1 --threads 1` in its own process group
    (`module`: another worker bootstrap, e.g. entrypoints.projections_worker; `processes`:
    Dramatiq's worker processes under its main process)."""

    def __init__(
        self,
        settings: Settings,
        log_path: Path,
        module: str = "entrypoints.resolver_worker",
        processes: int = 1,
        **env: str,
    ) -> None:
        self.module = module
        self.processes = processes
        self.env = {
            **os.environ,
            "PYTHONPATH": str(REPO),
            "SEKSENBIR_PG_DSN": settings.pg_dsn,
            "SEKSENBIR_REDIS_URL": settings.redis_url,
            "SEKSENBIR_BROKER_NAMESPACE": settings.broker_namespace,
            "SEKSENBIR_BROKER_URL": settings.broker_url,
            **FAST_BROKER_ENV,
            **env,
        }
        if "FAULT_POINT" not in env:
            self.env.pop("FAULT_POINT", None)
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> WorkerProcess:
        cmd = [sys.executable, "-m", "dramatiq", self.module]
        cmd += ["--processes", str(self.processes), "--threads", "1"]
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                cmd,
                cwd=REPO,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: kill() reaches every child
            )
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def _signal_group(self, sig: signal.Signals) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)

    def kill(self) -> None:
        """`kill -9` the whole worker: the main process and its worker processes."""
        self._signal_group(signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        """Graceful stop (SIGTERM), then SIGKILL if it lingers; the group is gone afterwards."""
        if self.proc is None:
            return
        if self.proc.poll() is None:  # the main process forwards SIGTERM to its workers
            self.proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=15)
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)


async def resolver_backends(pg_dsn: str) -> set[int]:
    """Backend pids of resolver pools connected to this database."""
    conn = await asyncpg.connect(pg_dsn)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity"
            " WHERE application_name = 'resolver' AND datname = current_database()"
        )
    finally:
        await conn.close()
    return {r["pid"] for r in rows}
