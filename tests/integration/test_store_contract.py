"""The event-store contract, run against the in-memory and the PostgreSQL store alike."""

from __future__ import annotations

from collections.abc import Awaitable
from datetime import UTC

import pytest

from shared.eventstore import (
    GENESIS,
    ConcurrencyError,
    DuplicateEventError,
    EventStore,
    IdempotencyKeyTaken,
    IdempotencyRecord,
    Mismatch,
    RecordedEvent,
    Replay,
    verify_chain,
)
from tests.integration.support import META, batch, event_id, new_event, settles_to


async def places_of(read: Awaitable[list[RecordedEvent]]) -> list[tuple[str, int, int]]:
    return [(e.season_id, e.version, e.position) for e in await read]


async def positions_of(read: Awaitable[list[RecordedEvent]]) -> list[int]:
    return [e.position for e in await read]


async def test_first_append_numbers_versions_and_positions_from_one(store: EventStore, clock):
    recorded = await store.append("s1", 0, batch(1, 3))
    assert [e.version for e in recorded] == [1, 2, 3]
    assert [e.position for e in recorded] == [1, 2, 3]
    assert [e.event_id for e in recorded] == [event_id(1), event_id(2), event_id(3)]
    assert recorded[0].metadata == META
    assert recorded[0].recorded_at == clock.now.astimezone(UTC)
    assert await store.stream_version("s1") == 3
    await settles_to(store.head_position, 3)


async def test_reads_return_what_append_returned(store: EventStore):
    recorded = await store.append("s1", 0, batch(1, 3))
    assert await store.read_stream("s1") == recorded
    await settles_to(lambda: store.read_all(0), recorded)


async def test_append_at_a_stale_or_future_version_is_a_concurrency_error(store: EventStore):
    await store.append("s1", 0, batch(1, 2))
    for expected in (0, 1, 3):
        with pytest.raises(ConcurrencyError) as caught:
            await store.append("s1", expected, [new_event(9)])
        assert caught.value.expected == expected
    with pytest.raises(ConcurrencyError):
        await store.append("fresh", 1, [new_event(10)])
    assert await store.stream_version("s1") == 2
    await settles_to(store.head_position, 2)


async def test_versions_are_per_season_and_positions_global(store: EventStore):
    await store.append("a", 0, batch(1, 2))
    await store.append("b", 0, batch(3, 1))
    await store.append("a", 2, batch(4, 1))
    places = [("a", 1, 1), ("a", 2, 2), ("b", 1, 3), ("a", 3, 4)]
    await settles_to(lambda: places_of(store.read_all(0)), places)
    assert await store.list_seasons() == ["a", "b"]
    assert await store.stream_version("nobody") == 0
    assert await store.read_stream("nobody") == []


async def test_read_stream_from_version_returns_only_later_events(store: EventStore):
    await store.append("s1", 0, batch(1, 5))
    assert [e.version for e in await store.read_stream("s1", from_version=3)] == [4, 5]
    assert await store.read_stream("s1", from_version=5) == []


async def test_adr_142_read_data_is_read_stream_s_version_type_data_and_hash(store: EventStore):
    """What a fold reads (Seasons.since, the projector: ADR-141) is the stream's own events,
    field for field, their positions included."""
    await store.append("s1", 0, batch(1, 3))
    await store.append("s1", 3, batch(4, 2))
    for after in range(6):
        whole = await store.read_stream("s1", from_version=after)
        lean = await store.read_data("s1", from_version=after)
        assert [(e.version, e.type, e.data, e.hash, e.position) for e in lean] == [
            (e.version, e.type, e.data, e.hash, e.position) for e in whole
        ]
    assert list(await store.read_data("nobody")) == []


async def test_read_all_pages_by_position(store: EventStore):
    await store.append("s1", 0, batch(1, 5))
    await settles_to(lambda: positions_of(store.read_all(1, limit=2)), [2, 3])
    await settles_to(lambda: positions_of(store.read_all(3, limit=10)), [4, 5])
    assert await store.read_all(5) == []
    with pytest.raises(ValueError):
        await store.read_all(0, limit=0)


