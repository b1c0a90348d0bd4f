"""Bey tokens: one strict parser (shared/app/access/tokens.py), and what the command API answers to them.

Issue 9 item 1: a seat of non-ASCII digits (`sb1.<season>.².x`) answered 500 (`str.isdigit()`
accepts '²', `int()` refuses it), never counted by the failed-token limiter. Issue 11: a garbled
token (`sb1.xxx.1.garbage`) answered 403 `token_wrong_season`. Every token that is not exactly
`sb1.<season_id>.<seat>.<secret>` is 401 `bad_token`, counted like any bad token (RELIABILITY 24).
"""

from __future__ import annotations

import secrets

import pytest

from shared.app.access import tokens
from shared.app.repository.seasons import Seasons
from shared.domain import events as ev
from shared.eventstore import EventMetadata, InMemoryEventStore
from tests.http.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    assert_problem,
    bearer,
    create_trial,
    open_api,
    settings,
)

SEASON = "0123456789abcdef0123456789abcdef"
SECRET = "A" * 31 + "_"


def test_a_new_token_and_a_new_season_id_parse_back():
    season_id = tokens.new_season_id()
    assert tokens.is_season_id(season_id)
    for seat in (1, 9, 10, 19):
        token = tokens.new_token(season_id, seat)
        assert tokens.parse(token) == (season_id, seat)


@pytest.mark.parametrize(
    "token",
    [
        f"sb1.{SEASON}.².{SECRET}",  # superscript two: str.isdigit() says yes
        f"sb1.{SEASON}.٣.{SECRET}",  # Arabic-Indic three: int() would even accept it
        f"sb1.{SEASON}.１.{SECRET}",  # fullwidth one
        f"sb1.{SEASON}.01.{SECRET}",
        f"sb1.{SEASON}.+1.{SECRET}",
        f"sb1.{SEASON}.-1.{SECRET}",
        f"sb1.{SEASON}. 1.{SECRET}",
        f"sb1.{SEASON}.1 .{SECRET}",
        f"sb1.{SEASON}.0.{SECRET}",
        f"sb1.{SEASON}.20.{SECRET}",
        f"sb1.{SEASON}.1_0.{SECRET}",
        f"sb1.{SEASON}..{SECRET}",
        f"sb1.{SEASON.upper()}.1.{SECRET}",
        f"sb1.{SEASON[:-1]}.1.{SECRET}",
        f"sb1.{SEASON}0.1.{SECRET}",
        f"sb1.xxx.1.{SECRET}",
        "sb1.xxx.1.garbage",
        f"sb1.{SEASON}.1.{SECRET[:-1]}",
        f"sb1.{SEASON}.1.{SECRET}A",
        f"sb1.{SEASON}.1.{SECRET[:-1]}=",
        f"sb1.{SEASON}.1.{SECRET[:-1]}.",
        f"sb1.{SEASON}.1.{SECRET}\n",
        f"sb2.{SEASON}.1.{SECRET}",
        f"SB1.{SEASON}.1.{SECRET}",
        f"xsb1.{SEASON}.1.{SECRET}",
        f"sb1.{SEASON}.1",
        "",
    ],
)
def test_anything_but_the_exact_shape_is_not_a_bey_token(token: str):
    assert tokens.parse(token) is None
    with pytest.raises(tokens.TokenRefused) as refused:
        tokens.bey_seat(token, SEASON, lambda seat: tokens.token_hash(token))
    assert (refused.value.status, refused.value.code) == (401, "bad_token")


def test_a_well_formed_token_of_another_season_is_403_and_a_staff_token_is_forbidden():
    other = tokens.new_token(tokens.new_season_id(), 3)
    with pytest.raises(tokens.TokenRefused) as refused:
        tokens.bey_seat(other, SEASON, lambda seat: None)
    assert (refused.value.status, refused.value.code) == (403, "token_wrong_season")
    staff = (tokens.token_hash(OPS_TOKEN),)
    with pytest.raises(tokens.TokenRefused) as refused:
        tokens.bey_seat(OPS_TOKEN, SEASON, lambda seat: None, staff)
    assert (refused.value.status, refused.value.code) == (403, "forbidden")


