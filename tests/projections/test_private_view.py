"""Issue 11: one PrivateView (R-14) that `/me` (command side) and `/private` (read side) both
answer: missions with their text and progress (R-10.1), orders as {divan, orders}, the bey's
treaties in force and its offers in and out, and nothing of any other bey's."""

from __future__ import annotations

import msgspec
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from services.resolver.divan import resolve
from shared.app.answers.private_view import Count, OfferByMe, OfferToMe, OwnTreaty, private_view
from shared.app.repository.seasons import Seasons
from shared.domain.catalogue import MISSIONS
from shared.domain.map import game_map
from shared.domain.simulate import season
from shared.domain.state import Offer, SeasonState, Treaty
from shared.eventstore import InMemoryEventStore
from tests.projections.support import OPS_TOKEN, bearer, open_gateway

ALL = tuple(m.id for m in MISSIONS)
COMPONENT = {"$ref": "#/components/schemas/PrivateView"}


def _played(divans: int = 6) -> SeasonState:
    *_, last = season(5, divans)
    return last.state


def _with(state: SeasonState, seat: int, **bey: object) -> SeasonState:
    beys = tuple(
        msgspec.structs.replace(b, **bey) if b.seat == seat else b  # type: ignore[arg-type]
        for b in state.beys
    )
    return msgspec.structs.replace(state, beys=beys)


def test_r6_the_view_has_only_the_beys_own_treaties_and_offers() -> None:
    """R-6.1, R-6.2, R-14: seat 1's treaties (with the partner's seat) and offers in and out;
    the treaties and offers between other beys are not in it."""
    state = msgspec.structs.replace(
        _played(2),
        treaties=(Treaty("pact", 1, 2, 8), Treaty("alliance", 3, 4, 9), Treaty("pact", 1, 5, 7)),
        offers=(
            Offer("pact", 6, 1, "accept"),
            Offer("alliance", 1, 7),
            Offer("pact", 8, 9, "reject"),
        ),
    )
    view = private_view(state, 1, 40)
    assert view.treaties == [OwnTreaty("pact", 2, 8), OwnTreaty("pact", 5, 7)]
    assert view.offers_in == [OfferToMe(6, "pact", "accept")]
    assert view.offers_out == [OfferByMe(7, "alliance")]
    assert private_view(state, 3, 40).treaties == [OwnTreaty("alliance", 4, 9)]
    other = msgspec.json.encode(private_view(state, 9, 40))
    assert b'"from":6' not in other and b'"to":7' not in other
    assert msgspec.to_builtins(view.offers_in) == [{"from": 6, "kind": "pact", "answer": "accept"}]


@pytest.mark.parametrize("mission", ALL)
def test_r10_1_each_mission_has_its_text_and_its_progress(mission: str) -> None:
    """The catalogue's text (tr, en); counted missions (M-3 provinces, M-4 outside the
    memleket's region, M-8 gold) say `{have, need}` now and in their status line."""
    state = _with(_played(), 1, missions=(mission,), missions_done=())
    bey = state.bey(1)
    assert bey is not None
    (view,) = private_view(state, 1, 1).missions
    info = next(m for m in MISSIONS if m.id == mission)
    assert (view.id, view.name, view.completed_when, view.progress, view.done) == (
        mission,
        info.name,
        info.completed_when,
        info.progress,
        False,
    )
    region = game_map().region_of
    have = {
        "provinces": len(state.owned_by(1)),
        "outside_provinces": sum(1 for p in state.owned_by(1) if region[p] != region[bey.memleket]),
        "gold": bey.gold,
    }.get(info.measure or "")
    if have is None:  # measured within one Divan, or by titles and conquests: no count
        assert view.count is None
        assert (view.status.tr, view.status.en) == (info.name.tr, info.name.en)
    else:
        assert view.count == Count(have, info.target)  # type: ignore[arg-type]
        assert view.status.tr == f"{info.name.tr}: {have}/{info.target}"
        assert view.status.en == f"{info.name.en}: {have}/{info.target}"


