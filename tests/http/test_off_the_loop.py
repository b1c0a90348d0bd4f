"""Issue 27, ADR-125: nothing on a request's path stops the API's event loop for another's.

Three stalls measured under bench.season_flood (three trial seasons asking for Divans beside a
live season's reads): the Divan request's enqueue, a synchronous round trip to the broker made
on the loop; the log lines' write and flush to standard output (one in sixty took 5-20 ms on a
loaded box); and CPython's full collections walking the ~130,000 objects the process holds for
good (110-215 ms each). The enqueue is handed to a thread of its own (`Handover`), so are the
serving process's log lines (`log_lines.write_lines_apart`), and that process freezes its heap once
the app is built (`bootstrap.settle_heap`).
"""

from __future__ import annotations

import gc
import importlib
import io
import sys
import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from entrypoints import bootstrap, gateway
from shared import log_lines
from shared.handover import Handover, QueueFull
from shared.settings import Settings

WAIT_S = 10.0


class _Gate:
    """A send that blocks until opened, recording what it sent and on which thread."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.sent: list[Any] = []
        self.threads: set[str] = set()
        self.done = threading.Event()

    def __call__(self, item: Any) -> None:
        if not self.open.wait(WAIT_S):
            raise TimeoutError("the gate was never opened")
        self.sent.append(item)
        self.threads.add(threading.current_thread().name)
        self.done.set()


def test_adr_125_a_handover_returns_before_its_send_and_sends_in_order() -> None:
    """ADR-125: the caller never waits for the send; the thread sends in the order put."""
    gate, failures = _Gate(), []
    handover = Handover(gate, lambda item, exc: failures.append((item, exc)), name="t-handover")
    for n in range(3):
        handover(n)  # returns although the send is blocked
    assert gate.sent == []
    gate.open.set()
    handover.close()
    assert gate.sent == [0, 1, 2]
    assert gate.threads == {"t-handover"}
    assert failures == []


def test_adr_125_a_failed_send_is_reported_and_the_next_goes_on() -> None:
    """ADR-125: a send that raises goes to `failed`; the thread sends the next item."""
    sent: list[int] = []
    failures: list[tuple[int, str]] = []

    def send(item: int) -> None:
        if item == 1:
            raise ConnectionError("broker down")
        sent.append(item)

    handover = Handover(send, lambda i, e: failures.append((i, str(e))), name="t-failing")
    for n in range(3):
        handover(n)
    handover.close()
    assert sent == [0, 2]
    assert failures == [(1, "broker down")]


def test_adr_125_a_full_handover_refuses_at_once() -> None:
    """ADR-125: past `limit` waiting items the item goes to `failed` (QueueFull) at once."""
    gate, failures = _Gate(), []
    handover = Handover(gate, lambda i, e: failures.append((i, e)), name="t-full", limit=2)
    handover("a")
    handover("b")
    handover("c")  # "a" may be in the send, blocked: "b" and "c" wait, or "c" is refused
    handover("d")
    refused = [item for item, exc in failures if isinstance(exc, QueueFull)]
    assert "d" in refused
    gate.open.set()
    handover.close()
    assert sorted(gate.sent + refused) == ["a", "b", "c", "d"]


class _Broker:
    """A broker whose enqueue blocks until the gate opens (a broker's round trip)."""

    def __init__(self, gate: _Gate) -> None:
        self.gate = gate
        self.closed = False

    def enqueue(self, message: Any) -> None:
        self.gate((message.args, threading.current_thread().name))

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Gate]:
    g = _Gate()
    broker = _Broker(g)
    monkeypatch.setattr(bootstrap, "broker", lambda settings, **kw: broker)
    yield g
    g.open.set()
    assert broker.closed


