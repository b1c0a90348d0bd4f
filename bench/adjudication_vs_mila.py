"""Benchmark: one Divan's pipeline beside MILA `diplomacy`'s movement-phase `Game.process()`.

Issue 12's target: our unit (steps 1-7 with the report, 19 beys, 78 orders, the same unit as
`bench.adjudication`) takes at most 0.5x MILA's movement phase on the same machine, measured in
one process run with alternating rounds so that both see the same load.

MILA is a peer used only to measure against: it lives in the benchmark's own environment, never
in the project's dependencies. `make bench-mila` builds that environment (.venv-bench: the
project without its dev tools, plus `diplomacy`) and runs this file.

The MILA workload: the standard map played from 1901 with legal orders drawn by a seeded
generator up to `--mila-phase` (default S1904M, a mid-game movement phase like our Divan 8),
then every unit ordered the same way; a fresh copy of that game is built outside the timed
region for every call, since `process()` advances the game.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from os import getloadavg
from typing import Any

from bench.common import machine, mid_season, ordered_everywhere
from shared import compiled
from shared.domain.lifecycle import inputs_of
from shared.domain.resolve import adjudicate


def mila_games(n: int, seed: int, phase: str) -> list[Any]:
    """`n` fresh MILA games at movement phase `phase`, every unit ordered (seeded, legal)."""
    from diplomacy import Game  # the benchmark environment only
    from diplomacy.utils.export import from_saved_game_format, to_saved_game_format

    def draw(game: Game, rng: random.Random) -> dict[str, list[str]]:
        possible = game.get_all_possible_orders()
        return {
            power: [
                rng.choice(sorted(possible[loc]))
                for loc in game.get_orderable_locations(power)
                if possible[loc]
            ]
            for power in game.powers
        }

    rng = random.Random(seed)
    game = Game()
    while game.get_current_phase() != phase:
        if game.is_game_done:
            raise SystemExit(f"the seeded game ended before {phase}; try another --seed")
        for power, os in draw(game, rng).items():
            game.set_orders(power, os)
        game.process()
    orders = draw(game, rng)
    saved = to_saved_game_format(game)
    games = []
    for _ in range(n):
        g = from_saved_game_format(saved)
        for power, os in orders.items():
            g.set_orders(power, os)
        games.append(g)
    return games


def _time_each(calls: Sequence[Callable[[], object]]) -> list[float]:
    out = []
    for call in calls:
        t0 = time.perf_counter()
        call()
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10, help="alternating rounds (default 10)")
    ap.add_argument("--per-round", type=int, default=200, help="calls per side per round")
    ap.add_argument("--seed", type=int, default=3, help="seed of MILA's order draws")
    ap.add_argument("--mila-phase", default="S1904M", help="MILA's movement phase (S1901M …)")
    args = ap.parse_args()

    state, locked = ordered_everywhere(mid_season())
    inputs = inputs_of(state, locked)
    n_orders = sum(len(os) for os in locked.orders.values())
    probe = mila_games(1, args.seed, args.mila_phase)[0]
    mila_orders = sum(len(probe.get_orders(p)) for p in probe.powers)
    used = compiled.status()
    modules = (
        f"compiled ({len(compiled.MODULES)} modules, ADR-60)"
        if used.compiled
        else f"pure Python ({used.reason})"
    )
    print(
        f"config: {machine()}; load average {getloadavg()[0]:.2f}; modules: {modules}; "
        f"ours: Divan {inputs.divan}, 19 beys, {n_orders} orders, report "
        f"included; MILA: {probe.get_current_phase()}, {mila_orders} orders; "
        f"{args.rounds} rounds x {args.per_round} calls each, alternating"
    )
    for _ in range(50):  # warm both up
        adjudicate(state, inputs)
    ours: list[float] = []
    mila: list[float] = []
    ratios: list[float] = []
    for r in range(args.rounds):
        games = mila_games(args.per_round, args.seed, args.mila_phase)
        ours_calls = [lambda: adjudicate(state, inputs)] * args.per_round
        mila_calls = [g.process for g in games]
        if r % 2 == 0:  # alternate which side runs first in a round
            a, b = _time_each(ours_calls), _time_each(mila_calls)
        else:
            b, a = _time_each(mila_calls), _time_each(ours_calls)
        ours += a
        mila += b
        ratios.append(statistics.median(a) / statistics.median(b))
        print(
            f"round {r + 1}: ours median {statistics.median(a) * 1e3:.3f} ms, "
            f"MILA median {statistics.median(b) * 1e3:.3f} ms, ratio {ratios[-1]:.2f}"
        )
    print(
        f"ours: median {statistics.median(ours) * 1e3:.3f} ms, min {min(ours) * 1e3:.3f} ms; "
        f"MILA: median {statistics.median(mila) * 1e3:.3f} ms, min {min(mila) * 1e3:.3f} ms"
    )
    print(
        f"ratio ours/MILA: median of rounds {statistics.median(ratios):.2f} "
        f"(rounds {min(ratios):.2f}-{max(ratios):.2f}), of mins {min(ours) / min(mila):.2f}; "
        "target <= 0.5"
    )


if __name__ == "__main__":
    main()
