"""RELIABILITY 9: the API's PostgreSQL connections are terminated under load.

The app opens its own pool (application_name 'api'); a separate connection runs
`pg_terminate_backend` on every 'api' backend while order submissions are in flight. Each
submission carries its own Idempotency-Key. Expected: no request hangs, the pool recovers, no
submission is recorded twice, and retrying the failed ones with the same key records each
exactly once; and a request whose connection dies answers 503 `store_busy` with Retry-After,
never 500 (issue 9 item 6: asyncpg's InternalClientError from a connection whose backend was
terminated while it sat in the pool used to escape as a 500).

The app runs on this test's event loop (httpx.ASGITransport) so requests really overlap:
Litestar's AsyncTestClient runs the app in a portal thread and blocks the caller's loop for
each request.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from entrypoints.gateway import create_app
from shared.app.http import problems
from shared.domain import events as ev
from shared.eventstore import PostgresEventStore
from tests.integration.resolver_support import decoded, namespace, settings_for, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.fault]

ACCEPTABLE = {200, 503}  # one writer per season and one try per key: no 409
TERMINATE = """SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
    WHERE application_name = 'api' AND pid <> pg_backend_pid() AND datname = current_database()"""
WAITING_ON_LOCK = """SELECT count(*) FROM pg_stat_activity
    WHERE application_name = 'api' AND wait_event_type = 'Lock' AND datname = current_database()"""
MEMLEKETS = (6, 34, 35, 1, 7, 16, 42, 61)  # one season each
SUBMISSIONS = 12  # per season, one after another: one writer per season, so no 409 conflicts


class ShiftedClock:
    """Wall-clock time plus an offset the test moves (the idempotency lease is a deadline)."""

    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset  # noqa: TID251 - the app's clock, injected


class _Log:
    """Stands in for the API's error logger: records events without rendering tracebacks.

    structlog's default dev renderer draws each traceback with rich (with locals), which
    blocks the event loop for up to a second per 500 and would look like a hang here.
    """

    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, _level: str) -> Any:
        return lambda event, *args, **kw: self.events.append(event)


@pytest.fixture(autouse=True)
def error_log(monkeypatch: pytest.MonkeyPatch) -> _Log:
    log = _Log()
    monkeypatch.setattr(problems, "log", log)
    return log


@dataclass(frozen=True)
class Bey:
    season_id: str
    memleket: int
    auth: dict[str, str]

    def orders(self) -> dict[str, Any]:
        return {"orders": [{"province": self.memleket, "kind": "hold"}]}


@asynccontextmanager
async def app_client(dsn: str, redis_url: str, clock: ShiftedClock) -> AsyncIterator[Any]:
    settings = settings_for(dsn, redis_url, namespace())
    app = create_app(
        settings, reads=False, enqueue=lambda _s, _d: None, clock=clock
    )  # no broker needed
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://api", timeout=30) as client,
    ):
        yield client


async def new_bey(client: Any, memleket: int) -> Bey:
    r = await client.post("/v1/seasons", json={"memleket": memleket, "seed": str(memleket)})
    assert r.status_code == 201, r.text
    body = r.json()
    return Bey(body["season_id"], memleket, {"Authorization": f"Bearer {body['token']}"})


async def submit(client: Any, bey: Bey, key: str) -> int:
    headers = {**bey.auth, "Idempotency-Key": key}
    url = f"/v1/seasons/{bey.season_id}/orders"
    async with asyncio.timeout(20):  # never a hang
        r = await client.post(url, json=bey.orders(), headers=headers)
    assert_no_5xx_but_busy(r)
    return int(r.status_code)


def assert_no_5xx_but_busy(r: httpx.Response) -> None:
    """A server-side failure is only ever 503 store_busy with Retry-After (never a 500)."""
    if r.status_code >= 500:
        assert r.status_code == 503, r.text
        assert r.json()["code"] == "store_busy", r.text
        assert r.headers.get("retry-after"), r.headers


async def recorded_keys(store: PostgresEventStore, beys: list[Bey]) -> Counter[str]:
    """How many OrdersSubmitted each command id (the Idempotency-Key) produced."""
    counts: Counter[str] = Counter()
    for bey in beys:
        records = await store.read_stream(bey.season_id)
        for rec, e in zip(records, decoded(records), strict=True):
            if isinstance(e, ev.OrdersSubmitted) and rec.metadata.command_id is not None:
                counts[rec.metadata.command_id] += 1
    return counts


async def terminate_api_backends(dsn: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        return int(await conn.fetchval(TERMINATE))
    finally:
        await conn.close()


async def recovered(client: Any, bey: Bey) -> None:
    """The pool heals by itself: a read soon succeeds, and then a write does too."""

    async def reads() -> bool:
        return bool((await client.get(f"/v1/seasons/{bey.season_id}")).status_code == 200)

    await wait_for(reads, "a request to succeed after the kill", timeout=10)
    assert await submit(client, bey, f"after-{bey.season_id}") == 200


async def retry_until_recorded(client: Any, bey: Bey, key: str, clock: ShiftedClock) -> int:
    """Retry one submission with its key; a key left in progress first waits out its lease."""
    status = await submit(client, bey, key)
    if status == 409:  # idempotency_key_in_flight: the killed request never released it
        clock.offset += timedelta(minutes=2)
        status = await submit(client, bey, key)
    return status


async def kill_a_blocked_append(dsn: str, client: Any, bey: Bey, key: str) -> int:
    """Submit while the test holds the season's stream row; kill the waiting backend."""
    blocker = await asyncpg.connect(dsn)
    watcher = await asyncpg.connect(dsn)  # pg_stat_activity is a snapshot per transaction
    try:
        async with blocker.transaction():
            await blocker.execute(
                "SELECT 1 FROM streams WHERE season_id = $1 FOR UPDATE", bey.season_id
            )
            request = asyncio.create_task(submit(client, bey, key))

            async def waiting() -> bool:
                return bool(await watcher.fetchval(WAITING_ON_LOCK))

            await wait_for(waiting, "the append to wait on the row lock", timeout=10)
            assert await terminate_api_backends(dsn) >= 1
        return await request
    finally:
        await blocker.close()
        await watcher.close()


