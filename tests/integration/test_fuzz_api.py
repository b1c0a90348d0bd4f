"""RELIABILITY 24, the fuzz sweep: schemathesis against the served OpenAPI document.

`seksenbir serve` runs on the session's database and Redis; schemathesis (`st run`) generates
requests for every operation from the schema (examples, fuzzing, stateful phases; fixed seed),
authenticated as a bey, and checks every answer: no server error (5xx other than the documented
503s), status codes, content types and bodies as documented, no auth ignored. Requests the game
refuses for its own reasons (a province that is not a neighbour, too little gold) are 4xx by
design, so the check that schema-valid requests succeed is left out. The event stream is left
out too: it never ends (tests/projections covers it).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import PostgresEventStore, create_pool
from tests.integration.processes import free_port, serving

pytestmark = [pytest.mark.integration, pytest.mark.fault]
ST = Path(sys.executable).parent / "st"


async def _sweep(dsn: str, redis_url: str, prefix: str) -> None:
    """One projections sweep, so the read side knows it is initialised (404 for unknowns)."""
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


def test_schemathesis_finds_no_server_error_and_no_schema_violation(
    migrated_pg_dsn: str, redis_url: str, redis_key_prefix: str, tmp_path: Path
):
    if not ST.exists():
        pytest.skip("schemathesis is not installed (pip install -e '.[dev]')")
    port = free_port()
    prefix = f"{redis_key_prefix}fuzz-{secrets.token_hex(3)}"
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,  # this session's own db, not the next one
        "SEKSENBIR_BROKER_NAMESPACE": f"test-fuzz-{secrets.token_hex(4)}",
        "SEKSENBIR_PROJECTION_PREFIX": prefix,
        "SEKSENBIR_OPS_TOKENS": secrets.token_urlsafe(16),
        "SEKSENBIR_AUDITOR_TOKENS": secrets.token_urlsafe(16),
        "SEKSENBIR_AUTH_FAILURES_PER_MINUTE": "0",  # the fuzzer sends many bad tokens on purpose
    }
    with serving(["serve", "--port", str(port)], env, tmp_path / "serve.log", port) as api:
        asyncio.run(_sweep(migrated_pg_dsn, redis_url, prefix))
        created = httpx.post(f"{api.base}/v1/seasons", json={"memleket": 6}, timeout=10)
        assert created.status_code == 201, created.text
        token = created.json()["token"]
        run = subprocess.run(
            [
                str(ST),
                "run",
                f"{api.base}/v1/schema/openapi.json",
                "--url",
                api.base,
                "--checks",
                "all",
                "--exclude-checks",
                "positive_data_acceptance",
                "--phases",
                "examples,fuzzing,stateful",
                "--exclude-path-regex",
                "events$",
                "--max-examples",
                "25",
                "--workers",
                "2",
                "--seed",
                "81",
                "--no-color",
                "-H",
                f"Authorization: Bearer {token}",
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert " passed" in run.stdout, run.stdout[-3000:]
