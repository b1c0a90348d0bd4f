"""Tokens on both APIs (the gateway): one strict parser, the same answers on both sides.

Issue 9 items 1 and 8, issue 11: the read side parsed tokens on its own (no prefix check,
`str.isdigit()`); a garbled token was 403 `token_wrong_season`; staff tokens on bey endpoints
were 401 and counted as failed attempts. Now shared/app/access/tokens.py answers for both.
"""

from __future__ import annotations

import asyncio
import secrets
from contextlib import AsyncExitStack
from typing import Any

import httpx
import redis.asyncio as aioredis
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.projections.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    bearer,
    delete_prefix,
    open_gateway,
)

HEX = "0123456789abcdef"
URLSAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.text


async def _trial(
    stack: AsyncExitStack, redis_url: str, prefix: str
) -> tuple[httpx.AsyncClient, dict[str, Any], Any]:
    store = InMemoryEventStore(clock=StepClock())
    redis = aioredis.Redis.from_url(redis_url)
    stack.push_async_callback(redis.aclose)
    stack.push_async_callback(delete_prefix, redis, prefix)
    gw, client = await stack.enter_async_context(open_gateway(store, redis, prefix))
    r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
    assert r.status_code == 201, r.text
    trial = r.json()
    await Projector(store, redis, prefix).catch_up(trial["season_id"])
    return client, trial, gw


async def test_both_apis_refuse_a_garbled_token_as_bad_token(redis_url: str, prefix: str):
    """Issue 11: `sb1.xxx.1.garbage` is 401 `bad_token` on the read side too (was 403)."""
    async with AsyncExitStack() as stack:
        client, trial, _gw = await _trial(stack, redis_url, prefix)
        s = f"/v1/seasons/{trial['season_id']}"
        for token in ("sb1.xxx.1.garbage", f"xx1.{trial['season_id']}.1.{'a' * 32}"):
            problem(await client.get(f"{s}/private", headers=bearer(token)), 401, "bad_token")
            problem(await client.post(f"{s}/tickets", headers=bearer(token)), 401, "bad_token")
            problem(await client.get(f"{s}/me", headers=bearer(token)), 401, "bad_token")
        # the real token still works on both
        assert (await client.get(f"{s}/private", headers=bearer(trial["token"]))).status_code == 200
        assert (await client.get(f"{s}/me", headers=bearer(trial["token"]))).status_code == 200


async def test_staff_tokens_on_read_side_bey_endpoints_are_forbidden_and_not_counted(
    redis_url: str, prefix: str
):
    """Issue 9 item 8: a valid ops or auditor token on `/private`, `/battles`, `/tickets` is 403
    `forbidden`, and spends nothing of the client's failed-token budget (30 a minute)."""
    async with AsyncExitStack() as stack:
        client, trial, _gw = await _trial(stack, redis_url, prefix)
        s = f"/v1/seasons/{trial['season_id']}"
        for _ in range(12):
            for token in (OPS_TOKEN, AUDITOR_TOKEN):
                problem(await client.get(f"{s}/private", headers=bearer(token)), 403, "forbidden")
                problem(await client.post(f"{s}/tickets", headers=bearer(token)), 403, "forbidden")
            problem(
                await client.get(f"{s}/battles/1", headers=bearer(AUDITOR_TOKEN)), 403, "forbidden"
            )
        # 60 staff answers so far: had they counted, this would be 429
        r = await client.get(f"{s}/private", headers=bearer(trial["token"]))
        assert r.status_code == 200, r.text


async def test_the_read_side_refuses_tokens_in_the_query(redis_url: str, prefix: str):
    """Issue 9 item 8 (a): every read endpoint that takes a token refuses `?token=` and
    `?access_token=` with 400 `token_in_query`, even beside a valid header."""
    async with AsyncExitStack() as stack:
        client, trial, _gw = await _trial(stack, redis_url, prefix)
        s = f"/v1/seasons/{trial['season_id']}"
        for name in ("token", "access_token"):
            for method, path, token in (
                ("GET", f"{s}/private", trial["token"]),
                ("POST", f"{s}/tickets", trial["token"]),
                ("GET", f"{s}/battles/1", trial["token"]),
                ("GET", f"{s}/orders/1", OPS_TOKEN),
                ("GET", f"{s}/audit/betrayals", AUDITOR_TOKEN),
                ("GET", f"/v1/ops/seasons/{trial['season_id']}/beys/1", OPS_TOKEN),
            ):
                r = await client.request(method, f"{path}?{name}={token}", headers=bearer(token))
                problem(r, 400, "token_in_query")


