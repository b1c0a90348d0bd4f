"""The notifications worker yields the CPU to Divans on a shared machine (issue 25, ADR-108):
it lowers its priority by SEKSENBIR_NOTIFY_NICE before it starts a thread, and the threads it
starts afterwards (the notifier, the actors' loop, Dramatiq's workers) run at it too."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import os, threading
from entrypoints.notify_boot import lower_priority
before = os.nice(0)
lower_priority(7)
seen = []
t = threading.Thread(target=lambda: seen.append(os.nice(0)))
t.start(); t.join()
print(before, os.nice(0), seen[0])
"""


def test_the_notify_worker_lowers_its_priority_for_every_thread_it_starts() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    before, main, thread = (int(x) for x in out.stdout.split())
    assert main == thread == min(before + 7, 19)
