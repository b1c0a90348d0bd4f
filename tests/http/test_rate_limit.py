"""RELIABILITY 24: 10k random-token attempts get 401, then 429 with Retry-After.

The limiter counts 401 answers per client address (shared/app/http/ratelimit.py); an empty bucket
refuses that client's credentialed requests before any token is checked. Other clients, and
the same client's requests without credentials, are not affected.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from datetime import timedelta
from typing import Any

import httpx
import redis.asyncio as aioredis

from shared.app.http.ratelimit import AuthFailures, RequestLimits, request_kind
from shared.eventstore import InMemoryEventStore
from tests.documented import check_every_problem
from tests.http.support import (
    assert_problem,
    bearer,
    create_trial,
    open_api,
    settings,
    state_of,
)

GUESSES = 10_000


async def test_ten_thousand_random_tokens_get_401_then_429_and_only_for_that_client(clock):
    """The failed-token bucket holds 30 failures a minute per address: with the limiter's clock
    held still (no refill while the guesses run, however slow the machine), exactly the first
    30 guesses are 401 and every later one 429."""
    store = InMemoryEventStore(clock=clock)
    frozen = 1_000.0
    async with open_api(
        store, settings(auth_failures_per_minute=30), limiter_clock=lambda: frozen
    ) as api:
        bey = await create_trial(api.client)
        statuses: dict[int, int] = {}
        first_429 = None
        for n in range(GUESSES):
            guess = f"sb1.{bey.season_id}.{bey.seat}.{secrets.token_urlsafe(24)}"
            r = await api.client.get(bey.url("/me"), headers=bearer(guess))
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code == 429 and first_429 is None:
                first_429 = r
                assert n == 30  # the bucket holds 30 failures
        assert statuses == {401: 30, 429: GUESSES - 30}
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


def test_a_flood_of_refusals_is_logged_once_per_thousand_with_its_count(capsys):
    """A client refused 2,500 times (failed tokens past the limit, commands past theirs) writes
    three warning lines, not 2,500: the access log already has a line per request. (Read from
    the real sink, as above: structlog's capture_logs would cache this module's logger on its
    first use with the capture's processors, and a later test would see no line at all.)"""
    failures = AuthFailures(per_minute=1, clock=lambda: 0.0)
    limits = RequestLimits(None, "t", {"command": 1}, clock=lambda: 0.0)
    for _ in range(2_500):
        failures.failed("203.0.113.9")
    waits = [asyncio.run(limits.wait("command", "a")) for _ in range(2_501)]
    assert waits[0] is None and all(w is not None for w in waits[1:])
    lines = capsys.readouterr().out.splitlines()
    counts = {
        event: _counts(lines, event, key)
        for event, key in (("auth.failures_limited", "limited"), ("rate.limited", "refused"))
    }
    assert counts == {"auth.failures_limited": [1, 1001, 2001], "rate.limited": [1, 1001, 2001]}


def _counts(lines: list[str], event: str, key: str) -> list[int]:
    """`key`'s value in each line of `event`, rendered as JSON or for the console: a module's
    logger keeps the renderer of the configuration it was first used under (structlog caches
    it), and a test earlier in the same worker may have configured JSON."""
    found = []
    for line in lines:
        if line.startswith("{"):
            record = json.loads(line)
            if record.get("event") == event:
                found.append(int(record[key]))
        elif m := re.search(rf"{re.escape(event)}\b.*?\b{key}=(\d+)", line):
            found.append(int(m.group(1)))
    return found


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
        failures = [k for k in keys if ":authfail:" in k]
        assert len(failures) == 1
        assert "127.0.0.1" not in failures[0]  # the test client's address
        assert "127.0.0.1" not in (await redis.get(failures[0])).decode()
        assert 0 < await redis.pttl(failures[0]) <= 3 * 6_000  # full again after 3 x 6 s
        # the season creation's request budget: hashed too, and gone once full again (2 s at 30)
        (created,) = [k for k in keys if ":rate:create:" in k]
        assert "127.0.0.1" not in created
        assert 0 < await redis.pttl(created) <= 2_000
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


# --- request limits: season creation, joins, commands (issue 14) -------------------------------
def _from(api: Any, address: str) -> httpx.AsyncClient:
    """A client of the same app from another client address."""
    app = api.client._transport.app
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
    check_every_problem(client, app)
    return client


def test_which_requests_count_against_which_limit():
    s = "/v1/seasons/" + "a" * 32
    assert request_kind("POST", "/v1/seasons") == "create"
    assert request_kind("POST", f"{s}/join") == "join"
    for tail in ("/orders", "/spend", "/offers", "/offers/2/withdraw", "/offers/2/answer"):
        assert request_kind("POST", s + tail) == "command"
    for tail in ("/kurultay/vote", "/divans", "/token", "/admin/pause", "/admin/postpone"):
        assert request_kind("POST", s + tail) == "command"
    assert request_kind("POST", "/v1/ops/seasons/x/beys/1/token") == "command"
    assert request_kind("POST", "/v1/players") == "create"  # issue 23: as many as seasons
    assert request_kind("POST", "/v1/players/" + "b" * 32 + "/key") == "command"
    assert request_kind("POST", "/v1/players/" + "b" * 32 + "/leave") == "command"
    assert request_kind("GET", "/v1/players/" + "b" * 32) is None
    assert request_kind("POST", f"{s}/tickets") is None  # the read side's, not a command
    assert request_kind("GET", s) is None
    assert request_kind("GET", "/v1/seasons") is None


async def test_season_creation_is_limited_per_client_with_retry_after(clock, redis_url: str):
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, settings(seasons_per_minute=5, redis_url=redis_url)) as api:
        statuses = [
            (await api.client.post("/v1/seasons", json={"memleket": 6})).status_code
            for _ in range(7)
        ]
        assert statuses == [201] * 5 + [429] * 2
        r = await api.client.post("/v1/seasons", json={"memleket": 6})
        assert_problem(r, 429, "too_many_requests")
        assert 1 <= int(r.headers["retry-after"]) <= 12  # one back every 12 s at 5/min
        assert len(await store.list_seasons()) == 5  # a refused creation stores nothing
        en = await api.client.post(
            "/v1/seasons", json={"memleket": 6}, headers={"Accept-Language": "en"}
        )
        assert en.json()["detail"].startswith("Too many requests")
        async with _from(api, "198.51.100.9") as other:  # another address has its own budget
            assert (await other.post("/v1/seasons", json={"memleket": 6})).status_code == 201


