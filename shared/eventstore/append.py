"""One append as the store writes it: its parameters, the one-append statement, its answer."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from shared.eventstore import sql
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import ConcurrencyError, IdempotencyKeyTaken
from shared.eventstore.idempotency import look_in
from shared.eventstore.model import EventMetadata, KeyWrite, NewEvent, RecordedEvent

_encoder = msgspec.json.Encoder()


class LoneEvent(msgspec.Struct):
    """One event of a lone append as the one-append statements read it ($4, a JSON array):
    its number in the append (1-based), then the columns written. Bytes go as base64, the
    metadata as its JSON object: the form of the group statement's events (ADR-163), so
    asyncpg copies one text instead of checking six arrays and each element in them against
    collections.abc in Python (ADR-168)."""

    n: int
    id: UUID
    type: str
    data: bytes
    meta: EventMetadata
    prev: bytes
    hash: bytes


# The unique key of event ids across seasons: the unpartitioned event_ids table (0008).
EVENT_ID_KEY = "event_ids_pkey"


class EventIdTaken(Exception):
    """The unique index on event_id refused the insert (the store settles what it means)."""


class Batch(msgspec.Struct, frozen=True):
    """One append's events with their envelope, before and after the positions are known."""

    season_id: str
    expected: int
    events: Sequence[NewEvent]
    recorded_at: datetime
    links: list[tuple[bytes, bytes]]

    def params(self, last_hash: bytes) -> tuple[object, ...]:
        """The $1..$6 of the one-append statement (see the comment above sql._CLAIM_NEXT)."""
        links = self.links
        events = [
            LoneEvent(n, e.event_id, e.type, e.data, e.metadata, prev, digest)
            for n, (e, (prev, digest)) in enumerate(zip(self.events, links, strict=True), start=1)
        ]
        return (
            self.season_id,
            last_hash,
            self.expected,
            _encoder.encode(events).decode(),
            self.recorded_at,
            links[-1][1],
        )

    def recorded(self, positions: Sequence[int]) -> list[RecordedEvent]:
        """The events as stored, given their positions (increasing with the versions)."""
        triples = zip(self.events, self.links, positions, strict=True)
        return [
            RecordedEvent(
                season_id=self.season_id,
                version=self.expected + n,
                position=position,
                event_id=e.event_id,
                type=e.type,
                data=e.data,
                metadata=e.metadata,
                recorded_at=self.recorded_at,
                prev_hash=prev,
                hash=digest,
            )
            for n, (e, (prev, digest), position) in enumerate(triples, start=1)
        ]


def statement(first: bool, done: KeyWrite | None) -> str:
    """Which one-append statement writes this append (tests/eventstore/sql_snapshot.sql)."""
    if done is None:
        return sql.APPEND_FIRST if first else sql.APPEND_NEXT
    return sql.APPEND_FIRST_RECORDED if first else sql.APPEND_NEXT_RECORDED


async def insert(
    conn: asyncpg.Connection,
    batch: Batch,
    last_hash: bytes,
    done: KeyWrite | None,
    clock: Clock,
) -> list[int]:
    """Write one append in its one statement (autocommit) on `conn`; return its positions.

    A key's completion time is read from `clock`, only when there is a key. Raises
    EventIdTaken, ConcurrencyError (stale, or a race the retry settles) or IdempotencyKeyTaken;
    nothing is written then.
    """
    params = batch.params(last_hash)
    if done is not None:
        params += (done.scope, done.key, done.status, done.body, utc(clock()), done.request_hash)
    try:
        row = await conn.fetchrow(statement(batch.expected == 0, done), *params)
    except asyncpg.UniqueViolationError as exc:
        if exc.constraint_name == EVENT_ID_KEY:
            raise EventIdTaken from exc
        # the streams row (a first append raced), or a recorded key a copy committed first
        raise ConcurrencyError(batch.season_id, batch.expected, None) from exc
    return await settle(conn, batch, done, row["positions"], row["key_held"])


async def settle(
    conn: asyncpg.Connection,
    batch: Batch,
    done: KeyWrite | None,
    positions: Sequence[int] | None,
    key_held: bool,
) -> list[int]:
    """An append statement's answer for one append: its positions, or why there are none."""
    if done is not None and not key_held:
        found = await look_in(conn, done.scope, done.key, done.request_hash)
        if found is not None:
            raise IdempotencyKeyTaken(done.scope, done.key, found)
        raise ConcurrencyError(batch.season_id, batch.expected, None)  # gone again: retry
    if positions is None:
        raise ConcurrencyError(batch.season_id, batch.expected, None)
    return list(positions)
