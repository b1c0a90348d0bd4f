"""R-14, ADR-53 seen from outside: ops explain a Divan of a running live season, re-run it
with what-if, and fork it; each shows every bey's orders of that Divan (explain: every advance
and support; what-if: the outcome of changed orders; a fork: the beys' gold and missions as
they stood). They were only logged (`ops.read`), never recorded in the ops-read trail, so an
auditor's `GET …/audit/ops-reads` showed nothing while the docs promise "no secret is ever
read unrecorded". Each is now recorded before it is answered, and refused 503
`audit_unavailable` when the record cannot be written."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from shared.eventstore import InMemoryEventStore, StoreBusyError
from tests.projections.pact_season import create_live, pact_and_betrayal
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway


def _calls(season_id: str) -> list[tuple[str, str, dict[str, Any] | None, str]]:
    ops = f"/v1/ops/seasons/{season_id}/divans/1"
    return [
        ("get", f"{ops}/explain", None, "divans/1/explain"),
        ("post", f"{ops}/what-if", {"orders": [], "dice": []}, "divans/1/what-if"),
        ("post", f"/v1/seasons/{season_id}/fork", {"divan": 1, "seat": 1}, "fork/1"),
    ]


async def _call(client: Any, method: str, path: str, body: dict[str, Any] | None) -> Any:
    if method == "get":
        return await client.get(path, headers=bearer(OPS_TOKEN))
    return await client.post(path, json=body, headers=bearer(OPS_TOKEN))


async def test_r14_adr53_explain_what_if_and_fork_of_a_running_season_are_recorded(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        for method, path, body, _what in _calls(live.season_id):
            r = await _call(client, method, path, body)
            assert r.status_code in (200, 201), (path, r.text)
        r = await client.get(
            f"/v1/seasons/{live.season_id}/audit/ops-reads", headers=bearer(AUDITOR_TOKEN)
        )
        assert r.status_code == 200, r.text
        assert [x["what"] for x in r.json()["reads"]] == [w for *_, w in _calls(live.season_id)]


class _FailingReads:
    async def record(self, season_id: str, what: str, actor: str) -> Any:
        raise StoreBusyError("the database is away")

    async def list(self, season_id: str, *, after: int = 0, limit: int = 100) -> list[Any]:
        return []


async def test_r14_adr53_no_record_no_explanation_what_if_or_fork(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(InMemoryEventStore, "ops_reads", property(lambda _self: _FailingReads()))
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        for method, path, body, _what in _calls(live.season_id):
            r = await _call(client, method, path, body)
            assert r.status_code == 503, (path, r.text)
            assert r.json()["code"] == "audit_unavailable"
            assert "battles" not in r.json() and "token" not in r.json()
