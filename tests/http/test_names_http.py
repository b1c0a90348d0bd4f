"""Beys' names over HTTP (issue 23, R-15.5, R-15.2): chosen at create and join, refused with a
code naming what is wrong, one winner of two racing joins with one name, shown in the status,
and reset by ops with a reason."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from shared.eventstore import EventStore
from tests.http.support import (
    ANKARA,
    ISTANBUL,
    OPS_TOKEN,
    Api,
    BarrierStore,
    Bey,
    assert_problem,
    bearer,
    open_api,
    play_divans,
    state_of,
    stream_types,
    unchanged,
)
from tests.http.test_live_seasons import create_live, status


def join(api: Api, season_id: str, memleket: int, name: str | None = None) -> Any:
    body: dict[str, Any] = {"memleket": memleket}
    if name is not None:
        body["name"] = name
    return api.client.post(f"/v1/seasons/{season_id}/join", json=body)


async def test_r15_5_a_name_chosen_at_the_join_is_shown_in_the_status(memory_api: Api) -> None:
    """R-15.5: the status lists every bey's name: chosen, or the seat form."""
    api = memory_api
    sid = (await create_live(api, memleket=ANKARA, name="Ayşe"))["season_id"]
    assert (await join(api, sid, ISTANBUL)).status_code == 201
    beys = (await status(api, sid))["beys"]
    assert beys == [
        {"seat": 1, "memleket": ANKARA, "computer": False, "name": "Ayşe", "chosen": True},
        {"seat": 2, "memleket": ISTANBUL, "computer": False, "name": "2. bey", "chosen": False},
    ]


@pytest.mark.parametrize(
    ("name", "status_code", "code"),
    [
        ("ayse", 409, "name_taken"),
        ("\u0410y\u015fe", 409, "name_taken"),  # a Cyrillic lookalike
        ("Bey 7", 422, "name_reserved"),
        ("Han", 422, "name_reserved"),
        ("a", 422, "invalid_name"),
        ("<script>", 422, "invalid_name"),
        ("x\u202ey", 422, "invalid_name"),
    ],
)
async def test_r15_5_a_refused_name_answers_its_code_and_changes_nothing(
    memory_api: Api, name: str, status_code: int, code: str
) -> None:
    """R-15.5: `name_taken`, `name_reserved`, `invalid_name` (naming `$.name`), nothing
    appended."""
    api = memory_api
    sid = (await create_live(api, memleket=ANKARA, name="Ayşe"))["season_id"]
    r = await unchanged(api.store, join(api, sid, ISTANBUL, name))
    problem = assert_problem(r, status_code, code)
    assert problem["field"] == "$.name"


async def test_r15_5_a_trial_season_takes_its_humans_name(memory_api: Api) -> None:
    """R-15.5: a trial season's bey may be named too; its computer beys are named by memleket."""
    r = await memory_api.client.post("/v1/seasons", json={"memleket": ANKARA, "name": "Orhan"})
    assert r.status_code == 201, r.text
    beys = (await status(memory_api, r.json()["season_id"]))["beys"]
    assert len(beys) == 19
    human = next(b for b in beys if not b["computer"])
    assert (human["name"], human["chosen"]) == ("Orhan", True)
    assert all(b["name"].endswith(" Beyi") for b in beys if b["computer"])


async def test_r15_5_a_live_name_without_a_memleket_is_refused(memory_api: Api) -> None:
    """R-15.5: a name is a bey's; a creator that does not play has none."""
    r = await memory_api.client.post(
        "/v1/seasons",
        json={"mode": "live", "name": "Ayşe", "registration_closes_at": "2030-01-01T00:00:00Z"},
    )
    assert_problem(r, 422, "invalid_name")


@pytest.mark.parametrize("round_", range(3))
async def test_r15_5_two_joins_racing_with_one_name_one_wins(
    api_store: EventStore, round_: int
) -> None:
    """R-15.5: two API processes decide on the same state (a barrier holds both appends);
    the expected version lets one append, the other decides again and is refused name_taken."""
    async with open_api(api_store) as setup:
        sid = (await create_live(setup))["season_id"]
    barrier = BarrierStore(api_store, parties=2)
    async with (
        open_api(api_store, api_store=barrier) as one,  # type: ignore[arg-type]
        open_api(api_store, api_store=barrier) as two,  # type: ignore[arg-type]
    ):
        answers = await asyncio.gather(
            join(one, sid, ANKARA, "Ayşe"), join(two, sid, ISTANBUL, "AYSE")
        )
    assert sorted(r.status_code for r in answers) == [201, 409], [r.text for r in answers]
    assert_problem(next(r for r in answers if r.status_code == 409), 409, "name_taken")
    state, _v = await state_of(api_store, sid)
    assert len(state.beys) == 1 and list(state.names.values()) in (["Ayşe"], ["AYSE"])


