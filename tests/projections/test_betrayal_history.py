"""Betrayal history across seasons (issue 13): per bey memleket and per season, each betrayal
with its treaty (who, kind, from which Divan), the breaking order, the battle record and the
Hain badge (R-6.5), as R-14 allows each caller."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import (
    ANKARA,
    KIRIKKALE,
    create_live,
    hold_kurultay,
    pact_and_betrayal,
    resolve_live_divan,
)
from tests.projections.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    bearer,
    global_dump,
    open_gateway,
    rebuilt_globals,
)


async def _get(client: Any, url: str, token: str | None = None) -> dict[str, Any]:
    r = await client.get(url, headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def test_r6_5_r14_a_memlekets_betrayals_across_seasons_as_each_caller_may_see_them(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.5, R-14: bey A (memleket Ankara) breaks its pact with B (Kırıkkale) at Divan 1 in
    two seasons. Anyone sees, per memleket, who betrayed whom, where and the Hain badge, and
    the part the memleket's bey played; auditors and ops also see the treaty (kind, beys, the
    Divan it was accepted at), the breaking order and the battle record; after one season's
    Kurultay everyone sees that season's in full; an ops read during the season is recorded."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        first, second = await create_live(memory_store), await create_live(memory_store)
        for live in (first, second):
            await pact_and_betrayal(client, memory_store, live)
        projector = Projector(memory_store, redis, prefix)
        await projector.sweep()

        public = await _get(client, f"/v1/betrayals/memleket/{ANKARA}")
        assert public["memleket"] == ANKARA
        assert [s["season_id"] for s in public["seasons"]] == [second.season_id, first.season_id]
        for season in public["seasons"]:
            assert (season["phase"], season["full"]) == ("running", False)
            (b,) = season["betrayals"]
            assert (b["divan"], b["province"], b["role"]) == (1, KIRIKKALE, "traitor")
            assert b["traitor"] == {"seat": 1, "memleket": ANKARA}
            assert b["victim"] == {"seat": 2, "memleket": KIRIKKALE}
            assert b["hain_through"] == 5  # through Divan k+4
            assert b["treaty"] is None and b["orders"] is None and b["battle"] is None
        victim = await _get(client, f"/v1/betrayals/memleket/{KIRIKKALE}")
        assert {b["role"] for s in victim["seasons"] for b in s["betrayals"]} == {"victim"}
        assert (await _get(client, "/v1/betrayals/memleket/34"))["seasons"] == []

        audited = await _get(client, f"/v1/betrayals/memleket/{ANKARA}", AUDITOR_TOKEN)
        assert all(s["full"] for s in audited["seasons"])
        b = audited["seasons"][0]["betrayals"][0]
        assert b["treaty"] == {"kind": "pact", "beys": [1, 2], "from_divan": 1, "through_divan": 2}
        assert b["orders"] == [[1, ANKARA, 3]]  # [seat, from, units] into the province
        assert b["battle"]["target"] == KIRIKKALE
        assert await memory_store.ops_reads.list(first.season_id) == []  # an auditor's: no record

        ops = await _get(client, f"/v1/seasons/{first.season_id}/betrayals/history", OPS_TOKEN)
        assert ops["full"] and ops["betrayals"][0]["role"] is None
        assert [r.what for r in await memory_store.ops_reads.list(first.season_id)] == [
            "betrayals/history"
        ]

        # after the Kurultay, everything is everyone's
        while await resolve_live_divan(memory_store, first.season_id) < 16:
            pass
        await hold_kurultay(memory_store, first.season_id)
        await projector.sweep()
        after = await _get(client, f"/v1/betrayals/memleket/{ANKARA}")
        by_season = {s["season_id"]: s for s in after["seasons"]}
        assert by_season[first.season_id]["full"] and by_season[first.season_id]["phase"] == "over"
        assert by_season[first.season_id]["betrayals"][0]["orders"] == [[1, ANKARA, 3]]
        assert not by_season[second.season_id]["full"]
        # the history's index is a read model like the others: a rebuild restores it as it was
        assert await global_dump(redis, prefix) == await rebuilt_globals(
            memory_store, redis, prefix
        )


async def test_r14_a_seasons_betrayal_history_refusals(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """A plate outside 1 … 81 is 422, a token in the URL 400, a guessed token 401 (never the
    public view); a bey's token sees what anyone sees."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await Projector(memory_store, redis, prefix).sweep()
        r = await client.get("/v1/betrayals/memleket/82")
        assert (r.status_code, r.json()["code"]) == (422, "invalid_parameter")
        r = await client.get("/v1/betrayals/memleket/+6")
        assert (r.status_code, r.json()["code"]) == (404, "not_found")
        r = await client.get(f"/v1/seasons/{live.season_id}/betrayals/history?token=x")
        assert (r.status_code, r.json()["code"]) == (400, "token_in_query")
        for url in ("/v1/betrayals/memleket/6", f"/v1/seasons/{live.season_id}/betrayals/history"):
            r = await client.get(url, headers=bearer("not-a-token"))
            assert (r.status_code, r.json()["code"]) == (401, "bad_token")
        as_bey = await _get(client, "/v1/betrayals/memleket/6", live.tokens[1])
        assert as_bey["seasons"] == []
        empty = await _get(client, f"/v1/seasons/{live.season_id}/betrayals/history")
        assert empty["betrayals"] == [] and empty["full"] is False
