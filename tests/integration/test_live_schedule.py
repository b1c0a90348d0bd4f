"""A live season run by the clock over a real PostgreSQL: the scheduler's due work, the resolver's
Divans and closes (issue 12; RELIABILITY 15 live, 16, 17).

Everything reads an injected clock: the scheduler's sweep and the resolver's `now` are given
the fake clock's instant, and the test moves it from deadline to deadline; nothing sleeps for
a deadline. The due work comes from the season's own deadline_set.v1 events (migration 0006).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import asyncpg
import pytest

from services.resolver.closes import close_kurultay, close_registration
from services.resolver.divan import resolve
from services.resolver.scheduler import Due, Scheduler, SweepSettings
from shared.app.repository.seasons import SeasonNotFound, Seasons
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.replay import verify
from shared.domain.state import DIVANS, Order, SeasonState
from shared.eventstore import EventMetadata, PostgresEventStore

pytestmark = pytest.mark.integration
CREATED_AT = datetime.fromisoformat("2026-12-01T12:00:00+03:00")  # a Tuesday
CLOSE = datetime.fromisoformat("2026-12-07T18:00:00+03:00")  # the Monday after
SETTINGS = SweepSettings(interval_s=0.05, redeliver_after_s=10.0, batch=100)


class FakeClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


class Sent:
    """The scheduler's `send`: records the due work it hands over."""

    def __init__(self) -> None:
        self.dues: list[Due] = []

    def __call__(self, due: Due) -> None:
        self.dues.append(due)


async def command(seasons: Seasons, sid: str, cmd: c.Command, key: str) -> list[ev.Event]:
    """Decide `cmd` on the season as stored and append what it decides (the service layer's
    path, without HTTP); a refusal fails the test."""
    try:
        loaded = await seasons.load(sid)
        state, version = loaded.state, loaded.version
    except SeasonNotFound:  # a new season
        state, version = SeasonState(), 0
    events = decide(state, cmd)
    assert isinstance(events, list), events
    await seasons.append(sid, version, key, events, EventMetadata(actor="system"))
    return events


async def live_season(seasons: Seasons, sid: str, humans: tuple[int, ...] = (6, 34)) -> None:
    create = c.CreateSeason(
        season_id=sid,
        seed=81,
        seed_salt="tuz",
        mode="live",
        registration_closes_at=CLOSE,
        at=CREATED_AT,
    )
    await command(seasons, sid, create, "create")
    for i, plate in enumerate(humans):
        await command(seasons, sid, c.JoinSeason(memleket=plate, at=CREATED_AT), f"join{i}")


async def due_row(pool: asyncpg.Pool, sid: str) -> tuple[str, int | None, datetime] | None:
    row = await pool.fetchrow("SELECT kind, divan, due_at FROM due_work WHERE season_id = $1", sid)
    return None if row is None else (row["kind"], row["divan"], row["due_at"])


async def hand_over(due: Due, seasons: Seasons, now: datetime) -> str:
    """What a resolver worker does with one message of due work, at `now`."""
    if due.kind == "registration":
        return await close_registration(seasons, due.season_id, now)
    if due.kind == "kurultay":
        return await close_kurultay(seasons, due.season_id, now)
    assert due.divan is not None
    return await resolve(seasons, due.season_id, due.divan, now=now)


async def run_by_the_clock(
    seasons: Seasons, pool: asyncpg.Pool, clock: FakeClock, sid: str, orders_from: int | None
) -> list[str]:
    """Move the clock from deadline to deadline; the scheduler hands over what is due, a
    worker acts on it. The human in seat `orders_from` gives orders every Divan (the other
    human stays silent, R-11.3). Returns what was handed over, in order."""
    handed: list[str] = []
    scheduler = Scheduler(pool, Sent(), clock=clock, settings=SETTINGS)
    for _ in range(DIVANS + 4):
        row = await due_row(pool, sid)
        if row is None:
            break
        kind, divan, due_at = row
        clock.now = due_at - timedelta(seconds=1)
        assert await scheduler.sweep() == []  # not due yet: nothing handed over
        if kind == "divan" and orders_from is not None:
            state = (await seasons.load(sid)).state
            mine = state.owned_by(orders_from)
            orders = tuple(Order(province=p, kind="hold") for p in mine)
            cmd = c.SubmitOrders(seat=orders_from, divan=divan or 0, orders=orders, at=clock.now)
            await command(seasons, sid, cmd, f"orders{divan}")
        clock.now = due_at + timedelta(seconds=2)
        sent = Sent()
        scheduler.send = sent
        dues = await scheduler.sweep()
        assert [(d.kind, d.divan) for d in sent.dues] == [(kind, divan)]
        assert await scheduler.sweep() == []  # handed over once, not again within redeliver
        for due in dues:
            assert await hand_over(due, seasons, clock.now) in {"closed", "resolved"}
            assert await hand_over(due, seasons, clock.now) in {
                "already_closed",
                "already_resolved",
            }
        handed.append(f"{kind}:{divan}" if divan else kind)
    return handed


