"""`seksenbir import` of hostile files (issue 13, docs/export.md "Import"): all of a season or
nothing, and one line in the language asked, never a traceback.

Before, the import appended its batches of 500 in separate transactions after marking the
audit copy: a file whose later batch the database refused (a `\\u0000` in a line's metadata,
which the chain does not cover and jsonb cannot hold; an event id another season holds) left
the first 500 events stored, a half-written season that every retry was then refused as
existing. A season id the store cannot take and a NUL in one ended in asyncpg's traceback.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from shared.app.ops.export import export_lines
from shared.domain.state import NAMED_REPORT_VERSION
from shared.eventstore import PostgresEventStore
from tests.audit.support import Line, dump, rechain, season_records, store_season
from tests.integration.test_audit_cli import run_cli

SOURCE = "hostile-src"


async def genuine(season_id: str, *, divans: int | None = None) -> list[Line]:
    """A season played under `season_id` (its own ids, its own seals), as its export's lines."""
    records = await asyncio.to_thread(
        season_records, season_id, 5, live=True, report_version=NAMED_REPORT_VERSION
    )
    if divans is not None:
        cut = next(i for i, r in enumerate(records) if r.type == "divan_resolved.v1")
        records = records[: cut + 1]
    return [json.loads(x) for x in export_lines(season_id, records, records[-1].hash)]


async def stored_rows(dsn: str, season_id: str) -> tuple[int, int]:
    conn = await asyncpg.connect(dsn)
    try:
        events = await conn.fetchval("SELECT count(*) FROM events WHERE season_id = $1", season_id)
        marks = await conn.fetchval(
            "SELECT count(*) FROM audit_copies WHERE season_id = $1", season_id
        )
        return int(events), int(marks)
    finally:
        await conn.close()


async def test_an_import_refused_in_a_later_batch_writes_nothing_and_can_be_retried(
    migrated_pg_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    await store_season(event_store, SOURCE, 5, live=True, report_version=NAMED_REPORT_VERSION)
    records = await event_store.read_stream(SOURCE)
    assert len(records) > 600  # more than one batch of 500
    lines = [json.loads(x) for x in export_lines(SOURCE, records, records[-1].hash)]

    clean = await genuine("half")
    nul = [dict(x) for x in clean]
    nul[600] = {**nul[600], "metadata": {**nul[600]["metadata"], "command_id": "a\u0000b"}}
    path = tmp_path / "nul.jsonl"
    path.write_bytes(dump(nul))
    for lang, words in (("en", "nothing was written"), ("tr", "hiçbir şey yazılmadı")):
        done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn, lang=lang)
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
        assert words in done.stderr, done.stderr
        assert await stored_rows(migrated_pg_dsn, "half") == (0, 0)

    fixed = tmp_path / "half.jsonl"
    fixed.write_bytes(dump(clean))
    done = await run_cli("import", str(fixed), "--dsn", migrated_pg_dsn)
    assert done.returncode == 0, done.stderr  # the retry is not refused as existing
    assert await stored_rows(migrated_pg_dsn, "half") == (len(records), 1)
    verified = await run_cli("verify", "half", "--dsn", migrated_pg_dsn)
    assert verified.returncode == 0, verified.stdout

    # an event id that another season of the database holds, in the second batch
    taken = await genuine("taken")
    taken[700]["event_id"] = str(records[10].event_id)
    rechain(taken)
    path = tmp_path / "taken.jsonl"
    path.write_bytes(dump(taken))
    done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn)
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.splitlines()) == 1 and "nothing was written" in done.stderr
    assert str(records[10].event_id) in done.stderr and "and 0 more" in done.stderr
    assert await stored_rows(migrated_pg_dsn, "taken") == (0, 0)

    # over the live season it was exported from: refused, the season unchanged
    path = tmp_path / "same.jsonl"
    path.write_bytes(dump(lines))
    done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn)
    assert done.returncode == 1 and "exists" in done.stderr
    assert await stored_rows(migrated_pg_dsn, SOURCE) == (len(records), 0)