async def test_commands_are_limited_per_client_and_other_requests_are_not(clock, redis_url):
    store = InMemoryEventStore(clock=clock)
    config = settings(commands_per_minute=4, redis_url=redis_url)
    async with open_api(store, config) as api:
        bey = await create_trial(api.client)
        hold = {"orders": [{"province": 6, "kind": "hold"}]}
        statuses = [
            (await api.client.post(bey.url("/orders"), headers=bey.auth(), json=hold)).status_code
            for _ in range(5)
        ]
        assert statuses == [200] * 4 + [429]
        spent = await api.client.post(
            bey.url("/spend"), headers=bey.auth("k"), json={"kind": "paralı_asker", "province": 6}
        )
        assert_problem(spent, 429, "too_many_requests")  # one budget for every command
        assert int(spent.headers["retry-after"]) >= 1
        # reads are not commands
        assert (await api.client.get(bey.url("/me"), headers=bey.auth())).status_code == 200
        assert (await api.client.get(bey.url())).status_code == 200


async def test_api_processes_share_the_request_budget_through_redis(clock, redis_url: str):
    """ARCHITECTURE (Access): rate limits live in Redis; two API processes, one budget."""
    store = InMemoryEventStore(clock=clock)
    shared = settings(seasons_per_minute=6, redis_url=redis_url)
    async with open_api(store, shared) as one, open_api(store, shared) as two:
        statuses = [
            (await (one, two)[n % 2].client.post("/v1/seasons", json={"memleket": 6})).status_code
            for n in range(10)
        ]
    assert statuses == [201] * 6 + [429] * 4


async def test_without_redis_each_process_limits_requests_on_its_own(clock):
    store = InMemoryEventStore(clock=clock)
    nowhere = settings(seasons_per_minute=3, redis_url="redis://127.0.0.1:9/0")
    async with open_api(store, nowhere) as api:
        statuses = [
            (await api.client.post("/v1/seasons", json={"memleket": 6})).status_code
            for _ in range(5)
        ]
    assert statuses == [201] * 3 + [429] * 2


def test_the_memory_bucket_admits_a_burst_then_one_per_interval():
    now = [0.0]
    limits = RequestLimits(None, "t", {"join": 6}, clock=lambda: now[0])
    admitted = [asyncio.run(limits.wait("join", "a")) for _ in range(7)]
    assert admitted == [None] * 6 + [10]  # one back every 10 s
    now[0] = 9.5
    assert asyncio.run(limits.wait("join", "a")) == 1
    now[0] = 10.0
    assert asyncio.run(limits.wait("join", "a")) is None
    assert asyncio.run(limits.wait("join", "a")) is not None
    assert asyncio.run(limits.wait("join", "b")) is None  # per address
    assert asyncio.run(limits.wait("create", "a")) is None  # no limit of that kind: none


