"""Schemathesis over the served API (RELIABILITY 24, issue 14): shared by the bounded run in the
suite (tests/integration/test_fuzz_api.py) and the long one (bench/schemathesis_long.py).

`seksenbir serve` runs on the given database and Redis with the request limits off (the
fuzzer sends bad tokens and many requests on purpose); two trial seasons are created over HTTP,
one bey each, and projected once, so the read side serves them. `st run` then generates requests
for every operation of the served document (examples, coverage and fuzzing phases; no stateful
phase) and runs every check but `positive_data_acceptance` (the game refuses schema-valid
requests for its own reasons: a province that is no neighbour, too little gold). The beys' tokens
and seasons, and the ops and auditor tokens (so the staff operations are fuzzed as staff, not
only refused 401/403), reach schemathesis through tests/schemathesis_hooks.py. The event stream is left
out: it never ends (tests/projections covers it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import PostgresEventStore, create_pool
from tests.integration.processes import REPO, free_port, serving

ST = Path(sys.executable).parent / "st"
PHASES = "examples,coverage,fuzzing"
EXCLUDED_CHECKS = "positive_data_acceptance"


@dataclass
class FuzzRun:
    returncode: int
    stdout: str
    stderr: str
    server_log: str
    seconds: float


async def _sweep(dsn: str, redis_url: str, prefix: str) -> None:
    """One projections sweep: the read side serves the seasons created so far."""
    pool = await create_pool(dsn)
    redis = aioredis.Redis.from_url(redis_url)
    try:
        await Projector(
            PostgresEventStore(pool, clock=lambda: datetime.now(UTC)),  # noqa: TID251 - a real store
            redis,
            prefix,
        ).sweep()
    finally:
        await redis.aclose()
        await pool.close()


def run_schemathesis(
    dsn: str,
    redis_url: str,
    prefix: str,
    workdir: Path,
    *,
    max_examples: int,
    seed: int,
    workers: int = 2,
    port: int | None = None,
    timeout: float = 600,
    phases: str = PHASES,
    extra: tuple[str, ...] = (),
    namespace: str | None = None,
) -> FuzzRun:
    """Serve, create the two beys, run `st run`; `namespace`: the broker's (fuzz-<random>)."""
    port = port or free_port()
    # staff tokens too (issue 20): the 17 staff operations are fuzzed past their 401/403
    staff = {"ops": secrets.token_urlsafe(16), "auditor": secrets.token_urlsafe(16)}
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,  # this run's own db, not the next one
        "SEKSENBIR_BROKER_NAMESPACE": namespace or f"fuzz-{secrets.token_hex(4)}",
        "SEKSENBIR_PROJECTION_PREFIX": prefix,
        "SEKSENBIR_OPS_TOKENS": staff["ops"],
        "SEKSENBIR_AUDITOR_TOKENS": staff["auditor"],
        "SEKSENBIR_AUTH_FAILURES_PER_MINUTE": "0",
        "SEKSENBIR_SEASONS_PER_MINUTE": "0",
        "SEKSENBIR_JOINS_PER_MINUTE": "0",
        "SEKSENBIR_COMMANDS_PER_MINUTE": "0",
        "SEKSENBIR_READS_PER_MINUTE": "0",
        "SEKSENBIR_READS_PER_TOKEN_PER_MINUTE": "0",
    }
    with serving(["serve", "--port", str(port)], env, workdir / "serve.log", port) as api:
        beys = []
        for memleket in (6, 34):  # one bey in each of two seasons
            created = httpx.post(f"{api.base}/v1/seasons", json={"memleket": memleket}, timeout=10)
            assert created.status_code == 201, created.text
            beys.append({k: created.json()[k] for k in ("season_id", "token")})
        asyncio.run(_sweep(dsn, redis_url, prefix))
        # the projections worker, as the stack runs it: a season the fuzzer creates gets its
        # first projection (a read waits for it, ADR-73, and answers 503 without one)
        with projections_worker(env, workdir / "projections.log"):
            started = datetime.now(UTC)  # noqa: TID251 - a figure, not a rule
            run = _st_run(
                api.base, phases, max_examples, workers, seed, extra, timeout, workdir, beys, staff
            )
            seconds = (datetime.now(UTC) - started).total_seconds()  # noqa: TID251
        return FuzzRun(run.returncode, run.stdout, run.stderr, api.output(), seconds)


@contextlib.contextmanager
def projections_worker(env: dict[str, str], log: Path) -> Iterator[None]:
    """`seksenbir worker projections` on `env` while the block runs; stopped by SIGTERM."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "entrypoints.cli", "worker", "projections"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            yield
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()


def _st_run(
    base: str,
    phases: str,
    max_examples: int,
    workers: int,
    seed: int,
    extra: tuple[str, ...],
    timeout: float,
    workdir: Path,
    beys: list[dict[str, str]],
    staff: dict[str, str],
) -> subprocess.CompletedProcess[str]:
    """`st run` against the served document, with this run's beys and staff in its hooks."""
    api_base = base
    return subprocess.run(
        [
            str(ST),
            "run",
            f"{api_base}/v1/schema/openapi.json",
            "--url",
            api_base,
            "--checks",
            "all",
            "--exclude-checks",
            EXCLUDED_CHECKS,
            "--phases",
            phases,
            "--exclude-path-regex",
            "events$",
            "--max-examples",
            str(max_examples),
            "--workers",
            str(workers),
            "--seed",
            str(seed),
            "--no-color",
            # Hypothesis's own timing of data generation, not a property of the API: on a
            # loaded 2-core machine the orders body (nested, bounded arrays) trips it
            "--suppress-health-check",
            "too_slow",
            *extra,
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=workdir,
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.schemathesis_hooks",
            "PYTHONPATH": str(REPO),
            "SEKSENBIR_FUZZ_BEYS": json.dumps(beys),
            "SEKSENBIR_FUZZ_STAFF": json.dumps(staff),
        },
    )
