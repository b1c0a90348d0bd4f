"""Players over the command API (issue 23, ADR-87): a key that lasts, bound to a seat on a
create or a join, at most one seat per season, rotated, and gone when its player leaves."""

from __future__ import annotations

from datetime import timedelta

import pytest

from shared.app.tokens import token_hash
from shared.domain import codec
from shared.domain import events as ev
from tests.http.support import ANKARA, ISTANBUL, Api, assert_problem, bearer, unchanged
from tests.http.test_live_seasons import create_live, join


async def new_player(api: Api, name: str | None = None) -> dict[str, str]:
    r = await api.client.post("/v1/players", json={} if name is None else {"name": name})
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body) == {"player_id", "player_key"}
    assert body["player_key"].startswith(f"sbp1.{body['player_id']}.")
    return body  # type: ignore[no-any-return]


async def bound(api: Api, season_id: str) -> dict[int, str]:
    stream = await api.store.read_stream(season_id)
    events = [codec.decode_stored(r.data, r.type) for r in stream]
    return {e.seat: e.player_id for e in events if isinstance(e, ev.SeatBound)}


async def test_a_player_is_a_public_id_and_a_key_kept_only_as_its_hash(memory_api: Api):
    player = await new_player(memory_api, "Ayşe")
    rows = await memory_api.store.players.read(player["player_id"])
    stored = b"".join(data for _t, data in rows)
    assert player["player_key"].encode() not in stored
    assert token_hash(player["player_key"]).encode() in stored


@pytest.mark.parametrize("name", ["a", "x" * 25, "ab\u202ecd", "a!b", " ab", 7])
async def test_a_player_name_outside_the_rule_is_refused(memory_api: Api, name: object):
    r = await unchanged(
        memory_api.store, memory_api.client.post("/v1/players", json={"name": name})
    )
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_body"


async def test_creating_and_joining_with_the_key_binds_the_seat_once_per_season(api: Api):
    """A player holds at most one seat of a season: a second join is 409 and appends nothing
    (in memory and on PostgreSQL)."""
    memory_api = api
    ayse, bora = await new_player(memory_api, "Ayşe"), await new_player(memory_api)
    created = await create_live(memory_api, memleket=ANKARA, player_key=ayse["player_key"])
    season_id = created["season_id"]
    r = await memory_api.client.post(
        f"/v1/seasons/{season_id}/join",
        json={"memleket": ISTANBUL, "player_key": bora["player_key"]},
    )
    assert r.status_code == 201, r.text
    assert await bound(memory_api, season_id) == {
        created["creator"]["seat"]: ayse["player_id"],
        r.json()["seat"]: bora["player_id"],
    }
    again = await unchanged(
        memory_api.store,
        memory_api.client.post(
            f"/v1/seasons/{season_id}/join", json={"memleket": 35, "player_key": ayse["player_key"]}
        ),
    )
    assert_problem(again, 409, "player_already_seated")
    r = await join(memory_api, season_id, 35)  # without a key: a seat of nobody's
    assert r.status_code == 201, r.text
    assert r.json()["seat"] not in await bound(memory_api, season_id)


async def test_a_wrong_rotated_or_left_key_is_refused_and_changes_nothing(memory_api: Api):
    player = await new_player(memory_api)
    season_id = (await create_live(memory_api))["season_id"]
    old = player["player_key"]
    r = await memory_api.client.post(f"/v1/players/{player['player_id']}/key", headers=bearer(old))
    assert r.status_code == 200, r.text
    new = r.json()["player_key"]
    assert new != old
    for key in (old, "sbp1." + "0" * 32 + "." + "A" * 32, "nonsense"):
        r = await unchanged(
            memory_api.store,
            memory_api.client.post(
                f"/v1/seasons/{season_id}/join", json={"memleket": ANKARA, "player_key": key}
            ),
        )
        assert_problem(r, 401, "bad_player_key")
    r = await memory_api.client.post(
        f"/v1/players/{player['player_id']}/leave", headers=bearer(new)
    )
    assert (r.status_code, r.json()) == (200, {"player_id": player["player_id"], "left": True})
    r = await memory_api.client.post(
        f"/v1/seasons/{season_id}/join", json={"memleket": ANKARA, "player_key": new}
    )
    assert_problem(r, 401, "bad_player_key")
    other = await new_player(memory_api)  # one player's key on another's path
    r = await memory_api.client.post(
        f"/v1/players/{player['player_id']}/key", headers=bearer(other["player_key"])
    )
    assert_problem(r, 401, "bad_player_key")


async def test_a_trial_or_a_seatless_live_create_takes_no_player_key(memory_api: Api):
    player = await new_player(memory_api)
    r = await unchanged(
        memory_api.store,
        memory_api.client.post(
            "/v1/seasons", json={"memleket": ANKARA, "player_key": player["player_key"]}
        ),
    )
    assert_problem(r, 403, "not_allowed_in_mode")
    close = (memory_api.clock.now + timedelta(hours=2)).isoformat()
    r = await memory_api.client.post(
        "/v1/seasons",
        json={"mode": "live", "registration_closes_at": close, "player_key": player["player_key"]},
    )
    assert_problem(r, 422, "invalid_body")
