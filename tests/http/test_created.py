"""POST /v1/seasons answers 201 with Location naming the new season (issue 11, RFC 9110 §10.2.2)."""

from __future__ import annotations

from tests.http.support import ANKARA, Api


async def test_a_created_season_is_named_by_the_location_header(api: Api) -> None:
    r = await api.client.post("/v1/seasons", json={"memleket": ANKARA})
    assert r.status_code == 201, r.text
    location = r.headers["location"]
    assert location == f"/v1/seasons/{r.json()['season_id']}"
    status = await api.client.get(location)
    assert status.status_code == 200 and status.json()["season_id"] == r.json()["season_id"]


async def test_the_location_header_is_documented(api: Api) -> None:
    doc = (await api.client.get("/v1/schema/openapi.json")).json()
    created = doc["paths"]["/v1/seasons"]["post"]["responses"]["201"]
    assert "Location" in created.get("headers", {})


async def test_the_idempotency_key_is_documented_required_where_it_is_required(api: Api) -> None:
    """/spend and /offers refuse a request without the key (idempotency_key_required)."""
    doc = (await api.client.get("/v1/schema/openapi.json")).json()
    required = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for p in op.get("parameters", []):
                if p["name"].lower() == "idempotency-key":
                    required[(method, path.removeprefix("/v1/seasons/{season_id}"))] = p["required"]
    assert required[("post", "/spend")] and required[("post", "/offers")]
    assert {k for k, v in required.items() if v} == {("post", "/spend"), ("post", "/offers")}
