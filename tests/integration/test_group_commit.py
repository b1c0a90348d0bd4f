"""Group commit: appends waiting together go out in one statement, each with its own outcome.

docs/eventstore.md ("Group commit"). Every append in a group is claimed, written and answered
as if it had been alone: a stale one gets ConcurrencyError, a taken key IdempotencyKeyTaken,
the others commit. These tests form groups on purpose (one statement in flight, appends
submitted in the same loop turn) and check the outcome of each append and what is stored.
"""

from __future__ import annotations

import asyncio
import itertools
import random  # noqa: TID251 - a seeded schedule of I/O, not domain randomness
import sys
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import asyncpg
import msgspec
import pytest

from shared.eventstore import (
    ConcurrencyError,
    DuplicateEventError,
    EventMetadata,
    IdempotencyRecord,
    NewEvent,
    PostgresEventStore,
    RecordedEvent,
    Replay,
    StoreBusyError,
    append,
)
from tests.clock import StepClock
from tests.conftest import empty_store
from tests.integration.support import batch, event_id, new_event, wait_until

pytestmark = pytest.mark.integration
LEAD = 7777  # the event-id space of lead appends


def grouped(pool: asyncpg.Pool, clock: StepClock) -> PostgresEventStore:
    """One statement in flight at a time: whatever waits meanwhile forms the next group."""
    return PostgresEventStore(pool, clock=clock, group_commit=1, notify_window=None)


_LEADS = itertools.count(1)


def lead(store: PostgresEventStore) -> asyncio.Future[list[RecordedEvent]]:
    """An append to a season of its own, started now: with the store's one slot free and
    nothing waiting, it goes alone and holds the slot, so the appends submitted after it in
    the same loop turn wait together and form the next group."""
    n = next(_LEADS)
    return asyncio.ensure_future(store.append(f"lead-{n}", 0, [new_event(n, space=LEAD)]))


async def outcomes(
    store: PostgresEventStore, *appends: Awaitable[list[RecordedEvent]]
) -> list[Any]:
    """Each append's result or exception, the appends written as one group behind a lead."""
    got = await asyncio.gather(lead(store), *appends, return_exceptions=True)
    assert isinstance(got[0], list), got[0]
    return list(got[1:])


async def all_events(store: PostgresEventStore) -> list[RecordedEvent]:
    events: list[RecordedEvent] = []
    position = 0
    while page := await store.read_all(position, 1000):
        events += page
        position = page[-1].position
        if len(page) < 1000:
            break
    return events


async def test_appends_to_many_seasons_share_statements_and_all_commit(pg_pool, clock):
    store = grouped(pg_pool, clock)
    seasons = [f"g{n}" for n in range(12)]
    first = await outcomes(
        store, *(store.append(s, 0, batch(1, 2, space=i)) for i, s in enumerate(seasons))
    )
    second = await outcomes(
        store, *(store.append(s, 2, batch(3, 3, space=i)) for i, s in enumerate(seasons))
    )
    assert store.group_stats() == (4, 26, 0)  # each lead alone, then 12 appends in one statement
    for i, season in enumerate(seasons):
        assert [e.version for e in first[i]] == [1, 2]
        assert [e.version for e in second[i]] == [3, 4, 5]
        stored = await store.read_stream(season)
        assert stored == first[i] + second[i]  # what the caller was told is what is stored
        await store.verify_chain(season)
    events = [e for e in await all_events(store) if not e.season_id.startswith("lead-")]
    assert len(events) == 12 * 5
    assert len({e.position for e in events}) == len(events)
    for season in seasons:  # positions follow versions within a season
        mine = [e for e in events if e.season_id == season]
        assert [e.version for e in sorted(mine, key=lambda e: e.position)] == [1, 2, 3, 4, 5]


