"""Which failures make the store "busy" (HTTP 503), in one place, and the checkout that maps them.

Two kinds, both retryable, both StoreBusyError to the caller:

- contention: a lock or statement timeout fired (lock_timeout, statement_timeout), or the
  server has no connection slot free. The connection is fine and goes back to the pool.
- a failed connection: the server restarted, crashed or terminated the backend, the socket
  broke, or asyncpg's protocol state is broken (InternalClientError "cannot switch to state
  12": a terminated backend's FATAL arrived on an idle pooled connection just before it was
  reused). Such a connection is never reused: it is terminated before it goes back to the pool,
  and the pool's other connections are expired (reopened on their next checkout), since a lost
  connection usually means the server lost them all.

A write that fails with a lost connection after its statement was sent may have committed: an
append is one autocommit statement, and the server may have run its COMMIT before the
connection broke. The caller still gets StoreBusyError (never a false success). Its retry is
safe when it carries the same Idempotency-Key or event ids: the key is recorded in the
append's own statement and the event ids are unique, so the retry answers the stored result
(or is an idempotent hit) rather than appending twice (docs/eventstore.md).
"""

from __future__ import annotations

from typing import Any

import asyncpg

from shared.eventstore.errors import StoreBusyError

# The connection is fine: something held a lock or ran too long, or the server is full.
_CONTENDED: tuple[type[BaseException], ...] = (
    asyncpg.LockNotAvailableError,  # lock_timeout
    asyncpg.QueryCanceledError,  # statement_timeout (an OperatorInterventionError subclass)
    asyncpg.TooManyConnectionsError,  # at connect: no slot free
)

# The connection (or the server behind it) failed; asyncio's and asyncpg's timeouts included.
_LOST: tuple[type[BaseException], ...] = (
    asyncpg.InternalClientError,  # broken protocol state (ProtocolError and friends)
    asyncpg.InterfaceError,  # "connection is closed", "another operation is in progress"
    asyncpg.PostgresConnectionError,  # ConnectionDoesNotExistError, ConnectionFailureError…
    asyncpg.exceptions.OperatorInterventionError,  # AdminShutdown, CrashShutdown, CannotConnectNow
    OSError,  # ConnectionRefusedError, ConnectionResetError, BrokenPipeError…
    TimeoutError,  # command_timeout, or a connect/acquire that took too long
)


def lost_connection(exc: BaseException) -> bool:
    """Whether `exc` says the connection it came from must not be used again."""
    return isinstance(exc, _LOST) and not isinstance(exc, _CONTENDED)


def is_busy(exc: BaseException) -> bool:
    """Whether `exc` is a retryable store failure (contention or a failed connection)."""
    return isinstance(exc, (StoreBusyError, *_CONTENDED, *_LOST))


def as_busy(exc: BaseException) -> StoreBusyError:
    """A StoreBusyError of its own for this caller (several callers may share one failure)."""
    cause = exc.__cause__ if isinstance(exc, StoreBusyError) and exc.__cause__ else exc
    busy = StoreBusyError(str(exc) if isinstance(exc, StoreBusyError) else _describe(exc))
    busy.__cause__ = cause
    return busy


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


class Checkout:
    """`async with Checkout(pool) as conn`: a pooled connection whose failures are StoreBusyError.

    Acquiring fails busy too (the server is down or refuses connections). On a lost connection
    the connection is terminated, so the pool opens a new one instead of handing it out again,
    and the pool's other connections are expired. Other errors pass unchanged.
    A class, not @asynccontextmanager: it wraps every append, and a generator costs more.
    """

    __slots__ = ("_acquired", "_conn", "_pool")

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._acquired: Any = None
        self._conn: asyncpg.Connection | None = None

    async def __aenter__(self) -> asyncpg.Connection:
        acquired = self._pool.acquire()
        try:
            self._conn = await acquired.__aenter__()
        except Exception as exc:
            if is_busy(exc):
                raise as_busy(exc) from exc
            raise
        self._acquired = acquired
        return self._conn

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: Any
    ) -> None:
        acquired, conn = self._acquired, self._conn
        self._acquired = self._conn = None
        if exc is not None and conn is not None and lost_connection(exc):
            await discard(self._pool, conn)
        await acquired.__aexit__(kind, exc, tb)  # the release
        if exc is not None and not isinstance(exc, StoreBusyError) and is_busy(exc):
            raise as_busy(exc) from exc


async def discard(pool: asyncpg.Pool, conn: asyncpg.Connection) -> None:
    """Never hand this connection out again, and reopen the pool's others on next checkout."""
    conn.terminate()  # the release then frees its slot, which reconnects on demand
    # No I/O: idle connections are closed and reopened when next acquired, in-use ones when
    # released.
    await pool.expire_connections()
