"""Live seasons' registration and calendar (R-1.3, R-1.4, R-1.5, R-11.1), decided on instants.

Every command carries the server's instant (`at`); the domain reads no clock.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec
import pytest

from shared.domain import calendar as cal
from shared.domain import codec, live
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide, with_deadline
from shared.domain.evolve import evolve, fold
from shared.domain.map import game_map
from shared.domain.state import SEATS, SeasonState

NOW = datetime.fromisoformat("2026-12-01T12:00:00+03:00")  # a Tuesday
CLOSE = datetime.fromisoformat("2026-12-07T18:00:00+03:00")  # the Monday after, 18:00


def create(**kw: object) -> c.CreateSeason:
    base: dict[str, object] = {
        "season_id": "live1",
        "seed": 81,
        "seed_salt": "salt",
        "mode": "live",
        "registration_closes_at": CLOSE,
        "at": NOW,
        "counts_on_boards": True,
    }
    return c.CreateSeason(**{**base, **kw})  # type: ignore[arg-type]


def apply(state: SeasonState, cmd: c.Command) -> tuple[SeasonState, list[ev.Event]]:
    result = decide(state, cmd)
    assert isinstance(result, list), result
    for e in result:
        state = evolve(state, e)
    return state, result


def rejected(state: SeasonState, cmd: c.Command) -> c.Rejection:
    result = decide(state, cmd)
    assert isinstance(result, c.Rejection), result
    return result


def created(**kw: object) -> SeasonState:
    return apply(SeasonState(), create(**kw))[0]


def test_r1_3_a_live_season_is_created_with_its_provisional_calendar() -> None:
    state, events = apply(SeasonState(), create())
    assert [codec.event_type(e) for e in events] == [
        "season_created.v1",
        "calendar_set.v2",
        "deadline_set.v1",
    ]
    assert events[-1] == ev.DeadlineSet(
        kind="registration", divan=None, at=state.calendar.registration_closes_at
    )
    assert state.mode == "live" and state.phase == "registration"
    assert state.calendar is not None and state.calendar.provisional
    # Divan 1: the first Tuesday 21:00 at least 24 h after Monday 18:00 is the next day
    assert cal.iso(state.calendar.at(1)) == "2026-12-08T21:00:00+03:00"
    assert cal.iso(state.calendar.at(16)) == "2027-01-29T21:00:00+03:00"
    assert state.calendar.kurultay_closes_at == state.calendar.at(16) + timedelta(hours=24)
    assert state.counts_on_boards


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"registration_closes_at": None}, "registration_close_required"),
        ({"registration_closes_at": NOW + timedelta(minutes=59)}, "registration_too_soon"),
        ({"registration_closes_at": NOW - timedelta(days=1)}, "registration_too_soon"),
        ({"registration_closes_at": datetime(2026, 12, 7, 18)}, "invalid_instant"),  # naive
        ({"divan_interval_seconds": 1}, "bad_interval"),
        (
            {"divan_interval_seconds": 5, "registration_closes_at": NOW + timedelta(seconds=4)},
            "registration_too_soon",
        ),
        ({"mode": "trial"}, "not_allowed_in_mode"),  # a trial season has no calendar
    ],
)
def test_r1_3_a_live_season_needs_a_close_at_least_an_hour_ahead(
    changes: dict[str, object], code: str
) -> None:
    assert rejected(SeasonState(), create(**changes)).code == code


def test_the_earliest_close_is_told() -> None:
    r = rejected(SeasonState(), create(registration_closes_at=NOW))
    assert r.details["earliest"] == "2026-12-01T13:00:00+03:00"


def test_a_compressed_calendar_may_close_one_interval_ahead_and_never_counts_on_boards() -> None:
    state = created(divan_interval_seconds=5, registration_closes_at=NOW + timedelta(seconds=5))
    assert state.calendar is not None and state.calendar.compressed
    assert state.calendar.at(1) == NOW + timedelta(seconds=10)
    assert not state.counts_on_boards


def test_r1_4_humans_join_first_come_first_served_until_the_close() -> None:
    state = created()
    state, _ = apply(state, c.JoinSeason(memleket=6, at=NOW))
    state, _ = apply(state, c.JoinSeason(memleket=34, at=NOW + timedelta(hours=1)))
    assert [(b.seat, b.memleket, b.computer) for b in state.beys] == [(1, 6, False), (2, 34, False)]
    taken = rejected(state, c.JoinSeason(memleket=6, at=NOW))
    assert taken.code == "memleket_taken"
    assert taken.details["free_neighbours"] == list(game_map().neighbours(6))  # all still free
    # at its set instant registration is over, even before the scheduler has closed it
    assert rejected(state, c.JoinSeason(memleket=35, at=CLOSE)).code == "registration_closed"
    assert isinstance(
        decide(state, c.JoinSeason(memleket=35, at=CLOSE - timedelta(seconds=1))), list
    )


def test_r1_4_r11_1_a_close_at_its_instant_fills_empty_seats_and_keeps_the_calendar() -> None:
    state = created()
    state, _ = apply(state, c.JoinSeason(memleket=6, at=NOW))
    planned = state.calendar
    assert planned is not None
    late = CLOSE + timedelta(minutes=7)  # the scheduler got to it late: the instants stand
    state, events = apply(state, c.CloseRegistration(at=late))
    assert [codec.event_type(e) for e in events] == [
        "registration_closed.v1",
        "calendar_set.v2",
        "deadline_set.v1",
    ]
    assert events[-1] == ev.DeadlineSet(kind="divan", divan=1, at=planned.at(1))
    assert state.phase == "running" and len(state.beys) == SEATS
    assert sum(b.computer for b in state.beys) == SEATS - 1
    assert state.calendar is not None and not state.calendar.provisional
    assert state.calendar.divans == planned.divans
    assert rejected(state, c.JoinSeason(memleket=35, at=late)).code == "registration_closed"
    assert rejected(state, c.CloseRegistration(at=late)).code == "registration_closed"


def test_r1_4_the_nineteenth_seat_closes_registration_at_once_and_moves_the_calendar() -> None:
    state = created()
    plates = list(range(1, SEATS + 1))
    for plate in plates[:-1]:
        state, _ = apply(state, c.JoinSeason(memleket=plate, at=NOW))
    assert state.phase == "registration"
    full_at = datetime.fromisoformat("2026-12-02T10:00:00+03:00")  # a Wednesday
    state, events = apply(state, c.JoinSeason(memleket=plates[-1], at=full_at))
    assert [codec.event_type(e) for e in events] == [
        "bey_joined.v1",
        "registration_closed.v1",
        "calendar_set.v2",
        "deadline_set.v1",
    ]
    assert state.phase == "running" and not any(b.computer for b in state.beys)
    assert state.calendar is not None and not state.calendar.provisional
    assert cal.iso(state.calendar.at(1)) == "2026-12-08T21:00:00+03:00"  # ≥ 24 h after 10:00 Wed
    assert state.calendar.registration_closes_at == full_at
    # D-29: nineteen humans: the 20th is told the season is full (not merely closed)
    assert rejected(state, c.JoinSeason(memleket=70, at=full_at)).code == "season_full"


def test_an_early_close_of_a_compressed_season_keeps_its_interval() -> None:
    state = created(divan_interval_seconds=3, registration_closes_at=NOW + timedelta(hours=2))
    early = NOW + timedelta(minutes=5)
    state, _ = apply(state, c.CloseRegistration(at=early))
    assert state.calendar is not None and state.calendar.interval_seconds == 3
    assert state.calendar.at(1) == early + timedelta(seconds=3)


def test_the_calendar_events_round_trip_through_the_codec_and_replay() -> None:
    state = created()
    state, joined = apply(state, c.JoinSeason(memleket=6, at=NOW))
    state, closed = apply(state, c.CloseRegistration(at=CLOSE))
    events = [*apply(SeasonState(), create())[1], *joined, *closed]
    decoded = [codec.decode_event(codec.encode(e)) for e in events]
    assert decoded == events
    assert fold(decoded).calendar == state.calendar
    assert b"+03:00" in codec.encode(events[1])


# --- time: what a command accepted at an instant counts for (R-1.3, R-4.4, R-7.9) -----------
def running() -> SeasonState:
    """Two humans (seats 1, 2), 17 computer beys, registration closed at its instant."""
    state = created()
    state, _ = apply(state, c.JoinSeason(memleket=6, at=NOW))
    state, _ = apply(state, c.JoinSeason(memleket=34, at=NOW))
    state, _ = apply(state, c.CloseRegistration(at=CLOSE))
    return state


def instant(state: SeasonState, divan: int) -> datetime:
    assert state.calendar is not None
    return state.calendar.at(divan)


def test_r4_4_orders_before_a_divans_instant_are_for_it_and_after_it_for_the_next() -> None:
    state = running()
    one = instant(state, 1)
    before, after = one - timedelta(seconds=1), one
    _, events = apply(state, c.SubmitOrders(seat=1, divan=1, orders=(), at=before))
    assert events == [ev.OrdersSubmitted(seat=1, divan=1, orders=())]
    late = rejected(state, c.SubmitOrders(seat=1, divan=1, orders=(), at=after))
    assert (late.code, late.details["divan"]) == ("wrong_divan", 2)
    _s, events = apply(state, c.SubmitOrders(seat=1, divan=2, orders=(), at=after))
    assert events == [ev.OrdersSubmitted(seat=1, divan=2, orders=())]
    # a Divan missed while the workers were down: orders go to the first Divan still ahead
    much_later = instant(state, 3) + timedelta(hours=1)
    assert (
        rejected(state, c.SubmitOrders(seat=1, divan=2, orders=(), at=much_later)).details["divan"]
        == 4
    )


def _deadline_fields(state: SeasonState) -> tuple[object, ...]:
    """Every field live.next_deadline reads."""
    return (state.mode, state.calendar, state.paused_at, state.cancelled, state.phase, state.divan)


@pytest.mark.parametrize("paused", [False, True])
def test_events_that_keep_the_deadline_leave_every_field_it_reads(paused: bool) -> None:
    """live.KEEPS_DEADLINE (ADR-119): with_deadline skips their fold, so their fold must never
    move what next_deadline reads; with_deadline answers as the full computation would."""
    state = running()
    if paused:
        state = msgspec.structs.replace(state, paused_at=NOW)
    orders = {
        ev.OrdersSubmitted: ev.OrdersSubmitted(seat=1, divan=1, orders=()),
    }
    assert set(orders) == live.KEEPS_DEADLINE  # a type added there needs its case here
    for event in orders.values():
        after = fold([event], state)
        assert _deadline_fields(after) == _deadline_fields(state)
        assert live.next_deadline(after) == live.next_deadline(state)
        assert with_deadline(state, [event]) == [event]
    # a season's first events still get their deadline, whatever they are
    first = with_deadline(SeasonState(), [*decide(SeasonState(), create())])
    assert isinstance(first[-1], ev.DeadlineSet)


def test_r7_9_spending_between_a_divans_instant_and_its_resolution_is_divan_locked() -> None:
    state = running()
    one = instant(state, 1)
    ok = decide(state, c.HireMercenaries(seat=1, province=6, at=one - timedelta(seconds=1)))
    assert isinstance(ok, list)
    locked = rejected(state, c.HireMercenaries(seat=1, province=6, at=one))
    assert locked.code == "divan_locked"


def test_r6_1_an_offer_after_a_divans_instant_is_settled_at_the_next_divan() -> None:
    from shared.domain.lifecycle import lock

    state = running()
    one = instant(state, 1)
    early = c.OfferTreaty(seat=1, to=2, kind="pact", at=one - timedelta(minutes=1))
    state_a, events = apply(state, early)
    assert events == [ev.TreatyOffered(frm=1, to=2, kind="pact", divan=1)]
    assert [o.pair() for o in lock(state_a, 1).offers] == [(1, 2)]
    late = c.OfferTreaty(seat=1, to=2, kind="pact", at=one + timedelta(minutes=1))
    state_b, events = apply(state, late)
    assert events == [ev.TreatyOffered(frm=1, to=2, kind="pact", divan=2)]
    assert lock(state_b, 1).offers == ()  # left for Divan 2
    assert [o.pair() for o in lock(state_b, 2).offers] == [(1, 2)]
    # the late offer may still be answered (for Divan 2); the early one no longer can be
    answered = decide(state_b, c.AnswerOffer(seat=2, frm=1, answer="accept", at=one))
    assert answered == [ev.OfferAnswered(frm=1, to=2, answer="accept", divan=2)]
    too_late = rejected(state_a, c.AnswerOffer(seat=2, frm=1, answer="accept", at=one))
    assert (too_late.code, too_late.details["divan"]) == ("divan_locked", 1)
    assert rejected(state_a, c.WithdrawOffer(seat=1, to=2, at=one)).code == "divan_locked"
    assert isinstance(decide(state_b, c.WithdrawOffer(seat=1, to=2, at=one)), list)


def test_a_trial_offer_keeps_its_stored_shape() -> None:
    """The Divan a live act counts for is left out of trial events (omit_defaults)."""
    assert codec.encode(ev.TreatyOffered(frm=1, to=2, kind="pact")) == (
        b'{"frm":1,"kind":"pact","to":2,"type":"treaty_offered.v1"}'
    )


def test_r10_4_a_live_kurultay_closes_24_hours_after_divan_16_and_reveals_the_seed() -> None:
    import msgspec

    state = msgspec.structs.replace(running(), divan=16, phase="kurultay")
    closes = state.calendar.kurultay_closes_at if state.calendar else None
    assert closes is not None
    vote = c.CastVote(seat=1, candidate=2, at=closes - timedelta(seconds=1))
    assert decide(state, vote) == [ev.VoteCast(seat=1, candidate=2)]  # live: no hold at once
    over = rejected(state, c.CastVote(seat=1, candidate=2, at=closes))
    assert (over.code, over.key) == ("wrong_phase", "wrong_phase.kurultay_over")
    held = decide(state, c.HoldKurultay())
    assert isinstance(held, list)
    assert [codec.event_type(e) for e in held] == [
        "kurultay_held.v1",
        "seed_revealed.v1",
        "deadline_set.v1",
    ]
    assert held[1] == ev.SeedRevealed(seed=81, salt="salt")
    assert held[-1] == ev.DeadlineSet()  # nothing is due any more


# --- deadlines and Divans held by the clock (issue 12: the scheduler's due work) -------------
def test_r1_3_a_live_divan_is_held_at_its_instant_and_the_next_deadline_follows() -> None:
    from shared.domain.lifecycle import run_divan

    state = running()
    at1 = instant(state, 1)
    events = run_divan(state, now=at1 + timedelta(seconds=3))
    assert events[0] == ev.DivanHeld(divan=1, at=at1, late=False)
    assert isinstance(events[-2], ev.DivanResolved)
    assert events[-1] == ev.DeadlineSet(kind="divan", divan=2, at=instant(state, 2))
    assert not any(line.kind == "divan_late" for line in events[-2].public)


def test_r1_3_a_divan_held_after_downtime_is_locked_at_its_instant_and_marked_late() -> None:
    from shared.domain.lifecycle import run_divan

    state = running()
    at1 = instant(state, 1)
    events = run_divan(state, now=at1 + live.LATE_GRACE + timedelta(seconds=1))
    assert events[0] == ev.DivanHeld(divan=1, at=at1, late=True)
    resolved = events[-2]
    assert isinstance(resolved, ev.DivanResolved)
    assert resolved.public[0].kind == "divan_late" and resolved.public[0].data == {"divan": 1}


def test_r10_4_after_divan_16_the_deadline_is_the_kurultay_close_and_then_nothing() -> None:
    import msgspec

    state = msgspec.structs.replace(running(), divan=15)
    assert live.next_deadline(state) == live.Deadline("divan", 16, instant(state, 16))
    kurultay = msgspec.structs.replace(state, divan=16, phase="kurultay")
    assert state.calendar is not None
    assert live.next_deadline(kurultay) == live.Deadline(
        "kurultay", None, state.calendar.kurultay_closes_at
    )
    assert live.next_deadline(msgspec.structs.replace(kurultay, phase="over")) is None


@pytest.mark.parametrize(
    ("offset_s", "due"), [(-1, False), (0, True), (3600, True)], ids=["before", "at", "after"]
)
def test_r1_3_a_divan_is_due_from_its_instant_on(offset_s: int, due: bool) -> None:
    state = running()
    now = instant(state, 1) + timedelta(seconds=offset_s)
    assert live.divan_due(state, 1, now) is due
    assert live.divan_due(state, 2, now + timedelta(days=30)) is False  # only the next Divan


def test_a_trial_season_has_no_deadlines_and_its_events_keep_their_shape() -> None:
    from shared.domain.simulate import season

    events = list(season(7))
    assert not any(isinstance(e, ev.DeadlineSet | ev.DivanHeld) for e in events)


def test_r12_3_a_whole_live_season_held_by_the_clock_verifies() -> None:
    """Every Divan held at its instant (some late), the Kurultay closed by the clock: the
    record re-runs to the same outcomes, the computer turns included."""
    from shared.domain.lifecycle import run_divan
    from shared.domain.replay import verify

    state = created()
    log: list[ev.Event] = []
    for cmd in (c.JoinSeason(memleket=6, at=NOW), c.CloseRegistration(at=CLOSE)):
        state, events = apply(state, cmd)
        log += events
    log = [*apply(SeasonState(), create())[1], *log]
    for n in range(1, 17):
        late = timedelta(hours=1) if n % 5 == 0 else timedelta(seconds=2)
        events = run_divan(state, now=instant(state, n) + late)
        for e in events:
            state = evolve(state, e)
        log += events
    assert state.phase == "kurultay"
    assert log[-1] == ev.DeadlineSet(
        kind="kurultay", divan=None, at=state.calendar.kurultay_closes_at
    )  # type: ignore[union-attr]
    state, events = apply(state, c.HoldKurultay())
    log += events
    assert state.phase == "over" and state.han is not None
    final, problems = verify(log)
    assert problems == []
    assert final.han == state.han
    held = [e for e in log if isinstance(e, ev.DivanHeld)]
    assert [h.divan for h in held] == list(range(1, 17))
    assert [h.late for h in held if h.divan % 5 == 0] == [True, True, True]
