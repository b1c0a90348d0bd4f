"""Issue 11: the read side's season summary tells the ceasefire (R-6.7) and, for live seasons,
the calendar (R-1.3) with the next Divan's instant and the lock countdown at the read's instant;
the map marks every bey's memleket (R-3.1, R-3.3)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app import tokens
from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain.simulate import must, season
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.live_calendar import CREATED_AT, LIVE
from tests.projections.support import append_chunk, open_gateway, season_chunks

CLOSE = LIVE["registration_closes_at"]


async def _summary(client: httpx.AsyncClient, season_id: str) -> dict[str, Any]:
    r = await client.get(f"/v1/seasons/{season_id}/summary")
    assert r.status_code == 200, r.text
    status: dict[str, Any] = r.json()["status"]
    return status


async def test_r6_7_the_summary_tells_a_ceasefire_for_the_next_divan_as_the_status_does(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Seed 5 reveals Bayram at Divan 3: the summary says `ceasefire` true exactly while
    Divan 4 is next, as the command side's status does."""
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    seen: dict[int, tuple[bool, bool]] = {}
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, step in enumerate(season(5, 5)):
            await append_chunk(memory_store, season_id, step.events, f"step/{n}")
            await projector.catch_up(season_id)
            status = (await client.get(f"/v1/seasons/{season_id}")).json()
            seen[step.divan] = (
                (await _summary(client, season_id))["ceasefire"],
                status["ceasefire"],
            )
    assert seen == {d: (d == 3, d == 3) for d in range(6)}


async def test_r1_3_a_live_seasons_summary_has_its_calendar_in_istanbul_time(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """The calendar of the calendar_set.v1 event: provisional until registration closes, then
    final; ISO-8601 with +03:00; `next_divan_at` is the next Divan's instant. Trial: null."""
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    state, created = must(
        SeasonState(), c.CreateSeason(season_id=season_id, seed=3, mode="live", **LIVE)
    )  # type: ignore[arg-type]
    planned = cal.live(CLOSE)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        await append_chunk(memory_store, season_id, created, "create")
        await projector.catch_up(season_id)
        status = await _summary(client, season_id)
        assert status["phase"] == "registration"
        assert status["calendar"] == {
            "registration_closes_at": "2026-12-01T13:00:00+03:00",
            "divans": [{"divan": n, "at": cal.iso(at)} for n, at in enumerate(planned.divans, 1)],
            "kurultay_closes_at": cal.iso(planned.kurultay_closes_at),
            "provisional": True,
            "compressed": False,
        }
        assert status["calendar"]["divans"][0]["at"] == "2026-12-08T21:00:00+03:00"  # a Tuesday
        assert status["next_divan_at"] == status["calendar"]["divans"][0]["at"]
        _state, closed = must(state, c.CloseRegistration())
        await append_chunk(memory_store, season_id, closed, "close")
        await projector.catch_up(season_id)
        status = await _summary(client, season_id)
        assert status["calendar"]["provisional"] is False
        assert len(status["calendar"]["divans"]) == DIVANS

        short = tokens.new_season_id()
        _s, created = must(
            SeasonState(),
            c.CreateSeason(
                season_id=short,
                seed=3,
                mode="live",
                divan_interval_seconds=60,
                **LIVE,  # type: ignore[arg-type]
            ),
        )
        await append_chunk(memory_store, short, created, "create")
        await projector.catch_up(short)
        status = await _summary(client, short)
        assert status["calendar"]["compressed"] is True
        assert status["calendar"]["divans"][1]["at"] == cal.iso(CLOSE + timedelta(seconds=120))

        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        trial = r.json()["season_id"]
        await projector.catch_up(trial)
        status = await _summary(client, trial)
        assert (status["calendar"], status["next_divan_at"]) == (None, None)
        assert (status["locked"], status["seconds_to_lock"]) == (False, None)


DIVAN_1 = cal.live(CLOSE).divans[0]
DIVAN_2 = cal.live(CLOSE).divans[1]


@pytest.mark.parametrize(
    ("resolved", "now", "locked", "until"),
    [
        (0, CREATED_AT, False, DIVAN_1),  # days before: counting down to Divan 1
        (0, DIVAN_1 - timedelta(seconds=100), False, DIVAN_1),
        (0, DIVAN_1, True, DIVAN_2),  # its instant: locked, orders now count for Divan 2
        (0, DIVAN_1 + timedelta(minutes=5), True, DIVAN_2),  # not resolved yet: still locked
        (1, DIVAN_1 + timedelta(minutes=5), False, DIVAN_2),  # resolved: open for Divan 2
    ],
)
async def test_r1_3_locked_and_seconds_to_lock_come_from_the_clock_at_the_read(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    resolved: int,
    now: datetime,
    locked: bool,
    until: datetime,
) -> None:
    """R-1.3, R-4.4: a live Divan locks at its instant; `seconds_to_lock` counts down (rounded
    up) to the instant the orders placed now lock at, by the server's injected clock."""
    clock = StepClock(now - timedelta(milliseconds=1))  # each reading moves 1 ms
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = season_chunks(4, season_id, divans=resolved)
    async with open_gateway(memory_store, redis, prefix, clock) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        before = clock.now
        status = await _summary(client, season_id)
        read_at = clock.now  # the summary read the clock once: at most this instant
        assert before < read_at
        assert status["divan"] == resolved
        assert status["locked"] is locked
        assert status["seconds_to_lock"] == math.ceil((until - read_at).total_seconds())


async def test_r3_1_the_map_marks_every_beys_memleket(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Each bey's memleket carries its seat (owned or lost), every other il null (R-3.3)."""
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(4, season_id, divans=8))
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        provinces = (await client.get(f"/v1/seasons/{season_id}/map")).json()["provinces"]
        leaderboard = (await client.get(f"/v1/seasons/{season_id}/leaderboard")).json()
    homes = {b["memleket"]: b["seat"] for b in leaderboard["leaderboard"]}
    assert len(homes) == 19
    assert {int(p): v["memleket_of"] for p, v in provinces.items()} == {
        plate: homes.get(plate) for plate in range(1, 82)
    }
