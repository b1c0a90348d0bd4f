"""How fast a CLI verb that needs no HTTP app starts: `seksenbir verify SEASON` as a process.

Run: .venv/bin/python -m bench.cli_start [--runs 7] [--dsn postgresql://…/postgres]
     [--before PATH]

Creates a scratch database on the server of --dsn (default $SEKSENBIR_PG_DSN, else
postgresql://postgres@127.0.0.1:5432/postgres), migrates it, stores one whole trial season
(16 Divans and the Kurultay, as bench.verify does), and times, in alternating runs:

  verify:           `python -m entrypoints.cli verify SEASON` for a season not stored (the
                    imports, the connection, one read, the verdict "no such season"), exit 1;
  verify stored:    the same for the stored season: the whole check (chain, every Divan
                    re-run, the computer turns, the seed), exit 0;
  python -c pass:   the interpreter's own start on this box now;
  before:           (with --before PATH, a checkout of another commit) both verifies from that
                    tree.

and, in this process on an open store, the check `verify SEASON` runs for the stored season
(read, chain, re-run): what the process adds is start and imports. Prints the median and
minimum wall time of each, the median CPU time (user + system) of each process, and the load.
Every process reads and writes the interpreter's bytecode cache (PYTHONDONTWRITEBYTECODE is
dropped; one untimed run of each first), as an installed package does: a start that compiles
the tree's modules from source measures the compiler. Target (issue 27): verify <= 0.25 s.
`python -X importtime -m entrypoints.cli verify …` shows where the imports go.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import box
from bench.api_orders import scratch_database

ROOT = Path(__file__).resolve().parents[1]
MISSING = "0123456789abcdef0123456789abcdef"
STORED = "bench-cli-start"

Variants = dict[str, tuple[list[str], Path]]


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def variants(args: argparse.Namespace) -> Variants:
    verify = [sys.executable, "-m", "entrypoints.cli", "verify"]
    out: Variants = {
        "verify": ([*verify, MISSING], ROOT),
        "verify stored": ([*verify, STORED], ROOT),
        "python -c pass": ([sys.executable, "-c", "pass"], ROOT),
    }
    if args.before:
        out["verify (before)"] = ([*verify, MISSING], Path(args.before))
        out["stored (before)"] = ([*verify, STORED], Path(args.before))
    return out


def measure(dsn: str, args: argparse.Namespace) -> dict[str, list[tuple[float, float]]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["SEKSENBIR_PG_DSN"] = dsn
    chosen = variants(args)
    for command, cwd in chosen.values():  # untimed: each tree's bytecode cache written
        timed(command, cwd, {**env, "PYTHONPATH": str(cwd)})
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in chosen}
    for _ in range(args.runs):  # alternating: a noisy box hits every variant alike
        for name, (command, cwd) in chosen.items():
            times[name].append(timed(command, cwd, {**env, "PYTHONPATH": str(cwd)}))
    return times


async def store_season(dsn: str) -> None:
    from bench.verify import clock
    from bench.verify import store_season as play
    from shared.eventstore import PoolSettings, PostgresEventStore, create_pool

    pool = await create_pool(dsn, PoolSettings(min_size=1, max_size=2))
    try:
        await play(PostgresEventStore(pool, clock=clock, notify_window=None), STORED, 11)
    finally:
        await pool.close()


async def in_process(dsn: str, runs: int) -> list[float]:
    """The stored season's check as `verify SEASON` runs it, on a store already open."""
    from entrypoints import stores
    from entrypoints.audit_sources import checked_export, stored_export
    from shared.settings import Settings

    out = []
    async with stores.event_store(Settings.from_env(), "cli", dsn=dsn) as store:
        for _ in range(runs):
            started = time.perf_counter()
            export, problem = await stored_export(store, STORED)
            verdict = checked_export(export, problem)
            out.append(time.perf_counter() - started)
            assert verdict.ok and verdict.complete, verdict.as_json(False)
    return out


async def main(args: argparse.Namespace) -> None:
    line = box.line()  # before asyncpg's pool: it forks (bench.box)
    async with scratch_database(args.dsn, "seksenbir_bench_cli") as dsn:
        await store_season(dsn)
        times = measure(dsn, args)
        checks = await in_process(dsn, args.runs)
    print(f"config: python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs")
    print(line)
    for name, pairs in times.items():
        wall = [w for w, _ in pairs]
        cpu = statistics.median(c for _, c in pairs)
        print(
            f"  {name:16}: median {statistics.median(wall):.3f} s, min {min(wall):.3f} s, "
            f"CPU {cpu:.3f} s"
        )
    print(f"  {'in process':16}: median {statistics.median(checks):.3f} s (the stored check)")
    print(f"load average after: {os.getloadavg()[0]:.1f}; target: verify <= 0.25 s")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default = "postgresql://postgres@127.0.0.1:5432/postgres"
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", default))
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--before", default="", help="a checkout of another commit to compare")
    return p.parse_args(argv)


if __name__ == "__main__":
    asyncio.run(main(parse()))
