"""RELIABILITY 8: PostgreSQL crashes during a burst of commands through the API.

A server of this test's own (tests/integration/throwaway_pg.py; the shared one is never
touched) serves an API process (in-loop ASGI, its own pool, as `seksenbir serve` opens it).
Several clients send a bounded burst of keyed commands (orders, and spending, which runs out of
gold: 422) while the postmaster is killed with kill -9, or stopped with `pg_ctl stop -m
immediate`, or restarted with `pg_ctl restart -m fast`; then it is started again. Expected:

- no 500, ever: what is not a 2xx or a documented refusal is 503 `store_busy` with Retry-After;
- every command that got a 2xx is stored, exactly once (an acknowledged write survives the
  crash: fsync and synchronous_commit are on, and checked at startup);
- retrying every 503 with its Idempotency-Key after the restart gives exactly once too: a
  command whose connection broke after its COMMIT answers its stored result, never twice;
- no partial batch: every season's hash chain verifies and its versions are contiguous.

And `check_durability` refuses a server that does not flush commits (fsync=off), or a pool
whose commits are asynchronous, so the API never acknowledges a write it could lose.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx
import pytest

from entrypoints.gateway import create_app
from shared.app.http import problems
from shared.domain import events as ev
from shared.eventstore import (
    DurabilityError,
    PostgresEventStore,
    check_durability,
    create_pool,
    migrate,
)
from shared.settings import Settings
from tests.clock import StepClock
from tests.integration.resolver_support import decoded, namespace, wait_for
from tests.integration.throwaway_pg import ThrowawayPostgres, unavailable

pytestmark = [pytest.mark.integration, pytest.mark.fault]

CLIENTS = 6  # beys, one season each, sending at once
COMMANDS = 40  # per client, one after another
SPEND_EVERY = 5  # every 5th command spends 2 gold: the first succeeds, later ones are 422
REFUSALS = {(422, "not_enough_gold")}  # documented refusals a spend may meet (docs/api.md)


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayPostgres]:
    if (why := unavailable()) is not None:
        pytest.skip(why)
    pg = ThrowawayPostgres()
    try:
        pg.start()
        asyncio.run(migrate(pg.dsn))
        yield pg
    finally:
        pg.destroy()


class _Log:
    """Stands in for the API's error logger (no rich tracebacks blocking the loop)."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, _level: str) -> Any:
        return lambda event, *args, **kw: self.events.append(event)


@pytest.fixture
def error_log(monkeypatch: pytest.MonkeyPatch) -> _Log:
    log = _Log()
    monkeypatch.setattr(problems, "log", log)
    return log


@dataclass
class Command:
    """One keyed command of the burst and every answer it got (status, problem code, body)."""

    key: str
    kind: str  # "orders" or "spend"
    answers: list[tuple[int, str | None, bytes]] = field(default_factory=list)

    @property
    def last(self) -> tuple[int, str | None, bytes]:
        return self.answers[-1]

    def acknowledged(self) -> bool:
        return any(status < 300 for status, _, _ in self.answers)


@dataclass
class Client:
    season_id: str
    memleket: int
    auth: dict[str, str]
    commands: list[Command]

    def request(self, command: Command) -> tuple[str, dict[str, Any]]:
        base = f"/v1/seasons/{self.season_id}"
        if command.kind == "spend":
            return f"{base}/spend", {"kind": "paralı_asker", "province": self.memleket}
        return f"{base}/orders", {"orders": [{"province": self.memleket, "kind": "hold"}]}


@contextlib.asynccontextmanager
async def api(dsn: str, redis_url: str) -> AsyncIterator[httpx.AsyncClient]:
    # the burst is one test client's hundreds of commands a second: the per-address request
    # limit (ADR-55) would refuse most of them before the store sees them, hiding the crash
    settings = Settings(
        pg_dsn=dsn, redis_url=redis_url, broker_namespace=namespace(), commands_per_minute=0
    )
    app = create_app(settings, reads=False, enqueue=lambda _s, _d: None)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        app.lifespan(),
        httpx.AsyncClient(transport=transport, base_url="http://api", timeout=60) as http,
    ):
        yield http


