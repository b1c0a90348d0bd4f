"""Orders name their Divan and the newest set stands (R-4.1, R-4.4, R-1.2)."""

from __future__ import annotations

import pytest

from services.resolver.divan import resolve
from shared.app.repository.seasons import Seasons
from shared.domain import codec
from shared.domain import events as ev
from shared.domain.state import Order
from tests.http.support import (
    ANKARA,
    Api,
    Bey,
    create_trial,
    echoed,
    play_divans,
    request_divan,
)

ADVANCE = [{"province": ANKARA, "kind": "advance", "target": 71, "units": 2}]
SUPPORT = [{"province": ANKARA, "kind": "support", "target": 14, "units": 1}]
HOLD = [{"province": ANKARA, "kind": "hold"}]


async def submit(
    api: Api, bey: Bey, orders: list[dict[str, object]], **extra: object
) -> dict[str, int]:
    r = await api.client.post(
        bey.url("/orders"), headers=bey.auth(), json={"orders": orders, **extra}
    )
    assert r.status_code == 200, r.text
    body: dict[str, int] = r.json()
    # the season version after the set (read your writes, issue 20): the store's head now
    assert body.pop("version") == await api.store.stream_version(bey.season_id), r.text
    return body


async def me(api: Api, bey: Bey) -> dict[str, object]:
    r = await api.client.get(bey.url("/me"), headers=bey.auth())
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


async def locked_orders(api: Api, bey: Bey, divan: int) -> tuple[Order, ...]:
    """The inputs of record of a resolved Divan for the bey (DivanLocked, R-12.3)."""
    for rec in await api.store.read_stream(bey.season_id):
        e = codec.decode_event(rec.data)
        if isinstance(e, ev.DivanLocked) and e.divan == divan:
            return e.orders.get(bey.seat, ())
    raise AssertionError(f"Divan {divan} is not locked")


@pytest.mark.integration
async def test_the_answer_names_divan_n_before_the_lock_and_n_plus_1_after_it(pg_api: Api) -> None:
    """R-4.4, R-1.2: orders name the Divan they are for; after POST /divans (the trial lock) a
    submission is for the next Divan, and the locked Divan keeps the set it had at the lock."""
    bey = await create_trial(pg_api.client)
    assert await submit(pg_api, bey, ADVANCE) == {"divan": 1, "orders": 1}

    r = await request_divan(pg_api.client, bey, 1)
    assert (r.status_code, r.json()) == (202, {"divan": 1, "status": "resolving"})
    status = (await pg_api.client.get(bey.url())).json()
    assert (status["divan"], status["next_divan"], status["resolving"]) == (0, 2, True)

    assert await submit(pg_api, bey, SUPPORT) == {"divan": 2, "orders": 1}
    assert await submit(pg_api, bey, HOLD, divan=2) == {"divan": 2, "orders": 1}
    mine = await me(pg_api, bey)
    assert (mine["next_divan"], mine["orders"]) == (2, {"divan": 2, "orders": echoed(HOLD)})

    assert await resolve(Seasons(pg_api.store), bey.season_id, 1) == "resolved"
    assert await locked_orders(pg_api, bey, 1) == (Order(**ADVANCE[0]),)  # type: ignore[arg-type]
    mine = await me(pg_api, bey)
    assert (mine["next_divan"], mine["orders"]) == (2, {"divan": 2, "orders": echoed(HOLD)})
    assert await submit(pg_api, bey, SUPPORT) == {"divan": 2, "orders": 1}

    await play_divans(pg_api, bey, 1)
    assert await locked_orders(pg_api, bey, 2) == (Order(**SUPPORT[0]),)  # type: ignore[arg-type]
    assert await submit(pg_api, bey, HOLD) == {"divan": 3, "orders": 1}


@pytest.mark.integration
async def test_a_later_set_replaces_the_earlier_one_for_the_divan(pg_api: Api) -> None:
    """R-4.1: the newest set stands, a later Bekle replacing an earlier İlerle; /me shows it."""
    bey = await create_trial(pg_api.client)
    await submit(pg_api, bey, ADVANCE)
    assert (await me(pg_api, bey))["orders"]["orders"] == echoed(ADVANCE)
    await submit(pg_api, bey, HOLD)
    assert (await me(pg_api, bey))["orders"]["orders"] == echoed(HOLD)
    await submit(pg_api, bey, [])
    assert (await me(pg_api, bey))["orders"]["orders"] == []
    await submit(pg_api, bey, SUPPORT)
    await play_divans(pg_api, bey, 1)
    assert await locked_orders(pg_api, bey, 1) == (Order(**SUPPORT[0]),)  # type: ignore[arg-type]


async def test_a_later_set_replaces_the_earlier_one_in_memory(memory_api: Api) -> None:
    """R-4.1 on InMemoryEventStore: the newest set stands; the answer names Divan 1."""
    bey = await create_trial(memory_api.client)
    assert await submit(memory_api, bey, ADVANCE) == {"divan": 1, "orders": 1}
    assert await submit(memory_api, bey, HOLD, divan=1) == {"divan": 1, "orders": 1}
    assert (await me(memory_api, bey))["orders"]["orders"] == echoed(HOLD)


async def test_r4_1_two_orders_for_one_province_are_refused_and_the_set_before_stands(
    memory_api: Api,
) -> None:
    bey = await create_trial(memory_api.client)
    await submit(memory_api, bey, SUPPORT)
    r = await memory_api.client.post(
        bey.url("/orders"), headers=bey.auth(), json={"orders": ADVANCE + HOLD}
    )
    assert r.status_code == 422, r.text
    body = r.json()
    assert (body["code"], body["province"]) == ("duplicate_province", ANKARA)
    assert "Ankara" in body["detail"]
    assert (await me(memory_api, bey))["orders"]["orders"] == echoed(SUPPORT)
