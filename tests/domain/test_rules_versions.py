"""Rules versions: a season replays under the rules it was recorded with (R-12.3, D-28)."""

from __future__ import annotations

import hashlib

import pytest

from shared.domain import codec
from shared.domain.simulate import season
from shared.domain.state import RULES_1

# sha256 over codec.encode(e) of every event of seeds 1 … 60 of `simulate.season`, computed on
# main before computer beys made offers (rules/1). It must never change: seasons recorded under
# seksenbir-rules/1 replay and verify exactly as they were recorded. It was 7605453b…3661 until
# simulate.start stored the salt it commits to ("sim", R-1.5: the revealed salt must open the
# commitment); with the salt left empty as before, the merged code still gives 7605453b…3661,
# so the only change is that input, not any outcome.
RULES_1_BASELINE = "3747927a3e8348752c6bd51f03a6b51488f80f49990901940d39f3d8a3eaa2a2"


def seasons_hash(seeds: range, rules_version: str) -> str:
    h = hashlib.sha256()
    for seed in seeds:
        for step in season(seed, rules_version=rules_version):
            for e in step.events:
                h.update(codec.encode(e))
    return h.hexdigest()


@pytest.mark.slow
def test_r12_3_rules_1_seasons_are_unchanged_bit_for_bit() -> None:
    """R-12.3, R-1.5: 60 simulated rules/1 seasons encode to the recorded baseline."""
    assert seasons_hash(range(1, 61), RULES_1) == RULES_1_BASELINE
