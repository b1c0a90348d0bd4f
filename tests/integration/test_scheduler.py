"""The Divan scheduler's sweep over a real PostgreSQL (issue 9 item 5, RELIABILITY 15 and 16).

Due work lives in `due_work` (migration 0004), written by a trigger on events in the same
statement as the DivanRequested that creates a row and the DivanResolved that clears it. The
sweep reads it through its `due_at` index with an injected clock, and hands each row to a fake
enqueue here (the broker itself is in test_scheduler_recovery.py).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from datetime import timedelta
from typing import Any

import asyncpg
import pytest

from services.resolver.scheduler import (
    CLAIM_DUE,
    FOLLOW_UP_S,
    NEXT_DUE,
    Due,
    Scheduler,
    SweepSettings,
)
from shared.app.messaging.queues import resolve_message, resolve_message_id
from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.eventstore import EventMetadata, PostgresEventStore
from tests.clock import StepClock

pytestmark = pytest.mark.integration
META = EventMetadata(actor="system")
SETTINGS = SweepSettings(interval_s=0.05, redeliver_after_s=10.0, batch=100)
SWEEPS_BOUND_S = 60.0  # two sweeps of 120 rows take well under a second on a quiet box
CREATED = ev.SeasonCreated(
    season_id="x", seed=1, mode="trial", rules_version="test", seed_commitment="c"
)


class FakeBroker:
    """The enqueue the scheduler is given: records what it would send, as messages."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, int]] = []

    def __call__(self, due: Due) -> None:
        assert due.kind == "divan" and due.divan is not None, due
        self.sent.append((due.season_id, due.divan))

    def message_ids(self) -> list[str]:
        return [resolve_message(s, d).message_id for s, d in self.sent]


async def season(seasons: Seasons, sid: str, *events: ev.Event) -> int:
    """A season stream: created, then `events`, each in an append of its own."""
    await seasons.append(sid, 0, "created", [CREATED], META)
    version = 1
    for i, e in enumerate(events):
        await seasons.append(sid, version, f"e{i}", [e], META)
        version += 1
    return version


def resolved(n: int) -> ev.DivanResolved:
    return ev.DivanResolved(divan=n, public=(), private={})


def scheduler(pool: asyncpg.Pool, clock: StepClock, broker: FakeBroker) -> Scheduler:
    return Scheduler(pool, broker, clock=clock, settings=SETTINGS)


async def test_the_sweep_finds_requested_divans_and_not_resolved_ones(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """R-1.2: requested-and-unresolved is due; resolved, or never requested, is not."""
    seasons = Seasons(event_store)
    await season(seasons, "stuck", ev.DivanRequested(divan=1))
    await season(
        seasons, "later", ev.DivanRequested(divan=1), resolved(1), ev.DivanRequested(divan=2)
    )
    await season(seasons, "done", ev.DivanRequested(divan=1), resolved(1))
    await season(seasons, "idle")
    broker = FakeBroker()
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))

    handed = await scheduler(pg_pool, clock, broker).sweep()

    assert sorted(broker.sent) == [("later", 2), ("stuck", 1)]
    assert sorted((d.season_id, d.kind, d.divan) for d in handed) == [
        ("later", "divan", 2),
        ("stuck", "divan", 1),
    ]
    assert await pg_pool.fetchval("SELECT count(*) FROM due_work") == 2


async def test_a_request_just_enqueued_by_the_api_is_left_to_its_own_message(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """The API enqueues with the request; the sweep sends it again only once it has stayed
    unresolved for redeliver_after, then once per redeliver_after (never every tick)."""
    await season(Seasons(event_store), "s", ev.DivanRequested(divan=1))
    broker = FakeBroker()
    sweeper = scheduler(pg_pool, clock, broker)
    assert await sweeper.sweep() == []
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))
    assert [d.divan for d in await sweeper.sweep()] == [1]
    assert await sweeper.sweep() == []  # handed over just now
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))
    assert [d.divan for d in await sweeper.sweep()] == [1]  # still unresolved: again
    assert broker.sent == [("s", 1), ("s", 1)]


