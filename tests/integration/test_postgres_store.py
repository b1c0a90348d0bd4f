"""PostgreSQL specifics: migrations, the durability check, fail-fast locks, pool settings."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import pytest

from shared.eventstore import (
    GENESIS,
    NOTIFY_CHANNEL,
    DuplicateEventError,
    DurabilityError,
    IdempotencyKeyTaken,
    IdempotencyRecord,
    InProgress,
    LogOrderError,
    MigrationError,
    PoolSettings,
    PostgresEventStore,
    Replay,
    StoreBusyError,
    check_durability,
    check_log_order,
    create_pool,
    migrate,
    parse_wakeup,
    wakeup_payloads,
)
from shared.eventstore.hashing import chain_hashes
from shared.eventstore.migrate import _apply_pending, load_migrations
from tests.integration.support import batch, event_id, new_event, settles_to, wait_until

pytestmark = pytest.mark.integration

ALL = [
    "0001_event_log",
    "0002_idempotency_keys",
    "0003_parallel_appends",
    "0004_due_work",
    "0005_log_head_retired_always",
    "0006_live_deadlines",
    "0007_chain_versions",
    "0008_events_partitioned",
    "0009_ops_reads",
    "0010_audit_copies",  # assigned 0011 (ADR-58): renumber with the migration at merge
    "0011_player_events",  # assigned 0012 (ADR-87): renumber with the migration at merge
    "0012_chat",  # assigned 0013 (issue 24, ADR-91): 0012 after players' 0011 (no gaps)
    "0013_notify_store",  # notifications' registrations, cursors and claims (issue 25, ADR-108)
]


@pytest.fixture
async def fresh_dsn(pg_server_dsn: str, pg_dsn: str) -> AsyncIterator[str]:
    """An empty database beside the session's one, for tests that migrate from nothing."""
    parts = urlsplit(pg_dsn)
    name = parts.path.lstrip("/") + "_fresh"
    admin = await asyncpg.connect(pg_server_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        yield urlunsplit(parts._replace(path="/" + name))
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_migrations_apply_once_and_record_themselves(fresh_dsn: str):
    assert await migrate(fresh_dsn) == ALL
    assert await migrate(fresh_dsn) == []
    conn = await asyncpg.connect(fresh_dsn)
    try:
        rows = await conn.fetch("SELECT version, name FROM schema_migrations ORDER BY version")
    finally:
        await conn.close()
    assert [(r["version"], r["name"]) for r in rows] == [(int(n[:4]), n) for n in ALL]


async def test_two_migrators_at_once_apply_each_migration_once(fresh_dsn: str):
    pool = await create_pool(fresh_dsn)
    try:
        results = await asyncio.gather(migrate(fresh_dsn), migrate(pool), migrate(fresh_dsn))
    finally:
        await pool.close()
    assert sorted(results) == [[], [], ALL]


async def test_a_migration_edited_after_it_was_applied_is_refused(fresh_dsn: str):
    await migrate(fresh_dsn)
    conn = await asyncpg.connect(fresh_dsn)
    try:
        await conn.execute("UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1")
        with pytest.raises(MigrationError, match="changed after it was applied"):
            await migrate(conn)
    finally:
        await conn.close()


@pytest.mark.fault
async def test_the_durability_check_passes_on_a_durable_server(pg_pool: asyncpg.Pool):
    await check_durability(pg_pool)


async def test_startup_refuses_a_log_whose_transaction_ids_are_ahead_of_the_server(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool
):
    """What a logical restore into another cluster leaves: xids from the old cluster, ahead of
    this one's. Readers would wait for them for ever, so startup says so."""
    await event_store.append("s1", 0, [new_event(1)])
    await check_log_order(pg_pool)
    await pg_pool.execute(
        """INSERT INTO events (xid, season_id, version, event_id, type, data, metadata,
               recorded_at, prev_hash, hash)
           SELECT (pg_current_xact_id()::text::bigint + 1000000)::text::xid8, 's2', 1, $1,
               type, data, metadata, recorded_at, prev_hash, hash FROM events""",
        event_id(2),
    )
    with pytest.raises(LogOrderError):
        await check_durability(pg_pool)


async def test_startup_refuses_a_schema_without_migration_0003(fresh_dsn: str):
    conn = await asyncpg.connect(fresh_dsn)
    try:
        await _apply_pending(conn, load_migrations()[:2])
    finally:
        await conn.close()
    pool = await create_pool(fresh_dsn)
    try:
        with pytest.raises(MigrationError, match="0003"):
            await check_durability(pool)
    finally:
        await pool.close()


@pytest.mark.fault
async def test_the_durability_check_refuses_asynchronous_commit(migrated_pg_dsn: str):
    pool = await asyncpg.create_pool(
        migrated_pg_dsn, min_size=1, max_size=1, server_settings={"synchronous_commit": "off"}
    )
    try:
        with pytest.raises(DurabilityError, match="synchronous_commit=off"):
            await check_durability(pool)
    finally:
        await pool.close()


async def test_pooled_connections_carry_the_fail_fast_settings(migrated_pg_dsn: str):
    settings = PoolSettings(
        lock_timeout_ms=1234, statement_timeout_ms=5678, idle_in_transaction_timeout_ms=9000
    )
    pool = await create_pool(migrated_pg_dsn, settings)
    try:
        row = await pool.fetchrow(
            "SELECT current_setting('lock_timeout') AS l,"
            " current_setting('statement_timeout') AS s,"
            " current_setting('idle_in_transaction_session_timeout') AS i,"
            " current_setting('synchronous_commit') AS c,"
            " current_setting('plan_cache_mode') AS p"
        )
    finally:
        await pool.close()
    assert tuple(row) == ("1234ms", "5678ms", "9s", "on", "force_generic_plan")


@pytest.mark.fault
async def test_an_append_behind_a_zombie_lock_fails_fast(migrated_pg_dsn: str, pg_pool, clock):
    """RELIABILITY 6, store side: lock_timeout turns a hang into StoreBusyError (503). The only
    lock an append takes is its season's stream row, so other seasons go on meanwhile."""
    # lock_timeout alone must end the wait: statement_timeout is set far beyond the test's
    # bound, so an append that only statement_timeout would end fails the bound instead
    settings = PoolSettings(lock_timeout_ms=200, statement_timeout_ms=120_000)
    pool = await create_pool(migrated_pg_dsn, settings)
    store = PostgresEventStore(pool, clock=clock)
    zombie = await asyncpg.connect(migrated_pg_dsn)
    try:
        await store.append("s1", 0, [new_event(1)])
        await zombie.execute("BEGIN; SELECT 1 FROM streams WHERE season_id = 's1' FOR UPDATE")
        with pytest.raises(StoreBusyError):
            await asyncio.wait_for(store.append("s1", 1, [new_event(2)]), 30)
        other = await store.append("s2", 0, [new_event(3)])  # not held up by s1's zombie
        await zombie.execute("ROLLBACK")
        recorded = await store.append("s1", 1, [new_event(2)])
    finally:
        await zombie.close()
        await pool.close()
    assert [e.version for e in other + recorded] == [1, 2]


@pytest.mark.fault
async def test_a_zombie_transaction_holds_readers_back_until_it_is_killed(
    event_store: PostgresEventStore, migrated_pg_dsn: str
):
    """RELIABILITY 6, reader side: a zombie with a transaction id in this database does not stop
    appends, but readers may not pass it (it could still write); when the server ends it
    (idle_in_transaction_session_timeout) they catch up and nothing is lost."""
    await event_store.append("s1", 0, [new_event(1)])
    zombie = await asyncpg.connect(
        migrated_pg_dsn, server_settings={"idle_in_transaction_session_timeout": "500"}
    )
    try:
        await zombie.execute("BEGIN; SELECT pg_current_xact_id()")
        recorded = await event_store.append("s1", 1, batch(2, 3))  # appends go on
        assert [e.position for e in await event_store.read_all(0)] == [1]  # lag, not loss

        async def caught_up() -> bool:
            return len(await event_store.read_all(0)) == 4

        await wait_until(caught_up)
        assert await event_store.read_all(1) == recorded
    finally:
        await zombie.close()


async def test_transactions_in_other_databases_do_not_hold_readers_back(
    event_store: PostgresEventStore, fresh_dsn: str
):
    """The horizon leaves out transactions of other databases on the server: they cannot write
    this table. The one held open elsewhere lasts the whole test, so reading the events at all
    shows it left out; a short transaction of someone else's on a shared server (one whose
    database the horizon cannot see, the safe side) may hold them back a moment, so the read
    is repeated until then (settles_to): it failed once in a full run beside other sessions'
    benches."""
    elsewhere = await asyncpg.connect(fresh_dsn)
    try:
        await elsewhere.execute("BEGIN; SELECT pg_current_xact_id()")
        recorded = await event_store.append("s1", 0, batch(1, 2))
        await settles_to(lambda: event_store.read_all(0), recorded)
        await settles_to(event_store.head_position, recorded[-1].position)
    finally:
        await elsewhere.close()


async def test_log_head_refuses_even_the_reset_on_an_empty_log(pg_pool: asyncpg.Pool, clock):
    """0005: the retired counter row has no test-only back door; fixtures reset positions by
    restarting the sequence events.position owns (tests.conftest.empty_store)."""
    with pytest.raises(asyncpg.ObjectNotInPrerequisiteStateError, match="retired"):
        await pg_pool.execute("UPDATE log_head SET position = 0")
    store = PostgresEventStore(pg_pool, clock=clock)
    assert [e.position for e in await store.append("s1", 0, batch(1, 2))] == [1, 2]


async def test_upgrading_a_counter_row_log_keeps_its_order_and_continues_after_it(
    fresh_dsn: str, clock
):
    """0003 on a log written by the counter-row code: old events keep their positions and come
    first; new positions continue after the old head; the chain goes on; old code is refused."""
    conn = await asyncpg.connect(fresh_dsn)
    try:
        assert await _apply_pending(conn, load_migrations()[:2]) == ALL[:2]
        old = [*batch(1, 2), new_event(3)]
        await _append_as_before_0003(conn, "s1", old[:2])
        await _append_as_before_0003(conn, "s2", old[2:])
        assert await migrate(conn) == ALL[2:]
        with pytest.raises(asyncpg.ObjectNotInPrerequisiteStateError, match="retired"):
            await conn.execute("UPDATE log_head SET position = position + 1")
    finally:
        await conn.close()
    pool = await create_pool(fresh_dsn)
    try:
        store = PostgresEventStore(pool, clock=clock)
        assert [e.position for e in await store.read_all(0)] == [1, 2, 3]
        new = await store.append("s1", 2, [new_event(4)])
        assert new[0].position == 4
        assert [e.event_id for e in await store.read_all(2)] == [event_id(3), event_id(4)]
        assert await store.head_position() == 4
        assert await store.verify_chain("s1") == new[0].hash
    finally:
        await pool.close()


async def test_0007_keeps_seasons_stored_before_it_on_chain_version_1(fresh_dsn: str, clock):
    """ADR-52: a season stored before 0007 (chain version 1) keeps version 1 for its later
    appends and still verifies; a season started after it gets version 2."""
    conn = await asyncpg.connect(fresh_dsn)
    try:
        assert await _apply_pending(conn, load_migrations()[:6]) == ALL[:6]
        links = chain_hashes(GENESIS, "old", 0, batch(1, 2), chain=1)
        await conn.execute(
            "INSERT INTO streams (season_id, version, last_hash) VALUES ('old', 2, $1)",
            links[-1][1],
        )
        for n, (event, (prev, digest)) in enumerate(zip(batch(1, 2), links, strict=True), 1):
            await conn.execute(
                """INSERT INTO events (position, xid, season_id, version, event_id, type, data,
                       metadata, recorded_at, prev_hash, hash)
                   VALUES (nextval('events_position_seq'), pg_current_xact_id(), 'old', $1, $2,
                           $3, $4, '{"actor":"system"}', now(), $5, $6)""",
                n,
                event.event_id,
                event.type,
                event.data,
                prev,
                digest,
            )
        assert await migrate(conn) == ALL[6:]
        chains = dict(await conn.fetch("SELECT season_id, chain FROM streams"))
        assert chains == {"old": 1}
    finally:
        await conn.close()
    pool = await create_pool(fresh_dsn)
    try:
        store = PostgresEventStore(pool, clock=clock)
        more = await store.append("old", 2, [new_event(3)])
        fresh = await store.append("new", 0, [new_event(4)])
        assert await store.verify_chain("old") == more[0].hash
        assert await store.verify_chain("new") == fresh[0].hash
        assert (await store.chain_version("old"), await store.chain_version("new")) == (1, 2)
        rows = await pool.fetch("SELECT season_id, chain FROM streams ORDER BY season_id")
        assert [(r["season_id"], r["chain"]) for r in rows] == [("new", 2), ("old", 1)]
    finally:
        await pool.close()


async def _append_as_before_0003(conn: asyncpg.Connection, season: str, events: list) -> None:
    """What the counter-row append did: take log_head, number the events from it."""
    version = await conn.fetchval("SELECT version FROM streams WHERE season_id = $1", season)
    last = await conn.fetchval("SELECT last_hash FROM streams WHERE season_id = $1", season)
    links = chain_hashes(last or GENESIS, season, version or 0, events, chain=1)  # before 0007
    async with conn.transaction():
        await conn.execute(
            """INSERT INTO streams (season_id, version, last_hash) VALUES ($1, $2, $3)
               ON CONFLICT (season_id) DO UPDATE SET version = $2, last_hash = $3""",
            season,
            (version or 0) + len(events),
            links[-1][1],
        )
        base = await conn.fetchval(
            "UPDATE log_head SET position = position + $1 RETURNING position - $1", len(events)
        )
        for n, (event, (prev, digest)) in enumerate(zip(events, links, strict=True), start=1):
            await conn.execute(
                """INSERT INTO events (position, season_id, version, event_id, type, data,
                       metadata, recorded_at, prev_hash, hash)
                   VALUES ($1, $2, $3, $4, $5, $6, '{"actor":"system"}', now(), $7, $8)""",
                base + n,
                season,
                (version or 0) + n,
                event.event_id,
                event.type,
                event.data,
                prev,
                digest,
            )


@pytest.mark.fault
async def test_a_slow_statement_is_cancelled_as_busy(migrated_pg_dsn: str, clock):
    """RELIABILITY 13, store side: statement_timeout cancels a blocked read (lock_timeout is set
    far beyond the test's bound, so it is statement_timeout that ends the wait)."""
    settings = PoolSettings(statement_timeout_ms=200, lock_timeout_ms=120_000)
    pool = await create_pool(migrated_pg_dsn, settings)
    store = PostgresEventStore(pool, clock=clock)
    locker = await asyncpg.connect(migrated_pg_dsn)
    try:
        await locker.execute("BEGIN; LOCK TABLE streams IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StoreBusyError):
            await asyncio.wait_for(store.list_seasons(), 30)
    finally:
        await locker.close()
        await pool.close()


@pytest.mark.fault
@pytest.mark.parametrize("held_copy", ["commits", "rolls back"])
async def test_a_recorded_key_racing_a_copy_in_another_process_is_appended_once(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, migrated_pg_dsn: str, held_copy: str
):
    """RELIABILITY 2 across processes, one-step keys: a copy in another process has inserted
    the key and not committed yet (the statement cannot see it). Our append waits on the key's
    primary key; if the copy commits, ours rolls back whole and reports the copy's answer; if it
    rolls back, ours goes through. Never events without their key, never two sets."""
    await event_store.append("s1", 0, [new_event(1)])
    copy = await asyncpg.connect(migrated_pg_dsn)
    record = IdempotencyRecord("s1:3", "k", b"req", 200, b"{}")
    try:
        await copy.execute(
            "BEGIN; INSERT INTO idempotency_keys (scope, key, request_hash, status,"
            " response_status, response_body, created_at, completed_at)"
            " VALUES ('s1:3', 'k', 'req'::bytea, 'done', 200, '\\x7b317d'::bytea, now(), now())"
        )
        ours = asyncio.create_task(event_store.append("s1", 1, [new_event(2)], idempotency=record))
        # waiting on the copy's uncommitted key: the server says so (no fixed sleep)
        await wait_until(lambda: _waits_on_a_lock(pg_pool))
        assert not ours.done()
        await copy.execute("COMMIT" if held_copy == "commits" else "ROLLBACK")
        if held_copy == "commits":
            with pytest.raises(IdempotencyKeyTaken) as taken:
                await ours
            assert taken.value.found == Replay(200, b"{1}")
            assert await event_store.stream_version("s1") == 1
        else:
            assert [e.version for e in await ours] == [2]
            assert await event_store.idempotency.look("s1:3", "k", b"req") == Replay(200, b"{}")
    finally:
        await copy.close()


async def test_migrating_through_a_pool_leaves_its_connections_settings_alone(
    migrated_pg_dsn: str,
):
    """The pool skips asyncpg's reset query, so migrate() restores the timeouts it relaxed."""
    pool = await create_pool(migrated_pg_dsn, PoolSettings(min_size=1, max_size=1))
    try:
        await migrate(pool)
        row = await pool.fetchrow(
            "SELECT current_setting('lock_timeout') AS l, current_setting('statement_timeout') AS s"
        )
    finally:
        await pool.close()
    assert tuple(row) == ("5s", "10s")


async def test_a_transaction_left_open_is_rolled_back_when_its_connection_returns(
    migrated_pg_dsn: str,
):
    """What the skipped reset query did not cover: asyncpg still rolls back on release."""
    pool = await create_pool(migrated_pg_dsn, PoolSettings(min_size=1, max_size=1))
    try:
        async with pool.acquire() as conn:
            await conn.execute("BEGIN; CREATE TEMP TABLE left_open (x int)")
        async with pool.acquire() as conn:
            assert not conn.is_in_transaction()
            assert await conn.fetchval("SELECT to_regclass('pg_temp.left_open')") is None
    finally:
        await pool.close()


async def test_wake_ups_follow_every_commit_and_are_shared_under_load(
    event_store: PostgresEventStore, migrated_pg_dsn: str
):
    """A NOTIFY follows every append's commit and names its season (the position is the newest
    committed, a hint); appends committed within one window share one, and none waits for it."""
    heard: list[tuple[int, list[str]]] = []
    listener = await asyncpg.connect(migrated_pg_dsn)
    try:
        await listener.add_listener(NOTIFY_CHANNEL, lambda *a: heard.append(parse_wakeup(a[-1])))
        recorded = await asyncio.gather(
            *(event_store.append(f"s{i}", 0, [new_event(i)]) for i in range(1, 41))
        )
        newest = max(r[-1].position for r in recorded)

        async def heard_everything() -> bool:
            named = {season for _, seasons in heard for season in seasons}
            return named == {f"s{i}" for i in range(1, 41)} and heard[-1][0] == newest

        await wait_until(heard_everything)
        assert 1 <= len(heard) < 40
        last = await event_store.append("s1", 1, [new_event(99)])

        async def heard_last() -> bool:
            return heard[-1] == (last[-1].position, ["s1"])

        await wait_until(heard_last)
    finally:
        await listener.close()


async def test_a_store_closed_right_after_an_append_sends_its_wake_up_first(migrated_pg_dsn: str):
    """A verb that appends and exits at once (`seksenbir fork`) closed the pool under the wake-up
    sender: its NOTIFY found the pool closing (`eventstore.notify_failed`) and was lost. Closing
    the store sends the wake-ups its appends still owe, then closes the pool."""
    from structlog.testing import capture_logs

    from entrypoints import bootstrap
    from shared.settings import Settings

    heard: list[tuple[int, list[str]]] = []
    listener = await asyncpg.connect(migrated_pg_dsn)
    try:
        await listener.add_listener(NOTIFY_CHANNEL, lambda *a: heard.append(parse_wakeup(a[-1])))
        with capture_logs() as logs:
            async with bootstrap.event_store(Settings(), "cli", dsn=migrated_pg_dsn) as store:
                recorded = await store.append("closing", 0, [new_event(9_001)])

        async def heard_it() -> bool:
            return (recorded[-1].position, ["closing"]) in heard

        await wait_until(heard_it)
        assert [x for x in logs if x["event"] == "eventstore.notify_failed"] == []
    finally:
        await listener.close()


def test_wake_up_payloads_split_many_seasons_under_the_size_limit():
    seasons = [f"{i:032x}" for i in range(1000)]
    payloads = wakeup_payloads(7, seasons)
    assert len(payloads) > 1
    assert all(len(p.encode()) < 8000 for p in payloads)
    parsed = [parse_wakeup(p) for p in payloads]
    assert [s for _, chunk in parsed for s in chunk] == seasons
    assert {position for position, _ in parsed} == {7}
    assert parse_wakeup("42") == (0, [])  # an older store's bare position names no season


async def _waits_on_a_lock(pool: asyncpg.Pool) -> bool:
    """Some backend of this database is waiting on a lock (here: on the copy's key row)."""
    return bool(
        await pool.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
    )


async def test_a_key_left_in_progress_by_an_older_deployment_reads_as_in_progress(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock
):
    """Nothing writes `in_progress` rows since the two-step protocol went; rows left by a
    deployment from before still answer 409 (InProgress) until the purge deletes them."""
    await pg_pool.execute(
        "INSERT INTO idempotency_keys (scope, key, request_hash, status, created_at)"
        " VALUES ('s1:3', 'held', 'req', 'in_progress', $1)",
        clock.now,
    )
    keys = event_store.idempotency
    assert await keys.look("s1:3", "held", b"req") == InProgress()
    assert await keys.record("s1:3", "held", b"req", 200, b"{}") == InProgress()
    record = IdempotencyRecord("s1:3", "held", b"req", 200, b"{}")
    with pytest.raises(IdempotencyKeyTaken) as taken:
        await event_store.append("s1", 0, [new_event(1)], idempotency=record)
    assert taken.value.found == InProgress()
    assert await event_store.stream_version("s1") == 0


async def test_upgrading_an_unpartitioned_log_to_partitioned_events_keeps_every_event(
    fresh_dsn: str, clock
):
    """0008 on a log written before it (at 0007, which this build's store needs to append:
    the chain version): every event keeps its position, xid order, hash chain and due work;
    event ids become unique across seasons through event_ids (RELIABILITY 3); new positions
    continue after the old head."""
    conn = await asyncpg.connect(fresh_dsn)
    try:
        assert await _apply_pending(conn, load_migrations()[:7]) == ALL[:7]
    finally:
        await conn.close()
    pool = await create_pool(fresh_dsn)
    try:
        store = PostgresEventStore(pool, clock=clock)
        await store.append("s1", 0, batch(1, 2))
        await store.append("s2", 0, [new_event(3)])
        await store.append("s2", 1, [new_event(4, type_="divan_requested.v1", data={"divan": 1})])
        before = await store.read_all(0)
        due_before = await pool.fetch("SELECT * FROM due_work ORDER BY season_id")
        assert await migrate(pool) == ALL[7:]
        assert await store.read_all(0) == before
        assert await pool.fetch("SELECT * FROM due_work ORDER BY season_id") == due_before
        assert await pool.fetchval("SELECT count(*) FROM event_ids") == 4
        assert (
            await pool.fetchval("SELECT relkind::text FROM pg_class WHERE relname = 'events'")
            == "p"
        )
        new = await store.append("s1", 2, [new_event(5)])
        assert new[0].position == before[-1].position + 1
        assert await store.verify_chain("s1") == new[0].hash
        with pytest.raises(DuplicateEventError):  # an id of s1's, in another season
            await store.append("s3", 0, [new_event(1)])
        assert await store.list_seasons() == ["s1", "s2"]
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="append-only"):
            await pool.execute("DELETE FROM events")
    finally:
        await pool.close()


async def test_every_unique_key_of_the_partitioned_events_table_includes_the_season(
    pg_pool: asyncpg.Pool,
):
    """0008: events is hash-partitioned on season_id, so each unique key names the season;
    the one key across seasons, the event id, lives in the unpartitioned event_ids."""
    strategy, columns = await pg_pool.fetchrow(
        """SELECT p.partstrat::text, array_agg(a.attname::text)
           FROM pg_partitioned_table AS p JOIN pg_attribute AS a
             ON a.attrelid = p.partrelid AND a.attnum = ANY(p.partattrs::int2[])
           WHERE p.partrelid = 'events'::regclass GROUP BY p.partstrat"""
    )
    assert (strategy, columns) == ("h", ["season_id"])
    keys = await pg_pool.fetch(
        """SELECT c.conname, array_agg(a.attname::text ORDER BY a.attname) AS cols
           FROM pg_constraint AS c JOIN pg_attribute AS a
             ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
           WHERE c.conrelid = 'events'::regclass AND c.contype IN ('p', 'u')
           GROUP BY c.conname ORDER BY c.conname"""
    )
    assert {k["conname"]: k["cols"] for k in keys} == {
        "events_pkey": ["position", "season_id"],
        "events_season_version_key": ["season_id", "version"],
    }
    assert (
        await pg_pool.fetchval(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'events'::regclass"
        )
        == 16
    )
    assert (
        await pg_pool.fetchval("SELECT relkind::text FROM pg_class WHERE relname = 'event_ids'")
        == "r"
    )


async def test_adr_142_a_fold_s_read_leaves_the_head_the_next_append_chains_on(
    pg_pool: asyncpg.Pool, clock
):
    """A process whose only read of a season was `read_data` (a fold's catch-up) appends on
    the head it read: no read of the streams row first, and the chain holds."""
    await PostgresEventStore(pg_pool, clock=clock).append("s1", 0, batch(1, 3))
    other = PostgresEventStore(pg_pool, clock=clock)
    read = await other.read_data("s1")
    assert other._known_hash("s1", 3) == read[-1].hash
    recorded = await other.append("s1", 3, batch(4, 1))
    assert recorded[0].prev_hash == read[-1].hash
    assert [e.hash for e in await other.read_stream("s1")][-1] == recorded[-1].hash
