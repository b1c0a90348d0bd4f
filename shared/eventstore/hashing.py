"""The per-season hash chain: hash = sha256(prev_hash || canonical envelope bytes).

Two chain versions (docs/eventstore.md "Hash chain", ADR-52), chosen per season and recorded in
`streams.chain` (migration 0007) and in an export's header:

- 1, `seksenbir/event-chain/1`: the envelope holds the event's data itself. Seasons stored
  before migration 0007 keep it for all their events.
- 2, `seksenbir/event-chain/2`: the envelope holds sha256(data) instead, so an event whose data
  is left out of an export (a redacted auditor export, R-14) still links: the line keeps the
  digest of what was removed. Every season started after migration 0007 uses it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from uuid import UUID

from shared.eventstore.errors import ChainError
from shared.eventstore.model import NewEvent, RecordedEvent

GENESIS = bytes(32)  # the prev_hash of a season's first event
SCHEME = b"seksenbir/event-chain/1"
SCHEME_V2 = b"seksenbir/event-chain/2"
SCHEMES = {1: SCHEME, 2: SCHEME_V2}
CHAIN_VERSION = 2  # what a new season is chained with
CHAIN_VERSIONS = tuple(SCHEMES)


def _field(value: bytes) -> bytes:
    return len(value).to_bytes(4, "big") + value


# What every envelope of a chain version starts with (its scheme, length-prefixed).
_SCHEME_FIELDS = {chain: _field(scheme) for chain, scheme in SCHEMES.items()}
_DIGEST_FIELD = len(bytes(32)).to_bytes(4, "big")  # a data digest's length prefix


def _layout(head: bytes, version: int, event_id: UUID, type_: str, covered: bytes) -> bytes:
    """An envelope after its scheme and season fields (`head`): the version, the event id, the
    type, and what the chain covers of the data (`covered`, already length-prefixed). The one
    place the layout is written: `envelope_bytes`, `envelope_v2` and `chain_hashes` use it."""
    kind = type_.encode()
    return b"".join(
        (
            head,
            version.to_bytes(8, "big"),
            event_id.bytes,
            len(kind).to_bytes(4, "big"),
            kind,
            covered,
        )
    )


def data_digest(data: bytes) -> bytes:
    """sha256 of an event's data: what chain version 2 covers in place of the data."""
    return hashlib.sha256(data).digest()


def envelope_bytes(season_id: str, version: int, event_id: UUID, type_: str, data: bytes) -> bytes:
    """Canonical, unambiguous bytes of what chain version 1 protects.

    Layout: each of SCHEME, season id (UTF-8), type (UTF-8) and data is prefixed by its length
    as a 4-byte big-endian integer; the version is 8 bytes big-endian, the event id its 16 bytes.
    Order: scheme, season, version, event id, type, data. Easy to recompute in any language.
    """
    return _layout(
        _SCHEME_FIELDS[1] + _field(season_id.encode()), version, event_id, type_, _field(data)
    )


def envelope_v2(season_id: str, version: int, event_id: UUID, type_: str, digest: bytes) -> bytes:
    """Chain version 2's envelope: version 1's layout with SCHEME_V2 and, in place of the data,
    its 32-byte sha256 (length-prefixed like every variable field)."""
    if len(digest) != 32:
        raise ValueError("a data digest is 32 bytes")
    head = _SCHEME_FIELDS[2] + _field(season_id.encode())
    return _layout(head, version, event_id, type_, _field(digest))


def envelope(
    chain: int,
    season_id: str,
    version: int,
    event_id: UUID,
    type_: str,
    *,
    data: bytes | None = None,
    digest: bytes | None = None,
) -> bytes:
    """The envelope of chain version `chain`; version 2 takes the data or, for an event whose
    data was left out, its digest. ValueError for a version 1 event without its data."""
    if chain == 1:
        if data is None:
            raise ValueError("chain version 1 covers the data itself: it cannot be left out")
        return envelope_bytes(season_id, version, event_id, type_, data)
    if chain == 2:
        if data is not None:
            digest = data_digest(data)
        if digest is None:
            raise ValueError("an event needs its data or its data digest")
        return envelope_v2(season_id, version, event_id, type_, digest)
    raise ValueError(f"unknown chain version {chain}")


