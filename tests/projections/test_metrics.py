"""GET /metrics (ARCHITECTURE, Interfaces): requests by route template, queue depths, how far
the read models trail the store; nothing a player sent in a label."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from prometheus_client.parser import text_string_to_metric_families

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore, PostgresEventStore
from tests.clock import StepClock
from tests.integration.support import new_event
from tests.projections.support import append_chunk, open_gateway, season_chunks


def _value(text: str, name: str) -> float:
    """The sample of an unlabelled metric."""
    for line in text.splitlines():
        if line.split(" ")[0] == name:
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in the metrics")


async def test_metrics_count_requests_by_route_and_show_the_projection_backlog(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "metered"
    chunks = list(season_chunks(9, season_id))
    await append_chunk(memory_store, season_id, chunks[0], "chunk/0")
    projector = Projector(memory_store, redis, prefix)
    await projector.catch_up(season_id)
    await append_chunk(memory_store, season_id, chunks[1], "chunk/1")  # not projected yet
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        assert (await client.get(f"/v1/seasons/{season_id}/map")).status_code == 200
        await client.get("/v1/seasons/secret-looking-id/map")
        r = await client.get("/metrics")
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain")
        text = r.text
        assert 'path="/v1/seasons/{season_id}/map"' in text  # the template, not the id
        assert "secret-looking-id" not in text and season_id not in text
        assert _value(text, "seksenbir_seasons") == 1
        assert _value(text, "seksenbir_projection_seasons_behind") == 1
        assert _value(text, "seksenbir_projection_events_behind") == len(chunks[1])
        assert 'seksenbir_queue_messages{queue="divans",state="ready"}' in text
        families = {f.name: f for f in text_string_to_metric_families(text)}  # parses as a whole
        served = [
            s
            for s in families["seksenbir_requests"].samples
            if s.labels["path"] == "/v1/seasons/{season_id}/map" and s.labels["status"] == "200"
        ]
        assert served and served[0].value >= 1
        buckets = [
            s
            for s in families["seksenbir_request_duration_seconds"].samples
            if s.name.endswith("_bucket") and s.labels["path"] == "/v1/seasons/{season_id}/map"
        ]
        # cumulative within each series (the registry is the process's: another test's
        # requests to the same path, with another method or status, are series of their own)
        series: dict[tuple[tuple[str, str], ...], list[Any]] = {}
        for b in buckets:
            key = tuple(sorted((k, v) for k, v in b.labels.items() if k != "le"))
            series.setdefault(key, []).append(b)
        assert series
        for one in series.values():
            assert one[-1].labels["le"] == "+Inf"
            assert [b.value for b in one] == sorted(b.value for b in one)
        await projector.catch_up(season_id)
        text = (await client.get("/metrics")).text
        assert _value(text, "seksenbir_projection_seasons_behind") == 0
        assert _value(text, "seksenbir_projection_events_behind") == 0


async def test_metrics_count_append_statements_and_the_appends_grouped_in_them(
    pg_pool: asyncpg.Pool, clock: StepClock, redis: aioredis.Redis, prefix: str
):
    """Group commit is visible: appends per statement, and groups split one by one."""
    event_store = PostgresEventStore(pg_pool, clock=clock, group_commit=1)
    await event_store.append("dup", 0, [new_event(1, space=1)])
    await asyncio.gather(
        *(event_store.append(f"g{n}", 0, [new_event(1, space=10 + n)]) for n in range(8))
    )
    await asyncio.gather(  # "copy" reuses "dup"'s event id: the unique index splits its group
        event_store.append("g0", 1, [new_event(2, space=10)]),
        event_store.append("g1", 1, [new_event(2, space=11)]),
        event_store.append("copy", 0, [new_event(1, space=1)]),
        return_exceptions=True,
    )
    stats = event_store.group_stats()
    assert stats.statements < stats.appends == 12 and stats.splits >= 1
    async with open_gateway(event_store, redis, prefix) as (_gw, client):
        text = (await client.get("/metrics")).text
    assert _value(text, "seksenbir_append_statements_total") == stats.statements
    assert _value(text, "seksenbir_appends_total") == stats.appends
    assert _value(text, "seksenbir_append_group_splits_total") == stats.splits


async def test_adr_147_a_scrape_after_the_first_reads_only_the_seasons_that_moved(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: Any,
):
    """Before, every scrape read every season ever made (the API's event loop held ~0.3–0.6 s
    at 20,000 seasons). After the first, a scrape reads the seasons appended to since the last
    and those behind then, and its gauges are the ones a read of every season gives."""
    from services.projections import positions as positions_module

    read: list[list[str] | None] = []
    real = positions_module.positions

    async def positions(store, redis_, prefix_, versions=None):  # type: ignore[no-untyped-def]
        read.append(None if versions is None else sorted(versions))
        return await real(store, redis_, prefix_, versions)

    monkeypatch.setattr(positions_module, "positions", positions)
    chunks = {s: list(season_chunks(30 + n, s)) for n, s in enumerate(("a", "b", "c"))}
    projector = Projector(memory_store, redis, prefix)
    for season_id, chunk in chunks.items():
        await append_chunk(memory_store, season_id, chunk[0], "chunk/0")
        await projector.catch_up(season_id)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):

        async def gauges() -> tuple[float, float, float]:
            text = (await client.get("/metrics")).text
            return (
                _value(text, "seksenbir_seasons"),
                _value(text, "seksenbir_projection_seasons_behind"),
                _value(text, "seksenbir_projection_events_behind"),
            )

        assert await gauges() == (3, 0, 0)
        await append_chunk(memory_store, "b", chunks["b"][1], "chunk/1")  # not projected yet
        await append_chunk(memory_store, "d", next(season_chunks(40, "d")), "chunk/0")
        d_events = await memory_store.stream_version("d")
        assert await gauges() == (4, 2, len(chunks["b"][1]) + d_events)
        await projector.catch_up("b")
        assert await gauges() == (4, 1, d_events)
        assert await gauges() == (4, 1, d_events)
    assert read == [None, ["b", "d"], ["b", "d"], ["d"]]
