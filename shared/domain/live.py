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
from shared.domain.state import DIVANS, Calendar, SeasonState

MIN_LEAD = timedelta(hours=1)  # a live season's registration closes at least an hour ahead


_reject = c.reject  # _reject(key, **details): the text is shared.domain.messages' (key's)


def new_calendar(cmd: c.CreateSeason) -> Calendar | c.Rejection:
    """The provisional calendar of a live season being created, or why it cannot be."""
    close, now, interval = cmd.registration_closes_at, cmd.at, cmd.divan_interval_seconds
    if close is None:
        return _reject("registration_close_required")
    if not cal.is_aware(close) or not cal.is_aware(now):
        return _reject("invalid_instant")
    assert close is not None and now is not None
    if interval is not None and interval < cal.MIN_INTERVAL_SECONDS:
        return _reject("bad_interval", minimum=cal.MIN_INTERVAL_SECONDS)
    lead = MIN_LEAD if interval is None else timedelta(seconds=interval)
    if close < now + lead:
        return _reject("registration_too_soon", earliest=cal.iso(now + lead))
    made = cal.live(close) if interval is None else cal.compressed(close, interval)
    return msgspec.structs.replace(made, provisional=True)


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


def counts_for(state: SeasonState, at: datetime | None) -> int | None:
    """R-4.4: the Divan an order, offer or answer accepted at `at` counts for in a live season:
    the first Divan still to be resolved whose instant is later than `at` (DIVANS + 1 once
    Divan 16's instant has passed). None in a trial season or without an instant."""
    if state.mode != "live" or state.calendar is None or at is None:
        return None
    for n in range(state.divan + 1, DIVANS + 1):
        if state.calendar.at(n) > at:
            return n
    return DIVANS + 1


def locked(state: SeasonState, at: datetime | None) -> int | None:
    """The Divan whose instant has passed at `at` but which is not resolved yet (its orders and
    offers are locked: R-1.3, R-7.9), or None."""
    if state.mode != "live" or state.calendar is None or at is None or state.divan >= DIVANS:
        return None
    n = state.divan + 1
    return n if state.calendar.at(n) <= at else None
