"""Live seasons' registration and calendar (R-1.3, R-1.4, R-11.1): pure, given instants.

The edge stamps each command with the server's instant (`at`); nothing here reads a clock. A
live season's calendar is set when it is created (provisional) and fixed when registration
closes: at its set instant, or earlier when the 19th seat is taken, which moves every Divan
(R-1.3: Divan 1 is the first Tuesday 21:00 at least 24 hours after the close).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.state import DIVANS, Calendar, SeasonState

MIN_LEAD = timedelta(hours=1)  # a live season's registration closes at least an hour ahead
# D-37: and at most a year after the command (creation or postponement): a calendar that far
# ahead is no season anyone plays, and one near year 9999 cannot be computed at all.
MAX_LEAD = timedelta(days=365)


_reject = c.reject  # _reject(key, **details): the text is shared.domain.messages' (key's)


def new_calendar(cmd: c.CreateSeason) -> Calendar | c.Rejection:
    """The provisional calendar of a live season being created, or why it cannot be."""
    close, now, interval = cmd.registration_closes_at, cmd.at, cmd.divan_interval_seconds
    if close is None:
        return _reject("registration_close_required")
    if not cal.is_aware(close) or not cal.is_aware(now):
        return _reject("invalid_instant")
    assert close is not None and now is not None
    if interval is not None and not (
        cal.MIN_INTERVAL_SECONDS <= interval <= cal.MAX_INTERVAL_SECONDS
    ):
        return _reject(
            "bad_interval", minimum=cal.MIN_INTERVAL_SECONDS, maximum=cal.MAX_INTERVAL_SECONDS
        )
    if (refused := close_refusal(close, now, interval)) is not None:
        return refused
    made = cal.live(close) if interval is None else cal.compressed(close, interval)
    return msgspec.structs.replace(made, provisional=True)


def close_refusal(close: datetime, at: datetime, interval: int | None) -> c.Rejection | None:
    """Why a registration close set at `at` (a creation or a postponement) cannot be: closer
    than the lead (an hour; S seconds compressed, D-20) is `registration_too_soon`; more than
    MAX_LEAD ahead (D-37) `invalid_instant` naming the latest close, refused before any
    calendar is computed from it."""
    lead = MIN_LEAD if interval is None else timedelta(seconds=interval)
    if close < at + lead:
        return _reject("registration_too_soon", earliest=cal.iso_up(at + lead))
    if close - at > MAX_LEAD:
        return _reject("invalid_instant.too_far", latest=cal.iso(at + MAX_LEAD))
    return None


def closing_calendar(state: SeasonState, at: datetime | None) -> Calendar:
    """The final calendar when registration closes at `at` (None: at its set instant).

    A close at or after the set instant keeps every instant (a late scheduler changes
    nothing: R-1.3 locks are the scheduled instants); an early close moves them.
    """
    planned = state.calendar
    assert planned is not None, "a live season has a calendar from its creation"
    if at is None or at >= planned.registration_closes_at:
        return msgspec.structs.replace(planned, provisional=False)
    if planned.interval_seconds is not None:
        return cal.compressed(at, planned.interval_seconds)
    return cal.live(at)


def registration_over(state: SeasonState, at: datetime | None) -> bool:
    """R-1.4: a live season's registration is over at its set instant, closed or not yet."""
    return (
        state.mode == "live"
        and state.calendar is not None
        and at is not None
        and at >= state.calendar.registration_closes_at
    )


def overdue_close(state: SeasonState, at: datetime) -> c.CloseRegistration | None:
    """R-1.4: registration closes at its instant. A live season still in registration at `at`,
    past that instant, not cancelled: the close the scheduler records, at the set instant (so
    the calendar keeps every instant), for whoever gets there first (a bey's command or the
    scheduler); None otherwise."""
    planned = state.calendar
    if state.mode != "live" or planned is None or state.phase != "registration":
        return None
    if state.cancelled or planned.registration_closes_at > at:
        return None
    return c.CloseRegistration(at=planned.registration_closes_at)


