"""Live seasons over HTTP (issue 12): creation, joins, the calendar's locks, the status, and
season admin, with the command edge's injected fake clock (moved, never slept on).

R-1.3 (the calendar), R-1.4 (registration, first come first served), R-1.5 (the seed's
commitment), R-4.4 (what counts for which Divan), R-7.9 (spending is locked while a Divan is
resolved), R-6.1 (offers), D-20 … D-31.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

import pytest

from shared.app.access import tokens
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.admin import ADMIN_ACTS
from shared.domain.state import AdminActKind
from shared.eventstore import EventStore
from tests.http.support import (
    ANKARA,
    AUDITOR_TOKEN,
    ISTANBUL,
    OPS_TOKEN,
    Api,
    BarrierStore,
    Bey,
    assert_problem,
    bearer,
    create_trial,
    open_api,
    play_live_divans,
    state_of,
    unchanged,
)

PLUS3 = "+03:00"
HOLD = {"orders": [{"province": ANKARA, "kind": "hold"}]}


def close_in(api: Api, delta: timedelta) -> str:
    return (api.clock.now + delta).isoformat()


async def create_live(
    api: Api, *, headers: dict[str, str] | None = None, **body: Any
) -> dict[str, Any]:
    """POST /v1/seasons {"mode": "live"} closing in two hours unless told; 201 asserted."""
    body.setdefault("registration_closes_at", close_in(api, timedelta(hours=2)))
    r = await api.client.post("/v1/seasons", json={"mode": "live", **body}, headers=headers)
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/v1/seasons/{r.json()['season_id']}"
    return r.json()  # type: ignore[no-any-return]


def join(api: Api, season_id: str, memleket: int) -> Any:
    return api.client.post(f"/v1/seasons/{season_id}/join", json={"memleket": memleket})


async def joined(api: Api, season_id: str, memleket: int) -> Bey:
    r = await join(api, season_id, memleket)
    assert r.status_code == 201, r.text
    body = r.json()
    return Bey(season_id, body["seat"], body["token"], memleket)


async def status(api: Api, season_id: str) -> dict[str, Any]:
    r = await api.client.get(f"/v1/seasons/{season_id}")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def admin(api: Api, season_id: str, act: str, token: str | None, **body: Any) -> Any:
    headers = bearer(token) if token is not None else {}
    return api.client.post(
        f"/v1/seasons/{season_id}/admin/{act}",
        json={"reason": f"test {act}", **body},
        headers=headers,
    )


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def running_season(api: Api) -> tuple[dict[str, Any], Bey, Bey]:
    """A live season with two humans (Ankara and İstanbul) whose registration closed at its
    instant (the scheduler's CloseRegistration is a domain call here), the clock just after."""
    created = await create_live(api)
    sid = created["season_id"]
    a, b = await joined(api, sid, ANKARA), await joined(api, sid, 34)
    api.clock.now = instant(created["calendar"]["registration_closes_at"])
    await close_registration(api.store, sid, api.clock.now)
    return created, a, b


async def close_registration(store: EventStore, season_id: str, at: datetime) -> None:
    """What the scheduler does at the registration close (R-1.4, R-11.1)."""
    from shared.app.repository.seasons import Seasons
    from shared.domain import commands as c
    from shared.domain.decide import decide
    from shared.eventstore import EventMetadata

    seasons = Seasons(store)
    loaded = await seasons.load(season_id)
    events = decide(loaded.state, c.CloseRegistration(at=at))
    assert isinstance(events, list), events
    meta = EventMetadata(actor="system", command_id="close")
    await seasons.append(season_id, loaded.version, "close", events, meta)


# --- creating ----------------------------------------------------------------------------------


async def test_r1_3_a_live_season_answers_its_admin_token_once_and_its_provisional_calendar(
    api: Api,
) -> None:
    created = await create_live(api)
    sid = created["season_id"]
    assert set(created) == {"season_id", "admin_token", "calendar", "seed_commitment", "creator"}
    assert created["creator"] is None  # the creator need not play
    calendar = created["calendar"]
    assert calendar["provisional"] is True and calendar["compressed"] is False
    assert [d["divan"] for d in calendar["divans"]] == list(range(1, 17))
    instants = [calendar["registration_closes_at"], calendar["kurultay_closes_at"]]
    instants += [d["at"] for d in calendar["divans"]]
    assert all(t.endswith(PLUS3) for t in instants)
    one = instant(calendar["divans"][0]["at"])
    assert one.weekday() == 1 and one.hour == 21  # a Tuesday, 21:00 Istanbul
    assert one - instant(calendar["registration_closes_at"]) >= timedelta(hours=24)
    # only the hash is stored (R-1.5: only the seed's commitment is public, not the seed)
    records = await api.store.read_stream(sid)
    raw = b"".join(r.data for r in records)
    assert created["admin_token"].encode() not in raw
    state, _v = await state_of(api.store, sid)
    assert state.admin_token == tokens.token_hash(created["admin_token"])
    assert state.seed_commitment == created["seed_commitment"] and state.counts_on_boards
    assert [r.type for r in records] == [
        "season_created.v1",
        "calendar_set.v2",
        "deadline_set.v1",  # the registration close, in the scheduler's due work
        "admin_token_set.v1",
    ]
    # the server instant of the creation is recorded with its events (the fake clock's)
    at = records[0].metadata.at
    assert at is not None and at.endswith(PLUS3)
    seen = await status(api, sid)
    assert (seen["mode"], seen["phase"], seen["calendar"]) == ("live", "registration", calendar)
    assert seen["next_divan_at"] == calendar["divans"][0]["at"] and seen["locked"] is False
    assert seen["admin_acts"] == [] and (seen["paused"], seen["cancelled"]) == (False, False)


async def test_the_live_seed_is_drawn_from_a_cryptographic_source_per_season(
    memory_api: Api,
) -> None:
    """R-1.5: two live seasons, two different secret seeds; neither is shown."""
    one, two = await create_live(memory_api), await create_live(memory_api)
    s1, _ = await state_of(memory_api.store, one["season_id"])
    s2, _ = await state_of(memory_api.store, two["season_id"])
    assert s1.seed != s2.seed and s1.seed_salt != s2.seed_salt
    assert "seed" not in one and (await status(memory_api, one["season_id"]))["seed"] is None


async def test_a_creator_with_a_memleket_joins_and_gets_a_bey_token(memory_api: Api) -> None:
    created = await create_live(memory_api, memleket=ANKARA)
    assert created["creator"]["seat"] == 1 and created["creator"]["memleket"] == ANKARA
    bey = Bey(created["season_id"], 1, created["creator"]["token"], ANKARA)
    me = await memory_api.client.get(bey.url("/me"), headers=bey.auth())
    assert me.status_code == 200, me.text
    assert me.json()["memleket"] == ANKARA
    # the admin token is not a bey token, nor the other way round: a known caller in the
    # wrong place, 403 (ADR-61)
    r = await memory_api.client.get(bey.url("/me"), headers=bearer(created["admin_token"]))
    assert_problem(r, 403, "forbidden")


async def test_a_compressed_calendar_is_for_ops_only_and_may_close_one_interval_ahead(
    memory_api: Api,
) -> None:
    body = {
        "divan_interval_seconds": 5,
        "registration_closes_at": close_in(memory_api, timedelta(seconds=6)),
    }
    r = await unchanged(
        memory_api.store, memory_api.client.post("/v1/seasons", json={"mode": "live", **body})
    )
    assert_problem(r, 403, "forbidden")
    r = await memory_api.client.post(
        "/v1/seasons", json={"mode": "live", **body}, headers=bearer(AUDITOR_TOKEN)
    )
    assert_problem(r, 403, "forbidden")
    created = await create_live(memory_api, headers=bearer(OPS_TOKEN), **body)
    calendar = created["calendar"]
    assert calendar["compressed"] is True
    close = instant(calendar["registration_closes_at"])
    assert [instant(d["at"]) - close for d in calendar["divans"]][:2] == [
        timedelta(seconds=5),
        timedelta(seconds=10),
    ]
    state, _v = await state_of(memory_api.store, created["season_id"])
    assert not state.counts_on_boards  # a compressed season never counts on the boards


async def test_r1_3_a_sub_second_calendar_locks_at_the_instant_it_shows(memory_api: Api) -> None:
    """A close sent to the microsecond (a client's `now + 30 s`) puts the Divans on
    sub-second instants: the calendar shows each exactly, and a set naming Divan 1 is taken
    up to the instant shown and refused from it (shown to the second, it was still taken for
    0.7 s after the instant the player read)."""
    api = memory_api
    api.clock.now = api.clock.now.replace(microsecond=0)
    close = api.clock.now + timedelta(seconds=30, microseconds=700_000)
    created = await create_live(
        api,
        headers=bearer(OPS_TOKEN),
        divan_interval_seconds=10,
        registration_closes_at=close.isoformat(),
        memleket=ANKARA,
    )
    sid, token = created["season_id"], created["creator"]["token"]
    assert instant(created["calendar"]["registration_closes_at"]) == close
    api.clock.now = close
    await close_registration(api.store, sid, close)
    one = instant((await status(api, sid))["calendar"]["divans"][0]["at"])
    assert one == close + timedelta(seconds=10)
    orders = {**HOLD, "divan": 1}
    api.clock.now = one - timedelta(milliseconds=2)  # read 1 ms before the instant shown
    r = await api.client.post(f"/v1/seasons/{sid}/orders", headers=bearer(token), json=orders)
    head = await api.store.stream_version(sid)
    assert (r.status_code, r.json()) == (200, {"divan": 1, "orders": 1, "version": head})
    api.clock.now = one - timedelta(milliseconds=1)  # read at the instant shown
    late = api.client.post(f"/v1/seasons/{sid}/orders", headers=bearer(token), json=orders)
    assert assert_problem(await unchanged(api.store, late), 409, "wrong_divan")["divan"] == 2


async def test_not_later_names_the_close_as_the_calendar_shows_it(memory_api: Api) -> None:
    """A postponement to 13:00:30.4 of a close at 13:00:30.7 is not later: the refusal names
    the close the calendar shows (it said "later than 13:00:30", which 13:00:30.4 is)."""
    api = memory_api
    close = api.clock.now.replace(microsecond=0) + timedelta(hours=2, microseconds=700_000)
    created = await create_live(api, registration_closes_at=close.isoformat())
    shown = created["calendar"]["registration_closes_at"]
    r = admin(
        api,
        created["season_id"],
        "postpone",
        created["admin_token"],
        registration_closes_at=(close - timedelta(microseconds=300_000)).isoformat(),
    )
    problem = assert_problem(await unchanged(api.store, r), 422, "not_later")
    assert problem["registration_closes_at"] == shown
    assert instant(shown) == close


async def test_registration_too_soon_names_an_earliest_close_that_is_taken(
    memory_api: Api,
) -> None:
    """`earliest` is a close the server takes: rounded up to the second, not down (an hour
    after 14:00:00.5 shown as 15:00:00 was itself too soon)."""
    api = memory_api
    api.clock.now = api.clock.now.replace(microsecond=500_000)
    soon = close_in(api, timedelta(minutes=59))
    r = await api.client.post("/v1/seasons", json={"mode": "live", "registration_closes_at": soon})
    earliest = assert_problem(r, 422, "registration_too_soon")["earliest"]
    assert instant(earliest) >= api.clock.now + timedelta(hours=1)
    created = await create_live(api, registration_closes_at=earliest)
    assert created["calendar"]["registration_closes_at"] == earliest


async def test_trial_creation_refuses_a_calendar_and_needs_a_memleket(memory_api: Api) -> None:
    later = close_in(memory_api, timedelta(hours=2))
    r = await memory_api.client.post(
        "/v1/seasons", json={"memleket": 6, "registration_closes_at": later}
    )
    assert_problem(r, 403, "not_allowed_in_mode")
    assert_problem(await memory_api.client.post("/v1/seasons", json={}), 422, "invalid_body")
    r = await memory_api.client.post(
        "/v1/seasons", json={"mode": "live", "seed": "5", "registration_closes_at": later}
    )
    assert_problem(r, 403, "not_allowed_in_mode")  # a live seed is the server's


# --- joining -----------------------------------------------------------------------------------


async def test_r1_4_joins_are_first_come_first_served_and_a_taken_memleket_names_free_neighbours(
    api: Api,
) -> None:
    sid = (await create_live(api))["season_id"]
    first = await join(api, sid, ANKARA)
    assert first.status_code == 201, first.text
    body = first.json()
    assert (body["seat"], body["memleket"], body["calendar"]["provisional"]) == (1, ANKARA, True)
    assert (await joined(api, sid, 14)).seat == 2
    taken = await unchanged(api.store, join(api, sid, ANKARA))
    problem = assert_problem(taken, 409, "memleket_taken")
    assert problem["free_neighbours"] == [18, 26, 40, 42, 68, 71]  # 14 is taken too
    assert_problem(await join(api, sid, 99), 422, "invalid_body")  # D-27: plates 1 … 81
    r = await api.client.post("/v1/seasons/" + "0" * 32 + "/join", json={"memleket": 1})
    assert_problem(r, 404, "season_not_found")


async def test_d38_a_join_to_a_trial_season_is_not_allowed_in_its_mode(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    r = await unchanged(memory_api.store, join(memory_api, bey.season_id, ISTANBUL))
    assert_problem(r, 403, "not_allowed_in_mode")


async def test_r1_4_a_join_at_or_after_the_close_instant_is_refused_before_any_close_event(
    memory_api: Api,
) -> None:
    created = await create_live(memory_api)
    sid = created["season_id"]
    memory_api.clock.now = instant(created["calendar"]["registration_closes_at"])
    r = await unchanged(memory_api.store, join(memory_api, sid, ANKARA))
    assert_problem(r, 409, "registration_closed")
    state, _v = await state_of(memory_api.store, sid)
    assert state.phase == "registration"  # no close recorded yet: the instant decides
    await close_registration(memory_api.store, sid, memory_api.clock.now)
    assert_problem(await join(memory_api, sid, ANKARA), 409, "registration_closed")


async def test_r1_4_the_nineteenth_join_closes_registration_at_once_and_moves_the_calendar(
    memory_api: Api,
) -> None:
    created = await create_live(
        memory_api, registration_closes_at=close_in(memory_api, timedelta(days=20))
    )
    sid = created["season_id"]
    for plate in range(1, 19):
        await joined(memory_api, sid, plate)
    r = await join(memory_api, sid, 19)
    assert r.status_code == 201, r.text
    calendar = r.json()["calendar"]
    assert calendar["provisional"] is False
    assert calendar["divans"][0]["at"] < created["calendar"]["divans"][0]["at"]  # moved earlier
    seen = await status(memory_api, sid)
    assert (seen["phase"], seen["calendar"]) == ("running", calendar)
    assert_problem(await join(memory_api, sid, 20), 409, "season_full")


@pytest.mark.parametrize("round_", range(5))
async def test_r1_4_two_joins_racing_for_one_memleket_in_two_processes_one_wins(
    api_store: EventStore, round_: int
) -> None:
    """Two API processes decide on the same state (a barrier holds both appends until both
    decided); the event store's expected version lets one append, the other decides again on
    the winner's state and is refused memleket_taken. Always: five rounds."""
    async with open_api(api_store) as setup:
        sid = (await create_live(setup))["season_id"]
    barrier = BarrierStore(api_store, parties=2)
    async with (
        open_api(api_store, api_store=barrier) as one,  # type: ignore[arg-type]
        open_api(api_store, api_store=barrier) as two,  # type: ignore[arg-type]
    ):
        answers = await asyncio.gather(join(one, sid, ANKARA), join(two, sid, ANKARA))
    codes = sorted(r.status_code for r in answers)
    assert codes == [201, 409], [r.text for r in answers]
    loser = next(r for r in answers if r.status_code == 409)
    assert_problem(loser, 409, "memleket_taken")
    state, _v = await state_of(api_store, sid)
    assert [(b.seat, b.memleket) for b in state.beys] == [(1, ANKARA)]


async def test_r1_4_twenty_joins_racing_for_the_last_seat_one_wins(api: Api) -> None:
    sid = (await create_live(api, registration_closes_at=close_in(api, timedelta(days=20))))[
        "season_id"
    ]
    for plate in range(1, 19):
        await joined(api, sid, plate)
    answers = await asyncio.gather(*(join(api, sid, 40 + i) for i in range(20)))
    won = [r for r in answers if r.status_code == 201]
    assert len(won) == 1, [r.text for r in answers]
    for r in answers:
        if r.status_code != 201:
            assert_problem(r, 409, "season_full")
    state, _v = await state_of(api.store, sid)
    assert len(state.beys) == 19 and state.phase == "running"
    assert not any(b.computer for b in state.beys)


# --- time: the calendar's locks over HTTP ------------------------------------------------------


async def test_r4_4_orders_after_a_divans_instant_count_for_the_next_and_say_so(
    memory_api: Api,
) -> None:
    api = memory_api
    _created, a, _b = await running_season(api)
    state, _v = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    one = state.calendar.at(1)
    api.clock.now = one - timedelta(seconds=2)
    r = await api.client.post(a.url("/orders"), headers=a.auth(), json=HOLD)
    head = await api.store.stream_version(a.season_id)
    assert r.json() == {"divan": 1, "orders": 1, "version": head}
    seen = await status(api, a.season_id)
    assert (seen["locked"], seen["seconds_to_lock"]) == (False, 2)
    api.clock.now = one  # Divan 1's instant: its orders are locked, however late the worker
    r = await api.client.post(a.url("/orders"), headers=a.auth(), json=HOLD)
    head = await api.store.stream_version(a.season_id)
    assert (r.status_code, r.json()) == (200, {"divan": 2, "orders": 1, "version": head})
    late = await unchanged(
        api.store, api.client.post(a.url("/orders"), headers=a.auth(), json={**HOLD, "divan": 1})
    )
    assert assert_problem(late, 409, "wrong_divan")["divan"] == 2
    spend = api.client.post(
        a.url("/spend"), headers=a.auth("k1"), json={"kind": "paralı_asker", "province": ANKARA}
    )
    locked = assert_problem(await unchanged(api.store, spend), 409, "divan_locked")
    assert locked["detail"]
    seen = await status(api, a.season_id)
    assert (seen["locked"], seen["seconds_to_lock"]) == (True, 0)
    assert seen["next_divan_at"] == state.calendar.at(2).isoformat()
    # the server instant of every accepted command is recorded with its events
    records = await api.store.read_stream(a.season_id)
    last = records[-1]
    assert codec.decode_event(last.data) == ev.OrdersSubmitted(
        seat=a.seat, divan=2, orders=last_orders(last)
    )
    assert last.metadata.at is not None
    assert one <= instant(last.metadata.at) < one + timedelta(seconds=1)  # the fake clock's
    await play_live_divans(api.store, a.season_id, 1)
    r = await api.client.post(
        a.url("/spend"), headers=a.auth("k2"), json={"kind": "paralı_asker", "province": ANKARA}
    )
    assert r.status_code == 200, r.text


async def test_r1_4_a_command_after_the_close_instant_closes_registration_as_the_scheduler_would(
    memory_api: Api,
) -> None:
    """Registration closes at its instant (R-1.4), not when the scheduler's next tick records
    it: a bey's first command after the instant records the close (every empty seat a computer
    bey, the calendar final, exactly the events and metadata the scheduler writes) and is then
    taken for Divan 1. It was 409 `wrong_phase` until a worker got to the close, seconds with
    a compressed calendar, the whole outage with the workers down. Before the instant, orders
    stay `wrong_phase`; the scheduler's close afterwards finds it done."""
    from services.resolver.closes import close_registration as scheduled_close
    from shared.app.repository.seasons import Seasons

    api = memory_api
    created = await create_live(api, memleket=ANKARA)
    sid, token = created["season_id"], created["creator"]["token"]
    close = instant(created["calendar"]["registration_closes_at"])
    api.clock.now = close - timedelta(milliseconds=2)  # read 1 ms before the close
    early = api.client.post(f"/v1/seasons/{sid}/orders", headers=bearer(token), json=HOLD)
    assert_problem(await unchanged(api.store, early), 409, "wrong_phase")
    api.clock.now = close + timedelta(seconds=1)
    r = await api.client.post(f"/v1/seasons/{sid}/orders", headers=bearer(token), json=HOLD)
    head = await api.store.stream_version(sid)
    assert (r.status_code, r.json()) == (200, {"divan": 1, "orders": 1, "version": head})
    state, _v = await state_of(api.store, sid)
    assert state.phase == "running" and len(state.beys) == 19  # the seats filled
    assert state.calendar is not None and state.calendar.registration_closes_at == close
    assert set(state.orders[1]) == {1}  # the creator's set, for Divan 1
    records = await api.store.read_stream(sid)
    closing = [r for r in records if r.type == "registration_closed.v1"]
    assert [(r.metadata.actor, r.metadata.command_id) for r in closing] == [
        ("system", "close/registration")
    ]
    seen = await status(api, sid)
    assert (seen["phase"], seen["calendar"]["provisional"]) == ("running", False)
    assert await scheduled_close(Seasons(api.store), sid, api.clock.now) == "already_closed"


async def test_d30_a_pause_just_after_the_close_instant_pauses_the_closed_season(
    memory_api: Api,
) -> None:
    """The admin acts see the close at its instant as the bey's commands do: a pause a second
    after it (the scheduler not there yet) records the close, then pauses the running season;
    it was 409 `wrong_phase` (only a running season is paused) until a worker got there."""
    api = memory_api
    created = await create_live(api)
    sid, token = created["season_id"], created["admin_token"]
    api.clock.now = instant(created["calendar"]["registration_closes_at"]) + timedelta(seconds=1)
    r = await admin(api, sid, "pause", token)
    assert r.status_code == 200, r.text
    seen = await status(api, sid)
    assert (seen["phase"], seen["paused"], seen["calendar"]["provisional"]) == (
        "running",
        True,
        False,
    )
    postpone = admin(
        api, sid, "postpone", token, registration_closes_at=close_in(api, timedelta(days=1))
    )
    assert_problem(await unchanged(api.store, postpone), 409, "registration_closed")


async def test_r4_4_orders_after_divan_16s_lock_are_for_no_divan(memory_api: Api) -> None:
    """After Divan 16's instant no Divan is left (R-1.1): a set, with or without `divan`, is
    409 `wrong_phase` (the Kurultay is next), not `wrong_divan` naming a Divan 17 that does not
    exist (it answered `"divan": 17` even to a set that named 17)."""
    api = memory_api
    _c, a, _b = await running_season(api)
    await play_live_divans(api.store, a.season_id, 15)
    state, _v = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    api.clock.now = state.calendar.at(16) + timedelta(seconds=1)
    for body in (HOLD, {**HOLD, "divan": 16}, {**HOLD, "divan": 17}):
        r = api.client.post(a.url("/orders"), headers=a.auth(), json=body)
        problem = assert_problem(await unchanged(api.store, r), 409, "wrong_phase")
        assert "divan" not in problem, body


def last_orders(record: Any) -> Any:
    e = codec.decode_event(record.data)
    assert isinstance(e, ev.OrdersSubmitted)
    return e.orders


async def test_divan_locked_answers_retry_after(memory_api: Api) -> None:
    api = memory_api
    _c, a, _b = await running_season(api)
    state, _v = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    api.clock.now = state.calendar.at(1) + timedelta(minutes=1)
    r = await api.client.post(
        a.url("/spend"), headers=a.auth("k"), json={"kind": "sur", "province": ANKARA}
    )
    assert_problem(r, 409, "divan_locked")
    assert r.headers["retry-after"]


async def test_r6_1_offers_and_answers_carry_the_divan_they_count_for(memory_api: Api) -> None:
    api = memory_api
    _c, a, b = await running_season(api)
    r = await api.client.post(
        a.url("/offers"), headers=a.auth("o1"), json={"to": b.seat, "kind": "pact"}
    )
    assert (r.status_code, r.json()["divan"]) == (200, 1), r.text
    r = await api.client.post(
        b.url(f"/offers/{a.seat}/answer"), headers=b.auth(), json={"answer": "accept"}
    )
    assert (r.status_code, r.json()["divan"]) == (200, 1), r.text
    state, _v = await state_of(api.store, a.season_id)
    assert state.calendar is not None
    api.clock.now = state.calendar.at(1)
    r = await api.client.post(a.url(f"/offers/{b.seat}/withdraw"), headers=a.auth())
    assert assert_problem(r, 409, "divan_locked")["divan"] == 1
    r = await api.client.post(
        b.url("/offers"), headers=b.auth("o2"), json={"to": 3, "kind": "pact"}
    )
    assert (r.status_code, r.json()["divan"]) == (200, 2), r.text
    r = await api.client.post(b.url("/offers/3/withdraw"), headers=b.auth())
    assert (r.status_code, r.json()["divan"]) == (200, 2), r.text


async def test_trial_answers_carry_no_divan_and_live_divans_are_not_requested(
    memory_api: Api,
) -> None:
    from tests.http.support import create_trial

    trial = await create_trial(memory_api.client)
    r = await memory_api.client.post(
        trial.url("/offers"), headers=trial.auth("t"), json={"to": 2, "kind": "pact"}
    )
    assert r.status_code == 200 and "divan" not in r.json()
    assert "calendar" not in await status(memory_api, trial.season_id)
    _c, a, _b = await running_season(memory_api)
    r = await memory_api.client.post(a.url("/divans"), headers=a.auth(), json={"divan": 1})
    assert_problem(r, 403, "not_allowed_in_mode")


# --- season admin ------------------------------------------------------------------------------


@pytest.mark.parametrize("act", list(ADMIN_ACTS))
async def test_every_admin_act_needs_the_season_admin_token_or_ops(
    memory_api: Api, act: AdminActKind
) -> None:
    """Each act of ADMIN_ACTS (ADR-115), with a valid body: no token, a token of nobody here or
    of another season 401, this season's bey or an auditor 403; nothing changes."""
    api = memory_api
    created = await create_live(api, memleket=ANKARA)
    sid = created["season_id"]
    close = {"registration_closes_at": close_in(api, timedelta(days=3))}
    body = close if ADMIN_ACTS[act].takes_close else {}
    other = await create_live(api)
    for token, status_, code in [
        (None, 401, "missing_token"),
        ("nonsense", 401, "bad_token"),
        (other["admin_token"], 401, "bad_token"),  # another season's admin token
        (created["creator"]["token"], 403, "forbidden"),  # a bey of this season
        (AUDITOR_TOKEN, 403, "forbidden"),
    ]:
        r = await unchanged(api.store, admin(api, sid, act, token, **body))
        assert_problem(r, status_, code)


async def test_admin_acts_are_by_the_season_admin_or_ops_and_need_a_reason(
    memory_api: Api,
) -> None:
    api = memory_api
    created = await create_live(api, memleket=ANKARA)
    sid = created["season_id"]
    later = close_in(api, timedelta(days=3))
    r = await admin(api, sid, "postpone", created["admin_token"], registration_closes_at=later)
    assert r.status_code == 200, r.text
    assert r.json()["act"]["by"] == "admin"
    even_later = close_in(api, timedelta(days=4))
    r = await admin(api, sid, "postpone", OPS_TOKEN, registration_closes_at=even_later)
    assert (r.status_code, r.json()["act"]["by"]) == (200, "ops"), r.text
    r = await api.client.post(
        f"/v1/seasons/{sid}/admin/postpone", json={}, headers=bearer(OPS_TOKEN)
    )
    assert_problem(r, 422, "invalid_body")  # a reason is required


async def test_d29_postpone_moves_the_registration_close_and_is_shown_with_its_reason(
    memory_api: Api,
) -> None:
    api = memory_api
    created = await create_live(api)
    sid, token = created["season_id"], created["admin_token"]
    later = instant(created["calendar"]["registration_closes_at"]) + timedelta(days=7)
    r = await admin(api, sid, "postpone", token, registration_closes_at=later.isoformat())
    assert r.status_code == 200, r.text
    calendar = r.json()["calendar"]
    assert instant(calendar["registration_closes_at"]) == later and calendar["provisional"]
    assert instant(calendar["divans"][0]["at"]) - instant(
        created["calendar"]["divans"][0]["at"]
    ) == timedelta(days=7)
    seen = await status(api, sid)
    assert seen["calendar"] == calendar
    assert [(a["act"], a["reason"], a["by"]) for a in seen["admin_acts"]] == [
        ("postpone", "test postpone", "admin")
    ]
    assert seen["admin_acts"][0]["at"].endswith(PLUS3)
    for body, status_, code in [
        ({}, 422, "registration_close_required"),
        (
            {"registration_closes_at": created["calendar"]["registration_closes_at"]},
            422,
            "not_later",
        ),
        ({"registration_closes_at": "2027-01-01T10:00:00"}, 422, "invalid_instant"),
    ]:
        r = await unchanged(api.store, admin(api, sid, "postpone", token, **body))
        assert_problem(r, status_, code)


async def test_d30_cancel_before_divan_1_refuses_every_command_after_it(memory_api: Api) -> None:
    api = memory_api
    created = await create_live(api, memleket=ANKARA)
    sid, token = created["season_id"], created["admin_token"]
    bey = Bey(sid, 1, created["creator"]["token"], ANKARA)
    r = await admin(api, sid, "cancel", token)
    assert r.status_code == 200, r.text
    assert_problem(await unchanged(api.store, join(api, sid, 34)), 409, "season_cancelled")
    assert_problem(await admin(api, sid, "cancel", token), 409, "season_cancelled")
    seen = await status(api, sid)
    assert (seen["cancelled"], seen["next_divan_at"], seen["seconds_to_lock"]) == (True, None, None)
    r = await api.client.post(bey.url("/orders"), headers=bey.auth(), json=HOLD)
    assert_problem(r, 409, "season_cancelled")


async def test_d30_no_cancel_once_divan_1_is_due(memory_api: Api) -> None:
    api = memory_api
    created, _a, _b = await running_season(api)
    api.clock.now = instant(created["calendar"]["divans"][0]["at"])
    r = await unchanged(
        api.store, admin(api, created["season_id"], "cancel", created["admin_token"])
    )
    assert_problem(r, 409, "wrong_phase")


async def test_d30_d31_a_pause_stops_the_clock_and_a_resume_moves_the_calendar(
    memory_api: Api,
) -> None:
    api = memory_api
    created, a, _b = await running_season(api)
    sid, token = created["season_id"], created["admin_token"]
    one = instant(created["calendar"]["divans"][0]["at"])
    assert_problem(await admin(api, sid, "resume", token), 409, "not_paused")
    r = await admin(api, sid, "pause", token)
    assert r.status_code == 200, r.text
    assert_problem(await admin(api, sid, "pause", token), 409, "already_paused")
    api.clock.now = one + timedelta(days=10)  # long past Divan 1's instant, still paused
    seen = await status(api, sid)
    assert (seen["paused"], seen["locked"], seen["next_divan_at"]) == (True, False, None)
    r = await api.client.post(a.url("/orders"), headers=a.auth(), json=HOLD)
    head = await api.store.stream_version(sid)
    assert r.json() == {"divan": 1, "orders": 1, "version": head}  # the clock stands: Divan 1
    resumed_at = api.clock.now
    r = await admin(api, sid, "resume", token)
    assert r.status_code == 200, r.text
    divans = [instant(d["at"]) for d in r.json()["calendar"]["divans"]]
    assert divans[0] - resumed_at >= timedelta(hours=24) and divans[0].weekday() == 1
    assert (divans[0].hour, divans[1].weekday(), divans[1] - divans[0]) == (
        21,
        4,
        timedelta(days=3),
    )
    seen = await status(api, sid)
    assert seen["paused"] is False and instant(seen["next_divan_at"]) == divans[0]
    assert [x["act"] for x in seen["admin_acts"]] == ["pause", "resume"]


async def test_d30_no_pause_while_a_divan_is_locked(memory_api: Api) -> None:
    api = memory_api
    created, _a, _b = await running_season(api)
    api.clock.now = instant(created["calendar"]["divans"][0]["at"])
    r = await unchanged(
        api.store, admin(api, created["season_id"], "pause", created["admin_token"])
    )
    assert assert_problem(r, 409, "divan_locked")["divan"] == 1
    trial_r = await api.client.post("/v1/seasons", json={"memleket": ANKARA, "seed": "3"})
    tid = trial_r.json()["season_id"]
    assert_problem(await admin(api, tid, "pause", OPS_TOKEN), 403, "not_allowed_in_mode")


async def test_only_a_postponement_takes_a_registration_close(memory_api: Api) -> None:
    """D-27 strict bodies: a cancel, pause or resume (every act not `takes_close` in ADMIN_ACTS)
    with `registration_closes_at` is 422 `unknown_field` and changes nothing (it was taken and
    the close silently ignored)."""
    api = memory_api
    created = await create_live(api)
    sid, token = created["season_id"], created["admin_token"]
    later = close_in(api, timedelta(days=3))
    reason_only = [act for act, spec in ADMIN_ACTS.items() if not spec.takes_close]
    for act in reason_only:
        r = admin(api, sid, act, token, registration_closes_at=later)
        problem = assert_problem(await unchanged(api.store, r), 422, "unknown_field")
        assert problem["field"] == "$.registration_closes_at", act
    r = await admin(api, sid, "postpone", token, registration_closes_at=later)
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("reason", "code"),
    [
        ("\u200b", "reason_required"),  # a zero-width space: nothing to read
        ("\u2060\u00a0\ufeff", "reason_required"),  # a joiner, a space, a BOM: nothing to read
        ("\x1b[2Jcleared", "invalid_body"),  # a terminal's escape sequence (the CLI prints it)
        ("two\nlines", "invalid_body"),
        ("nul\x00byte", "invalid_body"),
        # issue 20 item 6 (ADR-77): judged by Unicode properties, not a list
        ("\u3164", "reason_required"),  # a Hangul filler (Default_Ignorable)
        ("\u2800", "reason_required"),  # the Braille blank: a symbol that draws nothing
        ("\u0301", "reason_required"),  # a combining mark with nothing to sit on
        ("a\u2028b", "invalid_body"),  # LINE SEPARATOR: two lines
        ("a\u2029b", "invalid_body"),  # PARAGRAPH SEPARATOR
        ("a\u061cb", "invalid_body"),  # ARABIC LETTER MARK: a direction mark (Bidi_Control)
        ("a\ue000b", "invalid_body"),  # private use: shown as nothing anyone agreed on
    ],
)
async def test_an_act_needs_a_reason_one_can_read_and_print(
    memory_api: Api, reason: str, code: str
) -> None:
    """A reason is shown in the status, the public reports and the CLI's lines: one with
    nothing visible in it is `reason_required`, one with a control character `invalid_body`
    ($.reason); both change nothing (they were recorded and shown as they came)."""
    api = memory_api
    created = await create_live(api)
    later = close_in(api, timedelta(days=3))
    r = api.client.post(
        f"/v1/seasons/{created['season_id']}/admin/postpone",
        json={"reason": reason, "registration_closes_at": later},
        headers=bearer(created["admin_token"]),
    )
    problem = assert_problem(await unchanged(api.store, r), 422, code)
    if code == "invalid_body":
        assert problem["field"] == "$.reason"
        bad = next(ch for ch in reason if ord(ch) < 32 or ord(ch) > 0x7F)
        assert f"U+{ord(bad):04X}" in problem["detail"], problem


async def test_an_unknown_act_is_not_found(memory_api: Api) -> None:
    created = await create_live(memory_api)
    r = await admin(memory_api, created["season_id"], "explode", OPS_TOKEN)
    assert_problem(r, 404, "not_found")


@pytest.mark.integration
async def test_d30_d31_admin_acts_move_the_schedulers_due_work_in_postgres(
    pg_api: Api, pg_pool: Any
) -> None:
    """The due_work row (fed by DeadlineSet in the events' transaction) follows the acts: a
    postponement moves the registration close, a pause removes the Divan, a resume sets it at
    its moved instant, a cancel removes it."""
    api = pg_api

    async def due(sid: str) -> Any:
        return await pg_pool.fetchrow(
            "SELECT kind, divan, due_at FROM due_work WHERE season_id = $1", sid
        )

    created, _a, _b = await running_season(api)
    sid, token = created["season_id"], created["admin_token"]
    row = await due(sid)
    assert (row["kind"], row["divan"]) == ("divan", 1)
    assert row["due_at"] == instant(created["calendar"]["divans"][0]["at"])
    assert (await admin(api, sid, "pause", token)).status_code == 200
    assert await due(sid) is None
    api.clock.advance(timedelta(days=9))
    r = await admin(api, sid, "resume", token)
    assert r.status_code == 200, r.text
    row = await due(sid)
    assert (row["kind"], row["divan"]) == ("divan", 1)
    assert row["due_at"] == instant(r.json()["calendar"]["divans"][0]["at"])
    assert (await admin(api, sid, "cancel", token)).status_code == 200
    assert await due(sid) is None

    other = await create_live(api)
    later = instant(other["calendar"]["registration_closes_at"]) + timedelta(days=2)
    r = await admin(
        api,
        other["season_id"],
        "postpone",
        other["admin_token"],
        registration_closes_at=later.isoformat(),
    )
    assert r.status_code == 200, r.text
    row = await due(other["season_id"])
    assert (row["kind"], row["due_at"]) == ("registration", later)


async def test_d30_a_stale_registration_close_of_a_cancelled_season_changes_nothing(
    memory_api: Api,
) -> None:
    """A close message handed over before the cancel (the broker may deliver it late) finds
    nothing to close: no refusal raised in the worker, nothing appended."""
    from services.resolver.closes import close_registration as worker_close
    from shared.app.repository.seasons import Seasons

    api = memory_api
    created = await create_live(api)
    assert (
        await admin(api, created["season_id"], "cancel", created["admin_token"])
    ).status_code == 200
    after = instant(created["calendar"]["registration_closes_at"]) + timedelta(minutes=1)
    close = worker_close(Seasons(api.store), created["season_id"], after)
    assert await unchanged_async(api.store, close) == "already_closed"


async def unchanged_async(store: EventStore, work: Any) -> Any:
    from tests.http.support import log_bytes

    before = await log_bytes(store)
    out = await work
    assert await log_bytes(store) == before
    return out


async def test_adr61_the_season_admin_token_on_a_bey_endpoint_is_403_and_not_counted(
    clock: Any,
) -> None:
    """ADR-61: the season's own season-admin token, verified against the hash the season keeps,
    is a known caller in the wrong place on a bey endpoint: 403 `forbidden`, like an ops or
    auditor token, and never counted by the failed-token limit; an `sba1.` string that is no
    season's admin token (made up, or another season's) is a guess: 401 `bad_token`, counted."""
    from shared.eventstore import InMemoryEventStore
    from tests.http.support import settings

    async with open_api(
        InMemoryEventStore(clock=clock), settings(auth_failures_per_minute=3)
    ) as api:
        live = await create_live(api, memleket=ANKARA)
        sid, admin_token = live["season_id"], live["admin_token"]
        other = (await create_live(api))["admin_token"]
        url = f"/v1/seasons/{sid}"
        hold = {"orders": [{"province": ANKARA, "kind": "hold"}]}
        for _ in range(5):  # more than the limit's 3: none of them counts
            assert_problem(
                await api.client.get(f"{url}/me", headers=bearer(admin_token)), 403, "forbidden"
            )
            r = await unchanged(
                api.store, api.client.post(f"{url}/orders", json=hold, headers=bearer(admin_token))
            )
            assert_problem(r, 403, "forbidden")
        en = await api.client.get(
            f"{url}/me", headers={**bearer(admin_token), "Accept-Language": "en"}
        )
        assert en.json()["detail"] == "A season-admin token is not a bey token"
        made_up = f"sba1.{sid}.{'x' * 32}"
        for guess in (made_up, other, admin_token + "x"):
            assert_problem(
                await api.client.get(f"{url}/me", headers=bearer(guess)), 401, "bad_token"
            )
        # three guesses: the bucket is empty now, for the valid admin token too
        r = await api.client.get(f"{url}/me", headers=bearer(admin_token))
        assert_problem(r, 429, "too_many_failed_attempts")