async def test_each_append_in_a_group_gets_its_own_outcome(pg_pool, clock):
    store = grouped(pg_pool, clock)
    other = PostgresEventStore(pg_pool, clock=clock, group_commit=0)  # another process
    for space, season in enumerate(("fresh", "stale", "keyed"), start=10):
        await store.append(season, 0, [new_event(1, space=space)])
    await other.append("stale", 1, [new_event(2, space=99)])  # `store` still thinks 1
    await other.append("raced", 0, [new_event(1, space=98)])  # a first append got there first
    taken = IdempotencyRecord("scope", "k", b"req", 200, b'{"first":true}')
    await store.idempotency.record("scope", "k", b"req", 200, b'{"first":true}')
    before = store.group_stats()

    got = await outcomes(
        store,
        store.append("fresh", 1, [new_event(2, space=1)]),
        store.append("stale", 1, [new_event(3, space=1)]),
        store.append("keyed", 1, [new_event(2, space=2)], idempotency=taken),
        store.append("raced", 0, [new_event(1, space=3)]),
        store.append("new", 0, batch(1, 2, space=4)),
        store.append("new-keyed", 0, [new_event(1, space=5)], idempotency=_record("k2")),
    )

    assert [type(g).__name__ for g in got] == [
        "list",
        "ConcurrencyError",
        "IdempotencyKeyTaken",
        "ConcurrencyError",
        "list",
        "list",
    ]
    assert got[2].found == Replay(200, b'{"first":true}')
    after = store.group_stats()
    assert (after.statements - before.statements, after.splits) == (2, 0)  # lead, then all six
    assert [await store.stream_version(s) for s in ("fresh", "stale", "keyed", "raced")] == [
        2,
        2,
        1,
        1,
    ]
    assert [e.version for e in await store.read_stream("new")] == [1, 2]
    assert await store.idempotency.look("scope", "k2", b"req") == Replay(200, b"{}")
    stale = await store.read_stream("stale")
    assert stale[-1].event_id == new_event(2, space=99).event_id  # the other writer's, kept
    for season in ("fresh", "stale", "keyed", "raced", "new", "new-keyed"):
        await store.verify_chain(season)


def _record(key: str) -> IdempotencyRecord:
    return IdempotencyRecord("scope", key, b"req", 200, b"{}")


async def test_a_group_an_error_refuses_is_written_one_by_one(pg_pool, clock):
    """An event id recorded elsewhere aborts the group's statement: each is then alone."""
    store = grouped(pg_pool, clock)
    recorded = await store.append("a", 0, [new_event(1, space=1)])
    await store.append("b", 0, [new_event(1, space=2)])
    got = await outcomes(
        store,
        store.append("b", 1, [new_event(2, space=2)]),
        store.append("c", 0, [new_event(1, space=1)]),  # a's event, in another season
        store.append("a", 1, [new_event(2, space=1)]),
        store.append("a-again", 0, [new_event(1, space=1)]),  # runs with the next group
    )
    assert store.group_stats().splits == 1
    assert [e.version for e in got[0]] == [2]
    assert isinstance(got[1], DuplicateEventError)
    assert [e.version for e in got[2]] == [2]
    assert isinstance(got[3], DuplicateEventError)
    assert await store.stream_version("c") == 0
    assert (await store.read_stream("a"))[0] == recorded[0]


async def test_reappending_recorded_events_in_a_group_is_an_idempotent_hit(pg_pool, clock):
    store = grouped(pg_pool, clock)
    first = await outcomes(
        store,
        store.append("a", 0, batch(1, 2, space=1)),
        store.append("b", 0, batch(1, 1, space=2)),
    )
    again = await outcomes(
        store,
        store.append("a", 0, batch(1, 2, space=1)),
        store.append("b", 1, batch(2, 1, space=2)),
    )
    assert again[0] == first[0]  # the first recording, nothing written twice
    assert store.group_stats().splits == 0  # "a" claimed nothing; the store then found the hit
    assert [e.version for e in again[1]] == [2]
    assert await store.stream_version("a") == 2


async def test_two_appends_to_one_season_never_share_a_statement(pg_pool, clock):
    store = grouped(pg_pool, clock)
    await store.append("s", 0, [new_event(1)])
    before = store.group_stats()
    got = await outcomes(
        store,
        store.append("s", 1, [new_event(2, space=1)]),
        store.append("s", 1, [new_event(2, space=2)]),
        store.append("t", 0, [new_event(1, space=3)]),
    )
    assert sorted(type(g).__name__ for g in got[:2]) == ["ConcurrencyError", "list"]
    after = store.group_stats()
    assert after.statements - before.statements == 3  # lead; "s" and "t"; the other "s"
    assert after.splits == 0
    assert await store.stream_version("s") == 2