def _tokens(season_id: str) -> st.SearchStrategy[bytes]:
    """Header values near and far from a bey token's shape, as raw header bytes."""
    digits = st.text(st.characters(categories=("Nd", "No", "Nl")), min_size=1, max_size=3)
    odd = st.sampled_from(["²", "³", "¹", "01", "+1", " 1", "1 "])
    seat = st.one_of(st.integers(-3, 40).map(str), digits, odd)
    season = st.one_of(
        st.just(season_id),
        st.text(HEX, min_size=31, max_size=33),
        st.text(min_size=0, max_size=8),
    )
    secret = st.one_of(st.text(URLSAFE, min_size=30, max_size=34), st.text(max_size=40))
    shaped = st.builds(lambda a, b, c: f"sb1.{a}.{b}.{c}", season, seat, secret)
    # a server reads header bytes as ISO-8859-1: send a string so when it can be, else UTF-8
    text = st.one_of(shaped, st.text(max_size=80)).map(
        lambda t: t.encode("latin-1") if all(ord(ch) < 256 for ch in t) else t.encode()
    )
    raw = st.binary(max_size=80)
    value = st.one_of(text, raw).map(lambda v: v.replace(b"\r", b"").replace(b"\n", b""))
    return value.map(lambda v: b"Bearer " + v)


def test_random_tokens_on_both_apis_answer_401_403_or_429_never_500(redis_url: str, prefix: str):
    """Issue 9 item 1 (property): any Authorization value on the bey endpoints of both APIs
    (`/me`, `/orders` on the command side; `/private`, `/tickets` on the read side) answers
    401, 403 or 429, never a 500; a value with a comma is two values joined (as a proxy joins
    two headers), 400 `ambiguous_authorization` (ADR-75)."""
    loop = asyncio.new_event_loop()
    stack = AsyncExitStack()
    try:
        client, trial, _gw = loop.run_until_complete(_trial(stack, redis_url, prefix))
        s = f"/v1/seasons/{trial['season_id']}"
        seen: set[int] = set()
        superscript = b"Bearer sb1." + trial["season_id"].encode() + b".\xb2.x"
        garbled = b"Bearer sb1.xxx.1.garbage"

        @settings(
            max_examples=200,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.function_scoped_fixture],
        )
        @given(value=_tokens(trial["season_id"]), where=st.sampled_from(range(4)))
        @example(value=superscript, where=0).via("issue 9 item 1")
        @example(value=superscript, where=2).via("issue 9 item 1")
        @example(value=garbled, where=1).via("issue 11")
        def refused(value: bytes, where: int) -> None:
            headers = [(b"authorization", value)]
            method, path, body = (
                ("GET", f"{s}/me", None),
                ("POST", f"{s}/orders", {"orders": []}),
                ("GET", f"{s}/private", None),
                ("POST", f"{s}/tickets", None),
            )[where]
            r = loop.run_until_complete(client.request(method, path, headers=headers, json=body))
            seen.add(r.status_code)
            if b"," in value and r.status_code == 400:
                assert r.json()["code"] == "ambiguous_authorization", r.text
                return
            assert r.status_code in (401, 403, 429), (value, path, r.status_code, r.text)

        refused()
        assert 401 in seen
        # a real token is not something a random string finds
        r = loop.run_until_complete(
            client.get(
                f"{s}/private",
                headers=bearer(f"sb1.{trial['season_id']}.1.{secrets.token_urlsafe(24)}"),
            )
        )
        assert r.status_code in (401, 429)
    finally:
        loop.run_until_complete(stack.aclose())
        loop.close()