def test_adr_125_the_apis_divan_enqueue_never_waits_for_the_broker(gate: _Gate) -> None:
    """ADR-125 (R-1.2's enqueue): `enqueue` returns while the broker's round trip is still
    blocked; the message is sent on the handover's thread, and closing sends it first."""
    with bootstrap.resolve_queue(Settings()) as enqueue:
        enqueue("s-1", 3)  # before ADR-125: blocked here, on the caller's (the loop's) thread
        assert gate.sent == []
        gate.open.set()
        assert gate.done.wait(WAIT_S)
    assert gate.sent == [(("s-1", 3), "resolve-handover")]


def test_adr_125_a_failed_divan_enqueue_is_logged(monkeypatch: pytest.MonkeyPatch) -> None:
    """R-1.2: a broker that refuses the Divan is logged (`divan.enqueue_failed`); the scheduler
    hands the Divan over (RELIABILITY 15)."""

    class Down:
        def enqueue(self, message: Any) -> None:
            raise ConnectionError("refused")

        def close(self) -> None:
            pass

    lines: list[tuple[str, dict[str, Any]]] = []

    class Log:
        def warning(self, event: str, **kw: Any) -> None:
            lines.append((event, kw))

    monkeypatch.setattr(bootstrap, "broker", lambda settings, **kw: Down())
    monkeypatch.setattr(bootstrap, "log", Log())
    with bootstrap.resolve_queue(Settings()) as enqueue:
        enqueue("s-2", 4)
    assert lines == [
        (
            "divan.enqueue_failed",
            {"season_id": "s-2", "divan": 4, "error": "ConnectionError"},
        )
    ]


