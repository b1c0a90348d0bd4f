"""The Divan scheduler (`seksenbir scheduler`): hands due work to the workers, from PostgreSQL.

Stateless: every sweep reads the event store's `due_work` table (migration 0004: one row per
season with work due, written by a trigger in the same transaction as the events that create
and clear it) through its `due_at` index, claims the rows not handed over within the last
`redeliver_after`, stamps them, and enqueues each with its deterministic message id. A message
the broker lost (a Redis crash, a flush) is so sent again; the resolver is idempotent, so a
second scheduler, or a message sent five times, still resolves the Divan once.

Bound (docs/runbook.md): a season whose message was lost is resolved at most
redeliver_after + interval + one resolution after the workers are back (defaults 10 + 5 s).
The live-seasons issue adds kinds of due work (timed Divans, registration and Kurultay
closes) to the same table and the same sweep.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import structlog

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


class Scheduler:
    """Sweeps due work from PostgreSQL into the broker; `enqueue(season_id, divan)` sends."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        enqueue: Callable[[str, int], None],
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        settings: SweepSettings | None = None,
    ) -> None:
        self.pool = pool
        self.enqueue = enqueue
        self.clock = clock
        self.settings = settings or SweepSettings()

    async def sweep(self) -> list[Due]:
        """One pass: claim every due row not handed over lately, and enqueue it."""
        now = self.clock()
        redeliver = timedelta(seconds=self.settings.redeliver_after_s)
        handed: list[Due] = []
        while True:
            rows = await self.pool.fetch(CLAIM_DUE, now, redeliver, self.settings.batch)
            batch = [Due(r["season_id"], r["kind"], r["divan"], r["due_at"]) for r in rows]
            for due in batch:
                self._hand_over(due, now)
            handed += batch
            if len(batch) < self.settings.batch:
                return handed

    def _hand_over(self, due: Due, now: datetime) -> None:
        if due.kind != "divan" or due.divan is None:
            log.warning("scheduler.unknown_kind", season_id=due.season_id, kind=due.kind)
            return
        # The claim is already stamped: a failed send is retried after redeliver_after.
        try:
            self.enqueue(due.season_id, due.divan)
        except Exception:
            log.exception("scheduler.enqueue_failed", season_id=due.season_id, divan=due.divan)
            return
        log.info(
            "scheduler.reenqueued",
            season_id=due.season_id,
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
        while not stop.is_set():
            try:
                await self.sweep()
            except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                log.warning("scheduler.sweep_failed", error=type(exc).__name__)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=self.settings.interval_s)
        log.info("scheduler.stopped")