def test_adr61_on_a_staff_endpoint_a_bey_or_season_admin_token_is_forbidden_else_a_guess():
    """A season-admin token on an ops endpoint was 401 `bad_token`, counted, where a bey's is
    403: both are known kinds of caller in the wrong place (no such string is a staff token)."""
    for token in (tokens.new_token(SEASON, 3), tokens.new_admin_token(SEASON)):
        refused = tokens.not_staff(token)
        assert (refused.status, refused.code) == (403, "forbidden"), token
    admin = tokens.new_admin_token(SEASON)
    for guess in (admin + "x", admin[:-1], admin.replace("sba1.", "sba2."), "sba1.x.y", "ops"):
        refused = tokens.not_staff(guess)
        assert (refused.status, refused.code) == (401, "bad_token"), guess


def test_no_token_is_issued_for_a_season_id_the_parser_refuses():
    for season_id in ("xxx", SEASON.upper(), SEASON + "0", "scenario"):
        with pytest.raises(ValueError):
            tokens.new_token(season_id, 1)


async def test_a_seat_of_non_ascii_digits_is_401_and_counted_never_500(clock):
    """Issue 9 item 1: 200 requests `sb1.<season>.².x` → 401 `bad_token` until the client's
    budget is spent, then 429; never a 500."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(auth_failures_per_minute=30)) as api:
        bey = await create_trial(api.client)
        statuses = []
        for n in range(200):
            # the header's bytes as the attacker sent them: ISO-8859-1 '²' (0xB2), or UTF-8
            seat = b"\xb2" if n % 2 else "²".encode()
            value = b"Bearer sb1." + bey.season_id.encode() + b"." + seat + b".x"
            r = await api.client.get(bey.url("/me"), headers=[(b"authorization", value)])
            statuses.append(r.status_code)
            if n == 0:
                assert_problem(r, 401, "bad_token")
        assert 500 not in statuses
        first = statuses.index(429)
        assert statuses[:first] == [401] * first
        assert 30 <= first <= 32  # the bucket holds 30 failures (refilling one per 2 s)
        assert set(statuses[first:]) <= {401, 429}


async def test_a_garbled_token_is_bad_token_not_another_season(clock):
    """Issue 11: `sb1.xxx.1.garbage` names no season at all: 401 `bad_token`, not 403."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store) as api:
        bey = await create_trial(api.client)
        for token in ("sb1.xxx.1.garbage", f"sb1.{bey.season_id}.1.garbage"):
            assert_problem(
                await api.client.get(bey.url("/me"), headers=bearer(token)), 401, "bad_token"
            )
        other = await create_trial(api.client, memleket=34)
        r = await api.client.get(bey.url("/me"), headers=other.auth())
        assert_problem(r, 403, "token_wrong_season")


async def test_staff_tokens_on_bey_endpoints_are_forbidden_and_not_counted(clock):
    """Issue 9 item 8: a valid ops or auditor token on a bey endpoint is 403 `forbidden`, and
    does not spend the client's failed-token budget (only guesses do)."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(auth_failures_per_minute=5)) as api:
        bey = await create_trial(api.client)
        for n in range(20):
            token = (OPS_TOKEN, AUDITOR_TOKEN)[n % 2]
            assert_problem(
                await api.client.get(bey.url("/me"), headers=bearer(token)), 403, "forbidden"
            )
            r = await api.client.post(
                bey.url("/orders"), headers=bearer(token), json={"orders": []}
            )
            assert_problem(r, 403, "forbidden")
        # the budget is whole: five guesses are 401, the sixth is refused
        guesses = [
            (
                await api.client.get(
                    bey.url("/me"),
                    headers=bearer(f"sb1.{bey.season_id}.1.{secrets.token_urlsafe(24)}"),
                )
            ).status_code
            for _ in range(6)
        ]
        assert guesses == [401] * 5 + [429]


async def test_the_ops_reissue_refuses_a_token_in_the_query(clock):
    """Issue 9 item 8: `?token=` on the ops reissue is 400 `token_in_query` (was 401
    `missing_token`), as on every endpoint that takes a token; a guess there is 401."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store) as api:
        bey = await create_trial(api.client)
        url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
        for name in ("token", "access_token"):
            assert_problem(
                await api.client.post(f"{url}?{name}={OPS_TOKEN}"), 400, "token_in_query"
            )
            r = await api.client.post(f"{url}?{name}={OPS_TOKEN}", headers=bearer(OPS_TOKEN))
            assert_problem(r, 400, "token_in_query")
            for tail in ("/me", "/token"):
                method = api.client.get if tail == "/me" else api.client.post
                r = await method(bey.url(tail) + f"?{name}={bey.token}")
                assert_problem(r, 400, "token_in_query")
        assert_problem(await api.client.post(url, headers=bearer("guess")), 401, "bad_token")
        assert_problem(await api.client.post(url, headers=bey.auth()), 403, "forbidden")
        assert (await api.client.post(url, headers=bearer(OPS_TOKEN))).status_code == 200


