"""Dead letters: the messages the workers gave up on, listed and replayed by ops (issue 14).

A message that fails every retry (services/resolver/resolver_actors.py: MAX_RETRIES, then
`resolve_divan_exhausted` logs one `resolver.retries_exhausted` error line) is kept by
Dramatiq's Redis broker in its queue's dead-letter set, `{namespace}:{queue}.XQ` (ids scored
by the time of death) with the bodies in `{namespace}:{queue}.XQ.msgs`, for the broker's
`dead_message_ttl` (7 days by default). `seksenbir deadletters list` shows them;
`seksenbir deadletters replay ID … | --all` sends each again with its retry count reset and
removes it from the set once it is back on its queue. Replaying is safe: every actor is
idempotent (a Divan already resolved, or a close already done, acks as a no-op).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

import dramatiq
import redis

from shared.app.messaging.queues import DIVANS_QUEUE, NOTIFY_QUEUE, PROJECTIONS_QUEUE

QUEUES = (DIVANS_QUEUE, PROJECTIONS_QUEUE, NOTIFY_QUEUE)


@dataclass(frozen=True, slots=True)
class DeadLetter:
    queue: str
    id: str  # the broker's id of this copy (what `replay` takes)
    message_id: str  # Dramatiq's message id (the same for every copy of the work)
    actor_name: str
    args: tuple[Any, ...]
    died_at: datetime
    retries: int
    error: str  # the last exception's type and message (no traceback: it may be long)

    def as_json(self) -> dict[str, object]:
        return {
            "queue": self.queue,
            "id": self.id,
            "message_id": self.message_id,
            "actor": self.actor_name,
            "args": list(self.args),
            "died_at": self.died_at.isoformat(timespec="seconds"),
            "retries": self.retries,
            "error": self.error,
        }


def _keys(namespace: str, queue: str) -> tuple[str, str]:
    dead = f"{namespace}:{queue}.XQ"
    return dead, f"{dead}.msgs"


def _last_error(options: dict[str, Any]) -> str:
    lines = [line for line in str(options.get("traceback") or "").splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def dead_letters(
    client: redis.Redis, namespace: str, queues: Iterable[str] = QUEUES
) -> list[DeadLetter]:
    """Every dead-lettered message of `queues` in the broker namespace, oldest first."""
    out: list[DeadLetter] = []
    for queue in queues:
        dead, bodies = _keys(namespace, queue)
        scored = cast("list[tuple[bytes, float]]", client.zrange(dead, 0, -1, withscores=True))
        if not scored:
            continue
        raw = cast("list[bytes | None]", client.hmget(bodies, [mid for mid, _ in scored]))
        for (mid, score), body in zip(scored, raw, strict=True):
            if body is None:  # expired between the two reads
                continue
            message = dramatiq.Message.decode(body)
            out.append(
                DeadLetter(
                    queue=queue,
                    id=mid.decode(),
                    message_id=message.message_id,
                    actor_name=message.actor_name,
                    args=tuple(message.args),
                    died_at=datetime.fromtimestamp(score / 1000, UTC),
                    retries=int(message.options.get("retries", 0)),
                    error=_last_error(message.options),
                )
            )
    return sorted(out, key=lambda d: d.died_at)


def replay(
    client: redis.Redis,
    broker: dramatiq.Broker,
    namespace: str,
    ids: Iterable[str] | None = None,
    queues: Iterable[str] = QUEUES,
) -> list[str]:
    """Send the dead letters named by `ids` (None: all) again, retries reset; returns the ids
    replayed. A letter is removed from the dead-letter set only after it is back on its queue,
    so a failed send leaves it where it was."""
    wanted = None if ids is None else set(ids)
    done: list[str] = []
    for queue in queues:
        dead, bodies = _keys(namespace, queue)
        for mid_raw in cast("list[bytes]", client.zrange(dead, 0, -1)):
            mid = mid_raw.decode()
            if wanted is not None and mid not in wanted:
                continue
            body = cast("bytes | None", client.hget(bodies, mid))
            if body is None:
                continue
            message = dramatiq.Message.decode(body)
            options = {
                k: v
                for k, v in message.options.items()
                if k not in {"retries", "traceback", "redis_message_id"}
            }
            broker.enqueue(dataclasses.replace(message, options=options))  # copy() merges them
            client.zrem(dead, mid)
            client.hdel(bodies, mid)
            done.append(mid)
    return done


@dataclasses.dataclass(frozen=True)
class RedisLetters:
    """The dead letters of the Redis broker in `namespace` (what `seksenbir deadletters` reads;
    entrypoints.deadletters_rabbitmq.RabbitLetters is RabbitMQ's)."""

    client: redis.Redis
    namespace: str

    def letters(self) -> list[DeadLetter]:
        return dead_letters(self.client, self.namespace)

    def replay(self, broker: dramatiq.Broker, ids: Iterable[str] | None) -> list[str]:
        return replay(self.client, broker, self.namespace, ids)
