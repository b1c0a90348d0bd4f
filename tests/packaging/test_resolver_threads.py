"""ADR-160 (issue 27): each resolver process's Dramatiq worker threads are a setting,
SEKSENBIR_RESOLVER_THREADS (default 8: at 100 trial seasons on 2 cores, 8 threads a process
resolved more Divans a second than 2 or 4, alternated with main, docs/benchmarks.md), and its
PostgreSQL pool holds a connection for each (at least 4, as before).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from entrypoints import cli
from entrypoints.stack import _roles
from entrypoints.stores import pool_settings
from shared.settings import Settings


def _threads(resolver_threads: int) -> dict[str, str]:
    roles = _roles(
        {},
        host="127.0.0.1",
        port=0,
        workers=(2, 2),
        metrics=({}, {}),
        resolver_threads=resolver_threads,
    )
    return {r.name: r.argv[r.argv.index("--threads") + 1] for r in roles if "--threads" in r.argv}


def test_up_runs_each_resolver_process_with_the_threads_of_the_setting() -> None:
    assert _threads(8) == {"resolver": "8", "projections": "2", "notify": "2"}
    assert _threads(3)["resolver"] == "3"


def test_the_setting_defaults_to_what_was_measured_and_reads_the_environment() -> None:
    assert Settings().resolver_threads == 8
    assert Settings.from_env({"SEKSENBIR_RESOLVER_THREADS": "3"}).resolver_threads == 3


def test_the_resolver_pool_holds_a_connection_for_each_thread_and_at_least_four() -> None:
    assert pool_settings(Settings(resolver_threads=12), "resolver").max_size == 12
    assert pool_settings(Settings(), "resolver").max_size == 8
    assert pool_settings(Settings(resolver_threads=2), "resolver").max_size == 4


def _exec(monkeypatch: pytest.MonkeyPatch, argv: list[str], env: dict[str, str]) -> Any:
    """`seksenbir ARGV` with os.execve caught: (its argv, its environment)."""
    for key in [k for k in os.environ if k.startswith("SEKSENBIR_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    caught: list[tuple[list[str], dict[str, str]]] = []
    monkeypatch.setattr(os, "execve", lambda _exe, args, e: caught.append((list(args), e)))
    cli.main(argv)
    ((args, e),) = caught
    return args[args.index("--threads") + 1], e.get("SEKSENBIR_RESOLVER_THREADS")


def test_worker_resolver_takes_its_threads_from_the_setting_and_gives_them_to_its_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert _exec(monkeypatch, ["worker", "resolver"], {}) == ("8", "8")
    env = {"SEKSENBIR_RESOLVER_THREADS": "5"}
    assert _exec(monkeypatch, ["worker", "resolver"], env) == ("5", "5")
    # --threads wins, and the pool follows it
    assert _exec(monkeypatch, ["worker", "resolver", "--threads", "3"], env) == ("3", "3")
    # the other workers keep 2 threads
    assert _exec(monkeypatch, ["worker", "projections"], env)[0] == "2"