async def test_an_append_given_up_before_its_group_is_sent_is_not_written(pg_pool, clock):
    store = grouped(pg_pool, clock)
    lock = await pg_pool.acquire()
    try:  # hold "held" so that the first group waits on it, and the next appends queue
        await store.append("held", 0, [new_event(1)])
        tx = lock.transaction()
        await tx.start()
        await lock.execute("SELECT 1 FROM streams WHERE season_id = 'held' FOR UPDATE")
        blocked = asyncio.ensure_future(store.append("held", 1, [new_event(2)]))
        await wait_until(lambda: _waiting_on_lock(pg_pool))
        kept = asyncio.ensure_future(store.append("kept", 0, [new_event(1, space=1)]))
        dropped = asyncio.ensure_future(store.append("dropped", 0, [new_event(1, space=2)]))
        await asyncio.sleep(0.05)
        dropped.cancel()
        await tx.rollback()
    finally:
        await pg_pool.release(lock)
    assert [e.version for e in await blocked] == [2]
    assert [e.version for e in await kept] == [1]
    with pytest.raises(asyncio.CancelledError):
        await dropped
    assert await store.stream_version("dropped") == 0


async def _waiting_on_lock(pool: asyncpg.Pool) -> bool:
    return bool(
        await pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
    )


@pytest.mark.fault
async def test_a_season_another_transaction_holds_never_holds_up_the_rest_of_its_group(
    pg_pool, clock
):
    """A lock on one season's stream row (another writer, or a zombie transaction; RELIABILITY
    6) delays only that season's append: the rest of its group commits at once."""
    store = grouped(pg_pool, clock)
    for space, season in enumerate("abc", start=1):
        await store.append(season, 0, [new_event(1, space=space)])
    lock = await pg_pool.acquire()
    try:
        tx = lock.transaction()
        await tx.start()
        await lock.execute("SELECT 1 FROM streams WHERE season_id = 'b' FOR UPDATE")
        first = lead(store)
        group = {
            s: asyncio.ensure_future(store.append(s, 1, [new_event(2, space=space)]))
            for space, s in enumerate("abc", start=1)
        }
        done, _ = await asyncio.wait([group["a"], group["c"]], timeout=5)
        assert len(done) == 2  # committed while "b" is still held
        assert not group["b"].done()
        await wait_until(lambda: _waiting_on_lock(pg_pool))  # "b" waits alone, as if lone
        await first
        await tx.rollback()
    finally:
        await pg_pool.release(lock)
    assert [[e.version for e in await group[s]] for s in "abc"] == [[2], [2], [2]]
    assert store.group_stats().splits == 0


@pytest.mark.fault
async def test_a_group_whose_connection_dies_tells_every_append_and_writes_nothing(pg_pool, clock):
    """RELIABILITY 22 for groups: every waiting caller hears StoreBusyError (HTTP 503), none is
    left hanging, nothing is half written, and a retry then succeeds."""
    store = grouped(pg_pool, clock)
    for space, season in enumerate("abc", start=1):
        await store.append(season, 0, [new_event(1, space=space)])
    lock = await pg_pool.acquire()
    try:  # a copy of the key in flight elsewhere: the group's key insert waits for it
        tx = lock.transaction()
        await tx.start()
        await lock.execute(
            "INSERT INTO idempotency_keys (scope, key, request_hash, status, created_at)"
            " VALUES ('scope', 'k', '\\x00', 'in_progress', now())"
        )
        first = lead(store)
        group = [
            asyncio.ensure_future(
                store.append(s, 1, [new_event(2, space=space)], idempotency=_record(key))
            )
            for space, (s, key) in enumerate(zip("abc", "akc", strict=True), start=1)
        ]
        await wait_until(lambda: _waiting_on_lock(pg_pool))
        await lock.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        got = list(await asyncio.gather(*group, return_exceptions=True))
        await first
        await tx.rollback()
    finally:
        await pg_pool.release(lock)
    assert all(isinstance(g, StoreBusyError) for g in got), got
    assert [await store.stream_version(s) for s in "abc"] == [1, 1, 1]
    assert await store.idempotency.look("scope", "a", b"req") is None
    retried = await outcomes(
        store, *(store.append(s, 1, [new_event(2, space=n)]) for n, s in enumerate("abc", start=1))
    )
    assert [[e.version for e in r] for r in retried] == [[2], [2], [2]]


