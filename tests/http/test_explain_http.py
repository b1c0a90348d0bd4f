"""`GET /v1/ops/seasons/{id}/divans/{n}/explain` and `POST …/what-if` (issue 13): ops only,
typed answers, the documented refusals; a what-if writes nothing."""

from __future__ import annotations

from tests.audit.support import store_season
from tests.http.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    Api,
    assert_problem,
    bearer,
    create_trial,
)

BASE = "/v1/ops/seasons/explained/divans"


async def test_ops_get_a_divan_verified_and_explained(memory_api: Api) -> None:
    """R-5.8, R-12.3: the verification and every battle of Divan 2; `?province=` narrows it."""
    await store_season(memory_api.store, "explained", 3, divans=2)
    r = await memory_api.client.get(f"{BASE}/2/explain", headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["verification"]["ok"] is True and body["divan"] == 2
    battles = body["explanation"]["battles"]
    assert battles and all("dice" in b and "bonus" in b and "rules" in b for b in battles)
    target = battles[0]["target"]
    r = await memory_api.client.get(
        f"{BASE}/2/explain", params={"province": target}, headers=bearer(OPS_TOKEN)
    )
    assert [b["target"] for b in r.json()["explanation"]["battles"]] == [target]


async def test_a_what_if_answers_the_difference_and_writes_nothing(memory_api: Api) -> None:
    await store_season(memory_api.store, "explained", 3, divans=2)
    before = await memory_api.store.read_stream("explained")
    r = await memory_api.client.get(f"{BASE}/2/explain", headers=bearer(OPS_TOKEN))
    battle = next(b for b in r.json()["explanation"]["battles"] if b["outcome"] != "standoff")
    advance = battle["groups"][0]["advances"][0]
    change = {"seat": advance["seat"], "from": advance["origin"], "kind": "remove"}
    r = await memory_api.client.post(
        f"{BASE}/2/what-if", json={"orders": [change]}, headers=bearer(OPS_TOKEN)
    )
    assert r.status_code == 200, r.text
    assert r.json()["changed"] is True
    assert battle["target"] in [b["target"] for b in r.json()["battles"]]
    assert await memory_api.store.read_stream("explained") == before
    r = await memory_api.client.post(f"{BASE}/2/what-if", json={}, headers=bearer(OPS_TOKEN))
    assert r.status_code == 200 and r.json()["changed"] is False


async def test_only_ops_and_the_refusals_are_documented(memory_api: Api) -> None:
    await store_season(memory_api.store, "explained", 3, divans=2)
    bey = await create_trial(memory_api.client)
    client, ops = memory_api.client, bearer(OPS_TOKEN)
    url = f"{BASE}/1/explain"
    assert_problem(await client.get(url), 401, "missing_token")
    assert_problem(await client.get(url, headers=bearer(AUDITOR_TOKEN)), 403, "forbidden")
    assert_problem(await client.get(url, headers=bearer(bey.token)), 403, "forbidden")
    assert_problem(await client.get(f"{BASE}/3/explain", headers=ops), 404, "divan_not_found")
    assert_problem(await client.get(f"{BASE}/17/explain", headers=ops), 422, "invalid_parameter")
    assert_problem(
        await client.get("/v1/ops/seasons/nobody/divans/1/explain", headers=ops),
        404,
        "season_not_found",
    )
    what_if = f"{BASE}/1/what-if"
    bad = {"dice": [{"target": 6, "side": "attack", "value": 3}]}
    assert_problem(await client.post(what_if, json=bad, headers=ops), 422, "invalid_body")
    extra = {"orders": [], "seed": 1}
    assert_problem(await client.post(what_if, json=extra, headers=ops), 422, "unknown_field")
    assert_problem(
        await client.post(f"{BASE}/4/what-if", json={}, headers=ops), 404, "divan_not_found"
    )