def test_adr_125_the_serving_process_freezes_its_heap_and_writes_lines_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADR-125: `seksenbir serve`'s factory freezes what is alive once the app is built, so a
    full collection no longer walks the modules and the app on every pass, and hands its log
    lines to a writer thread."""
    built = SimpleNamespace(asgi_handler=object())  # an app: the factory wraps its handler
    apart: list[bool] = []
    monkeypatch.setattr(bootstrap, "configure", lambda settings: None)
    monkeypatch.setattr(gateway, "create_app", lambda settings: built)
    monkeypatch.setattr(gateway, "write_lines_apart", lambda: apart.append(True))
    thresholds = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    try:
        assert gateway.app_from_env() is built
        assert gc.get_freeze_count() > 0
        assert apart == [True]
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_adr_164_the_serving_process_collects_young_objects_as_the_workers_do(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADR-164: the serving process's youngest generation is collected every 7,000 kept
    allocations, as the workers' (ADR-135), not CPython's 700: under the trial load its
    collector stopped the event loop ~770 times in 20 s, six of them full collections of
    40-80 ms that every request in flight waited out; at 7,000, ~24 times and none full."""
    built = SimpleNamespace(asgi_handler=object())
    monkeypatch.setattr(bootstrap, "configure", lambda settings: None)
    monkeypatch.setattr(gateway, "create_app", lambda settings: built)
    monkeypatch.setattr(gateway, "write_lines_apart", lambda: None)
    thresholds = gc.get_threshold()
    try:
        gateway.app_from_env()
        assert gc.get_threshold() == (bootstrap.WORKER_YOUNG, *thresholds[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.mark.parametrize(
    ("module", "builder"),
    [
        ("entrypoints.resolver_worker", "resolver_worker"),
        ("entrypoints.projections_worker", "projections_worker"),
    ],
)
def test_adr_135_each_worker_freezes_its_heap_once_bootstrapped(
    monkeypatch: pytest.MonkeyPatch, module: str, builder: str
) -> None:
    """ADR-135: a resolver or projections worker process freezes what is alive at the end of
    its bootstrap module (its modules, broker, actors), as the serving process does (ADR-125):
    its full collections, ~40 ms each and every few seconds under the trial load, walked them;
    and its youngest generation is collected ten times less often (most of a Divan's objects
    go by reference counting before a collection would find them)."""
    monkeypatch.setattr(bootstrap, "configure", lambda settings: None)
    monkeypatch.setattr(bootstrap, builder, lambda settings: (None, None))
    monkeypatch.delitem(sys.modules, module, raising=False)
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()
    try:
        importlib.import_module(module)
        assert gc.get_freeze_count() > 0
        # and collects its youngest objects every 7,000 allocations kept, not every 700
        assert gc.get_threshold() == (bootstrap.WORKER_YOUNG, *thresholds[1:])
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
        sys.modules.pop(module, None)


class _SlowFile(io.StringIO):
    """A stream whose writes block until the gate opens (a busy disk, a lagging pipe)."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def write(self, text: str) -> int:
        if not self.gate.wait(WAIT_S):
            raise TimeoutError("the gate was never opened")
        return super().write(text)


def test_adr_125_lines_written_apart_never_wait_for_the_stream_and_keep_their_order() -> None:
    """ADR-125: once written apart, `write_line` returns while the stream's write is blocked;
    the lines reach it whole and in order, and going back inline writes what waited."""
    out = _SlowFile()
    log_lines.write_lines_apart()
    try:
        for n in range(3):
            log_lines.write_line(out, f"line {n}")  # before ADR-125: blocked here, on the loop
        assert out.getvalue() == ""
        out.gate.set()
    finally:
        log_lines.write_lines_inline()
    assert out.getvalue() == "line 0\nline 1\nline 2\n"
    log_lines.write_line(out, "inline")  # written at once again
    assert out.getvalue().endswith("line 2\ninline\n")


class _Writes(io.StringIO):
    """A stream recording each write; the first blocks until the gate opens."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        if not self.gate.wait(WAIT_S):
            raise TimeoutError("the gate was never opened")
        self.writes.append(text)
        return super().write(text)


def test_adr_129_lines_that_waited_go_out_together_whole_and_in_order() -> None:
    """ADR-129: the writer thread writes every line that waited when it woke, whole lines
    joined in writes of at most PIPE_BUF bytes (a longer line alone), in order, per stream;
    one write a line woke it, and took the GIL from the event loop, once a line."""
    out, other = _Writes(), _Writes()
    lines = [f"line {n:03d} " + "x" * 90 for n in range(200)]
    long = "y" * (log_lines.PIPE_BUF + 10)
    log_lines.write_lines_apart()
    try:
        for n, line in enumerate(lines):
            log_lines.write_line(out, line)  # the first write blocks: the others wait behind it
            if n == 100:
                log_lines.write_line(out, long)
                log_lines.write_line(other, "elsewhere")
        other.gate.set()
        out.gate.set()
    finally:
        log_lines.write_lines_inline()
    expected = [*lines[:101], long, *lines[101:]]
    assert out.getvalue() == "".join(f"{line}\n" for line in expected)
    assert other.writes == ["elsewhere\n"]
    assert all(w.endswith("\n") for w in out.writes)
    assert all(len(w.encode()) <= log_lines.PIPE_BUF for w in out.writes if long not in w)
    assert f"{long}\n" in out.writes  # alone
    assert len(out.writes) <= 12  # 201 lines of ~100 bytes: 5-6 writes of 4 KB, the long one


def test_adr_129_a_failed_batch_fails_each_of_its_items_and_the_thread_goes_on() -> None:
    """ADR-129: a `batch` that raises is `failed` for every item it was given; the next pass."""
    gate, got, failures, entered = _Gate(), [], [], threading.Event()

    def batch(items: list[int]) -> None:
        entered.set()
        gate(None)
        if 0 in items:
            raise OSError("full")
        got.extend(items)

    handover = Handover(
        lambda i: None, lambda i, e: failures.append((i, str(e))), name="t-batch", batch=batch
    )
    handover(0)  # taken alone: the gate holds it while the others wait
    assert entered.wait(WAIT_S)
    for n in range(1, 4):
        handover(n)
    gate.open.set()
    handover.close()
    assert failures == [(0, "full")]
    assert got == [1, 2, 3]
