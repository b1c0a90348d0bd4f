"""Properties of the adjudicator: determinism, order independence, invariants, fold (R-12)."""

from __future__ import annotations

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.domain import codec
from shared.domain.events import BattlesResolved, ProductionApplied
from shared.domain.evolve import fold
from shared.domain.invariants import violations
from shared.domain.map import game_map
from shared.domain.resolve import DivanInputs, adjudicate, resolve_divan
from tests.domain.strategies import order_sets, states

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GM = game_map()


@st.composite
def divans(draw: st.DrawFn):  # type: ignore[no-untyped-def]
    state = draw(states())
    return state, DivanInputs(divan=state.divan + 1, orders=draw(order_sets(state)))


@SETTINGS
@given(divans())
def test_r12_1_same_inputs_give_identical_events(case) -> None:  # type: ignore[no-untyped-def]
    state, inputs = case
    first = codec.encode(resolve_divan(state, inputs))
    assert first == codec.encode(resolve_divan(state, inputs))


@SETTINGS
@given(divans(), st.randoms(use_true_random=False))
def test_r12_2_permuting_orders_beys_and_treaties_changes_nothing(case, rnd) -> None:  # type: ignore[no-untyped-def]
    """R-12.2: iteration order is defined by plate and seat, never by the order inputs arrive in."""
    state, inputs = case
    seats = list(inputs.orders)
    rnd.shuffle(seats)
    shuffled = {}
    for s in seats:
        orders = list(inputs.orders[s])
        # Within one province the last order wins: keep that, permute the rest.
        last = {o.province: o for o in orders}
        unique = list(last.values())
        rnd.shuffle(unique)
        shuffled[s] = tuple(unique)
    base = {s: tuple({o.province: o for o in os}.values()) for s, os in inputs.orders.items()}
    treaties = list(state.treaties)
    rnd.shuffle(treaties)
    beys = list(state.beys)
    rnd.shuffle(beys)
    permuted_state = msgspec.structs.replace(state, treaties=tuple(treaties), beys=tuple(beys))
    a = resolve_divan(state, DivanInputs(inputs.divan, base))
    b = resolve_divan(permuted_state, DivanInputs(inputs.divan, shuffled))
    assert codec.encode(a) == codec.encode(b)


@SETTINGS
@given(divans())
def test_invariants_hold_after_every_divan_and_fold_equals_board(case) -> None:  # type: ignore[no-untyped-def]
    """R-2.5, R-3.2: 1..12 units, milis ≥ 1, gold ≥ 0; evolve(events) equals the working copy."""
    state, inputs = case
    events, board = adjudicate(state, inputs)
    after = fold(events, state)
    assert violations(after) == []
    assert after.provinces == board.freeze_provinces()
    assert {b.seat: b for b in after.beys} == {s: w.freeze() for s, w in board.beys.items()}
    assert {t.pair(): t for t in after.treaties} == board.treaties
    assert after.divan == inputs.divan


@SETTINGS
@given(divans())
def test_r5_units_balance_in_the_battle_step(case) -> None:  # type: ignore[no-untyped-def]
    """Every unit that disappears in step 3 is a recorded loss (R-5.5, R-5.6, R-5.7)."""
    state, inputs = case
    events = resolve_divan(state, inputs)
    before_step3 = fold(events[: _index(events, BattlesResolved)], state)
    after_step3 = fold(events[: _index(events, BattlesResolved) + 1], state)
    battles = next(e for e in events if isinstance(e, BattlesResolved))
    lost = sum(r.attacker_losses + r.defender_losses for r in battles.battles)
    lost += battles.returns_lost + battles.cut
    total = lambda s: sum(p.units for p in s.provinces)  # noqa: E731
    assert total(after_step3) == total(before_step3) - lost


@SETTINGS
@given(divans())
def test_r7_production_adds_exactly_its_allotments(case) -> None:  # type: ignore[no-untyped-def]
    """R-7.6, R-7.7, R-3.2: allotments (doubled in perde 3) minus the cut, plus milis growth."""
    state, inputs = case
    events = resolve_divan(state, inputs)
    i = _index(events, ProductionApplied)
    before, after = fold(events[:i], state), fold(events[: i + 1], state)
    prod = events[i]
    assert isinstance(prod, ProductionApplied)
    factor = 2 if inputs.divan >= 13 else 1
    made = sum(
        (a.base + a.harvest + a.bonus + a.kurtulus) * factor - a.lost for a in prod.allotments
    )
    growth = sum(
        1
        for plate, p in enumerate(before.provinces, start=1)
        if p.owner is None and p.units < GM.full_milis[plate]
    )
    assert (
        sum(p.units for p in after.provinces) - sum(p.units for p in before.provinces)
        == made + growth
    )


def _index(events, kind) -> int:  # type: ignore[no-untyped-def]
    return next(i for i, e in enumerate(events) if isinstance(e, kind))


@SETTINGS
@given(divans())
def test_every_emitted_event_round_trips_through_the_codec(case) -> None:  # type: ignore[no-untyped-def]
    state, inputs = case
    for e in resolve_divan(state, inputs):
        assert codec.decode_event(codec.encode(e)) == e
