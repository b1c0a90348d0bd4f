"""Players over the command API (issue 23, ADR-87): a key that lasts, bound to a seat on a
create or a join, at most one seat per season, rotated, and gone when its player leaves."""

from __future__ import annotations

import unicodedata
from datetime import timedelta

import pytest

from shared.app.access.tokens import token_hash
from shared.domain import codec
from shared.domain import events as ev
from shared.domain import player_events as pe
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


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("a", "invalid_name"),  # too short
        ("x" * 25, "invalid_name"),  # too long
        (" ab", "invalid_name"),  # a space at an end
        ("a  b", "invalid_name"),  # two spaces in a row
        ("a!b", "invalid_name"),  # a character no name holds
        ("<script>", "invalid_name"),
        ("ab\u202ecd", "invalid_name"),  # a bidirectional override: the free-text check
        ("x\u200by", "invalid_name"),  # a format character
        ("12", "invalid_name"),  # no letter
        ("Han", "name_reserved"),
        ("ops", "name_reserved"),
        ("0ps", "name_reserved"),  # a lookalike of "ops"
        ("sistem", "name_reserved"),
        ("3. bey", "name_reserved"),  # a seat form
        ("Bey 3", "name_reserved"),
        ("\u0410dmin", "name_reserved"),  # Cyrillic А: a lookalike of "admin"
        ("Konya Beyi", "name_reserved"),  # a computer bey's name
    ],
)
async def test_r15_5_a_players_name_is_refused_as_a_beys_name_is(
    memory_api: Api, name: str, code: str
):
    """R-15.5: a player's public name goes through the rule of a bey's name: the same code,
    text and field as a join with that name gets, and nothing stored."""
    api = memory_api
    r = await unchanged(api.store, api.client.post("/v1/players", json={"name": name}))
    problem = assert_problem(r, 422, code)
    assert problem["field"] == "$.name"
    season_id = (await create_live(api))["season_id"]
    as_bey = await api.client.post(
        f"/v1/seasons/{season_id}/join", json={"memleket": ISTANBUL, "name": name}
    )
    assert {k: as_bey.json()[k] for k in ("status", "code", "detail", "field")} == {
        k: problem[k] for k in ("status", "code", "detail", "field")
    }


@pytest.mark.parametrize("name", [7, "x" * 201])
async def test_a_player_name_that_is_no_string_or_over_its_bound_is_an_invalid_body(
    memory_api: Api, name: object
):
    r = await unchanged(
        memory_api.store, memory_api.client.post("/v1/players", json={"name": name})
    )
    assert_problem(r, 422, "invalid_body")


@pytest.mark.parametrize("name", ["Orhan", "Ayşe", "O'Brien-2", "Hanife"])
async def test_r15_5_a_player_name_by_the_rule_is_taken_and_kept_as_nfc(memory_api: Api, name: str):
    """R-15.5: a name the rule lets through is the player's, as its created event keeps it;
    "Orhan" and "Hanife" hold a reserved word but are not one. Decomposed input is kept NFC."""
    decomposed = unicodedata.normalize("NFD", name)
    player = await new_player(memory_api, decomposed)
    rows = await memory_api.store.players.read(player["player_id"])
    created = pe.decode(rows[0][1])
    assert isinstance(created, pe.PlayerCreated)
    assert created.name == unicodedata.normalize("NFC", name)


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
