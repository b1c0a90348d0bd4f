"""19 beys give their orders at the same instant: every set is stored once (R-1.3, R-4.1, R-4.3).

The API only creates trial seasons (one human), so the season is a live one with 19 human
seats folded from domain events and appended directly (no JoinSeason over HTTP).
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from shared.domain import codec
from shared.domain import events as ev
from shared.domain.map import game_map
from shared.domain.state import Order
from shared.eventstore import PostgresEventStore
from tests.http.support import (
    Api,
    Bey,
    assert_problem,
    build_season,
    echoed,
    open_api,
    settings,
    state_of,
)

# 19 memlekets spread over the map (any 19 free provinces would do, R-1.4).
MEMLEKETS = [1, 6, 7, 9, 10, 16, 20, 21, 25, 27, 33, 34, 35, 38, 42, 44, 55, 61, 65]


def orders_of(bey: Bey) -> list[dict[str, object]]:
    """A legal, seat-specific set: the bey's one province (R-4.1: one order per province)
    advances seat-dependent units to a seat-dependent neighbour."""
    neighbours = game_map()[bey.memleket].neighbours
    target = neighbours[bey.seat % len(neighbours)]
    return [
        {"province": bey.memleket, "kind": "advance", "target": target, "units": 1 + bey.seat % 5}
    ]


async def submit_all(client: httpx.AsyncClient, beys: list[Bey]) -> list[httpx.Response]:
    return await asyncio.gather(
        *(
            client.post(b.url("/orders"), headers=b.auth(), json={"orders": orders_of(b)})
            for b in beys
        )
    )


async def check_stored_once(api: Api, beys: list[Bey], before: int, stored: set[int]) -> None:
    """Exactly the seats in `stored` have one OrdersSubmitted each, at contiguous versions, and
    /me shows every bey its own set only (R-4.3) or nothing if its submission was refused."""
    season_id = beys[0].season_id
    recorded = await api.store.read_stream(season_id, before)
    assert [e.version for e in recorded] == list(range(before + 1, before + 1 + len(stored)))
    events = [codec.decode_event(e.data) for e in recorded]
    assert all(isinstance(e, ev.OrdersSubmitted) for e in events)
    by_seat = {e.seat: e for e in events if isinstance(e, ev.OrdersSubmitted)}
    assert len(by_seat) == len(events)  # no seat twice
    assert set(by_seat) == stored
    for rec, e in zip(recorded, events, strict=True):
        assert rec.metadata.actor == "seat"
        assert rec.metadata.seat == str(by_seat[e.seat].seat)  # type: ignore[attr-defined]
    mine = await asyncio.gather(*(api.client.get(b.url("/me"), headers=b.auth()) for b in beys))
    for bey, r in zip(beys, mine, strict=True):
        assert r.status_code == 200, r.text
        me = r.json()
        assert me["seat"] == bey.seat
        expected = echoed(orders_of(bey)) if bey.seat in stored else []
        assert me["orders"]["orders"] == expected
        if bey.seat in stored:
            assert list(by_seat[bey.seat].orders) == [Order(**o) for o in orders_of(bey)]  # type: ignore[arg-type]


@pytest.mark.integration
async def test_nineteen_concurrent_submissions_are_each_stored_once_or_refused_whole(
    pg_api: Api,
) -> None:
    """R-4.1, RELIABILITY 18 (never lost, never twice): under 19 concurrent POSTs each answer
    is 200 or 409 `conflict`; every 200 is exactly one event of its own seat, every 409 none;
    the refused beys' retries then store their sets, once each."""
    beys = await build_season(pg_api.store, MEMLEKETS, mode="live")
    assert [b.seat for b in beys] == list(range(1, 20))
    _state, before = await state_of(pg_api.store, beys[0].season_id)

    answers = await submit_all(pg_api.client, beys)
    stored = set()
    for bey, r in zip(beys, answers, strict=True):
        if r.status_code == 200:
            version = r.json()["version"]
            assert r.json() == {"divan": 1, "orders": 1, "version": version}
            # the version it names is its own event's (read your writes, issue 20)
            rec = (await pg_api.store.read_stream(bey.season_id, from_version=version - 1))[0]
            assert (rec.version, rec.type) == (version, "orders_submitted.v1")
            assert codec.decode_event(rec.data).seat == bey.seat
            stored.add(bey.seat)
        else:
            assert_problem(r, 409, "conflict")
    await check_stored_once(pg_api, beys, before, stored)

    while len(stored) < len(beys):  # the refused ones retry, one at a time
        bey = next(b for b in beys if b.seat not in stored)
        r = await pg_api.client.post(
            bey.url("/orders"), headers=bey.auth(), json={"orders": orders_of(bey)}
        )
        assert r.status_code == 200, r.text
        stored.add(bey.seat)
    await check_stored_once(pg_api, beys, before, stored)


@pytest.mark.integration
async def test_nineteen_concurrent_submissions_with_a_retry_budget_of_19_all_succeed(
    event_store: PostgresEventStore,
) -> None:
    """R-4.1: with append_retries ≥ seats − 1 every concurrent submission lands (each round of
    optimistic retries stores at least one), each exactly once, versions contiguous."""
    async with open_api(event_store, settings(append_retries=19)) as api:
        beys = await build_season(api.store, MEMLEKETS, mode="live")
        _state, before = await state_of(api.store, beys[0].season_id)
        answers = await submit_all(api.client, beys)
        assert [r.status_code for r in answers] == [200] * 19, [r.text for r in answers]
        await check_stored_once(api, beys, before, {b.seat for b in beys})


@pytest.mark.integration
async def test_nineteen_beys_submitting_at_once_all_get_their_orders_stored(pg_api: Api) -> None:
    """R-4.1: 19 beys at once → 19 OrdersSubmitted, one per seat, with the default settings."""
    beys = await build_season(pg_api.store, MEMLEKETS, mode="live")
    _state, before = await state_of(pg_api.store, beys[0].season_id)
    answers = await submit_all(pg_api.client, beys)
    assert [r.status_code for r in answers] == [200] * 19
    await check_stored_once(pg_api, beys, before, {b.seat for b in beys})