async def test_a_season_id_the_store_cannot_take_is_refused_before_any_write(
    migrated_pg_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    await store_season(event_store, "short-src", 6, divans=1)
    records = await event_store.read_stream("short-src")
    for season_id in ("s" * 101, "a\u0000b", "a\nb", "../../etc/x", "a b"):
        path = tmp_path / "bad-id.jsonl"
        bad = await genuine("short-src", divans=1)
        bad[0]["season_id"] = season_id  # the season's own id changed too: only the id is bad
        created = json.loads(bad[1]["data"])
        created["season_id"] = season_id
        bad[1]["data"] = json.dumps(created, separators=(",", ":"), sort_keys=True)
        bad[1]["data_digest"] = hashlib.sha256(bad[1]["data"].encode()).hexdigest()
        rechain(bad)
        path.write_bytes(dump(bad))
        for lang, words in (("en", "printable characters"), ("tr", "yazdırılabilir karakter")):
            done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn, lang=lang)
            assert done.returncode == 1, done.stderr
            assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
            assert words in done.stderr, done.stderr
    conn = await asyncpg.connect(migrated_pg_dsn)
    try:
        assert await conn.fetchval("SELECT count(*) FROM audit_copies") == 0
    finally:
        await conn.close()

    redacted = [
        json.loads(x) for x in export_lines("short-src", records, records[-1].hash, redact=True)
    ]
    path = tmp_path / "redacted.jsonl"
    path.write_bytes(dump(redacted))
    done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn, lang="tr")
    assert done.returncode == 1 and "gizlenmiş bir dışa aktarım" in done.stderr, done.stderr


