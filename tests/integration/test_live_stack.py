"""A live season run by the real processes (issue 12): `seksenbir up`, a compressed calendar of
two seconds, nobody calling /divans; it reaches the Han and `seksenbir verify` passes.

The stack's own scheduler hands each deadline to its resolver worker; the projections worker
keeps the read side up to date. One human joins and gives orders once, another stays silent
(R-11.3); the 17 empty seats are filled by computer beys when registration closes (R-11.1).
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time  # noqa: TID251 - waits on real processes, not the domain
from datetime import timedelta
from pathlib import Path

import httpx
import pytest

from entrypoints.bootstrap import utc_now  # the clock the stack's processes read
from shared.domain import calendar as cal
from tests.integration.processes import free_port, serving

pytestmark = [pytest.mark.integration, pytest.mark.fault]
INTERVAL_S = 2
OPS_TOKEN = "ops-" + secrets.token_hex(8)


def test_issue_12_a_compressed_live_season_reaches_the_han_by_itself_and_verifies(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "up.log"
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,  # this session's own db, not the next one
        "SEKSENBIR_BROKER_NAMESPACE": f"test-live-{secrets.token_hex(4)}",
        "SEKSENBIR_PROJECTION_PREFIX": f"live{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
        "SEKSENBIR_OPS_TOKENS": OPS_TOKEN,
        "SEKSENBIR_SWEEP_INTERVAL_S": "0.2",
    }
    with serving(["up", "--port", str(port)], env, log, port) as stack:
        close = utc_now() + timedelta(seconds=INTERVAL_S + 2)
        created = httpx.post(
            f"{stack.base}/v1/seasons",
            json={
                "mode": "live",
                "registration_closes_at": cal.iso(close),
                "divan_interval_seconds": INTERVAL_S,
                "memleket": 6,
            },
            headers={"Authorization": f"Bearer {OPS_TOKEN}"},
            timeout=10,
        )
        assert created.status_code == 201, created.text
        season = created.json()
        assert season["calendar"]["compressed"] is True
        sid = season["season_id"]
        url = f"{stack.base}/v1/seasons/{sid}"
        joined = httpx.post(f"{url}/join", json={"memleket": 34}, timeout=10)
        assert joined.status_code == 201, joined.text  # this bey never gives an order
        auth = {"Authorization": f"Bearer {season['creator']['token']}"}
        given = httpx.post(
            f"{url}/orders", json={"orders": [{"province": 6, "kind": "hold"}]}, headers=auth
        )
        assert given.status_code in {200, 409}, given.text  # 409: registration not closed yet
        deadline = time.monotonic() + 120
        while True:
            status = httpx.get(url, timeout=10).json()
            if status["phase"] == "over":
                break
            assert time.monotonic() < deadline, (status, stack.output()[-4000:])
            time.sleep(0.2)
        assert status["han"] is not None and status["divan"] == 16
        assert status["seed"] is not None and status["seed_salt"] is not None
        while True:  # the read side follows
            summary = httpx.get(f"{url}/summary", timeout=10)
            if summary.status_code == 200 and summary.json()["status"]["phase"] == "over":
                break
            assert time.monotonic() < deadline, summary.text
            time.sleep(0.2)
        assert stack.stop() == 0
    clean = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    done = subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "verify", sid, "--dsn", migrated_pg_dsn],
        capture_output=True,
        text=True,
        env=clean,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, (done.stdout, done.stderr)
    verdict = json.loads(done.stdout)
    assert verdict["hash_chain"] == "ok" and verdict["mismatches"] == [], verdict
    assert verdict["divan"] == 16
