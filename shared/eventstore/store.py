"""PostgreSQL event store: one append-only table, per-season versions, gap-free global positions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from uuid import UUID

import asyncpg
import msgspec
import structlog

from shared.eventstore import sql
from shared.eventstore.errors import (
    ChainError,
    ConcurrencyError,
    DuplicateEventError,
    StoreBusyError,
)
from shared.eventstore.hashing import GENESIS, chain_hashes, verify_chain
from shared.eventstore.idempotency import DEFAULT_LEASE, PostgresIdempotencyStore, complete_in
from shared.eventstore.model import (
    Clock,
    EventMetadata,
    IdempotencyCompletion,
    NewEvent,
    RecordedEvent,
    settle_duplicates,
    utc,
    validate_batch,
)

log = structlog.get_logger(__name__)

NOTIFY_CHANNEL = sql.NOTIFY_CHANNEL

_meta_decoder = msgspec.json.Decoder(EventMetadata)
_encoder = msgspec.json.Encoder()


class _EventIdTaken(Exception):
    """Internal: the unique index on event_id refused the insert."""


class _Batch(msgspec.Struct, frozen=True):
    """One append's events with their envelope, before and after the positions are known."""

    season_id: str
    expected: int
    events: Sequence[NewEvent]
    recorded_at: datetime
    links: list[tuple[bytes, bytes]]

    def params(self, last_hash: bytes) -> tuple[object, ...]:
        """The $1..$11 of _APPEND (see the comment above _CLAIM_NEXT)."""
        es = self.events
        return (
            self.season_id,
            last_hash,
            self.expected,
            [e.event_id for e in es],
            [e.type for e in es],
            [e.data for e in es],
            [_encoder.encode(e.metadata).decode() for e in es],
            self.recorded_at,
            [prev for prev, _ in self.links],
            self.links[-1][1],
            [digest for _, digest in self.links],
        )

    def recorded(self, base: int) -> list[RecordedEvent]:
        """The events as stored, given the position before the first of them."""
        pairs = zip(self.events, self.links, strict=True)
        return [
            RecordedEvent(
                season_id=self.season_id,
                version=self.expected + n,
                position=base + n,
                event_id=e.event_id,
                type=e.type,
                data=e.data,
                metadata=e.metadata,
                recorded_at=self.recorded_at,
                prev_hash=prev,
                hash=digest,
            )
            for n, (e, (prev, digest)) in enumerate(pairs, start=1)
        ]


@asynccontextmanager
async def _busy_as_error() -> AsyncIterator[None]:
    try:
        yield
    except (
        asyncpg.LockNotAvailableError,
        asyncpg.QueryCanceledError,
        TimeoutError,
        # The connection died under us (server restart, pg_terminate_backend): try again later.
        asyncpg.PostgresConnectionError,
        asyncpg.InterfaceError,
        asyncpg.exceptions.OperatorInterventionError,
        ConnectionError,
    ) as exc:
        raise StoreBusyError(f"{type(exc).__name__}: {exc}") from exc


