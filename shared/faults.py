"""Fault points for crash tests (RELIABILITY.md): FAULT_POINT=name[:exit|:sleep=S|:raise]."""

from __future__ import annotations

import os
import time

import structlog

from shared.settings import variable

_fired: set[str] = set()


class InjectedFault(Exception):
    """Raised at a fault point configured with `:raise` (once per process)."""


def fault(point: str) -> None:
    """Do nothing unless FAULT_POINT names this point; then exit 137, sleep, or raise once."""
    spec = variable("FAULT_POINT")
    name, _, action = spec.partition(":")
    if name != point:
        return
    # a test waits for this line to know the process is at the point (e.g. to kill -9 it there)
    # (and which process: a test may kill -9 that one child of a worker, RELIABILITY 14)
    structlog.get_logger(__name__).warning(
        "fault.injected", point=point, action=action or "exit", pid=os.getpid()
    )
    if action.startswith("sleep="):
        time.sleep(float(action.removeprefix("sleep=")))
    elif action == "raise":
        if point not in _fired:
            _fired.add(point)
            raise InjectedFault(point)
    else:
        os._exit(137)
