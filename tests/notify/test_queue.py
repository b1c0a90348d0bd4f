"""The notifications queue (issue 25): a failed first attempt is retried alone after a 500, and
a receiver that never takes it ends in the dead letter after 8 attempts; a hanging receiver in
a batch holds nobody else's delivery."""

from __future__ import annotations

import dramatiq
from dramatiq.brokers.stub import StubBroker
from dramatiq.middleware import AsyncIO

from services.notify import notify_actors
from services.notify.delivery import Delivery, Sender, delivery_id
from shared.app.messaging import outbound
from shared.app.messaging.notify_store import MemoryNotifyStore, Webhook
from tests.notify.receiver import Receiver, receiving


def delivery(target: str) -> Delivery:
    return Delivery(
        delivery_id=delivery_id("s1/9/x", target),
        season_id="s1",
        target=target,
        event="season_paused",
        data={},
        texts={"tr": "Sezon duraklatıldı.", "en": "Paused."},
    )


async def run(store: MemoryNotifyStore, targets: list[str]) -> StubBroker:
    broker = StubBroker()
    broker.add_middleware(AsyncIO())
    sender = Sender(store, outbound.Policy(allow=("127.0.0.1",), timeout_s=0.2))

    async def open_sender() -> Sender:
        return sender

    _deliver, fan_out = notify_actors.declare(broker, open_sender, backoff_ms=1)
    broker.emit_after("process_boot")
    worker = dramatiq.Worker(broker, worker_timeout=10, worker_threads=2)
    worker.start()
    try:
        fan_out.send([notify_actors.encoded(delivery(t)) for t in targets])
        import asyncio

        await asyncio.to_thread(broker.join, "notifications", fail_fast=False, timeout=20_000)
        await asyncio.to_thread(worker.join)
    finally:
        worker.stop()
        broker.emit_before("process_stop")
    return broker


async def hook(store: MemoryNotifyStore, name: str, url: str) -> None:
    await store.put(
        Webhook(webhook_id=name, season_id="s1", seat=None, url=url, format="json", secret="s")
    )


async def test_a_delivery_is_retried_after_a_500_with_the_same_delivery_id() -> None:
    async with receiving(Receiver(statuses=[500, 500, 200])) as r:
        store = MemoryNotifyStore()
        await hook(store, "wh_a", r.url())
        broker = await run(store, ["wh_a"])
    assert len(r.got) == 3
    assert len({g.headers["seksenbir-delivery"] for g in r.got}) == 1
    assert broker.dead_letters == []


async def test_a_receiver_that_always_fails_is_dead_lettered_after_8_attempts() -> None:
    async with receiving(Receiver(statuses=[500])) as bad, receiving(Receiver()) as good:
        store = MemoryNotifyStore()
        await hook(store, "wh_bad", bad.url())
        await hook(store, "wh_good", good.url())
        broker = await run(store, ["wh_bad", "wh_good"])
    assert len(bad.got) == notify_actors.ATTEMPTS == 8
    assert len(good.got) == 1
    [dead] = broker.dead_letters
    assert dead.actor_name == "deliver_notification"
    assert dead.args[0]["target"] == "wh_bad"
    assert "127.0.0.1" not in str(dead.asdict())  # no URL in the queue, nor its dead letter