async def new_client(http: httpx.AsyncClient, n: int, memleket: int) -> Client:
    r = await http.post("/v1/seasons", json={"memleket": memleket, "seed": str(memleket)})
    assert r.status_code == 201, r.text
    body = r.json()
    run = secrets.token_hex(3)
    commands = [
        Command(f"crash-{run}-{n}-{j}", "spend" if j % SPEND_EVERY == 2 else "orders")
        for j in range(COMMANDS)
    ]
    auth = {"Authorization": f"Bearer {body['token']}"}
    return Client(body["season_id"], memleket, auth, commands)


async def send(http: httpx.AsyncClient, client: Client, command: Command) -> int:
    """Send one command with its key; check the answer is one the contract allows."""
    url, body = client.request(command)
    async with asyncio.timeout(60):  # never a hang
        r = await http.post(url, json=body, headers={**client.auth, "Idempotency-Key": command.key})
    code = r.json().get("code") if r.status_code >= 400 else None
    if r.status_code >= 500:
        assert r.status_code == 503, r.text  # never a 500
        assert code == "store_busy", r.text
        assert r.headers.get("retry-after"), r.headers
    elif r.status_code >= 400:
        assert command.kind == "spend" and (r.status_code, code) in REFUSALS, r.text
    else:
        assert r.status_code == 200, r.text
    command.answers.append((r.status_code, code, r.content))
    return r.status_code


def crash(server: ThrowawayPostgres, how: str, burst_saw_it: asyncio.Event | None) -> None:
    """The fault, from a thread (pg_ctl blocks): the API keeps serving meanwhile."""
    if how == "restart -m fast":
        server.restart("fast")
        return
    if how == "kill -9 postmaster":
        server.kill_postmaster()
    else:
        server.stop("immediate")
    # Down: let the burst meet the outage before the server comes back.
    if burst_saw_it is not None:
        with contextlib.suppress(TimeoutError):
            asyncio.run_coroutine_threadsafe(
                asyncio.wait_for(burst_saw_it.wait(), 10), LOOP["loop"]
            ).result(timeout=15)
    server.start()


LOOP: dict[str, asyncio.AbstractEventLoop] = {}


def stored(records: list[Any]) -> Counter[str]:
    """How many events each command id (the Idempotency-Key) produced."""
    return Counter(r.metadata.command_id for r in records if r.metadata.command_id)


