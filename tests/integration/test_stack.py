"""`seksenbir up` (the README's run command): the whole stack starts, serves, and stops cleanly.

RELIABILITY 14, the graceful half: SIGTERM reaches each process once; Dramatiq's main process
forwards it to its workers, which finish and exit. None is killed.

Issue 11 (one log format): every log line of every process it starts (uvicorn's, Dramatiq's
main and worker processes', the services' own, the access log) is a JSON line; only the
launcher's few lines for people (where PostgreSQL and Redis were found, the URLs) are text.
"""

from __future__ import annotations

import json
import os
import secrets
import time  # noqa: TID251 - waits on a real process, not the domain
from pathlib import Path

import httpx
import pytest

from tests.integration.processes import free_port, serving

pytestmark = [pytest.mark.integration, pytest.mark.fault]


def test_seksenbir_up_serves_a_trial_season_and_stops_on_sigterm(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
):
    port = free_port()
    metrics_port = free_port()  # the resolver's; the projections worker's is the next one
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
        resolver = httpx.get(f"http://127.0.0.1:{metrics_port}/", timeout=10).text
        assert 'dramatiq_messages_total{actor_name="resolve_divan",queue_name="divans"} 1.0' in (
            resolver
        ), resolver
        assert "dramatiq_message_duration_milliseconds_bucket" in resolver
        projections = httpx.get(f"http://127.0.0.1:{metrics_port + 1}/", timeout=10).text
        assert "dramatiq_messages_total" in projections
        # a token where it must never be: in a query string (refused, and never logged)
        refused = httpx.get(f"{url}/me?token={season['token']}", timeout=10)
        assert refused.status_code == 400, refused.text
        code = stack.stop()
    text = log.read_text()
    assert code == 0, text
    assert "Killing worker process" not in text, text
    assert text.count("Worker has been shut down") >= 2, text  # the resolver and projections
    # the browser client's address, or that it is not built (issue 22)
    assert any(line.startswith("Oyun:       ") for line in text.splitlines()), text
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
