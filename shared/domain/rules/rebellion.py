"""Divan step 4: guerilla and rebellion of landless Sürgün beys (R-9)."""

from __future__ import annotations

from shared.domain.board import Board
from shared.domain.draws import Draws
from shared.domain.events import RebellionsRun
from shared.domain.state import is_friday

REBEL_UNITS = 4


def rebellion_chance(units: int) -> int:
    """R-9.3: 60 % if the memleket holds fewer than 4 units or milis, else 40 %."""
    return 60 if units < 4 else 40


def run(board: Board, draws: Draws) -> RebellionsRun:
    """R-9.2 guerilla for every landless Sürgün, then R-9.3 rebellion on Friday Divans."""
    before = board.snapshot()
    counts = board.province_counts()
    # No province left means the memleket is not held either (`holds_memleket` needs no call).
    landless = [s for s in board.beys if counts[s] == 0]  # in seat order (`Board.beys`)
    for seat in landless:
        m = board.beys[seat].memleket
        board.units[m] = max(1, board.units[m] - 1)
    rolls = []
    if is_friday(board.divan):
        for seat in landless:
            m = board.beys[seat].memleket
            percent = rebellion_chance(board.units[m])
            success = draws.rebellion(seat, percent)
            rolls.append((seat, percent, success))
            if success:
                board.take(m, seat, REBEL_UNITS)
    return RebellionsRun(
        divan=board.divan,
        guerillas=tuple(landless),
        rebellions=tuple(rolls),
        changes=board.changes_since(before),
    )