@pytest.mark.parametrize("seed", range(4))
async def test_writers_in_two_processes_racing_on_shared_seasons_lose_and_dup_nothing(
    pg_pool, clock, seed
):
    """Random schedules: two stores (two processes' worth of caches and groups), eight
    writers each, five seasons, every command retried on conflict. Every command's events
    end up stored once, versions are gap-free, and every season's chain verifies."""
    rng = random.Random(seed)
    stores = [grouped(pg_pool, clock), PostgresEventStore(pg_pool, clock=clock, group_commit=2)]
    seasons = [f"r{n}" for n in range(5)]
    commands: list[tuple[str, list[NewEvent]]] = []
    n = 0
    for writer in range(16):
        for _ in range(6):
            size = rng.randint(1, 3)
            commands.append((rng.choice(seasons), batch(n + 1, size, space=writer)))
            n += size

    async def write(store: PostgresEventStore, todo: list[tuple[str, list[NewEvent]]]) -> None:
        for season, events in todo:
            while True:
                version = await store.stream_version(season)
                try:
                    await store.append(season, version, events)
                    break
                except ConcurrencyError:
                    await asyncio.sleep(rng.random() / 500)
            if rng.random() < 0.3:
                await asyncio.sleep(0)

    await asyncio.gather(*(write(stores[w % 2], commands[w * 6 : (w + 1) * 6]) for w in range(16)))
    stored = await all_events(stores[0])
    assert sorted(e.event_id for e in stored) == sorted(
        e.event_id for _, events in commands for e in events
    )
    for season in seasons:
        versions = [e.version for e in await stores[1].read_stream(season)]
        assert versions == list(range(1, len(versions) + 1))
        await stores[1].verify_chain(season)
    assert stores[0].group_stats().appends >= 48


# ADR-163: the group statement takes its items and events as two JSON parameters. What it
# stores must be what the one-append statements store for the same appends, byte for byte.
_AT = datetime(2026, 12, 7, 18, 3, 4, 5, tzinfo=timezone(timedelta(hours=3)))
_ODD_META = EventMetadata(
    actor="seat",
    seat="7",
    command_id='q"uote\\back\nline\t\u00e7\u011f\u0131\u015f \U0001f600',
    correlation_id="\u0001\u001f</script>",
    at="2026-12-07T18:03:04.000005+03:00",
)


def _odd_appends() -> list[list[tuple[str, int, list[NewEvent], IdempotencyRecord | None]]]:
    """Two rounds of appends with awkward values: bytes that are not UTF-8 or JSON, NUL,
    empty bodies, quotes and non-ASCII in every text, keyed and not, one and several events."""
    odd = NewEvent(event_id=event_id(9, 3), type="odd_thing.v2", data=b"", metadata=_ODD_META)
    raw = NewEvent(
        event_id=event_id(8, 3),
        type="raw_bytes.v1",
        data=bytes(range(256)),
        metadata=EventMetadata(actor="system"),
    )
    key = IdempotencyRecord("orders:\u015fehir", 'k\u00fc"\\ 1', bytes(range(32)), 202, b"\x00\xff")
    empty = IdempotencyRecord("scope", "empty", b"", 200, b"")
    return [
        [
            ("a", 0, [*batch(1, 2, space=1), odd], key),
            ("b", 0, [raw], None),
            ("c", 0, [new_event(1, space=2, data={"\u00e7": [1.5, None, "\u0000"]})], empty),
        ],
        [
            ("a", 3, batch(4, 3, space=1), None),
            ("b", 1, [new_event(2, space=4)], _record("\u011f")),
        ],
    ]


_ROWS = (
    "SELECT season_id, version, event_id::text, type, encode(data, 'hex'), metadata::text,"
    " recorded_at::text, encode(prev_hash, 'hex'), encode(hash, 'hex') FROM events"
    " WHERE season_id NOT LIKE 'lead-%' ORDER BY season_id, version",
    "SELECT season_id, version, encode(last_hash, 'hex'), chain FROM streams"
    " WHERE season_id NOT LIKE 'lead-%' ORDER BY season_id",
    "SELECT scope, key, encode(request_hash, 'hex'), status, response_status,"
    " encode(response_body, 'hex'), created_at::text, completed_at::text"
    " FROM idempotency_keys ORDER BY scope, key",
)


async def _stored(pool: asyncpg.Pool) -> list[list[tuple[Any, ...]]]:
    async with pool.acquire() as conn:
        return [[tuple(r) for r in await conn.fetch(q)] for q in _ROWS]


