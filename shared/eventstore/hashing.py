"""The per-season hash chain: hash = sha256(prev_hash || canonical envelope bytes)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from uuid import UUID

from shared.eventstore.errors import ChainError
from shared.eventstore.model import NewEvent, RecordedEvent

GENESIS = bytes(32)  # the prev_hash of a season's first event
SCHEME = b"seksenbir/event-chain/1"


def _field(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


def envelope_bytes(season_id: str, version: int, event_id: UUID, type_: str, data: bytes) -> bytes:
    """Canonical, unambiguous bytes of what the chain protects.

    Layout: each of SCHEME, season id (UTF-8), type (UTF-8) and data is prefixed by its length
    as a 4-byte big-endian integer; the version is 8 bytes big-endian, the event id its 16 bytes.
    Order: scheme, season, version, event id, type, data. Easy to recompute in any language.
    """
    return b"".join(
        (
            _field(SCHEME),
            _field(season_id.encode()),
            version.to_bytes(8, "big"),
            event_id.bytes,
            _field(type_.encode()),
            _field(data),
        )
    )


def event_hash(prev_hash: bytes, envelope: bytes) -> bytes:
    """sha256(prev_hash || envelope), the envelope from `envelope_bytes`."""
    return hashlib.sha256(prev_hash + envelope).digest()


def chain_hashes(
    prev_hash: bytes, season_id: str, expected_version: int, events: Sequence[NewEvent]
) -> list[tuple[bytes, bytes]]:
    """(prev_hash, hash) for each new event appended after `expected_version`."""
    links: list[tuple[bytes, bytes]] = []
    for offset, event in enumerate(events, start=1):
        envelope = envelope_bytes(
            season_id, expected_version + offset, event.event_id, event.type, event.data
        )
        digest = event_hash(prev_hash, envelope)
        links.append((prev_hash, digest))
        prev_hash = digest
    return links


def verify_chain(events: Iterable[RecordedEvent], *, anchor: bytes = GENESIS) -> bytes:
    """Check one season's events in version order; return the head hash, raise ChainError.

    The first event must link to `anchor`: GENESIS for a whole season (so a removed first
    event shows), or the trusted hash of the event before a slice. Compare the returned head
    with a trusted copy (e.g. the head published when the season ended) to catch a cut tail.
    """
    expected_prev, season, version = anchor, None, None
    for event in events:
        season = season or event.season_id
        if event.season_id != season:
            raise ChainError(event.season_id, event.version, f"not in season {season!r}")
        if version is not None and event.version != version + 1:
            raise ChainError(season, event.version, f"follows version {version}")
        if event.prev_hash != expected_prev:
            raise ChainError(season, event.version, "prev_hash does not match the previous hash")
        envelope = envelope_bytes(season, event.version, event.event_id, event.type, event.data)
        digest = event_hash(event.prev_hash, envelope)
        if event.hash != digest:
            raise ChainError(season, event.version, "hash does not match the event's content")
        expected_prev, version = digest, event.version
    return expected_prev


def request_hash(method: str, path: str, body: bytes) -> bytes:
    """Fingerprint of a command request for its Idempotency-Key (same key + other body = 422)."""
    return hashlib.sha256(_field(method.upper().encode()) + _field(path.encode()) + body).digest()