def test_r10_1_a_done_mission_says_done_and_a_done_count_stays_reached() -> None:
    """M-8 completed with 15 gold stays done with 3 gold left (R-10.1: once done, done)."""
    state = _with(_played(), 1, missions=("M-8", "M-2"), missions_done=("M-8", "M-2"), gold=3)
    m8, m2 = private_view(state, 1, 1).missions
    assert (m8.done, m8.count, m8.status.en) == (True, Count(15, 15), "Save 15 gold: 15/15")
    assert (m2.done, m2.count, m2.status.en) == (True, None, "Conquer a big city: done")
    assert m2.status.tr == "Büyük şehir fethet: tamamlandı"


async def test_me_and_private_answer_one_private_view_with_the_same_values(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """After a Divan with orders and an offer, the command side's /me and the read side's
    /private (once projected) are the same PrivateView; /private adds the bey's reports, and an
    ops read of the seat answers what the bey sees. Both name one schema component."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id, token = r.json()["season_id"], r.json()["token"]
        s, bey = f"/v1/seasons/{season_id}", bearer(token)
        order = {"province": 6, "kind": "advance", "target": 71, "units": 11}
        assert (await client.post(f"{s}/orders", json={"orders": [order]}, headers=bey)).is_success
        assert (await client.post(f"{s}/divans", json={"divan": 1}, headers=bey)).is_success
        assert await resolve(Seasons(memory_store), season_id, 1) == "resolved"
        hold = {"province": 6, "kind": "hold"}
        assert (await client.post(f"{s}/orders", json={"orders": [hold]}, headers=bey)).is_success
        offer = {**bey, "Idempotency-Key": "offer-1"}
        assert (
            await client.post(f"{s}/offers", json={"to": 2, "kind": "pact"}, headers=offer)
        ).is_success
        await projector.catch_up(season_id)
        me = (await client.get(f"{s}/me", headers=bey)).json()
        private = (await client.get(f"{s}/private", headers=bey)).json()
        ops = await client.get(f"/v1/ops/seasons/{season_id}/beys/1", headers=bearer(OPS_TOKEN))
        doc = (await client.get("/v1/schema/openapi.json")).json()
    reports = private.pop("reports")
    assert [r["divan"] for r in reports] == [1]
    assert private == me
    assert ops.json() == {**me, "reports": reports}
    assert me["orders"] == {"divan": 2, "orders": [{**hold, "target": None, "units": 0}]}
    assert me["offers_out"] == [{"to": 2, "kind": "pact"}]
    assert {m["id"] for m in me["missions"]} <= set(ALL) and len(me["missions"]) == 2
    assert all(set(m["status"]) == {"tr", "en"} for m in me["missions"])
    for path in ("/v1/seasons/{season_id}/me", "/v1/seasons/{season_id}/private"):
        ok = doc["paths"][path]["get"]["responses"]["200"]
        assert ok["content"]["application/json"]["schema"] == COMPONENT, path
    assert "MeOut" not in doc["components"]["schemas"]


async def test_a_private_view_projected_before_its_fields_existed_is_rebuilt_not_a_500(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A projection written by an older version lacks fields of the PrivateView: /private
    answers 503 projection_rebuilding (Retry-After) and asks for a rebuild."""
    projector = Projector(memory_store, redis, prefix)
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        season_id, token = r.json()["season_id"], r.json()["token"]
        await projector.catch_up(season_id)
        gen = int(await redis.get(Keys.active(prefix, season_id)))  # type: ignore[arg-type]
        await redis.hdel(Keys(prefix, season_id, gen).private(1), "treaties", "next_divan")
        r = await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(token))
        assert r.status_code == 503, r.text
        assert (r.json()["code"], r.headers["retry-after"]) == ("projection_rebuilding", "2")
        assert gw.rebuilds == [season_id]
        await projector.rebuild(season_id)
        r = await client.get(f"/v1/seasons/{season_id}/private", headers=bearer(token))
        assert r.status_code == 200, r.text