async def test_read_all_continues_only_from_an_events_position(store: EventStore):
    """A reader passes the position of the last event it got (or 0); anything else is a bug,
    not a place to continue from (positions may have holes)."""
    assert await store.read_all(0) == []
    assert await store.head_position() == 0
    await store.append("s1", 0, batch(1, 2))
    await settles_to(store.head_position, 2)
    assert await store.read_all(2) == []
    for wrong in (-1, 102):
        with pytest.raises(ValueError, match="not the position"):
            await store.read_all(wrong)


async def test_adr_147_changed_streams_names_the_seasons_appended_to_since_a_position(
    store: EventStore,
):
    """The projection sweep's read: the seasons with an event after a position (and those
    asked for), each with its version, and where to continue; a position that is no event's
    is refused, as read_all refuses it."""
    assert await store.changed_streams(0) == (0, {})
    await store.append("s1", 0, batch(1, 2))
    await store.append("s2", 0, batch(3, 1))
    await settles_to(lambda: store.changed_streams(0), (3, {"s1": 2, "s2": 1}))
    await settles_to(lambda: store.changed_streams(0, limit=2), (2, {"s1": 2}))  # paged, in order
    await settles_to(lambda: store.changed_streams(2, limit=2), (3, {"s2": 1}))
    assert await store.changed_streams(3) == (3, {})
    await store.append("s2", 1, batch(4, 2))
    await settles_to(lambda: store.changed_streams(3), (5, {"s2": 3}))
    await settles_to(lambda: store.changed_streams(3, ["s1", "unknown"]), (5, {"s1": 2, "s2": 3}))
    assert await store.changed_streams(5, ["s1"]) == (5, {"s1": 2})
    for wrong in (-1, 100):
        with pytest.raises(ValueError, match="not the position"):
            await store.changed_streams(wrong)


async def test_reappending_recorded_events_is_an_idempotent_hit(store: EventStore):
    first = await store.append("s1", 0, batch(1, 2))
    assert await store.append("s1", 2, batch(1, 2)) == first  # at the next version
    assert await store.append("s1", 0, batch(1, 2)) == first  # at the old version (a retry)
    assert await store.stream_version("s1") == 2
    await settles_to(store.head_position, 2)


async def test_a_recorded_event_id_with_another_payload_is_a_conflict(store: EventStore):
    await store.append("s1", 0, [new_event(1)])
    with pytest.raises(DuplicateEventError) as caught:
        await store.append("s1", 1, [new_event(1, data={"other": True})])
    assert caught.value.event_ids == [event_id(1)]
    with pytest.raises(DuplicateEventError):
        await store.append("s1", 1, [new_event(1, type_="thing_changed.v1")])
    assert await store.stream_version("s1") == 1


async def test_a_recorded_event_id_in_another_season_is_a_conflict(store: EventStore):
    await store.append("s1", 0, [new_event(1)])
    with pytest.raises(DuplicateEventError):
        await store.append("s2", 0, [new_event(1)])
    assert await store.list_seasons() == ["s1"]


async def test_a_batch_with_one_recorded_id_appends_nothing(store: EventStore):
    await store.append("s1", 0, [new_event(1)])
    with pytest.raises(DuplicateEventError):
        await store.append("s1", 1, [new_event(2), new_event(1)])
    assert await store.stream_version("s1") == 1
    await settles_to(store.head_position, 1)


@pytest.mark.parametrize(
    "events",
    [[], [new_event(1), new_event(1)], [new_event(1, type_="NoVersion")]],
    ids=["empty", "repeated-id", "unversioned-type"],
)
async def test_malformed_appends_are_refused(store: EventStore, events):
    with pytest.raises(ValueError):
        await store.append("s1", 0, events)


async def test_each_append_continues_the_seasons_hash_chain(store: EventStore):
    first = await store.append("s1", 0, batch(1, 2))
    await store.append("other", 0, batch(10, 1))
    second = await store.append("s1", 2, batch(3, 2))
    assert first[0].prev_hash == GENESIS
    assert second[0].prev_hash == first[-1].hash
    stream = await store.read_stream("s1")
    assert verify_chain(stream) == second[-1].hash
    assert await store.verify_chain("s1") == second[-1].hash


SCOPE = "season:s1:seat:3"


