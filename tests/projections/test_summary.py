"""Issue 11: the read side's season summary tells the ceasefire (R-6.7) and, for live seasons,
the calendar (R-1.3) with the next Divan's instant and the lock countdown at the read's instant;
the map marks every bey's memleket (R-3.1, R-3.3)."""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from services.projections.views import lock_fields, meta_view
from shared.app.access import tokens
from shared.app.answers.calendar_answer import calendar_in, calendar_out, lock_status
from shared.domain import calendar as cal
from shared.domain import commands as c
from shared.domain.evolve import fold
from shared.domain.simulate import must, season
from shared.domain.state import DIVANS, SeasonState
from shared.eventstore import InMemoryEventStore
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
    async with open_gateway(memory_store, redis, prefix, lambda: CREATED_AT) as (_gw, client):
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
LIVE_FIELDS = ("calendar", "next_divan_at", "locked", "seconds_to_lock", "paused", "cancelled")


class _Clock:
    """The server's instant for both APIs, set by the test (no wall clock)."""

    def __init__(self) -> None:
        self.now = CREATED_AT

    def __call__(self) -> datetime:
        return self.now


@pytest.mark.parametrize(
    ("resolved", "now", "paused", "expected"),
    [
        # (locked, seconds_to_lock, next_divan_at)
        (0, CREATED_AT, False, (False, DIVAN_1 - CREATED_AT, DIVAN_1)),
        (0, DIVAN_1 - timedelta(seconds=99.5), False, (False, 100, DIVAN_1)),  # rounded up
        (0, DIVAN_1, False, (True, 0, DIVAN_2)),  # its instant: locked; orders now for Divan 2
        (0, DIVAN_1 + timedelta(minutes=5), False, (True, 0, DIVAN_2)),  # still unresolved
        (
            1,
            DIVAN_1 + timedelta(minutes=5),
            False,
            (False, DIVAN_2 - DIVAN_1 - timedelta(minutes=5), DIVAN_2),
        ),
        (0, DIVAN_1 + timedelta(minutes=5), True, (False, None, None)),  # D-30: the clock stands
    ],
)
async def test_r1_3_the_summary_locks_and_counts_down_by_the_clock_as_the_status_does(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    resolved: int,
    now: datetime,
    paused: bool,
    expected: tuple[bool, Any, datetime | None],
) -> None:
    """R-1.3, R-4.4, D-30: a live Divan locks at its instant; `seconds_to_lock` counts down
    (rounded up) to the instant the orders placed now lock at, by the server's injected clock;
    a paused season neither locks nor counts. The read side's summary says exactly what the
    command side's status says at the same instant."""
    clock = _Clock()
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(4, season_id, divans=resolved))
    if paused:
        state = SeasonState()
        for chunk in chunks:
            state = fold(chunk, state)
        _s, acts = must(
            state, c.SeasonAdmin(act="pause", reason="test", at=DIVAN_1 - timedelta(hours=1))
        )
        chunks.append(acts)
    async with open_gateway(memory_store, redis, prefix, clock) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        clock.now = now
        summary = await _summary(client, season_id)
        status = (await client.get(f"/v1/seasons/{season_id}")).json()
    locked, seconds, at = expected
    if isinstance(seconds, timedelta):
        seconds = math.ceil(seconds.total_seconds())
    assert (summary["divan"], summary["paused"]) == (resolved, paused)
    assert (summary["locked"], summary["seconds_to_lock"]) == (locked, seconds)
    assert summary["next_divan_at"] == (cal.iso(at) if at is not None else None)
    assert {f: summary[f] for f in LIVE_FIELDS} == {f: status[f] for f in LIVE_FIELDS}


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


