"""Benchmark helper: N calls of our Divan pipeline or of MILA's movement phase, for counting
instructions under valgrind, which a shared box's load does not change (unlike wall time).

The N calls run inside one `functools.reduce`, after the setup, a warm-up and
`gc.collect(); gc.freeze()` (a full collection landing inside or outside the window moves the
count by about 0.1 M a call), so callgrind can collect that window alone:

    valgrind --tool=callgrind --collect-atstart=no --toggle-collect=functools_reduce \
        --callgrind-out-file=/dev/null .venv-bench/bin/python -m bench.instructions ours 30

and the instructions of one call are "Collected" over N (MILA: `mila 30`). Without the
toggle options the whole run is counted; the difference of two runs (N and M calls) over
N − M gives the same figure, setup cancelled out.

`turn` is the computer beys' turn (`lifecycle.computer_turn`, 19 beys: spending, orders,
offers) on each state before Divans 1-16 of seed 11's season, CALLS rounds of all 16; count
only those calls with
`--collect-atstart=no --toggle-collect=functools_reduce` (the calls run inside one
`functools.reduce`, after `gc.freeze()`), and divide by 16 × CALLS for one turn.

`check` and `rerun` are `bench.verify`'s one season in process (seed 11): CALLS whole checks
(`shared.app.ops.export.check`: chain, every Divan re-run, the computer turns re-derived), or
CALLS re-runs without the computer turns; counted the same way, divided by CALLS.

`ours` is `bench.adjudication`'s unit (steps 1-7 with the report, 19 beys, 78 orders); `mila`
is `bench.adjudication_vs_mila`'s (S1904M, every unit ordered; a fresh game per call, built
before the window, since `process()` advances the game).
"""

from __future__ import annotations

import functools
import gc
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

from bench.common import mid_season, ordered_everywhere
from shared.domain.lifecycle import inputs_of
from shared.domain.resolve import adjudicate

T = TypeVar("T")

WARM_UP = 20


def main() -> None:
    side, calls = sys.argv[1], int(sys.argv[2])
    if side == "ours":
        state, locked = ordered_everywhere(mid_season())
        inputs = inputs_of(state, locked)
        for _ in range(WARM_UP):
            adjudicate(state, inputs)
        gc.collect()
        gc.freeze()
        functools.reduce(lambda _, __: adjudicate(state, inputs), range(calls), None)
    elif side == "turn":
        turn_calls(calls)
    elif side in {"check", "rerun"}:
        verify_calls(side, calls)
    elif side == "mila":
        from bench.adjudication_vs_mila import mila_games

        games = mila_games(calls + WARM_UP, 3, "S1904M")
        for g in games[:WARM_UP]:
            g.process()
        gc.collect()
        gc.freeze()
        functools.reduce(lambda _, g: g.process(), games[WARM_UP:], None)
    else:
        raise SystemExit("usage: python -m bench.instructions ours|turn|check|rerun|mila CALLS")


def _counted(fn: Callable[[T], object], items: Sequence[T]) -> int:
    """fn over items inside one functools.reduce (callgrind's toggle), GC frozen before."""
    import functools
    import gc

    gc.collect()
    gc.freeze()

    def one(n: int, item: T) -> int:
        fn(item)
        return n + 1

    return functools.reduce(one, items, 0)


def turn_calls(calls: int) -> None:
    """CALLS rounds of the 16 computer turns of seed 11, inside one functools.reduce."""
    from shared.domain.lifecycle import computer_turn
    from shared.domain.simulate import season

    befores = [s.state for s in season(11) if s.state.phase == "running" and s.divan < 16]
    for state in befores:  # warm-up: the map tables, the specialised bytecode
        computer_turn(state, state.divan + 1)
    done = _counted(lambda s: computer_turn(s, s.divan + 1), befores * calls)
    print(f"{done} computer turns")


def verify_calls(side: str, calls: int) -> None:
    """CALLS whole checks (or re-runs without the computer turns) of seed 11's season."""
    import asyncio

    from bench.verify import one_season
    from shared.app.ops.export import Export
    from shared.app.ops.export_check import check
    from shared.domain import codec
    from shared.domain.replay import verify

    records = asyncio.run(one_season(11))
    export = Export("bench", None, None, records, chain=2)
    decoded = [codec.decode_event(r.data) for r in records]
    if side == "check":
        assert check(export).ok  # and warm-up
        done = _counted(check, [export] * calls)
    else:
        verify(decoded, bots_too=False)
        done = _counted(lambda d: verify(d, bots_too=False), [decoded] * calls)
    print(f"{done} {side} calls of one season ({len(records)} events)")


if __name__ == "__main__":
    main()
