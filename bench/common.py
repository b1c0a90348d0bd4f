"""Shared helpers for the benchmarks: a mid-season state, timing, figure printing."""

from __future__ import annotations

import contextlib
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def own_redis(port: int = 0) -> Iterator[str]:
    """A redis-server of this run's own (no persistence) on `port` (0: a free one), stopped
    afterwards."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not on PATH")
    folder = tempfile.mkdtemp(prefix="seksenbir-bench-idle-redis-")
    port = port or free_port()
    cmd = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen(
        [*cmd, "--appendonly", "no", "--dir", folder],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def redis_given_or_own(given: str | None) -> Iterator[str]:
    """A bench's Redis: --redis as given, else a redis-server of this run's own (`own_redis`).
    Never a default URL nor SEKSENBIR_REDIS_URL: a bench does not write to a shared server
    unless told to (tests/packaging/test_bench_redis.py)."""
    if given:
        yield given
        return
    with own_redis() as url:
        yield url
