"""ADR-176: a Divan's locked orders, battle records and report lines are written with the
sorted encoder as they are, not through a builtins copy: the same bytes as before."""

from __future__ import annotations

import msgspec
import pytest

from services.projections import reducers
from services.projections.keys import Keys
from services.projections.reducers import Snapshot, project
from services.projections.views import j
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.simulate import season
from shared.domain.state import RULES_VERSIONS


def _all_ops(seed: int, rules: str) -> list[tuple[object, ...]]:
    keys = Keys("t", f"s{seed}", 1)
    before, version, ops = Snapshot(), 0, []
    for step in season(seed, rules_version=rules):
        version += len(step.events)
        made, before = project(keys, before, step.state, step.events, version, live=True)
        ops += made
    return ops


@pytest.mark.parametrize("rules", RULES_VERSIONS)
def test_adr_176_a_season_s_operations_are_those_the_builtins_copy_made(
    rules: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops = _all_ops(5, rules)
    assert any(op[0] == "HSET" and ":battles:" in str(op[1]) for op in ops)
    monkeypatch.setattr(reducers, "plain", lambda value: j(msgspec.to_builtins(value)))
    assert _all_ops(5, rules) == ops


def test_adr_176_the_records_written_as_they_are_are_of_plain_types() -> None:
    """The events these records come from are written directly too (codec.DIRECT, or with
    only their top-level int keys made text, codec.INT_KEYED): every value under them is of a
    plain type."""
    assert ev.BattlesResolved in codec.DIRECT
    assert {ev.DivanLocked, ev.DivanResolved} <= set(codec.INT_KEYED)
