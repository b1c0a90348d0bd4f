"""ADR-168: the calendar's UTC twins order every instant exactly as its own instants do.

`live.counts_for` (R-4.4) and `live.locked` (R-1.3, R-7.9) compare an order's UTC `at` with
`Calendar.at_utc(n)` instead of the +03:00 `Calendar.at(n)`, because a comparison across two
tzinfo objects costs about 30 times one within a zone. The twins are for comparisons only: a
calendar's encoding, equality, hash and repr, and a CalendarSet's stored bytes, do not change.
The old functions are frozen here as the reference.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone, tzinfo

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import calendar as cal
from shared.domain import codec, live
from shared.domain import events as ev
from shared.domain.state import DIVANS, Calendar, SeasonState

US = timedelta(microseconds=1)
ZONES: list[tzinfo] = [
    UTC,
    cal.ISTANBUL,
    timezone(timedelta(hours=3)),  # the same offset, another tzinfo object (as decoding makes)
    timezone(timedelta(hours=-11, minutes=-30)),
    timezone(timedelta(hours=14)),
    timezone(timedelta(hours=5, minutes=45)),
]


def old_counts_for(state: SeasonState, at: datetime | None) -> int | None:
    """live.counts_for before ADR-168, word for word but for `at(n)`."""
    if state.mode != "live" or state.calendar is None or at is None:
        return None
    if state.paused_at is not None:
        return min(state.divan + 1, DIVANS + 1)
    for n in range(state.divan + 1, DIVANS + 1):
        if state.calendar.at(n) > at:
            return n
    return DIVANS + 1


def old_locked(state: SeasonState, at: datetime | None) -> int | None:
    """live.locked before ADR-168."""
    if state.mode != "live" or state.calendar is None or at is None or state.divan >= DIVANS:
        return None
    if state.paused_at is not None or state.cancelled or state.phase != "running":
        return None
    n = state.divan + 1
    return n if state.calendar.at(n) <= at else None


def decoded(calendar: Calendar) -> Calendar:
    """The calendar as the fold sees it: through a stored CalendarSet (msgspec's tzinfo)."""
    event = codec.decode_event(codec.encode(ev.CalendarSet.of(calendar, "created")))
    assert isinstance(event, ev.CalendarSet)
    return event.calendar


def running(calendar: Calendar, divan: int) -> SeasonState:
    return msgspec.structs.replace(
        SeasonState(), mode="live", phase="running", calendar=calendar, divan=divan
    )


closes = st.datetimes(
    min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.sampled_from(ZONES)
)
calendars = st.one_of(
    st.builds(cal.live, closes),
    st.builds(
        cal.compressed,
        closes,
        st.integers(cal.MIN_INTERVAL_SECONDS, cal.MAX_INTERVAL_SECONDS),
    ),
)


@settings(max_examples=300, deadline=None)
@given(
    calendar=calendars,
    through_store=st.booleans(),
    divan=st.integers(0, DIVANS),
    n=st.integers(1, DIVANS),
    step=st.integers(-2, 2),
    zone=st.sampled_from(ZONES),
)
def test_adr168_counts_for_and_locked_agree_with_the_old_comparison_around_every_boundary(
    calendar: Calendar, through_store: bool, divan: int, n: int, step: int, zone: tzinfo
) -> None:
    """`at` is Divan n's instant ±0, 1 or 2 µs, written in any zone: the twins compare as the
    instants do, and counts_for / locked answer as before (R-4.4, R-1.3)."""
    calendar = decoded(calendar) if through_store else calendar
    at = (calendar.at(n) + step * US).astimezone(zone)
    assert (calendar.at_utc(n) > at) == (calendar.at(n) > at)
    assert (calendar.at_utc(n) <= at) == (calendar.at(n) <= at)
    assert calendar.at_utc(n) == calendar.at(n)
    state = running(calendar, divan)
    assert live.counts_for(state, at) == old_counts_for(state, at)
    assert live.locked(state, at) == old_locked(state, at)


@settings(max_examples=200, deadline=None)
@given(calendar=calendars, divan=st.integers(0, DIVANS), at=closes)
def test_adr168_counts_for_agrees_with_the_old_comparison_anywhere(
    calendar: Calendar, divan: int, at: datetime
) -> None:
    state = running(decoded(calendar), divan)
    assert live.counts_for(state, at) == old_counts_for(state, at)
    assert live.locked(state, at) == old_locked(state, at)


def test_adr168_divan_1_boundary_cases() -> None:
    """R-4.4: at Divan 1's instant the order counts for Divan 2; 1 µs before, for Divan 1."""
    calendar = decoded(cal.live(datetime.fromisoformat("2026-12-07T20:59:00+03:00")))
    first = calendar.at(1)
    assert first.isoformat() == "2026-12-08T21:00:00+03:00"
    state = running(calendar, 0)
    for at, counts, locks in [
        (first - US, 1, None),
        (first, 2, 1),
        (first + US, 2, 1),
        ((first - US).astimezone(UTC), 1, None),
        (first.astimezone(UTC), 2, 1),
        (datetime(2026, 12, 8, 18, 0, tzinfo=UTC) - US, 1, None),
    ]:
        assert (live.counts_for(state, at), live.locked(state, at)) == (counts, locks), at


def _seen(calendar: Calendar) -> tuple[object, ...]:
    """All that encoding, equality, hashing and printing see of a calendar."""
    return (
        msgspec.json.encode(calendar),
        codec.encode(ev.CalendarSet.of(calendar, "created")),
        repr(calendar),
        hash(calendar),
        msgspec.to_builtins(calendar),
    )


def test_adr168_the_twins_are_utc_and_no_field() -> None:
    """The twins are UTC, cached once per calendar, and invisible to encoding, equality, hash,
    repr and to_builtins; a CalendarSet stores the same bytes before and after they exist."""
    made = cal.live(datetime.fromisoformat("2026-12-07T20:59:00+03:00"))
    for calendar in (made, decoded(made)):
        twin = cal.compressed(calendar.registration_closes_at, 60)
        before = _seen(calendar)
        assert calendar.utc_divans is calendar.utc_divans  # computed once
        assert all(at.tzinfo is UTC for at in calendar.utc_divans)
        assert calendar.utc_divans == calendar.divans
        assert "utc_divans" not in Calendar.__struct_fields__
        assert _seen(calendar) == before
        assert b"Z" not in before[0] and b"+03:00" in before[0]  # still stored in +03:00
        assert calendar != twin
        copy = msgspec.structs.replace(calendar)
        assert copy == calendar and copy.utc_divans == calendar.utc_divans


@pytest.mark.parametrize("n", [0, DIVANS + 1])
def test_adr168_at_utc_refuses_what_at_refuses(n: int) -> None:
    calendar = cal.live(datetime.fromisoformat("2026-12-07T20:59:00+03:00"))
    with pytest.raises(ValueError, match=f"no Divan {n}"):
        calendar.at(n)
    with pytest.raises(ValueError, match=f"no Divan {n}"):
        calendar.at_utc(n)
