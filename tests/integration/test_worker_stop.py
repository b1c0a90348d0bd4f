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


CONSUMERS = 4  # the two workers' consumers: each its queue and that queue's delay queue (.DQ)


def _wait_all_blocked(redis_url: str, procs: dict[str, subprocess.Popen[bytes]]) -> None:
    """Every consumer has fetched nothing and blocks on its wake-up: CONSUMERS connections of
    this session's Redis db sit in BLPOP (the db is this pytest process's own)."""
    client = redis.Redis.from_url(redis_url)
    db = str(client.connection_pool.connection_kwargs.get("db", 0))
    deadline = time.monotonic() + READY_S
    try:
        while True:
            blocked = [
                c
                for c in client.client_list()
                if c["db"] == db and c["cmd"] == "blpop" and "b" in c["flags"]
            ]
            if len(blocked) >= CONSUMERS:
                return
            assert all(p.poll() is None for p in procs.values()), "a worker exited"
            assert time.monotonic() < deadline, f"{len(blocked)} of {CONSUMERS} consumers blocked"
            time.sleep(0.05)
    finally:
        client.close()


def _exits(procs: dict[str, subprocess.Popen[bytes]], within: float) -> set[str]:
    """SIGTERM once to each (Dramatiq's main process forwards it); those that exited before the
    deadline (RELIABILITY 14's bound: a deadline to wait on, not a duration measured)."""
    deadline = time.monotonic() + within
    for p in procs.values():
        p.send_signal(signal.SIGTERM)
    stopped: set[str] = set()
    while len(stopped) < len(procs) and time.monotonic() < deadline:
        stopped |= {kind for kind, p in procs.items() if p.poll() is not None}
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
        _wait_all_blocked(redis_url, procs)  # idle: every consumer blocks on its wake-up
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
