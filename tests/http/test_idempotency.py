"""RELIABILITY test 2: an Idempotency-Key makes a retried spend or order submission happen once.

Same key + same body → the first 2xx answer, byte for byte, and no new event; same key + other
body → 422; two concurrent copies → one runs, the other gets 409 (IETF idempotency-key draft)
or the replay. ARCHITECTURE.md, Event store: "A repeated key with the same body is answered
with the first result and appends nothing."
"""

from __future__ import annotations

import asyncio

import httpx
import pytest

from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.eventstore import PostgresEventStore, create_pool
from tests.http.support import (
    ANKARA,
    ISTANBUL,
    Api,
    GatedStore,
    assert_problem,
    build_season,
    create_trial,
    echoed,
    open_api,
    play_divans,
    request_divan,
    stream_types,
    unchanged,
)

SPEND = {"kind": "paralı_asker", "province": ANKARA}
ORDERS = {"orders": [{"province": ANKARA, "kind": "advance", "target": 71, "units": 2}]}
OTHER_ORDERS = {"orders": [{"province": ANKARA, "kind": "hold"}]}


def same_answer(replay: httpx.Response, first: httpx.Response) -> None:
    assert replay.status_code == first.status_code
    assert replay.content == first.content
    assert replay.headers["content-type"] == first.headers["content-type"]


async def _three_times(api: Api, path: str, body: dict[str, object], event: str) -> None:
    bey = await create_trial(api.client)
    before = await api.store.stream_version(bey.season_id)
    answers = [
        await api.client.post(bey.url(path), headers=bey.auth("retry-me"), json=body)
        for _ in range(3)
    ]
    assert answers[0].status_code == 200, answers[0].text
    for replay in answers[1:]:
        same_answer(replay, answers[0])
    assert await stream_types(api.store, bey.season_id, before) == [event]


@pytest.mark.integration
async def test_spend_retried_three_times_with_one_key_is_spent_once(pg_api: Api) -> None:
    """RELIABILITY 2, R-7.9: one MercenariesHired, 2 gold spent once; replays byte-identical."""
    await _three_times(pg_api, "/spend", SPEND, "mercenaries_hired.v1")
    (season_id,) = await pg_api.store.list_seasons()
    (hired,) = [e for e in await pg_api.store.read_stream(season_id) if e.type.startswith("merc")]
    assert hired.metadata.command_id == "retry-me"


@pytest.mark.integration
async def test_orders_retried_three_times_with_one_key_are_stored_once(pg_api: Api) -> None:
    """RELIABILITY 2, R-4.1: one OrdersSubmitted for three identical keyed submissions."""
    await _three_times(pg_api, "/orders", ORDERS, "orders_submitted.v1")


@pytest.mark.integration
async def test_offer_retried_with_one_key_is_offered_once(pg_api: Api) -> None:
    """RELIABILITY 2, R-6.1: a retried offer is no offer_exists refusal, it is the first answer."""
    await _three_times(pg_api, "/offers", {"to": 2, "kind": "pact"}, "treaty_offered.v1")


async def test_spend_retried_with_one_key_is_spent_once_in_memory(memory_api: Api) -> None:
    """RELIABILITY 2 on InMemoryEventStore (the fast store keeps the same contract)."""
    await _three_times(memory_api, "/spend", SPEND, "mercenaries_hired.v1")


# The same JSON written another way (issue 20 item 8, ADR-76): keys reordered, whitespace,
# a `\u` escape; each is the first request, not another.
SAME_JSON = [
    b'{"kind":"parali_asker","province":6}'.replace(b"parali", "paralı".encode()),
    b'{ "province" : 6 ,\n  "kind" : "paral\\u0131_asker" }',
    b'{"province": 6, "kind": "paral\xc4\xb1_asker"}',
]
SAME_ORDERS = [
    b'{"orders":[{"province":6,"kind":"advance","target":71,"units":2}]}',
    b'{"orders": [{"units": 2, "target": 71, "kind": "advance", "province": 6}]}',
    b'{\n "orders" : [ { "target":71 , "units":2,"province":6,"kind":"advance" } ] \n}',
]


