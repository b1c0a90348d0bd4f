"""An imported season is an audit copy: never scheduled, never resolved, never written (ADR-58).

`seksenbir import` loads an export with every event as it was, deadlines included. Before
migration 0010 the due-work trigger gave the copy the original's timed work, so a scheduler on
the copy's database would have held its next Divan. Now the import marks the season as an audit
copy before its first event: no due_work row, the resolver refuses it and so does every command
(tests/http/test_problems.py, `audit_copy`). And (issue 13, ADR-58) an export holding both
calendar_set.v1 and .v2 imports and verifies.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from services.resolver.divan import resolve
from shared.app.ops.export import export_lines
from shared.app.repository.seasons import AuditCopyRefused, Seasons
from shared.domain import commands as c
from shared.domain.decide import decide
from shared.eventstore import EventMetadata, PostgresEventStore
from tests.audit.test_fixture_season import FIXTURE
from tests.audit.test_upcast import mixed_records
from tests.conftest import SESSION
from tests.integration.test_audit_cli import other_database, run_cli

SEASON = "fixture-live"  # the fixture's season id


async def test_adr_58_an_imported_season_gets_no_due_work_and_is_never_resolved(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """The fixture ends with Divan 4 due at its instant (its last deadline_set.v1): imported,
    it has no due_work row, the resolver at a time long past that instant refuses it, and an
    append through the application is refused; the stream stays as imported."""
    done = await run_cli("import", str(FIXTURE), "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr
    imported = await event_store.stream_version(SEASON)
    assert imported == 115
    pool = event_store._pool
    rows = await pool.fetch("SELECT * FROM due_work WHERE season_id = $1", SEASON)
    assert rows == [], "a scheduler on the audit copy would hold its next Divan"
    assert await event_store.audit_copy(SEASON)

    seasons = Seasons(event_store)
    state = (await seasons.load(SEASON)).state
    assert state.calendar is not None
    late = state.calendar.at(4) + timedelta(days=30)
    assert await resolve(seasons, SEASON, 4, now=late) == "audit_copy"
    between = state.calendar.at(3) + timedelta(hours=2)  # a pause the season would take
    paused = decide(state, c.SeasonAdmin(act="pause", reason="x", by="ops", at=between))
    assert isinstance(paused, list)
    try:
        await seasons.append(SEASON, imported, "pause", paused, EventMetadata(actor="ops"))
    except AuditCopyRefused:
        pass
    else:  # pragma: no cover - the defect this test is for
        raise AssertionError("an append to an audit copy was accepted")
    assert await event_store.stream_version(SEASON) == imported
    assert (await pool.fetch("SELECT * FROM due_work WHERE season_id = $1", SEASON)) == []


async def test_a_season_stored_the_ordinary_way_is_no_audit_copy(
    event_store: PostgresEventStore,
) -> None:
    """The mark is the import's alone: a season appended by the application is not one."""
    from tests.audit.support import store_season

    await store_season(event_store, "ordinary", 3, live=True, divans=1)
    assert not await event_store.audit_copy("ordinary")
    rows = await event_store._pool.fetch("SELECT * FROM due_work WHERE season_id = 'ordinary'")
    assert len(rows) == 1 and rows[0]["divan"] == 2  # the next Divan is scheduled


async def test_adr_58_an_export_mixing_v1_and_v2_calendars_imports_and_verifies(
    pg_server_dsn: str, tmp_path: Path
) -> None:
    """The fixture season continued after the version change (calendar_set.v1 twice, then a
    v2 one from a resume, and Divan 4): its export imports (the chain is over the stored bytes,
    so the copy's hashes are the file's) and `seksenbir verify` re-runs all four Divans."""
    records = await mixed_records()
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(b"".join(export_lines(SEASON, records, records[-1].hash)))
    done = await run_cli("verify", str(path))
    assert done.returncode == 0, done.stdout
    async with other_database(pg_server_dsn, f"seksenbir_mixed_{SESSION}") as copy:
        done = await run_cli("import", str(path), "--dsn", copy)
        assert done.returncode == 0, done.stderr
        done = await run_cli("verify", SEASON, "--dsn", copy)
        assert done.returncode == 0, done.stdout
        verdict = json.loads(done.stdout)
        assert verdict["hash_chain"] == "ok" and verdict["mismatches"] == []
        assert verdict["head"] == records[-1].hash.hex()
        store_types = await run_cli("export", SEASON, "--dsn", copy)
        lines = [json.loads(x) for x in store_types.stdout.splitlines()[1:]]
        calendars = [x["type"] for x in lines if x["type"].startswith("calendar_set.")]
        assert calendars == ["calendar_set.v1", "calendar_set.v1", "calendar_set.v2"]
        kept = ("type", "data", "data_digest", "prev_hash", "hash")
        before = [json.loads(x) for x in path.read_text().splitlines()[1:]]
        assert [[x[k] for k in kept] for x in lines] == [[x[k] for k in kept] for x in before]
