"""Where a log line goes: `write_line` writes each line whole, at once or, once
`write_lines_apart` is asked for (the serving API), by a thread of its own (ADR-125, ADR-129).
Every line of shared.logs (the services' lines and the access log) is written here.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import TextIO, cast

from shared.handover import Handover

_line_lock = [threading.Lock()]


def _new_lock() -> None:  # a child forked while another thread wrote must not inherit it held
    _line_lock[0] = threading.Lock()


os.register_at_fork(after_in_child=_new_lock)


def write_line(file: TextIO | None, line: str) -> None:
    """`line` and its newline in one write, then a flush; None is sys.stdout as it is now.
    Written here, or by the process's writer thread once `write_lines_apart` started it.

    One write, not print()'s two (text, then "\n"): a Dramatiq worker's standard output is a
    pipe that forwards each write as a message, which the main process writes out between
    other processes' lines, so a newline written apart could land after another process's line
    and join the two.
    """
    out = file or sys.stdout
    apart = _apart[0]
    if apart is not None:
        apart((out, line))
        return
    _write(out, line)


def _write(out: TextIO, line: str) -> None:
    with _line_lock[0]:
        out.write(line + "\n")
        out.flush()


# A write and flush to standard output is a system call that may block: on a busy disk, or a
# pipe whose reader lags (a container's log driver). On the API's event loop, once per request
# (the access line) and per command, every request in flight waited it out (bench.season_flood:
# one write in sixty took 5-20 ms on a loaded box; issue 27, ADR-125). Handing the line to a
# thread of its own costs a queue put; the thread writes the lines in the order they came.
_apart: list[Handover[tuple[TextIO, str]] | None] = [None]
LINES_CLOSE_WAIT_S = 5.0  # at exit, how long what waits may take to be written


def _write_item(item: tuple[TextIO, str]) -> None:
    _write(*item)


PIPE_BUF = 4096  # a pipe's write of at most this many bytes never mixes with another's (POSIX)


def _write_items(items: list[tuple[TextIO, str]]) -> None:
    """The lines that waited, whole lines joined in writes of at most PIPE_BUF bytes (one
    longer line alone, as before), in order, each write with its flush (ADR-129).

    Written one a wake-up, a flood's lines woke the writer thread for each and it took the GIL
    back from the event loop each time (the write releases it: the loop then waited to take it
    again); lines that came while the thread waited now go out together."""
    out: TextIO | None = None
    joined: list[str] = []
    size = 0
    for file, line in items:
        n = len(line.encode()) + 1
        if joined and (file is not out or size + n > PIPE_BUF):
            _write(cast("TextIO", out), "\n".join(joined))
            joined, size = [], 0
        out = file
        joined.append(line)
        size += n
    if joined:
        _write(cast("TextIO", out), "\n".join(joined))


def _lost(_item: tuple[TextIO, str], _exc: Exception) -> None:
    """A line the stream refused (closed, or unencodable): lost, as nowhere is left to say so."""


def write_lines_apart() -> Handover[tuple[TextIO, str]]:
    """From now on this process's lines are written by a thread of their own (the serving
    API's factory asks for it: a test's output stays written at once, where it captures it)."""
    apart = _apart[0]
    if apart is None:
        apart = _apart[0] = Handover(
            _write_item, _lost, name="log-lines", limit=None, batch=_write_items
        )
        atexit.register(write_lines_inline)
    return apart


def write_lines_inline() -> None:
    """Write what waits, then write each line at once again (at exit, and after a test)."""
    apart, _apart[0] = _apart[0], None
    if apart is not None:
        apart.close(LINES_CLOSE_WAIT_S)


def _forget_writer() -> None:  # a forked child has no writer thread: it writes its own lines
    _apart[0] = None


os.register_at_fork(after_in_child=_forget_writer)