async def test_message_ids_are_deterministic(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """The same (season, Divan) always travels under the same message id, whoever sends it."""
    await season(Seasons(event_store), "s", ev.DivanRequested(divan=1))
    first, second = FakeBroker(), FakeBroker()
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))
    await scheduler(pg_pool, clock, first).sweep()
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))
    await scheduler(pg_pool, clock, second).sweep()
    assert first.message_ids() == second.message_ids() == [resolve_message_id("s", 1)]
    assert resolve_message_id("s", 1) != resolve_message_id("s", 2)
    assert resolve_message_id("s", 1) != resolve_message_id("t", 1)


async def test_the_due_row_is_written_by_grouped_appends_too(
    pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """Group commit (several seasons in one statement): the trigger writes every row."""
    store = PostgresEventStore(pg_pool, clock=clock, group_commit=1, notify_window=None)
    seasons = Seasons(store)
    names = [f"g{i}" for i in range(8)]
    await asyncio.gather(*(seasons.append(n, 0, "c", [CREATED], META) for n in names))
    await asyncio.gather(
        *(seasons.append(n, 1, "r", [ev.DivanRequested(divan=1)], META) for n in names)
    )
    rows = await pg_pool.fetch("SELECT season_id, divan FROM due_work ORDER BY season_id")
    assert [(r["season_id"], r["divan"]) for r in rows] == [(n, 1) for n in names]
    await asyncio.gather(*(seasons.append(n, 2, "d", [resolved(1)], META) for n in names))
    assert await pg_pool.fetchval("SELECT count(*) FROM due_work") == 0


async def test_a_rolled_back_append_leaves_no_due_row(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    """Same transaction: an append refused by the stream's version writes no due work."""
    seasons = Seasons(event_store)
    await season(seasons, "s")
    with pytest.raises(Exception, match="version"):
        await seasons.append("s", 0, "stale", [ev.DivanRequested(divan=1)], META)
    assert await pg_pool.fetchval("SELECT count(*) FROM due_work") == 0


def _nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    out = [plan]
    for child in plan.get("Plans", []):
        out += _nodes(child)
    return out


async def test_a_sweep_reads_only_due_rows_whatever_the_events_and_idle_seasons(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """100,000 idle seasons must cost nothing per tick: the claim reads no event, and reads
    due_work through due_at up to now only. Here: 20,000 rows not yet due (as live seasons'
    next instants will be) and long streams; the plan touches only the two due rows."""
    seasons = Seasons(event_store)
    await season(
        seasons, "a", *[ev.SeedRevealed(seed=1, salt="s")] * 50, ev.DivanRequested(divan=1)
    )
    await season(seasons, "b", ev.DivanRequested(divan=1))
    future = clock.now + timedelta(days=3)
    await pg_pool.execute(
        """INSERT INTO due_work (season_id, kind, divan, due_at)
           SELECT 'idle-' || n, 'divan', 1, $1::timestamptz + n * interval '1 second'
           FROM generate_series(1, 20000) AS n""",
        future,
    )
    await pg_pool.execute("ANALYZE due_work")
    now = clock.now + timedelta(seconds=SETTINGS.redeliver_after_s + 1)
    async with pg_pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        try:  # EXPLAIN ANALYZE runs the claim: roll it back
            explained = await conn.fetchval(
                f"EXPLAIN (ANALYZE, FORMAT JSON) {CLAIM_DUE}",
                now,
                timedelta(seconds=SETTINGS.redeliver_after_s),
                SETTINGS.batch,
            )
        finally:
            await tx.rollback()
    nodes = _nodes(json.loads(explained)[0]["Plan"])
    relations = {n.get("Relation Name") for n in nodes} - {None}
    assert relations == {"due_work"}, relations  # never the events table
    scans = [n for n in nodes if n.get("Relation Name") == "due_work" and "Scan" in n["Node Type"]]
    by_due_at = [n for n in scans if n.get("Index Name") == "due_work_due_at"]
    assert by_due_at, [(n["Node Type"], n.get("Index Name")) for n in scans]
    for n in by_due_at:  # what the index walk read: the due rows, not the 20,000 idle ones
        assert n["Actual Rows"] + n.get("Rows Removed by Filter", 0) <= 2, n
    broker = FakeBroker()
    clock.now = now
    await scheduler(pg_pool, clock, broker).sweep()
    assert sorted(broker.sent) == [("a", 1), ("b", 1)]


async def test_two_schedulers_sweeping_at_once_hand_each_divan_over_once(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """RELIABILITY 16: two schedulers race over the same due rows (SKIP LOCKED, stamped)."""
    seasons = Seasons(event_store)
    names = [f"s{i:03}" for i in range(120)]
    for n in names:
        await season(seasons, n, ev.DivanRequested(divan=1))
    clock.advance(timedelta(seconds=SETTINGS.redeliver_after_s + 1))
    small = SweepSettings(interval_s=0.05, redeliver_after_s=10.0, batch=7)
    handed: Counter[tuple[str, int]] = Counter()
    twice = asyncio.Event()  # set on the first row handed over a second time

    class Watched(FakeBroker):
        def __call__(self, due: Due) -> None:
            super().__call__(due)
            handed[(due.season_id, due.divan or 0)] += 1
            if handed[(due.season_id, due.divan or 0)] > 1:
                twice.set()

    first, second = Watched(), Watched()
    sweeps = asyncio.gather(
        Scheduler(pg_pool, first, clock=clock, settings=small).sweep(),
        Scheduler(pg_pool, second, clock=clock, settings=small).sweep(),
    )
    # Bounded: a broken claim (a row claimed again) makes a sweep loop for ever on full
    # batches; the first repeat ends the race with the row named, and a sweep that never
    # ends fails at SWEEPS_BOUND_S instead of hanging the suite.
    repeat = asyncio.ensure_future(twice.wait())
    done, _ = await asyncio.wait(
        {sweeps, repeat}, timeout=SWEEPS_BOUND_S, return_when="FIRST_COMPLETED"
    )
    for task in (sweeps, repeat):
        task.cancel()
    await asyncio.gather(sweeps, repeat, return_exceptions=True)
    again = sorted(k for k, c in handed.items() if c > 1)
    assert not again, f"handed over more than once: {again[:5]} ({len(again)} rows)"
    assert sweeps in done, f"the two sweeps did not end within {SWEEPS_BOUND_S} s"
    both = first.sent + second.sent
    assert sorted(both) == [(n, 1) for n in names]  # every one, and none twice


async def _key(pool: asyncpg.Pool, key: str, created_at: object) -> None:
    await pool.execute(
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,"
        " response_body, created_at, completed_at) VALUES ('s1:3', $1, 'h', 'done', 200, '{}',"
        " $2, $2)",
        key,
        created_at,
    )


async def test_the_scheduler_purges_idempotency_keys_older_than_the_retention(
    pg_pool: asyncpg.Pool, clock: StepClock
):
    """Keys created before now - retention go, younger ones stay; the next purge waits
    `purge_every_s` by the injected clock (docs/runbook.md)."""
    settings = SweepSettings(key_retention_s=3600.0, purge_every_s=600.0)
    scheduler = Scheduler(pg_pool, FakeBroker(), clock=clock, settings=settings)
    await _key(pg_pool, "old", clock.now - timedelta(hours=2))
    await _key(pg_pool, "young", clock.now - timedelta(minutes=30))
    assert await scheduler.purge_keys() == 1
    keys = {r["key"] for r in await pg_pool.fetch("SELECT key FROM idempotency_keys")}
    assert keys == {"young"}
    clock.advance(timedelta(minutes=5))  # young is now 35 min old; still, no purge is due
    await _key(pg_pool, "older", clock.now - timedelta(hours=3))
    assert await scheduler.purge_keys() is None
    clock.advance(timedelta(minutes=30))  # 10 min since the purge: due; young is 65 min old
    assert await scheduler.purge_keys() == 2
    assert await pg_pool.fetchval("SELECT count(*) FROM idempotency_keys") == 0


async def test_the_scheduler_run_loop_purges_keys_beside_the_sweep(
    pg_pool: asyncpg.Pool, clock: StepClock
):
    settings = SweepSettings(interval_s=0.05, key_retention_s=60.0)
    scheduler = Scheduler(pg_pool, FakeBroker(), clock=clock, settings=settings)
    await _key(pg_pool, "old", clock.now - timedelta(hours=1))
    stop = asyncio.Event()
    task = asyncio.create_task(scheduler.run(stop))
    try:
        async with asyncio.timeout(10):
            while await pg_pool.fetchval("SELECT count(*) FROM idempotency_keys"):
                await asyncio.sleep(0.02)
    finally:
        stop.set()
        await task


def test_the_key_retention_is_a_setting_read_from_the_environment():
    from entrypoints.bootstrap import sweep_settings
    from shared.settings import Settings

    assert Settings().idempotency_key_retention_s == 24 * 3600.0
    env = {"SEKSENBIR_IDEMPOTENCY_KEY_RETENTION_S": "7200", "SEKSENBIR_PURGE_INTERVAL_S": "60"}
    settings = Settings.from_env(env)
    assert settings.idempotency_key_retention_s == 7200.0
    sweep = sweep_settings(settings)  # what `seksenbir scheduler` runs with
    assert (sweep.key_retention_s, sweep.purge_every_s) == (7200.0, 60.0)


async def test_the_scheduler_wakes_at_the_next_due_instant_when_it_is_sooner_than_its_interval(
    pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """A compressed calendar's Divan falls due between two sweeps: the scheduler sleeps until
    its instant, not the whole interval (it slept 5 s whatever came due, so with S ≤ 5 s every
    Divan was held late and the season fell further behind each Divan). The next instant is
    one row of the due_at index, whatever the idle seasons."""
    settings = SweepSettings(interval_s=5.0)
    scheduler = Scheduler(pg_pool, FakeBroker(), clock=clock, settings=settings)
    assert await scheduler.wait_s() == 5.0  # nothing due at all: the interval
    later = clock.now + timedelta(hours=1)
    await pg_pool.execute(
        """INSERT INTO due_work (season_id, kind, divan, due_at)
           SELECT 'idle-' || n, 'divan', 1, $1::timestamptz + n * interval '1 second'
           FROM generate_series(1, 20000) AS n""",
        later,
    )
    assert await scheduler.wait_s() == 5.0  # nothing due within the interval
    soon = clock.now + timedelta(seconds=2)
    await pg_pool.execute(
        "INSERT INTO due_work (season_id, kind, divan, due_at) VALUES ('soon', 'divan', 3, $1)",
        soon,
    )
    wait = await scheduler.wait_s()
    assert 1.99 < wait < 2.01, wait  # its instant (the clock moved a few ms while reading)
    # just after handing work over: look again soon, for the rows its workers are writing
    assert await scheduler.wait_s(following=True) == FOLLOW_UP_S
    await pg_pool.execute("ANALYZE due_work")
    explained = await pg_pool.fetchval(f"EXPLAIN (ANALYZE, FORMAT JSON) {NEXT_DUE}", clock.now)
    nodes = _nodes(json.loads(explained)[0]["Plan"])
    scans = [n for n in nodes if n.get("Relation Name") == "due_work"]
    assert scans and all(n.get("Index Name") == "due_work_due_at" for n in scans), scans
    assert sum(n["Actual Rows"] + n.get("Rows Removed by Filter", 0) for n in scans) <= 1


async def test_a_sweep_with_a_batch_sender_hands_each_claimed_batch_over_at_once(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock: StepClock
) -> None:
    """ADR-112: given `send_all` (bootstrap.due_queue's, one broker round trip per batch), a
    sweep hands every claimed batch over in one call and never row by row; a batch whose send
    fails stays claimed, so the sweep after redeliver_after sends it again (RELIABILITY 15)."""
    seasons = Seasons(event_store)
    for n in range(5):
        await season(seasons, f"batched-{n}", ev.DivanRequested(divan=1))
    batches: list[list[str]] = []
    failing = True

    def send_all(rows: Any) -> None:
        if failing:
            raise ConnectionError("the broker is down")
        batches.append(sorted(d.season_id for d in rows))

    def send(due: Due) -> None:
        raise AssertionError(f"sent row by row: {due}")

    small = SweepSettings(interval_s=0.05, redeliver_after_s=10.0, batch=3)
    make = Scheduler(pg_pool, send, clock=clock, settings=small, send_all=send_all)
    clock.advance(timedelta(seconds=small.redeliver_after_s + 1))
    assert len(await make.sweep()) == 5  # claimed, the send failed
    assert batches == []
    failing = False
    assert await make.sweep() == []  # claimed lately: not sent again yet
    clock.advance(timedelta(seconds=small.redeliver_after_s + 1))
    assert len(await make.sweep()) == 5
    assert [len(b) for b in batches] == [3, 2]
    assert sorted(s for b in batches for s in b) == [f"batched-{n}" for n in range(5)]
