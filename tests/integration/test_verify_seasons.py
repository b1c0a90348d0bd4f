"""Issue 13's verification tests over PostgreSQL: 50 simulated seasons stored through the event
store all verify (`seksenbir verify --all`); one altered outcome event, one altered order, one
deleted event and one reordered pair, each written behind the store's back in its own season,
are each detected and named online, from the database (R-12.3). The same four edits on export
files, offline, are tests/audit/test_export_verify.py's CASES."""

from __future__ import annotations

import json

import asyncpg
import pytest

from shared.eventstore import PostgresEventStore
from tests.audit.support import store_season
from tests.integration.test_audit_cli import run_cli

SEASONS = 50


async def _as_superuser(pool: asyncpg.Pool, *statements: tuple[str, tuple[object, ...]]) -> None:
    """What an attacker with database rights does: switch the guard off, edit, switch it on."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("ALTER TABLE events DISABLE TRIGGER events_append_only")
        for sql, args in statements:
            await conn.execute(sql, *args)
        await conn.execute("ALTER TABLE events ENABLE TRIGGER events_append_only")


async def _version_of(pool: asyncpg.Pool, season: str, type_: str, nth: int = 0) -> int:
    rows = await pool.fetch(
        "SELECT version FROM events WHERE season_id = $1 AND type = $2 ORDER BY version",
        season,
        type_,
    )
    return int(rows[nth]["version"])


async def _alter_data(pool: asyncpg.Pool, season: str, version: int, old: bytes, new: bytes):
    data = await pool.fetchval(
        "SELECT data FROM events WHERE season_id = $1 AND version = $2", season, version
    )
    assert old in data, data[:200]
    await _as_superuser(
        pool,
        (
            "UPDATE events SET data = $3 WHERE season_id = $1 AND version = $2",
            (season, version, data.replace(old, new, 1)),
        ),
    )


@pytest.mark.slow
async def test_r12_3_fifty_stored_seasons_verify_and_each_tampering_is_named_online(
    migrated_pg_dsn: str, event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    seasons = [f"s{n:02d}" for n in range(SEASONS)]
    for n, season_id in enumerate(seasons):
        await store_season(event_store, season_id, 100 + n, live=n % 2 == 1)
    done = await run_cli("verify", "--all", "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout)
    assert (summary["seasons"], summary["ok"], summary["failed"]) == (SEASONS, SEASONS, [])

    # One edit per season, each behind the store's back.
    outcome = await _version_of(pg_pool, "s00", "battles_resolved.v1", 3)
    await _alter_data(pg_pool, "s00", outcome, b'"divan":4', b'"divan":5')
    order = await _version_of(pg_pool, "s01", "orders_submitted.v1", 5)
    await _alter_data(pg_pool, "s01", order, b'"units":', b'"units":1')
    deleted = await _version_of(pg_pool, "s02", "production_applied.v1", 2)
    await _as_superuser(
        pg_pool,
        ("DELETE FROM events WHERE season_id = 's02' AND version = $1", (deleted,)),
    )
    pair = await _version_of(pg_pool, "s03", "rebellions_run.v1", 6)
    swap = "UPDATE events SET version = $2 WHERE season_id = 's03' AND version = $1"
    await _as_superuser(
        pg_pool, (swap, (pair, 1_000_000)), (swap, (pair + 1, pair)), (swap, (1_000_000, pair + 1))
    )
    expected = {
        "s00": (outcome, "battles_resolved.v1", "hash does not match the event's content"),
        "s01": (order, "orders_submitted.v1", "hash does not match the event's content"),
        "s02": (deleted, "divan_resolved.v1", f"where version {deleted} belongs"),
        "s03": (pair, "divan_resolved.v1", "prev_hash does not match"),
    }

    for season_id, (version, type_, words) in expected.items():
        one = await run_cli("verify", season_id, "--dsn", migrated_pg_dsn)
        assert one.returncode == 1, season_id
        bad = json.loads(one.stdout)["first_bad_event"]
        if season_id == "s02":  # the event after the deleted one is named, at its version
            assert bad["version"] == version + 1 and words in bad["why"], bad
        else:
            assert bad["version"] == version and words in bad["why"], (season_id, bad)
        if season_id in ("s00", "s01"):
            assert bad["type"] == type_
        assert f"FIRST EVENT THAT DOES NOT MATCH: version {bad['version']}" in one.stderr
    untouched = await run_cli("verify", "s04", "--dsn", migrated_pg_dsn)
    assert untouched.returncode == 0, untouched.stdout
