"""Issue 27: `seksenbir up` runs as many worker processes as the settings say.

SEKSENBIR_RESOLVER_PROCESSES (default 2: on 2 cores two resolver processes resolved the
1,000-Divan surge in 37.6 s, one with twice the threads in 60.0 s; docs/benchmarks.md) and
SEKSENBIR_PROJECTION_PROCESSES (default 2: two projected it in 43.2 s, one in 64.2-73.2 s); `up --processes N` overrides the resolvers.
"""

from __future__ import annotations

from entrypoints.stack import _roles
from shared.settings import Settings


def _processes(resolvers: int, projections: int) -> dict[str, str]:
    workers = (resolvers, projections)
    roles = _roles(
        {}, host="127.0.0.1", port=0, workers=workers, metrics=({}, {}), resolver_threads=8
    )
    return {
        r.name: r.argv[r.argv.index("--processes") + 1] for r in roles if "--processes" in r.argv
    }


def test_each_worker_role_runs_the_processes_it_is_given() -> None:
    # the notifications worker: one process (its deliveries fan out on its event loop, ADR-99)
    assert _processes(3, 2) == {"resolver": "3", "projections": "2", "notify": "1"}


def test_the_settings_default_to_what_was_measured_and_read_the_environment() -> None:
    assert (Settings().resolver_processes, Settings().projection_processes) == (2, 2)
    env = {"SEKSENBIR_RESOLVER_PROCESSES": "4", "SEKSENBIR_PROJECTION_PROCESSES": "3"}
    given = Settings.from_env(env)
    assert (given.resolver_processes, given.projection_processes) == (4, 3)


def test_the_banner_and_docs_operations_name_every_role_up_starts() -> None:
    """`seksenbir up` prints its workers and docs/operations.md counts its roles (ADR-65): both
    must name every role it starts (session 24: the notifications worker, a role since issue 25,
    was in neither: "four roles", "resolver, scheduler, projections")."""
    from pathlib import Path

    from entrypoints.stack import say

    roles = _roles(
        {}, host="127.0.0.1", port=0, workers=(2, 2), metrics=({}, {}), resolver_threads=8
    )
    workers = [r.name for r in roles if r.name != "api"]
    for lang in ("tr", "en"):
        line = say("up.workers", lang)
        assert all(w in line for w in workers), (lang, line)
    ops = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text()
    said = ops.split("- **Roles.**", 1)[1].split("\n- ", 1)[0]
    numbers = {4: "four", 5: "five", 6: "six"}
    assert f"starts {numbers[len(roles)]} roles" in said, said
    assert all(f"`{r.name}`" in said for r in roles), said
