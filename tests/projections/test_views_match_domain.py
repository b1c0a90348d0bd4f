"""What the query API answers agrees with the domain at every Divan (R-10.2, R-10.5, R-14)."""

from __future__ import annotations

import re

import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from services.projections.reducers import Snapshot, project
from shared.domain import events as ev
from shared.domain.board import Board
from shared.domain.evolve import fold
from shared.domain.scoring import region_titles, standings
from shared.domain.state import SeasonState
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import create_live
from tests.projections.support import append_chunk, bearer, open_gateway, season_chunks


async def test_leaderboard_titles_and_map_follow_the_domain_at_every_divan(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    season_id = "domain"
    projector = Projector(memory_store, redis, prefix)
    state = SeasonState()
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        for n, chunk in enumerate(season_chunks(70, season_id)):
            state = fold(chunk, state)
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
            url = f"/v1/seasons/{season_id}"
            board = (await client.get(f"{url}/leaderboard")).json()["leaderboard"]
            domain = Board.of(state, state.divan)
            held = [e for e in chunk if isinstance(e, ev.KurultayHeld)]
            # after the Kurultay its final order, before it the seat in place of the lot
            expected = list(held[0].scores) if held else standings(domain)
            assert [(row["seat"], row["score"]) for row in board] == expected
            titles = (await client.get(f"{url}/titles")).json()
            assert {
                r: (t["seat"], t["title"]) for r, t in titles["regions"].items()
            } == region_titles(domain)
            assert titles["surgun"] == sorted(b.seat for b in state.beys if state.exiled(b.seat))
            hain = sorted(
                b.seat
                for b in state.beys
                if b.hain_through is not None and b.hain_through >= state.divan
            )
            assert titles["hain"] == hain
            provinces = (await client.get(f"{url}/map")).json()["provinces"]
            homes = {b.memleket: b.seat for b in state.beys}  # fixed all season
            for plate, p in enumerate(state.provinces, start=1):
                shown = provinces[str(plate)]
                home = homes.get(plate)
                if p.owner is None:
                    assert shown == {"owner": None, "milis": p.units, "memleket_of": home}
                else:
                    assert shown == {
                        "owner": p.owner,
                        "units": p.units,
                        "sur": p.sur,
                        "memleket_of": home,
                    }
    assert state.phase == "over"


async def test_a_rotated_token_stops_reading_once_the_rotation_is_projected(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await projector.sweep()
        old = live.tokens[1]
        assert (await client.get(live.url("/private"), headers=bearer(old))).status_code == 200
        r = await client.post(live.url("/token"), headers=bearer(old))
        assert r.status_code == 200, r.text
        new = r.json()["token"]
        await projector.sweep()
        for path in ("/private", "/battles/1"):
            r = await client.get(live.url(path), headers=bearer(old))
            assert r.status_code == 401, (path, r.text)
        assert (await client.post(live.url("/tickets"), headers=bearer(old))).status_code == 401
        assert (await client.get(live.url("/private"), headers=bearer(new))).status_code == 200


def _slot_tag(key: str) -> str:
    """The part of a key Redis Cluster hashes: the first non-empty {…}, else the whole key."""
    m = re.search(r"\{([^}]+)\}", key)
    return m.group(1) if m else key


def test_every_atomic_apply_stays_in_one_cluster_slot():
    keys = Keys("sb", "slot", 1)
    state, before = SeasonState(), Snapshot()
    version = 0
    for chunk in season_chunks(71, "slot"):
        state = fold(chunk, state)
        version += len(chunk)
        ops, before = project(keys, before, state, chunk, version, live=True)
        touched = {_slot_tag(op[1]) for op in ops if op[0] != "PUBLISH"} | {
            _slot_tag(keys.checkpoint)
        }
        assert touched == {"s:slot"}, touched
