"""A lost answer never loses a key (R-1.4, ADR-178): a request that issues a token or a key
takes the secret the client drew itself, and the same request sent again after its answer was
lost is answered as the first was, appending nothing; nothing secret is kept on the server.

Joins are recognised by the seat's token hash, rotations by the seat's new token hash (the
retry carries the old token), creations of seasons and players by their Idempotency-Key with
the secrets rebuilt from the request.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import timedelta
from typing import Any

import pytest

from shared.eventstore import EventStore
from tests.http.support import (
    ANKARA,
    Api,
    BarrierStore,
    assert_problem,
    log_bytes,
    open_api,
    state_of,
    unchanged,
)
from tests.http.test_live_seasons import close_in, create_live, joined, status


def secret() -> str:
    """What the web client draws: 24 random bytes as URL-safe base64, 32 characters."""
    return secrets.token_urlsafe(24)


def join(api: Api, season_id: str, memleket: int, token_secret: str, **body: Any) -> Any:
    return api.client.post(
        f"/v1/seasons/{season_id}/join",
        json={"memleket": memleket, "token_secret": token_secret, **body},
    )


# --- joins ---------------------------------------------------------------------------------


async def test_r1_4_adr178_a_join_retried_after_its_commit_answers_the_same_seat_and_token(
    api: Api,
) -> None:
    """R-1.4, ADR-178: the first answer lost, the retry with the same secret is 201 with the
    same seat and token (which ends with the client's secret) and appends nothing."""
    sid = (await create_live(api))["season_id"]
    mine = secret()
    first = await join(api, sid, ANKARA, mine)
    assert first.status_code == 201, first.text
    assert first.json()["token"] == f"sb1.{sid}.{first.json()['seat']}.{mine}"
    _state, version = await state_of(api.store, sid)
    again = await unchanged(api.store, join(api, sid, ANKARA, mine))
    assert again.status_code == 201, again.text
    assert again.json() == first.json()
    assert (await state_of(api.store, sid))[1] == version
    me = await api.client.get(
        f"/v1/seasons/{sid}/me", headers={"Authorization": f"Bearer {again.json()['token']}"}
    )
    assert me.status_code == 200, me.text


@pytest.mark.parametrize("round_", range(3))
async def test_r1_4_adr178_a_join_and_its_resend_racing_in_two_processes_take_one_seat(
    api_store: EventStore, round_: int
) -> None:
    """R-1.4, ADR-178: the first join and its resend decided on the same state in two API
    processes (a barrier holds both appends): one appends, the other decides again on its
    state, finds its own seat and answers it: both 201 with one seat and one token."""
    async with open_api(api_store) as setup:
        sid = (await create_live(setup))["season_id"]
    barrier = BarrierStore(api_store, parties=2)
    mine = secret()
    async with (
        open_api(api_store, api_store=barrier) as one,  # type: ignore[arg-type]
        open_api(api_store, api_store=barrier) as two,  # type: ignore[arg-type]
    ):
        answers = await asyncio.gather(join(one, sid, ANKARA, mine), join(two, sid, ANKARA, mine))
    assert [r.status_code for r in answers] == [201, 201], [r.text for r in answers]
    assert answers[0].json() == answers[1].json()
    state, _v = await state_of(api_store, sid)
    assert [(b.seat, b.memleket) for b in state.beys] == [(1, ANKARA)]


async def test_r1_4_adr178_another_secret_for_a_taken_memleket_is_memleket_taken_as_before(
    memory_api: Api,
) -> None:
    """R-1.4, ADR-178: only the secret that made the seat's token answers it again; another
    secret (or none) is a new join, refused `memleket_taken` as today, the log unchanged."""
    sid = (await create_live(memory_api))["season_id"]
    assert (await join(memory_api, sid, ANKARA, secret())).status_code == 201
    taken = await unchanged(memory_api.store, join(memory_api, sid, ANKARA, secret()))
    problem = assert_problem(taken, 409, "memleket_taken")
    assert "token" not in problem
    plain = memory_api.client.post(f"/v1/seasons/{sid}/join", json={"memleket": ANKARA})
    assert_problem(await unchanged(memory_api.store, plain), 409, "memleket_taken")


async def test_r1_4_adr178_a_secret_for_another_memleket_is_a_new_join(memory_api: Api) -> None:
    """ADR-178: a secret used for a different request is just a new request: another memleket
    joins another seat, whose token differs from the first (its seat does)."""
    sid = (await create_live(memory_api))["season_id"]
    mine = secret()
    first = (await join(memory_api, sid, ANKARA, mine)).json()
    other = await join(memory_api, sid, 34, mine)
    assert other.status_code == 201, other.text
    assert other.json()["seat"] != first["seat"]
    assert other.json()["token"] != first["token"]


async def test_r1_4_adr178_the_nineteenth_join_retried_is_answered_not_refused(
    memory_api: Api,
) -> None:
    """R-1.4, ADR-178: the 19th join closed registration; its retry is 201 with the same seat,
    token and (moved) calendar, not `registration_closed` or `season_full`, appending nothing."""
    created = await create_live(
        memory_api, registration_closes_at=close_in(memory_api, timedelta(days=20))
    )
    sid = created["season_id"]
    for plate in range(1, 19):
        await joined(memory_api, sid, plate)
    mine = secret()
    first = await join(memory_api, sid, 19, mine)
    assert first.status_code == 201, first.text
    assert (await status(memory_api, sid))["phase"] == "running"
    again = await unchanged(memory_api.store, join(memory_api, sid, 19, mine))
    assert (again.status_code, again.json()) == (201, first.json())
    assert_problem(await join(memory_api, sid, 20, secret()), 409, "season_full")


async def test_r1_4_adr178_a_join_retried_after_the_close_instant_is_answered(
    memory_api: Api,
) -> None:
    """R-1.4, ADR-178: a join answered just before the close instant, retried after it, is the
    same 201 (a new join then would be `registration_closed`)."""
    created = await create_live(memory_api)
    sid = created["season_id"]
    mine = secret()
    first = await join(memory_api, sid, ANKARA, mine)
    assert first.status_code == 201, first.text
    memory_api.clock.now += timedelta(hours=3)
    again = await unchanged(memory_api.store, join(memory_api, sid, ANKARA, mine))
    assert again.status_code == 201, again.text
    assert (again.json()["seat"], again.json()["token"]) == (
        first.json()["seat"],
        first.json()["token"],
    )
    assert_problem(await join(memory_api, sid, 34, secret()), 409, "registration_closed")


async def test_adr178_a_join_whose_token_was_rotated_since_is_not_answered_again(
    memory_api: Api,
) -> None:
    """ADR-178: the seat answers the secret only while it holds that secret's token: after a
    rotation, the old join's retry is `memleket_taken` (the old token would not work anyway)."""
    sid = (await create_live(memory_api))["season_id"]
    mine = secret()
    first = (await join(memory_api, sid, ANKARA, mine)).json()
    rotated = await memory_api.client.post(
        f"/v1/seasons/{sid}/token", headers={"Authorization": f"Bearer {first['token']}"}
    )
    assert rotated.status_code == 200, rotated.text
    assert_problem(await join(memory_api, sid, ANKARA, mine), 409, "memleket_taken")


@pytest.mark.parametrize(
    "bad",
    ["short", "a" * 31, "a" * 33, "a" * 31 + "=", "a" * 31 + "+", "a" * 31 + "/", "ş" * 32, 42],
)
async def test_adr178_a_malformed_secret_is_invalid_body_naming_the_field(
    memory_api: Api, bad: Any
) -> None:
    """ADR-178: a secret is exactly the server's shape (32 characters of A-Z a-z 0-9 _ -);
    anything else is 422 `invalid_body` naming `$.token_secret`, never echoing it."""
    sid = (await create_live(memory_api))["season_id"]
    r = await unchanged(memory_api.store, join(memory_api, sid, ANKARA, bad))
    problem = assert_problem(r, 422, "invalid_body")
    assert problem["field"] == "$.token_secret", problem
    if isinstance(bad, str) and len(bad) > 8:
        assert bad not in r.text


# --- a bey's token rotated -----------------------------------------------------------------


def rotate(api: Api, season_id: str, token: str, body: Any = None) -> Any:
    return api.client.post(
        f"/v1/seasons/{season_id}/token",
        headers={"Authorization": f"Bearer {token}"},
        json=body,
    )


async def test_adr178_a_rotation_retried_with_the_old_token_answers_the_same_new_token(
    api: Api,
) -> None:
    """ADR-178: the first answer lost, the rotation sent again with the old token (refused
    now) and the same secret is 200 with the same new token, appending nothing; the new token
    works and the old does not."""
    sid = (await create_live(api))["season_id"]
    bey = await joined(api, sid, ANKARA)
    mine = secret()
    first = await rotate(api, sid, bey.token, {"token_secret": mine})
    assert first.status_code == 200, first.text
    assert first.json() == {"seat": bey.seat, "token": f"sb1.{sid}.{bey.seat}.{mine}"}
    again = await unchanged(api.store, rotate(api, sid, bey.token, {"token_secret": mine}))
    assert (again.status_code, again.json()) == (200, first.json())
    new = {"Authorization": f"Bearer {first.json()['token']}"}
    assert (await api.client.get(f"/v1/seasons/{sid}/me", headers=new)).status_code == 200
    old = await api.client.get(
        f"/v1/seasons/{sid}/me", headers={"Authorization": f"Bearer {bey.token}"}
    )
    assert_problem(old, 401, "bad_token")


async def test_adr178_the_old_token_with_another_secret_or_none_is_still_refused(
    memory_api: Api,
) -> None:
    """ADR-178: the old token is let through only with the secret that made the seat's token:
    with another secret, or none, it is 401 `bad_token` as before, and so is an unrelated bad
    token or a well-formed one of another seat with the right secret."""
    sid = (await create_live(memory_api))["season_id"]
    bey = await joined(memory_api, sid, ANKARA)
    other = await joined(memory_api, sid, 34)
    mine = secret()
    assert (await rotate(memory_api, sid, bey.token, {"token_secret": mine})).status_code == 200
    for token, body in (
        (bey.token, {"token_secret": secret()}),
        (bey.token, None),
        (bey.token, {}),
        (f"sb1.{sid}.{bey.seat}.{'x' * 32}", {"token_secret": secret()}),
        ("not-a-token", {"token_secret": mine}),
        (f"sb1.{'0' * 32}.{bey.seat}.{'x' * 32}", {"token_secret": mine}),
    ):
        r = await unchanged(memory_api.store, rotate(memory_api, sid, token, body))
        assert r.status_code in (401, 403), (token, body, r.text)
        assert mine not in r.text
    # another seat's own token with the first bey's secret is a new rotation of that seat
    theirs = await rotate(memory_api, sid, other.token, {"token_secret": mine})
    assert theirs.json() == {"seat": other.seat, "token": f"sb1.{sid}.{other.seat}.{mine}"}


async def test_adr178_a_rotation_retried_is_not_a_failed_attempt(memory_api: Api) -> None:
    """ADR-178, ADR-28: the failed-token limiter counts 401s only; a rotation answered again
    is 200, so a client retrying it more times than the limit's 30 a minute is never limited."""
    sid = (await create_live(memory_api))["season_id"]
    bey = await joined(memory_api, sid, ANKARA)
    mine = secret()
    assert (await rotate(memory_api, sid, bey.token, {"token_secret": mine})).status_code == 200
    for _ in range(40):
        r = await rotate(memory_api, sid, bey.token, {"token_secret": mine})
        assert r.status_code == 200, r.text


async def test_adr178_a_rotation_with_a_malformed_secret_is_invalid_body(memory_api: Api) -> None:
    """ADR-178: 422 `invalid_body` naming `$.token_secret`; nothing rotated."""
    sid = (await create_live(memory_api))["season_id"]
    bey = await joined(memory_api, sid, ANKARA)
    r = await unchanged(memory_api.store, rotate(memory_api, sid, bey.token, {"token_secret": "x"}))
    assert assert_problem(r, 422, "invalid_body")["field"] == "$.token_secret"
    assert (await rotate(memory_api, sid, bey.token)).status_code == 200  # no body: as before


# --- seasons created -------------------------------------------------------------------------


def create(api: Api, body: dict[str, Any], key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return api.client.post("/v1/seasons", json=body, headers=headers)


def live_body(api: Api, **body: Any) -> dict[str, Any]:
    return {
        "mode": "live",
        "registration_closes_at": close_in(api, timedelta(hours=2)),
        **body,
    }


async def test_r1_2_adr178_a_trial_creation_retried_with_its_key_answers_the_same_season(
    api: Api,
) -> None:
    """R-1.2, ADR-178: the same trial creation under the same key with the client's secret is
    201 with the same season, seat, token and seed commitment; one season in the store."""
    body = {"memleket": ANKARA, "token_secret": secret()}
    first = await create(api, body, "trial-1")
    assert first.status_code == 201, first.text
    sid, seat = first.json()["season_id"], first.json()["seat"]
    assert first.json()["token"] == f"sb1.{sid}.{seat}.{body['token_secret']}"
    logged = await log_bytes(api.store)
    again = await create(api, body, "trial-1")
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers["location"] == f"/v1/seasons/{sid}"
    assert await log_bytes(api.store) == logged  # nothing appended, no second season


@pytest.mark.parametrize("round_", range(3))
async def test_r1_2_adr178_a_creation_and_its_resend_racing_in_two_processes_make_one_season(
    api_store: EventStore, round_: int
) -> None:
    """R-1.2, ADR-178: the same keyed creation in two API processes at once (a barrier holds
    both first appends): the key's record admits one; the other appends nothing and answers
    the winner's season, its token made from the same secret."""
    body = {"memleket": ANKARA, "token_secret": secret()}
    barrier = BarrierStore(api_store, parties=2)
    async with (
        open_api(api_store, api_store=barrier) as one,  # type: ignore[arg-type]
        open_api(api_store, api_store=barrier) as two,  # type: ignore[arg-type]
    ):
        answers = await asyncio.gather(create(one, body, "race"), create(two, body, "race"))
    assert [r.status_code for r in answers] == [201, 201], [r.text for r in answers]
    assert answers[0].json() == answers[1].json()
    assert await api_store.list_seasons() == [answers[0].json()["season_id"]]


async def test_r1_3_adr178_a_live_creation_retried_answers_the_same_season_and_tokens(
    api: Api,
) -> None:
    """R-1.3, ADR-178: a live creation with a creator, retried under its key: the same season,
    admin token, creator seat and token (made from the request's secrets), the calendar as it
    is now; one season; the admin token works."""
    body = live_body(api, memleket=ANKARA, token_secret=secret(), admin_secret=secret())
    first = await create(api, body, "live-1")
    assert first.status_code == 201, first.text
    made = first.json()
    sid = made["season_id"]
    assert made["admin_token"] == f"sba1.{sid}.{body['admin_secret']}"
    assert made["creator"]["token"].endswith(f".{body['token_secret']}")
    logged = await log_bytes(api.store)
    again = await create(api, body, "live-1")
    assert (again.status_code, again.json()) == (201, made)
    assert await log_bytes(api.store) == logged
    postponed = await api.client.post(
        f"/v1/seasons/{sid}/admin/pause",
        json={"reason": "the admin token works"},
        headers={"Authorization": f"Bearer {made['admin_token']}"},
    )
    assert postponed.status_code != 401, postponed.text


async def test_adr178_a_live_creation_without_a_creator_needs_only_the_admin_secret(
    memory_api: Api,
) -> None:
    """ADR-178: a live season its creator does not play in answers only an admin token: its
    secret is enough to answer the retry."""
    body = live_body(memory_api, admin_secret=secret())
    first = await create(memory_api, body, "live-2")
    again = await create(memory_api, body, "live-2")
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.json()["creator"] is None


@pytest.mark.parametrize(
    "body",
    [
        {"memleket": ANKARA},
        {"mode": "live"},
        {"mode": "live", "memleket": ANKARA, "admin_secret": "A" * 32},
        {"mode": "live", "memleket": ANKARA, "token_secret": "A" * 32},
    ],
)
async def test_adr178_a_keyed_creation_whose_tokens_the_server_drew_is_not_replayed(
    memory_api: Api, body: dict[str, Any]
) -> None:
    """ADR-178: without the client's secret for every token of the answer, a keyed retry is
    409 `secret_not_replayable` (the server keeps no secret to answer again), and creates no
    second season."""
    if body.get("mode") == "live":
        body = live_body(memory_api, **body)
    first = await create(memory_api, body, "drawn")
    assert first.status_code == 201, first.text
    logged = await log_bytes(memory_api.store)
    again = await create(memory_api, body, "drawn")
    problem = assert_problem(again, 409, "secret_not_replayable")
    assert "token" not in problem and first.json()["season_id"] not in again.text
    assert await log_bytes(memory_api.store) == logged


async def test_adr178_a_creation_key_with_another_body_is_reused_and_none_is_a_new_season(
    memory_api: Api,
) -> None:
    """ADR-178, ADR-20: the same key with another body (another secret) is 422
    `idempotency_key_reused`; the same body without a key is a new season, as before."""
    body = {"memleket": ANKARA, "token_secret": secret()}
    first = await create(memory_api, body, "k")
    other = await unchanged(
        memory_api.store, create(memory_api, {**body, "token_secret": secret()}, "k")
    )
    assert_problem(other, 422, "idempotency_key_reused")
    unkeyed = await create(memory_api, body)
    assert unkeyed.status_code == 201, unkeyed.text
    assert unkeyed.json()["season_id"] != first.json()["season_id"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"memleket": ANKARA, "admin_secret": "A" * 32}, "$.admin_secret"),
        ({"mode": "live", "token_secret": "A" * 32}, "$.token_secret"),
        (
            {
                "mode": "live",
                "memleket": ANKARA,
                "token_secret": "A" * 32,
                "admin_secret": "A" * 32,
            },
            "$.admin_secret",
        ),
        ({"memleket": ANKARA, "token_secret": "A" * 31 + "."}, "$.token_secret"),
    ],
)
async def test_adr178_a_secret_that_makes_no_token_or_one_twice_is_invalid_body(
    memory_api: Api, body: dict[str, Any], field: str
) -> None:
    """ADR-178: a secret for a token the request does not issue (a trial's admin token, a live
    creator without a memleket), two equal secrets in one request, or a malformed one: 422
    `invalid_body` naming the field; nothing created."""
    if body.get("mode") == "live":
        body = live_body(memory_api, **body)
    r = await unchanged(memory_api.store, create(memory_api, body, "bad"))
    assert assert_problem(r, 422, "invalid_body")["field"] == field


