"""Dramatiq's RabbitMQ broker as the production broker (issue 28, ADR-95).

`SEKSENBIR_BROKER_URL=amqp://user:password@host:5672/vhost` picks it (shared.app.messaging.queues
.make_broker); Redis stays the default for `make run`. What it keeps of Dramatiq's own:

- every enqueue waits for RabbitMQ's publisher confirm (`confirm_delivery`), so an enqueue that
  returned is a message stored on a durable queue (delivery mode 2): the API's 202 never
  counts on a message RabbitMQ did not take. The scheduler's sweep alone publishes without
  waiting (ADR-97): its rows stay in `due_work` until resolved and a lost copy is sent again
  after SEKSENBIR_SWEEP_REDELIVER_S, and a surge's hand-over is 12 times faster;
- a message is removed only by its ack; a worker whose connection dies (kill -9, a lost
  network) has its unacked messages requeued by RabbitMQ at once, with no heartbeat timeout to
  wait for (the Redis broker waits `heartbeat_timeout_ms`);
- a message that exhausts its retries is nacked without requeue and RabbitMQ dead-letters it
  to `{queue}.XQ`, kept for Dramatiq's `dead_message_ttl` (entrypoints.deadletters_rabbitmq);
- delayed messages (retries' backoff) wait on `{queue}.DQ` in the consumer, as on Redis.

Deployments and test runs are kept apart by the URL's virtual host (RabbitMQ's namespace);
`SEKSENBIR_BROKER_NAMESPACE` is the Redis broker's key prefix only.
"""

from __future__ import annotations

import logging
from urllib.parse import unquote, urlsplit

import dramatiq
from dramatiq.brokers.rabbitmq import RabbitmqBroker

AMQP_SCHEMES = ("amqp", "amqps")


def is_amqp(url: str) -> bool:
    """Whether `url` names a RabbitMQ broker (amqp:// or amqps://) rather than a Redis one."""
    return urlsplit(url).scheme in AMQP_SCHEMES


def vhost_of(url: str) -> str:
    """The virtual host an AMQP URL names ("/" when its path is empty, as pika reads it)."""
    path = urlsplit(url).path
    return unquote(path[1:]) if len(path) > 1 else "/"


def redacted(url: str) -> str:
    """The URL without its password, for log lines and messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def make_rabbit_broker(url: str, *, confirm: bool = True) -> dramatiq.Broker:
    """A RabbitMQ broker on `url` whose enqueues wait for the publisher confirm (`confirm`;
    the scheduler's do not, ADR-97). pika logs every connection opened and closed at INFO:
    only its warnings and errors are kept."""
    logging.getLogger("pika").setLevel(logging.WARNING)
    return RabbitmqBroker(url=url, confirm_delivery=confirm)
