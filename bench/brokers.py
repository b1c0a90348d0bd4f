"""The two brokers side by side (ADR-95): delivery, confirms, dead letters (issue 28).

Run: .venv/bin/python -m bench.brokers [--messages 2000] [--threads 4]
     [--brokers redis,rabbitmq] [--amqp amqp://guest:guest@127.0.0.1:5672] [--redis-port 0]

For each broker, with the project's own broker factory (shared.app.messaging.queues.make_broker: the
wake-up Redis broker, or RabbitMQ with publisher confirms) and an in-process Dramatiq worker
(`--threads` threads) running a no-op actor that records each message id it sees:

  enqueue:     N messages sent one after another: per message, median and p99 (ms), and the
               rate (a Redis enqueue is one Lua call; a RabbitMQ one waits for its confirm)
  delivered:   until every message is processed: the rate, and the count of messages seen
               never (lost) and more than once (duplicates) — both must be 0
  dead letter: a message that fails with max_retries=0: from its enqueue until it is in the
               dead-letter store (Redis's XQ set, RabbitMQ's XQ queue)

Redis: a redis-server of this run's own (no persistence). RabbitMQ: a virtual host of this
run's own on --amqp's server (rabbitmqctl), deleted afterwards. Redelivery after a killed
worker is `bench.redelivery --broker …`; the Divan surge is `bench.live_surge --broker …`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import secrets
import statistics
import threading
import time
from collections import Counter
from typing import Any

import dramatiq

from bench.common import own_redis
from shared.app.messaging.queues import make_broker
from tests.brokers import broker_of, probe

QUEUE = "bench_brokers"


def wait_until(check: Any, timeout: float) -> float:
    """Poll `check` until true; the seconds it took (raises after `timeout`)."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout:
            raise RuntimeError("timed out")
        time.sleep(0.002)
    return time.monotonic() - start


def measure(kind: str, url: str, args: argparse.Namespace) -> dict[str, float]:
    ns = f"sbbench-{secrets.token_hex(4)}"
    broker = make_broker(url, namespace=ns)
    seen: Counter[int] = Counter()
    lock = threading.Lock()

    @dramatiq.actor(broker=broker, queue_name=QUEUE, actor_name="bench_noop", max_retries=0)
    def noop(n: int) -> None:
        with lock:
            seen[n] += 1

    @dramatiq.actor(broker=broker, queue_name=QUEUE, actor_name="bench_fail", max_retries=0)
    def fail() -> None:
        raise RuntimeError("poison")

    sent: list[int] = []
    each: list[float] = []
    start = time.monotonic()
    for n in range(args.messages):
        t = time.perf_counter()
        noop.send(n)
        sent.append(n)
        each.append(time.perf_counter() - t)
    enqueue_s = time.monotonic() - start
    worker = dramatiq.Worker(broker, worker_threads=args.threads, worker_timeout=100)
    worker.start()
    try:
        drain_s = wait_until(lambda: sum(seen.values()) >= len(sent), 120)
        time.sleep(0.5)  # a duplicate would arrive now: counted, never waited for
        t = time.monotonic()
        dead = fail.send().message_id
        letters = probe(url, ns, QUEUE)
        wait_until(lambda: dead in letters.dead_letters(), 60)
        dead_s = time.monotonic() - t
    finally:
        worker.stop()
        broker.close()
        with contextlib.suppress(Exception):
            probe(url, ns, QUEUE).cleanup()
    each.sort()
    return {
        "enqueue_median_ms": statistics.median(each) * 1000,
        "enqueue_p99_ms": each[int(len(each) * 0.99) - 1] * 1000,
        "enqueue_per_s": len(sent) / enqueue_s,
        "delivered_per_s": len(sent) / drain_s,
        "lost": float(len(set(sent) - set(seen))),
        "duplicates": float(sum(1 for c in seen.values() if c > 1)),
        "dead_letter_s": dead_s,
    }


def main(args: argparse.Namespace) -> None:
    logging.getLogger("dramatiq").setLevel(logging.CRITICAL)  # the poison's expected failure
    for kind in args.brokers.split(","):
        with own_redis(args.redis_port) as redis_url, broker_of(kind, redis_url, args.amqp) as url:
            m = measure(kind, url, args)
        print(
            f"{kind:8s} {args.messages} messages, {args.threads} worker threads: enqueue "
            f"median {m['enqueue_median_ms']:.2f} ms p99 {m['enqueue_p99_ms']:.2f} ms "
            f"({m['enqueue_per_s']:.0f}/s); delivered {m['delivered_per_s']:.0f}/s, "
            f"lost {m['lost']:.0f}, duplicates {m['duplicates']:.0f}; "
            f"dead-lettered in {m['dead_letter_s'] * 1000:.0f} ms",
            flush=True,
        )


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--messages", type=int, default=2000)
    p.add_argument("--threads", type=int, default=4)
    p.add_argument("--brokers", default="redis,rabbitmq")
    p.add_argument("--amqp", default="amqp://guest:guest@127.0.0.1:5672")
    p.add_argument("--redis-port", type=int, default=0, help="the run's redis-server (0: free)")
    return p.parse_args(argv)


if __name__ == "__main__":
    main(parse())
