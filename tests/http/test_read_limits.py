"""Issue 20 item 5: reads are limited per client address and per token, in the process's memory.

One address's flood of reads slowed every season on the API process: reads had no limit. Now
every read (a GET of the API, an event-stream ticket) costs its client address one of its
budget, and one of its token's when it sends one (shared/app/http/read_limits.py, ReadLimits); past
it, 429 `too_many_requests` with Retry-After, problem+json, before anything is read
(RELIABILITY: resource limits and floods; ARCHITECTURE, Access: nothing about a client kept
durably). Each test sets a refill of one a minute, so no clock can refill a budget while it runs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

from entrypoints.gateway import create_app as create_gateway
from shared.app.http import read_limits
from shared.app.http.read_limits import ReadLimits, is_read
from shared.eventstore import InMemoryEventStore
from tests.documented import check_every_problem, documented_codes
from tests.http.support import assert_problem, create_trial, open_api, settings
from tests.projections.support import settings as projection_settings

BURST = 3  # reads an address (or a token) may send at once; then one a minute


def _still() -> float:
    """The limits' clock standing still: no read comes back during a test, so a refusal's
    Retry-After is the whole minute however slow the box (with time.monotonic a test slowed
    by 2 s under load saw 58)."""
    return 1000.0


def _limited(**overrides: Any) -> Any:
    limits = {"reads_per_minute": 1, "reads_per_token_per_minute": 1, "read_burst": BURST}
    limits["read_refusal_hold_ms"] = 0  # answered at once (the hold: its own test below)
    return settings(**{**limits, "seasons_per_minute": 0, **overrides})


def _from(api: Any, address: str) -> httpx.AsyncClient:
    """A client of the same app from another client address."""
    app = api.client._transport.app
    transport = httpx.ASGITransport(app=app, client=(address, 40000))
    client = httpx.AsyncClient(transport=transport, base_url="http://testserver")
    check_every_problem(client, app)  # the 429 is one the operation documents
    return client


def test_every_get_of_the_api_and_a_stream_ticket_are_reads():
    s = "/v1/seasons/" + "a" * 32
    for path in (s, f"{s}/map", f"{s}/private", f"{s}/events", "/v1/seasons", "/v1/board"):
        assert is_read("GET", path)
        assert is_read("HEAD", path)
    assert is_read("POST", f"{s}/tickets")
    assert not is_read("POST", f"{s}/orders")  # a command: its own limit (request_kind)
    assert not is_read("POST", "/v1/seasons")
    for path in ("/health", "/ready", "/metrics"):  # the operators' probes
        assert not is_read("GET", path)


async def test_reads_past_the_address_budget_answer_429_with_retry_after_and_change_nothing(
    clock,
):
    """docs/api.md (429 too_many_requests): the burst passes, the next read is refused with
    Retry-After in Turkish by default and in English on request; the season is unchanged."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited(), limiter_clock=_still) as api:
        bey = await create_trial(api.client)
        async with _from(api, "203.0.113.10") as phone:
            answers = [await phone.get(bey.url()) for _ in range(BURST)]
            assert [r.status_code for r in answers] == [200] * BURST
            version = await store.stream_version(bey.season_id)
            refused = await phone.get(bey.url())
            body = assert_problem(refused, 429, "too_many_requests")
            assert refused.headers["content-language"] == "tr"
            assert int(refused.headers["retry-after"]) == 60  # one a minute
            assert "60" in body["detail"]
            en = await phone.get(bey.url(), headers={"Accept-Language": "en"})
            assert_problem(en, 429, "too_many_requests")
            assert en.json()["detail"] == "Too many requests; try again in 60 seconds"
            assert (await phone.head(bey.url())).status_code == 429  # HEAD is a read too
            assert await store.stream_version(bey.season_id) == version
            assert (await phone.get("/health")).status_code == 200  # probes are not reads


async def test_another_address_is_not_limited_by_a_limited_one(clock):
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited()) as api:
        bey = await create_trial(api.client)
        async with _from(api, "203.0.113.10") as flood, _from(api, "198.51.100.7") as other:
            for _ in range(BURST + 5):
                await flood.get(bey.url())
            assert (await flood.get(bey.url())).status_code == 429
            assert [(await other.get(bey.url())).status_code for _ in range(BURST)] == [200] * 3
            assert (await other.get(bey.url())).status_code == 429  # its own budget, spent