async def test_adr163_a_group_stores_what_lone_appends_store_byte_for_byte(pg_pool):
    at = lambda: _AT  # noqa: E731 - one instant for every reading: the two paths read it unlike
    grouped_store = PostgresEventStore(pg_pool, clock=at, group_commit=1, notify_window=None)
    told = []
    for round_ in _odd_appends():
        got = await outcomes(
            grouped_store,
            *(grouped_store.append(s, v, es, idempotency=k) for s, v, es, k in round_),
        )
        assert all(isinstance(g, list) for g in got), got
        told += got
    assert grouped_store.group_stats().splits == 0  # written by the group statement
    assert grouped_store.group_stats().statements == 4  # two leads, two groups
    in_groups = await _stored(pg_pool)

    await empty_store(pg_pool)
    alone = PostgresEventStore(pg_pool, clock=at, group_commit=0, notify_window=None)
    for round_ in _odd_appends():
        for s, v, es, k in round_:
            await alone.append(s, v, es, idempotency=k)
    assert await _stored(pg_pool) == in_groups
    assert sum(len(t) for t in told) == len(in_groups[0]) == 9
    assert [len(rows) for rows in in_groups] == [9, 3, 3]


# ADR-168: the one-append statements read their events as one JSON parameter too. The
# reference is the statements as they were before it (six arrays, ADR-163's "lone appends"),
# frozen here with the parameters they were given: what they stored, the JSON form stores.
_ARRAY_APPEND = """
WITH {key}
claim AS ({claim}),
pos AS (
    SELECT array_agg(p ORDER BY p) AS ps
    FROM (SELECT nextval('events_position_seq') AS p
          FROM claim, generate_series(1, cardinality($4::uuid[]))) AS drawn
),
inserted AS (
    INSERT INTO events (position, xid, season_id, version, event_id, type, data, metadata,
                        recorded_at, prev_hash, hash)
    SELECT pos.ps[e.n], pg_current_xact_id(), $1, $3 + e.n, e.id, e.type, e.data,
           e.meta::jsonb, $8, e.prev, e.hash
    FROM pos, unnest($4::uuid[], $5::text[], $6::bytea[], $7::text[], $9::bytea[],
                     $11::bytea[]) WITH ORDINALITY AS e(id, type, data, meta, prev, hash, n)
    WHERE pos.ps IS NOT NULL
){done}
SELECT pos.ps AS positions, {held} AS key_held FROM pos"""
_ARRAY_CLAIM = {
    False: """UPDATE streams SET version = $3 + cardinality($4::uuid[]), last_hash = $10
    WHERE season_id = $1 AND version = $3 AND last_hash = $2 AND {gate} RETURNING season_id""",
    True: """INSERT INTO streams (season_id, version, last_hash)
    SELECT $1, $3 + cardinality($4::uuid[]), $10
    WHERE $3 = 0 AND $2::bytea = decode(repeat('00', 32), 'hex') AND {gate}
    ON CONFLICT (season_id) DO NOTHING RETURNING season_id""",
}
_ARRAY_KEY = """
key AS (
    SELECT NOT EXISTS (SELECT 1 FROM idempotency_keys WHERE scope = $12 AND key = $13) AS free
),"""
_ARRAY_RECORDED = """,
recorded AS (
    INSERT INTO idempotency_keys (scope, key, request_hash, status, response_status,
                                  response_body, created_at, completed_at)
    SELECT $12, $13, $17, 'done', $14, $15, $16, $16 FROM claim
    RETURNING 1
)"""


def _array_statement(first: bool, done: object) -> str:
    gate = "(SELECT free FROM key)" if done is not None else "true"
    return _ARRAY_APPEND.format(
        key=_ARRAY_KEY if done is not None else "",
        claim=_ARRAY_CLAIM[first].format(gate=gate),
        done=_ARRAY_RECORDED if done is not None else "",
        held=gate,
    )


def _array_params(self: append.Batch, last_hash: bytes) -> tuple[object, ...]:
    es = self.events
    return (
        self.season_id,
        last_hash,
        self.expected,
        [e.event_id for e in es],
        [e.type for e in es],
        [e.data for e in es],
        [msgspec.json.encode(e.metadata).decode() for e in es],
        self.recorded_at,
        [prev for prev, _ in self.links],
        self.links[-1][1],
        [digest for _, digest in self.links],
    )


