"""RELIABILITY 10, 11 and 14: the resolver worker dies mid-Divan or between commit and ack.

The worker runs as a real `dramatiq entrypoints.resolver_worker --processes 1 --threads 1`
subprocess in its own process group, with FAULT_POINT set; the test kills it (`kill -9` of the
group) or lets the fault kill it, then starts a fresh worker without the fault. With the test
broker knobs (heartbeat_timeout 2000 ms, maintenance on every broker call) the new worker puts
the dead worker's unacked message back on the queue, and the Divan is resolved exactly once.

RELIABILITY 14's hard half: kill -9 of one of the worker's two child processes, the one inside
the Divan; Dramatiq's main process then stops the other and exits non-zero (a supervisor
restarts it), and the restarted worker resolves the Divan once.

The same kill with a projections worker running beside it, the projector killed mid-batch too,
SIGTERM of both under load, and the live projections compared key by key with a rebuild
afterwards: tests/integration/test_worker_faults.py.
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from litestar.testing import AsyncTestClient

from entrypoints.gateway import create_app
from shared.eventstore import PostgresEventStore
from shared.settings import Settings
from tests.integration.resolver_support import (
    BrokerKeys,
    WorkerProcess,
    locked_divans,
    namespace,
    resolved_divans,
    resolver_backends,
    settings_for,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.fault]


@pytest.fixture
def settings(migrated_pg_dsn: str, redis_url: str) -> Iterator[Settings]:
    s = settings_for(migrated_pg_dsn, redis_url, namespace())
    yield s
    BrokerKeys(redis_url, s.broker_namespace).cleanup()


@pytest.fixture
def workers(tmp_path: Path, settings: Settings) -> Iterator[Any]:
    """Start workers with `workers(name, **env)`; every one is stopped at the end."""
    started: list[WorkerProcess] = []

    def start(name: str, processes: int = 1, **env: str) -> WorkerProcess:
        log = tmp_path / f"{name}.log"
        w = WorkerProcess(settings, log, processes=processes, **env).start()
        started.append(w)
        return w

    yield start
    for w in started:
        w.stop()


@asynccontextmanager
async def season_with_requested_divan(settings: Settings) -> AsyncIterator[tuple[Any, str]]:
    """The API with its real broker: a new trial season, and Divan 1 requested (enqueued)."""
    async with AsyncTestClient(app=create_app(settings, reads=False)) as client:
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "23"})
        assert r.status_code == 201, r.text
        created = r.json()
        auth = {"Authorization": f"Bearer {created['token']}"}
        sid = created["season_id"]
        r = await client.post(f"/v1/seasons/{sid}/divans", json={"divan": 1}, headers=auth)
        assert r.status_code == 202, r.text
        yield client, created["season_id"]


async def _divan(client: Any, sid: str) -> dict[str, Any]:
    r = await client.get(f"/v1/seasons/{sid}")
    assert r.status_code == 200, r.text
    return dict(r.json())


async def test_worker_killed_mid_divan_is_redelivered_and_resolves_once(
    settings: Settings, workers: Any, event_store: PostgresEventStore
) -> None:
    """RELIABILITY 10: kill -9 while the actor sleeps inside resolve (FAULT_POINT=mid_resolve)."""
    keys = BrokerKeys(settings.redis_url, settings.broker_namespace)
    before = await resolver_backends(settings.pg_dsn)
    async with season_with_requested_divan(settings) as (client, sid):
        first = workers("first", FAULT_POINT="mid_resolve:sleep=30")

        async def inside_resolution() -> bool:
            # fetched and unacked, and the actor has opened its pool and loaded the season
            return bool(keys.unacked()) and bool(await resolver_backends(settings.pg_dsn) - before)

        await wait_for(inside_resolution, "the first worker inside the Divan", timeout=20)
        status = await _divan(client, sid)
        assert (status["divan"], status["resolving"]) == (0, True)
        in_flight = keys.unacked()
        first.kill()
        assert not first.running
        assert keys.unacked() == in_flight  # the dead worker's message is still unacked

        second = workers("second")

        async def resolved() -> dict[str, Any] | None:
            s = await _divan(client, sid)
            return s if s["divan"] == 1 and not s["resolving"] else None

        await wait_for(resolved, "Divan 1 resolved after redelivery", timeout=25)

        async def drained() -> bool:
            return keys.pending() == 0 and not keys.unacked()

        await wait_for(drained, "the redelivered message acked", timeout=10)
        assert second.running, second.log()
    records = await event_store.read_stream(sid)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    assert len({r.event_id for r in records}) == len(records)
    assert "resolver.resolved" in second.log()
    assert "resolver.resolved" not in first.log()


async def test_crash_after_commit_before_ack_is_a_no_op_on_redelivery(
    settings: Settings, workers: Any, event_store: PostgresEventStore
) -> None:
    """RELIABILITY 11: FAULT_POINT=before_ack exits 137 right after the append is committed."""
    keys = BrokerKeys(settings.redis_url, settings.broker_namespace)
    async with season_with_requested_divan(settings) as (client, sid):
        first = workers("first", FAULT_POINT="before_ack")

        async def committed() -> bool:
            return (await _divan(client, sid))["divan"] == 1

        await wait_for(committed, "the first worker's commit", timeout=20)

        async def worker_gone() -> bool:
            return not first.running

        # The worker process exits 137; Dramatiq's main process then stops and exits too.
        await wait_for(worker_gone, "the first worker to exit", timeout=15)
        first.kill()  # nothing of the group may linger
        assert keys.unacked(), "the message was acked although the worker died before the ack"
        version = (await _divan(client, sid))["version"]

        second = workers("second")

        async def drained() -> bool:
            return keys.pending() == 0 and not keys.unacked()

        await wait_for(drained, "the redelivered message acked", timeout=25)
        assert second.running, second.log()
        status = await _divan(client, sid)
        assert (status["divan"], status["resolving"], status["version"]) == (1, False, version)
    records = await event_store.read_stream(sid)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    assert "resolver.resolved" in first.log()
    assert "resolver.already_resolved" in second.log()
    assert "resolver.resolved" not in second.log()


def _fault_pid(log: str) -> int | None:
    """The pid of the worker process that logged `fault.injected` (shared.faults)."""
    for line in log.splitlines():
        if '"fault.injected"' in line:
            return int(json.loads(line[line.index("{") :])["pid"])
    return None


async def test_reliability_14_a_killed_worker_child_stops_the_worker_non_zero_and_loses_nothing(
    settings: Settings, workers: Any, event_store: PostgresEventStore
) -> None:
    """RELIABILITY 14, the hard half: `kill -9` of the child inside the Divan; the main process
    stops its other child and exits non-zero; a restart, and the Divan is resolved exactly once.

    The other child may take the killed one's message back before it stops (the test broker
    knobs requeue it within a heartbeat) and finish it as a graceful stop does; its fault
    sleep is therefore short, and whichever process resolves the Divan, it is resolved once."""
    keys = BrokerKeys(settings.redis_url, settings.broker_namespace)
    async with season_with_requested_divan(settings) as (client, sid):
        first = workers("first", processes=2, FAULT_POINT="mid_resolve:sleep=10")

        async def inside() -> int | None:
            return _fault_pid(first.log())

        pid = await wait_for(inside, "a child of the first worker inside the Divan", timeout=30)
        assert keys.unacked(), "the message inside the Divan is not held unacked"
        status = await _divan(client, sid)
        assert (status["divan"], status["resolving"]) == (0, True)
        assert first.proc is not None
        children = psutil.Process(first.proc.pid).children()
        assert pid in {c.pid for c in children} and len(children) == 2, (pid, children)
        os.kill(pid, signal.SIGKILL)

        async def worker_gone() -> bool:
            return not first.running

        await wait_for(worker_gone, "the main process to stop after its child died", timeout=45)
        assert first.proc.returncode not in (0, None), first.log()
        assert f"Worker with PID {pid} exited unexpectedly" in first.log()
        _gone, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, alive  # the other child was stopped too

        second = workers("second")  # the supervisor's restart

        async def resolved() -> bool:
            s = await _divan(client, sid)
            return bool(s["divan"] == 1 and not s["resolving"])

        await wait_for(resolved, "Divan 1 resolved after the restart", timeout=25)

        async def drained() -> bool:
            return keys.pending() == 0 and not keys.unacked()

        await wait_for(drained, "the redelivered message acked", timeout=10)
    records = await event_store.read_stream(sid)
    assert resolved_divans(records) == [1]
    assert locked_divans(records) == [1]
    assert (first.log() + second.log()).count('"resolver.resolved"') == 1
