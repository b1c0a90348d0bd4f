"""ADR-128: a Divan's run, decided on a state, is the run on that state with any later Divans'
orders folded in (R-4.4: received after the lock, they wait for the next Divan), byte for byte,
ids included; so the resolver appends it at the new head instead of deciding it again. Orders
for the Divan itself, or any other event, may change it: those are decided again."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.app.repository.seasons import to_new
from shared.domain import codec
from shared.domain import commands as c
from shared.domain import events as ev
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import keeps_divan, run_divan
from shared.domain.replay import verify
from shared.domain.state import Order, SeasonState
from shared.eventstore import EventMetadata
from tests.domain.strategies import order_sets

NOW = datetime.fromisoformat("2026-12-01T12:00:00+03:00")
CLOSE = NOW + timedelta(hours=1)
HUMANS = [6, 34, 35, 1, 21, 61]  # memlekets of the human beys (seats 1–6)
META = EventMetadata(actor="system", command_id="divan/n", causation_id="divan/n")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def applied(state: SeasonState, log: list[ev.Event], cmd: c.Command) -> SeasonState:
    result = decide(state, cmd)
    assert isinstance(result, list), result
    log.extend(result)
    return fold(result, state)


def instant(state: SeasonState, divan: int) -> datetime:
    assert state.calendar is not None
    return state.calendar.at(divan)


@st.composite
def seasons(draw: st.DrawFn, mode: str) -> tuple[SeasonState, list[ev.Event], int]:
    """A season of 6 humans and 13 computer beys, some Divans played with the humans' own
    orders, and the next Divan due (live: its instant past; trial: requested); with its log."""
    log: list[ev.Event] = []
    state = applied(
        SeasonState(),
        log,
        c.CreateSeason(
            season_id="rebase",
            seed=draw(st.integers(0, 2**63 - 1)),
            seed_salt="salt",
            mode=mode,  # type: ignore[arg-type]
            **({"registration_closes_at": CLOSE, "at": NOW} if mode == "live" else {}),  # type: ignore[arg-type]
        ),
    )
    for m in HUMANS if mode == "live" else HUMANS[:1]:
        state = applied(state, log, c.JoinSeason(memleket=m, at=NOW))
    state = applied(state, log, c.CloseRegistration(at=CLOSE))
    played = draw(st.integers(0, 3))
    for n in range(1, played + 2):
        before = instant(state, n) - timedelta(minutes=1) if mode == "live" else None
        for seat, orders in draw(order_sets(state)).items():
            bey = state.bey(seat)
            if bey is not None and not bey.computer:
                state = applied(state, log, c.SubmitOrders(seat, n, orders, at=before))
        if n == played + 1:
            break
        state = held(state, log, n)
    if mode == "trial":
        state = applied(state, log, c.RequestDivan(seat=1, divan=state.divan + 1))
    return state, log, played + 1


def now_of(state: SeasonState, divan: int) -> datetime | None:
    return instant(state, divan) + timedelta(seconds=2) if state.mode == "live" else None


def held(state: SeasonState, log: list[ev.Event], divan: int) -> SeasonState:
    events = run_divan(state, now=now_of(state, divan))
    log.extend(events)
    return fold(events, state)


@st.composite
def later_orders(draw: st.DrawFn, state: SeasonState, divan: int) -> list[ev.Event]:
    """Order sets for the next Divan, interleaved between the humans as they come, each decided
    as the command side does on the state with the ones before it (R-4.4: after the lock)."""
    at = instant(state, divan) + timedelta(seconds=1) if state.mode == "live" else None
    humans = [b.seat for b in state.beys if not b.computer]
    out: list[ev.Event] = []
    for _ in range(draw(st.integers(1, 12))):
        seat = draw(st.sampled_from(humans))
        orders = draw(order_sets(state)).get(seat, ())
        result = decide(state, c.SubmitOrders(seat, divan + 1, orders, at=at))
        assert isinstance(result, list), result
        assert all(isinstance(e, ev.OrdersSubmitted) for e in result)
        out.extend(result)
        state = fold(result, state)
    return out


def stored(events: list[ev.Event]) -> list[tuple[object, str, bytes]]:
    """What the store is given for a Divan's append: ids, types, data (metadata aside)."""
    return [(e.event_id, e.type, e.data) for e in to_new("rebase", "divan/n", events, META)]


@st.composite
def rebased(draw: st.DrawFn) -> tuple[SeasonState, list[ev.Event], int, list[ev.Event]]:
    state, log, divan = draw(seasons(draw(st.sampled_from(["live", "trial"]))))
    return state, log, divan, draw(later_orders(state, divan))


@SETTINGS
@given(rebased())
def test_a_divans_run_is_the_same_with_later_divans_orders_appended_before_it(
    case: tuple[SeasonState, list[ev.Event], int, list[ev.Event]],
) -> None:
    state, log, divan, later = case
    assert keeps_divan(later, divan)
    now = now_of(state, divan)
    decided = run_divan(state, now=now)
    again = run_divan(fold(later, state), now=now)  # what a re-run at the new head appends
    assert stored(decided) == stored(again)
    assert codec.encode(decided) == codec.encode(again)
    # the stream as the resolver leaves it re-runs to the same Divan (R-12.3, seksenbir verify)
    final, problems = verify([*log, *later, *decided])
    assert problems == []
    assert final.divan == divan
    assert final.orders.get(divan + 1) == fold(later, state).orders.get(divan + 1)


def test_orders_for_the_divan_itself_change_its_run_and_are_not_kept() -> None:
    """The check is not idle: an order set for Divan n that lands before the run's append (an
    edge's clock before the instant, a slow append) is one of its inputs of record."""
    log: list[ev.Event] = []
    state = applied(
        SeasonState(),
        log,
        c.CreateSeason(
            season_id="rebase",
            seed=7,
            seed_salt="salt",
            mode="live",
            registration_closes_at=CLOSE,
            at=NOW,
        ),
    )
    state = applied(state, log, c.JoinSeason(memleket=6, at=NOW))  # Ankara, seat 1
    state = applied(state, log, c.CloseRegistration(at=CLOSE))
    early = instant(state, 1) - timedelta(seconds=1)
    advance = (Order(6, "advance", 14, 5),)  # Ankara on Bolu's milis
    for_n = decide(state, c.SubmitOrders(1, 1, advance, at=early))
    assert isinstance(for_n, list)
    assert not keeps_divan(for_n, 1)
    now = now_of(state, 1)
    assert codec.encode(run_divan(state, now=now)) != codec.encode(
        run_divan(fold(for_n, state), now=now)
    )


def test_only_later_divans_orders_are_kept() -> None:
    orders = ev.OrdersSubmitted(seat=1, divan=3, orders=())
    assert keeps_divan([orders, orders], 2)
    assert keeps_divan([], 2)
    assert not keeps_divan([orders], 3)  # for the Divan itself
    assert not keeps_divan([ev.OrdersSubmitted(seat=1, divan=1, orders=())], 2)
    for other in (
        ev.TokenRotated(seat=1, by="bey", token_hash="x"),
        ev.SurBuilt(seat=1, province=6),
        ev.TreatyOffered(frm=1, to=2, kind="pact", divan=3),
        ev.OfferAnswered(frm=1, to=2, answer="accept", divan=3),
        ev.OfferWithdrawn(frm=1, to=2, divan=3),
        ev.DivanLocked(divan=2, orders={}, offers=()),
        ev.DeadlineSet(),
    ):
        assert not keeps_divan([orders, other], 2), other
