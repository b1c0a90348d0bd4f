"""`seksenbir up` (the README's run command): the whole stack starts, serves, and stops cleanly.

RELIABILITY 14, the graceful half: SIGTERM reaches each process once; Dramatiq's main process
forwards it to its workers, which finish and exit. None is killed.

Issue 20: `up` supervises its roles (a killed worker is restarted while the others serve), and
any number of SIGTERM/SIGINT, in any order, stop each role once and leave no process behind
(with `make run` too, which forwards its own SIGTERM). Cheap stand-in roles: test_supervisor.py.

Issue 11 (one log format): every log line of every process it starts (uvicorn's, Dramatiq's
main and worker processes', the services' own, the access log) is a JSON line; only the
launcher's few lines for people (where PostgreSQL and Redis were found, the URLs) are text.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import time  # noqa: TID251 - waits on a real process, not the domain
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.processes import REPO, alive_in_groups, children, free_port, serving

pytestmark = [pytest.mark.integration, pytest.mark.fault]


def test_seksenbir_up_serves_a_trial_season_and_stops_on_sigterm(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
):
    port = free_port()
    metrics_port = free_port(span=2)  # the resolver's; the projections worker's is the next
    log = tmp_path / "up.log"
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,  # this session's own db, not the next one
        "SEKSENBIR_BROKER_NAMESPACE": f"test-up-{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
        "SEKSENBIR_WORKER_METRICS_PORT": str(metrics_port),
    }
    with serving(["up", "--port", str(port)], env, log, port) as stack:
        created = httpx.post(f"{stack.base}/v1/seasons", json={"memleket": 6}, timeout=10)
        assert created.status_code == 201, created.text
        season = created.json()
        auth = {"Authorization": f"Bearer {season['token']}"}
        url = f"{stack.base}/v1/seasons/{season['season_id']}"
        asked = httpx.post(f"{url}/divans", json={"divan": 1}, headers=auth, timeout=10)
        assert asked.status_code == 202, asked.text
        deadline = time.monotonic() + 60
        while True:  # resolved by the resolver worker, then projected by the projections one
            summary = httpx.get(f"{url}/summary", timeout=10)
            if summary.status_code == 200 and summary.json()["status"]["divan"] == 1:
                break
            assert time.monotonic() < deadline, (summary.text, stack.output())
            time.sleep(0.2)
        # the workers' own metrics (Dramatiq's Prometheus middleware): the Divan it resolved
        resolver = _metrics(metrics_port).text
        assert 'dramatiq_messages_total{actor_name="resolve_divan",queue_name="divans"} 1.0' in (
            resolver
        ), resolver
        assert "dramatiq_message_duration_milliseconds_bucket" in resolver
        # the projections worker serves its metrics too; it took no message for this Divan (the
        # store's NOTIFY wakes it, ADR-112), so none of Dramatiq's message counters is there yet
        projections = _metrics(metrics_port + 1)
        assert projections.status_code == 200, projections.text
        assert "dramatiq_messages_total" not in projections.text, projections.text
        # a token where it must never be: in a query string (refused, and never logged)
        refused = httpx.get(f"{url}/me?token={season['token']}", timeout=10)
        assert refused.status_code == 400, refused.text
        # Ctrl-C and a SIGTERM at once (issue 20, item 3): one stop, SIGTERM to each role once
        stack.proc.send_signal(signal.SIGINT)
        stack.proc.send_signal(signal.SIGTERM)
        code = stack.proc.wait(timeout=60)
    roles = {pid for pids in _started(log).values() for pid in pids}
    assert len(roles) == 5  # the API, resolver, scheduler, projections, notify
    _poll(lambda: alive_in_groups(roles) == [], "every role's group empty")
    text = log.read_text()
    assert code == 0, text
    assert "Killing worker process" not in text, text
    assert text.count("Worker has been shut down") >= 2, text  # the resolver and projections
    # the browser client's address, or that it is not built (issue 22), warned of first (ADR-167)
    assert any(line.startswith("Oyun:       ") for line in text.splitlines()), text
    warned = text.startswith("Uyarı: tarayıcı istemcisi derlenmemiş")
    assert warned != (REPO / "web" / "dist" / "index.html").is_file(), text[:400]
    records = [json.loads(line) for line in text.splitlines() if line and not for_people(line)]
    loggers = {r.get("logger") for r in records}
    assert {"uvicorn.error", "dramatiq.MainProcess", "seksenbir.access"} <= loggers, loggers
    assert any(r["event"].startswith("Dramatiq ") for r in records)  # "… is booting up"
    assert any(r["event"] == "command.accepted" for r in records)  # the API's own events
    assert any(r.get("actor_name") == "resolve_divan" or "resolver" in r["event"] for r in records)
    access = [
        (r["method"], r["path"], r["status"]) for r in records if r.get("event") == "http.request"
    ]
    assert ("POST", "/v1/seasons", 201) in access
    assert ("POST", "/v1/seasons/{season_id}/divans", 202) in access
    assert season["token"].rsplit(".", 1)[1] not in text


PEOPLE = (
    "Uyarı: ",
    "PostgreSQL: ",
    "Redis:      ",
    "API:        ",
    "Oyun:       ",
    "İşçiler:    ",
    "Ölçümler:   ",
    "     ",
)


def for_people(line: str) -> bool:
    """The launcher's own summary for a person at a terminal (entrypoints.stack.up)."""
    return line.startswith(PEOPLE)