@pytest.mark.parametrize(
    ("path", "bodies", "event"),
    [
        ("/spend", SAME_JSON, "mercenaries_hired.v1"),
        ("/orders", SAME_ORDERS, "orders_submitted.v1"),
    ],
    ids=["spend", "orders"],
)
async def test_the_same_json_with_keys_reordered_or_spaced_is_the_same_request(
    memory_api: Api, path: str, bodies: list[bytes], event: str
) -> None:
    """RELIABILITY 2, issue 20 item 8: an Idempotency-Key compares the canonical JSON (parsed,
    keys sorted, no whitespace), so a retry that re-serialised its body is replayed, not 422
    `idempotency_key_reused`; the command happens once."""
    bey = await create_trial(memory_api.client)
    before = await memory_api.store.stream_version(bey.season_id)
    answers = [
        await memory_api.client.post(bey.url(path), headers=bey.auth("layout"), content=body)
        for body in bodies
    ]
    assert answers[0].status_code == 200, answers[0].text
    for replay in answers[1:]:
        same_answer(replay, answers[0])
    assert await stream_types(memory_api.store, bey.season_id, before) == [event]
    # a value changed is still another request
    other = bodies[0].replace(b"6", b"71", 1)
    request = memory_api.client.post(bey.url(path), headers=bey.auth("layout"), content=other)
    assert_problem(await unchanged(memory_api.store, request), 422, "idempotency_key_reused")


@pytest.mark.integration
@pytest.mark.parametrize(
    ("path", "first", "changed"),
    [
        ("/spend", SPEND, {"kind": "paralı_asker", "province": 71}),
        ("/orders", ORDERS, OTHER_ORDERS),
    ],
    ids=["spend", "orders"],
)
async def test_same_key_with_a_changed_body_is_422_and_appends_nothing(
    pg_api: Api, path: str, first: dict[str, object], changed: dict[str, object]
) -> None:
    """RELIABILITY 2: key reuse with another body is idempotency_key_reused (422)."""
    bey = await create_trial(pg_api.client)
    ok = await pg_api.client.post(bey.url(path), headers=bey.auth("k"), json=first)
    assert ok.status_code == 200, ok.text
    request = pg_api.client.post(bey.url(path), headers=bey.auth("k"), json=changed)
    assert_problem(await unchanged(pg_api.store, request), 422, "idempotency_key_reused")
    again = await pg_api.client.post(bey.url(path), headers=bey.auth("k"), json=first)
    same_answer(again, ok)


@pytest.mark.integration
async def test_concurrent_copy_while_the_first_is_running_gets_409(
    event_store: PostgresEventStore,
) -> None:
    """RELIABILITY 2: the second copy of a running request is 409 idempotency_key_in_flight.

    The first request is held inside its append (a gate); the copy arrives meanwhile; after
    the gate opens the first succeeds, a third copy gets its answer, and one event exists.
    """
    gated = GatedStore(event_store)
    async with open_api(event_store, api_store=gated) as api:  # type: ignore[arg-type]
        gated.closed = False
        bey = await create_trial(api.client)
        before = await event_store.stream_version(bey.season_id)
        gated.closed = True
        post = lambda: api.client.post(bey.url("/spend"), headers=bey.auth("once"), json=SPEND)  # noqa: E731
        first = asyncio.create_task(post())
        await asyncio.wait_for(gated.entered.wait(), 10)
        copy = await post()
        assert_problem(copy, 409, "idempotency_key_in_flight")
        gated.release.set()
        done = await asyncio.wait_for(first, 10)
        assert done.status_code == 200, done.text
        same_answer(await post(), done)
    assert await stream_types(event_store, bey.season_id, before) == ["mercenaries_hired.v1"]


@pytest.mark.integration
@pytest.mark.parametrize("path", ["/spend", "/orders"])
async def test_two_concurrent_copies_append_exactly_one_event(pg_api: Api, path: str) -> None:
    """RELIABILITY 2: asyncio.gather of two identical keyed requests: one runs, the other is
    409 (still running) or the replay of the first answer; exactly one event either way."""
    bey = await create_trial(pg_api.client)
    before = await pg_api.store.stream_version(bey.season_id)
    body = SPEND if path == "/spend" else ORDERS
    a, b = await asyncio.gather(
        *(pg_api.client.post(bey.url(path), headers=bey.auth("twin"), json=body) for _ in "ab")
    )
    ok = [r for r in (a, b) if r.status_code == 200]
    assert ok, (a.text, b.text)
    for other in (a, b):
        if other.status_code == 409:
            assert_problem(other, 409, "idempotency_key_in_flight")
        else:
            same_answer(other, ok[0])
    assert len(await stream_types(pg_api.store, bey.season_id, before)) == 1


