"""The live Divan calendar (R-1.3, R-10.4): pure functions of instants, no clock read.

Divans are held on Tuesdays (odd Divans) and Fridays (even Divans) at 21:00 in the season's
zone, Europe/Istanbul, which is UTC+3 all year (R-1.3). The zone is a parameter so that a test
can prove the arithmetic is done on the wall clock of the zone and not by adding hours: with a
zone that has daylight saving time, 21:00 local maps to different UTC instants across the year.
The default is the fixed +03:00 offset, so the domain reads no time-zone database.

Instants are aware datetimes; comparisons are absolute ("at least 24 hours after") and the
weekday and the hour are the zone's wall clock. The `Calendar` value itself lives in `state`,
since a season's state carries it.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone, tzinfo

import msgspec

from shared.domain.state import DIVANS, Calendar

ISTANBUL: tzinfo = timezone(timedelta(hours=3), "+03:00")  # no DST, all year
DIVAN_TIME = time(21, 0)
TUESDAY, FRIDAY = 1, 4  # date.weekday()
LEAD = timedelta(hours=24)  # Divan 1 at least 24 hours after registration closes
KURULTAY_OPEN = timedelta(hours=24)  # live voting is open for 24 hours
COMPRESSED_KURULTAY_INTERVALS = 3  # a compressed season's Kurultay closes 3·S after Divan 16
MIN_INTERVAL_SECONDS = 2
# D-37: at most a day per Divan (16 days in all, well under the live calendar's 8 weeks); a
# larger S would put the calendar beyond what an instant can hold.
MAX_INTERVAL_SECONDS = 86_400


def _wall(day: date, zone: tzinfo) -> datetime:
    """21:00 on `day` on the zone's wall clock, as an aware instant."""
    return datetime.combine(day, DIVAN_TIME, tzinfo=zone)


def _on_or_after(instant: datetime, weekday: int, zone: tzinfo) -> datetime:
    """The first `weekday` 21:00 (zone wall clock) at or after `instant`."""
    local = instant.astimezone(zone)
    day = local.date()
    for step in range(15):  # two weeks always contain a matching, later wall-clock instant
        candidate = _wall(day + timedelta(days=step), zone)
        if candidate.weekday() == weekday and candidate >= instant:
            return candidate
    raise AssertionError("unreachable: a weekday recurs every 7 days")


def divan_weekday(divan: int) -> int:
    """R-1.3: odd Divans are Tuesdays, even Divans Fridays."""
    return FRIDAY if divan % 2 == 0 else TUESDAY


def first_divan(registration_closes_at: datetime, zone: tzinfo = ISTANBUL) -> datetime:
    """R-1.3: Divan 1 is the first Tuesday 21:00 at least 24 hours after registration closes."""
    return held_from(registration_closes_at, 1, zone)


def held_from(earliest: datetime, divan: int, zone: tzinfo = ISTANBUL) -> datetime:
    """Divan `divan` at its weekday's first 21:00 at least 24 hours after `earliest`.

    Used for Divan 1 after registration and for the next Divan after a pause (the season's
    parity is kept: an odd Divan is always a Tuesday, an even one a Friday).
    """
    _aware(earliest)
    return _on_or_after(earliest + LEAD, divan_weekday(divan), zone)


def following(start: datetime, from_divan: int, zone: tzinfo = ISTANBUL) -> tuple[datetime, ...]:
    """Divans from_divan … 16, the first at `start`, each later one on its next weekday."""
    out = [start]
    for n in range(from_divan + 1, DIVANS + 1):
        # A Tuesday Divan is followed by the Friday 3 days later, a Friday by the Tuesday 4 days
        # later; on the wall clock, so a DST change in between keeps 21:00.
        days = 3 if n % 2 == 0 else 4
        prev = out[-1].astimezone(zone).date()
        out.append(_wall(prev + timedelta(days=days), zone))
    return tuple(out)


