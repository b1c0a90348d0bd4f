"""Benchmark: one Divan's adjudication on a mid-season 19-bey state, every province ordered.

Target (issue 2): median ≤ 1 ms. Report rendering is timed separately.
Run: .venv/bin/python -m bench.adjudication [REPEAT]
"""

from __future__ import annotations

import sys

from bench.common import figures, machine, mid_season, ordered_everywhere, timed
from shared.domain import report
from shared.domain.board import Board
from shared.domain.lifecycle import inputs_of
from shared.domain.resolve import adjudicate


def main(repeat: int = 2000) -> None:
    state, locked = ordered_everywhere(mid_season())
    inputs = inputs_of(state, locked)
    owned = sum(1 for p in state.provinces if p.owner is not None)
    n_orders = sum(len(os) for os in locked.orders.values())
    print(
        f"config: {machine()}; Divan {inputs.divan}; 19 beys; {owned} owned provinces; "
        f"{n_orders} orders; repeat {repeat}"
    )
    events, _ = adjudicate(state, inputs)
    print(
        figures(
            "adjudicate (steps 1-7, report included)",
            timed(lambda: adjudicate(state, inputs), repeat),
        )
    )
    seats = sorted(b.seat for b in state.beys)
    print(
        figures(
            "report rendering alone (step 7)", timed(lambda: report.build(events, seats), repeat)
        )
    )
    print(figures("Board.of (working copy)", timed(lambda: Board.of(state, inputs.divan), repeat)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)  # [REPEAT]