# --- players (issue 23, ADR-87) --------------------------------------------------------------


def create_player(api: Api, body: dict[str, Any], key: str | None = None) -> Any:
    headers = {"Idempotency-Key": key} if key is not None else {}
    return api.client.post("/v1/players", json=body, headers=headers)


def rotate_player(api: Api, player_id: str, key: str, body: Any = None) -> Any:
    return api.client.post(
        f"/v1/players/{player_id}/key", headers={"Authorization": f"Bearer {key}"}, json=body
    )


async def test_adr178_a_player_creation_retried_with_its_key_answers_the_same_player(
    api: Api,
) -> None:
    """ADR-178: the same player creation under the same key with the client's secret is 201
    with the same player and key; one player created (its log holds one event)."""
    body = {"name": "Ayşe", "key_secret": secret()}
    first = await create_player(api, body, "player-1")
    assert first.status_code == 201, first.text
    pid = first.json()["player_id"]
    assert first.json()["player_key"] == f"sbp1.{pid}.{body['key_secret']}"
    again = await create_player(api, body, "player-1")
    assert (again.status_code, again.json()) == (201, first.json())
    assert again.headers["location"] == f"/v1/players/{pid}"
    assert len(await api.store.players.read(pid)) == 1


async def test_adr178_a_keyed_player_creation_without_its_secret_is_not_replayed(
    memory_api: Api,
) -> None:
    """ADR-178: the key the server drew is kept nowhere: the keyed retry is 409
    `secret_not_replayable`, no second player; another body under the key is reused."""
    first = await create_player(memory_api, {"name": "Ayşe"}, "p")
    assert first.status_code == 201, first.text
    assert_problem(
        await create_player(memory_api, {"name": "Ayşe"}, "p"), 409, "secret_not_replayable"
    )
    assert_problem(
        await create_player(memory_api, {"name": "Veli"}, "p"), 422, "idempotency_key_reused"
    )


