"""D-27 (issue 11, Strict input): every integer a request carries is a strict JSON integer
within its documented bounds, or the request is refused, naming the field, and changes nothing.

Litestar converted bodies with strict=False: `"units": "3"` became 3, `"memleket": "6"`
created a season and `"units": 2**70` was taken. Each row below sends one such integer where
an operation takes one, and must answer 422 `invalid_body` (a body) or `invalid_parameter`
(a path parameter) with the offending `field`. The bounds come from shared.app.http.bounds.BOUNDS.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from shared.app.http.bounds import BOUNDS
from tests.http.support import (
    ANKARA,
    OPS_TOKEN,
    Api,
    assert_problem,
    bearer,
    create_trial,
    unchanged,
)
from tests.http.test_live_seasons import close_in, create_live

BAD_INTEGERS: list[tuple[str, Any]] = [
    ("a string", "3"),
    ("2^70", 2**70),
    ("-2^70", -(2**70)),
    ("a float", 2.5),
    ("a whole float", 2.0),
    ("true", True),
    ("null", None),
]


def _order(**fields: Any) -> dict[str, Any]:
    return {"orders": [{"province": ANKARA, "kind": "advance", "target": 71, "units": 2, **fields}]}


# (operation, field as a JSON path, body with the field set to `value`, its bound)
BODIES: dict[str, tuple[str, str, Any, str]] = {
    "memleket": ("create", "$.memleket", lambda v: {"memleket": v}, "plate"),
    "order province": ("orders", "$.orders[0].province", lambda v: _order(province=v), "plate"),
    "order target": ("orders", "$.orders[0].target", lambda v: _order(target=v), "plate"),
    "order units": ("orders", "$.orders[0].units", lambda v: _order(units=v), "units"),
    "order set divan": ("orders", "$.divan", lambda v: {**_order(), "divan": v}, "divan"),
    "spend province": ("spend", "$.province", lambda v: {"kind": "sur", "province": v}, "plate"),
    "offer to": ("offers", "$.to", lambda v: {"to": v, "kind": "pact"}, "seat"),
    "vote candidate": ("vote", "$.candidate", lambda v: {"candidate": v}, "seat"),
    "divan request": ("divans", "$.divan", lambda v: {"divan": v}, "divan"),
}
URLS = {
    "orders": "/orders",
    "spend": "/spend",
    "offers": "/offers",
    "vote": "/kurultay/vote",
    "divans": "/divans",
}
NULLABLE = {"order target", "order set divan"}  # null means "none" / "the next Divan"


def _rows() -> list[Any]:
    rows = []
    for name, (_op, _field, _body, bound) in BODIES.items():
        b = BOUNDS[bound]
        values = [*BAD_INTEGERS, (f"{b.low - 1} (below)", b.low - 1), (f"{b.high + 1}", b.high + 1)]
        for label, value in values:
            if value is None and name in NULLABLE:
                continue
            rows.append(pytest.param(name, value, id=f"{name}: {label}"))
    return rows


@pytest.mark.parametrize(("name", "value"), _rows())
async def test_a_body_integer_that_is_not_a_strict_bounded_integer_is_422(
    memory_api: Api, name: str, value: Any
) -> None:
    """D-27: strict JSON integers within bounds; the problem names the field; nothing changes."""
    op, field, body, _bound = BODIES[name]
    if op == "create":
        request = memory_api.client.post("/v1/seasons", json=body(value))
    else:
        bey = await create_trial(memory_api.client)
        url = bey.url(URLS[op])
        request = memory_api.client.post(url, headers=bey.auth("k1"), json=body(value))
    response = await unchanged(memory_api.store, request)
    problem = assert_problem(response, 422, "invalid_body")
    assert problem["field"] == field, problem
    assert field in problem["detail"]


@pytest.mark.parametrize(("name", "value"), [("order units", 12), ("memleket", 81)])
async def test_the_bounds_themselves_are_accepted(memory_api: Api, name: str, value: int) -> None:
    """D-27: the bounds are inclusive (12 units is then clamped by R-4.2 at resolution)."""
    if name == "memleket":
        r = await memory_api.client.post("/v1/seasons", json={"memleket": value})
        assert r.status_code == 201, r.text
        return
    bey = await create_trial(memory_api.client)
    r = await memory_api.client.post(
        bey.url("/orders"), headers=bey.auth(), json=_order(units=value)
    )
    assert r.status_code == 200, r.text


PATHS = [
    ("withdraw", "/offers/{n}/withdraw", None),
    ("answer", "/offers/{n}/answer", {"answer": "accept"}),
    ("ops reissue", "/ops/seasons/{season}/beys/{n}/token", None),
]


@pytest.mark.parametrize("n", [0, 20, -1, 2**70])
@pytest.mark.parametrize(("name", "tail", "body"), PATHS, ids=[p[0] for p in PATHS])
async def test_a_path_seat_outside_its_bounds_is_422(
    memory_api: Api, name: str, tail: str, body: Any, n: int
) -> None:
    """D-27: a seat in a path is 1 … 19: `invalid_parameter`, naming the parameter."""
    bey = await create_trial(memory_api.client)
    if name == "ops reissue":
        url, headers = "/v1" + tail.format(season=bey.season_id, n=n), bearer(OPS_TOKEN)
    else:
        url, headers = bey.url(tail.format(n=n)), bey.auth()
    response = await unchanged(
        memory_api.store, memory_api.client.post(url, headers=headers, json=body)
    )
    problem = assert_problem(response, 422, "invalid_parameter")
    assert "1" in problem["detail"] and "19" in problem["detail"], problem
    field = {"withdraw": "to", "answer": "frm", "ops reissue": "seat"}[name]
    assert (problem["field"], problem["minimum"], problem["maximum"]) == (field, 1, 19)


async def test_an_unknown_field_is_named(memory_api: Api) -> None:
    """The unknown field's JSON path is in the problem (`field`)."""
    bey = await create_trial(memory_api.client)
    r = await memory_api.client.post(bey.url("/orders"), headers=bey.auth(), json=_order(colour=1))
    assert assert_problem(r, 422, "unknown_field")["field"] == "$.orders[0].colour"


