"""The live Divan calendar (R-1.3, R-10.4; RELIABILITY 17's calendar traps).

Every instant is checked on the zone's wall clock: weekday, 21:00, the +03:00 offset. A zone
with daylight saving time (Europe/Berlin) proves the arithmetic is on the wall clock, not by
adding hours, so the code stays right if Türkiye's rule ever changes.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.domain import calendar as cal
from shared.domain.state import DIVANS

TR = cal.ISTANBUL
BERLIN = ZoneInfo("Europe/Berlin")


def at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def check_schedule(c: cal.Calendar, zone: object = TR) -> None:
    """R-1.3: 16 Divans, odd Tuesdays, even Fridays, 21:00 on the zone's wall clock."""
    assert len(c.divans) == DIVANS
    for n, instant in enumerate(c.divans, start=1):
        local = instant.astimezone(zone)  # type: ignore[arg-type]
        assert (local.hour, local.minute, local.second) == (21, 0, 0), (n, local)
        assert local.weekday() == (cal.FRIDAY if n % 2 == 0 else cal.TUESDAY), (n, local)
    for a, b in zip(c.divans, c.divans[1:], strict=False):
        days = (b.astimezone(zone).date() - a.astimezone(zone).date()).days  # type: ignore[arg-type]
        assert days in (3, 4)
    # the season runs 8 weeks: Divan 16 is 7 weeks and 3 days after Divan 1.
    first, last = (d.astimezone(zone).date() for d in (c.divans[0], c.divans[-1]))  # type: ignore[arg-type]
    assert (last - first).days == 7 * 7 + 3
    assert c.kurultay_closes_at == c.divans[-1] + timedelta(hours=24)


@pytest.mark.parametrize(
    ("closes", "divan_1"),
    [
        # Monday 20:59: the next day's Tuesday 21:00 is 24 h 1 min away.
        ("2026-12-07T20:59:00+03:00", "2026-12-08T21:00:00+03:00"),
        # Monday 21:00 exactly: 24 h exactly is "at least 24 hours".
        ("2026-12-07T21:00:00+03:00", "2026-12-08T21:00:00+03:00"),
        # Monday 21:01: 23 h 59 min is too soon, so the Tuesday after.
        ("2026-12-07T21:01:00+03:00", "2026-12-15T21:00:00+03:00"),
        # Tuesday 20:00: that evening is too soon.
        ("2026-12-08T20:00:00+03:00", "2026-12-15T21:00:00+03:00"),
        # Wednesday: the next Tuesday.
        ("2026-12-09T12:00:00+03:00", "2026-12-15T21:00:00+03:00"),
        # An instant given in UTC is the same instant: Monday 18:30 UTC is 21:30 Istanbul.
        ("2026-12-07T18:30:00+00:00", "2026-12-15T21:00:00+03:00"),
        # Across the year boundary.
        ("2026-12-28T10:00:00+03:00", "2026-12-29T21:00:00+03:00"),
        ("2026-12-29T22:00:00+03:00", "2027-01-05T21:00:00+03:00"),
    ],
)
def test_r1_3_divan_1_is_the_first_tuesday_21_00_at_least_24_hours_after_the_close(
    closes: str, divan_1: str
) -> None:
    c = cal.live(at(closes))
    assert c.at(1) == at(divan_1)
    assert cal.iso(c.at(1)) == divan_1
    check_schedule(c)


def test_r1_3_every_close_over_52_weeks_each_day_and_each_hour_around_21() -> None:
    """RELIABILITY 17: each weekday, each hour 18:00–23:30, 52 weeks from a Monday."""
    start = at("2026-11-30T00:00:00+03:00")  # a Monday
    for day in range(52 * 7):
        for minutes in range(18 * 60, 24 * 60, 30):
            closes = start + timedelta(days=day, minutes=minutes)
            c = cal.live(closes)
            one = c.at(1)
            assert one - closes >= timedelta(hours=24)
            # the minimal such Tuesday: a week earlier would have been too soon
            assert one - timedelta(days=7) - closes < timedelta(hours=24)
            assert cal.iso(one).endswith("+03:00")
            check_schedule(c)


def test_r1_3_the_offset_is_plus_03_00_on_every_date() -> None:
    c = cal.live(at("2027-03-20T12:00:00+03:00"))  # across Europe's DST change: no effect here
    for instant in (*c.divans, c.kurultay_closes_at, c.registration_closes_at):
        assert cal.iso(instant).endswith("+03:00")
        assert instant.utcoffset() == timedelta(hours=3)


