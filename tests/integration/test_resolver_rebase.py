"""ADR-128: the resolver's append conflicts with another writer's; when everything appended
meanwhile is orders for later Divans (R-4.4), the run already decided goes in at the new head,
the same events a re-run there would give; anything else is decided again, as before.

On both stores (the `store` fixture); any interleaving of later orders between the resolver's
appends (hypothesis, in memory); the race with real order writers on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from structlog.testing import capture_logs

from services.resolver import divan as resolver
from services.resolver.divan import REBASES, resolve
from shared.app.repository.seasons import Seasons, retrying
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import played_divan, run_divan
from shared.domain.replay import verify
from shared.domain.state import Order, SeasonState
from shared.eventstore import (
    EventMetadata,
    EventStore,
    InMemoryEventStore,
    NewEvent,
    PostgresEventStore,
)
from tests.clock import StepClock
from tests.http.support import Bey, build_season, state_of
from tests.http.test_concurrent_orders import MEMLEKETS
from tests.live_calendar import CREATED_AT

OTHER = EventMetadata(actor="seat", command_id="other")
Make = Callable[[SeasonState, int], list[ev.Event]]


def instant(state: SeasonState, divan: int) -> datetime:
    assert state.calendar is not None
    return state.calendar.at(divan)


def orders_for(divan: int, before: bool = False) -> Make:
    """A human's order set, decided as the command side does at an instant just after Divan
    `divan`'s (for the next one), or with `before`, just before it (for that Divan)."""

    def make(state: SeasonState, k: int) -> list[ev.Event]:
        humans = [b for b in state.beys if not b.computer]
        bey = humans[k % len(humans)]
        at = instant(state, divan) + timedelta(seconds=-1 if before else 1)
        hold = (Order(bey.memleket, "advance", _neighbour(bey.memleket), 1 + k % 5),)
        result = decide(state, c.SubmitOrders(bey.seat, divan + (0 if before else 1), hold, at=at))
        assert isinstance(result, list), result
        return result

    return make


def _neighbour(plate: int) -> int:
    from shared.domain.map import game_map

    return game_map().neighbours(plate)[0]


def token(state: SeasonState, k: int) -> list[ev.Event]:
    """A bey's new token: no input of any Divan, but not an order either: decided again."""
    seat = next(b.seat for b in state.beys if not b.computer)
    return [ev.TokenRotated(seat=seat, by="bey", token_hash=f"{k:064x}")]


