"""Connection-level failures are StoreBusyError (HTTP 503), in one place, and a broken
connection is never reused (issue 9 item 6; RELIABILITY 8 and 9 at store level).

During `pg_ctl restart -m fast`, a kill -9 of the postmaster or pg_terminate_backend, a pooled
connection whose backend died while it sat idle in the pool can be handed out after the server's
FATAL arrived and before the socket's end did: asyncpg's protocol is then mid-error and the next
statement raises InternalClientError ("cannot switch to state 12; another operation (2) is in
progress"), which used to escape as a 500. `BreakingPool` makes chosen statements fail that
way on a real pool, deterministically.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import pytest

from shared.eventstore import (
    IdempotencyRecord,
    PoolSettings,
    PostgresEventStore,
    StoreBusyError,
    create_pool,
    sql,
)
from shared.eventstore import idempotency as keys
from tests.http.support import create_trial, open_api
from tests.integration.processes import free_port
from tests.integration.support import new_event

pytestmark = [pytest.mark.integration, pytest.mark.fault]

BROKEN = "cannot switch to state 12; another operation (2) is in progress"
STATEMENTS = frozenset({"fetch", "fetchrow", "fetchval", "execute"})


class BreakingPool:
    """A real pool whose connections raise InternalClientError for the statements `breaks`
    picks, as a connection in a broken protocol state does; records what the store did with
    each connection it was handed."""

    def __init__(self, pool: asyncpg.Pool, breaks: Callable[[str], bool]) -> None:
        self.pool = pool
        self.breaks = breaks
        self.after = False  # True: the statement runs (and commits), then the connection breaks
        self.broke: list[asyncpg.Connection] = []  # the real connections that failed
        self.terminated: list[asyncpg.Connection] = []
        self.expired = 0

    def acquire(self) -> _Acquire:
        return _Acquire(self)

    async def expire_connections(self) -> None:
        self.expired += 1
        await self.pool.expire_connections()


class _Acquire:
    def __init__(self, owner: BreakingPool) -> None:
        self.owner = owner
        self.inner: Any = None

    async def __aenter__(self) -> _Breaking:
        self.inner = self.owner.pool.acquire()
        return _Breaking(await self.inner.__aenter__(), self.owner)

    async def __aexit__(self, *exc: Any) -> None:
        await self.inner.__aexit__(*exc)


class _Breaking:
    def __init__(self, conn: asyncpg.Connection, owner: BreakingPool) -> None:
        self._conn = conn
        self._owner = owner

    def _raw(self) -> asyncpg.Connection:
        return self._conn._con  # type: ignore[attr-defined]  # the pool's proxy's connection

    def terminate(self) -> None:
        self._owner.terminated.append(self._raw())
        self._conn.terminate()

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._conn, name)
        if name not in STATEMENTS:
            return attr

        async def statement(query: str, *args: Any, **kwargs: Any) -> Any:
            if not self._owner.breaks(query):
                return await attr(query, *args, **kwargs)
            if self._owner.after:
                await attr(query, *args, **kwargs)
            self._owner.broke.append(self._raw())
            raise asyncpg.InternalClientError(BROKEN)

        return statement


class Switch:
    """Which statements break: those matching `when`, while `on` (the test flips it)."""

    def __init__(self, when: Callable[[str], bool] = lambda _q: True) -> None:
        self.on = False
        self.when = when

    def __call__(self, query: str) -> bool:
        return self.on and self.when(query)


@pytest.fixture
async def breaking(pg_pool: asyncpg.Pool) -> AsyncIterator[tuple[BreakingPool, Switch]]:
    switch = Switch()
    yield BreakingPool(pg_pool, switch), switch


def _store(pool: BreakingPool, clock: Any, group_commit: int = 2) -> PostgresEventStore:
    return PostgresEventStore(
        pool,  # type: ignore[arg-type]
        clock=clock,
        group_commit=group_commit,
        notify_window=None,
    )


async def test_a_broken_connection_is_busy_and_never_handed_out_again(breaking, clock):
    pool, switch = breaking
    store = _store(pool, clock)
    await store.append("s1", 0, [new_event(1)])
    switch.on = True
    for attempt in (
        store.append("s1", 1, [new_event(2)]),
        store.read_stream("s1"),
        store.stream_version("s1"),
        store.read_all(0),
        store.idempotency.look("scope", "k", b"req"),
        store.idempotency.record("scope", "k", b"req", 200, b"{}"),
    ):
        with pytest.raises(StoreBusyError, match="InternalClientError"):
            await attempt
    switch.on = False
    assert pool.broke, "no statement was broken: the test proves nothing"
    assert pool.terminated == pool.broke  # each broken connection was discarded, at once
    assert all(conn.is_closed() for conn in pool.broke)
    assert pool.expired == len(pool.broke)  # and the pool's others reopen on next checkout
    recorded = await store.append("s1", 1, [new_event(2)])  # the pool heals by itself
    assert [e.version for e in recorded] == [2]
    assert [e.version for e in await store.read_stream("s1")] == [1, 2]


async def test_every_append_of_a_group_on_a_broken_connection_gets_its_own_store_busy(
    breaking, clock
):
    """The group-commit path: one statement for many appends fails; every caller hears
    StoreBusyError (an exception of its own), nothing is written, the connection is dropped."""
    pool, switch = breaking
    switch.when = lambda query: query == sql.APPEND_GROUP
    store = _store(pool, clock, group_commit=1)  # one statement in flight: the rest group
    switch.on = True
    lead = asyncio.ensure_future(store.append("lead", 0, [new_event(100)]))  # goes alone
    group = [
        asyncio.ensure_future(
            store.append(
                f"g{n}",
                0,
                [new_event(n)],
                idempotency=IdempotencyRecord("scope", f"k{n}", b"req", 200, b"{}"),
            )
        )
        for n in range(1, 5)
    ]
    got = await asyncio.gather(*group, return_exceptions=True)
    await lead
    switch.on = False
    assert store.group_stats().statements == 2  # the lead, then the four as one group
    assert all(isinstance(g, StoreBusyError) for g in got), got
    assert len({id(g) for g in got}) == len(got)  # no exception object shared by callers
    assert pool.terminated == pool.broke and len(pool.broke) == 1
    for n in range(1, 5):
        assert await store.stream_version(f"g{n}") == 0
        assert await store.idempotency.look("scope", f"k{n}", b"req") is None
    retried = await asyncio.gather(*(store.append(f"g{n}", 0, [new_event(n)]) for n in range(1, 5)))
    assert [[e.version for e in r] for r in retried] == [[1]] * 4


async def test_a_connection_lost_while_answering_a_group_still_answers_its_committed_appends(
    breaking, clock
):
    """The group's statement committed; settling one append needs one more statement (its key
    was taken: what does it hold?) and the connection breaks there. That append hears
    StoreBusyError; the others committed, and hear so."""
    pool, switch = breaking
    switch.when = lambda query: query == keys._LOOK
    store = _store(pool, clock, group_commit=1)
    taken = IdempotencyRecord("scope", "taken", b"req", 200, b"{}")
    await store.idempotency.record("scope", "taken", b"req", 200, b"{}")
    switch.on = True
    lead = asyncio.ensure_future(store.append("lead", 0, [new_event(100)]))
    first = asyncio.ensure_future(store.append("a", 0, [new_event(1)], idempotency=taken))
    second = asyncio.ensure_future(store.append("b", 0, [new_event(2)]))
    got = await asyncio.gather(first, second, return_exceptions=True)
    await lead
    switch.on = False
    assert store.group_stats().statements == 2  # the lead, then a and b as one group
    assert isinstance(got[0], StoreBusyError), got[0]
    assert isinstance(got[1], list) and [e.version for e in got[1]] == [1], got[1]
    assert pool.terminated == pool.broke and len(pool.broke) == 1
    assert await store.stream_version("a") == 0
    assert await store.stream_version("b") == 1


async def test_a_server_that_refuses_connections_is_busy(clock):
    """Acquiring fails (server down, restarting): StoreBusyError, for appends and reads."""
    dead = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    pool = await create_pool(dead, PoolSettings(min_size=0, max_size=2))
    try:
        store = PostgresEventStore(pool, clock=clock, notify_window=None)
        with pytest.raises(StoreBusyError):
            await store.append("s1", 0, [new_event(1)])
        with pytest.raises(StoreBusyError):
            await store.read_stream("s1")
        with pytest.raises(StoreBusyError):
            await store.idempotency.look("scope", "k", b"req")
    finally:
        await pool.close()


APPENDS = frozenset(v for k, v in vars(sql).items() if k.startswith("APPEND"))


async def test_a_command_whose_connection_breaks_after_its_commit_is_never_lost_nor_doubled(
    breaking, clock
):
    """The ambiguous case: the append's statement committed, then its connection broke, so the
    store cannot know whether it did. The caller hears StoreBusyError and the client 503 with
    Retry-After (never a success it cannot prove); the retry with the same Idempotency-Key
    answers the stored result, byte for byte. Never twice, never lost."""
    pool, switch = breaking
    store = _store(pool, clock)
    async with open_api(store) as api:
        bey = await create_trial(api.client)
        orders = {"orders": [{"province": bey.memleket, "kind": "hold"}]}
        switch.when = lambda query: query in APPENDS
        pool.after = True
        switch.on = True
        first = await api.client.post(bey.url("/orders"), json=orders, headers=bey.auth("once"))
        switch.on = False
        assert first.status_code == 503, first.text
        assert first.json()["code"] == "store_busy"
        assert first.headers.get("retry-after")
        retried = await api.client.post(bey.url("/orders"), json=orders, headers=bey.auth("once"))
        assert retried.status_code == 200, retried.text
        again = await api.client.post(bey.url("/orders"), json=orders, headers=bey.auth("once"))
        assert again.content == retried.content
    assert pool.broke and pool.terminated == pool.broke
    records = await store.read_stream(bey.season_id)
    ids = [r.metadata.command_id for r in records if r.type == "orders_submitted.v1"]
    assert ids == ["once"]  # committed once, by the first request; the retries replayed it
