"""Locking a Divan: the inputs of record, computer beys' orders beside humans' (R-12.3)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from msgspec.structs import replace

from shared.domain import bots, live
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import evolve, fold
from shared.domain.resolve import DivanInputs, resolve_divan
from shared.domain.state import Order, SeasonState, offer_key

Planner = Callable[[SeasonState, int, int], tuple[Order, ...]]


def computer_turn(
    state: SeasonState, divan: int, planners: dict[int, Planner] | None = None
) -> list[ev.Event]:
    """Every computer bey spends (valid spends only) and then gives its orders for `divan`."""
    out: list[ev.Event] = []
    for bey in state.beys:
        if not bey.computer:
            continue
        planner = (planners or {}).get(bey.seat, bots.plan_orders)
        if planner is bots.plan_orders:
            for cmd in bots.plan_spending(state, bey.seat, divan):
                # The computer turn runs at the lock, on the state as it stood just before it.
                result = decide(replace(state, locked_divan=None), cmd)
                if not isinstance(result, c.Rejection):
                    state = fold(result, state)
                    out.extend(result)
        orders = planner(state, bey.seat, divan)
        e2 = ev.OrdersSubmitted(seat=bey.seat, divan=divan, orders=orders)
        state = evolve(state, e2)
        out.append(e2)
    return out


def lock(state: SeasonState, divan: int) -> ev.DivanLocked:
    """R-4.4: the orders and offers that stand at the lock are the Divan's inputs of record.

    In a live season an offer made after an earlier Divan's instant counts for a later Divan
    and is left for it (D-25); a trial season's offers all stand."""
    offers = tuple(
        o for o in state.offers if state.offer_divans.get(offer_key(o.frm, o.to), divan) <= divan
    )
    return ev.DivanLocked(divan=divan, orders=dict(state.orders.get(divan, {})), offers=offers)


def inputs_of(state: SeasonState, locked: ev.DivanLocked) -> DivanInputs:
    return DivanInputs(divan=locked.divan, orders=locked.orders, offers=locked.offers)


def run_divan(
    state: SeasonState,
    planners: dict[int, Planner] | None = None,
    now: datetime | None = None,
) -> list[ev.Event]:
    """A whole Divan as the resolver runs it: computer turn, lock, resolution (all pure).

    A live Divan (R-1.3) is held by the clock: `now` is when the resolver got to it, recorded
    with the scheduled instant in a DivanHeld before the turn (an input of record: whether it
    was late), and the season's next deadline follows the resolution (live.with_deadline).
    """
    divan = state.divan + 1
    start = state
    events: list[ev.Event] = []
    if state.mode == "live":
        assert now is not None, "a live Divan is held at an instant"
        events.append(live.held(state, divan, now))
    events += computer_turn(state, divan, planners)
    state = fold(events, state)
    locked = lock(state, divan)
    state = evolve(state, locked)
    events = [*events, locked, *resolve_divan(state, inputs_of(state, locked))]
    if start.mode == "live":
        late = any(e.late for e in events if isinstance(e, ev.DivanHeld))
        events = live.with_deadline(start, marked_late(events, late))
    return events


def marked_late(events: list[ev.Event], late: bool) -> list[ev.Event]:
    """A resolution whose Divan was held late: its public report says so first (issue 12)."""
    if not late:
        return events
    return [_late_report(e) if isinstance(e, ev.DivanResolved) else e for e in events]


def _late_report(resolved: ev.DivanResolved) -> ev.DivanResolved:
    """The public report says a Divan was held late (after downtime), locked at its instant."""
    n = resolved.divan
    line = ev.ReportLine(
        kind="divan_late",
        data={"divan": n},
        tr=f"{n}. Divan gecikmeyle toplandı; emirler zamanında kilitlenmişti.",
        en=f"Divan {n} was held late; orders had locked on time.",
    )
    return replace(resolved, public=(line, *resolved.public))
