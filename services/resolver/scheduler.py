"""The Divan scheduler (`seksenbir scheduler`): hands due work to the workers, from PostgreSQL.

Stateless: every sweep reads the event store's `due_work` table (migration 0004: one row per
season with work due, written by a trigger in the same transaction as the events that create
and clear it) through its `due_at` index, claims the rows not handed over within the last
`redeliver_after`, stamps them, and enqueues each with its deterministic message id. A message
the broker lost (a Redis crash, a flush) is so sent again; the resolver is idempotent, so a
second scheduler, or a message sent five times, still resolves the Divan once.

Between sweeps the scheduler sleeps its interval, or less: until the next row falls due
(`NEXT_DUE`, one index row), so timed work is handed over at its instant.

Bound (docs/runbook.md): a season whose message was lost is resolved at most
redeliver_after + interval + one resolution after the workers are back (defaults 10 + 5 s).
A live season's timed work (its registration close, each Divan at its scheduled instant, its
Kurultay close: kinds 'registration', 'divan', 'kurultay') is in the same table, written from
its deadline_set.v1 events (migration 0006), and handed over by the same sweep.

The scheduler also purges Idempotency-Key records older than the retention window
(Settings.idempotency_key_retention_s, 24 h by default), at most once per `purge_every_s`:
a retry after that window is a new request (docs/eventstore.md, docs/runbook.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import structlog

from shared.eventstore import PostgresIdempotencyStore, StoreBusyError

log = structlog.get_logger(__name__)

# Claim what is due and was not handed over lately; SKIP LOCKED: rows another scheduler is
# claiming right now are its own (RELIABILITY 16). The inner scan walks due_work_due_at up to
# $1 only, so rows not due yet are never read.
CLAIM_DUE = """
UPDATE due_work AS w SET enqueued_at = $1
FROM (
    SELECT season_id FROM due_work
    WHERE due_at <= $1 AND (enqueued_at IS NULL OR enqueued_at <= $1 - $2::interval)
    ORDER BY due_at
    LIMIT $3
    FOR UPDATE SKIP LOCKED
) AS due
WHERE w.season_id = due.season_id
RETURNING w.season_id, w.kind, w.divan, w.due_at"""


# The next instant a row falls due after $1: the first entry of due_work_due_at past it (one
# index row, whatever the number of idle seasons), so a sweep can wake at it.
NEXT_DUE = "SELECT min(due_at) FROM due_work WHERE due_at > $1"
WAKE_AFTER_S = 0.005  # wake just after the instant: the claim takes rows due at or before now
# After a sweep handed work over, the workers write each season's next due row as they finish
# (a compressed calendar's next Divan a few seconds ahead, a missed one already due): for one
# interval the scheduler looks again this often, so that it sees those rows in time.
FOLLOW_UP_S = 0.5


@dataclass(frozen=True, slots=True)
class Due:
    """One piece of due work handed to the workers."""

    season_id: str
    kind: str
    divan: int | None
    due_at: datetime


@dataclass(frozen=True, slots=True)
class SweepSettings:
    """The sweep's knobs; `seksenbir scheduler` takes them from Settings (sweep_interval_s,
    sweep_redeliver_s, sweep_batch: SEKSENBIR_SWEEP_*, docs/configuration.md)."""

    interval_s: float = 5.0
    redeliver_after_s: float = 10.0
    batch: int = 1000  # rows claimed per statement; a sweep claims batches until none is left
    # Idempotency-Key records older than this are deleted (None: never); at most one purge per
    # purge_every_s (Settings: idempotency_key_retention_s, purge_interval_s)
    key_retention_s: float | None = None
    purge_every_s: float = 3600.0


class Scheduler:
    """Sweeps due work from PostgreSQL into the broker; `send(due)` hands one row over
    (production: shared.app.messaging.queues.due_message on the broker, entrypoints.bootstrap)."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        send: Callable[[Due], object],
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        settings: SweepSettings | None = None,
        send_all: Callable[[Sequence[Due]], object] | None = None,
    ) -> None:
        """`send_all`, when given, hands a claimed batch over at once (one broker round trip,
        bootstrap.due_queue; ADR-112) instead of `send` row by row."""
        self.pool = pool
        self.send = send
        self.send_all = send_all
        self.clock = clock
        self.settings = settings or SweepSettings()
        self._keys = PostgresIdempotencyStore(pool, clock=clock)
        self._purged_at: datetime | None = None

    async def sweep(self) -> list[Due]:
        """One pass: claim every due row not handed over lately, and enqueue it."""
        now = self.clock()
        redeliver = timedelta(seconds=self.settings.redeliver_after_s)
        handed: list[Due] = []
        while True:
            rows = await self.pool.fetch(CLAIM_DUE, now, redeliver, self.settings.batch)
            batch = [Due(r["season_id"], r["kind"], r["divan"], r["due_at"]) for r in rows]
            if self.send_all is not None and batch:
                self._hand_over_all(batch, now)
            else:
                for due in batch:
                    self._hand_over(due, now)
            handed += batch
            if len(batch) < self.settings.batch:
                return handed

    async def wait_s(self, *, following: bool = False) -> float:
        """Seconds until the next sweep: the interval, or less when a row falls due sooner,
        and at most FOLLOW_UP_S while `following` work just handed over (its next row is being
        written). A live Divan whose instant falls between two sweeps (a compressed calendar's
        every few seconds) is so handed over at its instant, not up to an interval later: with
        an interval of S ≤ the sweep's, every Divan was held late, and fell further behind;
        Divans missed during an outage are held one after the other, not one per interval."""
        now = self.clock()
        interval = (
            min(self.settings.interval_s, FOLLOW_UP_S) if following else (self.settings.interval_s)
        )
        upcoming: datetime | None = await self.pool.fetchval(NEXT_DUE, now)
        if upcoming is None:
            return interval
        return max(0.0, min(interval, (upcoming - now).total_seconds() + WAKE_AFTER_S))

    async def purge_keys(self) -> int | None:
        """Delete Idempotency-Key records older than the retention, if a purge is due now.

        Returns how many went, or None when no purge was due (none configured, or the last
        one was less than `purge_every_s` ago by the injected clock).
        """
        retention = self.settings.key_retention_s
        now = self.clock()
        last = self._purged_at
        if retention is None or (
            last is not None and now - last < timedelta(seconds=self.settings.purge_every_s)
        ):
            return None
        purged = await self._keys.purge(timedelta(seconds=retention))
        self._purged_at = now
        log.info("scheduler.keys_purged", purged=purged, retention_s=retention)
        return purged

    def _hand_over_all(self, batch: list[Due], now: datetime) -> None:
        # The claims are already stamped: a failed send is retried after redeliver_after.
        assert self.send_all is not None
        try:
            self.send_all(batch)
        except Exception:
            log.exception("scheduler.enqueue_failed", rows=len(batch))
            return
        for due in batch:
            self._handed(due, now)

    def _hand_over(self, due: Due, now: datetime) -> None:
        # The claim is already stamped: a failed send is retried after redeliver_after.
        try:
            self.send(due)
        except Exception:
            log.exception(
                "scheduler.enqueue_failed", season_id=due.season_id, kind=due.kind, divan=due.divan
            )
            return
        self._handed(due, now)

    def _handed(self, due: Due, now: datetime) -> None:
        log.info(
            "scheduler.enqueued",
            season_id=due.season_id,
            kind=due.kind,
            divan=due.divan,
            due_for_s=round((now - due.due_at).total_seconds(), 3),
        )

    async def run(self, stop: asyncio.Event) -> None:
        """Sweep every `interval_s` until `stop` is set; a failed sweep is logged and retried."""
        log.info(
            "scheduler.started",
            interval_s=self.settings.interval_s,
            redeliver_after_s=self.settings.redeliver_after_s,
        )
        handed_at: datetime | None = None
        follow_for = timedelta(seconds=self.settings.interval_s)
        while not stop.is_set():
            wait = self.settings.interval_s
            try:
                if await self.sweep():
                    handed_at = self.clock()
                await self.purge_keys()
                following = handed_at is not None and self.clock() - handed_at < follow_for
                wait = await self.wait_s(following=following)
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, StoreBusyError) as exc:
                log.warning("scheduler.sweep_failed", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=wait)
        log.info("scheduler.stopped")
