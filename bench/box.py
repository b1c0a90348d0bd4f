"""What the box itself costs, printed beside a bench's figures so that two boxes can be told
apart from two trees (issue 27).

The stack's CPU a Divan moved ~1.7× between boxes of the same kind with the same tree (11.1 ms
on session 23's box, 17–20 ms on session 26's), while the pure Divan unit beside MILA did not
(~0.33 ms at best on both). What else a box lends the stack, system calls and waking another
process (every socket write, every hop between its processes), was not recorded then. A load
average says how busy the box is, not how fast it is; these three figures say that:

- `unit`: the pure Divan unit (bench.adjudication's: Divan 8 of seed 11, 19 beys, 78 orders,
  the report), the fastest of `UNIT_CALLS` calls, in ms: the interpreter's speed;
- `syscall`: one cheap system call from Python (`os.getppid`), the mean of `SYSCALLS`, in ns;
- `wake`: a one-byte round trip over a socket pair to a forked child, the median of
  `ROUND_TRIPS`, in µs: two wake-ups of a process blocked in recv, as between the API, the
  resolvers, the projectors, PostgreSQL and Redis.

and first the processor as the kernel names it (`/proc/cpuinfo`: model name, MHz), where
it does. `python -m bench.box` prints the line alone; the stack benches print it in their
config.
"""

from __future__ import annotations

import os
import re
import socket
import statistics
import time

UNIT_CALLS = 30
SYSCALLS = 20_000
ROUND_TRIPS = 2_000


def unit_ms() -> float:
    """The fastest of UNIT_CALLS pure Divan units, in ms (after five to warm up)."""
    from bench.common import mid_season, ordered_everywhere
    from shared.domain.lifecycle import inputs_of
    from shared.domain.resolve import adjudicate

    state, locked = ordered_everywhere(mid_season())
    inputs = inputs_of(state, locked)
    best = float("inf")
    for n in range(UNIT_CALLS + 5):
        started = time.perf_counter()
        adjudicate(state, inputs)
        if n >= 5:
            best = min(best, time.perf_counter() - started)
    return best * 1e3


def syscall_ns() -> float:
    """The mean wall time of one `os.getppid()`, in ns."""
    started = time.perf_counter()
    for _ in range(SYSCALLS):
        os.getppid()
    return (time.perf_counter() - started) / SYSCALLS * 1e9


def wake_us() -> float:
    """The median one-byte round trip to a forked child over a socket pair, in µs. Call it
    before any thread starts: the child only echoes and leaves by os._exit."""
    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the child: echo until the pair closes
        ours.close()
        while data := theirs.recv(16):
            theirs.sendall(data)
        os._exit(0)
    theirs.close()
    took = []
    try:
        for _ in range(ROUND_TRIPS):
            started = time.perf_counter()
            ours.sendall(b"x")
            ours.recv(16)
            took.append(time.perf_counter() - started)
    finally:
        ours.close()
        os.waitpid(pid, 0)
    return statistics.median(took) * 1e6


def processor() -> str:
    """The first processor's model name and clock as /proc/cpuinfo gives them ("AMD EPYC,
    2596 MHz"); "" where there is no such file or field."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            info = f.read()
    except OSError:
        return ""
    model = re.search(r"^model name\s*:\s*(.+)$", info, re.M)
    mhz = re.search(r"^cpu MHz\s*:\s*([0-9.]+)$", info, re.M)
    named = model.group(1).strip() if model else ""
    return f"{named}, {float(mhz.group(1)):.0f} MHz" if mhz else named


def line() -> str:
    """`box: <processor>; unit … ms, syscall … ns, wake … µs`, measured now (about 0.2 s)."""
    figures = f"unit {unit_ms():.3f} ms, syscall {syscall_ns():.0f} ns, wake {wake_us():.1f} µs"
    named = processor()
    return f"box: {named}; {figures}" if named else f"box: {figures}"


if __name__ == "__main__":
    print(line(), f"(load average {os.getloadavg()[0]:.1f})")
