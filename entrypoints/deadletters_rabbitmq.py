"""Dead letters on the RabbitMQ broker (ADR-95): what entrypoints.deadletters does on Redis.

A message that exhausts its retries is nacked without requeue and RabbitMQ dead-letters it to
`{queue}.XQ` (Dramatiq's queue arguments), with an `x-death` header saying when; it stays
there for Dramatiq's `dead_message_ttl`. RabbitMQ gives a stored message no id of its own,
so a letter's id here is Dramatiq's message id (the same for every copy of the work).

`dead_letters` reads them with basic.get and acks none: closing the channel puts every one
back. `replay` sends each wanted letter again on its queue, retries reset, through the broker
(a publisher-confirmed enqueue), and only then acks its dead copy: a failed send leaves it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

import dramatiq
import pika
from dramatiq.common import xq_name

from entrypoints.deadletters import QUEUES, DeadLetter

Delivery = tuple[Any, Any, bytes]  # pika's (method, properties, body)


def _died_at(properties: Any) -> datetime:
    deaths = (getattr(properties, "headers", None) or {}).get("x-death") or [{}]
    when = deaths[0].get("time")
    if isinstance(when, datetime):
        return when if when.tzinfo else when.replace(tzinfo=UTC)
    if isinstance(when, int | float):
        return datetime.fromtimestamp(when, UTC)
    return datetime.now(UTC)


def _letter(queue: str, properties: Any, body: bytes) -> DeadLetter:
    message = dramatiq.Message.decode(body)
    trace = [ln for ln in str(message.options.get("traceback") or "").splitlines() if ln.strip()]
    return DeadLetter(
        queue=queue,
        id=message.message_id,
        message_id=message.message_id,
        actor_name=message.actor_name,
        args=tuple(message.args),
        died_at=_died_at(properties),
        retries=int(message.options.get("retries", 0)),
        error=trace[-1].strip() if trace else "",
    )


def held(channel: Any, queue: str) -> Iterator[Delivery]:
    """Every message on `queue`, each held unacked by `channel` until it acks or closes."""
    try:
        channel.queue_declare(queue=xq_name(queue), passive=True)
    except pika.exceptions.ChannelClosedByBroker:  # no such queue yet: no dead letters
        return
    while True:
        method, properties, body = channel.basic_get(queue=xq_name(queue), auto_ack=False)
        if method is None:
            return
        yield method, properties, body


def dead_letters(url: str, queues: Iterable[str] = QUEUES) -> list[DeadLetter]:
    """Every dead-lettered message of `queues` on the broker `url`, oldest first."""
    out: list[DeadLetter] = []
    connection = pika.BlockingConnection(pika.URLParameters(url))
    try:
        for queue in queues:
            channel = connection.channel()
            out += [_letter(queue, props, body) for _, props, body in held(channel, queue)]
            if channel.is_open:
                channel.close()  # every letter read goes back on its dead-letter queue
    finally:
        connection.close()
    return sorted(out, key=lambda d: d.died_at)


def replay(
    url: str,
    broker: dramatiq.Broker,
    ids: Iterable[str] | None = None,
    queues: Iterable[str] = QUEUES,
) -> list[str]:
    """Send the dead letters named by `ids` (None: all) again, retries reset; returns the ids
    replayed. A letter is acked off its dead-letter queue only after it is back on its queue."""
    wanted = None if ids is None else set(ids)
    done: list[str] = []
    connection = pika.BlockingConnection(pika.URLParameters(url))
    try:
        for queue in queues:
            channel = connection.channel()
            for method, _, body in list(held(channel, queue)):
                message = dramatiq.Message.decode(body)
                if wanted is not None and message.message_id not in wanted:
                    continue
                dropped = {"retries", "traceback", "eta"}
                options = {k: v for k, v in message.options.items() if k not in dropped}
                again = dataclasses.replace(message, queue_name=queue, options=options)
                broker.enqueue(again)
                channel.basic_ack(method.delivery_tag)
                done.append(message.message_id)
            if channel.is_open:
                channel.close()
    finally:
        connection.close()
    return done


@dataclasses.dataclass(frozen=True)
class RabbitLetters:
    """The dead letters of the RabbitMQ broker at `url` (what `seksenbir deadletters` reads)."""

    url: str

    def letters(self) -> list[DeadLetter]:
        return dead_letters(self.url)

    def replay(self, broker: dramatiq.Broker, ids: Iterable[str] | None) -> list[str]:
        return replay(self.url, broker, ids)