async def test_issue_12_season_admin_acts_are_in_the_public_reports_in_order(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 12 (D-30, D-31): each season-admin act, with its reason, instant and actor, is in
    the public reports after the Divans', in the order it happened, in the language asked for;
    and a rebuild gives the same."""
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(4, season_id, divans=1))
    state = SeasonState()
    for chunk in chunks:
        state = fold(chunk, state)
    assert state.calendar is not None
    pause_at = state.calendar.at(2) - timedelta(hours=30)
    state, paused = must(state, c.SeasonAdmin(act="pause", reason="sunucu taşınıyor", at=pause_at))
    resume_at = pause_at + timedelta(days=2)
    _s, resumed = must(state, c.SeasonAdmin(act="resume", reason="taşındı", by="ops", at=resume_at))
    chunks += [paused, resumed]
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        url = f"/v1/seasons/{season_id}/reports"
        reports = (await client.get(url)).json()["reports"]
        english = (await client.get(url, headers={"Accept-Language": "en"})).json()["reports"]
        await projector.rebuild(season_id)
        rebuilt = (await client.get(url)).json()["reports"]
    assert [r["kind"] for r in reports] == ["divan", "season_admin", "season_admin"]
    lines = [r["lines"][0] for r in reports[1:]]
    assert [(x["data"]["act"], x["data"]["reason"], x["data"]["by"]) for x in lines] == [
        ("pause", "sunucu taşınıyor", "admin"),
        ("resume", "taşındı", "ops"),
    ]
    assert lines[0]["data"]["at"] == cal.iso(pause_at)
    assert "durduruldu" in lines[0]["text"] and "sunucu taşınıyor" in lines[0]["text"]
    assert "paused" in english[1]["lines"][0]["text"]
    assert rebuilt == reports


async def test_d32_a_forks_status_and_summary_name_its_origin(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 13, D-32: a fork's `forked_from` is {season_id, divan} of its source, in the
    command side's status and the read side's summary alike; null for a season not forked."""
    from shared.domain.fork import after_divan, fork_events

    projector = Projector(memory_store, redis, prefix)
    source_id, fork_id = "sim", tokens.new_season_id()  # the simulated season's own id
    source = [e for step in season(3, 6) for e in step.events]
    upto = after_divan(source, 4)
    assert upto is not None
    forked = fork_events(
        fold(source[:upto]),
        upto,
        "ab" * 32,
        divan=4,
        seat=2,
        season_id=fork_id,
        seed=9,
        salt="s",
    )
    assert isinstance(forked, list)
    await append_chunk(memory_store, source_id, source, "source")
    await append_chunk(memory_store, fork_id, forked, "fork")
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for season_id in (source_id, fork_id):
            await projector.catch_up(season_id)
        origin = {"season_id": source_id, "divan": 4}
        assert (await _summary(client, fork_id))["forked_from"] == origin
        assert (await client.get(f"/v1/seasons/{fork_id}")).json()["forked_from"] == origin
        assert (await _summary(client, source_id))["forked_from"] is None
        assert (await client.get(f"/v1/seasons/{source_id}")).json()["forked_from"] is None


async def test_adr_53_a_correction_is_in_the_public_reports_and_hides_the_gold(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 13 ("replay, export and verification show both"): each correction ops apply is in
    the public reports after the Divan it follows, structured and in Turkish or English: what
    was set, why, the version it compensates. A gold correction names the bey, never the
    amount (R-14); a rebuild gives the same."""
    from shared.domain import events as ev

    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(4, season_id, divans=2))
    state = SeasonState()
    for chunk in chunks:
        state = fold(chunk, state)
    assert state.calendar is not None and state.divan == 2
    at = state.calendar.at(3) - timedelta(hours=30)
    seat = state.beys[0].seat
    gold = state.beys[0].gold + 987
    plate = state.owned_by(seat)[0]
    fixes = [
        c.ApplyCorrection(
            correction=ev.ProvinceFix(province=plate, owner=seat, units=7, sur=True),
            reason="yanlış zar",
            at=at,
            refers_to=40,
        ),
        c.ApplyCorrection(
            correction=ev.GoldFix(seat=seat, gold=gold), reason="vergi hatası", at=at
        ),
    ]
    for fix in fixes:
        state, done = must(state, fix)
        chunks.append(done)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        url = f"/v1/seasons/{season_id}/reports"
        reports = (await client.get(url)).json()["reports"]
        english = (await client.get(url, headers={"Accept-Language": "en"})).json()["reports"]
        await projector.rebuild(season_id)
        rebuilt = (await client.get(url)).json()["reports"]
    assert [(r["kind"], r["divan"]) for r in reports] == [
        ("divan", 1), ("divan", 2), ("correction", 2), ("correction", 2),
    ]  # fmt: skip
    province, money = (r["lines"][0] for r in reports[2:])
    assert province["data"] | {"at": None} == {
        "correction": "province", "divan": 2, "reason": "yanlış zar", "at": None,
        "refers_to": 40, "province": plate, "owner": seat, "units": 7, "sur": 1,
    }  # fmt: skip
    assert province["data"]["at"] == cal.iso(at)
    assert "Düzeltme" in province["text"] and "yanlış zar" in province["text"]
    assert "Correction" in english[2]["lines"][0]["text"]
    assert money["data"]["correction"] == "gold" and money["data"]["seat"] == seat
    # the amount as a number anywhere (not as digits inside a random hex chain hash)
    assert "gold" not in money["data"]
    assert not re.search(rf"\b{gold}\b", json.dumps(reports + english))
    assert rebuilt == reports


def test_r1_3_a_calendar_with_sub_second_instants_is_shown_as_it_locks_on_both_sides() -> None:
    """A close given to the microsecond (a client's `now + 30 s`) puts every compressed Divan
    on a sub-second instant. The calendar shows each instant exactly as the lock uses it, and
    the read side, which computes the countdown from the shown calendar, agrees with the
    command side's status at every instant around the lock (a calendar shown to the second
    made the summary lock 0.7 s before the status did, and a player read a lock instant 0.7 s
    before the real one)."""
    close = CLOSE + timedelta(microseconds=700_000)
    create = c.CreateSeason(
        season_id=tokens.new_season_id(),
        seed=3,
        mode="live",
        registration_closes_at=close,
        divan_interval_seconds=10,
        at=CREATED_AT,
    )
    state, _e = must(SeasonState(), create)
    state, _e = must(state, c.CloseRegistration(at=close))
    assert state.calendar is not None
    one = state.calendar.at(1)
    assert one == close + timedelta(seconds=10)
    shown = calendar_out(state.calendar)
    assert datetime.fromisoformat(shown.divans[0].at) == one
    assert calendar_in(shown).divans == state.calendar.divans
    meta = {k: json.loads(v) for k, v in meta_view(state, 9).items()}
    for delta in (-0.9, -0.5, -0.000_001, 0, 0.2, 0.5):
        now = one + timedelta(seconds=delta)
        command_side = msgspec.to_builtins(lock_status(state, now))
        assert lock_fields(meta, now) == command_side, delta
        assert command_side["locked"] is (delta >= 0), delta


KURULTAY_CLOSE = cal.live(CLOSE).kurultay_closes_at


@pytest.mark.parametrize(
    ("held", "now", "expected"),
    [
        (False, KURULTAY_CLOSE - timedelta(hours=3), 3 * 3600),
        (False, KURULTAY_CLOSE - timedelta(seconds=99.5), 100),  # rounded up, as seconds_to_lock
        (False, KURULTAY_CLOSE + timedelta(minutes=5), 0),  # closed, not held yet
        (True, KURULTAY_CLOSE + timedelta(minutes=5), None),  # held: the season is over
    ],
)
async def test_r10_4_a_live_kurultay_counts_down_to_its_close_as_the_status_does(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    held: bool,
    now: datetime,
    expected: int | None,
) -> None:
    """R-10.4, issue 20: beside `calendar.kurultay_closes_at`, a live Kurultay's status and
    summary give `seconds_to_kurultay_close` (rounded up, 0 once it has passed), as
    `seconds_to_lock` counts to a Divan; null outside the Kurultay (a running season below)."""
    clock = _Clock()
    projector = Projector(memory_store, redis, prefix)
    season_id = tokens.new_season_id()
    chunks = list(season_chunks(4, season_id))
    if not held:
        chunks = chunks[:-1]  # every Divan resolved, the Kurultay not held
    async with open_gateway(memory_store, redis, prefix, clock) as (_gw, client):
        for n, chunk in enumerate(chunks):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
        await projector.catch_up(season_id)
        clock.now = now
        summary = await _summary(client, season_id)
        status = (await client.get(f"/v1/seasons/{season_id}")).json()
        assert summary["phase"] == ("over" if held else "kurultay")
        assert summary["seconds_to_kurultay_close"] == expected
        assert status["seconds_to_kurultay_close"] == expected
        running = tokens.new_season_id()
        await append_chunk(memory_store, running, next(season_chunks(4, running)), "setup")
        await projector.catch_up(running)
        assert (await _summary(client, running))["seconds_to_kurultay_close"] is None
        status = (await client.get(f"/v1/seasons/{running}")).json()
        assert status["seconds_to_kurultay_close"] is None
