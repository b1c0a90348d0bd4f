"""R-12.3: explain's check of one Divan's computer turn (replay.turn_problems) finds what the
whole season's verify finds for that Divan, without re-running the Divans before it."""

from __future__ import annotations

import msgspec

from shared.app.ops.ops_replay import rerun_divan
from shared.domain import events as ev
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.replay import turn_problems, verify
from shared.domain.simulate import start


def _season(divans: int) -> list[ev.Event]:
    state, events = start(7, "turns")
    for _ in range(divans):
        more = run_divan(state)
        state, events = fold(more, state), events + more
    return events


def _lock(events: list[ev.Event], divan: int) -> int:
    return next(
        i for i, e in enumerate(events) if isinstance(e, ev.DivanLocked) and e.divan == divan
    )


def test_r12_3_an_untouched_turn_has_no_problem() -> None:
    events = _season(4)
    for n in range(1, 5):
        assert turn_problems(events, _lock(events, n)) == []
        assert rerun_divan(events, n).turn == []


def test_r12_3_a_changed_computer_order_is_found_as_verify_finds_it() -> None:
    events = _season(4)
    lock = _lock(events, 3)
    # the last computer bey's order set before Divan 3's lock, its orders taken away
    i = max(j for j in range(lock) if isinstance(events[j], ev.OrdersSubmitted))
    submitted = events[i]
    assert isinstance(submitted, ev.OrdersSubmitted) and submitted.orders
    events[i] = msgspec.structs.replace(submitted, orders=())
    found = turn_problems(events, lock)
    assert [p.divan for p in found] == [3]
    _state, everything = verify(events[: lock + 1])
    assert [p for p in everything if p.divan == 3 and "turn" in p.what] == found
    assert rerun_divan(events, 3).turn == [p.what for p in found]
