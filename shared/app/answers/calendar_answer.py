"""A live season's calendar and lock countdown as both APIs show them (R-1.3, R-4.4, D-29, D-30).

One `CalendarOut` schema for the command side's status and the read side's summary, and one
pure computation of `next_divan_at`, `locked` and `seconds_to_lock` at an instant, so the two
answers cannot drift apart.
"""

from __future__ import annotations

import math
from datetime import datetime

import msgspec

from shared.domain import calendar as cal
from shared.domain import live
from shared.domain.state import DIVANS, Calendar, SeasonState


class DivanAt(msgspec.Struct, frozen=True):
    divan: int
    at: str  # ISO-8601 with +03:00, exactly the lock instant (calendar.exact)


class CalendarOut(msgspec.Struct, frozen=True):
    """A live season's calendar (R-1.3, R-10.4); every instant ISO-8601 with +03:00.

    `provisional` until registration closes (an early close moves it, R-1.4); `compressed` for
    an operator's calendar of `divan_interval_seconds` (never counts on the boards)."""

    registration_closes_at: str
    divans: list[DivanAt]
    kurultay_closes_at: str
    provisional: bool
    compressed: bool


def calendar_out(calendar: Calendar) -> CalendarOut:
    """A live calendar as the API shows it: every instant ISO-8601 with +03:00 (R-1.3)."""
    return CalendarOut(
        registration_closes_at=cal.exact(calendar.registration_closes_at),
        divans=[DivanAt(n, cal.exact(at)) for n, at in enumerate(calendar.divans, 1)],
        kurultay_closes_at=cal.exact(calendar.kurultay_closes_at),
        provisional=calendar.provisional,
        compressed=calendar.compressed,
    )


def calendar_in(shown: CalendarOut) -> Calendar:
    """The calendar back from its shown form (the read side keeps it so in its projection)."""
    return Calendar(
        registration_closes_at=datetime.fromisoformat(shown.registration_closes_at),
        divans=tuple(datetime.fromisoformat(d.at) for d in shown.divans),
        kurultay_closes_at=datetime.fromisoformat(shown.kurultay_closes_at),
        provisional=shown.provisional,
    )


class LockStatus(msgspec.Struct, frozen=True):
    """At an instant: the instant the orders placed now lock at (null while paused, cancelled
    or when no Divan is left), whether a Divan's orders are locked, the seconds to the lock
    (0 while locked), and during the Kurultay the seconds to its close."""

    next_divan_at: str | None
    locked: bool
    seconds_to_lock: int | None
    # during a live Kurultay: the seconds to `calendar.kurultay_closes_at`, rounded
    # up (0 once it has passed and the Kurultay is not held yet); null otherwise
    seconds_to_kurultay_close: int | None = None


def lock_status(s: SeasonState, now: datetime) -> LockStatus:
    """R-1.3, R-4.4 (shared.domain.live): a live season's lock and countdown at `now`."""
    assert s.calendar is not None
    locked = live.locked(s, now)
    n = live.counts_for(s, now)
    ahead = (
        s.calendar.at(n)
        if n is not None and n <= DIVANS and s.paused_at is None and not s.cancelled
        else None
    )
    to_lock = 0 if locked is not None else None
    if ahead is not None and locked is None:
        to_lock = max(0, math.ceil((ahead - now).total_seconds()))
    to_close = None
    if s.phase == "kurultay" and s.paused_at is None and not s.cancelled:
        to_close = max(0, math.ceil((s.calendar.kurultay_closes_at - now).total_seconds()))
    return LockStatus(
        next_divan_at=cal.exact(ahead) if ahead is not None else None,
        locked=locked is not None,
        seconds_to_lock=to_lock,
        seconds_to_kurultay_close=to_close,
    )
