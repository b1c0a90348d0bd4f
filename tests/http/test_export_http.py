"""`GET /v1/ops/seasons/{id}/export`: the season as seksenbir-export/1 NDJSON, for ops only
(docs/export.md; R-14: it holds the seed and every bey's orders)."""

from __future__ import annotations

import json

import msgspec

from shared.app.export import check, export_lines, parse
from shared.eventstore import InMemoryEventStore
from tests.audit.support import store_season
from tests.http.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    Api,
    assert_problem,
    bearer,
    create_trial,
    play_divans,
)


async def test_ops_get_the_same_bytes_as_the_cli_and_they_verify(memory_api: Api) -> None:
    await store_season(memory_api.store, "exported", 3, live=True, divans=2)
    r = await memory_api.client.get("/v1/ops/seasons/exported/export", headers=bearer(OPS_TOKEN))
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    records = await memory_api.store.read_stream("exported")
    assert r.content == b"".join(export_lines("exported", records, records[-1].hash))
    assert json.loads(r.content.splitlines()[0])["format"] == "seksenbir-export/1"
    verdict = check(parse(r.content.splitlines()))
    assert verdict.ok and verdict.state is not None and verdict.state.divan == 2


async def test_a_trial_season_played_over_http_exports_and_verifies(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    await play_divans(memory_api, bey, 2)
    r = await memory_api.client.get(
        f"/v1/ops/seasons/{bey.season_id}/export", headers=bearer(OPS_TOKEN)
    )
    assert r.status_code == 200, r.text
    verdict = check(parse(r.content.splitlines()))
    assert verdict.ok, verdict.as_json(True)


async def test_only_ops_may_export_and_an_unknown_season_is_404(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    url = f"/v1/ops/seasons/{bey.season_id}/export"
    assert_problem(await memory_api.client.get(url), 401, "missing_token")
    assert_problem(
        await memory_api.client.get(url, headers=bearer(AUDITOR_TOKEN)), 403, "forbidden"
    )
    assert_problem(await memory_api.client.get(url, headers=bearer(bey.token)), 403, "forbidden")
    assert_problem(
        await memory_api.client.get("/v1/ops/seasons/nobody/export", headers=bearer(OPS_TOKEN)),
        404,
        "season_not_found",
    )


async def test_a_season_whose_stored_chain_fails_is_409_chain_broken(memory_api: Api) -> None:
    await store_season(memory_api.store, "tampered", 3, divans=1)
    store = memory_api.store
    assert isinstance(store, InMemoryEventStore)
    stream = store._streams["tampered"]  # what a write behind the store's back leaves
    stream[2] = msgspec.structs.replace(stream[2], data=stream[2].data.replace(b"1", b"2", 1))
    r = await memory_api.client.get("/v1/ops/seasons/tampered/export", headers=bearer(OPS_TOKEN))
    body = assert_problem(r, 409, "chain_broken")
    assert "version 3" in body["detail"] and "seksenbir verify tampered" in body["detail"]
