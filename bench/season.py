"""Benchmark: whole simulated seasons of 19 computer beys, bot decisions included.

Target (issue 2): ≤ 1 s per season. Also checks every season ends with a Han and no invariant
broken after any Divan (200 seeds by default; the suite runs 20).
Run: .venv/bin/python -m bench.season [SEASONS]
"""

from __future__ import annotations

import sys
import time

from bench.common import machine
from shared.domain.invariants import violations
from shared.domain.simulate import season


def one(seed: int) -> tuple[float, int | None, int]:
    broken = 0

    def check(state):  # type: ignore[no-untyped-def]
        nonlocal broken
        broken += len(violations(state))

    t0 = time.perf_counter()
    han = None
    for step in season(seed, check=check):
        han = step.state.han
    return time.perf_counter() - t0, han, broken


def main(seasons: int = 200) -> None:
    print(
        f"config: {machine()}; {seasons} seasons (seeds 1..{seasons}); "
        "19 computer beys; 16 Divans + Kurultay"
    )
    times, no_han, broken = [], 0, 0
    for seed in range(1, seasons + 1):
        dt, han, b = one(seed)
        times.append(dt)
        no_han += han is None
        broken += b
    times.sort()
    print(
        f"season wall time: median {times[len(times) // 2]:.3f} s, max {times[-1]:.3f} s, "
        f"mean {sum(times) / len(times):.3f} s"
    )
    print(f"seasons without a Han: {no_han}; invariant violations: {broken}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
