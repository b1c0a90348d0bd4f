"""RELIABILITY 24: 10k random-token attempts get 401, then 429 with Retry-After.

The limiter counts 401 answers per client address (shared/app/ratelimit.py); an empty bucket
refuses that client's credentialed requests before any token is checked. Other clients, and
the same client's requests without credentials, are not affected.
"""

from __future__ import annotations

import secrets
import time  # noqa: TID251 - the limiter refills in real time meanwhile
from typing import Any

import httpx
import redis.asyncio as aioredis

from shared.app.ratelimit import AuthFailures
from shared.eventstore import InMemoryEventStore
from tests.http.support import assert_problem, bearer, create_trial, open_api, settings

GUESSES = 10_000


async def test_ten_thousand_random_tokens_get_401_then_429_and_only_for_that_client(clock):
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(auth_failures_per_minute=30)) as api:
        bey = await create_trial(api.client)
        statuses: dict[int, int] = {}
        first_429 = None
        started = time.monotonic()
        for n in range(GUESSES):
            guess = f"sb1.{bey.season_id}.{bey.seat}.{secrets.token_urlsafe(24)}"
            r = await api.client.get(bey.url("/me"), headers=bearer(guess))
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code == 429 and first_429 is None:
                first_429 = r
                assert n == 30  # the bucket holds 30 failures
        refilled = int((time.monotonic() - started) / 2) + 1  # one back every 2 s at 30/min
        assert set(statuses) == {401, 429}
        assert 30 <= statuses[401] <= 30 + refilled
        assert first_429 is not None
        assert_problem(first_429, 429, "too_many_failed_attempts")
        assert 1 <= int(first_429.headers["retry-after"]) <= 2  # one failure back: 2 s at 30/min
        # docs/api.md Language: the limiter's own answer speaks the language asked for
        en = await api.client.get(bey.url("/me"), headers={**bey.auth(), "Accept-Language": "en"})
        assert_problem(en, 429, "too_many_failed_attempts")
        assert en.headers["content-language"] == "en"
        assert en.json()["detail"].startswith("Too many invalid tokens")
        assert first_429.headers["content-language"] == "tr"
        # the guesser's own valid token is refused too while it is limited ...
        assert (await api.client.get(bey.url("/me"), headers=bey.auth())).status_code == 429
        # ... but not its requests without credentials
        assert (await api.client.get(bey.url())).status_code == 200
        # another client address is not limited
        app = api.client._transport.app  # type: ignore[attr-defined]
        elsewhere = httpx.ASGITransport(app=app, client=("198.51.100.7", 40000))
        async with httpx.AsyncClient(transport=elsewhere, base_url="http://testserver") as other:
            assert (await other.get(bey.url("/me"), headers=bey.auth())).status_code == 200
            wrong = await other.get(bey.url("/me"), headers=bearer("sb1.x.1.nope"))
            assert wrong.status_code in (401, 403)


def test_the_bucket_refills_over_a_minute():
    now = [0.0]
    failures = AuthFailures(per_minute=6, clock=lambda: now[0])
    for _ in range(6):
        assert failures.retry_after("a") is None
        failures.failed("a")
    assert failures.retry_after("a") == 10  # one failure back every 10 s
    now[0] = 9.0
    assert failures.retry_after("a") == 1
    now[0] = 10.0
    assert failures.retry_after("a") is None
    failures.failed("a")
    assert failures.retry_after("a") == 10
    now[0] = 1000.0  # a long pause refills to the capacity, not beyond
    for _ in range(6):
        assert failures.retry_after("a") is None
        failures.failed("a")
    assert failures.retry_after("a") is not None
    assert failures.retry_after("b") is None


def test_the_limiter_forgets_the_oldest_clients_beyond_its_size():
    failures = AuthFailures(per_minute=1, clock=lambda: 0.0, size=3)
    for client in "abcd":
        failures.failed(client)
    assert failures.retry_after("a") is None  # forgotten
    assert all(failures.retry_after(c) is not None for c in "bcd")


async def test_the_limit_can_be_switched_off(clock):
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(auth_failures_per_minute=0)) as api:
        bey = await create_trial(api.client)
        for _ in range(50):
            r = await api.client.get(bey.url("/me"), headers=bearer("sb1.x.1.nope"))
            assert r.status_code in (401, 403)


def test_a_limited_client_is_logged_without_its_address(capsys):
    """No personal data: the log says a client hit the limit, never which address."""
    failures = AuthFailures(per_minute=1, clock=lambda: 0.0)
    failures.failed("203.0.113.9")
    captured = capsys.readouterr()
    assert "auth.failures_limited" in captured.out + captured.err
    assert "203.0.113.9" not in captured.out + captured.err


def _guess(bey: Any) -> dict[str, str]:
    return bearer(f"sb1.{bey.season_id}.{bey.seat}.{secrets.token_urlsafe(24)}")


async def test_api_processes_share_one_bucket_through_redis(clock, redis_url: str):
    """ARCHITECTURE (Access): rate limits live in Redis. A guesser spreading its tries over
    two API processes gets the limit once, not once per process."""
    store = InMemoryEventStore(clock=clock)
    shared = settings(auth_failures_per_minute=10, redis_url=redis_url)
    async with open_api(store, shared) as one, open_api(store, shared) as two:
        bey = await create_trial(one.client)
        statuses = []
        for n in range(40):
            client = (one, two)[n % 2].client
            statuses.append((await client.get(bey.url("/me"), headers=_guess(bey))).status_code)
        # 10 failures in all; then each process refuses at the guesser's next 401 there
        assert statuses[:10] == [401] * 10
        assert statuses.count(401) <= 12
        assert statuses[-20:] == [429] * 20
        for api in (one, two):  # the guesser's own valid token waits too, in either process
            r = await api.client.get(bey.url("/me"), headers=bey.auth())
            assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1


async def test_redis_holds_a_hash_of_the_address_and_forgets_it_within_a_minute(
    clock, redis_url: str
):
    store = InMemoryEventStore(clock=clock)
    config = settings(auth_failures_per_minute=10, redis_url=redis_url)
    redis = aioredis.Redis.from_url(redis_url)
    try:
        async with open_api(store, config) as api:
            bey = await create_trial(api.client)
            for _ in range(3):
                await api.client.get(bey.url("/me"), headers=_guess(bey))
        keys = [k.decode() async for k in redis.scan_iter(f"{config.broker_namespace}:*")]
        assert len(keys) == 1
        assert "127.0.0.1" not in keys[0]  # the test client's address
        assert "127.0.0.1" not in (await redis.get(keys[0])).decode()
        assert 0 < await redis.pttl(keys[0]) <= 3 * 6_000  # full again after 3 x 6 s
    finally:
        await redis.aclose()


async def test_without_redis_each_process_still_limits_on_its_own(clock, capsys):
    store = InMemoryEventStore(clock=clock)
    nowhere = settings(auth_failures_per_minute=10, redis_url="redis://127.0.0.1:9/0")
    async with open_api(store, nowhere) as api:
        bey = await create_trial(api.client)
        statuses = [
            (await api.client.get(bey.url("/me"), headers=_guess(bey))).status_code
            for _ in range(12)
        ]
    assert statuses == [401] * 10 + [429] * 2
    logged = capsys.readouterr()
    assert (logged.out + logged.err).count("auth.failures_unshared") == 1  # said once
