"""Event store for Seksenbir: append-only season streams in PostgreSQL (or memory, for tests)."""

from shared.eventstore.audit import InMemoryOpsReads, OpsRead, OpsReads, PostgresOpsReads
from shared.eventstore.errors import (
    ChainError,
    ConcurrencyError,
    DuplicateEventError,
    DurabilityError,
    EventStoreError,
    IdempotencyKeyTaken,
    IdempotencyStateError,
    LogOrderError,
    MigrationError,
    StoreBusyError,
)
from shared.eventstore.group_commit import GroupStats
from shared.eventstore.hashing import (
    GENESIS,
    envelope_bytes,
    event_hash,
    request_hash,
    verify_chain,
)
from shared.eventstore.idempotency import PostgresIdempotencyStore
from shared.eventstore.memory import InMemoryEventStore, InMemoryIdempotencyStore
from shared.eventstore.migrate import migrate
from shared.eventstore.model import (
    Clock,
    EventMetadata,
    EventStore,
    Found,
    IdempotencyRecord,
    IdempotencyStore,
    InProgress,
    KeyWrite,
    Mismatch,
    NewEvent,
    RecordedEvent,
    Replay,
)
from shared.eventstore.pool import PoolSettings, check_durability, check_log_order, create_pool
from shared.eventstore.store import PostgresEventStore
from shared.eventstore.wakeups import NOTIFY_CHANNEL, parse_wakeup, wakeup_payloads

__all__ = [
    "GENESIS",
    "NOTIFY_CHANNEL",
    "ChainError",
    "Clock",
    "ConcurrencyError",
    "DuplicateEventError",
    "DurabilityError",
    "EventMetadata",
    "EventStore",
    "EventStoreError",
    "Found",
    "GroupStats",
    "IdempotencyKeyTaken",
    "IdempotencyRecord",
    "IdempotencyStateError",
    "IdempotencyStore",
    "InMemoryEventStore",
    "InMemoryIdempotencyStore",
    "InMemoryOpsReads",
    "InProgress",
    "KeyWrite",
    "LogOrderError",
    "MigrationError",
    "Mismatch",
    "NewEvent",
    "OpsRead",
    "OpsReads",
    "PoolSettings",
    "PostgresEventStore",
    "PostgresIdempotencyStore",
    "PostgresOpsReads",
    "RecordedEvent",
    "Replay",
    "StoreBusyError",
    "check_durability",
    "check_log_order",
    "create_pool",
    "envelope_bytes",
    "event_hash",
    "migrate",
    "parse_wakeup",
    "request_hash",
    "verify_chain",
    "wakeup_payloads",
]
