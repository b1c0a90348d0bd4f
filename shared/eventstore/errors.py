"""Errors the event store raises; each maps to one HTTP answer at the edge."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

if TYPE_CHECKING:
    from shared.eventstore.taken_keys import Found


class EventStoreError(Exception):
    """Base of every error this package raises."""


class ConcurrencyError(EventStoreError):
    """The stream is not at the expected version: reload, decide again, retry (HTTP 409)."""

    def __init__(self, season_id: str, expected: int, actual: int | None) -> None:
        self.season_id = season_id
        self.expected = expected
        self.actual = actual
        super().__init__(f"season {season_id!r}: expected version {expected}, found {actual}")


class DuplicateEventError(EventStoreError):
    """An event id is already recorded with another payload or in another stream (a conflict).

    A re-append of the same events (same season, type and data) is not an error: it is an
    idempotent hit and returns the first recording.
    """

    def __init__(self, event_ids: list[UUID]) -> None:
        self.event_ids = event_ids
        super().__init__(f"event ids already recorded differently: {[str(i) for i in event_ids]}")


class StoreBusyError(EventStoreError):
    """A lock or statement timeout fired: the store is contended or a zombie holds a lock.

    Retryable; the API answers 503 with Retry-After.
    """


class DurabilityError(EventStoreError):
    """The server does not flush commits durably (fsync or synchronous_commit is off)."""


class LogOrderError(EventStoreError):
    """The log's transaction ids are ahead of this server's (a logical restore into another
    cluster): readers, which go in transaction-id order, would stall or misorder. Reset the
    restored rows' xid to 0 and rebuild the projections (docs/eventstore.md)."""


class ChainError(EventStoreError):
    """A season's hash chain does not verify: an event was altered, removed or reordered."""

    def __init__(self, season_id: str, version: int, reason: str) -> None:
        self.season_id = season_id
        self.version = version
        self.reason = reason
        super().__init__(f"season {season_id!r} version {version}: {reason}")


class IdempotencyStateError(EventStoreError):
    """An idempotency key is not in progress any more, so this request may not complete it."""


class IdempotencyKeyTaken(EventStoreError):
    """An append's IdempotencyRecord names a key recorded before: nothing was appended.

    `found` says what the key holds: the first answer (Replay), another request (Mismatch),
    or a request still running under the two-step protocol (InProgress).
    """

    def __init__(self, scope: str, key: str, found: Found) -> None:
        self.scope = scope
        self.key = key
        self.found = found
        super().__init__(f"key {key!r} in {scope!r} is taken: {type(found).__name__}")


class MigrationError(EventStoreError):
    """A schema migration is missing, malformed, or was edited after it was applied."""
