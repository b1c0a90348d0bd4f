"""Defects an outside user found driving the running stack over HTTP with inputs nobody on
the team wrote (docs/api.md and the served OpenAPI document as the contract); each test here
failed before its fix.

- D-37 (R-1.3, D-20, D-29): a registration close far in the future (year 9999) or a huge
  `divan_interval_seconds` made the calendar overflow Python's datetime: 500 `internal`, an
  answer the document does not have. Now 422 `invalid_instant` (a close more than a year after
  the command, creation or postponement) and 422 `bad_interval` (S outside 2 … 86400).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.http.support import OPS_TOKEN, Api, assert_problem, bearer, unchanged


def _live(api: Api, ahead: timedelta, **more: Any) -> dict[str, Any]:
    return {"mode": "live", "registration_closes_at": (api.clock.now + ahead).isoformat(), **more}


async def test_d37_a_close_beyond_a_year_or_at_year_9999_is_invalid_instant_not_a_500(
    memory_api: Api,
) -> None:
    api = memory_api
    for close in ["9999-12-31T23:59:59+00:00", "9999-12-01T23:59:59+03:00"]:
        body = {"mode": "live", "registration_closes_at": close}
        r = await unchanged(api.store, api.client.post("/v1/seasons", json=body))
        assert_problem(r, 422, "invalid_instant")
    r = await api.client.post(
        "/v1/seasons",
        json=_live(api, timedelta(days=366)),
        headers={"Accept-Language": "en"},
    )
    problem = assert_problem(r, 422, "invalid_instant")
    latest = datetime.fromisoformat(problem["latest"])
    assert problem["latest"].endswith("+03:00")
    assert abs(latest - (api.clock.now + timedelta(days=365))) < timedelta(seconds=1)
    assert "at the latest" in problem["detail"]
    r = await api.client.post("/v1/seasons", json=_live(api, timedelta(days=364)))
    assert r.status_code == 201, r.text


async def test_d37_a_postponement_beyond_a_year_is_invalid_instant_not_a_500(
    memory_api: Api,
) -> None:
    api = memory_api
    r = await api.client.post("/v1/seasons", json=_live(api, timedelta(hours=2)))
    assert r.status_code == 201, r.text
    sid, admin = r.json()["season_id"], r.json()["admin_token"]
    for close in ["9999-12-31T23:59:59+00:00", (api.clock.now + timedelta(days=400)).isoformat()]:
        r = await unchanged(
            api.store,
            api.client.post(
                f"/v1/seasons/{sid}/admin/postpone",
                json={"reason": "far", "registration_closes_at": close},
                headers=bearer(admin),
            ),
        )
        assert_problem(r, 422, "invalid_instant")


async def test_d37_a_huge_divan_interval_is_bad_interval_not_a_500(memory_api: Api) -> None:
    api = memory_api
    for interval in [2**40, 2**63 - 1, 86_401]:
        body = _live(api, timedelta(days=2), divan_interval_seconds=interval)
        r = await unchanged(
            api.store, api.client.post("/v1/seasons", json=body, headers=bearer(OPS_TOKEN))
        )
        problem = assert_problem(r, 422, "bad_interval")
        assert (problem["minimum"], problem["maximum"]) == (2, 86_400)
    body = _live(api, timedelta(days=2), divan_interval_seconds=86_400)
    r = await api.client.post("/v1/seasons", json=body, headers=bearer(OPS_TOKEN))
    assert r.status_code == 201, r.text
