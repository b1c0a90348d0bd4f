"""Issue 9 item 8 (c): the failed-token limit is per client, and a client cannot rename itself.

uvicorn's default trusts X-Forwarded-For from 127.0.0.1, so a client there could send a new
address with every request and never meet the limit. The app now derives the address itself
(shared/app/http/ratelimit.py `client_address`): the peer, unless the peer is a configured proxy
(SEKSENBIR_TRUSTED_PROXIES, none by default); then the rightmost forwarded hop that is not a
proxy. tests/integration/test_forwarded_served.py checks the same through uvicorn.
"""

from __future__ import annotations

import secrets

import httpx
import pytest

from shared.app.http.client_address import client_address, networks
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.http.support import Bey, assert_problem, bearer, create_trial, open_api, settings

LIMIT = 5


def guess(bey: Bey, forwarded: str | None = None) -> dict[str, str]:
    headers = bearer(f"sb1.{bey.season_id}.{bey.seat}.{secrets.token_urlsafe(24)}")
    if forwarded is not None:
        headers["X-Forwarded-For"] = forwarded
    return headers


async def test_rotating_x_forwarded_for_from_localhost_still_meets_the_limit(clock):
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(auth_failures_per_minute=LIMIT)) as api:
        app = api.client._transport.app  # type: ignore[attr-defined]
        local = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=local, base_url="http://testserver") as client:
            bey = await create_trial(client)
            statuses = [
                (await client.get(bey.url("/me"), headers=guess(bey, f"203.0.113.{n}"))).status_code
                for n in range(LIMIT + 3)
            ]
            assert statuses == [401] * LIMIT + [429] * 3


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(clock):
    store = InMemoryEventStore(clock=clock)
    config = settings(auth_failures_per_minute=LIMIT, trusted_proxies=("10.0.0.0/8",))
    async with open_api(store, config) as api:
        app = api.client._transport.app  # type: ignore[attr-defined]
        proxy = httpx.ASGITransport(app=app, client=("10.1.2.3", 40000))
        async with httpx.AsyncClient(transport=proxy, base_url="http://testserver") as client:
            bey = await create_trial(client)

            async def me(forwarded: str) -> int:
                return (await client.get(bey.url("/me"), headers=guess(bey, forwarded))).status_code

            # A spends its budget; a hop A wrote itself (left of the proxy's) changes nothing
            assert [await me(f"{n}.0.0.1, 198.51.100.1") for n in range(1, LIMIT + 1)] == [
                401
            ] * LIMIT
            r = await client.get(bey.url("/me"), headers=guess(bey, "198.51.100.1"))
            assert_problem(r, 429, "too_many_failed_attempts")
            # B, forwarded by the same proxy (through a second trusted hop), is not limited
            assert await me("198.51.100.2, 10.9.9.9") == 401
            ok = await client.get(
                bey.url("/me"), headers={**bey.auth(), "X-Forwarded-For": "198.51.100.3"}
            )
            assert ok.status_code == 200
        # a client that is not a trusted proxy is its own address, whatever it forwards
        direct = httpx.ASGITransport(app=app, client=("192.0.2.7", 40000))
        async with httpx.AsyncClient(transport=direct, base_url="http://testserver") as client:
            statuses = [
                (
                    await client.get(bey.url("/me"), headers=guess(bey, f"198.51.100.{n}"))
                ).status_code
                for n in range(10, 10 + LIMIT + 1)
            ]
            assert statuses == [401] * LIMIT + [429]


def test_client_address_trusts_only_the_configured_proxies():
    def scope(peer: str, *forwarded: str) -> dict:
        headers = [(b"x-forwarded-for", f.encode()) for f in forwarded]
        return {"client": (peer, 1), "headers": headers}

    assert client_address(scope("127.0.0.1", "203.0.113.9")) == "127.0.0.1"
    trusted = networks(("127.0.0.1", "10.0.0.0/8", "::1"))
    assert client_address(scope("127.0.0.1", "203.0.113.9"), trusted) == "203.0.113.9"
    assert client_address(scope("::1", "1.1.1.1, 203.0.113.9, 10.0.0.2"), trusted) == (
        "203.0.113.9"
    )
    assert client_address(scope("127.0.0.1", "1.1.1.1", "203.0.113.9"), trusted) == ("203.0.113.9")
    assert client_address(scope("127.0.0.1"), trusted) == "127.0.0.1"
    assert client_address(scope("127.0.0.1", "10.0.0.1"), trusted) == "127.0.0.1"
    assert client_address(scope("192.0.2.1", "203.0.113.9"), trusted) == "192.0.2.1"
    assert client_address({"headers": []}, trusted) == "?"


def test_trusted_proxies_come_from_the_environment_and_are_checked():
    assert Settings.from_env({}).trusted_proxies == ()
    env = {"SEKSENBIR_TRUSTED_PROXIES": " 10.0.0.1, 172.16.0.0/12,,::1 "}
    assert Settings.from_env(env).trusted_proxies == ("10.0.0.1/32", "172.16.0.0/12", "::1/128")
    with pytest.raises(ValueError, match="SEKSENBIR_TRUSTED_PROXIES"):
        Settings.from_env({"SEKSENBIR_TRUSTED_PROXIES": "proxy.example"})