async def test_issue_12_a_live_season_runs_by_the_clock_from_registration_to_the_han(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    """R-1.3, R-1.4, R-10.4, R-11.1, R-11.3: a registration close at its instant seats 17
    computer beys; 16 Divans each at its instant; the Kurultay closes 24 h after Divan 16."""
    seasons = Seasons(event_store)
    clock = FakeClock(CREATED_AT)
    await live_season(seasons, "live-a")
    assert await due_row(pg_pool, "live-a") == ("registration", None, CLOSE)
    handed = await run_by_the_clock(seasons, pg_pool, clock, "live-a", orders_from=1)
    assert handed == ["registration", *[f"divan:{n}" for n in range(1, 17)], "kurultay"]
    assert await due_row(pg_pool, "live-a") is None  # nothing is due any more
    loaded = await seasons.load("live-a")
    state = loaded.state
    assert state.phase == "over" and state.han is not None
    assert sum(b.computer for b in state.beys) == 17
    events = [codec.decode_event(r.data) for r in await event_store.read_stream("live-a")]
    held = [e for e in events if isinstance(e, ev.DivanHeld)]
    assert [(h.divan, h.late) for h in held] == [(n, False) for n in range(1, 17)]
    assert state.calendar is not None
    assert [h.at for h in held] == list(state.calendar.divans)
    assert any(isinstance(e, ev.SeedRevealed) for e in events)  # at the close
    _, problems = verify(events)
    assert problems == []


async def test_issue_12_the_same_inputs_replay_to_the_same_events(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    """Two live seasons with the same seed and the same commands at the same instants record
    the same events, the season id aside (R-12.3: deterministic from the seed)."""
    seasons = Seasons(event_store)
    for sid in ("twin-1", "twin-2"):
        await live_season(seasons, sid)
        await run_by_the_clock(seasons, pg_pool, FakeClock(CREATED_AT), sid, orders_from=2)
    one = [codec.decode_event(r.data) for r in await event_store.read_stream("twin-1")]
    two = [codec.decode_event(r.data) for r in await event_store.read_stream("twin-2")]
    assert len(one) > 100
    assert codec.encode(one[1:]) == codec.encode(two[1:])


async def test_reliability_17_divans_missed_while_everything_was_down_are_held_once_in_order(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    """RELIABILITY 17, issue 12: nothing ran across Divans 1–3; on restart each is resolved
    once, in order, locked at its own scheduled instant, and its report says it was late."""
    seasons = Seasons(event_store)
    await live_season(seasons, "down")
    clock = FakeClock(CLOSE + timedelta(seconds=1))
    scheduler = Scheduler(pg_pool, Sent(), clock=clock, settings=SETTINGS)
    for due in await scheduler.sweep():
        await hand_over(due, seasons, clock.now)
    state = (await seasons.load("down")).state
    assert state.calendar is not None
    clock.now = state.calendar.at(3) + timedelta(hours=2)  # back after Divan 3's instant
    order: list[int | None] = []
    for _ in range(5):
        dues = await scheduler.sweep()
        for due in dues:
            order.append(due.divan)
            await hand_over(due, seasons, clock.now)
    assert order == [1, 2, 3]  # once each, in order; Divan 4 is not due yet
    events = [codec.decode_event(r.data) for r in await event_store.read_stream("down")]
    held = [e for e in events if isinstance(e, ev.DivanHeld)]
    assert [(h.divan, h.at, h.late) for h in held] == [
        (n, state.calendar.at(n), True) for n in (1, 2, 3)
    ]
    reports = [e for e in events if isinstance(e, ev.DivanResolved)]
    assert [r.public[0].kind for r in reports] == ["divan_late"] * 3
    assert await due_row(pg_pool, "down") == ("divan", 4, state.calendar.at(4))


async def test_r1_3_a_message_for_a_live_divan_before_its_instant_changes_nothing(
    event_store: PostgresEventStore,
) -> None:
    """A worker whose message came early (a skewed clock) leaves the Divan to its instant."""
    seasons = Seasons(event_store)
    await live_season(seasons, "early")
    assert await close_registration(seasons, "early", CLOSE - timedelta(seconds=1)) == "not_due"
    assert await close_registration(seasons, "early", CLOSE) == "closed"
    state = (await seasons.load("early")).state
    assert state.calendar is not None
    at1 = state.calendar.at(1)
    assert await resolve(seasons, "early", 1, now=at1 - timedelta(milliseconds=1)) == "not_due"
    assert await resolve(seasons, "early", 2, now=at1 + timedelta(days=9)) == "not_due"
    assert await resolve(seasons, "early", 1, now=at1) == "resolved"
    assert await close_kurultay(seasons, "early", at1) == "already_closed"


async def test_reliability_18_orders_racing_the_lock_count_for_one_divan_only(
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 18: an order set stamped before the instant but appended after the lock is
    refused for Divan n (wrong_divan, n+1) or counts for n+1, never both and never lost: the
    season's expected version decides."""
    seasons = Seasons(event_store)
    await live_season(seasons, "race")
    await close_registration(seasons, "race", CLOSE)
    state = (await seasons.load("race")).state
    assert state.calendar is not None
    at1 = state.calendar.at(1)
    mine = tuple(Order(province=p, kind="hold") for p in state.owned_by(1))
    before = await seasons.load("race")  # the API loaded the season before the lock …
    assert await resolve(seasons, "race", 1, now=at1) == "resolved"  # … the resolver locked
    early = c.SubmitOrders(seat=1, divan=1, orders=mine, at=at1 - timedelta(milliseconds=5))
    decided = decide(before.state, early)
    assert isinstance(decided, list)
    from shared.eventstore import ConcurrencyError

    with pytest.raises(ConcurrencyError):  # the stale decision cannot be stored
        await seasons.append("race", before.version, "late", decided, EventMetadata(actor="system"))
    after = await seasons.load("race")  # decided again on the season as it is now
    again = decide(after.state, early)
    assert isinstance(again, c.Rejection) and again.code == "wrong_divan"
    assert again.details == {"divan": 2}
    for_next = c.SubmitOrders(seat=1, divan=2, orders=mine, at=at1 + timedelta(milliseconds=5))
    assert isinstance(decide(after.state, for_next), list)
