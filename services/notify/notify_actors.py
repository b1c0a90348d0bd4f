"""The notifications queue's actors (issue 25, ADR-99).

`fan_out_notifications` makes the first attempt of many deliveries at once, each under its own
timeout (shared.app.messaging.outbound), so a receiver that hangs costs the others nothing: the
batch waits at most one timeout, not one per receiver. Each failed delivery goes back on the queue
alone as `deliver_notification`, which Dramatiq retries with exponential backoff: 8 attempts
in all over about an hour (backoff 15 s doubling: 30 s … 32 min), then the dead letter, which
`seksenbir deadletters list|replay` shows and sends again. A message holds a receiver's id,
never its URL, secret or keys (services/notify/delivery.py). Several notifier processes may
follow the same events and enqueue the same deliveries: a fan-out sends only the deliveries it
claims (`claimed`, ADR-108), so each is sent once; its retries keep its delivery id.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import dramatiq
import msgspec
import structlog

from services.notify.delivery import Delivery, Sender
from shared.app.messaging.queues import DELIVER, FAN_OUT, NOTIFY_QUEUE

log = structlog.get_logger(__name__)
ATTEMPTS = 8  # the fan-out's first attempt and deliver_notification's 1 + 6 retries
BACKOFF_MS = 15_000
MAX_BACKOFF_MS = 40 * 60_000
_decode = msgspec.json.Decoder(Delivery)


def encoded(d: Delivery) -> dict[str, Any]:
    return msgspec.to_builtins(d)  # type: ignore[no-any-return]


def batch_args(batch: list[Delivery]) -> tuple[list[dict[str, Any]], str]:
    """A fan-out message's arguments: the deliveries and the batch's own owner id, which claims
    them (the same message delivered again is the same owner)."""
    return [encoded(d) for d in batch], uuid.uuid4().hex


async def claimed(s: Sender, batch: list[Delivery], owner: str) -> list[Delivery]:
    """The deliveries this batch owns: each delivery id is claimed once across every notifier
    process (ADR-108); one another batch claimed first is that batch's to send, not this one's."""
    owner = owner or uuid.uuid4().hex  # a message from before owners: its own claim
    mine: set[str] = set()
    for season_id in sorted({d.season_id for d in batch}):
        ids = [d.delivery_id for d in batch if d.season_id == season_id]
        mine |= await s.store.claim(season_id, ids, owner)
    for d in batch:
        if d.delivery_id not in mine:
            log.info("notify.claimed_elsewhere", delivery=d.delivery_id, target=d.target)
    return [d for d in batch if d.delivery_id in mine]


def declare(
    broker: dramatiq.Broker,
    sender: Callable[[], Awaitable[Sender]],
    backoff_ms: int = BACKOFF_MS,
) -> tuple[
    dramatiq.Actor[[dict[str, Any]], None], dramatiq.Actor[[list[dict[str, Any]], str], None]
]:
    """Declare both actors on `broker`; `sender` opens the worker's Sender on first use."""

    @dramatiq.actor(
        broker=broker,
        actor_name=DELIVER,
        queue_name=NOTIFY_QUEUE,
        max_retries=ATTEMPTS - 2,
        min_backoff=backoff_ms,
        max_backoff=max(backoff_ms, MAX_BACKOFF_MS * backoff_ms // BACKOFF_MS),
    )
    async def deliver(raw: dict[str, Any]) -> None:
        d = msgspec.convert(raw, Delivery)
        outcome = await (await sender()).send(d)
        log.info("notify.delivered", delivery=d.delivery_id, target=d.target, outcome=outcome)

    @dramatiq.actor(broker=broker, actor_name=FAN_OUT, queue_name=NOTIFY_QUEUE, max_retries=0)
    async def fan_out(raws: list[dict[str, Any]], owner: str = "") -> None:
        s = await sender()
        batch = await claimed(s, [msgspec.convert(raw, Delivery) for raw in raws], owner)
        results = await s.send_all(batch)
        for d, result in zip(batch, results, strict=True):
            if isinstance(result, BaseException):
                log.info(
                    "notify.retrying", delivery=d.delivery_id, target=d.target, error=str(result)
                )
                deliver.send_with_options(args=(encoded(d),), delay=backoff_ms)

    return deliver, fan_out
