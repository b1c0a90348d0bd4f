"""The read side's staff-only endpoints check the token before they read the season (R-14).

The audit view (ops or auditor) and the ops bey view (ops only) refuse a request by its token
alone: a missing, guessed or wrong-role token is answered 401/403 whatever the season, with no
Redis read and no rebuild asked for; a staff token that passes is then answered by the season
read (here 503 `projection_rebuilding`: nothing is projected and no sweep has run).
"""

from __future__ import annotations

import httpx
import pytest

from shared.eventstore import InMemoryEventStore
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway

NO_SEASON = "0" * 32  # the shape of an id the API makes, with no season behind it
AUDIT = f"/v1/seasons/{NO_SEASON}/audit/betrayals"
OPS_BEY = f"/v1/ops/seasons/{NO_SEASON}/beys/1"
GUESS = "sk_ops_" + "0" * 43


def problem(r: httpx.Response, status: int, code: str) -> None:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert r.json()["code"] == code, r.text


@pytest.mark.parametrize(
    ("path", "token", "status"),
    [
        (AUDIT, None, 401),
        (AUDIT, GUESS, 401),
        (OPS_BEY, None, 401),
        (OPS_BEY, GUESS, 401),
        (OPS_BEY, AUDITOR_TOKEN, 403),
    ],
)
async def test_r14_staff_endpoints_refuse_by_token_before_reading_the_season(
    memory_store: InMemoryEventStore, redis, prefix, path: str, token: str | None, status: int
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        r = await client.get(path, headers=bearer(token))
        assert r.status_code == status, r.text
        assert r.headers["content-type"].startswith("application/problem+json")
        assert gw.rebuilds == []  # refused on the token: the season was never looked up


@pytest.mark.parametrize(
    ("path", "token"), [(AUDIT, AUDITOR_TOKEN), (AUDIT, OPS_TOKEN), (OPS_BEY, OPS_TOKEN)]
)
async def test_r14_a_staff_token_that_passes_is_answered_by_the_season_read(
    memory_store: InMemoryEventStore, redis, prefix, path: str, token: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        r = await client.get(path, headers=bearer(token))
        problem(r, 503, "projection_rebuilding")
        assert gw.rebuilds == [NO_SEASON]
