"""The notify store's contract, in memory and in PostgreSQL (issue 25, ADR-98, ADR-108): a
registration is kept until deleted or its season ends, a delivery id is claimed by one batch
(and kept by it when its message comes again), a warning is given once, a cursor only moves on."""

from __future__ import annotations

import base64

import pytest

from shared.app.messaging.notify_store import (
    MemoryNotifyStore,
    NotifyStore,
    PushSubscription,
    Sealer,
    Webhook,
)

KEY = base64.urlsafe_b64encode(bytes(32)).decode()
HOOK = Webhook(
    webhook_id="wh_1", season_id="s1", seat=2, url="https://h.example/x", format="json", secret="k"
)
SUB = PushSubscription(
    subscription_id="ps_1", season_id="s1", seat=2, endpoint="https://p.example/e",
    p256dh="p", auth="a", lead_seconds=60,
)  # fmt: skip


@pytest.fixture(params=["memory", pytest.param("postgres", marks=pytest.mark.integration)])
def store(request: pytest.FixtureRequest) -> NotifyStore:
    if request.param == "memory":
        return MemoryNotifyStore()
    from shared.app.messaging.notify_pg import PostgresNotifyStore

    return PostgresNotifyStore(request.getfixturevalue("pg_pool"), Sealer(KEY))


async def test_a_registration_is_kept_replaced_and_deleted(store: NotifyStore) -> None:
    await store.put(HOOK)
    await store.put(SUB)
    assert await store.webhooks("s1") == [HOOK] and await store.subscriptions("s1") == [SUB]
    assert await store.record("s1", "ps_1") == SUB and await store.record("s2", "ps_1") is None
    rotated = Webhook(**{**{f: getattr(HOOK, f) for f in HOOK.__struct_fields__}, "secret": "n"})
    await store.put(rotated)
    assert await store.webhooks("s1") == [rotated]
    assert await store.delete("s1", "wh_1") and not await store.delete("s1", "wh_1")
    assert await store.webhooks("s1") == []


async def test_a_delivery_is_claimed_by_one_batch_and_kept_by_it(store: NotifyStore) -> None:
    assert await store.claim("s1", ["d1", "d2"], "a") == {"d1", "d2"}
    assert await store.claim("s1", ["d2", "d3"], "b") == {"d3"}
    assert await store.claim("s1", ["d1", "d2", "d2"], "a") == {"d1", "d2"}  # redelivered


async def test_a_warning_is_given_once_and_a_cursor_only_moves_on(store: NotifyStore) -> None:
    assert await store.first_warning("s1", "ps_1", 3)
    assert not await store.first_warning("s1", "ps_1", 3)
    assert await store.first_warning("s1", "ps_1", 4)
    await store.follow("s1", 5)
    await store.follow("s1", 1)  # a later registration does not move it back
    await store.set_cursor("s1", 9)
    await store.set_cursor("s1", 7)  # a slower notifier does not move it back
    assert await store.cursors() == {"s1": 9}
    await store.set_cursor("s1", None)
    assert await store.cursors() == {}


async def test_a_season_that_ends_takes_its_receivers_and_claims(store: NotifyStore) -> None:
    await store.put(HOOK)
    await store.claim("s1", ["d1"], "a")
    await store.drop_season("s1")
    assert await store.webhooks("s1") == []
    assert await store.claim("s1", ["d1"], "b") == {"d1"}


async def test_receivers_added_at_once_stay_within_the_limit_and_one_device_is_kept_once(
    store: NotifyStore,
) -> None:
    """h-probe3: 16 push subscriptions of one bey sent at once to a running stack were 12
    kept (the cap is 10 an owner and season, checked before the write and written apart from
    it), and one device sent twice at once could be kept twice. `add` decides and writes in one
    turn per season and kind: 10 kept, the rest None; one endpoint added five times at once is
    one subscription; another bey's and the webhooks have their own 10."""
    import asyncio

    import msgspec

    def sub(n: int, seat: int = 2, endpoint: str | None = None) -> PushSubscription:
        return msgspec.structs.replace(
            SUB, subscription_id=f"ps_{seat}_{n}", seat=seat, endpoint=endpoint or f"{n}"
        )

    kept = await asyncio.gather(*(store.add(sub(n), 10) for n in range(16)))
    assert sum(k is not None for k in kept) == 10
    assert len(await store.subscriptions("s1")) == 10
    same = await asyncio.gather(
        *(store.add(sub(n, 3, "https://p.example/one"), 10) for n in range(5))
    )
    assert all(k is not None for k in same)
    mine = [s for s in await store.subscriptions("s1") if s.seat == 3]
    assert len(mine) == 1 and {k.subscription_id for k in same if k} == {mine[0].subscription_id}
    hooks = [msgspec.structs.replace(HOOK, webhook_id=f"wh_{n}") for n in range(12)]
    kept = await asyncio.gather(*(store.add(h, 10) for h in hooks))
    assert sum(k is not None for k in kept) == 10 and len(await store.webhooks("s1")) == 10
