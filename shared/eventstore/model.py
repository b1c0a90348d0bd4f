"""Envelope types of the event store, and the rules both stores share (validation, duplicates)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Literal, Protocol
from uuid import UUID

import msgspec

from shared.eventstore.errors import DuplicateEventError
from shared.eventstore.taken_keys import Found

if TYPE_CHECKING:
    from shared.eventstore.chat_log import ChatLog
    from shared.eventstore.ops_read_log import OpsReads
    from shared.eventstore.player_log import PlayerLog

ActorKind = Literal["seat", "ops", "system"]

# A stored type is a versioned tag ("orders_submitted.v1"); a breaking change gets a new tag.
TYPE_TAG = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.v[1-9][0-9]*$")
MAX_SEASON_ID = 100


def possible_season_id(season_id: str) -> bool:
    """Whether a season can have this id (issue 20): 1 … MAX_SEASON_ID printable characters,
    no space and no `/`. The API makes 32 hex digits (shared.app.access.tokens.new_season_id), an
    import keeps a file's id only if it is possible, and the store appends to no other; so an
    id that is not possible names no season and is answered "no such season" before anything
    looks it up. That keeps out of PostgreSQL (text: UTF-8 without NUL) and Redis (keys
    encoded as UTF-8) what they cannot take: a NUL, a lone surrogate (an invalid UTF-8
    sequence decoded with surrogateescape), a control or line-separator character, an
    over-long id."""
    return (
        1 <= len(season_id) <= MAX_SEASON_ID
        and season_id.isprintable()
        and " " not in season_id
        and "/" not in season_id
    )


class EventMetadata(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Who caused an event and why; stored as jsonb beside the event, not inside it."""

    actor: ActorKind
    seat: str | None = None
    command_id: str | None = None
    causation_id: str | None = None
    correlation_id: str | None = None
    # the server instant the command was decided at (the command edge's clock), ISO-8601: a
    # live season's "I sent it in time" is settled from it (issue 12); absent on older events
    at: str | None = None


class NewEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event to append: the caller picks the id (deterministic ids make retries idempotent)."""

    event_id: UUID
    type: str
    data: bytes
    metadata: EventMetadata


class RecordedEvent(msgspec.Struct, frozen=True, kw_only=True):
    """An event as stored: its envelope (stream, version, position, time, chain) and content."""

    season_id: str
    version: int
    position: int
    event_id: UUID
    type: str
    data: bytes
    metadata: EventMetadata
    recorded_at: datetime
    prev_hash: bytes
    hash: bytes


class StoredData(msgspec.Struct, frozen=True, array_like=True):
    """What a fold needs of a stored event (`EventStore.read_data`): its version, type tag and
    content, its chain hash (the next append's link) and its global position (a projector's
    cross-season records, ADR-141). A RecordedEvent has the same fields."""

    version: int
    type: str
    data: bytes
    hash: bytes
    position: int


class IdempotencyRecord(msgspec.Struct, frozen=True):
    """A new key, recorded as done with its response in the append's own commit.

    The one protocol: no step before the command, so a command whose whole effect is one
    append costs one statement. If the key is taken already, nothing is appended and the
    store raises IdempotencyKeyTaken with what the key holds. Two copies racing in two
    processes cannot both append: the key's primary key admits one row.
    """

    scope: str
    key: str
    request_hash: bytes
    status: int
    body: bytes


KeyWrite = IdempotencyRecord  # what an append may write beside its events


class IdempotencyStore(Protocol):
    """Idempotency-Key bookkeeping for the command API (IETF idempotency-key draft)."""

    async def record(
        self, scope: str, key: str, request_hash: bytes, status: int, body: bytes
    ) -> Found | None: ...
    async def look(self, scope: str, key: str, request_hash: bytes) -> Found | None: ...
    async def purge(self, older_than: timedelta) -> int: ...


class EventStore(Protocol):
    """The storage contract; PostgresEventStore and InMemoryEventStore both keep it."""

    @property
    def idempotency(self) -> IdempotencyStore: ...
    @property
    def ops_reads(self) -> OpsReads: ...
    @property
    def players(self) -> PlayerLog: ...
    @property
    def chat(self) -> ChatLog: ...
    async def append(
        self,
        season_id: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        idempotency: KeyWrite | None = None,
        chain: int | None = None,
    ) -> list[RecordedEvent]: ...
    async def read_stream(self, season_id: str, from_version: int = 0) -> list[RecordedEvent]: ...
    async def read_data(
        self, season_id: str, from_version: int = 0
    ) -> Sequence[StoredData | RecordedEvent]: ...
    async def read_all(self, after_position: int = 0, limit: int = 1000) -> list[RecordedEvent]: ...
    async def stream_version(self, season_id: str) -> int: ...
    async def stream_versions(self) -> dict[str, int]: ...
    async def changed_streams(
        self, after_position: int, also: Sequence[str] = (), limit: int = 100_000
    ) -> tuple[int, dict[str, int]]: ...
    async def head_position(self) -> int: ...
    async def season_count(self) -> int: ...
    async def list_seasons(self) -> list[str]: ...
    async def verify_chain(self, season_id: str) -> bytes: ...
    async def read_with_head(
        self, season_id: str
    ) -> tuple[list[RecordedEvent], bytes | None, int]: ...
    async def chain_version(self, season_id: str) -> int: ...
    async def audit_copy(self, season_id: str) -> bool: ...
    async def mark_audit_copy(self, season_id: str, head: bytes) -> None: ...


def validate_batch(season_id: str, expected_version: int, events: Sequence[NewEvent]) -> None:
    """Reject a malformed append before it reaches storage (ValueError: a caller bug)."""
    if not possible_season_id(season_id):
        raise ValueError(
            f"season id must be 1..{MAX_SEASON_ID} printable characters without space or /"
        )
    if expected_version < 0:
        raise ValueError("expected_version is a stream version, 0 for an empty stream")
    if not events:
        raise ValueError("append needs at least one event")
    if len(events) > 1 and len({e.event_id for e in events}) != len(events):  # one cannot
        raise ValueError("event ids repeat within one append")
    for event in events:
        if event.type not in _TAGS and not _tag(event.type):
            raise ValueError(f"event type {event.type!r} is not a versioned tag like 'x_done.v1'")


# The types found to be versioned tags: a few dozen, one look each after the first (issue 27).
_TAGS: set[str] = set()
_TAGS_MAX = 1024


def _tag(type_: str) -> bool:
    """Whether `type_` is a versioned tag (TYPE_TAG), remembered when it is."""
    if TYPE_TAG.match(type_) is None:
        return False
    if len(_TAGS) < _TAGS_MAX:
        _TAGS.add(type_)
    return True


def settle_duplicates(
    season_id: str, events: Sequence[NewEvent], existing: Sequence[RecordedEvent]
) -> list[RecordedEvent] | None:
    """Decide what a repeated event id means (RELIABILITY test 3).

    No id recorded: None (no duplicate). Every id recorded in this season with equal type and
    data: an idempotent hit, returning the first recording. Anything else: DuplicateEventError.
    Metadata is not compared: a retry may carry a new correlation id. A batch of which only
    some ids are recorded is a conflict too.
    """
    if not existing:
        return None
    by_id = {e.event_id: e for e in existing}
    seen = [e for e in events if e.event_id in by_id]
    differing = [e.event_id for e in seen if not _same(season_id, e, by_id[e.event_id])]
    if differing or len(seen) != len(events):
        raise DuplicateEventError(differing or [e.event_id for e in seen])
    return sorted(by_id.values(), key=lambda e: e.version)


def _same(season_id: str, new: NewEvent, old: RecordedEvent) -> bool:
    return old.season_id == season_id and old.type == new.type and old.data == new.data
