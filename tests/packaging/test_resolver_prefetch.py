"""ADR-164 (issue 27): a resolver process prefetches one message a thread and two spare, not
Dramatiq's two a thread.

With `2 × threads`, half of what a busy process held waited in its own work queue for one of
its threads, while the other process's threads took later Divans from the shared queue (a
third of the wait's spread among Divans asked together, bench.trial_load); with one a thread
alone the live surge was slower (a thread idle until its next fetch came back). Dramatiq's own
`dramatiq_queue_prefetch`, when given, still decides; the other workers keep Dramatiq's default.
"""

from __future__ import annotations

from collections.abc import Iterator

import dramatiq
import dramatiq.worker
import pytest
from dramatiq.brokers.stub import StubBroker

from entrypoints import bootstrap
from shared.app.messaging.prefetch import SPARE, PrefetchPerThread
from shared.app.messaging.queues import DIVANS_QUEUE
from shared.settings import Settings


def _prefetch(broker: dramatiq.Broker, threads: int) -> int:
    """The prefetch of the consumer a booted worker of `threads` made for the divans queue."""
    worker = dramatiq.Worker(broker, worker_threads=threads, worker_timeout=10)
    worker.start()
    try:
        return int(worker.consumers[DIVANS_QUEUE].prefetch)
    finally:
        worker.stop()


@pytest.fixture
def stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubBroker]:
    """The worker bootstraps' broker as a StubBroker (no Redis), with its AsyncIO middleware."""
    broker = StubBroker()
    broker.add_middleware(dramatiq.middleware.AsyncIO())

    def worker_broker(settings: Settings, **_kwargs: object) -> dramatiq.Broker:
        dramatiq.set_broker(broker)
        return broker

    monkeypatch.setattr(bootstrap, "worker_broker", worker_broker)
    yield broker
    broker.close()


def test_a_resolver_process_prefetches_one_divan_a_thread_and_two_spare(stub: StubBroker) -> None:
    bootstrap.resolver_worker(Settings())
    assert SPARE == 2
    assert _prefetch(stub, 8) == 10  # Dramatiq's default would hold 16
    assert _prefetch(stub, 3) == 5


def test_dramatiqs_own_variable_still_decides(
    stub: StubBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dramatiq.worker, "QUEUE_PREFETCH", 5)
    bootstrap.resolver_worker(Settings())
    assert _prefetch(stub, 8) == 5


def test_a_worker_without_it_keeps_dramatiqs_two_a_thread() -> None:
    broker = StubBroker()
    broker.declare_queue(DIVANS_QUEUE)
    try:
        assert _prefetch(broker, 8) == 16
        broker.add_middleware(PrefetchPerThread())
        assert _prefetch(broker, 8) == 10
    finally:
        broker.close()
