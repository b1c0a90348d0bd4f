"""ADR-141: the resolver keeps the state a trial Divan's run folded to, not a second fold."""

from __future__ import annotations

import pytest

from shared.domain.codec import encode
from shared.domain.evolve import fold
from shared.domain.lifecycle import played_divan, run_divan
from shared.domain.simulate import season
from shared.domain.state import RULES_1, RULES_VERSION


@pytest.mark.parametrize("rules_version", [RULES_1, RULES_VERSION])
@pytest.mark.parametrize("seed", [11, 12])
def test_adr_141_a_trial_divan_s_state_is_the_fold_of_its_events(
    rules_version: str, seed: int
) -> None:
    """`played_divan` answers `run_divan`'s events, byte for byte, and the state they fold the
    state before the Divan to (the turn and lock as folded when made, then the resolution's
    events), on every state before a Divan of a whole season."""
    befores = [s.state for s in season(seed, rules_version=rules_version)][:16]
    assert len(befores) == 16
    for state in befores:
        events, after = played_divan(state)
        assert encode(events) == encode(run_divan(state))
        assert after is not None
        assert encode(after) == encode(fold(events, state))
