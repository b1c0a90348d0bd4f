"""Wake-ups after commits: NOTIFY payloads, and the sender that batches them under load."""

from __future__ import annotations

import asyncio
import json

import asyncpg

from shared.eventstore.busy import Checkout, is_busy
from shared.eventstore.errors import StoreBusyError
from shared.logs import get_logger

log = get_logger(__name__)

NOTIFY_WINDOW = 0.02  # seconds: under load, appends' wake-ups within one window share a NOTIFY
NOTIFY = "SELECT pg_notify($1, $2)"
NOTIFY_CHANNEL = "seksenbir_events"  # payload: see wakeup_payloads; a wake-up hint only
_MAX_PAYLOAD = 7000  # bytes; PostgreSQL refuses a NOTIFY payload of 8000 or more


def wakeup_payloads(newest: int, seasons: list[str]) -> list[str]:
    """The NOTIFY payloads for appends committed to `seasons`: JSON {"position", "seasons"}.

    `position` is the newest position committed when the wake-up was sent; the seasons are
    split over as many payloads as the size limit asks. A listener catches those seasons up.
    """
    payloads: list[str] = []
    chunk: list[str] = []
    size = 0
    for season_id in seasons:
        if chunk and size + len(season_id) + 4 > _MAX_PAYLOAD:
            payloads.append(json.dumps({"position": newest, "seasons": chunk}))
            chunk, size = [], 0
        chunk.append(season_id)
        size += len(season_id) + 4
    payloads.append(json.dumps({"position": newest, "seasons": chunk}))
    return payloads


def parse_wakeup(payload: str) -> tuple[int, list[str]]:
    """(position, seasons) of a wake-up; a payload this store did not write names no season."""
    try:
        data = json.loads(payload)
        return int(data["position"]), [str(s) for s in data["seasons"]]
    except (ValueError, TypeError, KeyError):
        return 0, []


class Waker:
    """Wake-ups for appends: at once when the store is quiet, at most one per `window` when busy.

    Every committed append is followed by a NOTIFY sent after its commit, naming its season. The
    first commit after a quiet spell starts a task that sends its wake-up at once, then sleeps
    `window` seconds; seasons committed meanwhile go out together when it wakes, and so on until
    a sleep passes with no commit. So a lone append is heard a round trip after its commit, and
    under load NOTIFYs cost a round trip per window, not per append (wakeup_payloads).
    """

    def __init__(self, pool: asyncpg.Pool, window: float) -> None:
        self._pool = pool
        self._window = window
        self._seasons: set[str] = set()
        self._newest = 0  # the largest position committed so far
        self._task: asyncio.Task[None] | None = None
        self._draining = False  # the pool is about to close: no sleep between rounds

    async def drain(self) -> None:
        """Send the wake-ups still owed and wait until the sender is done (no sleep after its
        last round): call before the pool closes, or the sender meets a closing pool and the
        wake-ups of the last appends are lost (`eventstore.notify_failed`)."""
        self._draining = True
        while self._task is not None and not self._task.done():
            await self._task

    def committed(self, season_id: str, position: int) -> None:
        self._newest = max(self._newest, position)
        self._seasons.add(season_id)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        while self._seasons:
            seasons, self._seasons = sorted(self._seasons), set()  # later commits: next round
            try:
                async with Checkout(self._pool) as conn:
                    for payload in wakeup_payloads(self._newest, seasons):
                        await _wake_up(conn, payload)
            except (asyncpg.PostgresError, StoreBusyError) as exc:
                log.warning("eventstore.notify_failed", error=f"{type(exc).__name__}: {exc}")
            if not self._draining:
                await asyncio.sleep(self._window)


async def _wake_up(conn: asyncpg.Connection, payload: str) -> None:
    """NOTIFY after the commit, in a transaction of its own (it writes no WAL, so the queue lock
    it takes is not held across a flush). Only a hint: a failure loses a wake-up, not an event."""
    try:
        await conn.execute(NOTIFY, NOTIFY_CHANNEL, payload)
    except asyncpg.PostgresError as exc:
        if is_busy(exc):
            raise  # the checkout maps it, and discards a lost connection
        log.warning("eventstore.notify_failed", error=f"{type(exc).__name__}: {exc}")
