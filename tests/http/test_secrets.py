"""Secrets stay with their owner: orders, missions and tokens (R-4.3, R-10.1, R-14, RELIABILITY 24).

ARCHITECTURE Access: a bey token is random, shown once, stored only as a hash; a bey can
rotate it; ops can reissue a lost one, and the reissue is an audited event.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field

import asyncpg
import httpx
import pytest

from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import PostgresEventStore
from tests.http.support import (
    ANKARA,
    ISTANBUL,
    OPS_TOKEN,
    Api,
    BarrierStore,
    Bey,
    assert_problem,
    bearer,
    build_season,
    create_trial,
    echoed,
    open_api,
    state_of,
)

CANARY = [{"province": ANKARA, "kind": "support", "target": 71, "units": 11}]
IZMIR = 35


@dataclass
class Seen:
    """Every response body, by who asked (a seat, 'ops' or 'public')."""

    bodies: list[tuple[str, bytes]] = field(default_factory=list)

    async def call(
        self, client: httpx.AsyncClient, who: str, method: str, url: str, **kw: object
    ) -> httpx.Response:
        r = await client.request(method, url, **kw)  # type: ignore[arg-type]
        self.bodies.append((who, r.content + str(r.headers).encode()))
        return r

    def shown_to(self, who: str) -> list[bytes]:
        return [body for asker, body in self.bodies if asker == who]


def secret_of(token: str) -> str:
    """The random part of a bey token (`sb1.<season>.<seat>.<secret>`), or the whole token."""
    return token.rsplit(".", 1)[-1]


@pytest.mark.integration
async def test_a_bey_never_sees_another_beys_orders_or_missions(pg_api: Api) -> None:
    """R-4.3, R-10.1, R-14: B's /me and the public status never carry A's canary order or
    A's missions; B's token acts only for B (object-level authorisation, RELIABILITY 24)."""
    a, b, c = await build_season(pg_api.store, [ANKARA, ISTANBUL, IZMIR])
    r = await pg_api.client.post(a.url("/orders"), headers=a.auth(), json={"orders": CANARY})
    assert r.status_code == 200, r.text
    offer = {"to": c.seat, "kind": "alliance"}
    assert (
        await pg_api.client.post(a.url("/offers"), headers=a.auth("o"), json=offer)
    ).status_code == 200
    state, _v = await state_of(pg_api.store, a.season_id)
    missions = {s: set(state.bey(s).missions) for s in (a.seat, b.seat)}  # type: ignore[union-attr]

    mine_a = (await pg_api.client.get(a.url("/me"), headers=a.auth())).json()
    assert mine_a["orders"]["orders"] == echoed(CANARY)
    r_b = await pg_api.client.get(b.url("/me"), headers=b.auth())
    mine_b = r_b.json()
    assert mine_b["seat"] == b.seat
    assert mine_b["orders"]["orders"] == []
    assert {m["id"] for m in mine_b["missions"]} == missions[b.seat]
    for mission in missions[a.seat] - missions[b.seat]:
        assert mission.encode() not in r_b.content
    assert b'"units":11' not in r_b.content
    public = await pg_api.client.get(a.url())
    assert public.status_code == 200
    assert b"orders" not in public.content
    assert not any(m.encode() in public.content for m in missions[a.seat] | missions[b.seat])

    # B's token cannot withdraw or answer A's offer to C: it only ever speaks for seat B.
    withdraw = await pg_api.client.post(b.url(f"/offers/{c.seat}/withdraw"), headers=b.auth())
    assert_problem(withdraw, 422, "no_offer")
    answer = await pg_api.client.post(
        b.url(f"/offers/{a.seat}/answer"), headers=b.auth(), json={"answer": "accept"}
    )
    assert_problem(answer, 422, "no_offer")
    state, _v = await state_of(pg_api.store, a.season_id)
    assert [(o.frm, o.to, o.answer) for o in state.offers] == [(a.seat, c.seat, None)]


@pytest.mark.integration
async def test_no_response_ever_carries_another_beys_token(pg_api: Api) -> None:
    """R-14, R-15.3 (a token is one bey's), RELIABILITY 24: a token is shown only to its holder
    (and to ops who reissue it)."""
    seen = Seen()
    cl = pg_api.client
    a, b = await build_season(pg_api.store, [ANKARA, ISTANBUL])
    tokens = {"a": [a.token], "b": [b.token]}
    for who, bey in (("a", a), ("b", b)):
        body = {"orders": [{"province": bey.memleket, "kind": "hold"}]}
        await seen.call(cl, who, "POST", bey.url("/orders"), headers=bey.auth(), json=body)
        await seen.call(cl, who, "GET", bey.url("/me"), headers=bey.auth())
        await seen.call(cl, who, "GET", bey.url(), headers=bey.auth())
    offer = {"to": b.seat, "kind": "pact"}
    await seen.call(cl, "a", "POST", a.url("/offers"), headers=a.auth("k"), json=offer)
    await seen.call(cl, "b", "GET", b.url("/me"), headers=b.auth())
    r = await seen.call(cl, "a", "POST", a.url("/token"), headers=a.auth())
    tokens["a"].append(r.json()["token"])
    url = f"/v1/ops/seasons/{b.season_id}/beys/{b.seat}/token"
    r = await seen.call(cl, "ops", "POST", url, headers=bearer(OPS_TOKEN))
    tokens["b"].append(r.json()["token"])
    b2 = Bey(b.season_id, b.seat, tokens["b"][-1], b.memleket)
    await seen.call(cl, "b", "GET", b2.url("/me"), headers=b2.auth())
    await seen.call(cl, "b", "GET", b2.url("/me"), headers=b.auth())  # the old one: 401
    await seen.call(cl, "public", "GET", a.url())

    for who, others in (
        ("a", tokens["b"]),
        ("b", tokens["a"]),
        ("public", [*tokens["a"], *tokens["b"]]),
    ):
        for body in seen.shown_to(who):
            for token in others:
                assert secret_of(token).encode() not in body, (who, body[:200])
    for body in seen.shown_to("ops"):
        assert all(secret_of(t).encode() not in body for t in tokens["a"])


async def _all_rows(pool: asyncpg.Pool) -> list[bytes]:
    """Every cell of the event log and the Idempotency-Key table, as bytes."""
    cells: list[bytes] = []
    for sql in (
        "SELECT data, metadata::text FROM events",
        "SELECT * FROM idempotency_keys",
        "SELECT * FROM streams",
    ):
        for row in await pool.fetch(sql):
            for value in row.values():
                cells.append(value if isinstance(value, bytes) else str(value).encode())
    return cells


@pytest.mark.integration
async def test_the_database_keeps_token_hashes_never_tokens(
    pg_api: Api, pg_pool: asyncpg.Pool
) -> None:
    """ARCHITECTURE Access, RELIABILITY 24: after create + rotate + ops reissue (+ keyed
    commands), no plaintext token or token secret is in events or idempotency_keys; the
    SHA-256 of each issued token is."""
    cl = pg_api.client
    bey = await create_trial(cl)
    issued = [bey.token]
    spend = {"kind": "paralı_asker", "province": ANKARA}
    assert (await cl.post(bey.url("/spend"), headers=bey.auth("k1"), json=spend)).status_code == 200
    r = await cl.post(bey.url("/token"), headers=bey.auth())
    issued.append(r.json()["token"])
    bey = Bey(bey.season_id, bey.seat, issued[-1], bey.memleket)
    r = await cl.post(
        f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token", headers=bearer(OPS_TOKEN)
    )
    assert r.status_code == 200, r.text
    issued.append(r.json()["token"])
    bey = Bey(bey.season_id, bey.seat, issued[-1], bey.memleket)
    body = {"orders": [{"province": ANKARA, "kind": "hold"}]}
    assert (await cl.post(bey.url("/orders"), headers=bey.auth("k2"), json=body)).status_code == 200
    offer = {"to": 2, "kind": "pact"}
    assert (
        await cl.post(bey.url("/offers"), headers=bey.auth("k3"), json=offer)
    ).status_code == 200

    cells = await _all_rows(pg_pool)
    assert len(await pg_pool.fetch("SELECT 1 FROM idempotency_keys")) == 3
    everything = b"\n".join(cells)
    for token in (*issued, OPS_TOKEN):
        assert token.encode() not in everything
        assert secret_of(token).encode() not in everything
    for token in issued:
        assert hashlib.sha256(token.encode()).hexdigest().encode() in everything


@pytest.mark.integration
async def test_rotating_a_token_retires_the_old_one_at_once(pg_api: Api) -> None:
    """ARCHITECTURE Access: after POST /token the old token is 401, the new one works."""
    bey = await create_trial(pg_api.client)
    r = await pg_api.client.post(bey.url("/token"), headers=bey.auth())
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    new = r.json()
    assert new["seat"] == bey.seat
    assert new["token"] != bey.token
    assert new["token"].startswith(f"sb1.{bey.season_id}.{bey.seat}.")
    assert_problem(await pg_api.client.get(bey.url("/me"), headers=bey.auth()), 401, "bad_token")
    refused = await pg_api.client.post(bey.url("/token"), headers=bey.auth())
    assert_problem(refused, 401, "bad_token")
    ok = await pg_api.client.get(bey.url("/me"), headers=bearer(new["token"]))
    assert ok.status_code == 200, ok.text
    last = (await pg_api.store.read_stream(bey.season_id))[-1]
    assert last.type == "token_rotated.v1"
    assert last.metadata.actor == "seat"
    assert last.metadata.seat == str(bey.seat)
    rotated = codec.decode_event(last.data)
    assert rotated == ev.TokenRotated(
        seat=bey.seat, by="bey", token_hash=hashlib.sha256(new["token"].encode()).hexdigest()
    )


@pytest.mark.integration
async def test_ops_reissue_is_a_token_rotated_event_with_actor_ops(
    pg_api: Api, event_store: PostgresEventStore
) -> None:
    """ARCHITECTURE Access: ops reissue a lost token with the ops token; the reissue is an
    audited event (token_rotated.v1, by ops, metadata actor ops); the lost token stops working."""
    bey = await create_trial(pg_api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
    r = await pg_api.client.post(url, headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    new = r.json()
    assert new["seat"] == bey.seat
    assert_problem(await pg_api.client.get(bey.url("/me"), headers=bey.auth()), 401, "bad_token")
    me = await pg_api.client.get(bey.url("/me"), headers=bearer(new["token"]))
    assert me.status_code == 200, me.text
    last = (await event_store.read_stream(bey.season_id))[-1]
    assert last.type == "token_rotated.v1"
    assert last.metadata.actor == "ops"
    assert last.metadata.seat == str(bey.seat)
    assert last.metadata.command_id
    assert codec.decode_event(last.data) == ev.TokenRotated(
        seat=bey.seat, by="ops", token_hash=hashlib.sha256(new["token"].encode()).hexdigest()
    )


async def test_rotation_and_reissue_in_memory(memory_api: Api) -> None:
    """ARCHITECTURE Access on InMemoryEventStore: rotate, then reissue; only the last works."""
    bey = await create_trial(memory_api.client)
    rotated = (await memory_api.client.post(bey.url("/token"), headers=bey.auth())).json()["token"]
    url = f"/v1/ops/seasons/{bey.season_id}/beys/{bey.seat}/token"
    reissued = (await memory_api.client.post(url, headers=bearer(OPS_TOKEN))).json()["token"]
    for token, status in ((bey.token, 401), (rotated, 401), (reissued, 200)):
        r = await memory_api.client.get(bey.url("/me"), headers=bearer(token))
        assert r.status_code == status, r.text


@pytest.mark.integration
async def test_two_concurrent_rotations_with_one_token_issue_one_working_token(
    event_store: PostgresEventStore,
) -> None:
    """ARCHITECTURE Access: rotation retires the old token at once, so a second rotation
    with that same token is refused (401) and every token the API hands out works.

    Both rotations are authorised on the same state and held until both reach the append
    (BarrierStore): one wins, the other must then find its token retired.
    """
    async with open_api(event_store) as api:
        bey = await create_trial(api.client)
    async with open_api(event_store, api_store=BarrierStore(event_store)) as api:  # type: ignore[arg-type]
        answers = await asyncio.gather(
            *(api.client.post(bey.url("/token"), headers=bey.auth()) for _ in "ab")
        )
        assert sorted(r.status_code for r in answers) == [200, 401]
        for r in answers:
            if r.status_code == 200:
                me = await api.client.get(bey.url("/me"), headers=bearer(r.json()["token"]))
                assert me.status_code == 200, me.text


@pytest.mark.integration
@pytest.mark.parametrize("path", ["/orders", "/spend"])
async def test_a_token_rotated_in_another_api_process_stops_working_in_this_one(
    event_store: PostgresEventStore, pg_pool: asyncpg.Pool, clock, path: str
) -> None:
    """ARCHITECTURE Access across processes: a command is authorised on this process's cached
    fold, which has not seen a rotation made elsewhere. The append's expected version exposes
    the stale fold; the retry reads afresh, authorises again and refuses the old token (401),
    and nothing is appended with it."""
    other_store = PostgresEventStore(pg_pool, clock=clock)  # the other process: its own caches
    body = (
        {"orders": [{"province": ANKARA, "kind": "hold"}]}
        if path == "/orders"
        else {"kind": "paralı_asker", "province": ANKARA}
    )
    async with open_api(event_store) as here, open_api(other_store) as there:
        bey = await create_trial(here.client)
        warm = await here.client.post(
            bey.url("/orders"),
            headers=bey.auth("warm"),
            json={"orders": [{"province": ANKARA, "kind": "hold"}]},
        )
        assert warm.status_code == 200, warm.text  # this process now holds the season's fold
        rotated = await there.client.post(bey.url("/token"), headers=bey.auth())
        assert rotated.status_code == 200, rotated.text
        before = await event_store.stream_version(bey.season_id)
        stale = await here.client.post(bey.url(path), headers=bey.auth("after"), json=body)
        assert_problem(stale, 401, "bad_token")
        assert await event_store.stream_version(bey.season_id) == before
        new = bearer(rotated.json()["token"]) | {"Idempotency-Key": "new"}
        fresh = await here.client.post(bey.url(path), headers=new, json=body)
        assert fresh.status_code == 200, fresh.text
