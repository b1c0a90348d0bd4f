"""A resolver process prefetches one message a thread, not Dramatiq's two (issue 27, ADR-164).

Dramatiq's worker fetches up to `2 × threads` messages a queue (`queue_prefetch`): with every
thread busy, the second half waits in the process's own work queue for the first thread of
*that* process to free itself. Two resolver processes seldom run at the same pace (one misses
its kept folds more, or gets less of the box's CPU), so a Divan fetched by the slower one
waited behind its threads while the other process's threads took later Divans from the
queue: 34 % of the spread of `bench.trial_load`'s wait among Divans asked in the same quarter
second was that local wait (ADR-164). With one message a thread, a message leaves the shared
queue only when a thread is free to run it: the queue is one FIFO line that both processes
serve, and a Divan waits there, not behind a busy thread.

The worker's CPU is not left idle meanwhile: a thread that acks wakes its consumer, which
fetches the room at once (ADR-150) while the process's other threads' Divans run on its event
loop. Dramatiq's own `dramatiq_queue_prefetch` variable, when set, still decides.
"""

from __future__ import annotations

import dramatiq
import dramatiq.worker
from dramatiq.middleware import Middleware


class PrefetchPerThread(Middleware):
    """Sets the booting worker's queue prefetch to its thread count (before its consumers are
    made), unless `dramatiq_queue_prefetch` was given."""

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if not dramatiq.worker.QUEUE_PREFETCH:
            worker.queue_prefetch = worker.worker_threads
