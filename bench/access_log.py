"""CPU per access log line: shared.logs.access_log beside structlog and a stdlib record.

`python -m bench.access_log [LINES [PASSES]]`. The same five fields each way, in one process,
production's JSON configuration writing to /dev/null, seven interleaved passes of 20,000 lines
(by default); medians of CPU
time (process_time), so another process on the box moves them less than wall time. The access
line is on every request's path (entrypoints.metrics.timed); docs/benchmarks.md.
"""

from __future__ import annotations

import logging
import os
import statistics
import sys
import time
from collections.abc import Callable

import structlog

from shared.logs import access_log, configure_logging

LINES = 20_000
PASSES = 7
FIELDS = ("POST", "/v1/seasons/{season_id}/orders", 200, 0.0023, "0423648ff3e84bb3a296ebeff5aa8382")


def main(lines: int = LINES, passes: int = PASSES) -> None:
    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    configure_logging(json=True, level="INFO", file=sink)
    for handler in logging.getLogger().handlers:  # the stdlib records' handler, to /dev/null too
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(sink)
    events = structlog.get_logger("seksenbir")
    stdlib = logging.getLogger("seksenbir.bench")
    method, path, status, seconds, season_id = FIELDS

    def ours() -> None:
        access_log(method, path, status, seconds, season_id)

    def via_structlog() -> None:
        events.info(
            "http.request",
            method=method,
            path=path,
            status=status,
            duration_ms=seconds * 1000,
            season_id=season_id,
        )

    def via_stdlib_record() -> None:
        stdlib.info(
            "http.request",
            extra={"method": method, "path": path, "status": status, "season_id": season_id},
        )

    ways: dict[str, Callable[[], None]] = {
        "access_log (msgspec, no record)": ours,
        "structlog, same fields": via_structlog,
        "stdlib record, JSON formatter": via_stdlib_record,
    }
    cpu: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(passes):
        for name, line in ways.items():
            started = time.process_time()
            for _ in range(lines):
                line()
            cpu[name].append((time.process_time() - started) / lines * 1e6)
    for name, figures in cpu.items():
        print(
            f"{name:32}: {statistics.median(figures):5.1f} µs CPU a line (min {min(figures):.1f})"
        )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))  # [LINES [PASSES]]
