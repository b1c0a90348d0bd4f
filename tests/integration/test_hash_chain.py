"""The per-season hash chain: its documented byte layout, and tampering it must reveal."""

from __future__ import annotations

import hashlib
import struct

import asyncpg
import msgspec
import pytest

from shared.eventstore import GENESIS, ChainError, PostgresEventStore, verify_chain
from shared.eventstore.hashing import envelope_bytes, envelope_v2, event_hash
from tests.integration.support import batch, event_id, new_event
from tests.integration.test_store_contract import (
    GOLDEN_HEAD_S1_TWO_EVENTS,
    GOLDEN_HEAD_S1_TWO_EVENTS_V2,
)


def _by_the_spec(prev: bytes, season: str, version: int, n: int, chain: int = 1) -> bytes:
    """docs/eventstore.md's layouts, written out independently of shared.eventstore.hashing."""
    event = new_event(n)

    def field(raw: bytes) -> bytes:
        return struct.pack(">I", len(raw)) + raw

    covered = event.data if chain == 1 else hashlib.sha256(event.data).digest()
    envelope = (
        field(f"seksenbir/event-chain/{chain}".encode())
        + field(season.encode())
        + struct.pack(">Q", version)
        + event_id(n).bytes
        + field(event.type.encode())
        + field(covered)
    )
    return hashlib.sha256(prev + envelope).digest()


@pytest.mark.parametrize(
    ("chain", "golden"), [(1, GOLDEN_HEAD_S1_TWO_EVENTS), (2, GOLDEN_HEAD_S1_TWO_EVENTS_V2)]
)
def test_the_golden_chain_head_follows_the_documented_layout(chain, golden):
    first = _by_the_spec(GENESIS, "s1", 1, 1, chain)
    assert _by_the_spec(first, "s1", 2, 2, chain).hex() == golden


def test_a_version_2_link_verifies_without_the_data_given_its_digest():
    """ADR-52: a redacted event keeps the digest of what was removed, and the chain holds."""
    events = [new_event(1), new_event(2)]
    prev = GENESIS
    for n in range(1, 3):
        prev = _by_the_spec(prev, "s1", n, n, 2)
    digest = hashlib.sha256(events[1].data).digest()
    again = event_hash(
        _by_the_spec(GENESIS, "s1", 1, 1, 2),
        envelope_v2("s1", 2, events[1].event_id, events[1].type, digest),
    )
    assert again == prev


def test_the_envelope_is_unambiguous():
    e = new_event(1)
    a = envelope_bytes("ab", 1, e.event_id, "c.v1", b"")
    b = envelope_bytes("a", 1, e.event_id, "bc.v1", b"")
    assert event_hash(GENESIS, a) != event_hash(GENESIS, b)


async def _chain(store) -> list:
    await store.append("s1", 0, batch(1, 2))
    await store.append("s1", 2, batch(3, 2))
    return await store.read_stream("s1")


async def test_an_untouched_chain_verifies(store):
    events = await _chain(store)
    assert verify_chain(events) == events[-1].hash
    assert verify_chain(events[2:], anchor=events[1].hash) == events[-1].hash
    assert verify_chain([]) == GENESIS


def _altered(es):
    return [es[0], msgspec.structs.replace(es[1], data=b"{}"), *es[2:]]


@pytest.mark.parametrize(
    ("tamper", "version", "reason"),
    [
        (_altered, 2, "hash does not match"),
        (lambda es: [es[0], *es[2:]], 3, "follows version 1"),
        (lambda es: [es[1], es[0], *es[2:]], 2, "prev_hash"),
        (lambda es: es[1:], 2, "prev_hash"),
    ],
    ids=["altered-data", "removed-event", "reordered", "removed-first"],
)
async def test_tampering_with_an_export_is_detected(store, tamper, version, reason):
    events = await _chain(store)
    with pytest.raises(ChainError) as caught:
        verify_chain(tamper(events))
    assert caught.value.version == version
    assert reason in caught.value.reason


@pytest.mark.integration
async def test_a_row_altered_in_the_database_is_detected(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    await _chain(event_store)
    await _as_superuser(pg_pool, "UPDATE events SET data = '{}' WHERE version = 2")
    with pytest.raises(ChainError) as caught:
        await event_store.verify_chain("s1")
    assert (caught.value.version, caught.value.reason) == (2, _HASH_MISMATCH)


@pytest.mark.integration
async def test_a_rehashed_row_breaks_the_next_link(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    events = await _chain(event_store)
    forged = event_hash(
        events[0].hash,
        envelope_v2("s1", 2, events[1].event_id, events[1].type, hashlib.sha256(b"{}").digest()),
    )
    await _as_superuser(
        pg_pool, "UPDATE events SET data = '{}', hash = $1 WHERE version = 2", forged
    )
    with pytest.raises(ChainError) as caught:
        await event_store.verify_chain("s1")
    assert caught.value.version == 3
    assert "prev_hash" in caught.value.reason


@pytest.mark.integration
async def test_a_deleted_tail_is_detected_against_the_stream_head(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    await _chain(event_store)
    await _as_superuser(pg_pool, "DELETE FROM events WHERE version = 4")
    with pytest.raises(ChainError, match="stream head"):
        await event_store.verify_chain("s1")


@pytest.mark.integration
async def test_the_events_table_refuses_updates_and_deletes(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    await _chain(event_store)
    for sql in ("UPDATE events SET data = '{}'", "DELETE FROM events"):
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await pg_pool.execute(sql)
    assert len(await event_store.read_stream("s1")) == 4


_HASH_MISMATCH = "hash does not match the event's content"


async def _as_superuser(pool: asyncpg.Pool, sql: str, *args: object) -> None:
    """What an attacker with database rights does: switch the guard off, edit, switch it on."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        await conn.execute(sql, *args)
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")