@pytest.mark.integration
async def test_a_refused_keyed_command_is_replayed_as_the_same_refusal(pg_api: Api) -> None:
    """The stored answer of a key may be a 4xx problem: a retry gets the same refusal."""
    bey = await create_trial(pg_api.client)
    sur = {"kind": "sur", "province": ANKARA}
    first = await pg_api.client.post(bey.url("/spend"), headers=bey.auth("sur"), json=sur)
    assert_problem(first, 422, "not_enough_gold")
    again = await unchanged(
        pg_api.store, pg_api.client.post(bey.url("/spend"), headers=bey.auth("sur"), json=sur)
    )
    same_answer(again, first)


@pytest.mark.integration
async def test_keys_are_scoped_per_bey_so_another_bey_may_use_the_same_key(pg_api: Api) -> None:
    """The key scope is season + seat: bey B's key "1" is not bey A's key "1"."""
    a, b = await build_season(pg_api.store, [ANKARA, ISTANBUL])
    ra = await pg_api.client.post(a.url("/spend"), headers=a.auth("1"), json=SPEND)
    assert ra.status_code == 200, ra.text
    body = {"kind": "sur", "province": ISTANBUL}  # 2 gold: refused, but B's own refusal
    rb = await pg_api.client.post(b.url("/spend"), headers=b.auth("1"), json=body)
    assert_problem(rb, 422, "not_enough_gold")


@pytest.mark.integration
async def test_two_beys_using_the_same_key_both_get_their_command(pg_api: Api) -> None:
    """Idempotency-Key scope (season, seat): the same key from two beys is two commands."""
    a, b = await build_season(pg_api.store, [ANKARA, ISTANBUL])
    ra = await pg_api.client.post(a.url("/spend"), headers=a.auth("1"), json=SPEND)
    assert ra.status_code == 200, ra.text
    body = {"kind": "paralı_asker", "province": ISTANBUL}
    rb = await pg_api.client.post(b.url("/spend"), headers=b.auth("1"), json=body)
    assert rb.status_code == 200, rb.text


@pytest.mark.integration
async def test_a_reused_request_id_never_drops_a_newer_order_set(pg_api: Api) -> None:
    """R-4.1: the newest set stands, whatever tracing header the client sends."""
    bey = await create_trial(pg_api.client)
    for request_id, body in (("r1", ORDERS), ("r2", OTHER_ORDERS), ("r1", ORDERS)):
        headers = {**bey.auth(), "X-Request-Id": request_id}
        r = await pg_api.client.post(bey.url("/orders"), headers=headers, json=body)
        assert r.status_code == 200, r.text
    me = (await pg_api.client.get(bey.url("/me"), headers=bey.auth())).json()
    assert me["orders"]["orders"] == echoed(ORDERS["orders"])


@pytest.mark.integration
async def test_two_beys_with_the_same_request_id_both_get_their_orders_stored(
    pg_api: Api,
) -> None:
    """R-4.1: a bey's orders never depend on another bey's tracing header."""
    a, b = await build_season(pg_api.store, [ANKARA, ISTANBUL])
    for bey in (a, b):
        body = {"orders": [{"province": bey.memleket, "kind": "hold"}]}
        headers = {**bey.auth(), "X-Request-Id": "same"}
        r = await pg_api.client.post(bey.url("/orders"), headers=headers, json=body)
        assert r.status_code == 200, r.text


@pytest.mark.integration
async def test_spending_during_a_lock_is_409_with_retry_after(pg_api: Api) -> None:
    """R-7.9, ARCHITECTURE Divan lifecycle: refused with 409 and Retry-After."""
    bey = await create_trial(pg_api.client)
    assert (await request_divan(pg_api.client, bey, 1)).status_code == 202
    r = await pg_api.client.post(bey.url("/spend"), headers=bey.auth("k"), json=SPEND)
    assert_problem(r, 409, "divan_locked")
    assert r.headers.get("retry-after")


@pytest.mark.integration
async def test_a_spend_refused_during_the_lock_succeeds_when_retried_after_it(
    pg_api: Api,
) -> None:
    """R-7.9: refused only *while* a Divan is resolved; the retry after it is a fresh spend."""
    bey = await create_trial(pg_api.client)
    assert (await request_divan(pg_api.client, bey, 1)).status_code == 202
    locked = await pg_api.client.post(bey.url("/spend"), headers=bey.auth("k"), json=SPEND)
    assert_problem(locked, 409, "divan_locked")
    assert await resolve(Seasons(pg_api.store), bey.season_id, 1) == "resolved"
    retry = await pg_api.client.post(bey.url("/spend"), headers=bey.auth("k"), json=SPEND)
    assert retry.status_code == 200, retry.text


