"""`seksenbir up` supervises its roles (issue 20, items 2 and 3), over cheap stand-in roles.

- A role that dies is started again after a delay that doubles with each quick death up to a
  ceiling, and from the first delay again after a stable run; each restart is logged (role,
  pid, exit code, attempt, delay); the other roles are left alone; what the dead role left in
  its process group is killed.
- Any number of SIGTERM, SIGINT and SIGHUP, in any order, stop every role once (one SIGTERM each),
  leave no process of any role's group, and `up` exits 0.

The real stack (a killed Dramatiq worker, `make run` stopped by its process group) is in
test_stack.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time  # noqa: TID251 - waits on real processes, not the domain
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from entrypoints.stack import Role, Supervisor
from tests.integration.processes import REPO, alive_in_groups

pytestmark = pytest.mark.fault
CHILD = str(Path(__file__).with_name("supervised_child.py"))


class Clock:
    """The supervisor's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def poll(check: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll `check` until it returns something truthy (a deadline, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
    return result


def steady(name: str, folder: Path) -> Role:
    return Role(name, [sys.executable, CHILD, "steady", str(folder)], dict(os.environ))


def ready(folder: Path, pid: int) -> bool:
    return (folder / f"ready-{pid}").exists()


class Supervised:
    """A Supervisor over cheap roles in this process, its clock and log records at hand."""

    def __init__(self, supervisor: Supervisor, clock: Clock, logs: list[dict[str, Any]]) -> None:
        self.supervisor, self.clock, self.logs = supervisor, clock, logs

    def started(self, role: str) -> list[int]:
        return [
            e["pid"] for e in self.logs if e["event"] == "up.role_started" and e["role"] == role
        ]

    def exits(self, role: str) -> list[dict[str, Any]]:
        return [e for e in self.logs if e["event"] == "up.role_exited" and e["role"] == role]

    def step_until(self, check: Callable[[], Any], what: str) -> Any:
        def stepped() -> Any:
            self.supervisor.step()
            return check()

        return poll(stepped, what)

    def after(self, seconds: float) -> None:
        """Move the clock on and look at the roles once."""
        self.clock.now += seconds
        self.supervisor.step()


@pytest.fixture
def supervised(tmp_path: Path) -> Iterator[Supervised]:
    """Roles `api` and `resolver` (steady) and `crashing` (exits 3 at once); restart delays of
    1, 2, 4, 8 s (the ceiling) on the test's clock, a stable run of 60 s. Stopped afterwards:
    exit code 0 and no process of any role's group left."""
    crash = Role("crashing", [sys.executable, CHILD, "crash", str(tmp_path)], dict(os.environ))
    clock = Clock()
    with capture_logs() as logs:
        supervisor = Supervisor(
            [steady("api", tmp_path), steady("resolver", tmp_path), crash],
            first_s=1,
            max_s=8,
            stable_s=60,
            clock=clock,
        )
        supervisor.start()
        try:
            yield Supervised(supervisor, clock, logs)
        finally:
            code = supervisor.stop()
    assert code == 0
    everyone = {e["pid"] for e in logs if e["event"] == "up.role_started"}
    poll(lambda: alive_in_groups(everyone) == [], "no process of any role's group")  # SIGKILLed


def test_a_role_that_keeps_dying_at_once_restarts_with_a_doubling_delay_up_to_the_ceiling(
    supervised: Supervised,
) -> None:
    """Issue 20, item 2: 1, 2, 4, 8, 8, 8 s, for ever; each death logged; never sooner."""
    for n in range(1, 7):
        supervised.step_until(lambda n=n: len(supervised.exits("crashing")) == n, f"crash {n}")
        assert len(supervised.started("crashing")) == n
        supervised.after(supervised.exits("crashing")[-1]["delay_s"] - 0.01)
        assert len(supervised.started("crashing")) == n  # not before its delay
        supervised.after(0.01)
        assert len(supervised.started("crashing")) == n + 1
    assert [(e["attempt"], e["delay_s"], e["exit_code"]) for e in supervised.exits("crashing")] == [
        (1, 1, 3),
        (2, 2, 3),
        (3, 4, 3),
        (4, 8, 3),
        (5, 8, 3),
        (6, 8, 3),
    ]
    assert supervised.exits("api") == supervised.exits("resolver") == []


