"""Benchmark: computer-bey strength against always-hold and random-legal beys.

Seats 1–6 computer beys, 7–12 always hold, 13–19 random legal orders, over 100 seeds.
Targets (issue 2): a computer bey is Han in ≥ 90 % of seasons; computer beys average ≥ 2×
the others' score.
Run: .venv/bin/python -m bench.strength [SEEDS]
"""

from __future__ import annotations

import sys

from bench.common import machine
from shared.domain import bots
from shared.domain.events import KurultayHeld
from shared.domain.lifecycle import Planner
from shared.domain.simulate import season

BOT, HOLD, RANDOM = range(1, 7), range(7, 13), range(13, 20)


def planners() -> dict[int, Planner]:
    p: dict[int, Planner] = dict.fromkeys(BOT, bots.plan_orders)
    p.update(dict.fromkeys(HOLD, bots.plan_hold))
    p.update(dict.fromkeys(RANDOM, bots.plan_random))
    return p


def kurultay(seed: int) -> KurultayHeld:
    last = None
    for step in season(seed, planners=planners()):
        last = step
    assert last is not None
    return next(e for e in last.events if isinstance(e, KurultayHeld))


def main(seeds: int = 100) -> None:
    print(f"config: {machine()}; {seeds} seeds; seats 1-6 computer, 7-12 hold, 13-19 random legal")
    bot_han = 0
    totals = {"bot": 0, "hold": 0, "random": 0}
    for seed in range(1, seeds + 1):
        k = kurultay(seed)
        bot_han += k.han in BOT
        for seat, score in k.scores:
            kind = "bot" if seat in BOT else "hold" if seat in HOLD else "random"
            totals[kind] += score
    avg = {
        "bot": totals["bot"] / (6 * seeds),
        "hold": totals["hold"] / (6 * seeds),
        "random": totals["random"] / (7 * seeds),
    }
    others = (totals["hold"] + totals["random"]) / (13 * seeds)
    print(f"computer bey is Han: {bot_han}/{seeds} = {100 * bot_han / seeds:.1f} % (target ≥ 90 %)")
    print(
        f"average final score: computer {avg['bot']:.2f}, hold {avg['hold']:.2f}, "
        f"random {avg['random']:.2f}; computer / others = {avg['bot'] / others:.2f}× (target ≥ 2×)"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