async def test_adr178_a_player_recorded_but_never_appended_is_created_by_the_retry(
    memory_api: Api,
) -> None:
    """ADR-178: the key is recorded before the player's event; a store failing between the two
    answered nothing, so the retry creates the player (its id the recorded one) and answers."""
    from services.command import created_again

    body = {"key_secret": secret()}
    players = memory_api.store.players
    real = players.append

    async def failing(*_args: Any) -> None:
        from shared.eventstore import StoreBusyError

        raise StoreBusyError("the store does not answer")

    players.append = failing  # type: ignore[method-assign]
    try:
        lost = await create_player(memory_api, body, "p2")
    finally:
        players.append = real  # type: ignore[method-assign]
    assert_problem(lost, 503, "store_busy")
    again = await create_player(memory_api, body, "p2")
    assert again.status_code == 201, again.text
    pid = again.json()["player_id"]
    assert again.json()["player_key"] == f"sbp1.{pid}.{body['key_secret']}"
    assert len(await players.read(pid)) == 1
    scope = created_again.PLAYERS
    assert (await memory_api.store.idempotency.look(scope, "p2", b"other")) is not None


async def test_adr178_a_player_creation_and_its_copy_racing_answer_the_same_player(
    memory_api: Api,
) -> None:
    """ADR-178: two copies of one keyed creation both found the key's record and no player;
    the one whose append lost to the other's (the same player id, the same secret) answers
    that player, not 409 `conflict`; one player in the log."""
    from shared.eventstore import ConcurrencyError

    body = {"key_secret": secret()}
    players = memory_api.store.players
    real = players.append

    async def beaten(player_id: str, version: int, rows: Any) -> Any:
        await real(player_id, version, rows)  # the copy's append, the very same player
        raise ConcurrencyError(player_id, version, version + 1)  # the copy appended first

    players.append = beaten  # type: ignore[method-assign]
    try:
        raced = await create_player(memory_api, body, "p3")
    finally:
        players.append = real  # type: ignore[method-assign]
    assert raced.status_code == 201, raced.text
    pid = raced.json()["player_id"]
    assert raced.json()["player_key"] == f"sbp1.{pid}.{body['key_secret']}"
    assert len(await players.read(pid)) == 1