class PostgresEventStore:
    """The event store on an asyncpg pool (make it with `pool.create_pool`).

    Versions: a stream's version is its number of events; events are numbered 1..n; an empty
    stream is at 0. Positions: global, gap-free, 1..head, in commit order.
    """

    def __init__(self, pool: asyncpg.Pool, *, clock: Clock, lease: timedelta = DEFAULT_LEASE):
        self._pool = pool
        self._clock = clock
        self._keys = PostgresIdempotencyStore(pool, clock=clock, lease=lease)

    @property
    def idempotency(self) -> PostgresIdempotencyStore:
        """The Idempotency-Key store sharing this pool."""
        return self._keys

    async def append(
        self,
        season_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency: IdempotencyCompletion | None = None,
    ) -> list[RecordedEvent]:
        """Append all events or none; with `idempotency`, complete that key in the same commit.

        Raises ConcurrencyError (stream not at expected_version), DuplicateEventError (an event
        id recorded differently), IdempotencyStateError (key not in progress; nothing appended),
        StoreBusyError (lock/statement timeout). Re-appending already recorded events is an
        idempotent hit: nothing is written and the first recording is returned.
        """
        validate_batch(season_id, expected_version, events)
        try:
            async with _busy_as_error():
                return await self._write(season_id, expected_version, events, idempotency)
        except (ConcurrencyError, _EventIdTaken) as exc:
            hit = settle_duplicates(season_id, events, await self._by_ids(events))
            if hit is None and isinstance(exc, _EventIdTaken):
                raise DuplicateEventError([e.event_id for e in events]) from exc
            if hit is None:
                raise
        log.info("eventstore.idempotent_hit", season_id=season_id, version=hit[-1].version)
        if idempotency is not None:
            await self._keys.complete(
                idempotency.scope, idempotency.key, idempotency.status, idempotency.body
            )
        return hit

    async def _write(
        self,
        season_id: str,
        expected: int,
        events: Sequence[NewEvent],
        idempotency: IdempotencyCompletion | None,
    ) -> list[RecordedEvent]:
        recorded_at = utc(self._clock())
        async with self._pool.acquire() as conn:
            head = await conn.fetchrow(sql.STREAM_HEAD, season_id)
            version, last_hash = (head["version"], head["last_hash"]) if head else (0, GENESIS)
            if version != expected:
                raise ConcurrencyError(season_id, expected, version)
            links = chain_hashes(last_hash, season_id, expected, events)
            batch = _Batch(season_id, expected, events, recorded_at, links)
            if idempotency is None:  # one autocommit statement: no round trip under the lock
                base = await self._insert(conn, batch, last_hash)
            else:
                async with conn.transaction():
                    base = await self._insert(conn, batch, last_hash)
                    await complete_in(conn, idempotency, self._clock)
        return batch.recorded(base)

    @staticmethod
    async def _insert(conn: asyncpg.Connection, batch: _Batch, last_hash: bytes) -> int:
        query = sql.APPEND_NEXT if batch.expected else sql.APPEND_FIRST
        try:
            base = await conn.fetchval(query, *batch.params(last_hash))
        except asyncpg.UniqueViolationError as exc:
            if exc.constraint_name == "events_event_id_key":
                raise _EventIdTaken from exc
            raise ConcurrencyError(batch.season_id, batch.expected, None) from exc
        if base is None:
            raise ConcurrencyError(batch.season_id, batch.expected, None)
        return int(base)

    async def _by_ids(self, events: Sequence[NewEvent]) -> list[RecordedEvent]:
        return await self._fetch(sql.BY_IDS, [e.event_id for e in events])

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """The season's events after stream version `from_version` (0: all), in version order."""
        return await self._fetch(sql.READ_STREAM, season_id, from_version)

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to `limit` events after `after_position`, across seasons, in position order.

        Never skips: positions are gap-free and become visible in order, so a catch-up reader
        may checkpoint the last position it got. As a guard the batch is cut at any gap.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        page = await self._fetch(sql.READ_ALL, after_position, limit)
        return _contiguous(after_position, page)

    async def stream_version(self, season_id: str) -> int:
        """The season's current version (its number of events; 0 when it has none)."""
        async with _busy_as_error(), self._pool.acquire() as conn:
            version = await conn.fetchval(
                "SELECT version FROM streams WHERE season_id = $1", season_id
            )
        return int(version or 0)

    async def head_position(self) -> int:
        """The last committed global position (0 for an empty store)."""
        async with _busy_as_error(), self._pool.acquire() as conn:
            return int(await conn.fetchval("SELECT position FROM log_head"))

    async def list_seasons(self) -> list[str]:
        """Every season with at least one event, sorted."""
        async with _busy_as_error(), self._pool.acquire() as conn:
            rows = await conn.fetch("SELECT season_id FROM streams ORDER BY season_id")
        return [row["season_id"] for row in rows]

    async def verify_season(self, season_id: str) -> bytes:
        """Verify the season's chain and that it ends at the stream head; return the head hash."""
        # one snapshot for both reads, so a concurrent append is no false alarm
        async with (
            _busy_as_error(),
            self._pool.acquire() as conn,
            conn.transaction(isolation="repeatable_read", readonly=True),
        ):
            events = [_recorded(row) for row in await conn.fetch(sql.READ_SEASON, season_id)]
            stored = await conn.fetchval(
                "SELECT last_hash FROM streams WHERE season_id = $1", season_id
            )
        head = verify_chain(events)
        if head != (stored or GENESIS):
            raise ChainError(season_id, len(events), "chain does not end at the stream head")
        return head

    async def _fetch(self, query: str, *args: object) -> list[RecordedEvent]:
        async with _busy_as_error(), self._pool.acquire() as conn:
            rows = await conn.fetch(query, *args)
        return [_recorded(row) for row in rows]


def _recorded(row: asyncpg.Record) -> RecordedEvent:
    return RecordedEvent(
        season_id=row["season_id"],
        version=row["version"],
        position=row["position"],
        event_id=UUID(bytes=row["event_id"].bytes),
        type=row["type"],
        data=row["data"],
        metadata=_meta_decoder.decode(row["metadata"]),
        recorded_at=row["recorded_at"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
    )


def _contiguous(after: int, events: list[RecordedEvent]) -> list[RecordedEvent]:
    for index, event in enumerate(events):
        if event.position != after + 1 + index:
            log.error("eventstore.position_gap", expected=after + 1 + index, found=event.position)
            return events[:index]
    return events