async def test_a_flood_of_joins_cannot_take_another_players_memleket(
    event_store, redis_url: str
) -> None:
    """R-1.4 first come, first served, under a flood: one address sending joins for every
    memleket as fast as it can gets `joins_per_minute` seats and then 429s; the player who
    joined Ankara keeps it (the flood's Ankara joins are memleket_taken), and a player from
    another address still joins."""
    config = settings(joins_per_minute=5, redis_url=redis_url)
    async with open_api(event_store, config) as api:
        closes = (api.clock.now + timedelta(hours=2)).isoformat()
        created = await api.client.post(
            "/v1/seasons", json={"mode": "live", "registration_closes_at": closes}
        )
        assert created.status_code == 201, created.text
        season_id = created.json()["season_id"]
        join = f"/v1/seasons/{season_id}/join"
        async with _from(api, "203.0.113.1") as player, _from(api, "203.0.113.66") as flood:
            mine = await player.post(join, json={"memleket": 6})
            assert mine.status_code == 201, mine.text
            flooded = await asyncio.gather(
                *(flood.post(join, json={"memleket": m}) for m in [6] * 10 + list(range(7, 60)))
            )
            statuses = [r.status_code for r in flooded]
            assert statuses.count(201) <= 5
            assert statuses.count(429) >= len(flooded) - 5
            assert all(
                r.json()["code"] == "memleket_taken" for r in flooded if r.status_code == 409
            )
            assert all(int(r.headers["retry-after"]) >= 1 for r in flooded if r.status_code == 429)
            async with _from(api, "203.0.113.2") as late:
                # 61 is outside the flood's range: which five memleket the flood's concurrent
                # joins won is first come, first served, so 34 may be one of them (CI saw it).
                joined = await late.post(join, json={"memleket": 61})
                assert joined.status_code == 201, joined.text
        state, _version = await state_of(event_store, season_id)
        owners = {b.memleket: b.seat for b in state.beys}
        assert owners[6] == mine.json()["seat"]  # Ankara stays the first player's
        assert len(state.beys) <= 1 + 5 + 1


async def test_adr151_a_kind_without_a_limit_is_let_through_without_asking() -> None:
    """A request of a kind no limit is set for (0 a minute) passes `limit_requests` without a
    `wait` coroutine (ADR-151: it answered None at once); a limited kind is still asked."""
    from shared.app.http.ratelimit import limit_requests

    limits = RequestLimits(None, "ns", {"create": 5, "command": 0})
    asked: list[str] = []
    wait = limits.wait

    async def asking(kind: str, client: str) -> int | None:
        asked.append(kind)
        return await wait(kind, client)

    limits.wait = asking  # type: ignore[method-assign]
    passed: list[str] = []

    async def app(scope: dict[str, Any], _receive: Any, _send: Any) -> None:
        passed.append(scope["path"])

    guarded = limit_requests(limits)(app)
    for path in ("/v1/seasons/abc/orders", "/v1/seasons"):
        scope = {"type": "http", "method": "POST", "path": path, "headers": [], "client": ("1", 1)}
        await guarded(scope, None, None)
    assert passed == ["/v1/seasons/abc/orders", "/v1/seasons"]
    assert asked == ["create"]


async def test_adr151_the_failed_token_limit_reads_the_headers_only_for_a_client_it_holds() -> None:
    """`limit_failed_auth` looks for an Authorization header only when the client's bucket
    says wait (ADR-151): a client without failures passes without a walk of its headers; one
    over the limit is still refused with a token, and let through without."""
    from shared.app.http.ratelimit import limit_failed_auth

    class Walked(list[tuple[bytes, bytes]]):
        walks = 0

        def __iter__(self) -> Any:
            Walked.walks += 1
            return super().__iter__()

    failures = AuthFailures(1, lambda: 100.0)
    answers: list[int] = []

    async def app(_scope: Any, _receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 401, "headers": []})

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answers.append(message["status"])

    guarded = limit_failed_auth(failures)(app)

    def scope(token: bool) -> dict[str, Any]:
        headers = Walked([(b"authorization", b"Bearer x")] if token else [])
        return {"type": "http", "path": "/v1/x", "headers": headers, "client": ("9", 1)}

    await guarded(scope(True), None, send)  # no bucket yet: its 401 is counted
    assert Walked.walks == 0 and answers == [401]
    await guarded(scope(True), None, send)  # over the limit: refused
    await guarded(scope(False), None, send)  # without a token: let through
    assert answers == [401, 429, 401] and Walked.walks == 3  # the refusal: its language too
