"""A computer bey's offer as the read side shows it to both parties (R-6.1, R-14, D-28)."""

from __future__ import annotations

import json

from services.projections.views import private_fields
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.domain.evolve import fold
from shared.domain.lifecycle import run_divan
from shared.domain.state import SeasonState

ANKARA = 6


def test_r6_1_a_computer_offer_is_in_the_humans_offers_in_and_nobody_elses() -> None:
    """R-6.1, R-14, D-28: the human's private view lists a computer bey's offer to it, with no
    answer yet, and the offerer's lists it as made."""
    state = SeasonState()
    for cmd in (c.CreateSeason(season_id="v", seed=7), c.JoinSeason(memleket=ANKARA)):
        result = decide(state, cmd)
        assert isinstance(result, list)
        state = fold(result, state)
    closed = decide(state, c.CloseRegistration())
    assert isinstance(closed, list)
    state = fold(closed, state)
    human = next(b.seat for b in state.beys if not b.computer)
    for _ in range(11):
        state = fold(run_divan(state), state)
        if any(o.to == human for o in state.offers):
            break
    offer = next(o for o in state.offers if o.to == human)
    mine = json.loads(private_fields(state, human)["offers_in"])
    assert {"from": offer.frm, "kind": offer.kind, "answer": None} in mine
    theirs = json.loads(private_fields(state, offer.frm)["offers_out"])
    assert {"to": human, "kind": offer.kind} in theirs