@pytest.mark.parametrize("how", ["kill -9 postmaster", "stop -m immediate", "restart -m fast"])
async def test_postgres_crashing_during_a_burst_loses_no_acknowledged_command(  # noqa: C901, PLR0915 — one fault scenario read top to bottom: burst, crash, restart, audit
    server: ThrowawayPostgres, redis_url: str, error_log: _Log, how: str
) -> None:
    LOOP["loop"] = asyncio.get_running_loop()
    memlekets = (6, 34, 35, 1, 7, 16)[:CLIENTS]
    async with api(server.dsn, redis_url) as http:
        clients = [await new_client(http, n, m) for n, m in enumerate(memlekets)]
        total = CLIENTS * COMMANDS
        answered = 0
        unavailable_seen = asyncio.Event()

        async def burst(client: Client) -> None:
            nonlocal answered
            for command in client.commands:
                status = await send(http, client, command)
                answered += 1
                if status == 503:
                    unavailable_seen.set()
                    await asyncio.sleep(0.05)  # a client backs off a little (bounded burst)

        running = asyncio.gather(*(burst(c) for c in clients))

        async def a_third_answered() -> bool:
            return answered >= total // 3 or running.done()

        await wait_for(a_third_answered, "a third of the burst", timeout=60)
        assert not running.done(), "the burst ended before the crash: make it longer"
        await asyncio.to_thread(crash, server, how, unavailable_seen)
        await asyncio.wait_for(running, 120)
        statuses = Counter(c.last[0] for cl in clients for c in cl.commands)
        assert statuses[503] > 0, f"the crash never met the burst: {statuses}"

        # After the restart: the pool heals by itself, and every 503 is retried with its key.
        async def serving() -> bool:
            r = await http.get(f"/v1/seasons/{clients[0].season_id}")
            return r.status_code == 200

        await wait_for(serving, "the API to serve again after the restart", timeout=60)
        for client in clients:
            for command in client.commands:
                async with asyncio.timeout(60):
                    while await send(http, client, command) == 503:
                        await asyncio.sleep(0.1)
        # An acknowledged command answers its stored result when sent again: never twice.
        for client in clients:
            for command in client.commands:
                first = next(a for a in command.answers if a[0] != 503)
                assert await send(http, client, command) == first[0]
                assert command.last[2] == first[2], command.key  # byte-identical replay
    assert "api.unhandled" not in error_log.events

    pool = await create_pool(server.dsn)
    try:
        store = PostgresEventStore(pool, clock=StepClock(), notify_window=None)
        for client in clients:
            records = await store.read_stream(client.season_id)
            assert [r.version for r in records] == list(range(1, len(records) + 1))
            await store.verify_chain(client.season_id)  # no partial batch, no altered event
            counts = stored(records)
            for command in client.commands:
                final = command.last[0]
                expected = 1 if final == 200 else 0  # a 422 spend appends nothing
                assert counts[command.key] == expected, (command.key, command.answers)
                if command.acknowledged():
                    assert final == 200 and counts[command.key] == 1  # acked: stored once
            hired = [e for e in decoded(records) if isinstance(e, ev.MercenariesHired)]
            assert len(hired) == 1  # 2 gold: one hire, however often it was retried
    finally:
        await pool.close()
    summary = Counter(s for cl in clients for c in cl.commands for s, _, _ in c.answers)
    print(f"{how}: answers {dict(summary)}")  # what the crash did, in the test log


async def test_the_durability_check_refuses_a_server_that_does_not_flush(
    server: ThrowawayPostgres, redis_url: str
) -> None:
    """RELIABILITY 8's startup check: fsync=off on the server is refused, by the check and by
    the API's startup; a server default of synchronous_commit=off cannot weaken the pool's
    connections (they set it on), while a connection that does commit asynchronously is
    refused."""
    admin = await asyncpg.connect(server.dsn)
    try:
        await admin.execute("ALTER SYSTEM SET fsync = off")
        await admin.execute("ALTER SYSTEM SET synchronous_commit = off")
        await admin.execute("SELECT pg_reload_conf()")

        async def reloaded() -> bool:
            conn = await asyncpg.connect(server.dsn)
            try:
                return bool(await conn.fetchval("SELECT current_setting('fsync') = 'off'"))
            finally:
                await conn.close()

        await wait_for(reloaded, "the server to reload with fsync=off", timeout=30)
        pool = await create_pool(server.dsn)
        try:
            with pytest.raises(DurabilityError, match="fsync=off") as refused:
                await check_durability(pool)
            assert "synchronous_commit" not in str(refused.value)  # the pool's own setting
        finally:
            await pool.close()
        with pytest.raises((DurabilityError, BaseExceptionGroup)) as startup:
            async with api(server.dsn, redis_url):
                pass
        failure = startup.value
        if isinstance(failure, BaseExceptionGroup):  # Litestar's lifespan task group
            assert failure.subgroup(DurabilityError) is not None, failure
        assert "fsync=off" in repr(failure)

        await admin.execute("ALTER SYSTEM RESET fsync")
        await admin.execute("SELECT pg_reload_conf()")

        async def flushing() -> bool:
            return not await reloaded()

        await wait_for(flushing, "the server to reload with fsync=on", timeout=30)
        raw = await asyncpg.create_pool(server.dsn, min_size=1, max_size=1)  # server defaults
        try:
            with pytest.raises(DurabilityError, match="synchronous_commit=off"):
                await check_durability(raw)
        finally:
            await raw.close()
        pool = await create_pool(server.dsn)
        try:
            await check_durability(pool)  # on again, and the pool commits synchronously
        finally:
            await pool.close()
    finally:
        await admin.execute("ALTER SYSTEM RESET ALL")
        await admin.execute("SELECT pg_reload_conf()")
        await admin.close()