async def test_a_tokens_read_budget_is_its_own(clock):
    """R-14 aside, a token's reads count against the token: a spent token is refused from any
    address; another token, or no token, from the same (shared mobile) address still reads."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited(reads_per_minute=0), limiter_clock=_still) as api:
        one = await create_trial(api.client)
        two = await create_trial(api.client)
        async with _from(api, "203.0.113.10") as phone, _from(api, "198.51.100.7") as wifi:
            for _ in range(BURST):
                assert (await phone.get(one.url("/me"), headers=one.auth())).status_code == 200
            refused = await phone.get(one.url("/me"), headers=one.auth())
            assert_problem(refused, 429, "too_many_requests")
            assert int(refused.headers["retry-after"]) == 60
            # the same token from another address: still its own budget, spent
            assert (await wifi.get(one.url("/me"), headers=one.auth())).status_code == 429
            # another token behind the same address is not limited by it, nor are reads
            # without a token (the address budget is off in this test)
            assert (await phone.get(two.url("/me"), headers=two.auth())).status_code == 200
            assert (await phone.get(one.url())).status_code == 200


async def test_a_read_with_a_token_also_counts_against_its_address(clock):
    """A flood cannot escape the address budget by spreading over many tokens."""
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited(reads_per_token_per_minute=0)) as api:
        beys = [await create_trial(api.client) for _ in range(BURST + 1)]
        async with _from(api, "203.0.113.10") as phone:
            statuses = [(await phone.get(b.url("/me"), headers=b.auth())).status_code for b in beys]
            assert statuses == [200] * BURST + [429]


async def test_behind_a_trusted_proxy_the_forwarded_address_is_the_one_limited(clock):
    """SEKSENBIR_TRUSTED_PROXIES decides the address, as for the other limits."""
    store = InMemoryEventStore(clock=clock)
    config = _limited(trusted_proxies=("10.0.0.5",))
    async with open_api(store, config) as api:
        bey = await create_trial(api.client)
        async with _from(api, "10.0.0.5") as proxy:
            one = {"X-Forwarded-For": "203.0.113.10"}
            for _ in range(BURST):
                assert (await proxy.get(bey.url(), headers=one)).status_code == 200
            assert (await proxy.get(bey.url(), headers=one)).status_code == 429
            other = {"X-Forwarded-For": "198.51.100.7"}
            assert (await proxy.get(bey.url(), headers=other)).status_code == 200


def test_the_budget_refills_evenly_and_a_refused_read_costs_nothing():
    now = [0.0]
    limits = ReadLimits(per_address=60, per_token=6, burst=2, clock=lambda: now[0])
    assert limits.wait("a", None) is None
    assert limits.wait("a", None) is None
    assert limits.wait("a", None) == 1  # one back every second at 60 a minute
    now[0] = 1.0
    assert limits.wait("a", None) is None
    assert limits.wait("a", None) == 1
    now[0] = 2.0
    assert limits.wait("a", b"Bearer t") is None
    assert limits.wait("b", b"Bearer t") is None  # the token's burst of 2, from two addresses
    assert limits.wait("c", b"Bearer t") == 10  # one back every 10 s at 6 a minute
    now[0] = 12.0  # refused reads did not count: the token has exactly one back
    assert limits.wait("c", b"Bearer t") is None
    assert limits.wait("c", b"Bearer t") == 10
    assert ReadLimits(0, 0, 1).active is False


def test_every_read_operation_documents_the_read_limit():
    """Each operation `is_read` counts lists 429 `too_many_requests` in the served document
    (and so in docs/api.md's table, which the document renders)."""
    doc = create_gateway(projection_settings("doc")).openapi_schema.to_schema()
    reads = [
        (method, path)
        for path, item in doc["paths"].items()
        for method in item
        if is_read(method.upper(), path)
    ]
    assert len(reads) > 20
    missing = [
        (m, p) for m, p in reads if documented_codes(doc, m, p).get("too_many_requests") != 429
    ]
    assert missing == []


async def test_a_refused_read_is_held_about_a_second_before_its_429(clock, monkeypatch):
    """A client that ignores Retry-After and loops gets about one answer a second per
    connection (read_limits.HOLD_S): each refusal waits before it is sent, the waits spread
    between half and one and a half times the hold, and the 429 is the same."""
    waits: list[float] = []

    async def recorded(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(read_limits, "_hold", recorded)
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited(read_refusal_hold_ms=1000), limiter_clock=_still) as api:
        bey = await create_trial(api.client)
        async with _from(api, "203.0.113.10") as phone:
            for _ in range(BURST):
                assert (await phone.get(bey.url())).status_code == 200
            assert waits == []  # an admitted read waits for nothing
            for _ in range(5):
                refused = await phone.get(bey.url())
                assert_problem(refused, 429, "too_many_requests")
                assert int(refused.headers["retry-after"]) == 60
    assert len(waits) == 5
    assert all(0.5 <= w < 1.5 for w in waits)
    assert len(set(waits)) == 5  # spread, not one wave


def test_the_holds_spread_evenly_over_a_second():
    holds = [read_limits.hold(n) for n in range(1000)]
    bins = Counter(int((h - 0.5) * 10) for h in holds)
    assert sorted(bins) == list(range(10))
    assert all(90 <= bins[b] <= 110 for b in range(10)), bins


async def test_past_the_held_bound_a_refused_read_is_answered_at_once(clock, monkeypatch):
    """At most HELD_MAX refusals wait at a time per process: a flood of connections cannot
    make the process hold more; past the bound they are answered at once, still 429."""
    waits: list[float] = []

    async def recorded(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(read_limits, "_hold", recorded)
    monkeypatch.setattr(read_limits, "HELD_MAX", 0)
    store = InMemoryEventStore(clock=clock)
    async with open_api(store, _limited(read_refusal_hold_ms=1000)) as api:
        bey = await create_trial(api.client)
        async with _from(api, "203.0.113.10") as phone:
            for _ in range(BURST):
                await phone.get(bey.url())
            assert_problem(await phone.get(bey.url()), 429, "too_many_requests")
    assert waits == []