async def test_adr178_a_player_key_rotation_and_its_copy_racing_answer_the_same_key(
    memory_api: Api,
) -> None:
    """ADR-178: two copies of one rotation (the same secret) read the player at one version;
    the one whose append lost to the other's answers the key that copy made, not 409
    `conflict`; one rotation in the log."""
    from shared.eventstore import ConcurrencyError

    first = await create_player(memory_api, {"key_secret": secret()}, "p4")
    pid, old = first.json()["player_id"], first.json()["player_key"]
    body = {"key_secret": secret()}
    players = memory_api.store.players
    real = players.append

    async def beaten(player_id: str, version: int, rows: Any) -> Any:
        await real(player_id, version, rows)  # the copy's append, the very same rotation
        raise ConcurrencyError(player_id, version, version + 1)

    players.append = beaten  # type: ignore[method-assign]
    try:
        raced = await rotate_player(memory_api, pid, old, body)
    finally:
        players.append = real  # type: ignore[method-assign]
    assert raced.status_code == 200, raced.text
    assert raced.json() == {"player_id": pid, "player_key": f"sbp1.{pid}.{body['key_secret']}"}
    assert len(await players.read(pid)) == 2  # created, rotated once


async def test_a_player_key_rotation_that_loses_a_race_says_so_in_a_players_words(
    memory_api: Api,
) -> None:
    """Another write to the player won (not a copy of this rotation): 409 `conflict`, told as
    the player's record changing, not as a busy season (the catalogue's `conflict.player`)."""
    from shared.eventstore import ConcurrencyError

    first = await create_player(memory_api, {}, None)
    pid, old = first.json()["player_id"], first.json()["player_key"]
    players = memory_api.store.players
    real = players.append

    async def lost(player_id: str, version: int, _rows: Any) -> Any:
        raise ConcurrencyError(player_id, version, version + 1)

    players.append = lost  # type: ignore[method-assign]
    try:
        raced = await rotate_player(memory_api, pid, old, {"key_secret": secret()})
    finally:
        players.append = real  # type: ignore[method-assign]
    assert_problem(raced, 409, "conflict")
    assert raced.json()["detail"] == "Oyuncu kaydı aynı anda değişti; tekrar deneyin"