async def test_r11_2_a_computer_beys_seat_gets_no_token(clock):
    """R-11.2: a computer bey's orders are computed from the state and the season randomness
    only. Ops could reissue a token for its seat (seat 19 of a trial), and with it orders and
    spending were taken for the computer bey: the reissue is refused, and a token a computer
    seat holds from before is refused on the bey endpoints."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store) as api:
        bey = await create_trial(api.client)
        url = f"/v1/ops/seasons/{bey.season_id}/beys/19/token"
        r = await api.client.post(url, headers=bearer(OPS_TOKEN))
        problem = assert_problem(r, 403, "forbidden")
        assert problem["seat"] == 19
        assert "bilgisayar" in problem["detail"]
        # a computer seat's token from before (a season recorded before this refusal)
        token = tokens.new_token(bey.season_id, 19)
        seasons = Seasons(store)
        loaded = await seasons.load(bey.season_id)
        rotated = [ev.TokenRotated(seat=19, by="ops", token_hash=tokens.token_hash(token))]
        meta = EventMetadata(actor="ops", command_id="token/old")
        await seasons.append(bey.season_id, loaded.version, "token/old", rotated, meta)
        r = await api.client.post(bey.url("/orders"), json={"orders": []}, headers=bearer(token))
        assert_problem(r, 403, "forbidden")
        assert (await api.client.get(bey.url("/me"), headers=bearer(token))).status_code == 403


def test_adr140_a_remembered_token_is_refused_as_a_new_one_would_be():
    """The memo of verified tokens (ADR-140) skips only what the token alone decides: the
    season, the staff hashes and the hash the seat holds now are still checked every time."""
    token = tokens.new_token(SEASON, 3)
    kept = {3: tokens.token_hash(token)}
    tokens._VERIFIED.clear()
    assert tokens.bey_seat(token, SEASON, kept.get) == 3  # remembered from here
    assert (token, ()) in tokens._VERIFIED
    assert tokens.bey_seat(token, SEASON, kept.get) == 3
    for season, stored, staff, code in (
        (tokens.new_season_id(), kept.get, (), "token_wrong_season"),
        (SEASON, {3: tokens.token_hash(tokens.new_token(SEASON, 3))}.get, (), "bad_token"),
        (SEASON, {}.get, (), "bad_token"),
        (SEASON, kept.get, (tokens.token_hash(token),), "forbidden"),
    ):
        with pytest.raises(tokens.TokenRefused) as refused:
            tokens.bey_seat(token, season, stored, staff)
        assert refused.value.code == code
    # a guess never enters; a full memo is emptied, and still answers
    guess = tokens.new_token(SEASON, 3)
    with pytest.raises(tokens.TokenRefused):
        tokens.bey_seat(guess, SEASON, kept.get)
    assert (guess, ()) not in tokens._VERIFIED
    for n in range(tokens._VERIFIED_MAX + 1):
        other = f"sb1.{SEASON}.3.{n:032d}"
        assert tokens.bey_seat(other, SEASON, {3: tokens.token_hash(other)}.get) == 3
        assert len(tokens._VERIFIED) <= tokens._VERIFIED_MAX
    assert tokens.bey_seat(token, SEASON, kept.get) == 3


async def test_adr140_a_rotated_token_is_refused_at_once(clock):
    """A token the memo holds stops working with the answer that rotated it (token_rotation):
    the next order with it is 401 bad_token, the new token orders."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings()) as api:
        bey = await create_trial(api.client)
        order = {"orders": [{"province": bey.memleket, "kind": "hold"}]}
        for _ in range(2):  # the second is answered from the memo
            r = await api.client.post(bey.url("/orders"), headers=bearer(bey.token), json=order)
            assert r.status_code == 200, r.text
        rotated = await api.client.post(bey.url("/token"), headers=bearer(bey.token))
        assert rotated.status_code == 200, rotated.text
        old = await api.client.post(bey.url("/orders"), headers=bearer(bey.token), json=order)
        assert_problem(old, 401, "bad_token")
        assert_problem(
            await api.client.get(bey.url("/me"), headers=bearer(bey.token)), 401, "bad_token"
        )
        new = rotated.json()["token"]
        r = await api.client.post(bey.url("/orders"), headers=bearer(new), json=order)
        assert r.status_code == 200, r.text
