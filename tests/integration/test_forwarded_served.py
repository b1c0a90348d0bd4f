"""Issue 9 item 8 (c), as deployed: `seksenbir serve` and `seksenbir up` (real uvicorn).

Behind uvicorn's defaults (proxy headers on, FORWARDED_ALLOW_IPS 127.0.0.1) a client on
127.0.0.1 named a new address in X-Forwarded-For with every request and never met the
failed-token limit. Both commands now leave addresses to the app, which trusts forwarded
headers only from SEKSENBIR_TRUSTED_PROXIES (none by default).
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import httpx
import pytest

from tests.integration.processes import free_port, serving

pytestmark = pytest.mark.integration
LIMIT = 5


def _env(dsn: str, redis_url: str, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        **os.environ,
        "SEKSENBIR_PG_DSN": dsn,
        "SEKSENBIR_REDIS_URL": redis_url,
        "SEKSENBIR_READ_REDIS_URL": redis_url,  # this session's own db, not the next one
        "SEKSENBIR_BROKER_NAMESPACE": f"test-fwd-{secrets.token_hex(4)}",
        "SEKSENBIR_DATA": str(tmp_path / "data"),
        "SEKSENBIR_AUTH_FAILURES_PER_MINUTE": str(LIMIT),
        **extra,
    }


def _statuses(base: str, forwarded: list[str]) -> list[int]:
    created = httpx.post(f"{base}/v1/seasons", json={"memleket": 6}, timeout=10)
    assert created.status_code == 201, created.text
    season = created.json()
    out = []
    for address in forwarded:
        token = f"sb1.{season['season_id']}.{season['seat']}.{secrets.token_urlsafe(24)}"
        headers = {"Authorization": f"Bearer {token}", "X-Forwarded-For": address}
        r = httpx.get(f"{base}/v1/seasons/{season['season_id']}/me", headers=headers, timeout=10)
        out.append(r.status_code)
    return out


@pytest.mark.parametrize("command", ["serve", "up"])
def test_a_local_client_cannot_rotate_x_forwarded_for_past_the_limit(
    command: str, migrated_pg_dsn: str, redis_url: str, tmp_path: Path
):
    port = free_port()
    env = _env(migrated_pg_dsn, redis_url, tmp_path)
    with serving([command, "--port", str(port)], env, tmp_path / f"{command}.log", port) as api:
        rotated = [f"203.0.113.{n}" for n in range(LIMIT + 3)]
        assert _statuses(api.base, rotated) == [401] * LIMIT + [429] * 3, api.output()


def test_behind_a_configured_proxy_forwarded_clients_have_their_own_budgets(
    migrated_pg_dsn: str, redis_url: str, tmp_path: Path
):
    port = free_port()
    env = _env(migrated_pg_dsn, redis_url, tmp_path, SEKSENBIR_TRUSTED_PROXIES="127.0.0.1")
    with serving(["serve", "--port", str(port)], env, tmp_path / "serve.log", port) as api:
        one = _statuses(api.base, ["203.0.113.1"] * (LIMIT + 1))
        two = _statuses(api.base, ["203.0.113.2"] * (LIMIT + 1))
        assert one == two == [401] * LIMIT + [429], api.output()
