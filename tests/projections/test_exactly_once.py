"""Exactly once: redelivery, crashes mid-apply and a second projector never double-count (R 19, 20)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from shared import faults
from shared.eventstore import InMemoryEventStore, PostgresEventStore
from tests.projections.support import (
    append_chunk,
    assert_rebuild_equal,
    generation_dump,
    season_chunks,
)

pytestmark = pytest.mark.fault  # RELIABILITY tests: never skipped silently in CI
REPO = Path(__file__).resolve().parents[2]


# --- redelivered wake-ups -----------------------------------------------------------------------
async def test_redelivered_wake_ups_apply_every_event_exactly_once(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """Eight concurrent catch_ups per Divan (one projector and three more instances): the
    applied counts add up to the events appended, and the result is rebuild-equal."""
    season_id = "redelivered"
    shared = Projector(memory_store, redis, prefix)
    others = [Projector(memory_store, redis, prefix) for _ in range(3)]
    appended = applied = 0
    for n, chunk in enumerate(season_chunks(21, season_id)):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        appended += len(chunk)
        if n == 0:  # the first wake-up builds the projection: one rebuild, not several
            applied += await shared.catch_up(season_id)
            continue
        calls = [shared.catch_up(season_id) for _ in range(4)]
        calls += [p.catch_up(season_id) for p in others for _ in range(2)]
        counts = await asyncio.gather(*calls)
        applied += sum(counts)
        assert sum(counts) == len(chunk), counts
        assert await redis.get(Keys(prefix, season_id, 1).checkpoint) == str(appended).encode()
    assert applied == appended
    # a redelivered wake-up after everything is applied is a no-op
    assert await asyncio.gather(*(shared.catch_up(season_id) for _ in range(5))) == [0] * 5
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    dump = await generation_dump(redis, prefix, season_id)
    # one public report per Divan, never two, and the Kurultay's (beside each Divan's
    # published chain head, ADR-52)
    reports = [k for k in dump["reports"] if not k.startswith("head:")]
    assert sorted(reports) == sorted([*map(str, range(1, 17)), "kurultay"])
    assert sorted(k for k in dump["reports"] if k.startswith("head:")) == sorted(
        f"head:{n}" for n in range(1, 17)
    )


# --- a batch interrupted between computing and applying ------------------------------------------
async def test_a_batch_interrupted_mid_apply_leaves_the_old_state_and_a_retry_catches_up(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """FAULT_POINT=mid_apply:raise: nothing of the batch is visible, the checkpoint stays."""
    season_id = "interrupted"
    chunks = list(season_chunks(4, season_id))
    projector = Projector(memory_store, redis, prefix)
    for n, chunk in enumerate(chunks[:6]):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
    before = await generation_dump(redis, prefix, season_id)
    await append_chunk(memory_store, season_id, chunks[6], "chunk/6")
    monkeypatch.setenv("FAULT_POINT", "mid_apply:raise")
    monkeypatch.setattr(faults, "_fired", set())
    with pytest.raises(faults.InjectedFault):
        await projector.catch_up(season_id)
    assert await generation_dump(redis, prefix, season_id) == before
    assert await projector.catch_up(season_id) == len(chunks[6])  # fired once: the retry applies
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


async def test_an_apply_whose_reply_is_lost_is_not_applied_twice(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str, monkeypatch
):
    """The Lua apply ran but the client saw a connection error: the retry finds the checkpoint
    already moved, refolds its cursor and applies nothing again."""
    season_id = "lost-reply"
    chunks = list(season_chunks(8, season_id))
    projector = Projector(memory_store, redis, prefix)
    for n, chunk in enumerate(chunks[:4]):
        await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
    await append_chunk(memory_store, season_id, chunks[4], "chunk/4")
    real = projector.sink.apply

    async def apply_then_fail(*args, **kwargs):
        await real(*args, **kwargs)
        raise ConnectionError("reply lost")

    monkeypatch.setattr(projector.sink, "apply", apply_then_fail)
    with pytest.raises(ConnectionError):
        await projector.catch_up(season_id)
    monkeypatch.setattr(projector.sink, "apply", real)
    assert await projector.catch_up(season_id) == 0
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


# --- crash in another process -------------------------------------------------------------------
async def _run_projector(
    dsn: str,
    redis_url: str,
    prefix: str,
    *extra: str,
    fault: str | None = None,
    timeout: float = 120,
) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FAULT_POINT", None)
    if fault:
        env["FAULT_POINT"] = fault
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.projections.projector_process",
        dsn,
        redis_url,
        prefix,
        *extra,
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    return proc.returncode or 0, out.decode(errors="replace")


def _applied(output: str) -> int:
    return sum(
        int(line.rsplit(" ", 1)[1]) for line in output.splitlines() if line.startswith("sweep ")
    )


@pytest.mark.integration
async def test_a_projector_killed_mid_apply_leaves_the_old_state_and_a_restart_is_rebuild_equal(
    event_store: PostgresEventStore,
    migrated_pg_dsn: str,
    redis_url: str,
    redis: aioredis.Redis,
    prefix: str,
):
    """RELIABILITY 19: FAULT_POINT=mid_apply:exit kills the process (137) with a batch computed
    but not applied; Redis shows the state before the batch; the next process ends rebuild-equal."""
    season_id = "crashed"
    chunks = list(season_chunks(12, season_id))
    for n, chunk in enumerate(chunks[:5]):
        await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
    code, out = await _run_projector(migrated_pg_dsn, redis_url, prefix)
    assert code == 0, out
    before = await generation_dump(redis, prefix, season_id)
    for n, chunk in enumerate(chunks[5:], start=5):
        await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
    code, out = await _run_projector(migrated_pg_dsn, redis_url, prefix, fault="mid_apply:exit")
    assert code == 137, out
    assert await generation_dump(redis, prefix, season_id) == before
    code, out = await _run_projector(migrated_pg_dsn, redis_url, prefix, "--batch", "16")
    assert code == 0, out
    assert _applied(out) == sum(len(c) for c in chunks[5:])
    await assert_rebuild_equal(event_store, redis, prefix, season_id)


@pytest.mark.integration
async def test_a_projector_killed_at_any_moment_never_double_counts(
    event_store: PostgresEventStore,
    migrated_pg_dsn: str,
    redis_url: str,
    redis: aioredis.Redis,
    prefix: str,
):
    """kill -9 while a long catch-up runs in small batches: the checkpoint and the views move
    together, so the restarted projector applies exactly the rest."""
    seasons = ["killed-a", "killed-b"]
    for seed, season_id in enumerate(seasons, start=30):
        first = next(season_chunks(seed, season_id))
        await append_chunk(event_store, season_id, first, "chunk/0")
    code, out = await _run_projector(migrated_pg_dsn, redis_url, prefix)
    assert code == 0, out
    for seed, season_id in enumerate(seasons, start=30):
        for n, chunk in enumerate(list(season_chunks(seed, season_id))[1:], start=1):
            await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FAULT_POINT", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.projections.projector_process",
        migrated_pg_dsn,
        redis_url,
        prefix,
        "--batch",
        "4",
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    checkpoint = Keys(prefix, seasons[0], 1).checkpoint
    try:
        async with asyncio.timeout(60):
            while int(await redis.get(checkpoint) or 0) < 100:
                await asyncio.sleep(0.005)
    finally:
        proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(proc.wait(), 10)
    done = [int(await redis.get(Keys(prefix, s, 1).checkpoint)) for s in seasons]
    heads = [await event_store.stream_version(s) for s in seasons]
    assert done[0] < heads[0], "the kill came too late to interrupt anything"
    code, out = await _run_projector(migrated_pg_dsn, redis_url, prefix)
    assert code == 0, out
    assert _applied(out) == sum(heads) - sum(done)
    for season_id in seasons:
        await assert_rebuild_equal(event_store, redis, prefix, season_id)


# --- two projectors at once (split brain) --------------------------------------------------------
async def test_the_laggards_apply_is_rejected_by_the_checkpoint(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """RELIABILITY 20: B computes a batch from checkpoint v; A applies first; B's apply (expected
    v) is refused, B applies nothing, and later catches up normally."""
    season_id = "split"
    chunks = list(season_chunks(6, season_id))
    a, b = Projector(memory_store, redis, prefix), Projector(memory_store, redis, prefix)
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    await a.catch_up(season_id)
    await append_chunk(memory_store, season_id, chunks[1], "chunk/1")
    entered, release = asyncio.Event(), asyncio.Event()
    verdicts: list[bool] = []
    real = b.sink.apply

    async def gated(*args, **kwargs):
        entered.set()
        await release.wait()
        verdict = await real(*args, **kwargs)
        verdicts.append(verdict)
        return verdict

    b.sink.apply = gated  # type: ignore[method-assign]
    laggard = asyncio.create_task(b.catch_up(season_id))
    await asyncio.wait_for(entered.wait(), 10)
    assert await a.catch_up(season_id) == len(chunks[1])
    release.set()
    assert await asyncio.wait_for(laggard, 10) == 0
    assert verdicts == [False]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
    await append_chunk(memory_store, season_id, chunks[2], "chunk/2")
    assert await b.catch_up(season_id) == len(chunks[2])  # the laggard recovers by refolding
    assert verdicts == [False, True]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)


@pytest.mark.integration
async def test_two_projector_processes_at_once_apply_each_event_once(
    event_store: PostgresEventStore,
    migrated_pg_dsn: str,
    redis_url: str,
    redis: aioredis.Redis,
    prefix: str,
):
    """RELIABILITY 20 with processes: two sweepers on the same projection race batch by batch;
    together they apply every event exactly once and the result is rebuild-equal."""
    seasons = {f"brain-{seed}": list(season_chunks(seed, f"brain-{seed}")) for seed in (40, 41, 42)}
    projector = Projector(event_store, redis, prefix)
    for season_id, chunks in seasons.items():
        await append_chunk(event_store, season_id, chunks[0], "chunk/0")
        await projector.catch_up(season_id)  # the generation exists: both processes catch up
    for season_id, chunks in seasons.items():
        for n, chunk in enumerate(chunks[1:], start=1):
            await append_chunk(event_store, season_id, chunk, f"chunk/{n}")
    runs = await asyncio.gather(
        *(
            _run_projector(migrated_pg_dsn, redis_url, prefix, "--batch", "8", "--rounds", "3")
            for _ in range(2)
        )
    )
    for code, out in runs:
        assert code == 0, out
    expected = sum(len(c) for chunks in seasons.values() for c in chunks[1:])
    assert sum(_applied(out) for _code, out in runs) == expected
    for season_id in seasons:
        await assert_rebuild_equal(event_store, redis, prefix, season_id)


async def test_a_projector_new_to_a_season_reads_its_stream_once_and_ends_rebuild_equal(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """A restarted projector (no fold in memory) catching up a season reads the stream once,
    folding what is projected and applying what is new from the same read."""
    season_id = "cold"
    chunks = list(season_chunks(23, season_id))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    await Projector(memory_store, redis, prefix).catch_up(season_id)
    await append_chunk(memory_store, season_id, chunks[1], "chunk/1")
    reads: list[tuple[str, int]] = []
    read_stream = memory_store.read_stream

    async def counted(sid: str, from_version: int = 0) -> list:  # type: ignore[type-arg]
        reads.append((sid, from_version))
        return await read_stream(sid, from_version)

    memory_store.read_stream = counted  # type: ignore[method-assign]
    assert await Projector(memory_store, redis, prefix).catch_up(season_id) == len(chunks[1])
    assert reads == [(season_id, 0)]
    memory_store.read_stream = read_stream  # type: ignore[method-assign]
    await assert_rebuild_equal(memory_store, redis, prefix, season_id)