@pytest.mark.parametrize("segment", ["+2", "02", " 2", "2_0", "%D9%A2", "2.0", "0x2"])
async def test_a_path_integer_that_is_not_plain_decimal_matches_no_route(
    memory_api: Api, segment: str
) -> None:
    """D-27: Python's int() took "+2", "02", "2_0" and "٢" (Arabic-Indic 2) as seat 2; a path
    integer is ASCII decimal digits only, anything else is no route (404 `not_found`)."""
    bey = await create_trial(memory_api.client)
    request = memory_api.client.post(bey.url(f"/offers/{segment}/withdraw"), headers=bey.auth())
    assert_problem(await unchanged(memory_api.store, request), 404, "not_found")


@pytest.mark.parametrize("seed", [42, "-1", "0x10", " 42", "٤٢", str(2**63), "1" * 30, 2.5])
async def test_r1_5_every_refused_seed_names_the_field_in_both_languages(
    memory_api: Api, seed: Any
) -> None:
    """D-27, R-1.5: a seed that is not a decimal string 0 … 2^63 − 1 is 422 invalid_body naming
    `$.seed`, whichever check refused it (the schema's pattern or the range), in both texts."""
    for lang in ("tr", "en"):
        request = memory_api.client.post(
            "/v1/seasons", json={"memleket": 6, "seed": seed}, headers={"Accept-Language": lang}
        )
        problem = assert_problem(await unchanged(memory_api.store, request), 422, "invalid_body")
        assert problem["field"] == "$.seed", problem
        assert "$.seed" in problem["detail"], problem


CHOICES = [
    ("/orders", {"orders": [{"province": 6, "kind": "attack"}]}, "$.orders[0].kind",
     ["advance", "support", "hold"]),
    ("/offers", {"to": 2, "kind": "marriage"}, "$.kind", ["pact", "alliance"]),
    ("/spend", {"kind": "parali_asker", "province": 6}, "$.kind",
     ["sur", "paralı_asker", "satın_alma"]),
    ("/offers/2/answer", {"answer": "maybe"}, "$.answer", ["accept", "reject"]),
]  # fmt: skip


@pytest.mark.parametrize(("path", "body", "field", "choices"), CHOICES)
async def test_a_value_outside_its_choices_is_told_the_choices(
    memory_api: Api, path: str, body: dict[str, Any], field: str, choices: list[str]
) -> None:
    """A useful message (house rules): an order kind, a treaty kind, a purchase or an answer
    that is none of its values names the values it may be, in both languages."""
    bey = await create_trial(memory_api.client)
    for lang in ("tr", "en"):
        headers = {**bey.auth("k-" + lang), "Accept-Language": lang}
        request = memory_api.client.post(bey.url(path), headers=headers, json=body)
        problem = assert_problem(await unchanged(memory_api.store, request), 422, "invalid_body")
        assert problem["field"] == field, problem
        assert problem["detail"].startswith(f"{field}: "), problem
        assert all(c in problem["detail"] for c in choices), problem


async def test_a_text_too_long_or_empty_is_told_its_length_not_an_invalid_value(
    memory_api: Api,
) -> None:
    """Probe (session 20): a lobby description of 2,000 characters and an empty correction
    reason answered "$.description: geçersiz değer" / "invalid value": the schema's own
    length bound refused them before the free-text check could say what a text may be. The
    description gets the free-text check's words (1 … 280 visible characters), a reason its
    length (1 … 500)."""
    api = memory_api
    created = await create_live(api, registration_closes_at=close_in(api, timedelta(hours=2)))
    sid, admin = created["season_id"], created["admin_token"]
    for lang, words in (("tr", "280"), ("en", "280")):
        body = {"mode": "live", "registration_closes_at": close_in(api, timedelta(hours=2))}
        headers = {"Accept-Language": lang}
        r = await api.client.post(
            "/v1/seasons", json={**body, "description": "a" * 2000}, headers=headers
        )
        problem = assert_problem(r, 422, "invalid_body")
        assert problem["field"] == "$.description" and words in problem["detail"], problem
        for reason, limit in (("", "1"), ("a" * 600, "500")):
            r = await api.client.post(
                f"/v1/seasons/{sid}/admin/pause",
                json={"reason": reason},
                headers={**bearer(admin), **headers},
            )
            problem = assert_problem(r, 422, "invalid_body")
            assert problem["field"] == "$.reason", problem
            assert problem["detail"].startswith("$.reason: ") and limit in problem["detail"], (
                problem
            )
