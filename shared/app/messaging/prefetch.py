"""A resolver process prefetches one message a thread and two spare, not Dramatiq's two a
thread (issue 27, ADR-164).

Dramatiq's worker fetches up to `2 × threads` messages a queue (`queue_prefetch`): with every
thread busy, the second half waits in the process's own work queue for the first thread of
*that* process to free itself. Two resolver processes seldom run at the same pace (one misses
its kept folds more, or gets less of the box's CPU), so a Divan fetched by the slower one
waited behind its threads while the other process's threads took later Divans from the
queue: a third of the spread of `bench.trial_load`'s wait among Divans asked in the same
quarter second was that local wait (ADR-164). Holding one a thread and SPARE more, a Divan
waits in the queue both processes serve, in order, and at most SPARE wait behind a busy
process's threads.

Not one a thread alone: then a thread that acked stood idle until its consumer's fetch came
back (the ack, the wake-up, the fetch, each thread's turn at the GIL), and the live surge
(`bench.live_surge`, 1,000 Divans due at once) resolved slower in 4 of 4 pairs; with SPARE
it was shorter in 4 of 6. Dramatiq's own `dramatiq_queue_prefetch` variable, when set, still
decides.
"""

from __future__ import annotations

import dramatiq
import dramatiq.worker
from dramatiq.middleware import Middleware

SPARE = 2  # messages a resolver process holds beyond one a thread (ADR-164)


class PrefetchPerThread(Middleware):
    """Sets the booting worker's queue prefetch to its thread count and SPARE (before its
    consumers are made), unless `dramatiq_queue_prefetch` was given."""

    def before_worker_boot(self, broker: dramatiq.Broker, worker: dramatiq.Worker) -> None:
        if not dramatiq.worker.QUEUE_PREFETCH:
            worker.queue_prefetch = worker.worker_threads + SPARE