async def test_an_export_that_cannot_be_written_is_one_line_and_leaves_no_cut_file(
    migrated_pg_dsn: str, event_store: PostgresEventStore, tmp_path: Path
) -> None:
    """`seksenbir export -o` into a missing folder, onto a folder, or to a full disk ended in
    a traceback (FileNotFoundError, IsADirectoryError, ENOSPC), the last one leaving a cut
    file behind that looks like an export."""
    await store_season(event_store, "written", 6, divans=1)
    for target, code in ((tmp_path / "no" / "such.jsonl", "ENOENT"), (tmp_path, "EISDIR")):
        for lang, words in (("en", "cannot be written"), ("tr", "yazılamıyor")):
            done = await run_cli(
                "export", "written", "--dsn", migrated_pg_dsn, "-o", str(target), lang=lang
            )
            assert done.returncode == 1, done.stderr
            assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr
            assert code in done.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    with open("/dev/full", "wb") as full:
        done = await asyncio.to_thread(
            subprocess.run,
            [
                sys.executable,
                "-m",
                "entrypoints.cli",
                "export",
                "written",
                "--dsn",
                migrated_pg_dsn,
                "--lang",
                "en",
            ],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1 and "ENOSPC" in done.stderr, done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no scratch file left


def test_a_write_cut_short_leaves_neither_the_export_nor_its_scratch_file(tmp_path: Path) -> None:
    from entrypoints.audit_sources import write_whole

    class Cut(list[bytes]):
        def __iter__(self) -> Any:
            yield b'{"format":"seksenbir-export/2"}\n'
            raise OSError(28, "No space left on device")

    target = tmp_path / "season.jsonl"
    with pytest.raises(OSError):
        write_whole(str(target), Cut())
    assert list(tmp_path.iterdir()) == []


async def test_two_imports_of_one_season_at_once_store_it_once_and_refuse_the_other(
    event_store: PostgresEventStore,
) -> None:
    """Two `seksenbir import`s of one file at once: both find no season and no audit-copy mark,
    then the second's mark waits for the first's commit and collides with it. That collision
    must be the refusal the verb knows (ConcurrencyError: the season exists), not asyncpg's
    UniqueViolationError and a traceback."""
    from shared.app.ops.export import to_new
    from shared.eventstore import ConcurrencyError

    records = await asyncio.to_thread(
        season_records, "twice", 5, live=True, report_version=NAMED_REPORT_VERSION
    )
    events = to_new(records)
    results = await asyncio.gather(
        *(
            event_store.import_stream("twice", events, chain=2, head=records[-1].hash)
            for _ in range(3)
        ),
        return_exceptions=True,
    )
    stored = [r for r in results if isinstance(r, list)]
    refused = [r for r in results if not isinstance(r, list)]
    assert len(stored) == 1 and len(refused) == 2, results
    assert all(isinstance(r, ConcurrencyError) for r in refused), refused
    assert [r.hash for r in stored[0]] == [r.hash for r in records]


async def test_the_folding_verbs_on_a_stored_event_that_does_not_decode_answer_one_line(
    migrated_pg_dsn: str, event_store: PostgresEventStore, pg_pool: asyncpg.Pool
) -> None:
    """An event written behind the store's back that no reader decodes: replay, explain,
    what-if and shadow by season id died with msgspec's traceback; verify names it."""
    await store_season(event_store, "undecodable", 8, divans=2)
    last = (await event_store.read_stream("undecodable"))[-1]
    await pg_pool.execute(
        "INSERT INTO events (xid, season_id, version, event_id, type, data, metadata, "
        "recorded_at, prev_hash, hash) VALUES (pg_current_xact_id(), $1, $2, $3, "
        "'evil_thing.v1', $4, '{\"actor\": \"ops\"}', now(), $5, $6)",
        "undecodable",
        last.version + 1,
        uuid.UUID(int=8181),
        b'{"type":"evil_thing.v1"}',
        last.hash,
        bytes(32),
    )
    for verb, extra in (
        ("replay", []),
        ("explain", ["2"]),
        ("shadow", ["--adjudicate-cmd", "false"]),
    ):
        args = [verb, "undecodable", *extra] if verb != "shadow" else [verb, *extra, "undecodable"]
        for lang, words in (("en", "data is not a known event"), ("tr", "bilinen bir olay değil")):
            done = await run_cli(*args, "--dsn", migrated_pg_dsn, lang=lang)
            assert done.returncode == 2, (verb, done.stderr)
            assert "Traceback" not in done.stderr, done.stderr
            assert len(done.stderr.splitlines()) == 1 and words in done.stderr, done.stderr


async def test_an_unknown_event_field_or_an_over_long_line_is_refused_before_any_write(
    migrated_pg_dsn: str, tmp_path: Path
) -> None:
    """Issue 20 item 7 (docs/export.md "An event line"): a field an event line does not have
    was dropped, so the audit copy kept less than the file held; a line over 1 MiB was read
    whole. Both are one line, nothing written, in either language; exit 2: not a season's
    export (ADR-155, docs/export.md "Exit codes")."""
    from shared.app.ops.export_read import MAX_LINE_BYTES

    lines = await genuine("limits-src", divans=1)
    extra = json.loads(json.dumps(lines))
    extra[2]["comment"] = "not in any event line"
    long = dump(lines[:2]) + b'{"pad":"' + b"x" * (MAX_LINE_BYTES + 1) + b'"}\n' + dump(lines[2:])
    for name, data, en, tr in (
        ("extra.jsonl", dump(extra), "'comment'", "'comment'"),
        ("long.jsonl", long, f"longer than {MAX_LINE_BYTES} bytes", f"{MAX_LINE_BYTES} bayttan"),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        for lang, words in (("en", en), ("tr", tr)):
            done = await run_cli("import", str(path), "--dsn", migrated_pg_dsn, lang=lang)
            assert done.returncode == 2, done.stderr
            assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1
            assert words in done.stderr and "line 3" in done.stderr.replace("satır 3", "line 3")
        assert await stored_rows(migrated_pg_dsn, "limits-src") == (0, 0)