def live(registration_closes_at: datetime, zone: tzinfo = ISTANBUL) -> Calendar:
    """The calendar of a live season whose registration closes at `registration_closes_at`."""
    divans = following(first_divan(registration_closes_at, zone), 1, zone)
    return Calendar(
        registration_closes_at=registration_closes_at.astimezone(zone),
        divans=divans,
        kurultay_closes_at=(divans[-1] + KURULTAY_OPEN).astimezone(zone),
    )


def compressed(
    registration_closes_at: datetime, interval_seconds: int, zone: tzinfo = ISTANBUL
) -> Calendar:
    """An operator's compressed calendar: Divan n at the close + n·S, Kurultay 3·S after 16."""
    _aware(registration_closes_at)
    if interval_seconds < MIN_INTERVAL_SECONDS:
        raise ValueError(f"divan_interval_seconds must be at least {MIN_INTERVAL_SECONDS}")
    step = timedelta(seconds=interval_seconds)
    close = registration_closes_at.astimezone(zone)
    divans = tuple(close + n * step for n in range(1, DIVANS + 1))
    return Calendar(
        registration_closes_at=close,
        divans=divans,
        kurultay_closes_at=divans[-1] + COMPRESSED_KURULTAY_INTERVALS * step,
        interval_seconds=interval_seconds,
    )


def resumed(
    cal: Calendar, next_divan: int, resumed_at: datetime, zone: tzinfo = ISTANBUL
) -> Calendar:
    """The calendar after a pause ends at `resumed_at` with Divan `next_divan` not yet held.

    Divans before `next_divan` keep their instants. Live: Divan `next_divan` is held at the
    first Tuesday (odd) or Friday (even) 21:00 at least 24 hours away and every later Divan
    moves with it. Compressed: Divan `next_divan` is one interval after the resume.
    """
    _aware(resumed_at)
    if not 1 <= next_divan <= DIVANS:
        raise ValueError(f"no Divan {next_divan} to resume at")
    kept = cal.divans[: next_divan - 1]
    if cal.interval_seconds is not None:
        step = timedelta(seconds=cal.interval_seconds)
        start = resumed_at.astimezone(zone)
        moved = tuple(start + k * step for k in range(1, DIVANS - next_divan + 2))
        kurultay = moved[-1] + COMPRESSED_KURULTAY_INTERVALS * step
    else:
        moved = following(held_from(resumed_at, next_divan, zone), next_divan, zone)
        kurultay = (moved[-1] + KURULTAY_OPEN).astimezone(zone)
    return msgspec.structs.replace(cal, divans=kept + moved, kurultay_closes_at=kurultay)


def iso(instant: datetime, zone: tzinfo = ISTANBUL) -> str:
    """ISO-8601 with the zone's offset (+03:00 for Istanbul), to the second (report lines and
    refusals; a calendar instant is shown by `exact`)."""
    return instant.astimezone(zone).isoformat(timespec="seconds")


def exact(instant: datetime, zone: tzinfo = ISTANBUL) -> str:
    """ISO-8601 with the zone's offset, as precise as the instant: to the second when it is a
    whole second (every real Divan, 21:00:00), else to the microsecond. A calendar shows its
    instants so: a lock at 13:22:01.7 shown as 13:22:01 would lock 0.7 s after the instant a
    player reads, and a client (or the read side, which parses the shown calendar) would
    count a set sent in between for the wrong Divan."""
    return instant.astimezone(zone).isoformat()


def iso_up(instant: datetime, zone: tzinfo = ISTANBUL) -> str:
    """`iso` rounded up to the whole second: a lower bound shown so that the instant it names
    is itself allowed (`registration_too_soon`'s `earliest`)."""
    if instant.microsecond:
        instant = instant.replace(microsecond=0) + timedelta(seconds=1)
    return iso(instant, zone)


def is_aware(instant: datetime | None) -> bool:
    """An instant with an offset: the only kind the calendar works with."""
    return instant is not None and instant.utcoffset() is not None


def _aware(instant: datetime) -> None:
    if not is_aware(instant):
        raise ValueError("instants must be aware (with an offset)")
