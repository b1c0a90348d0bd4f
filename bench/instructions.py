"""Benchmark helper: N calls of our Divan pipeline or of MILA's movement phase, for counting
instructions under valgrind, which a shared box's load does not change (unlike wall time).

The instructions of one call are the difference between two runs, of N and of M calls, over
N − M (the setup cancels out):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv-bench/bin/python -m bench.instructions ours 300     # and 100; MILA: mila 120, 20

`ours` is `bench.adjudication`'s unit (steps 1-7 with the report, 19 beys, 78 orders); `mila`
is `bench.adjudication_vs_mila`'s (S1904M, every unit ordered; the games are built beforehand,
120 of them whatever the count, so that only the `process()` calls differ).
"""

from __future__ import annotations

import sys

from bench.common import mid_season, ordered_everywhere
from shared.domain.lifecycle import inputs_of
from shared.domain.resolve import adjudicate


def main() -> None:
    side, calls = sys.argv[1], int(sys.argv[2])
    if side == "ours":
        state, locked = ordered_everywhere(mid_season())
        inputs = inputs_of(state, locked)  # type: ignore[arg-type]
        for _ in range(calls):
            adjudicate(state, inputs)
    elif side == "mila":
        from bench.adjudication_vs_mila import mila_games

        games = mila_games(120, 3, "S1904M")
        for g in games[: min(calls, 120)]:
            g.process()  # type: ignore[attr-defined]
    else:
        raise SystemExit("usage: python -m bench.instructions ours|mila CALLS")


if __name__ == "__main__":
    main()