def event_hash(prev_hash: bytes, envelope: bytes) -> bytes:
    """sha256(prev_hash || envelope), the envelope from `envelope_bytes` / `envelope_v2`."""
    return hashlib.sha256(prev_hash + envelope).digest()


def chain_hashes(
    prev_hash: bytes,
    season_id: str,
    expected_version: int,
    events: Sequence[NewEvent],
    chain: int = CHAIN_VERSION,
) -> list[tuple[bytes, bytes]]:
    """(prev_hash, hash) for each new event appended after `expected_version`: for each event
    `event_hash(prev_hash, envelope(chain, …, data=event.data))`, with the scheme and season
    fields made once an append (every command's append, issue 27).
    tests/eventstore/test_chain_hashes.py holds it equal to `envelope` and `event_hash`."""
    scheme = _SCHEME_FIELDS.get(chain)
    if scheme is None:
        raise ValueError(f"unknown chain version {chain}")
    head = scheme + _field(season_id.encode())
    sha256 = hashlib.sha256
    links: list[tuple[bytes, bytes]] = []
    for offset, event in enumerate(events, start=expected_version + 1):
        covered = _DIGEST_FIELD + sha256(event.data).digest() if chain == 2 else _field(event.data)
        env = _layout(head, offset, event.event_id, event.type, covered)
        digest = sha256(prev_hash + env).digest()
        links.append((prev_hash, digest))
        prev_hash = digest
    return links


def infer_chain(first: RecordedEvent) -> int:
    """The chain version a season's first event was hashed with (the two schemes' envelopes
    start with different scheme strings, so a hash matches under one of them only); the
    current version when it matches neither (the check then names that event)."""
    for chain in CHAIN_VERSIONS:
        env = envelope(
            chain, first.season_id, first.version, first.event_id, first.type, data=first.data
        )
        if event_hash(first.prev_hash, env) == first.hash:
            return chain
    return CHAIN_VERSION


def verify_chain(
    events: Iterable[RecordedEvent],
    *,
    anchor: bytes = GENESIS,
    chain: int | None = None,
    digests: Sequence[bytes | None] | None = None,
) -> bytes:
    """Check one season's events in version order; return the head hash, raise ChainError.

    The first event must link to `anchor`: GENESIS for a whole season (so a removed first
    event shows), or the trusted hash of the event before a slice. Compare the returned head
    with a trusted copy (e.g. the head published when the season ended) to catch a cut tail.
    `chain` is the season's chain version (streams.chain, an export's header); None infers it
    from the first event. With `digests` (chain 2 only), an entry that is not None is the data
    digest of an event whose data was left out (its `data` is then ignored).
    """
    expected_prev, season, version = anchor, None, None
    for i, event in enumerate(events):
        season = season or event.season_id
        if chain is None:
            chain = infer_chain(event)
        if event.season_id != season:
            raise ChainError(event.season_id, event.version, f"not in season {season!r}")
        if version is not None and event.version != version + 1:
            raise ChainError(season, event.version, f"follows version {version}")
        if event.prev_hash != expected_prev:
            raise ChainError(season, event.version, "prev_hash does not match the previous hash")
        removed = digests[i] if digests is not None else None
        env = envelope(
            chain,
            season,
            event.version,
            event.event_id,
            event.type,
            data=None if removed is not None else event.data,
            digest=removed,
        )
        digest = event_hash(event.prev_hash, env)
        if event.hash != digest:
            raise ChainError(season, event.version, "hash does not match the event's content")
        expected_prev, version = digest, event.version
    return expected_prev


def request_hash(method: str, path: str, body: bytes) -> bytes:
    """Fingerprint of a command request for its Idempotency-Key (same key + other body = 422)."""
    return hashlib.sha256(_field(method.upper().encode()) + _field(path.encode()) + body).digest()
