"""Every benchmark at a small "smoke" size, so none can rot unnoticed (`make bench-smoke`).

Run: .venv/bin/python -m bench.smoke [NAME …]

Each bench module runs as its own process (`python -m bench.NAME ARGS`) with the small
arguments of SMOKE below, one after the other, printing its figures as it would at full size.
The run fails (exit 1) when any bench exits non-zero; it asserts nothing about the figures
(smoke sizes say nothing about speed: the figures of record are in docs/benchmarks.md, each
with its full-size command). EXCLUDED lists the modules that do not run here and why;
tests/packaging/test_bench_smoke.py holds that every module of bench/ is in one or the other.

The benches that need PostgreSQL make a scratch database on SEKSENBIR_PG_DSN's server
(DEFAULT_SERVER_DSN when it is unset) and drop it; those that need Redis start a redis-server
of their own on a free port (a bench uses a Redis it is not given only if it started it:
tests/packaging/test_bench_redis.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SERVER_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"

# module → its smoke-size command lines (one run each; a module may run in several modes)
SMOKE: dict[str, list[str]] = {
    "access_log": ["2000 1"],
    "adjudication": ["20"],
    "box": [""],
    "api_orders": [
        "--seconds 0.5 --warmup 0.1 --seasons 1 --rounds 1 --concurrency 2 --pool 2",
        "--seconds 0.5 --warmup 0.1 --seasons 1 --rounds 1 --concurrency 2 --pool 2 --slices 1"
        " --heap default --lines inline",
        "--seconds 0.5 --warmup 0.1 --seasons 1 --rounds 1 --concurrency 2 --pool 2 --asgi",
        "--seconds 0.5 --warmup 0.1 --seasons 1 --rounds 1 --concurrency 2 --pool 2 --asgi --ab",
        "--seasons 1 --concurrency 2 --pool 2 --asgi --count 4",
    ],
    "brokers": ["--messages 50 --threads 2"],
    "capacity": ["--seasons 1 --divans 2", "--seasons 1 --divans 2 --broker rabbitmq"],
    "chat_flood": [
        "--seconds 0.5 --pairs 1 --rate 5 --concurrency 2 --streams 3",
        "--seconds 0.5 --pairs 1 --rate 5 --concurrency 2 --streams 3 --for-the-divan",
    ],
    "cli_start": ["--runs 1"],
    "divan_flood": ["--rounds 1 --concurrency 2", "--rounds 1 --concurrency 2 --for-the-divan"],
    "divan_work": ["--seasons 1", "--seasons 1 --count projector"],
    "divan_latency": ["--divans 1 --worker-timeouts 1000 --think-ms 0"],
    "eventstore_append": ["--seconds 0.2 --writers 1 --batch 1"],
    "flood_costs": ["--requests 3 --rounds 1"],
    "fold_read": ["--reads 2 --rounds 1"],
    "group_append": ["--statements 3 --group 2"],
    "idle": ["--port 0 --settle 0.5 --seconds 1 --divans 2 --think-ms 0 --seasons-made 50"],
    "instructions": ["ours 2", "turn 1", "check 1", "rerun 1"],
    "orders_path": ["--orders 20 --windows 2"],
    "notify_isolation": ["--rounds 2 --divans 3 --receivers 50 --timeout-s 0.5"],
    "live_surge": [
        "--seasons 2 --idle 50 --resolvers 1 --threads 1 --timeout 120",
        "--seasons 2 --idle 50 --resolvers 1 --threads 1 --timeout 120 --broker rabbitmq",
    ],
    "projections": ["--seasons 1 --rate 20 --lag-seasons 1 --poll-ms 20"],
    "read_flood": ["--connections 4 --seconds 1 --modes on"],
    "release": ["--seasons 3"],
    "sweep": ["--seasons 200 --changed 3 --passes 2"],
    "redelivery": ["--runs 1 --heartbeat-ms 1000", "--runs 1 --broker rabbitmq"],
    "scale_out": ["--seasons 2 --divans 2 --gateways 2 --resolvers 1 --projectors 1"],
    "schemathesis_long": ["--max-examples 1 --phases examples --timeout 300"],
    "season": ["2"],
    "season_flood": ["--seconds 1 --addresses 1 --connections 2 --streams 1 --trials 1 --modes on"],
    "soak": [
        "--minutes 0.05 --trials 2 --lives 1 --interval 2 --warmup-s 1 --drain-s 120 --raw-s 1",
    ],
    "strength": ["2"],
    "trial_load": ["--seasons 2 --seconds 2 --resolvers 1 --projectors 1"],
    "verify": ["--seasons 2 --repeat 1"],
}

EXCLUDED: dict[str, str] = {
    "common": "helpers for the others, not a bench",
    "chat_load": "the chat side of chat_flood, run by it in a process of its own",
    "smoke": "this runner",
    "console": "times a running stack's console endpoints (`seksenbir up` with --ops, and "
    "--auditor): run by hand against one, figures in docs/benchmarks.md",
    "adjudication_vs_mila": "needs MILA `diplomacy`, a peer kept out of the project's "
    "environment (.venv-bench): `make bench-mila`",
    "mutation": "mutation testing with mutmut: a full domain test run per mutant, about 20 "
    "minutes on 2 cores: `make mutation`",
}


def modules() -> list[str]:
    return sorted(p.stem for p in (ROOT / "bench").glob("*.py") if p.stem != "__init__")


def environment() -> dict[str, str]:
    """This process's, with the server DSN defaulting to the `postgres` database, which every
    server has (the benches' own defaults name others): scratch databases are made there."""
    return {"SEKSENBIR_PG_DSN": DEFAULT_SERVER_DSN, **os.environ}


def run(name: str, args: list[str]) -> tuple[int, float]:
    command = [sys.executable, "-m", f"bench.{name}", *args]
    print(f"\n=== bench-smoke: {' '.join(command[1:])}", flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=environment(), check=False)
    return done.returncode, time.monotonic() - started


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in SMOKE]
    if unknown:
        raise SystemExit(f"no smoke size for: {', '.join(unknown)} (known: {', '.join(SMOKE)})")
    failed, took = [], []
    for name in names or list(SMOKE):
        for line in SMOKE[name]:
            args = line.split()
            code, seconds = run(name, args)
            took.append((name, args, code, seconds))
            if code:
                failed.append(f"bench.{name} {' '.join(args)} (exit {code})")
    print("\n=== bench-smoke: summary (wall seconds, for information only)")
    for name, args, code, seconds in took:
        print(
            f"  {'ok  ' if code == 0 else 'FAIL'} {seconds:6.1f} s  bench.{name} {' '.join(args)}"
        )
    print(f"  total {sum(t[3] for t in took):.1f} s; not run: {', '.join(sorted(EXCLUDED))}")
    if failed:
        print("bench-smoke: failed: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
