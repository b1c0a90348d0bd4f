"""RELIABILITY 15, issue 14: a broker Redis that may evict keys (queued Divans) is refused when
a worker or a scheduler starts; `noeviction` is accepted. On a redis-server of the test's own."""

from __future__ import annotations

import pytest
import redis

from entrypoints.bootstrap import worker_broker
from shared.app.messaging.queues import BrokerConfigError, check_broker_policy
from tests.integration.resolver_support import namespace, settings_for
from tests.redis_server import own_redis

pytestmark = [pytest.mark.integration, pytest.mark.fault]


@pytest.mark.parametrize("policy", ["allkeys-lru", "volatile-ttl", "allkeys-random"])
def test_a_broker_redis_that_may_evict_is_refused_at_start(
    policy: str, migrated_pg_dsn: str
) -> None:
    with own_redis() as server:
        client = redis.Redis.from_url(server.url)
        client.config_set("maxmemory-policy", policy)
        client.close()
        with pytest.raises(BrokerConfigError, match=policy):
            check_broker_policy(server.url)
        settings = settings_for(migrated_pg_dsn, server.url, namespace())
        with pytest.raises(BrokerConfigError):
            worker_broker(settings)


def test_a_noeviction_broker_redis_is_accepted(migrated_pg_dsn: str) -> None:
    with own_redis() as server:
        assert check_broker_policy(server.url) == "noeviction"
