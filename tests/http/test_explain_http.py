"""`GET /v1/ops/seasons/{id}/divans/{n}/explain` and `POST …/what-if` (issue 13): ops only,
typed answers, the documented refusals; a what-if writes nothing."""

from __future__ import annotations

from shared.domain.map import game_map
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
    # D-27: `?province=` is a plate, 1 … 81, as everywhere else (0 and 82 were answered 200
    # with every battle left out)
    for plate in (0, 82):
        problem = assert_problem(
            await client.get(f"{BASE}/1/explain?province={plate}", headers=ops),
            422,
            "invalid_parameter",
        )
        assert problem["field"] == "province"
    (param,) = [
        p
        for p in (await client.get("/v1/schema/openapi.json")).json()["paths"][
            "/v1/ops/seasons/{season_id}/divans/{divan}/explain"
        ]["get"]["parameters"]
        if p["name"] == "province"
    ]
    items = param["schema"]["oneOf"][0]["items"]
    assert (items["minimum"], items["maximum"]) == (1, 81)
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


async def test_r4_2_a_what_if_refuses_a_change_the_bey_could_not_have_given(
    memory_api: Api,
) -> None:
    """A what-if re-runs the rules, so a change they would have refused is 422 `invalid_body`
    naming why (R-4.1, R-4.2: the command API's own checks, against the state at the lock),
    not run as a no-op that answers `changed`; nothing is written."""
    await store_season(memory_api.store, "explained", 3, divans=2)
    client, ops = memory_api.client, bearer(OPS_TOKEN)
    before = await memory_api.store.read_stream("explained")
    r = await client.get(f"{BASE}/2/explain", headers=ops)
    advances = [
        a for b in r.json()["explanation"]["battles"] for g in b["groups"] for a in g["advances"]
    ]
    mine = advances[0]
    seat, origin = mine["seat"], mine["origin"]
    theirs = next(a["origin"] for a in advances if a["seat"] != seat)
    far = next(p for p in range(1, 82) if p != origin and p not in game_map().neighbours(origin))
    near = sorted(game_map().neighbours(origin))[0]
    advance = {"seat": seat, "from": origin, "kind": "advance"}
    cases = {
        "not_a_neighbour": [{**advance, "to": far, "units": 1}],
        "missing_target": [{**advance, "units": 1}],
        "bad_units": [{**advance, "to": near, "units": 0}],
        "not_your_province": [{**advance, "from": theirs, "to": near, "units": 1}],
        "duplicate_province": [{**advance, "to": near, "units": 1}, {**advance, "kind": "hold"}],
    }
    for reason, orders in cases.items():
        r = await client.post(f"{BASE}/2/what-if", json={"orders": orders}, headers=ops)
        assert_problem(r, 422, "invalid_body")
        assert reason in r.json()["detail"], (reason, r.text)
    twice = {"dice": [{"target": near, "side": "attack", "value": 1}] * 2}
    r = await client.post(f"{BASE}/2/what-if", json=twice, headers=ops)
    assert_problem(r, 422, "invalid_body")
    over = {"orders": [{**advance, "to": near, "units": 13}]}  # D-27: at most 12 units
    assert_problem(
        await client.post(f"{BASE}/2/what-if", json=over, headers=ops), 422, "invalid_body"
    )
    assert await memory_api.store.read_stream("explained") == before
