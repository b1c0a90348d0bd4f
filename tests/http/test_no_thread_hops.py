"""Issue 27: no request of either API waits on Litestar's thread pool.

Litestar calls a guard, a dependency or a handler that is a plain (sync) function through
`sync_to_thread` unless told otherwise: a hop to a worker thread and back on every request.
The two app guards (path_parameters, one_authorization) were plain functions, so every order
cost two hops and two thread switches (bench.api_orders: ~14 % of the API's CPU per request).
Every guard is a coroutine function, and every sync dependency or handler says
`sync_to_thread=False`. Litestar also copies the route handler for each guard it calls, so
the app's own checks are no guard but its before_request hook (shared.app.access.request_auth.
edge_checks, ADR-111), which the routes' own guards call first.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any

from litestar import Litestar
from litestar.handlers.base import BaseRouteHandler

from entrypoints.gateway import create_app
from shared.app.access.request_auth import edge_checks
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.clock import StepClock


def _handlers(app: Litestar) -> Iterator[BaseRouteHandler]:
    for route in app.routes:
        yield from getattr(route, "route_handlers", ())


def _gateway() -> Litestar:
    return create_app(
        Settings(), store=InMemoryEventStore(clock=StepClock()), enqueue=lambda s, d: None
    )


def test_every_guard_is_a_coroutine_function() -> None:
    guards: dict[str, Any] = {}
    for handler in _handlers(_gateway()):
        for guard in handler.resolve_guards():
            fn = getattr(guard, "func", guard)  # Litestar wraps a sync guard (AsyncCallable)
            guards[getattr(fn, "__qualname__", repr(fn))] = fn
    assert {"ops_guard", "staff_guard"} <= {name.rpartition(".")[2] for name in guards}
    hops = sorted(name for name, fn in guards.items() if not inspect.iscoroutinefunction(fn))
    assert hops == [], f"guards run in a worker thread on every request: {hops}"


def test_no_dependency_or_handler_runs_in_a_thread() -> None:
    hops = set()
    for handler in _handlers(_gateway()):
        for name, provide in handler.resolve_dependencies().items():
            if provide.sync_to_thread:
                hops.add(f"dependency {name}")
        if getattr(handler, "sync_to_thread", False) and getattr(
            handler, "has_sync_callable", False
        ):
            hops.add(f"handler {handler.handler_name}")
    assert hops == set()


def test_the_app_checks_copy_no_handler() -> None:
    """No copy of the handler a request for the app's checks: they are the app's
    before_request hook (a coroutine function), and no route has a guard but its own."""
    app = _gateway()
    assert list(app.guards) == []
    hook = getattr(app.before_request, "func", app.before_request)
    assert hook is edge_checks
    assert inspect.iscoroutinefunction(edge_checks)
    for handler in _handlers(app):
        assert getattr(handler.resolve_before_request(), "func", None) in (edge_checks, None)
