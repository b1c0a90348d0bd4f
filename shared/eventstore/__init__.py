"""Event store for Seksenbir: append-only season streams in PostgreSQL (or memory, for tests)."""

from shared.eventstore.clock import Clock
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
    CHAIN_VERSION,
    CHAIN_VERSIONS,
    GENESIS,
    SCHEMES,
    data_digest,
    envelope_bytes,
    event_hash,
    infer_chain,
    request_hash,
    verify_chain,
)
from shared.eventstore.idempotency import PostgresIdempotencyStore
from shared.eventstore.memory import InMemoryEventStore, InMemoryIdempotencyStore
from shared.eventstore.migrate import migrate
from shared.eventstore.model import (
    EventMetadata,
    EventStore,
    IdempotencyRecord,
    IdempotencyStore,
    KeyWrite,
    NewEvent,
    RecordedEvent,
    StoredData,
)
from shared.eventstore.ops_read_log import InMemoryOpsReads, OpsRead, OpsReads, PostgresOpsReads
from shared.eventstore.pool import PoolSettings, check_durability, check_log_order, create_pool
from shared.eventstore.store import PostgresEventStore
from shared.eventstore.taken_keys import Found, InProgress, Mismatch, Replay
from shared.eventstore.wakeups import NOTIFY_CHANNEL, parse_wakeup, wakeup_payloads

__all__ = [
    "CHAIN_VERSION",
    "CHAIN_VERSIONS",
    "GENESIS",
    "NOTIFY_CHANNEL",
    "SCHEMES",
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
    "StoredData",
    "check_durability",
    "check_log_order",
    "create_pool",
    "data_digest",
    "envelope_bytes",
    "event_hash",
    "infer_chain",
    "migrate",
    "parse_wakeup",
    "request_hash",
    "verify_chain",
    "wakeup_payloads",
]