def test_the_calendar_works_on_the_zones_wall_clock_with_daylight_saving() -> None:
    """With Europe/Berlin, Divans stay at 21:00 local though the UTC offset changes."""
    c = cal.live(at("2027-03-01T12:00:00+01:00"), zone=BERLIN)  # DST starts 2027-03-28
    check_schedule(c, BERLIN)
    offsets = {d.astimezone(BERLIN).utcoffset() for d in c.divans}
    assert offsets == {timedelta(hours=1), timedelta(hours=2)}
    utc_hours = {d.astimezone(UTC).hour for d in c.divans}
    assert utc_hours == {19, 20}  # adding hours to Divan 1 would have kept one UTC hour


@given(
    st.datetimes(
        min_value=datetime(2020, 1, 1), max_value=datetime(2040, 1, 1), timezones=st.just(UTC)
    )
)
def test_r1_3_property_divan_1_is_the_earliest_tuesday_at_least_a_day_away(
    closes: datetime,
) -> None:
    c = cal.live(closes)
    one = c.at(1)
    assert timedelta(hours=24) <= one - closes < timedelta(hours=24, days=7)
    check_schedule(c)


def test_a_compressed_calendar_puts_divan_n_at_the_close_plus_n_intervals() -> None:
    closes = at("2026-12-01T22:00:00+00:00")
    c = cal.compressed(closes, 5)
    assert c.compressed and c.interval_seconds == 5
    assert [c.at(n) - closes for n in (1, 2, 16)] == [timedelta(seconds=s) for s in (5, 10, 80)]
    assert c.kurultay_closes_at - c.at(16) == timedelta(seconds=15)
    assert cal.iso(c.at(1)).endswith("+03:00")


def test_a_compressed_interval_below_two_seconds_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        cal.compressed(at("2026-12-01T22:00:00+00:00"), 1)


def test_naive_instants_are_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        cal.live(datetime(2026, 12, 1, 12, 0))


@pytest.mark.parametrize(
    ("next_divan", "resumed_at", "held"),
    [
        # Divan 5 (odd: a Tuesday); resumed on a Wednesday → the Tuesday six days later.
        (5, "2027-01-06T10:00:00+03:00", "2027-01-12T21:00:00+03:00"),
        # Divan 6 (even: a Friday); resumed on a Thursday at 22:00 → not the next day (23 h).
        (6, "2027-01-07T22:00:00+03:00", "2027-01-15T21:00:00+03:00"),
        # Divan 6, resumed on a Thursday at 20:00 → the next day's Friday, 25 h away.
        (6, "2027-01-07T20:00:00+03:00", "2027-01-08T21:00:00+03:00"),
    ],
)
def test_a_resumed_season_holds_the_next_divan_on_its_weekday_and_moves_the_rest(
    next_divan: int, resumed_at: str, held: str
) -> None:
    before = cal.live(at("2026-11-30T12:00:00+03:00"))
    after = cal.resumed(before, next_divan, at(resumed_at))
    assert after.divans[: next_divan - 1] == before.divans[: next_divan - 1]
    assert after.at(next_divan) == at(held)
    for n in range(next_divan, DIVANS + 1):
        local = after.at(n).astimezone(TR)
        assert local.weekday() == (cal.FRIDAY if n % 2 == 0 else cal.TUESDAY)
        assert (local.hour, local.minute) == (21, 0)
    assert after.kurultay_closes_at == after.at(16) + timedelta(hours=24)


def test_a_resumed_compressed_season_holds_the_next_divan_one_interval_after_the_resume() -> None:
    before = cal.compressed(at("2026-12-01T22:00:00+00:00"), 4)
    resumed_at = before.at(3) + timedelta(seconds=100)
    after = cal.resumed(before, 4, resumed_at)
    assert after.divans[:3] == before.divans[:3]
    assert after.at(4) == resumed_at + timedelta(seconds=4)
    assert after.at(16) == resumed_at + timedelta(seconds=4 * 13)
    assert after.kurultay_closes_at == after.at(16) + timedelta(seconds=12)


def test_due_counts_the_divans_whose_instant_has_passed() -> None:
    c = cal.live(at("2026-11-30T12:00:00+03:00"))
    assert c.due(c.at(1) - timedelta(seconds=1)) == 0
    assert c.due(c.at(1)) == 1  # orders lock at the scheduled instant
    assert c.due(c.at(16) + timedelta(days=30)) == DIVANS