@pytest.mark.integration
async def test_a_spend_after_the_divan_is_resolved_is_accepted(pg_api: Api) -> None:
    """R-7.9: the lock lifts with the resolution; a new key spends at once."""
    bey = await create_trial(pg_api.client)
    await play_divans(pg_api, bey, 1)
    r = await pg_api.client.post(bey.url("/spend"), headers=bey.auth("after"), json=SPEND)
    assert r.status_code == 200, r.text
    assert r.json()["events"] == ["mercenaries_hired.v1"]


class _Meeting:
    """Appends of several stores that wait for each other: each racer has decided on the same
    state before either writes, so both appends reach PostgreSQL together."""

    def __init__(self, parties: int) -> None:
        self.parties, self.arrived, self.all_here = parties, 0, asyncio.Event()

    def store(self, inner: PostgresEventStore) -> object:
        meeting = self

        class Met:
            idempotency = inner.idempotency

            async def append(self, *args: object, **kwargs: object) -> object:
                if not meeting.all_here.is_set():
                    meeting.arrived += 1
                    if meeting.arrived >= meeting.parties:
                        meeting.all_here.set()
                    await asyncio.wait_for(meeting.all_here.wait(), 10)
                return await inner.append(*args, **kwargs)  # type: ignore[arg-type]

            def __getattr__(self, name: str) -> object:
                return getattr(inner, name)

        return Met()


@pytest.mark.integration
@pytest.mark.parametrize("path", ["/spend", "/offers", "/orders"])
async def test_copies_in_two_api_processes_wait_for_the_first_commit_and_answer_its_result(
    event_store: PostgresEventStore, migrated_pg_dsn: str, clock, path: str
) -> None:
    """docs/api.md (Idempotency-Key), RELIABILITY 2: a copy reaching another API process
    waits for the first's commit and answers its result. Two apps, each on a pool of its own
    (two processes: no shared in-flight set), get one keyed request each; both decide on the
    same state and append at once. Exactly one event set is stored and both answer 200 with
    the same bytes; a third copy afterwards replays them too."""
    other_pool = await create_pool(migrated_pg_dsn)
    other = PostgresEventStore(other_pool, clock=clock)
    meeting = _Meeting(2)
    body = {"/spend": SPEND, "/offers": {"to": 2, "kind": "pact"}, "/orders": ORDERS}[path]
    try:
        async with (
            open_api(event_store) as setup,
            open_api(event_store, api_store=meeting.store(event_store)) as one,  # type: ignore[arg-type]
            open_api(event_store, api_store=meeting.store(other)) as two,  # type: ignore[arg-type]
        ):
            bey = await create_trial(setup.client)
            before = await event_store.stream_version(bey.season_id)
            a, b = await asyncio.gather(
                *(
                    api.client.post(bey.url(path), headers=bey.auth("twin"), json=body)
                    for api in (one, two)
                )
            )
            assert meeting.all_here.is_set()  # both appends were in flight together
            assert a.status_code == 200, a.text
            same_answer(b, a)
            same_answer(
                await setup.client.post(bey.url(path), headers=bey.auth("twin"), json=body), a
            )
        assert len(await stream_types(event_store, bey.season_id, before)) == 1
    finally:
        await other_pool.close()


# A string holding a lone surrogate: escaped (valid UTF-8 text) and as its raw bytes (what the
# stdlib's decoder reads with "surrogatepass", as json.loads reads bytes).
LONE_SURROGATE = [b'{"x": "\\ud800"}', b'{"x":"\xed\xa0\x80"}']


async def test_a_keyed_body_holding_a_lone_surrogate_is_a_request_not_a_500(
    memory_api: Api,
) -> None:
    """Probe (session 23): withdrawing an offer (a command that takes no body) with an
    Idempotency-Key and a body holding a lone surrogate answered 500 `internal`: the request's
    canonical form could not be encoded as UTF-8. It is hashed as any other body; the two
    spellings are one request, replayed byte for byte."""
    bey = await create_trial(memory_api.client)
    answers = [
        await memory_api.client.post(
            bey.url("/offers/2/withdraw"),
            headers={**bey.auth("lone"), "Content-Type": "application/json"},
            content=body,
        )
        for body in LONE_SURROGATE
    ]
    assert answers[0].status_code < 500, answers[0].text
    same_answer(answers[1], answers[0])
