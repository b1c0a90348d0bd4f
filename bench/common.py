"""Shared helpers for the benchmarks: a mid-season state, timing, figure printing."""

from __future__ import annotations

import platform
import statistics
import sys
import time
from collections.abc import Callable

from shared.domain.events import DivanLocked
from shared.domain.evolve import evolve, fold
from shared.domain.lifecycle import computer_turn, lock
from shared.domain.simulate import season
from shared.domain.state import SeasonState


def machine() -> str:
    return (
        f"python {sys.version.split()[0]} on {platform.machine()} ({platform.processor() or 'cpu'})"
    )


def mid_season(seed: int = 11, divan: int = 8) -> SeasonState:
    """A 19-bey season of computer beys just before Divan `divan`."""
    for step in season(seed, divan - 1):
        state = step.state
    return state


def ordered_everywhere(state: SeasonState) -> tuple[SeasonState, DivanLocked]:
    """The state after every computer bey's turn and the lock: every owned province ordered."""
    from shared.domain.state import Order

    divan = state.divan + 1
    state = fold(computer_turn(state, divan), state)
    orders = {s: list(os) for s, os in state.orders.get(divan, {}).items()}
    for plate, p in enumerate(state.provinces, start=1):
        if p.owner is None:
            continue
        mine = orders.setdefault(p.owner, [])
        if not any(o.province == plate for o in mine):
            from shared.domain.map import game_map

            target = game_map().neighbours(plate)[0]
            mine.append(Order(plate, "support", target, 1))
    from shared.domain.events import OrdersSubmitted

    submitted = (
        OrdersSubmitted(seat=seat, divan=divan, orders=tuple(os)) for seat, os in orders.items()
    )
    state = fold(submitted, state)
    locked = lock(state, divan)
    return evolve(state, locked), locked


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    """Wall-clock seconds of `repeat` calls (perf_counter)."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def figures(name: str, samples: list[float], unit: float = 1e3, label: str = "ms") -> str:
    s = sorted(samples)
    p99 = s[min(len(s) - 1, int(len(s) * 0.99))]
    return (
        f"{name}: median {statistics.median(s) * unit:.3f} {label}, "
        f"p99 {p99 * unit:.3f} {label}, min {s[0] * unit:.3f} {label} (n={len(s)})"
    )
