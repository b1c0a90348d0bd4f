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

`ours` is `bench.adjudication`'s unit (steps 1-7 with the report, 19 beys, 78 orders); `mila`
is `bench.adjudication_vs_mila`'s (S1904M, every unit ordered; a fresh game per call, built
before the window, since `process()` advances the game).
"""

from __future__ import annotations

import functools
import gc
import sys

from bench.common import mid_season, ordered_everywhere
from shared.domain.lifecycle import inputs_of
from shared.domain.resolve import adjudicate

WARM_UP = 20


def main() -> None:
    side, calls = sys.argv[1], int(sys.argv[2])
    if side == "ours":
        state, locked = ordered_everywhere(mid_season())
        inputs = inputs_of(state, locked)  # type: ignore[arg-type]
        for _ in range(WARM_UP):
            adjudicate(state, inputs)
        gc.collect()
        gc.freeze()
        functools.reduce(lambda _, __: adjudicate(state, inputs), range(calls), None)
    elif side == "mila":
        from bench.adjudication_vs_mila import mila_games

        games = mila_games(calls + WARM_UP, 3, "S1904M")
        for g in games[:WARM_UP]:
            g.process()  # type: ignore[attr-defined]
        gc.collect()
        gc.freeze()
        functools.reduce(lambda _, g: g.process(), games[WARM_UP:], None)  # type: ignore[attr-defined]
    else:
        raise SystemExit("usage: python -m bench.instructions ours|mila CALLS")


if __name__ == "__main__":
    main()