async def test_r15_2_ops_reset_a_name_with_a_reason_as_an_event(memory_api: Api) -> None:
    """R-15.2: ops reset an insulting name with a reason: a recorded event, the seat form
    shown after; a bey's own token cannot; a seat without a name has nothing to reset."""
    api = memory_api
    created = await create_live(api, memleket=ANKARA, name="Kaba Söz")
    sid, bey_token = created["season_id"], created["creator"]["token"]
    url = f"/v1/ops/seasons/{sid}/beys/1/name/reset"
    r = await api.client.post(url, json={"reason": "hakaret"}, headers=bearer(bey_token))
    assert r.status_code in (401, 403)
    r = await api.client.post(url, json={"reason": "hakaret"}, headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["seat"], body["name"], body["reason"]) == (1, "1. bey", "hakaret")
    assert (await stream_types(api.store, sid))[-1] == "bey_named.v1"
    assert (await status(api, sid))["beys"][0]["name"] == "1. bey"
    again = await api.client.post(url, json={"reason": "yine"}, headers=bearer(OPS_TOKEN))
    assert_problem(again, 422, "invalid_name")
    blank = await api.client.post(url, json={"reason": " "}, headers=bearer(OPS_TOKEN))
    assert_problem(blank, 422, "reason_required")


async def test_r15_5_a_name_is_in_its_own_event_and_in_no_divan_event(memory_api: Api) -> None:
    """R-15.5: after two Divans of a trial season whose bey is named, the name's bytes are in
    the `bey_named.v1` event and in no other event of the season (reports refer to seats)."""
    api = memory_api
    name = "Zeynep Özyurt"
    r = await api.client.post("/v1/seasons", json={"memleket": ANKARA, "name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    bey = Bey(body["season_id"], body["seat"], body["token"], ANKARA)
    await play_divans(api, bey, 2)
    records = await api.store.read_stream(bey.season_id)
    holding = [rec.type for rec in records if name.encode() in bytes(rec.data)]
    assert holding == ["bey_named.v1"]
    assert "divan_resolved.v1" in [rec.type for rec in records]


async def test_r15_2_ops_reset_a_lobby_description_with_a_reason_as_an_event(
    memory_api: Api,
) -> None:
    """R-15.2, ADR-105: ops reset an insulting lobby description with a reason: a recorded
    `season_listed.v1`, the season still listed and with no description; a bey's own token
    cannot; a season without one has nothing to reset, a trial season none at all."""
    api = memory_api
    created = await create_live(api, memleket=ANKARA, description="Kaba söz")
    sid, bey_token = created["season_id"], created["creator"]["token"]
    url = f"/v1/ops/seasons/{sid}/description/reset"
    r = await api.client.post(url, json={"reason": "hakaret"}, headers=bearer(bey_token))
    assert r.status_code in (401, 403)
    blank = await unchanged(
        api.store, api.client.post(url, json={"reason": " "}, headers=bearer(OPS_TOKEN))
    )
    assert_problem(blank, 422, "reason_required")
    r = await api.client.post(url, json={"reason": "hakaret"}, headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    body = r.json()
    assert (body["listed"], body["description"], body["reason"]) == (True, None, "hakaret")
    assert body["at"].endswith("+03:00")
    assert (await stream_types(api.store, sid))[-1] == "season_listed.v1"
    shown = await status(api, sid)
    assert (shown["listed"], shown["description"], shown["version"]) == (
        True,
        None,
        body["version"],
    )
    again = await unchanged(
        api.store, api.client.post(url, json={"reason": "yine"}, headers=bearer(OPS_TOKEN))
    )
    assert_problem(again, 409, "no_description")
    trial = (await api.client.post("/v1/seasons", json={"memleket": ANKARA})).json()["season_id"]
    r = await api.client.post(
        f"/v1/ops/seasons/{trial}/description/reset",
        json={"reason": "hakaret"},
        headers=bearer(OPS_TOKEN),
    )
    assert_problem(r, 403, "not_allowed_in_mode")
