"""The access log (issue 11, "Running it"): one JSON line per request in the one log format,
with method, route template, status, duration and season id, and never a token, an
Idempotency-Key, a query string or a body (brief: secrets never reach a log)."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
import redis.asyncio as aioredis
import structlog

from services.projections.projector import Projector
from shared import logs
from shared.eventstore import InMemoryEventStore
from shared.logs import access_log, configure_logging
from tests.http.support import bearer, create_trial
from tests.projections.support import open_gateway

IDEMPOTENCY_KEY = "idem-7f3c9a-never-logged"


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """The process's logging configuration as it was before the test."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    access = logging.getLogger(logs.ACCESS_LOGGER)
    propagate, sink = access.propagate, logs._access_sink[:]
    config = structlog.get_config()
    client_log = logging.getLogger("httpx")  # the test client's own request lines: not ours
    client_level = client_log.level
    client_log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        client_log.setLevel(client_level)
        root.handlers[:] = handlers
        root.setLevel(level)
        access.propagate, logs._access_sink[:] = propagate, sink
        structlog.configure(**config)


@pytest.fixture
def log_lines(restore_logging: None) -> io.StringIO:
    """Production's JSON logging into a buffer."""
    out = io.StringIO()
    configure_logging(json=True, level="INFO", file=out)
    return out


def access_lines(out: io.StringIO) -> list[dict[str, Any]]:
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return [r for r in records if r.get("logger") == "seksenbir.access"]


async def test_every_request_gets_one_access_line_without_a_secret(
    log_lines: io.StringIO,
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        bey = await create_trial(client)
        sid = bey.season_id
        orders = {"orders": [{"province": bey.memleket, "kind": "hold"}]}
        headers = {**bearer(bey.token), "Idempotency-Key": IDEMPOTENCY_KEY}
        r = await client.post(f"/v1/seasons/{sid}/orders", json=orders, headers=headers)
        assert r.status_code == 200, r.text
        assert (await client.get(f"/v1/seasons/{sid}/me", headers=bearer(bey.token))).is_success
        await Projector(memory_store, redis, prefix).catch_up(sid)
        assert (await client.get(f"/v1/seasons/{sid}/map")).status_code == 200
        # a token where it must never be, and a path segment that is no season id
        assert (await client.get(f"/v1/seasons/{sid}/me?token={bey.token}")).status_code == 400
        odd = (await client.get(f"/v1/seasons/{bey.token}/map")).status_code
        assert (await client.get("/v1/no-such-route")).status_code == 404
        assert (await client.get("/health")).status_code == 200  # probes are not logged
    lines = access_lines(log_lines)
    assert [(r["method"], r["path"], r["status"], r["season_id"]) for r in lines] == [
        ("POST", "/v1/seasons", 201, None),
        ("POST", "/v1/seasons/{season_id}/orders", 200, sid),
        ("GET", "/v1/seasons/{season_id}/me", 200, sid),
        ("GET", "/v1/seasons/{season_id}/map", 200, sid),
        ("GET", "/v1/seasons/{season_id}/me", 400, sid),
        ("GET", "/v1/seasons/{season_id}/map", odd, None),
        ("GET", "unmatched", 404, None),  # no route: the template is never the raw path
    ]
    for r in lines:
        assert set(r) == {
            "event",
            "logger",
            "level",
            "timestamp",
            "method",
            "path",
            "status",
            "duration_ms",
            "season_id",
        }
        assert (r["event"], r["level"]) == ("http.request", "info")
        assert r["timestamp"].endswith("Z")
        assert isinstance(r["duration_ms"], float) and r["duration_ms"] >= 0
    secret = bey.token.rsplit(".", 1)[1]
    everything = log_lines.getvalue() + capsys.readouterr().err  # every log line of the run
    assert secret not in everything
    assert not [r for r in lines if IDEMPOTENCY_KEY in json.dumps(r) or "?" in r["path"]]


async def test_adr178_no_client_secret_reaches_a_log_line_when_answers_are_made_again(
    log_lines: io.StringIO,
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """ADR-178: the secrets a client brings (a live creation's two, a join's, a rotation's, a
    player's and its rotation's), sent twice each as after a lost answer, appear in no log
    line, the access log's lines keep their fields, and the answers made again log no token."""
    mine = [secrets.token_urlsafe(24) for _ in range(6)]
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = {
            "mode": "live",
            "registration_closes_at": "2027-06-01T12:00:00+03:00",
            "memleket": 6,
            "token_secret": mine[0],
            "admin_secret": mine[1],
        }
        keyed = {"Idempotency-Key": IDEMPOTENCY_KEY}
        for _ in range(2):
            r = await client.post("/v1/seasons", json=live, headers=keyed)
            assert r.status_code == 201, r.text
        sid, creator = r.json()["season_id"], r.json()["creator"]["token"]
        for _ in range(2):
            r = await client.post(
                f"/v1/seasons/{sid}/join", json={"memleket": 34, "token_secret": mine[2]}
            )
            assert r.status_code == 201, r.text
        for _ in range(2):
            r = await client.post(
                f"/v1/seasons/{sid}/token", json={"token_secret": mine[3]}, headers=bearer(creator)
            )
            assert r.status_code == 200, r.text
        for _ in range(2):
            r = await client.post("/v1/players", json={"key_secret": mine[4]}, headers=keyed)
            assert r.status_code == 201, r.text
        player, key = r.json()["player_id"], r.json()["player_key"]
        for _ in range(2):
            r = await client.post(
                f"/v1/players/{player}/key", json={"key_secret": mine[5]}, headers=bearer(key)
            )
            assert r.status_code == 200, r.text
    lines = access_lines(log_lines)
    assert len(lines) == 10
    assert all(set(r) >= {"method", "path", "status"} and "token" not in r for r in lines)
    everything = log_lines.getvalue() + capsys.readouterr().err
    assert "created_again" in everything and "answered_again" in everything
    assert [m for m in mine if m in everything] == []


def test_console_format_prints_the_access_line_as_text(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
):
    """SEKSENBIR_LOG_FORMAT=console: the same fields, as a record of the root handler."""
    configure_logging(json=False)
    access_log("GET", "/v1/seasons/{season_id}/map", 200, 0.0042, "a" * 32)
    err = capsys.readouterr().err
    assert "GET /v1/seasons/{season_id}/map 200 4.2 ms season=" + "a" * 32 in err


def test_uvicorn_keeps_no_access_log_of_its_own_and_its_records_are_json(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
):
    """uvicorn's access log writes the raw path with its query string (where a client may put
    a token): silent whoever started uvicorn; its other records reach the one JSON handler,
    even after uvicorn's CLI gave its loggers text handlers of their own (LOGGING_CONFIG)."""
    from uvicorn.config import LOGGING_CONFIG

    logging.config.dictConfig(LOGGING_CONFIG)  # what `uvicorn …` does before loading the app
    configure_logging(json=True)
    assert not logging.getLogger("uvicorn.access").hasHandlers()
    logging.getLogger("uvicorn.error").info("Uvicorn running on %s", "http://127.0.0.1:1")
    record = json.loads(capsys.readouterr().err)
    assert (record["logger"], record["event"]) == (
        "uvicorn.error",
        "Uvicorn running on http://127.0.0.1:1",
    )


def test_access_lines_go_to_standard_output_by_default(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
):
    """Beside the services' own events; sys.stdout as it is at each write (pytest, Dramatiq's
    worker processes replace it after logging is configured)."""
    configure_logging(json=True)
    access_log("POST", "/v1/seasons", 201, 0.01, None)
    assert json.loads(capsys.readouterr().out)["path"] == "/v1/seasons"