def _records(log: Path) -> list[dict[str, Any]]:
    """The JSON lines of `up`'s output (its own and its roles')."""
    out = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
    return out


def _started(log: Path) -> dict[str, list[int]]:
    """Each role's pids, in the order `up` started them."""
    by_role: dict[str, list[int]] = {}
    for r in _records(log):
        if r.get("event") == "up.role_started":
            by_role.setdefault(r["role"], []).append(r["pid"])
    return by_role


def _metrics(port: int) -> httpx.Response:
    """A worker's metrics page once its exposition server listens: Dramatiq's Prometheus
    middleware serves it from a process of its own, forked beside the worker processes, which
    under load may start listening after the workers have done their work."""

    def answer() -> httpx.Response | None:
        with contextlib.suppress(httpx.ConnectError):
            return httpx.get(f"http://127.0.0.1:{port}/", timeout=10)
        return None

    response: httpx.Response = _poll(answer, f"the metrics server on port {port}")
    return response


def _answers(base: str) -> bool:
    with contextlib.suppress(httpx.HTTPError):
        return httpx.get(f"{base}/health", timeout=2).status_code == 200
    return False


def _resolve_a_trial_divan(base: str) -> None:
    created = httpx.post(f"{base}/v1/seasons", json={"memleket": 6}, timeout=10)
    assert created.status_code == 201, created.text
    season = created.json()
    url = f"{base}/v1/seasons/{season['season_id']}"
    auth = {"Authorization": f"Bearer {season['token']}"}
    asked = httpx.post(f"{url}/divans", json={"divan": 1}, headers=auth, timeout=10)
    assert asked.status_code == 202, asked.text

    def resolved() -> bool:
        summary = httpx.get(f"{url}/summary", timeout=10)
        return summary.status_code == 200 and summary.json()["status"]["divan"] == 1

    _poll(resolved, "Divan 1 resolved")


def _poll(check: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
    return result


def test_make_run_restarts_a_killed_worker_while_the_api_serves_and_stops_on_its_groups_sigterm(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
) -> None:
    """Issue 20, items 2 and 3, the README's way: `make run`, a Dramatiq worker process of the
    resolver killed with kill -9 (its main process then exits, as Dramatiq does): `up` restarts
    the resolver role (logged with pid, exit code, attempt, delay), the API answers all along
    and the other roles are untouched, and a trial Divan requested afterwards is resolved.
    Then SIGTERM to make's process group (make forwards its own to `up`, which gets two):
    every role and every process of its group is gone, none left under PID 1 (RELIABILITY 14)."""
    port = free_port()
    log = tmp_path / "up.log"
    env = {
        **os.environ,
        "SEKSENBIR_PG_DSN": migrated_pg_dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,
        "SEKSENBIR_BROKER_NAMESPACE": f"test-up-{secrets.token_hex(4)}",
        "SEKSENBIR_PROJECTION_PREFIX": f"up{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
    }
    base = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        make = subprocess.Popen(
            ["make", "-s", "run", f"PORT={port}"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # `setsid make run`: its own group, stopped as one below
        )
    roles: set[int] = set()

    def started() -> dict[str, list[int]]:
        return _started(log)

    def health() -> bool:
        return _answers(base)

    try:
        _poll(lambda: len(started()) == 5 and health(), "the stack serving")
        first = started()
        roles |= {pid for pids in first.values() for pid in pids}
        [resolver] = first["resolver"]
        # `up` runs SEKSENBIR_RESOLVER_PROCESSES (2) worker processes: one killed ends the role
        worker, *_ = _poll(lambda: children(resolver), "the resolver's Dramatiq worker processes")
        os.kill(worker, signal.SIGKILL)

        answers: list[bool] = []

        def restarted() -> list[int]:
            answers.append(health())  # the API keeps serving while the resolver restarts
            again = started()["resolver"][1:]
            return children(again[0]) if again else []

        _poll(restarted, "the resolver restarted with its worker process")
        assert answers and all(answers), answers
        now = started()
        roles |= set(now["resolver"])
        assert {r: p for r, p in now.items() if r != "resolver"} == {
            r: p for r, p in first.items() if r != "resolver"
        }
        [exited] = [r for r in _records(log) if r.get("event") == "up.role_exited"]
        assert exited["role"] == "resolver" and exited["pid"] == resolver, exited
        assert (exited["attempt"], exited["delay_s"]) == (1, 1.0), exited
        assert isinstance(exited["exit_code"], int), exited

        _resolve_a_trial_divan(base)  # by the restarted resolver
        [launcher] = children(make.pid)  # `seksenbir up`, make's child
        os.killpg(make.pid, signal.SIGTERM)  # as `kill -TERM -- -PGID` does
        make.wait(timeout=60)
        _poll(lambda: not Path(f"/proc/{launcher}").exists() or _zombie(launcher), "up exits")
        _poll(lambda: alive_in_groups(roles) == [], "every role's group empty")
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        for pid, _ in alive_in_groups(roles):  # never leave a role behind a failed test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    text = log.read_text(errors="replace")
    stopped = [r for r in _records(log) if r.get("event") == "up.role_stopped"]
    assert sorted(r["role"] for r in stopped) == [
        "api",
        "notify",
        "projections",
        "resolver",
        "scheduler",
    ]
    assert "KeyboardInterrupt" not in text and "Killing worker process" not in text, text


def _zombie(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    return True