async def test_recording_a_new_key_with_the_append_in_one_step(store: EventStore):
    """The one-step protocol: no begin; the key is done with its answer in the append's commit."""
    record = IdempotencyRecord(SCOPE, "k1", b"req", 200, b'{"ok":true}')
    recorded = await store.append("s1", 0, [new_event(1)], idempotency=record)
    assert [e.version for e in recorded] == [1]
    assert await store.idempotency.look(SCOPE, "k1", b"req") == Replay(200, b'{"ok":true}')
    assert await store.idempotency.look(SCOPE, "k1", b"other") == Mismatch()
    assert await store.idempotency.look(SCOPE, "k2", b"req") is None


@pytest.mark.parametrize(
    ("request_hash", "found"),
    [(b"req", Replay(200, b"{}")), (b"changed", Mismatch())],
    ids=["done-req", "done-changed"],
)
async def test_a_recorded_append_whose_key_is_taken_appends_nothing(
    store: EventStore, request_hash: bytes, found: object
):
    await store.append(
        "s1", 0, [new_event(1)], idempotency=IdempotencyRecord(SCOPE, "k1", b"req", 200, b"{}")
    )
    copy = IdempotencyRecord(SCOPE, "k1", request_hash, 201, b'{"second":true}')
    with pytest.raises(IdempotencyKeyTaken) as taken:
        await store.append("s1", 1, [new_event(2)], idempotency=copy)
    assert taken.value.found == found
    assert await store.stream_version("s1") == 1
    await settles_to(store.head_position, 1)


async def test_a_recorded_append_that_loses_the_version_race_records_no_key(store: EventStore):
    await store.append("s1", 0, [new_event(1)])  # another writer got there first
    record = IdempotencyRecord(SCOPE, "k1", b"req", 200, b"{}")
    with pytest.raises(ConcurrencyError):
        await store.append("s1", 0, [new_event(2)], idempotency=record)
    assert await store.idempotency.look(SCOPE, "k1", b"req") is None
    await store.append("s1", 1, [new_event(2)], idempotency=record)  # the retry records it
    assert await store.idempotency.look(SCOPE, "k1", b"req") == Replay(200, b"{}")


async def test_recording_a_refusal_under_a_free_key_and_finding_a_taken_one(store: EventStore):
    keys = store.idempotency
    assert await keys.record(SCOPE, "k1", b"req", 422, b"problem") is None
    assert await keys.record(SCOPE, "k1", b"req", 200, b"other") == Replay(422, b"problem")
    assert await keys.record(SCOPE, "k1", b"changed", 200, b"other") == Mismatch()


async def test_both_stores_write_the_pinned_chain(store: EventStore):
    """A new season is chained with version 2 (ADR-52)."""
    recorded = await store.append("s1", 0, batch(1, 2))
    assert recorded[-1].hash.hex() == GOLDEN_HEAD_S1_TWO_EVENTS_V2
    assert await store.chain_version("s1") == 2
    assert await store.verify_chain("s1") == recorded[-1].hash


async def test_both_stores_keep_a_version_1_chain_going(store: EventStore):
    """A season chained with version 1 (stored before migration 0007, or imported from such an
    export) keeps version 1 for every later append, and verifies (ADR-52)."""
    first = await store.append("s1", 0, batch(1, 2), chain=1)
    assert first[-1].hash.hex() == GOLDEN_HEAD_S1_TWO_EVENTS
    later = await store.append("s1", 2, batch(3, 2))
    assert await store.chain_version("s1") == 1
    assert await store.verify_chain("s1") == later[-1].hash
    assert verify_chain(await store.read_stream("s1")) == later[-1].hash  # inferred: 1


async def test_a_chain_version_is_chosen_only_by_a_first_append(store: EventStore):
    await store.append("s1", 0, batch(1, 1))
    with pytest.raises(ValueError, match="chain version"):
        await store.append("s1", 1, batch(2, 1), chain=1)
    with pytest.raises(ValueError, match="chain version"):
        await store.append("s2", 0, batch(3, 1), chain=3)


# The chain head of season "s1" holding support.batch(1, 2) (test_hash_chain.py derives it from
# the documented byte layout). Pinned, so both stores agree and exported seasons stay checkable.
GOLDEN_HEAD_S1_TWO_EVENTS = "060a69fdc309bd4e9c92558484b412924d919f4ac67767d3a1a0d5a6bc3af831"
# The same under chain version 2 (sha256 of the data in place of the data), a new season's.
GOLDEN_HEAD_S1_TWO_EVENTS_V2 = "3dee8a832e83d61aca03b92f08274e31bc9663987969c8387dae3af0487de3cb"