def counts_for(state: SeasonState, at: datetime | None) -> int | None:
    """R-4.4: the Divan an order, offer or answer accepted at `at` counts for in a live season:
    the first Divan still to be resolved whose instant is later than `at` (DIVANS + 1 once
    Divan 16's instant has passed). None in a trial season or without an instant."""
    if state.mode != "live" or state.calendar is None or at is None:
        return None
    if state.paused_at is not None:  # D-30: the clock stands; the next Divan moves on resume
        return min(state.divan + 1, DIVANS + 1)
    for n in range(state.divan + 1, DIVANS + 1):
        if state.calendar.at_utc(n) > at:  # ADR-168: the same order as at(n), in one zone
            return n
    return DIVANS + 1


def locked(state: SeasonState, at: datetime | None) -> int | None:
    """The Divan whose instant has passed at `at` but which is not resolved yet (its orders and
    offers are locked: R-1.3, R-7.9), or None. Never while paused or cancelled (D-29, D-30)."""
    if state.mode != "live" or state.calendar is None or at is None or state.divan >= DIVANS:
        return None
    if state.paused_at is not None or state.cancelled or state.phase != "running":
        return None
    n = state.divan + 1
    return n if state.calendar.at_utc(n) <= at else None  # ADR-168


# --- deadlines: what the scheduler hands to the workers, and when -----------------------------
LATE_GRACE = timedelta(minutes=5)  # a live Divan resolved later than this after its instant


class Deadline(msgspec.Struct, frozen=True):
    """A live season's next timed work: the registration close, Divan n, the Kurultay close."""

    kind: ev.DeadlineKind
    divan: int | None
    at: datetime


def next_deadline(state: SeasonState) -> Deadline | None:
    """R-1.3, R-1.4, R-10.4: the next instant at which a live season's clock acts, or None
    (a trial season; a season over; a season paused or cancelled: D-30). The instants are the
    calendar's, so a postponement or a resume (which set a new calendar) moves them (D-29, D-31)."""
    calendar = state.calendar
    if state.mode != "live" or calendar is None or state.paused_at is not None or state.cancelled:
        return None
    if state.phase == "registration":
        return Deadline("registration", None, calendar.registration_closes_at)
    if state.phase == "running" and state.divan < DIVANS:
        n = state.divan + 1
        return Deadline("divan", n, calendar.at(n))
    if state.phase == "kurultay":
        return Deadline("kurultay", None, calendar.kurultay_closes_at)
    return None


def deadline_event(deadline: Deadline | None) -> ev.DeadlineSet:
    if deadline is None:
        return ev.DeadlineSet()
    return ev.DeadlineSet(kind=deadline.kind, divan=deadline.divan, at=deadline.at)


# Events whose fold leaves every field next_deadline reads (mode, calendar, paused_at,
# cancelled, phase, divan) as it was: a bey's orders (R-4.1, a set of orders per Divan).
# A result of these alone on a season that exists moves no deadline, so with_deadline does not
# fold them to find that out (issue 27: every order paid that fold; ADR-119).
# tests/domain/test_live.py holds each one to it.
KEEPS_DEADLINE: frozenset[type[ev.Event]] = frozenset({ev.OrdersSubmitted})


def divan_due(state: SeasonState, divan: int, now: datetime) -> bool:
    """R-1.3: live Divan `divan` is the next to hold and its scheduled instant has passed."""
    d = next_deadline(state)
    return d is not None and d.kind == "divan" and d.divan == divan and d.at <= now


def held(state: SeasonState, divan: int, now: datetime) -> ev.DivanHeld:
    """The record of holding live Divan `divan` at `now`: locked at its scheduled instant, and
    late if `now` is past the grace (one interval for a compressed calendar)."""
    assert state.calendar is not None
    at = state.calendar.at(divan)
    interval = state.calendar.interval_seconds
    grace = LATE_GRACE if interval is None else timedelta(seconds=interval)
    return ev.DivanHeld(divan=divan, at=at, late=now - at > grace)
