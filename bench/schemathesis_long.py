"""The long schemathesis run over the served API (issue 14; the suite runs a bounded one).

Run: .venv/bin/python -m bench.schemathesis_long [--max-examples 100] [--seed 81]
     [--phases examples,coverage,fuzzing] [--workers 1] [--dsn …] [--redis …]

The same run as tests/integration/test_fuzz_api.py (tests/integration/fuzz.py): `seksenbir
serve` on a scratch database, two beys in two trial seasons (and the ops and auditor tokens on
the staff operations, issue 20), every operation but the event
stream, every check but `positive_data_acceptance`, no stateful phase; with many more examples
per operation and the coverage phase. Prints the cases generated, the failures (target 0:
no server error, no schema violation) and the time; exits 1 on any failure or error.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import secrets
import sys
import tempfile
from pathlib import Path

import redis

from bench.api_orders import DEFAULT_DSN, scratch_database
from bench.common import redis_given_or_own
from tests.integration.fuzz import PHASES, ST, run_schemathesis


def _clean(url: str, *prefixes: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        for prefix in prefixes:
            keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
            for start in range(0, len(keys), 500):
                client.unlink(*keys[start : start + 500])
    finally:
        client.close()


async def main(args: argparse.Namespace) -> int:
    if not ST.exists():
        print("schemathesis is not installed (make install)")
        return 2
    tag = secrets.token_hex(3)
    prefix, namespace = f"bench-fuzz-{tag}", f"bench-fuzz-ns-{tag}"
    async with scratch_database(args.dsn, "seksenbir_bench_fuzz") as dsn:
        with tempfile.TemporaryDirectory(prefix="seksenbir-fuzz-") as folder:
            try:
                run = await asyncio.to_thread(
                    run_schemathesis,
                    dsn,
                    args.redis,
                    prefix,
                    Path(folder),
                    max_examples=args.max_examples,
                    seed=args.seed,
                    workers=args.workers,
                    phases=args.phases,
                    namespace=namespace,
                    timeout=args.timeout,
                    port=args.port,
                )
            finally:
                _clean(args.redis, prefix, namespace)
    tail = run.stdout[run.stdout.rfind("SUMMARY") :] if "SUMMARY" in run.stdout else run.stdout
    print(tail[-4000:])
    generated = re.search(r"(\d+) generated", run.stdout)
    print(
        f"config: python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average "
        f"{os.getloadavg()[0]:.1f}, phases {args.phases}, --max-examples {args.max_examples}, "
        f"--workers {args.workers}, --seed {args.seed}"
    )
    print(
        f"schemathesis: {generated.group(1) if generated else '?'} cases in {run.seconds:.0f} s, "
        f"exit {run.returncode} (0: no server error, no schema violation)"
    )
    if run.returncode != 0 and run.stderr:
        print(run.stderr[-2000:])
    return 0 if run.returncode == 0 else 1


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dsn", default=os.environ.get("SEKSENBIR_PG_DSN", DEFAULT_DSN))
    p.add_argument(
        "--redis",
        default=None,
        help="a Redis of yours, used as given (else a redis-server of the run's own)",
    )
    p.add_argument("--max-examples", type=int, default=100, help="examples per operation")
    p.add_argument("--seed", type=int, default=81)
    p.add_argument("--phases", default=PHASES)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--port", type=int, default=None, help="the API's port (default: a free one)")
    p.add_argument("--timeout", type=float, default=3600, help="give up after this many seconds")
    return p.parse_args(argv)


if __name__ == "__main__":
    _args = parse()
    with redis_given_or_own(_args.redis) as _args.redis:
        code = asyncio.run(main(_args))
    sys.exit(code)
