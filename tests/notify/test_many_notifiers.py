"""Notifications with more than one notifier process and a broker Redis that is flushed (issue
25, ADR-108): two notifiers following the same events send each delivery once (a 500's retry
keeps its delivery id), and registrations live in PostgreSQL, so a flushed Redis loses none."""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from collections import Counter
from collections.abc import AsyncIterator

import pytest
import redis

from services.resolver.divan import resolve
from shared.app.messaging import webhooks
from shared.app.messaging.notify_pg import PostgresNotifyStore
from shared.app.messaging.notify_store import Sealer
from shared.app.repository.seasons import Seasons
from shared.eventstore import PostgresEventStore
from tests.http.support import Api, Bey, bearer, create_trial, open_api, settings
from tests.integration.support import wait_until
from tests.notify.notifiers import notifier
from tests.notify.receiver import Receiver, receiving
from tests.redis_server import own_redis

KEY = base64.urlsafe_b64encode(bytes(range(32))).decode()


@pytest.fixture
async def api(event_store: PostgresEventStore) -> AsyncIterator[Api]:
    config = settings(outbound_allow=("127.0.0.1",), notify_key=KEY)
    async with open_api(event_store, config) as opened:
        yield opened


@pytest.fixture
def throwaway_redis() -> AsyncIterator[str]:
    """A redis-server of this test's own: flushed by it, never the shared one."""
    with own_redis() as server:
        yield server.url


async def register(api: Api, bey: Bey, url: str) -> str:
    r = await api.client.post(
        f"/v1/seasons/{bey.season_id}/webhooks", json={"url": url}, headers=bearer(bey.token)
    )
    assert r.status_code == 201, r.text
    return str(r.json()["secret"])


async def divan(api: Api, bey: Bey, n: int) -> None:
    r = await api.client.post(
        f"/v1/seasons/{bey.season_id}/divans", json={"divan": n}, headers=bearer(bey.token)
    )
    assert r.status_code == 202, r.text
    assert await resolve(Seasons(api.store), bey.season_id, n) == "resolved"


def taken(r: Receiver) -> Counter[str]:
    """How often each delivery id was answered 2xx (a scripted status per request, in order)."""
    took: Counter[str] = Counter()
    for i, got in enumerate(r.got):
        if 200 <= r.statuses[min(i, len(r.statuses) - 1)] < 300:
            took[got.headers["seksenbir-delivery"]] += 1
    return took


async def test_two_notifiers_following_the_same_events_send_each_delivery_once(
    api: Api, event_store: PostgresEventStore, migrated_pg_dsn: str, throwaway_redis: str
) -> None:
    """Issue 25 (ADR-108): each notification is claimed once across notifier processes; a
    receiver that answered 500 gets the retry with the same Seksenbir-Delivery id."""
    notify = PostgresNotifyStore(event_store.pool, Sealer(KEY))
    ns = f"n{secrets.token_hex(3)}"
    async with (
        receiving(Receiver()) as good,
        receiving(Receiver(statuses=[500, 200])) as flaky,
        notifier(throwaway_redis, ns, migrated_pg_dsn, event_store, notify, KEY) as one,
        notifier(
            throwaway_redis, ns, migrated_pg_dsn, event_store, notify, KEY, first=False
        ) as two,
    ):
        bey = await create_trial(api.client)
        await register(api, bey, good.url())
        await register(api, bey, flaky.url())
        await divan(api, bey, 1)
        await asyncio.gather(one.follower.sweep(), two.follower.sweep())
        await wait_until(lambda: _got_all(good, flaky), timeout=30)
        await one.settle()
        await two.settle()
        await one.settle()  # a retry one worker enqueued while the other was joined
    sent = taken(good)
    assert len(sent) >= 2 and set(sent.values()) == {1}, sent  # the public and the bey's own
    again = taken(flaky)  # delivery ids are per receiver
    assert len(again) == len(sent) and set(again.values()) == {1}, again
    ids = [g.headers["seksenbir-delivery"] for g in flaky.got]
    assert len(ids) == len(sent) + 1 and ids.count(ids[0]) == 2  # the 500, then its retry


async def _got_all(good: Receiver, flaky: Receiver) -> bool:
    return len(good.got) >= 2 and len(flaky.got) == len(good.got) + 1


async def test_a_flushed_broker_redis_loses_no_registration(
    api: Api, event_store: PostgresEventStore, migrated_pg_dsn: str, throwaway_redis: str
) -> None:
    """Issue 25 (ADR-108): a registration is an acknowledged write: after the notifier's Redis
    is flushed the list still shows it and the next Divan still reaches it, signed with its
    secret; the stored row holds neither the URL nor the secret in the clear."""
    notify = PostgresNotifyStore(event_store.pool, Sealer(KEY))
    async with receiving(Receiver()) as r:
        bey = await create_trial(api.client)
        secret = await register(api, bey, r.url("/discord-like/credential-path"))
        async with notifier(throwaway_redis, "n", migrated_pg_dsn, event_store, notify, KEY) as n:
            await n.follower.sweep()  # the notifier knew the season before the flush
        redis.Redis.from_url(throwaway_redis).flushall()
        await divan(api, bey, 1)
        async with notifier(throwaway_redis, "n", migrated_pg_dsn, event_store, notify, KEY) as n:
            await n.follower.sweep()
            await wait_until(lambda: _any(r), timeout=30)
            await n.settle()
    listed = await api.client.get(
        f"/v1/seasons/{bey.season_id}/webhooks", headers=bearer(bey.token)
    )
    assert [w["url"] for w in listed.json()["webhooks"]] == [r.url("/").rsplit("/", 1)[0] + "/…"]
    events = [json.loads(g.body)["event"] for g in r.got]
    assert events.count("divan_resolved") == 2  # the public notice and the bey's own
    assert all(webhooks.verify(secret, g.headers["seksenbir-signature"], g.body) for g in r.got)
    [row] = await event_store.pool.fetch("SELECT sealed FROM notify_records")
    assert b"credential-path" not in row["sealed"] and secret.encode() not in row["sealed"]


async def _any(r: Receiver) -> bool:
    return len(r.got) >= 2
