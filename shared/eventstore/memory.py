"""In-memory event store and idempotency keys keeping the PostgreSQL contract, for fast tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from uuid import UUID

import msgspec

from shared.eventstore.chat_memory import InMemoryChatLog
from shared.eventstore.clock import Clock, utc
from shared.eventstore.errors import (
    ChainError,
    ConcurrencyError,
    IdempotencyKeyTaken,
)
from shared.eventstore.hashing import CHAIN_VERSION, CHAIN_VERSIONS, chain_hashes, verify_chain
from shared.eventstore.model import (
    KeyWrite,
    NewEvent,
    RecordedEvent,
    settle_duplicates,
    validate_batch,
)
from shared.eventstore.ops_read_log import InMemoryOpsReads
from shared.eventstore.player_log import InMemoryPlayerLog
from shared.eventstore.taken_keys import Found, Mismatch, Replay
from shared.logs import get_logger

log = get_logger(__name__)


class _Key(msgspec.Struct):
    request_hash: bytes
    created_at: datetime
    response: Replay


class InMemoryIdempotencyStore:
    """Idempotency keys in a dict; same answers as PostgresIdempotencyStore."""

    def __init__(self, *, clock: Clock) -> None:
        self._clock = clock
        self._keys: dict[tuple[str, str], _Key] = {}

    async def record(
        self, scope: str, key: str, request_hash: bytes, status: int, body: bytes
    ) -> Found | None:
        """One step: record a new key as done with this response (None), or say what it holds."""
        found = await self.look(scope, key, request_hash)
        if found is None:
            self._keys[scope, key] = _Key(request_hash, utc(self._clock()), Replay(status, body))
        return found

    async def look(self, scope: str, key: str, request_hash: bytes) -> Found | None:
        """What the key holds for this request (None: the key is free); changes nothing."""
        entry = self._keys.get((scope, key))
        if entry is None:
            return None
        if not _same(entry, request_hash):
            return Mismatch()
        return entry.response

    async def purge(self, older_than: timedelta) -> int:
        """Delete keys begun before the retention window; returns how many."""
        cutoff = utc(self._clock()) - older_than
        old = [k for k, entry in self._keys.items() if entry.created_at < cutoff]
        for k in old:
            del self._keys[k]
        return len(old)


def _same(entry: _Key, request_hash: bytes) -> bool:
    return entry.request_hash == request_hash


class InMemoryEventStore:
    """The event store in lists; each append runs without an await, so it is atomic."""

    def __init__(
        self,
        *,
        clock: Clock,
        keys: InMemoryIdempotencyStore | None = None,
    ) -> None:
        self._clock = clock
        self._keys = keys or InMemoryIdempotencyStore(clock=clock)
        self._log: list[RecordedEvent] = []
        self._streams: dict[str, list[RecordedEvent]] = {}
        self._chains: dict[str, int] = {}  # season -> chain version (ADR-52)
        self._copies: set[str] = set()  # imported audit copies (ADR-58)
        self._by_id: dict[UUID, RecordedEvent] = {}
        self._ops_reads = InMemoryOpsReads(clock=clock)
        self._players = InMemoryPlayerLog()
        self._chat = InMemoryChatLog(clock=clock, keys=self._keys)

    @property
    def idempotency(self) -> InMemoryIdempotencyStore:
        """The Idempotency-Key store whose keys appends record."""
        return self._keys

    @property
    def ops_reads(self) -> InMemoryOpsReads:
        """The ops-read audit trail (ADR-53): not season events."""
        return self._ops_reads

    @property
    def players(self) -> InMemoryPlayerLog:
        """Players' own event log (ADR-87): not season events."""
        return self._players

    @property
    def chat(self) -> InMemoryChatLog:
        """The seasons' chat streams (issue 24, ADR-91): not season events."""
        return self._chat

    async def append(
        self,
        season_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency: KeyWrite | None = None,
        chain: int | None = None,
    ) -> list[RecordedEvent]:
        """Append all events or none; same errors and idempotent hits as PostgresEventStore."""
        validate_batch(season_id, expected_version, events)
        if chain is not None and (expected_version != 0 or chain not in CHAIN_VERSIONS):
            raise ValueError("a chain version is chosen by a new season's first append")
        if idempotency is not None:
            r = idempotency
            found = await self._keys.look(r.scope, r.key, r.request_hash)
            if found is not None:
                raise IdempotencyKeyTaken(r.scope, r.key, found)
        existing = [self._by_id[e.event_id] for e in events if e.event_id in self._by_id]
        hit = settle_duplicates(season_id, events, existing)
        if hit is None:
            version = len(self._streams.get(season_id, ()))
            if version != expected_version:
                raise ConcurrencyError(season_id, expected_version, version)
        if hit is None and expected_version == 0:
            self._chains[season_id] = chain or CHAIN_VERSION
        recorded = hit or self._write(season_id, expected_version, events)
        if hit is not None:
            log.info("eventstore.idempotent_hit", season_id=season_id, version=hit[-1].version)
        if idempotency is not None:
            r = idempotency
            await self._keys.record(r.scope, r.key, r.request_hash, r.status, r.body)
        return recorded

    def _write(
        self, season_id: str, expected: int, events: Sequence[NewEvent]
    ) -> list[RecordedEvent]:
        stream = self._streams.setdefault(season_id, [])
        prev = stream[-1].hash if stream else bytes(32)
        recorded_at = utc(self._clock())
        links = chain_hashes(
            prev, season_id, expected, events, self._chains.get(season_id, CHAIN_VERSION)
        )
        head = len(self._log)
        recorded = [
            RecordedEvent(
                season_id=season_id,
                version=expected + n,
                position=head + n,
                event_id=e.event_id,
                type=e.type,
                data=e.data,
                metadata=e.metadata,
                recorded_at=recorded_at,
                prev_hash=prev_hash,
                hash=digest,
            )
            for n, (e, (prev_hash, digest)) in enumerate(zip(events, links, strict=True), start=1)
        ]
        stream.extend(recorded)
        self._log.extend(recorded)
        self._by_id.update((e.event_id, e) for e in recorded)
        return recorded

    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """The season's events after stream version `from_version` (0: all), in version order."""
        return list(self._streams.get(season_id, ())[max(from_version, 0) :])

    async def read_data(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]:
        """What a fold needs of the season's events: here the records themselves (read_stream's:
        a RecordedEvent has every field of StoredData)."""
        return await self.read_stream(season_id, from_version=from_version)

    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]:
        """Up to `limit` events after the event at `after_position` (0: from the start).

        Appends here commit one at a time, so the commit-safe order is the position order and
        positions have no holes. Raises ValueError for a position that is no event's.
        """
        if limit < 1:
            raise ValueError("limit must be positive")
        if not 0 <= after_position <= len(self._log):
            raise ValueError(f"{after_position} is not the position of a recorded event")
        return self._log[after_position : after_position + limit]

    async def stream_version(self, season_id: str) -> int:
        """The season's current version (its number of events; 0 when it has none)."""
        return len(self._streams.get(season_id, ()))

    async def stream_versions(self) -> dict[str, int]:
        """Every season's current version."""
        return {season_id: len(stream) for season_id, stream in self._streams.items()}

    async def changed_streams(
        self, after_position: int, also: Sequence[str] = (), limit: int = 100_000
    ) -> tuple[int, dict[str, int]]:
        """The seasons of the next `limit` events after position `after_position`, and those of
        `also`, each with its version; and the last of those events' position (see
        PostgresEventStore.changed_streams)."""
        if not 0 <= after_position <= len(self._log):
            raise ValueError(f"{after_position} is not the position of a recorded event")
        page = self._log[after_position : after_position + limit]
        seasons = {e.season_id for e in page}
        seasons.update(s for s in also if s in self._streams)
        return after_position + len(page), {s: len(self._streams[s]) for s in sorted(seasons)}

    async def head_position(self) -> int:
        """The position of the last event a reader can get now (0 when there is none)."""
        return len(self._log)

    async def season_count(self) -> int:
        """How many seasons have events."""
        return len(self._streams)

    async def list_seasons(self) -> list[str]:
        """Every season with at least one event, sorted."""
        return sorted(self._streams)

    async def audit_copy(self, season_id: str) -> bool:
        """Whether the season is an imported audit copy (ADR-58)."""
        return season_id in self._copies

    async def mark_audit_copy(self, season_id: str, head: bytes) -> None:
        """Record an import's season as an audit copy (ADR-58); ValueError if it is one."""
        if season_id in self._copies:
            raise ValueError(f"{season_id!r} is an audit copy already")
        self._copies.add(season_id)

    async def chain_version(self, season_id: str) -> int:
        """The season's chain version (1 or 2, ADR-52); CHAIN_VERSION for an unknown season."""
        return self._chains.get(season_id, CHAIN_VERSION)

    async def read_with_head(self, season_id: str) -> tuple[list[RecordedEvent], bytes | None, int]:
        """The season's events, its head (None for no season) and chain version, at once."""
        stream = list(self._streams.get(season_id, []))
        chain = self._chains.get(season_id, CHAIN_VERSION)
        return stream, (stream[-1].hash if stream else None), chain

    async def verify_chain(self, season_id: str) -> bytes:
        """Verify the season's chain; return its head hash (raises ChainError)."""
        stream = self._streams.get(season_id, [])
        head = verify_chain(stream, chain=self._chains.get(season_id))
        if stream and head != stream[-1].hash:
            raise ChainError(season_id, len(stream), "chain does not end at the stream head")
        return head