async def test_a_killed_in_flight_append_recovers_and_retries_exactly_once(
    migrated_pg_dsn: str, redis_url: str, event_store: PostgresEventStore
) -> None:
    """Deterministic: the append is waiting on a row lock when its backend is terminated."""
    clock = ShiftedClock()
    async with app_client(migrated_pg_dsn, redis_url, clock) as client:
        bey = await new_bey(client, 6)
        status = await kill_a_blocked_append(migrated_pg_dsn, client, bey, "blocked-1")
        assert status != 200  # it lost its connection mid-append
        await recovered(client, bey)
        assert await retry_until_recorded(client, bey, "blocked-1", clock) == 200
        assert await submit(client, bey, "blocked-1") == 200  # a replay now
    counts = await recorded_keys(event_store, [bey])
    assert counts == Counter({"blocked-1": 1, f"after-{bey.season_id}": 1})


async def test_a_killed_in_flight_append_answers_503_not_500(
    migrated_pg_dsn: str, redis_url: str, error_log: _Log
) -> None:
    async with app_client(migrated_pg_dsn, redis_url, ShiftedClock()) as client:
        bey = await new_bey(client, 34)
        status = await kill_a_blocked_append(migrated_pg_dsn, client, bey, "blocked-2")
    assert "api.unhandled" not in error_log.events
    assert status in {200, 503}, status


async def test_connection_kills_during_an_order_burst(
    migrated_pg_dsn: str, redis_url: str, event_store: PostgresEventStore, error_log: _Log
) -> None:
    clock = ShiftedClock()
    async with app_client(migrated_pg_dsn, redis_url, clock) as client:
        beys = [await new_bey(client, m) for m in MEMLEKETS]
        statuses: dict[tuple[int, int], int] = {}

        async def one_season(i: int, bey: Bey) -> None:
            for j in range(SUBMISSIONS):
                statuses[i, j] = await submit(client, bey, f"burst-{i}-{j}")

        burst = asyncio.gather(*(one_season(i, b) for i, b in enumerate(beys)))
        kills = 0

        async def killing() -> bool:  # bounded: until the burst is over
            nonlocal kills
            kills += await terminate_api_backends(migrated_pg_dsn)
            return burst.done()

        await wait_for(killing, "the burst to end under connection kills", timeout=25, every=0.2)
        await burst  # every request answered (each is bounded by its own timeout)
        assert kills > 0
        assert len(statuses) == len(beys) * SUBMISSIONS
        assert set(statuses.values()) <= ACCEPTABLE, Counter(statuses.values())
        assert "api.unhandled" not in error_log.events

        await recovered(client, beys[0])

        # At most once so far; retrying each failed one with its key records it exactly once.
        counts = await recorded_keys(event_store, beys)
        assert max(counts.values()) == 1
        for (i, j), status in sorted(statuses.items()):
            if status != 200:
                assert await retry_until_recorded(client, beys[i], f"burst-{i}-{j}", clock) == 200
    counts = await recorded_keys(event_store, beys)
    burst_keys = {f"burst-{i}-{j}" for i in range(len(beys)) for j in range(SUBMISSIONS)}
    assert counts == Counter({**dict.fromkeys(burst_keys, 1), f"after-{beys[0].season_id}": 1})
