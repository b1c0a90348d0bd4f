"""Whole simulated seasons: a Han at the end, invariants after each Divan, replay (R-12.3)."""

from __future__ import annotations

import msgspec
import pytest

from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.invariants import violations
from shared.domain.replay import verify
from shared.domain.simulate import season
from shared.domain.state import DIVANS, SeasonState

SEEDS = range(1, 21)


def play(seed: int) -> tuple[list[ev.Event], SeasonState]:
    events: list[ev.Event] = []
    broken: list[str] = []

    def check(state: SeasonState) -> None:
        broken.extend(f"Divan {state.divan}: {v}" for v in violations(state))

    state = SeasonState()
    for step in season(seed, check=check):
        events.extend(step.events)
        state = step.state
    assert broken == []
    return events, state


@pytest.mark.parametrize("seed", SEEDS)
def test_r1_1_season_of_16_divans_ends_with_a_han_and_no_broken_invariant(seed: int) -> None:
    events, state = play(seed)
    assert state.divan == DIVANS
    assert state.phase == "over"
    assert state.han is not None
    kurultay = next(e for e in events if isinstance(e, ev.KurultayHeld))
    assert kurultay.han == kurultay.scores[0][0] == state.han
    assert sorted(s for s, _ in kurultay.scores) == sorted(b.seat for b in state.beys)
    assert len(state.beys) == 19


@pytest.mark.parametrize("seed", [3, 17])
def test_r12_3_replay_reproduces_every_divan_and_the_computer_beys(seed: int) -> None:
    events, state = play(seed)
    replayed, problems = verify(events)
    assert problems == []
    assert replayed == state == fold(events)


def test_r12_3_a_tampered_outcome_is_reported_not_repaired() -> None:
    events, _ = play(5)
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.ProductionApplied) and e.changes)
    prod = events[i]
    assert isinstance(prod, ev.ProductionApplied)
    first = prod.changes[0]
    events[i] = msgspec.structs.replace(
        prod, changes=(msgspec.structs.replace(first, units=first.units + 1), *prod.changes[1:])
    )
    _, problems = verify(events)
    assert problems, "a tampered outcome must be reported"
    assert problems[0].divan == prod.divan  # later Divans may differ too: they start elsewhere
    assert problems[0].at == i  # the first event that differs is named (issue 13)


def test_r12_3_a_missing_outcome_event_is_named_where_it_belongs() -> None:
    events, _ = play(5)
    i = next(i for i, e in enumerate(events) if isinstance(e, ev.RebellionsRun))
    del events[i]
    _, problems = verify(events)
    assert problems[0].at == i, problems[0]


def test_r1_5_same_seed_same_season_bit_for_bit() -> None:
    from shared.domain import codec

    a, _ = play(9)
    b, _ = play(9)
    assert codec.encode(a) == codec.encode(b)
    c, _ = play(10)
    assert codec.encode(a) != codec.encode(c)
