"""Export, import, verify and replay over PostgreSQL, as ops and auditors run them (issue 13).

`seksenbir export` writes a season stored through the event store; `seksenbir import` loads the
file into another database (an audit copy) and `seksenbir verify SEASON` passes there; an import
refuses a broken chain and a season id that exists; `seksenbir verify --all` shows progress and a
summary and names a season with a forged event; `seksenbir replay` writes nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit
from uuid import UUID

import asyncpg

from shared.domain.state import SEALED_REPORT_VERSION, SEATS
from shared.eventstore import PostgresEventStore, migrate
from tests.audit.support import store_season
from tests.conftest import SESSION


def cli(*args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    """The verb with --lang en: these tests read its English lines (test_cli_languages.py
    reads both languages)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", *args, "--lang", lang],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


async def run_cli(*args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    return await asyncio.to_thread(cli, *args, lang=lang)


@asynccontextmanager
async def other_database(server_dsn: str, name: str) -> AsyncIterator[str]:
    """A second, migrated database on the same server (the audit copy), dropped afterwards."""
    admin = await asyncpg.connect(server_dsn)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        parts = urlsplit(server_dsn)
        dsn = urlunsplit(parts._replace(path=f"/{name}"))
        await migrate(dsn)
        yield dsn
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


async def test_an_export_imports_into_an_audit_copy_that_verifies(
    migrated_pg_dsn: str, pg_server_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    await store_season(event_store, "audited", 21, live=True)
    stored = await event_store.read_stream("audited")
    path = tmp_path / "season.jsonl"
    done = await run_cli("export", "audited", "--dsn", migrated_pg_dsn, "-o", str(path))
    assert done.returncode == 0, done.stderr
    header = json.loads(path.read_text().splitlines()[0])
    assert header["events"] == len(stored) and header["head"] == stored[-1].hash.hex()
    to_stdout = await run_cli("export", "audited", "--dsn", migrated_pg_dsn)
    assert to_stdout.stdout == path.read_text()  # the same bytes either way
    # ADR-53: each export by the command line is an ops read of the seed, recorded in PostgreSQL
    reads = await event_store.ops_reads.list("audited")
    assert [r.what for r in reads] == ["export", "export"]
    assert all(r.actor.startswith("cli:") for r in reads)

    done = await run_cli("verify", str(path))
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["seed_commitment"].startswith("ok")

    async with other_database(pg_server_dsn, f"seksenbir_audit_{SESSION}") as copy:
        done = await run_cli("import", str(path), "--dsn", copy)
        assert done.returncode == 0, done.stderr
        done = await run_cli("verify", "audited", "--dsn", copy)
        assert done.returncode == 0, done.stdout
        verdict = json.loads(done.stdout)
        assert verdict["hash_chain"] == "ok" and verdict["mismatches"] == []
        assert verdict["head"] == stored[-1].hash.hex()
        assert verdict["seed_commitment"].startswith("ok")

        again = await run_cli("import", str(path), "--dsn", copy)
        assert again.returncode == 1 and "exists" in again.stderr

        lines = path.read_text().splitlines()
        broken = json.loads(lines[3])
        broken["hash"] = "00" * 32
        lines[3] = json.dumps(broken)
        other = json.loads(lines[0])
        other["season_id"] = "forged"
        lines[0] = json.dumps(other)
        forged = tmp_path / "forged.jsonl"
        forged.write_text("\n".join(lines) + "\n")
        refused = await run_cli("import", str(forged), "--dsn", copy)
        assert refused.returncode == 1 and "chain" in refused.stderr and "refused" in refused.stderr
        conn = await asyncpg.connect(copy)
        try:
            assert (
                await conn.fetchval("SELECT count(*) FROM events WHERE season_id = 'forged'") == 0
            )
        finally:
            await conn.close()


async def test_verify_all_shows_progress_and_a_summary_and_names_a_forged_event(
    migrated_pg_dsn: str, event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    for n, season_id in enumerate(("all-a", "all-b", "all-c")):
        await store_season(event_store, season_id, 30 + n, divans=2)
    last = (await event_store.read_stream("all-b"))[-1]
    # An event written behind the store's back (the trigger refuses only UPDATE and DELETE).
    await pg_pool.execute(
        "INSERT INTO events (xid, season_id, version, event_id, type, data, metadata, "
        "recorded_at, prev_hash, hash) VALUES (pg_current_xact_id(), $1, $2, $3, "
        "'divan_requested.v1', $4, '{\"actor\": \"ops\"}', now(), $5, $6)",
        "all-b",
        last.version + 1,
        UUID(int=81),
        b'{"divan":3,"type":"divan_requested.v1"}',
        last.hash,
        bytes(32),
    )
    done = await run_cli("verify", "--all", "--dsn", migrated_pg_dsn)
    assert done.returncode == 1, done.stdout
    assert "[1/3] all-a: ok" in done.stderr and "[3/3] all-c: ok" in done.stderr
    assert f"[2/3] all-b: FAILED at version {last.version + 1}" in done.stderr
    summary = json.loads(done.stdout)
    assert (summary["seasons"], summary["ok"]) == (3, 2)
    assert summary["failed"][0]["season"] == "all-b"
    assert summary["failed"][0]["first_bad_event"]["version"] == last.version + 1
    assert "2 of 3 seasons verify, 1 fail" in done.stderr

    one = await run_cli("verify", "all-b", "--dsn", migrated_pg_dsn)
    assert one.returncode == 1
    assert json.loads(one.stdout)["first_bad_event"]["why"] == (
        "hash does not match the event's content"
    )
    # ADR-53: verify of one stored season prints the corrections with their gold amounts (ops'
    # lines) and what a mismatched event holds: an ops read, recorded as replay's is; --all
    # prints only each season's verdict line and records none
    assert [r.what for r in await event_store.ops_reads.list("all-b")] == ["verify"]
    assert await event_store.ops_reads.list("all-a") == []


async def test_replay_by_season_id_writes_nothing(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    await store_season(event_store, "replayed", 8, divans=3)
    version = await event_store.stream_version("replayed")
    done = await run_cli("replay", "replayed", "--divan", "2", "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr
    assert "same as the record" in done.stdout and "Divan 2" in done.stdout
    missing = await run_cli("replay", "nobody", "--dsn", migrated_pg_dsn)
    assert missing.returncode == 2 and "no season 'nobody'" in missing.stderr
    assert await event_store.stream_version("replayed") == version
    # ADR-53: its tables show every bey's gold: an ops read, in the trail, not the stream
    done = await run_cli("replay", "replayed", "--json", "--dsn", migrated_pg_dsn)
    assert done.returncode == 0 and "gold" in done.stdout
    reads = await event_store.ops_reads.list("replayed")
    assert [r.what for r in reads] == ["replay/divans/2", "replay"]
    assert all(r.actor.startswith("cli:") for r in reads)


async def test_a_version_1_season_imports_as_version_1_and_has_no_redacted_export(
    migrated_pg_dsn: str, pg_server_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    """ADR-52: an export of a season on chain version 1 (stored before migration 0007) imports
    into an audit copy on version 1, with the same hashes, and verifies there; `export
    --redact` of it is refused while it is not over; a version-2 season's redacted export
    verifies with exit 3 and cannot be imported (an audit copy needs every event's data)."""
    from shared.app.ops.export import to_new
    from tests.audit.support import records_v1

    records = await records_v1("old", 21)
    cut = next(i for i, r in enumerate(records) if r.type == "kurultay_held.v1")
    await event_store.append("old", 0, to_new(records[:cut]), chain=1)
    path = tmp_path / "old.jsonl"
    done = await run_cli("export", "old", "--dsn", migrated_pg_dsn, "-o", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(path.read_text().splitlines()[0])["chain"] == "seksenbir/event-chain/1"
    refused = await run_cli("export", "old", "--redact", "--dsn", migrated_pg_dsn)
    assert refused.returncode == 1 and "hash-chain version 1" in refused.stderr
    async with other_database(pg_server_dsn, f"seksenbir_audit1_{SESSION}") as copy:
        done = await run_cli("import", str(path), "--dsn", copy)
        assert done.returncode == 0, done.stderr
        done = await run_cli("verify", "old", "--dsn", copy)
        assert done.returncode == 0, done.stdout
        assert json.loads(done.stdout)["head"] == records[cut - 1].hash.hex()
        conn = await asyncpg.connect(copy)
        try:
            assert await conn.fetchval("SELECT chain FROM streams WHERE season_id = 'old'") == 1
        finally:
            await conn.close()

        await store_season(event_store, "new", 22, live=True, divans=2)
        redacted = tmp_path / "new.jsonl"
        args = ("export", "new", "--redact", "--dsn", migrated_pg_dsn, "-o", str(redacted))
        assert (await run_cli(*args)).returncode == 0
        done = await run_cli("verify", str(redacted))
        assert done.returncode == 3, done.stdout
        assert json.loads(done.stdout)["redacted"] > 0
        done = await run_cli("import", str(redacted), "--dsn", copy)
        assert done.returncode == 1 and "redacted" in done.stderr


async def test_explain_what_if_and_shadow_read_a_stored_season_and_write_nothing(
    migrated_pg_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    """Issue 13: the ops verbs on a season id read it from PostgreSQL; its stream is the same
    bytes afterwards."""
    await store_season(event_store, "ops-tools", 12, divans=2)
    before = await event_store.read_stream("ops-tools")
    done = await run_cli("--lang", "en", "explain", "ops-tools", "2", "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr
    assert "Divan 2: explanation" in done.stdout and "Verification: the re-run" in done.stdout
    changes = tmp_path / "changes.json"
    changes.write_text('{"dice": [{"target": 6, "side": "defence", "value": 2}]}')
    done = await run_cli(
        "what-if", "ops-tools", "1", "--file", str(changes), "--json", "--dsn", migrated_pg_dsn
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["divan"] == 1
    # ADR-53: both showed every bey's orders: recorded in the ops-read trail, as over HTTP
    reads = await event_store.ops_reads.list("ops-tools")
    assert [r.what for r in reads] == ["divans/2/explain", "divans/1/what-if"]
    assert all(r.actor.startswith("cli:") for r in reads)
    seksenbir = Path(sys.executable).parent / "seksenbir"
    done = await run_cli(
        "shadow", "ops-tools", "--adjudicate-cmd", f"{seksenbir} adjudicate",
        "--dsn", migrated_pg_dsn,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"divans": 2, "changed": []}
    assert "ops-tools Divan 2: same" in done.stderr
    # … and so did the shadow run, every Divan's: recorded too (ADR-53)
    reads = await event_store.ops_reads.list("ops-tools")
    assert [r.what for r in reads] == ["divans/2/explain", "divans/1/what-if", "shadow"]
    assert reads[-1].actor.startswith("cli:")
    assert await event_store.read_stream("ops-tools") == before


async def test_verify_by_season_id_checks_the_sealed_orders_of_a_stored_season(
    migrated_pg_dsn: str, event_store: PostgresEventStore
) -> None:
    """ADR-57 online: `seksenbir verify SEASON` recomputes every seal of a stored season of
    report version 3 from its locks, the seed and the seed salt."""
    await store_season(event_store, "sealed", 9, divans=3, report_version=SEALED_REPORT_VERSION)
    done = await run_cli("verify", "sealed", "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)
    assert verdict["sealed_orders"] == (
        f"ok: at 3 Divan(s) the orders resolved are the orders sealed ({3 * SEATS} digests"
        " recomputed)"
    )
    assert "sealed orders: ok" in done.stderr
