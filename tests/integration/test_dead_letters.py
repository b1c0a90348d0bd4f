"""Dead letters (issue 14, RELIABILITY 12): a poison message ends in the dead-letter set after
its retries, the rest flows, and ops list and replay it from the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import dramatiq
import pytest

from shared.app.messaging.queues import DIVANS_QUEUE, RESOLVE_DIVAN, resolve_message
from tests.brokers import probe
from tests.integration.resolver_support import (
    inprocess_worker,
    namespace,
    settings_for,
    wait_for,
)

pytestmark = pytest.mark.integration


def cli(broker_url: str, ns: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEKSENBIR_")}
    env |= {"SEKSENBIR_BROKER_URL": broker_url, "SEKSENBIR_BROKER_NAMESPACE": ns}
    return subprocess.run(
        [sys.executable, "-m", "entrypoints.cli", "--lang", "en", "deadletters", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


async def test_a_poison_message_is_dead_lettered_listed_and_replayed_while_the_rest_flows(
    migrated_pg_dsn: str, redis_url: str, broker_url: str
) -> None:
    """On each broker (tests/brokers.py): Redis's XQ set, RabbitMQ's XQ queue."""
    ns = namespace()
    settings = settings_for(migrated_pg_dsn, redis_url, ns, broker_url=broker_url)
    keys = probe(broker_url, ns)
    try:
        with inprocess_worker(settings) as worker:
            poison = dramatiq.Message(
                queue_name=DIVANS_QUEUE,
                actor_name=RESOLVE_DIVAN,
                args=("poison", 1, "extra"),  # an argument the actor does not take
                kwargs={},
                options={"max_retries": 1, "min_backoff": 10, "max_backoff": 20},
            )
            sent = worker.broker.enqueue(poison)
            healthy = worker.broker.enqueue(resolve_message("no-such-season", 1))

            async def dead() -> bool:
                return sent.message_id in keys.dead_letters()

            await wait_for(dead, "the poison message dead-lettered", timeout=20)
            outcomes: list[Any] = worker.recorder.outcomes_of("no-such-season")
            assert outcomes == [(1, "not_found")]  # the rest flowed
            assert healthy.message_id not in keys.dead_letters()

        listed = cli(broker_url, ns, "list", "--json")
        assert listed.returncode == 0, listed.stderr
        letters = json.loads(listed.stdout)
        assert [(d["message_id"], d["actor"], d["args"]) for d in letters] == [
            (sent.message_id, RESOLVE_DIVAN, ["poison", 1, "extra"])
        ]
        assert "TypeError" in letters[0]["error"]
        plain = cli(broker_url, ns, "list")
        assert letters[0]["id"] in plain.stdout and "1 dead letter(s)" in plain.stdout

        assert cli(broker_url, ns, "replay").returncode == 2  # name ids or --all
        missing = cli(broker_url, ns, "replay", "nope")
        assert missing.returncode == 1 and "not found" in missing.stdout
        replayed = cli(broker_url, ns, "replay", letters[0]["id"])
        assert replayed.returncode == 0, replayed.stderr
        assert "replayed 1" in replayed.stdout
        assert keys.dead_letters() == {}
        assert keys.pending() == 1  # back on its queue, retries reset
        assert json.loads(cli(broker_url, ns, "list", "--json").stdout) == []
    finally:
        keys.cleanup()
