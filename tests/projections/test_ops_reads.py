"""The server's own audit trail (issue 13, ADR-53): every ops read of secret data (R-14) is
recorded durably in PostgreSQL, in a stream of its own, before the secret is returned."""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.access.tokens import token_hash
from shared.eventstore import EventStore, InMemoryEventStore, PostgresEventStore, StoreBusyError
from tests.projections.pact_season import create_live, pact_and_betrayal
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway

SECRET_READS = ("orders/1", "battles/1", "audit/betrayals")


def _paths(season_id: str) -> list[str]:
    s = f"/v1/seasons/{season_id}"
    return [
        *(f"{s}/{what}" for what in SECRET_READS),
        f"/v1/ops/seasons/{season_id}/beys/1",
        f"/v1/ops/seasons/{season_id}/export",
        # the same full export (the seed, every order) on the auditors' path, with ops' token:
        # it was answered unrecorded (found by an outside attack on the ops-read trail)
        f"/v1/seasons/{season_id}/export",
    ]


async def _visible(client: Any, season_id: str) -> dict[str, Any]:
    """What a season shows: its status (version, ETag) and its summary read model's version."""
    status = await client.get(f"/v1/seasons/{season_id}")
    summary = await client.get(f"/v1/seasons/{season_id}/summary")
    assert status.status_code == summary.status_code == 200, (status.text, summary.text)
    return {
        "status": status.json(),
        "status_etag": status.headers["etag"],
        "summary_version": summary.json()["version"],
        "summary_etag": summary.headers["etag"],
    }


async def test_r14_an_ops_read_is_recorded_in_postgres_moves_no_season_and_survives_a_flush(
    event_store: PostgresEventStore, wipeable_redis_url: str
) -> None:
    """R-14, ADR-53: ops read orders, battles, the auditors' records, a private view and the
    export; the season's version, ETags and projections do not move; after FLUSHDB of this
    test's own Redis (its own redis-server) the records are still listed for an auditor."""
    store: EventStore = event_store
    redis = aioredis.Redis.from_url(wipeable_redis_url)
    prefix = "ops-reads"
    try:
        async with open_gateway(store, redis, prefix) as (_gw, client):
            live = await create_live(store)
            await pact_and_betrayal(client, store, live)
            await Projector(store, redis, prefix).sweep()
            version = await store.stream_version(live.season_id)
            before = await _visible(client, live.season_id)
            for path in _paths(live.season_id):
                r = await client.get(path, headers=bearer(OPS_TOKEN))
                assert r.status_code == 200, (path, r.text)
            assert await store.stream_version(live.season_id) == version
            assert await _visible(client, live.season_id) == before
            await redis.flushdb()  # the test's own server: nobody else's data
            r = await client.get(
                f"/v1/seasons/{live.season_id}/audit/ops-reads", headers=bearer(AUDITOR_TOKEN)
            )
            assert r.status_code == 200, r.text
            body = r.json()
            whats = [*SECRET_READS, "beys/1", "export", "export"]
            assert [x["what"] for x in body["reads"]] == whats
            r = await client.get(
                f"/v1/seasons/{live.season_id}/export", headers=bearer(AUDITOR_TOKEN)
            )
            assert r.status_code == 200, r.text  # an auditor's redacted one is not an ops read
            r = await client.get(
                f"/v1/seasons/{live.season_id}/audit/ops-reads", headers=bearer(AUDITOR_TOKEN)
            )
            assert [x["what"] for x in r.json()["reads"]] == whats
            assert {x["actor"] for x in body["reads"]} == {token_hash(OPS_TOKEN)[:12]}
            assert body["next_after"] is None
            assert await store.stream_version(live.season_id) == version
    finally:
        await redis.aclose()


class _FailingReads:
    """An ops-read trail whose writes fail, as PostgreSQL does when it is unreachable."""

    def __init__(self) -> None:
        self.tries = 0

    async def record(self, season_id: str, what: str, actor: str) -> Any:
        self.tries += 1
        raise StoreBusyError("the database is away")

    async def list(self, season_id: str, *, after: int = 0, limit: int = 100) -> list[Any]:
        return []


async def test_r14_a_secret_read_whose_record_fails_is_refused_with_503(
    memory_store: InMemoryEventStore,
    redis: aioredis.Redis,
    prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ADR-53: no record, no secret: each ops read answers 503 `audit_unavailable` with
    Retry-After, and the answer holds nothing of the season (no orders, no seed)."""
    failing = _FailingReads()
    monkeypatch.setattr(InMemoryEventStore, "ops_reads", property(lambda _self: failing))
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        await Projector(memory_store, redis, prefix).sweep()
        for path in _paths(live.season_id):
            r = await client.get(path, headers=bearer(OPS_TOKEN))
            assert r.status_code == 503, (path, r.text)
            assert r.json()["code"] == "audit_unavailable"
            assert r.headers["retry-after"] == "1"
            assert "orders" not in r.json() and "seed" not in r.text
        assert failing.tries == len(_paths(live.season_id))


async def test_r14_only_staff_list_a_seasons_ops_reads_page_by_page(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """The trail is for auditors and ops: 401 without a token, 403 for a bey's, 404 for a
    season that does not exist; `limit` and `after` page through it in order."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
        await Projector(memory_store, redis, prefix).sweep()
        for what in ("orders/1", "battles/1"):
            r = await client.get(f"{live.url()}/{what}", headers=bearer(OPS_TOKEN))
            assert r.status_code == 200
        url = f"{live.url()}/audit/ops-reads"
        assert (await client.get(url)).json()["code"] == "missing_token"
        bey = await client.get(url, headers=bearer(live.tokens[1]))
        assert (bey.status_code, bey.json()["code"]) == (403, "forbidden")
        missing = await client.get(
            "/v1/seasons/ffffffffffffffffffffffffffffffff/audit/ops-reads",
            headers=bearer(AUDITOR_TOKEN),
        )
        assert (missing.status_code, missing.json()["code"]) == (404, "season_not_found")
        first = (await client.get(f"{url}?limit=1", headers=bearer(AUDITOR_TOKEN))).json()
        assert [r["what"] for r in first["reads"]] == ["orders/1"]
        assert first["next_after"] == first["reads"][0]["id"]
        rest = await client.get(f"{url}?after={first['next_after']}", headers=bearer(OPS_TOKEN))
        assert [r["what"] for r in rest.json()["reads"]] == ["battles/1"]
        assert rest.json()["next_after"] is None
        bad = await client.get(f"{url}?limit=0", headers=bearer(AUDITOR_TOKEN))
        assert (bad.status_code, bad.json()["code"]) == (422, "invalid_parameter")
