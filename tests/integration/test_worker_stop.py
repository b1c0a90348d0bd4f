"""Idle workers stop within 5 s of SIGTERM (issue 14, RELIABILITY 14; ADR-54).

`seksenbir worker resolver` and `seksenbir worker projections` (Dramatiq's main process and one
worker process each, as `seksenbir up` runs them) are started idle, with production's knobs (no
test broker settings, Dramatiq's worker timeout as the launcher sets it), and sent SIGTERM once;
each must have exited, gracefully (exit 0, "Worker has been shut down", never "Killing worker
process"), within STOP_S. An idle consumer blocks at most one worker timeout on its wake-up, so
a stop is bounded by about twice that (the worker threads, then the consumers).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time  # noqa: TID251 - waits on real processes
from pathlib import Path

import pytest
import redis

pytestmark = [pytest.mark.integration, pytest.mark.fault]

REPO = Path(__file__).resolve().parents[2]
STOP_S = 5.0
READY_S = 60.0


def _start(kind: str, env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "entrypoints.cli", "worker", kind, "--processes", "1"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _environment(dsn: str, redis_url: str, ns: str) -> dict[str, str]:
    """Production's: none of the test broker knobs, Dramatiq's worker timeout as launched."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SEKSENBIR_", "dramatiq_"))}
    env.pop("FAULT_POINT", None)
    return env | {
        "PYTHONPATH": str(REPO),
        "SEKSENBIR_PG_DSN": dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": ns,
        "SEKSENBIR_PROJECTION_PREFIX": ns,
    }


def _wait_ready(procs: dict[str, subprocess.Popen[bytes]], logs: dict[str, Path]) -> None:
    deadline = time.monotonic() + READY_S
    while not all(b"ready for action" in log.read_bytes() for log in logs.values()):
        for kind, p in procs.items():
            assert p.poll() is None, logs[kind].read_text()
        assert time.monotonic() < deadline, {k: v.read_text() for k, v in logs.items()}
        time.sleep(0.1)


def _exits(procs: dict[str, subprocess.Popen[bytes]], within: float) -> dict[str, float]:
    """SIGTERM once to each (Dramatiq's main process forwards it); seconds until each exited."""
    sent = time.monotonic()
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
    stopped: dict[str, float] = {}
    while len(stopped) < len(procs) and time.monotonic() - sent < within:
        for kind, p in procs.items():
            if kind not in stopped and p.poll() is not None:
                stopped[kind] = time.monotonic() - sent
        time.sleep(0.05)
    return stopped


def test_idle_workers_stop_within_5_s_of_sigterm(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
) -> None:
    ns = f"test-stop-{secrets.token_hex(4)}"
    env = _environment(migrated_pg_dsn, redis_url, ns)
    logs = {kind: tmp_path / f"{kind}.log" for kind in ("resolver", "projections")}
    procs = {kind: _start(kind, env, log) for kind, log in logs.items()}
    try:
        _wait_ready(procs, logs)
        time.sleep(1.5)  # idle: every consumer has fetched nothing and blocks on its wake-up
        stopped = _exits(procs, STOP_S)
        texts = {kind: log.read_text() for kind, log in logs.items()}
        assert set(stopped) == set(procs), (stopped, texts)
        for kind, p in procs.items():
            assert p.returncode == 0, texts[kind]
            assert "Worker has been shut down" in texts[kind], texts[kind]
            assert "Killing worker process" not in texts[kind], texts[kind]
    finally:
        for p in procs.values():
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        client = redis.Redis.from_url(redis_url)
        for key in client.scan_iter(f"{ns}:*"):
            client.delete(key)
        client.close()
