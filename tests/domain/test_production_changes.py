"""Step 5's provinces set are exactly the provinces whose units production changed (issue 27:
they are collected as the units are allotted and the milis grow, not found by comparing a
snapshot of every plate): checked against the snapshot's comparison over whole seasons."""

from __future__ import annotations

import pytest

from shared.domain.board import Board
from shared.domain.events import ProductionApplied
from shared.domain.rules import production
from shared.domain.simulate import season
from shared.domain.state import NewsCard


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_r7_production_sets_the_provinces_whose_units_it_changed(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    produce = production.produce
    seen: list[int] = []

    def checked(board: Board, news: NewsCard | None) -> ProductionApplied:
        before = board.snapshot()
        event = produce(board, news)
        assert event.changes == board.changes_since(before)
        seen.append(len(event.changes))
        return event

    monkeypatch.setattr(production, "produce", checked)
    for _step in season(seed):
        pass
    assert len(seen) > 10 and sum(seen) > 0
