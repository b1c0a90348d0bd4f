"""`seksenbir up` (the README's run command): the whole stack starts, serves, and stops cleanly.

RELIABILITY 14, the graceful half: SIGTERM reaches each process once; Dramatiq's main process
forwards it to its workers, which finish and exit. None is killed.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time  # noqa: TID251 - waits on a real process, not the domain
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.integration
REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_seksenbir_up_serves_a_trial_season_and_stops_on_sigterm(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
):
    port = _free_port()
    log = tmp_path / "up.log"
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": f"test-up-{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "shared.cli", "up", "--port", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert proc.poll() is None, log.read_text()
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
            created = httpx.post(f"{base}/v1/seasons", json={"memleket": 6}, timeout=10)
            assert created.status_code == 201, created.text
            season = created.json()
            auth = {"Authorization": f"Bearer {season['token']}"}
            url = f"{base}/v1/seasons/{season['season_id']}"
            asked = httpx.post(f"{url}/divans", headers=auth, timeout=10)
            assert asked.status_code == 202, asked.text
            while True:  # resolved by the resolver worker, then projected by the projections one
                summary = httpx.get(f"{url}/summary", timeout=10)
                if summary.status_code == 200 and summary.json()["status"]["divan"] == 1:
                    break
                assert time.monotonic() < deadline, (summary.text, log.read_text())
                time.sleep(0.2)
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:  # a failed check: stop the stack the way it stops, or kill it
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=40)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
    text = log.read_text()
    assert code == 0, text
    assert "Killing worker process" not in text, text
    assert text.count("Worker has been shut down") >= 2, text  # the resolver and projections
