"""Queue and actor names both services use, and the broker they meet on (Dramatiq: Redis by
default, RabbitMQ when the broker URL is amqp://, shared.app.messaging.rabbit_broker)."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Mapping

import dramatiq

from shared.app.messaging.rabbit_broker import is_amqp, make_rabbit_broker
from shared.app.messaging.wakeup_broker import WakeupRedisBroker

DIVANS_QUEUE = "divans"
RESOLVE_DIVAN = "resolve_divan"
# A live season's other timed work (issue 12): its registration close and its Kurultay close.
CLOSE_REGISTRATION = "close_registration"
CLOSE_KURULTAY = "close_kurultay"
PROJECTIONS_QUEUE = "projections"
PROJECT_SEASON = "project_season"


# A worker is dead this long after its last heartbeat (each consumer heartbeats about once a
# worker timeout, 1 s); its unacked messages go back on their queue at the next maintenance,
# which runs at least every HEARTBEAT_TIMEOUT_MS / 4 (ADR-54, docs/operations.md).
HEARTBEAT_TIMEOUT_MS = 10_000


def make_broker(
    url: str,
    namespace: str = "dramatiq",
    heartbeat_timeout: int = HEARTBEAT_TIMEOUT_MS,
    maintenance_every_ms: int | None = None,
    *,
    confirm: bool = True,
) -> dramatiq.Broker:
    """The broker `url` names: RabbitMQ for amqp:// and amqps:// (ADR-95; its virtual host
    keeps deployments apart; `confirm`: each enqueue waits for the publisher confirm, ADR-97;
    the other arguments are the Redis broker's), else a Redis broker
    whose idle consumers block on a wake-up (shared.app.messaging.wakeup_broker, ADR-54);
    `namespace` keeps test runs and deployments apart on one Redis. Maintenance runs at least every
    `maintenance_every_ms` per queue (default: a quarter of the heartbeat)."""
    if is_amqp(url):
        return make_rabbit_broker(url, confirm=confirm)
    return make_redis_broker(url, namespace, heartbeat_timeout, maintenance_every_ms)


def make_redis_broker(
    redis_url: str,
    namespace: str = "dramatiq",
    heartbeat_timeout: int = HEARTBEAT_TIMEOUT_MS,
    maintenance_every_ms: int | None = None,
) -> WakeupRedisBroker:
    """The Redis broker of `make_broker`."""
    every = heartbeat_timeout // 4 if maintenance_every_ms is None else maintenance_every_ms
    return WakeupRedisBroker(
        url=redis_url,
        namespace=namespace,
        heartbeat_timeout=heartbeat_timeout,
        maintenance_every_ms=every,
    )


class BrokerConfigError(RuntimeError):
    """The broker's Redis may lose queued messages: refused at start-up (RELIABILITY 15)."""


def check_broker_policy(redis_url: str) -> str:
    """A RabbitMQ broker keeps its durable queues by itself: "rabbitmq", nothing to check.
    Refuse a broker Redis that may evict keys: queued Divans are keys, and an evicted one is
    a Divan nobody resolves until the scheduler's next sweep (RELIABILITY 15). Answers the
    policy, or "unknown" when the server does not allow CONFIG GET (a managed Redis), which is
    logged loudly, not refused."""
    if is_amqp(redis_url):
        return "rabbitmq"
    import redis
    import structlog

    client = redis.Redis.from_url(redis_url)
    try:
        policy = str(client.config_get("maxmemory-policy").get("maxmemory-policy", ""))
    except redis.ResponseError as exc:
        structlog.get_logger(__name__).warning(
            "broker.policy_unknown", error=str(exc), want="noeviction"
        )
        return "unknown"
    finally:
        client.close()
    if policy != "noeviction":
        raise BrokerConfigError(
            f"the broker's Redis has maxmemory-policy {policy!r}: it may evict queued messages; "
            "set maxmemory-policy noeviction (docs/runbook.md, Queues)"
        )
    return policy