def test_a_killed_role_restarts_alone_its_group_killed_and_a_stable_run_resets_the_delay(
    supervised: Supervised, tmp_path: Path
) -> None:
    """Issue 20, item 2: kill -9 of a role (a Dramatiq main process, say) while another runs."""
    [api] = supervised.started("api")
    [resolver] = supervised.started("resolver")
    poll(lambda: ready(tmp_path, api) and ready(tmp_path, resolver), "both roles ready")
    assert len(alive_in_groups({resolver})) == 2  # the role and the helper it started
    os.kill(resolver, signal.SIGKILL)
    [died] = supervised.step_until(lambda: supervised.exits("resolver"), "the resolver's death")
    assert (died["pid"], died["exit_code"], died["attempt"], died["delay_s"]) == (
        resolver,
        -9,
        1,
        1,
    )
    poll(lambda: not alive_in_groups({resolver}), "the dead role's helper killed")
    supervised.after(1)
    [_, again] = supervised.started("resolver")
    poll(lambda: ready(tmp_path, again), "the restarted resolver ready")
    # a second quick death doubles the delay; after a stable run it is the first delay again
    os.kill(again, signal.SIGKILL)
    supervised.step_until(lambda: len(supervised.exits("resolver")) == 2, "the second death")
    assert (
        supervised.exits("resolver")[-1]["attempt"],
        supervised.exits("resolver")[-1]["delay_s"],
    ) == (2, 2)
    supervised.after(2)
    [*_, third] = supervised.started("resolver")
    poll(lambda: ready(tmp_path, third), "the third resolver ready")
    supervised.after(60)  # a stable run
    os.kill(third, signal.SIGKILL)
    supervised.step_until(lambda: len(supervised.exits("resolver")) == 3, "the third death")
    assert (
        supervised.exits("resolver")[-1]["attempt"],
        supervised.exits("resolver")[-1]["delay_s"],
    ) == (1, 1)
    assert supervised.started("api") == [api] and supervised.exits("api") == []  # untouched
    assert not (tmp_path / f"term-{api}").exists()


@pytest.mark.parametrize(
    "signals",
    [
        ["SIGTERM", "SIGTERM"],  # `make run` stopped by its group: make forwards its own
        ["SIGINT", "SIGTERM"],
        ["SIGTERM", "SIGINT", "SIGTERM", "SIGINT", "SIGTERM"],
        # the terminal `make run` ran in was closed (h-probe3: `up` died of it and left every
        # role, the API on its port included, running under PID 1)
        ["SIGHUP"],
        ["SIGHUP", "SIGTERM"],
    ],
)
def test_any_number_of_sigterm_and_sigint_stop_every_role_once_and_leave_no_process(
    tmp_path: Path, signals: list[str]
) -> None:
    """Issue 20, item 3: the signals back to back, and again while the roles are stopping."""
    log = tmp_path / "up.log"
    with log.open("wb") as out:
        up = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.supervised_up", str(tmp_path)],
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:

        def records() -> list[dict[str, Any]]:
            return [json.loads(line) for line in log.read_text().splitlines() if line]

        def roles() -> list[int]:
            pids = [r["pid"] for r in records() if r["event"] == "up.role_started"]
            return pids if len(pids) == 3 and all(ready(tmp_path, p) for p in pids) else []

        pids = poll(roles, "three roles ready")
        assert len(alive_in_groups(set(pids))) == 6  # each role and its helper
        first, *rest = signals
        os.kill(up.pid, signal.Signals[first])
        for name in rest[:1]:  # at once
            os.kill(up.pid, signal.Signals[name])
        # the rest while the roles are stopping (each takes STOP_S after its SIGTERM)
        poll(lambda: all((tmp_path / f"term-{p}").exists() for p in pids), "SIGTERM to each")
        for name in rest[1:]:
            os.kill(up.pid, signal.Signals[name])
        code = up.wait(timeout=60)
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
    text = log.read_text()
    assert code == 0, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    for pid in pids:
        assert (tmp_path / f"term-{pid}").read_text() == "SIGTERM\n", pid  # exactly once
    poll(lambda: alive_in_groups(set(pids)) == [], "no process of any role's group")
    [stopping] = [r for r in records() if r["event"] == "up.stopping"]
    assert stopping["signals"] and set(stopping["signals"]) <= set(signals), stopping
    stopped = [(r["pid"], r["exit_code"]) for r in records() if r["event"] == "up.role_stopped"]
    assert sorted(stopped) == sorted((pid, 0) for pid in pids), text


def test_a_stop_with_nobody_reading_ups_output_still_stops_every_role(tmp_path: Path) -> None:
    """h-probe3: `up`'s output went to a reader that was gone (a pipe closed, as `seksenbir up
    | head` or a closed terminal leaves it): its first log line after that raised
    BrokenPipeError, `up` died of it, and every role ran on under PID 1. Now a line that cannot
    be written is dropped: SIGTERM stops every role once and leaves no process."""
    up = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.supervised_up", str(tmp_path)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )

    def roles() -> list[int]:
        pids = [int(f.name.removeprefix("ready-")) for f in tmp_path.glob("ready-*")]
        return pids if len(pids) == 3 else []

    pids: list[int] = []
    try:
        pids = poll(roles, "three roles ready")
        assert up.stdout is not None
        up.stdout.close()  # nobody reads what `up` says from now on
        os.kill(up.pid, signal.SIGTERM)
        poll(lambda: all((tmp_path / f"term-{p}").exists() for p in pids), "SIGTERM to each")
        up.wait(timeout=60)
    finally:
        if up.poll() is None:
            up.kill()
            up.wait()
        leftover = alive_in_groups(set(pids))
        for pid, _group in leftover:  # the test's own roles: none outlives it
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    assert leftover == [], leftover
    for pid in pids:
        assert (tmp_path / f"term-{pid}").read_text() == "SIGTERM\n", pid  # exactly once
