"""Locking a Divan: the inputs of record, computer beys' orders beside humans' (R-12.3)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from msgspec.structs import replace

from shared.domain import bots, live
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide, with_deadline
from shared.domain.evolve import evolve, fold
from shared.domain.resolve import DivanInputs, resolve_divan
from shared.domain.state import Order, SeasonState, computer_beys_offer, offer_key

Planner = Callable[[SeasonState, int, int], tuple[Order, ...]]


def computer_turn(
    state: SeasonState, divan: int, planners: dict[int, Planner] | None = None
) -> list[ev.Event]:
    """The computer beys' turn at Divan `divan`'s lock (`played_turn`'s events)."""
    return played_turn(state, divan, planners)[0]


def played_turn(
    state: SeasonState, divan: int, planners: dict[int, Planner] | None = None
) -> tuple[list[ev.Event], SeasonState]:
    """The computer beys' turn at Divan `divan`'s lock, on the state as it stood just before it,
    and the state its events fold to (the turn folds each act as it goes: ADR-135, so
    `run_divan` need not fold them again).

    From rules/2 on (D-28), in three rounds in seat order: every computer bey spends (valid
    spends only), then every one gives its orders for `divan` (seeing every purchase, so no
    bey's later purchase turns an earlier bey's attack on an unowned il into a betrayal of a
    partner, R-6.5), then each may make an offer for the next Divan. A rules/1 season replays
    its recorded turn: spending and orders bey by bey, no offers.
    """
    plans = {
        b.seat: (planners or {}).get(b.seat, bots.plan_orders) for b in state.beys if b.computer
    }
    turn = bots.Turn(state.seed, divan)  # one reading of the board for every bey (ADR-59)
    if not computer_beys_offer(state.rules_version):
        return _rules_1_turn(state, divan, plans, turn)
    out: list[ev.Event] = []
    for seat, planner in plans.items():
        if planner is bots.plan_orders:
            state = _spend(state, seat, divan, out, turn)
    for seat, planner in plans.items():
        state = _order(state, seat, divan, planner, out, turn=turn)
    for seat, planner in plans.items():
        if planner is bots.plan_orders:
            offered = computer_offer(state, seat, divan, turn)
            state = fold(offered, state)
            out.extend(offered)
    return out, state


def _rules_1_turn(
    state: SeasonState, divan: int, plans: dict[int, Planner], turn: bots.Turn
) -> tuple[list[ev.Event], SeasonState]:
    """seksenbir-rules/1: each computer bey spends and then gives its orders, bey by bey."""
    out: list[ev.Event] = []
    for seat, planner in plans.items():
        if planner is bots.plan_orders:
            state = _spend(state, seat, divan, out, turn)
        state = _order(state, seat, divan, planner, out, turn=turn)
    return out, state


def _spend(
    state: SeasonState, seat: int, divan: int, out: list[ev.Event], turn: bots.Turn
) -> SeasonState:
    for cmd in bots.plan_spending(state, seat, divan, turn):
        # The computer turn runs at the lock, on the state as it stood just before it.
        result = decide(replace(state, locked_divan=None), cmd)
        if not isinstance(result, c.Rejection):
            state = fold(result, state)
            out.extend(result)
    return state


def _order(
    state: SeasonState,
    seat: int,
    divan: int,
    planner: Planner,
    out: list[ev.Event],
    *,
    turn: bots.Turn,
) -> SeasonState:
    if planner is bots.plan_orders:
        orders = bots.plan_orders(state, seat, divan, turn)
    else:
        orders = planner(state, seat, divan)
    e = ev.OrdersSubmitted(seat=seat, divan=divan, orders=orders)
    out.append(e)
    return evolve(state, e)


def computer_offer(
    state: SeasonState, seat: int, divan: int, turn: bots.Turn | None = None
) -> list[ev.Event]:
    """D-28: the bey's offer made at Divan `divan`'s lock, validated as a player's would be,
    counting for Divan `divan` + 1 (D-25: made after the lock, it is left for the next Divan,
    in trial seasons too, so the receiver can answer it before that Divan)."""
    offer = bots.plan_offer(state, seat, divan, turn)
    if offer is None:
        return []
    cmd = c.OfferTreaty(seat=seat, to=offer.to, kind=offer.kind)
    result = decide(replace(state, locked_divan=divan), cmd)  # counts for divan + 1
    if isinstance(result, c.Rejection):
        return []
    # only the offer itself: the turn is a run of the computer beys' own acts (replay.TURN)
    return [replace(e, divan=divan + 1) for e in result if isinstance(e, ev.TreatyOffered)]


def lock(state: SeasonState, divan: int) -> ev.DivanLocked:
    """R-4.4: the orders and offers that stand at the lock are the Divan's inputs of record.

    An offer made after an earlier Divan's instant (live) or at an earlier lock by a computer
    bey (rules/2, D-28) counts for a later Divan and is left for it (D-25); a human's offers
    in a trial season carry no Divan and all stand."""
    offers = tuple(
        o for o in state.offers if state.offer_divans.get(offer_key(o.frm, o.to), divan) <= divan
    )
    return ev.DivanLocked(divan=divan, orders=dict(state.orders.get(divan, {})), offers=offers)


def keeps_divan(events: Iterable[ev.Event], divan: int) -> bool:
    """ADR-128: whether `events`, appended after Divan `divan`'s run was decided on a state,
    leave that run as it was: each is a bey's order set for a later Divan (R-4.4: received
    after the lock, it waits for the next one). Such an event changes only the state's orders
    for its own Divan (evolve), and a Divan's run reads the orders of that Divan alone
    (`lock`): the run on the state with them is the same events, byte for byte (ids are of the
    season and the Divan, never of a version). Anything else, orders for `divan` itself
    included, may change it: the run is decided again."""
    return all(type(e) is ev.OrdersSubmitted and e.divan > divan for e in events)


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
    was late), and the season's next deadline follows the resolution (with_deadline).
    """
    return _divan(state, planners, now)[0]


def played_divan(
    state: SeasonState,
    planners: dict[int, Planner] | None = None,
    now: datetime | None = None,
) -> tuple[list[ev.Event], SeasonState | None]:
    """`run_divan`'s events and, for a trial Divan, the state they fold `state` to: the turn
    and the lock as they were folded when made, then the resolution's own events (ADR-141),
    so the resolver's fold after its append folds no event twice. None for a live Divan
    (with_deadline rewrites its events after the resolution): fold them."""
    events, locked = _divan(state, planners, now)
    if locked is None:
        return events, None
    state, outcome = locked
    return events, fold(outcome, state)


def _divan(
    state: SeasonState, planners: dict[int, Planner] | None, now: datetime | None
) -> tuple[list[ev.Event], tuple[SeasonState, list[ev.Event]] | None]:
    """The Divan's events and, for a trial Divan, the state at its lock with the resolution's
    events (what is left to fold)."""
    divan = state.divan + 1
    start = state
    if state.mode == "live":
        assert now is not None, "a live Divan is held at an instant"
        held = live.held(state, divan, now)
        events = [held, *computer_turn(state, divan, planners)]
        state = fold(events, state)  # the held instant first, as recorded
    else:  # the turn's own fold: its events, each folded once (ADR-135)
        events, state = played_turn(state, divan, planners)
    locked = lock(state, divan)
    state = evolve(state, locked)
    outcome = resolve_divan(state, inputs_of(state, locked))
    events = [*events, locked, *outcome]
    if start.mode == "live":
        late = any(e.late for e in events if isinstance(e, ev.DivanHeld))
        return with_deadline(start, marked_late(events, late)), None
    return events, (state, outcome)


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
