"""A cheap stand-in for one of `seksenbir up`'s roles, for the tests of entrypoints.stack's
Supervisor: `python tests/integration/supervised_child.py MODE DIR`.

- `steady`: starts a helper process in its own process group (as Dramatiq's main process starts
  its workers), writes DIR/ready-<pid>, and waits. Each SIGTERM appends a line to
  DIR/term-<pid>; the first one makes it stop after STOP_S (a graceful stop that takes a
  while, during which `up` may get more signals) and exit 0, leaving its helper running: only
  the supervisor's kill of the role's process group ends that one.
- `crash`: exits 3 at once (a role that cannot start).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

STOP_S = 0.5


def main(mode: str, folder: Path) -> int:
    if mode == "crash":
        return 3
    terms: list[int] = []

    def term(signum: int, _frame: object) -> None:
        # Only a write to a file of its own and an append: a handler that takes a lock (as
        # threading.Event.set does) deadlocks when the signal lands while the main thread holds
        # that lock, inside Event.wait -- the role then ignored SIGTERM and was killed (-9).
        with (folder / f"term-{_pid()}").open("a") as out:
            out.write("SIGTERM\n")
        terms.append(signum)

    signal.signal(signal.SIGTERM, term)
    pause = threading.Event()  # never set: its wait is a sleep whose lock no handler takes
    subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])
    (folder / f"ready-{_pid()}").write_text("")
    while not terms:
        pause.wait(0.05)
    pause.wait(STOP_S)  # more SIGTERMs may arrive meanwhile: each one is written down
    return 0


def _pid() -> int:
    import os

    return os.getpid()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], Path(sys.argv[2])))
