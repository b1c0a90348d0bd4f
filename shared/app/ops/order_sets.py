"""The order sets of one Divan as they were submitted, and when, beside its lock (issue 26,
ADR-103): "I sent it before the lock" is settled from the events' own metadata (`at`, the
command edge's instant, issue 12) without digging it out of an export.

Pure: it reads decoded events and their recorded instants (None where an event has none, as
an older event or a test's) and answers typed values; the explain answer carries them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import msgspec

from shared.domain import calendar as cal
from shared.domain import events as ev
from shared.domain.state import Order


class OrderSetOut(msgspec.Struct, frozen=True):
    """One `orders_submitted.v1` for the Divan: the bey's whole set (R-4.1, the newest replaces
    the rest), the instant it was decided at (+03:00, D-22; None when not recorded), and
    whether it is the set the lock resolved and sealed (ADR-57: the last one before the lock;
    a computer bey's set is made at the lock itself, D-28)."""

    seat: int
    submitted_at: datetime | None
    orders: list[Order]
    sealed: bool
    before_lock: bool  # submitted at or before the lock instant (None instants: True)
    digest: str | None = None  # the sealed set's digest (orders_sealed.v1), None otherwise


class OrdersAtLock(msgspec.Struct, frozen=True):
    """Divan n's lock instant and every order set submitted for it, in the order recorded."""

    locked_at: datetime | None
    sets: list[OrderSetOut]


def _instant(at: str | None) -> datetime | None:
    if not at:
        return None
    try:
        return datetime.fromisoformat(at).astimezone(cal.ISTANBUL)
    except ValueError:
        return None


def _lock_instant(
    events: Sequence[ev.Event], at: Sequence[str | None], lock_i: int, divan: int
) -> datetime | None:
    """When Divan `divan` locked: a live Divan at its held instant (`divan_held.v1`, R-1.3),
    a trial one at its request (R-1.2: the request locks it); else the lock's own record."""
    for i in range(lock_i, -1, -1):
        e = events[i]
        if isinstance(e, ev.DivanHeld) and e.divan == divan:
            return e.at.astimezone(cal.ISTANBUL)
        if isinstance(e, ev.DivanRequested) and e.divan == divan:
            return _instant(at[i])
    return _instant(at[lock_i])


def orders_at_lock(
    events: Sequence[ev.Event], instants: Sequence[str | None], divan: int
) -> OrdersAtLock:
    """Every set submitted for Divan `divan` up to its lock, each with its instant, and which
    was sealed: for each seat the last set before `divan_locked.v1`, when it is the set the
    lock holds for that seat (R-12.3: the inputs of record)."""
    at = list(instants) + [None] * max(0, len(events) - len(instants))
    lock_i = next(
        (i for i, e in enumerate(events) if isinstance(e, ev.DivanLocked) and e.divan == divan),
        None,
    )
    if lock_i is None:
        return OrdersAtLock(None, [])
    locked = events[lock_i]
    assert isinstance(locked, ev.DivanLocked)
    locked_at = _lock_instant(events, at, lock_i, divan)
    digests: dict[int, str] = {}
    for e in events[lock_i : lock_i + 3]:
        if isinstance(e, ev.OrdersSealed) and e.divan == divan:
            digests = dict(e.digests)
    found = [
        (i, e)
        for i, e in enumerate(events[:lock_i])
        if isinstance(e, ev.OrdersSubmitted) and e.divan == divan
    ]
    last = {e.seat: i for i, e in found}
    sets = []
    for i, e in found:
        sealed = last[e.seat] == i and tuple(locked.orders.get(e.seat, ())) == tuple(e.orders)
        when = _instant(at[i])
        before = when is None or locked_at is None or when <= locked_at
        digest = digests.get(e.seat) if sealed else None
        sets.append(OrderSetOut(e.seat, when, list(e.orders), sealed, before, digest))
    return OrdersAtLock(locked_at, sets)