def worker_metrics(kind: str, base_port: int, env: Mapping[str, str]) -> dict[str, str]:
    """The environment a worker of `kind` needs to serve Prometheus metrics, given the
    resolver's port (Settings.worker_metrics_port, SEKSENBIR_WORKER_METRICS_PORT; projections:
    that port + 1); {} if it is 0. `env` is the launcher's environment (dramatiq_prom_host).

    Dramatiq's Prometheus middleware reads its port and its multiprocess directory when it is
    imported; each run gets a fresh directory, so no count survives from an earlier run.
    """
    if base_port <= 0:
        return {}
    port = base_port + {"resolver": 0, "projections": 1, "notify": 2}[kind]
    return {
        "dramatiq_prom_port": str(port),
        "dramatiq_prom_host": env.get("dramatiq_prom_host", "127.0.0.1"),
        "dramatiq_prom_db": tempfile.mkdtemp(prefix=f"seksenbir-{kind}-metrics-"),
    }


def add_worker_metrics(broker: dramatiq.Broker, env: Mapping[str, str]) -> None:
    """Dramatiq's Prometheus middleware, when the worker was started with `worker_metrics`
    (`env`, the worker's environment, has dramatiq_prom_port):
    messages processed, errors, retries, dead letters and durations per actor (a Divan's
    resolution time is `dramatiq_message_duration_milliseconds{actor_name="resolve_divan"}`),
    served by a process of its own on dramatiq_prom_host:dramatiq_prom_port."""
    if not env.get("dramatiq_prom_port"):
        return
    from dramatiq.middleware.prometheus import Prometheus  # reads the variables: import late

    broker.add_middleware(Prometheus())


MESSAGE_IDS = uuid.UUID("3b1f4a2e-5d1c-4c1e-8f51-81d1a0000081")


def resolve_message_id(season_id: str, divan: int) -> str:
    """The one message id of "resolve Divan n of this season", whoever sends it (the API on a
    request, any scheduler on every sweep): every copy of the work is recognisably the same."""
    return str(uuid.uuid5(MESSAGE_IDS, f"resolve_divan/{season_id}/{divan}"))


def resolve_message(season_id: str, divan: int) -> dramatiq.Message[object]:
    """The message a resolver worker answers: resolve Divan `divan` of a season (idempotent)."""
    return dramatiq.Message(
        queue_name=DIVANS_QUEUE,
        actor_name=RESOLVE_DIVAN,
        args=(season_id, divan),
        kwargs={},
        options={},
        message_id=resolve_message_id(season_id, divan),
    )


def close_message(actor_name: str, season_id: str) -> dramatiq.Message[object]:
    """Close a live season's registration or Kurultay (CLOSE_REGISTRATION, CLOSE_KURULTAY) if
    its instant has passed; idempotent like a resolution, with one message id per season."""
    return dramatiq.Message(
        queue_name=DIVANS_QUEUE,
        actor_name=actor_name,
        args=(season_id,),
        kwargs={},
        options={},
        message_id=str(uuid.uuid5(MESSAGE_IDS, f"{actor_name}/{season_id}")),
    )


def due_message(kind: str, season_id: str, divan: int | None) -> dramatiq.Message[object]:
    """The message for one row of due work (services.resolver.scheduler): a Divan to resolve,
    a registration or a Kurultay to close."""
    if kind == "divan":
        if divan is None:
            raise ValueError("due work of kind 'divan' names its Divan")
        return resolve_message(season_id, divan)
    if kind == "registration":
        return close_message(CLOSE_REGISTRATION, season_id)
    if kind == "kurultay":
        return close_message(CLOSE_KURULTAY, season_id)
    raise ValueError(f"no message for due work of kind {kind!r}")


# Notifications (issue 25): their own queue, so a slow receiver never holds a Divan's worker.
NOTIFY_QUEUE = "notifications"
DELIVER = "deliver_notification"
FAN_OUT = "fan_out_notifications"
