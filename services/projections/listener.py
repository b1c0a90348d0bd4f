"""The projectors' wake-up path: LISTEN on the event store's channel, catch up the seasons named.

The event store sends a NOTIFY after appends commit, naming their seasons (coalesced per couple
of milliseconds, see shared.eventstore.sql.wakeup_payloads). A listener in each projections
worker process catches those seasons up at once, so writers (the command API, the resolver)
send nothing else to wake the read side. A wake-up is a hint: one lost while the listening
connection is down is made good by the periodic sweep (RELIABILITY 22), and the listener
reconnects by itself.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable

import asyncpg
import structlog

from services.projections.projector import Projector
from shared.eventstore import NOTIFY_CHANNEL, parse_wakeup

log = structlog.get_logger(__name__)
APPLICATION_NAME = "projections-listener"
RECONNECT_SECONDS = 1.0
LANES = 4  # seasons a listener catches up at once


class Listener:
    """Hears wake-ups on one connection and hands each batch of seasons to `catch_up`."""

    def __init__(
        self,
        dsn: str,
        catch_up: Callable[[str], Awaitable[object]],
        *,
        reconnect_seconds: float = RECONNECT_SECONDS,
    ) -> None:
        self._dsn = dsn
        self._catch_up = catch_up
        self._reconnect = reconnect_seconds
        self._pending: set[str] = set()
        self._woken = asyncio.Event()
        self.listening = asyncio.Event()  # set while a LISTEN connection is up (for tests)

    async def run(self) -> None:
        """Listen, catch up, reconnect after a lost connection; runs until cancelled."""
        while True:
            try:
                await self._session()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("projections.listener_lost", error=f"{type(exc).__name__}: {exc}")
            _raise_if_cancelled()
            self.listening.clear()
            await asyncio.sleep(self._reconnect)

    async def _session(self) -> None:
        conn = await asyncpg.connect(
            self._dsn, server_settings={"application_name": APPLICATION_NAME}
        )
        lost = asyncio.Event()
        try:

            def terminated(_conn: object) -> None:
                lost.set()
                self._woken.set()

            conn.add_termination_listener(terminated)
            await conn.add_listener(NOTIFY_CHANNEL, self._heard)
            self.listening.set()
            log.info("projections.listening", channel=NOTIFY_CHANNEL)
            while not lost.is_set():
                _raise_if_cancelled()  # also after connect and LISTEN, which may swallow one
                await self._woken.wait()
                self._woken.clear()
                seasons, self._pending = sorted(self._pending), set()
                await self._each(seasons)
            raise ConnectionError("the listening connection was closed")
        finally:
            # terminate, not close: an await here could raise and swallow a cancellation, and
            # run() would then reconnect instead of stopping
            conn.terminate()

    async def _each(self, seasons: list[str]) -> None:
        """Catch the seasons up, LANES at a time: one season's reads and writes wait on the
        network while another's fold runs (ADR-112; one after the other, a surge's wake-ups
        queued behind each other's round trips)."""
        queue = iter(seasons)

        async def lane() -> None:
            for season_id in queue:
                await self._catch_up(season_id)
                _raise_if_cancelled()

        await asyncio.gather(*(lane() for _ in range(min(LANES, len(seasons)))))

    def _heard(self, _conn: object, _pid: int, _channel: str, payload: str) -> None:
        _, seasons = parse_wakeup(payload)
        if seasons:
            self._pending.update(seasons)
            self._woken.set()


def _raise_if_cancelled() -> None:
    """Honour a cancellation that an inner await swallowed.

    On Python 3.11, asyncio.wait_for (used inside asyncpg) can return a result that completed
    just as the task was cancelled, dropping the CancelledError; the task's cancel request
    is still counted, so the loop checks it after each step instead of waiting for ever.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def start_listener(
    dsn: str, open_projector: Callable[[], Awaitable[Projector]]
) -> threading.Thread:
    """A daemon thread with its own event loop and projector (`open_projector`, opened on that
    loop), serving wake-ups heard on a LISTEN connection to `dsn`, for this process."""

    def loop() -> None:
        async def run() -> None:
            projector = await open_projector()

            async def catch_up(season_id: str) -> None:
                try:
                    await projector.woken(season_id)
                except Exception:  # this season waits for the sweep; the others go on
                    log.exception("projections.catch_up_failed", season_id=season_id)

            await Listener(dsn, catch_up).run()

        asyncio.run(run())

    thread = threading.Thread(target=loop, name="projection-listener", daemon=True)
    thread.start()
    return thread
