"""Defects an outside user found driving the running stack over HTTP with inputs nobody on
the team wrote (docs/api.md and the served OpenAPI document as the contract); each test here
failed before its fix.

- D-37 (R-1.3, D-20, D-29): a registration close far in the future (year 9999) or a huge
  `divan_interval_seconds` made the calendar overflow Python's datetime: 500 `internal`, an
  answer the document does not have. Now 422 `invalid_instant` (a close more than a year after
  the command, creation or postponement) and 422 `bad_interval` (S outside 2 … 86400).
- An empty `Idempotency-Key` reached PostgreSQL's CHECK: 500; now 400 `bad_idempotency_key`.
- D-27: a refused body integer named the bounds of another field of the same name (a fork's
  `divan` "1 … 17"); a query parameter was called a "path parameter".
- D-22: the ops-read trail showed its instants in UTC (`Z`), every other answer +03:00.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from tests.http.support import AUDITOR_TOKEN, OPS_TOKEN, Api, assert_problem, bearer, unchanged


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


async def test_d27_a_body_integer_names_the_bounds_of_its_own_type_not_of_its_name(
    memory_api: Api,
) -> None:
    """D-27: a refused integer names the bounds it was refused for. A fork's `divan` is
    0 … 15 (D-32) but the problem said "must be an integer 1 … 17" (`minimum` 1, `maximum` 17:
    the order set's `divan`), so a client showing the bounds showed wrong ones; a correction's
    `gold` (0 … 1,000,000) named none."""
    api = memory_api
    r = await api.client.post("/v1/seasons", json={"memleket": 6})
    sid, token = r.json()["season_id"], r.json()["token"]
    en = {"Accept-Language": "en", **bearer(OPS_TOKEN)}
    r = await api.client.post(f"/v1/seasons/{sid}/fork", json={"divan": 16, "seat": 1}, headers=en)
    problem = assert_problem(r, 422, "invalid_body")
    assert (problem["field"], problem["minimum"], problem["maximum"]) == ("$.divan", 0, 15)
    assert problem["detail"] == "$.divan: must be an integer 0 … 15"
    body = {"correction": {"kind": "gold", "seat": 1, "gold": -1}, "reason": "x"}
    r = await api.client.post(f"/v1/ops/seasons/{sid}/corrections", json=body, headers=en)
    problem = assert_problem(r, 422, "invalid_body")
    assert (problem["minimum"], problem["maximum"]) == (0, 1_000_000)
    # the order set's own `divan` keeps 1 … 17
    r = await api.client.post(
        f"/v1/seasons/{sid}/orders", json={"orders": [], "divan": 0}, headers=bearer(token)
    )
    problem = assert_problem(r, 422, "invalid_body")
    assert (problem["minimum"], problem["maximum"]) == (1, 17)


async def test_d27_a_query_parameter_refused_is_not_called_a_path_parameter(
    memory_api: Api,
) -> None:
    """`?limit=0` on the ops-reads list said "The path parameter limit is invalid" (and
    `?province=abc` on explain the same): a query parameter is none of the path's. Both
    languages name the parameter and, since the query's bounds are read from the route's
    declaration (h-probe, session 20), the integers it takes; never "path"."""
    api = memory_api
    r = await api.client.post("/v1/seasons", json={"memleket": 6})
    sid = r.json()["season_id"]
    for lang, text in [
        ("en", "limit: must be an integer 1 … 1000"),
        ("tr", "limit: 1 … 1000 arasında bir tamsayı olmalı"),
    ]:
        r = await api.client.get(
            f"/v1/seasons/{sid}/audit/ops-reads?limit=0",
            headers={"Accept-Language": lang, **bearer(AUDITOR_TOKEN)},
        )
        problem = assert_problem(r, 422, "invalid_parameter")
        assert (problem["field"], problem["detail"]) == ("limit", text)
        assert "path" not in problem["detail"] and "yol" not in problem["detail"]


async def test_d22_an_ops_read_is_listed_at_its_instant_with_the_plus_0300_offset(
    memory_api: Api,
) -> None:
    """D-22: every instant an answer shows is ISO-8601 with +03:00 (the calendar, admin acts,
    the events' `at`); the ops-read trail answered UTC with `Z` (`…07:39:54.070468Z`)."""
    api = memory_api
    r = await api.client.post("/v1/seasons", json={"memleket": 6})
    sid = r.json()["season_id"]
    r = await api.client.get(f"/v1/ops/seasons/{sid}/export", headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    r = await api.client.get(f"/v1/seasons/{sid}/audit/ops-reads", headers=bearer(AUDITOR_TOKEN))
    assert r.status_code == 200, r.text
    (read,) = r.json()["reads"]
    assert read["what"] == "export"
    assert read["at"].endswith("+03:00"), read


async def test_an_empty_idempotency_key_is_bad_idempotency_key_not_a_500(api: Api) -> None:
    """`Idempotency-Key:` with an empty value reached PostgreSQL, whose idempotency_keys table
    refuses a key of length 0 (CHECK length(key) BETWEEN 1 AND 255): 500 `internal`, and on
    the in-memory store the empty key was kept. It is now 400 `bad_idempotency_key`, like a
    key longer than 200 characters, and nothing is appended."""
    r = await api.client.post("/v1/seasons", json={"memleket": 6})
    sid, token = r.json()["season_id"], r.json()["token"]
    for path, body in [
        ("orders", {"orders": []}),
        ("spend", {"kind": "sur", "province": 6}),
        ("offers", {"to": 2, "kind": "pact"}),
    ]:
        r = await unchanged(
            api.store,
            api.client.post(
                f"/v1/seasons/{sid}/{path}",
                json=body,
                headers={"Idempotency-Key": "", "Accept-Language": "en", **bearer(token)},
            ),
        )
        problem = assert_problem(r, 400, "bad_idempotency_key")
        assert problem["detail"] == "An Idempotency-Key has 1 … 200 characters"


async def test_a_text_its_pattern_refuses_is_told_what_it_must_be(memory_api: Api) -> None:
    """A seed of letters or a reason with a line break answered "$.seed: invalid value": the
    detail now says what to send, in the language asked for."""
    api = memory_api
    for lang, text in [
        ("tr", '$.seed: 0 … 2^63 − 1 arasında ondalık bir sayı, dizge olarak (ör. "7")'),
        ("en", '$.seed: a decimal number within 0 … 2^63 − 1, as a string (e.g. "7")'),
    ]:
        r = await api.client.post(
            "/v1/seasons", json={"memleket": 6, "seed": "abc"}, headers={"Accept-Language": lang}
        )
        problem = assert_problem(r, 422, "invalid_body")
        assert (problem["field"], problem["detail"]) == ("$.seed", text)
