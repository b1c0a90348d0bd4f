"""ADR-95: the broker URL picks the broker; nothing connects until a message is sent."""

from __future__ import annotations

import pytest
from dramatiq.brokers.rabbitmq import RabbitmqBroker

from entrypoints import bootstrap
from shared.app.messaging.queues import check_broker_policy, make_broker
from shared.app.messaging.rabbit_broker import is_amqp, redacted, vhost_of
from shared.app.messaging.wakeup_broker import WakeupRedisBroker
from shared.settings import Settings

CASES = [
    # url, RabbitMQ?, vhost
    ("amqp://guest:guest@127.0.0.1:5672/", True, "/"),
    ("amqp://guest:guest@127.0.0.1:5672", True, "/"),
    ("amqps://u:p@mq.example:5671/seksenbir", True, "seksenbir"),
    ("amqp://u:p@mq/%2Fprod", True, "/prod"),
    ("redis://127.0.0.1:6379/0", False, None),
    ("rediss://:pw@redis.example:6380/2", False, None),
    ("unix:///run/redis.sock?db=3", False, None),
]


@pytest.mark.parametrize(("url", "rabbit", "vhost"), CASES)
def test_adr_95_an_amqp_url_is_rabbitmq_and_names_its_vhost(
    url: str, rabbit: bool, vhost: str | None
) -> None:
    assert is_amqp(url) is rabbit
    if rabbit:
        assert vhost_of(url) == vhost


@pytest.mark.parametrize(("url", "rabbit"), [(url, rabbit) for url, rabbit, _ in CASES])
def test_adr_95_make_broker_builds_the_broker_the_url_names(url: str, rabbit: bool) -> None:
    broker = make_broker(url, namespace="ns")
    try:
        if rabbit:
            assert isinstance(broker, RabbitmqBroker)
            assert broker.confirm_delivery, "an enqueue must wait for RabbitMQ's confirm"
        else:
            assert isinstance(broker, WakeupRedisBroker)
            assert broker.namespace == "ns"
    finally:
        broker.close()


def test_adr_95_the_settings_broker_url_reaches_every_broker_of_the_bootstrap() -> None:
    settings = Settings.from_env({"SEKSENBIR_BROKER_URL": "amqp://a:b@127.0.0.1:9/v"})
    broker = bootstrap.broker(settings)
    try:
        assert isinstance(broker, RabbitmqBroker)
    finally:
        broker.close()
    # RabbitMQ keeps its queues itself: no Redis eviction policy to ask (RELIABILITY 15)
    assert check_broker_policy(settings.broker_redis) == "rabbitmq"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "amqp://seksenbir:secret@rabbitmq:5672/seksenbir",
            "amqp://seksenbir:***@rabbitmq:5672/seksenbir",
        ),
        ("amqp://rabbitmq:5672/", "amqp://rabbitmq:5672/"),
        ("redis://:secret@redis:6379/0", "redis://:***@redis:6379/0"),
    ],
)
def test_a_broker_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert redacted(url) == shown
    assert "secret" not in redacted(url)


def test_adr_97_only_the_schedulers_sender_publishes_without_confirms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The API's sender waits for each confirm (on its handover thread, ADR-125: a refused
    copy is logged and the scheduler sends it); the scheduler's does not (due_work is the
    truth; RELIABILITY 15 on each broker in tests/integration/test_scheduler_recovery.py
    shows the lost copy sent again)."""
    settings = Settings.from_env({"SEKSENBIR_BROKER_URL": "amqp://a:b@127.0.0.1:9/v"})
    made: list[bool] = []
    real = bootstrap.make_broker

    def recording(*args: object, confirm: bool = True, **kwargs: object) -> object:
        made.append(confirm)
        return real(*args, confirm=confirm, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(bootstrap, "make_broker", recording)
    with bootstrap.resolve_queue(settings):
        pass
    with bootstrap.due_queue(settings):
        pass
    assert made == [True, False]