async def test_adr178_a_player_key_rotation_retried_with_the_old_key_answers_the_same_key(
    api: Api,
) -> None:
    """ADR-178: the rotation sent again with the old key (refused now) and the same secret is
    200 with the same new key, appending nothing; another secret, or none, is 401 as before."""
    made = (await create_player(api, {})).json()
    pid, old = made["player_id"], made["player_key"]
    mine = secret()
    first = await rotate_player(api, pid, old, {"key_secret": mine})
    assert first.json() == {"player_id": pid, "player_key": f"sbp1.{pid}.{mine}"}
    again = await rotate_player(api, pid, old, {"key_secret": mine})
    assert (again.status_code, again.json()) == (200, first.json())
    assert len(await api.store.players.read(pid)) == 2  # created, rotated once
    for body in ({"key_secret": secret()}, None):
        assert_problem(await rotate_player(api, pid, old, body), 401, "bad_player_key")
    other = (await create_player(api, {})).json()
    theirs = await rotate_player(api, other["player_id"], old, {"key_secret": mine})
    assert_problem(theirs, 401, "bad_player_key")
    malformed = await rotate_player(api, pid, first.json()["player_key"], {"key_secret": "x"})
    assert assert_problem(malformed, 422, "invalid_body")["field"] == "$.key_secret"