class Runs:
    """Counts the resolver's runs of a Divan (each attempt that decides it)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0

        def counted(
            state: SeasonState, *a: Any, **k: Any
        ) -> tuple[list[ev.Event], SeasonState | None]:
            self.count += 1
            return played_divan(state, *a, **k)

        monkeypatch.setattr(resolver, "played_divan", counted)


def interloper(
    monkeypatch: pytest.MonkeyPatch, store: EventStore, make: Make, times: int
) -> list[int]:
    """Before each of the resolver's first `times` appends, another writer (a process of its
    own: its own fold) appends `make`'s events: the resolver's expected version is stale."""
    inner = store.append
    other = Seasons(store)
    done: list[int] = []

    async def append(season_id: str, expected: int, events: list[NewEvent], **kw: Any) -> Any:
        if len(done) < times and events[0].metadata.command_id == "divan/1":
            loaded = await other.load(season_id)
            made = make(loaded.state, len(done))
            await other.append(season_id, loaded.version, f"other/{len(done)}", made, OTHER)
            done.append(len(made))
        return await inner(season_id, expected, events, **kw)

    monkeypatch.setattr(store, "append", append)
    return done


async def live_season(store: EventStore) -> tuple[list[Bey], SeasonState, int]:
    beys = await build_season(store, MEMLEKETS[:6], mode="live")
    state, version = await state_of(store, beys[0].season_id)
    return beys, state, version


async def decoded(store: EventStore, season_id: str) -> list[ev.Event]:
    return [codec.decode_stored(r.data, r.type) for r in await store.read_stream(season_id)]


async def test_later_divans_orders_between_load_and_append_cost_no_second_run(
    store: EventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    beys, state, setup = await live_season(store)
    sid, now = beys[0].season_id, instant(state, 1) + timedelta(seconds=2)
    runs = Runs(monkeypatch)
    done = interloper(monkeypatch, store, orders_for(1), times=3)
    with capture_logs() as logs:
        assert await resolve(Seasons(store), sid, 1, now=now) == "resolved"
    assert runs.count == 1 and done == [1, 1, 1]
    assert [x["rebase"] for x in logs if x["event"] == "resolver.rebased"] == [1, 2, 3]
    events = await decoded(store, sid)
    later, divan = events[setup : setup + 3], events[setup + 3 :]
    assert all(isinstance(e, ev.OrdersSubmitted) and e.divan == 2 for e in later)
    # what a run on the new head gives, byte for byte; and on the state first loaded
    assert codec.encode(divan) == codec.encode(run_divan(fold(later, state), now=now))
    assert codec.encode(divan) == codec.encode(run_divan(state, now=now))
    recorded = await store.read_stream(sid, setup + 3)
    key = [e.event_id for e in recorded]
    assert key == [
        resolver_id(sid, i) for i in range(len(divan))
    ]  # ids of the Divan, not the version
    final, problems = verify(events)
    assert problems == [] and final.divan == 1
    assert set(final.orders) == {2}  # the later orders stand for Divan 2


def resolver_id(season_id: str, index: int) -> Any:
    from shared.app.repository.seasons import event_id

    return event_id(season_id, "divan/1", index)


@pytest.mark.parametrize(
    "make", [token, orders_for(1, before=True)], ids=["token_rotated", "orders_for_the_divan"]
)
async def test_any_other_event_between_load_and_append_runs_the_divan_again(
    store: EventStore, monkeypatch: pytest.MonkeyPatch, make: Make
) -> None:
    beys, state, setup = await live_season(store)
    sid, now = beys[0].season_id, instant(state, 1) + timedelta(seconds=2)
    runs = Runs(monkeypatch)
    interloper(monkeypatch, store, make, times=1)
    with capture_logs() as logs:
        assert await resolve(Seasons(store), sid, 1, now=now) == "resolved"
    assert runs.count == 2
    assert not [x for x in logs if x["event"] == "resolver.rebased"]
    events = await decoded(store, sid)
    assert codec.encode(events[setup + 1 :]) == codec.encode(
        run_divan(fold(events[: setup + 1]), now=now)
    )
    assert verify(events)[1] == []


@pytest.mark.integration
async def test_a_divan_racing_order_writers_on_postgresql_is_run_once(
    event_store: PostgresEventStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four order writers (each a process of its own: its own fold) append orders for Divan 2
    one after another while Divan 1 is resolved: one run, appended past their orders.

    ADR-128 promises at most REBASES rebases before the run is decided again, so once the
    Divan runs the writers append at most REBASES - 8 order sets between them (each may have
    one more in flight, and the interloper adds one: fewer conflicts than rebases). Unbounded,
    four writers of one round trip each against the rebase's two (read, append) won 64 times
    in a row in about 1 run of 8."""
    beys, state, setup = await live_season(event_store)
    sid, now = beys[0].season_id, instant(state, 1) + timedelta(seconds=2)
    runs = Runs(monkeypatch)
    interloper(monkeypatch, event_store, orders_for(1), times=1)  # at least one conflict
    make, stop, written = orders_for(1), asyncio.Event(), [0]
    go, budget = asyncio.Event(), (REBASES - 8) // 4  # order sets a writer appends once it runs

    async def writer(w: int) -> None:
        seasons = Seasons(event_store)
        during = 0
        while not stop.is_set():
            if go.is_set():
                if during == budget:
                    return
                during += 1

            async def attempt(_n: int) -> None:
                loaded = await seasons.load(sid)
                made = make(loaded.state, w)
                await seasons.append(sid, loaded.version, f"w{w}/{written[0]}", made, OTHER)

            await retrying(sid, 100, attempt)
            written[0] += 1
            await asyncio.sleep(0)

    async def divan() -> str:
        try:
            await asyncio.sleep(0.02)
            go.set()
            return await resolve(Seasons(event_store), sid, 1, now=now, retries=0)
        finally:
            stop.set()

    with capture_logs() as logs:
        *_, outcome = await asyncio.gather(*(writer(w) for w in range(4)), divan())
    assert outcome == "resolved"
    assert runs.count == 1  # retries=0: a second run would have raised
    assert [x for x in logs if x["event"] == "resolver.rebased"]
    events = await decoded(event_store, sid)
    lock = next(i for i, e in enumerate(events) if isinstance(e, ev.DivanHeld))
    before = events[setup:lock]
    assert len(before) >= 2 and all(
        isinstance(e, ev.OrdersSubmitted) and e.divan == 2 for e in before
    )
    assert codec.encode(events[lock : lock + len(run_divan(state, now=now))]) == codec.encode(
        run_divan(state, now=now)
    )
    assert verify(events)[1] == []


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.integers(0, 5), min_size=1, max_size=4), min_size=1, max_size=5))
def test_any_interleaving_of_later_orders_appends_what_a_run_at_the_new_head_gives(
    batches: list[list[int]],
) -> None:
    """Before each of the resolver's appends, a batch of order sets for Divan 2 (humans picked
    by the draw) lands: one run, its events those of a run on the final head, byte for byte."""
    asyncio.run(_interleaved(batches))


async def _interleaved(batches: list[list[int]]) -> None:
    store = InMemoryEventStore(clock=StepClock(CREATED_AT))
    beys, state, setup = await live_season(store)
    sid, now = beys[0].season_id, instant(state, 1) + timedelta(seconds=2)
    inner, other, left = store.append, Seasons(store), list(batches)

    async def append(season_id: str, expected: int, events: list[NewEvent], **kw: Any) -> Any:
        if left and events[0].metadata.command_id == "divan/1":
            for k in left.pop(0):
                loaded = await other.load(season_id)
                made = orders_for(1)(loaded.state, k)
                await other.append(season_id, loaded.version, f"o/{loaded.version}", made, OTHER)
        return await inner(season_id, expected, events, **kw)

    store.append = append  # type: ignore[method-assign]
    with mock.patch.object(resolver, "played_divan", wraps=played_divan) as runs:
        assert await resolve(Seasons(store), sid, 1, now=now) == "resolved"
    assert runs.call_count == 1
    events = await decoded(store, sid)
    orders = sum(len(b) for b in batches)
    head, divan = events[: setup + orders], events[setup + orders :]
    assert all(isinstance(e, ev.OrdersSubmitted) and e.divan == 2 for e in head[setup:])
    assert codec.encode(divan) == codec.encode(run_divan(fold(head), now=now))
    assert [r.event_id for r in await store.read_stream(sid, setup + orders)] == [
        resolver_id(sid, i) for i in range(len(divan))
    ]
    assert verify(events)[1] == []
