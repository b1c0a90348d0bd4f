"""How fast a CLI verb that needs no HTTP app starts: `seksenbir verify SEASON` as a process.

Run: .venv/bin/python -m bench.cli_start [--runs 7] [--dsn postgresql://…/postgres]
     [--before PATH]

Creates a scratch database on the server of --dsn (default $SEKSENBIR_PG_DSN, else
postgresql://postgres@127.0.0.1:5432/postgres), migrates it, and times, in alternating runs:

  verify:  `python -m entrypoints.cli verify SEASON` (a season not stored: the imports, the
           connection, one read, the verdict "no such season"), exit 1 expected;
  python:  `python -c pass`, the interpreter's own start on this box now;
  before:  (with --before PATH, a checkout of another commit) the same verify from that tree.

Prints the median and minimum of each and the load. Target (issue 27): verify <= 0.25 s.
`python -X importtime -m entrypoints.cli verify …` shows where the imports go.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.api_orders import scratch_database

ROOT = Path(__file__).resolve().parents[1]
SEASON = "0123456789abcdef0123456789abcdef"


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, capture_output=True, check=False)
    return time.perf_counter() - started


def measure(dsn: str, args: argparse.Namespace) -> dict[str, list[float]]:
    env = {**os.environ, "SEKSENBIR_PG_DSN": dsn}
    verify = [sys.executable, "-m", "entrypoints.cli", "verify", SEASON]
    variants = {"verify": (verify, ROOT), "python -c pass": ([sys.executable, "-c", "pass"], ROOT)}
    if args.before:
        variants["verify (before)"] = (verify, Path(args.before))
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.runs):  # alternating: a noisy box hits every variant alike
        for name, (command, cwd) in variants.items():
            times[name].append(timed(command, cwd, {**env, "PYTHONPATH": str(cwd)}))
    return times


async def main(args: argparse.Namespace) -> None:
    async with scratch_database(args.dsn, "seksenbir_bench_cli") as dsn:
        times = measure(dsn, args)
    print(f"config: python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs")
    for name, seconds in times.items():
        print(f"  {name:16}: median {statistics.median(seconds):.3f} s, min {min(seconds):.3f} s")
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
