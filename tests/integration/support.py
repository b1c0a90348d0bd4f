"""Helpers for the event-store tests: deterministic events, a polling wait, held sessions."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar
from uuid import UUID

import asyncpg
import msgspec

from shared.eventstore import EventMetadata, NewEvent

T = TypeVar("T")

META = EventMetadata(actor="seat", seat="3", command_id="cmd-1", correlation_id="corr-1")


def event_id(n: int, space: int = 0) -> UUID:
    """A deterministic event id; `space` keeps writers' ids apart."""
    return UUID(int=(space << 64) | n)


def new_event(
    n: int,
    *,
    space: int = 0,
    data: dict[str, object] | None = None,
    type_: str = "thing_happened.v1",
) -> NewEvent:
    """Event number n with JSON data (msgspec bytes, as the domain codec writes them)."""
    body = msgspec.json.encode(data if data is not None else {"n": n, "space": space})
    return NewEvent(event_id=event_id(n, space), type=type_, data=body, metadata=META)


def batch(first: int, count: int, *, space: int = 0) -> list[NewEvent]:
    """`count` consecutive events starting at number `first`."""
    return [new_event(first + i, space=space) for i in range(count)]


async def wait_until(check: Callable[[], Awaitable[bool]], timeout: float = 10.0) -> None:
    """Poll a condition (not a fixed sleep); fail the test if it never holds.

    Besides asyncio.timeout, a plain deadline: on Python 3.11 a check that goes through
    asyncio.wait_for (asyncpg) can swallow the timeout's cancellation, and the poll would
    then go on for ever instead of failing.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with asyncio.timeout(timeout):
        while not await check():
            if loop.time() > deadline:
                raise TimeoutError(f"condition still false after {timeout} s")
            await asyncio.sleep(0.01)


async def settles_to(read: Callable[[], Awaitable[T]], expected: T, timeout: float = 30.0) -> None:
    """Assert that a read of the whole log (`read_all`, `head_position`, `changed_streams`)
    answers `expected`, repeating it while it answers otherwise.

    The PostgreSQL store's readers stop at the horizon, the oldest transaction that may still
    write the log (shared/eventstore/sql.py, `_HORIZON`). A transaction of another database
    on the server that ends while the read runs is one it cannot place, so that one read holds
    back, the safe side, and finds less than was committed: it failed
    test_adr_147_changed_streams… once in a full run, another session's test ending beside
    it. The in-memory store answers at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while (answer := await read()) != expected and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert answer == expected


class HeldSession:
    """Session A of RELIABILITY 4: one connection, inside a transaction the test began, posing
    as a pool. A store on it runs its append statement in that transaction, which the test then
    holds open, commits or rolls back."""

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn

    @asynccontextmanager
    async def acquire(self) -> AsyncIterator[asyncpg.Connection]:
        yield self.conn


async def commit_keys(pool: asyncpg.Pool) -> dict[int, tuple[int, int]]:
    """Every event's reader order key (xid, position), by position."""
    rows = await pool.fetch("SELECT xid, position FROM events")
    return {row["position"]: (row["xid"], row["position"]) for row in rows}