async def test_adr168_lone_appends_store_what_the_array_statements_stored_byte_for_byte(
    pg_pool, monkeypatch
):
    """The awkward appends of ADR-163's test, written alone by the JSON-parameter statements
    and, on an emptied store, by the array statements they replace: every column the same."""
    at = lambda: _AT  # noqa: E731 - one instant for every reading

    async def alone() -> list[list[tuple[Any, ...]]]:
        await empty_store(pg_pool)
        store = PostgresEventStore(pg_pool, clock=at, group_commit=0, notify_window=None)
        for round_ in _odd_appends():
            for s, v, es, k in round_:
                await store.append(s, v, es, idempotency=k)
        return await _stored(pg_pool)

    as_json = await alone()
    with monkeypatch.context() as m:
        m.setattr(append, "statement", _array_statement)
        m.setattr(append.Batch, "params", _array_params)
        as_arrays = await alone()
    assert as_json == as_arrays
    assert [len(rows) for rows in as_json] == [9, 3, 3]


async def test_adr168_a_lone_append_costs_no_abc_check_per_value(pg_pool):
    """Before ADR-168 asyncpg checked each of a one-append statement's six arrays and every
    element in them against collections.abc (24 checks a one-event append)."""
    store = PostgresEventStore(pg_pool, clock=lambda: _AT, group_commit=0, notify_window=None)
    for n in range(2):  # both statements prepared, keyed and not
        await store.append(f"warm{n}", 0, [new_event(1, space=40 + n)])
        await store.append(
            f"warm{n}", 1, [new_event(2, space=40 + n)], idempotency=_record(f"w{n}")
        )
    got, checks = await _abc_checks(
        lambda: store.append("one", 0, [*batch(1, 3, space=42)], idempotency=_record("one"))
    )
    assert [e.version for e in got] == [1, 2, 3]
    assert checks < 3, checks  # 51 for these three events


def _abc_checks(during: Callable[[], Awaitable[Any]]) -> Awaitable[tuple[Any, int]]:
    """`during()`'s result and how many times collections.abc's __instancecheck__ ran in it."""

    async def run() -> tuple[Any, int]:
        count = 0

        def watch(frame: Any, event: str, arg: Any) -> None:
            nonlocal count
            if event == "call" and frame.f_code.co_name == "__instancecheck__":
                count += 1

        sys.setprofile(watch)
        try:
            result = await during()
        finally:
            sys.setprofile(None)
        return result, count

    return run()


async def test_adr163_a_group_statement_costs_no_abc_check_per_value(pg_pool, clock):
    """Before ADR-163 asyncpg checked each of the twenty arrays and every element in them
    against collections.abc (~30 checks a one-event keyed append, ~2 k instructions each)."""
    store = grouped(pg_pool, clock)
    await outcomes(store, store.append("warm", 0, [new_event(1, space=5)]))  # prepared
    keyed = [
        store.append(f"s{n}", 0, [new_event(1, space=20 + n)], idempotency=_record(f"c{n}"))
        for n in range(6)
    ]
    _, lead_alone = await _abc_checks(lambda: outcomes(store))  # the lead's one-append statement
    got, checks = await _abc_checks(lambda: outcomes(store, *keyed))
    assert all(isinstance(g, list) for g in got), got
    assert store.group_stats().splits == 0
    assert checks - lead_alone < 6, (checks, lead_alone)  # under one an append (were ~180)


async def test_adr163_a_text_postgresql_refuses_splits_the_group_and_fails_alone(pg_pool, clock):
    """A key holding NUL (PostgreSQL's text holds none): the group statement fails, as it did
    with arrays; written alone, that append gets the one-append statement's error and the
    other commits."""
    store = grouped(pg_pool, clock)
    nul = IdempotencyRecord("scope", "k\x00", b"req", 200, b"")
    got = await outcomes(
        store,
        store.append("nul", 0, [new_event(1, space=30)], idempotency=nul),
        store.append("fine", 0, [new_event(1, space=31)]),
    )
    assert isinstance(got[0], asyncpg.CharacterNotInRepertoireError), got[0]
    assert [e.version for e in got[1]] == [1]
    assert store.group_stats().splits == 1
    assert await store.stream_version("nul") == 0
