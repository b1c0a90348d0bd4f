"""`GET /v1/ops/seasons/{id}/export`: the season as seksenbir-export/2 NDJSON, for ops only
(docs/export.md; R-14: it holds the seed and every bey's orders); `GET /v1/seasons/{id}/export`:
ops in full, auditors redacted while the season is not over (R-14), everyone after the Kurultay.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import msgspec

from shared.app.ops.export import export_lines
from shared.app.ops.export_check import check
from shared.app.ops.export_lists import hidden_from_auditors
from shared.app.ops.export_read import parse
from shared.domain import codec
from shared.domain import events as ev
from shared.eventstore import InMemoryEventStore, NewEvent
from tests.audit.support import SYSTEM, store_season
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
    assert json.loads(r.content.splitlines()[0])["format"] == "seksenbir-export/2"
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


async def test_r14_an_auditor_export_during_a_season_leaves_out_what_r14_hides(
    memory_api: Api,
) -> None:
    """R-14: during the season an auditor's export has no orders, missions, gold, seed or
    private reports; each left-out event keeps its data digest, so the chain is still proven
    (ADR-52), and the check says the Divans need a full export to be re-run."""
    await store_season(memory_api.store, "running", 3, live=True, divans=2)
    url = "/v1/seasons/running/export"
    r = await memory_api.client.get(url, headers=bearer(AUDITOR_TOKEN))
    assert r.status_code == 200, r.text
    lines = [json.loads(x) for x in r.content.splitlines()]
    records = await memory_api.store.read_stream("running")
    hidden = [x for x in lines[1:] if x.get("redacted")]
    assert lines[0]["redacted"] == {"rule": "R-14", "events": len(hidden)}
    assert {x["type"] for x in hidden} >= {
        "season_created.v1",
        "registration_closed.v1",
        "divan_locked.v1",
        "orders_submitted.v1",
        "production_applied.v1",
        "divan_resolved.v1",
    }
    assert all("data" not in x and len(x["data_digest"]) == 64 for x in hidden)
    assert all(not hidden_from_auditors(x["type"]) for x in lines[1:] if "data" in x)
    created = msgspec.json.decode(records[0].data)
    for secret in (f'"seed":{created["seed"]}', '"seed_salt"', '"missions"', '"orders"'):
        assert secret.encode() not in r.content, secret
    verdict = check(parse(r.content.splitlines()))
    assert verdict.ok and not verdict.complete
    assert verdict.hash_chain == "ok" and verdict.head == records[-1].hash.hex()
    assert verdict.redacted == len(hidden)
    assert verdict.replay.startswith("not run: a redacted export (R-14)")
    assert "needs a full export" in verdict.replay

    full = await memory_api.client.get(url, headers=bearer(OPS_TOKEN))
    assert full.content == b"".join(export_lines("running", records, records[-1].hash))
    assert check(parse(full.content.splitlines())).complete


async def test_r14_a_redacted_export_with_a_forged_digest_or_payload_fails(memory_api: Api) -> None:
    """The digests a redacted export keeps are what the chain covers: changing one breaks it."""
    await store_season(memory_api.store, "running", 3, live=True, divans=1)
    r = await memory_api.client.get("/v1/seasons/running/export", headers=bearer(AUDITOR_TOKEN))
    lines = [json.loads(x) for x in r.content.splitlines()]
    i = next(n for n, x in enumerate(lines) if n and x.get("redacted"))
    lines[i]["data_digest"] = "00" * 32
    verdict = check(parse([json.dumps(x) for x in lines]))
    assert not verdict.ok
    assert verdict.first_bad is not None and verdict.first_bad.version == lines[i]["version"]


async def test_r14_after_the_kurultay_everyone_gets_the_full_export(memory_api: Api) -> None:
    """R-14: after the Kurultay everything is public: no token, or an auditor's, gets it all."""
    await store_season(memory_api.store, "over", 4, live=True)
    records = await memory_api.store.read_stream("over")
    whole = b"".join(export_lines("over", records, records[-1].hash))
    for headers in ({}, bearer(AUDITOR_TOKEN)):
        r = await memory_api.client.get("/v1/seasons/over/export", headers=headers)
        assert r.status_code == 200, r.text
        assert r.content == whole
    verdict = check(parse(whole.splitlines()))
    assert verdict.ok and verdict.complete and verdict.seed_commitment.startswith("ok")


async def test_r14_during_a_season_the_export_needs_a_staff_token(memory_api: Api) -> None:
    bey = await create_trial(memory_api.client)
    url = f"/v1/seasons/{bey.season_id}/export"
    assert_problem(await memory_api.client.get(url), 401, "missing_token")
    assert_problem(await memory_api.client.get(url, headers=bearer(bey.token)), 403, "forbidden")
    assert_problem(
        await memory_api.client.get("/v1/seasons/nobody/export", headers=bearer(AUDITOR_TOKEN)),
        404,
        "season_not_found",
    )


async def test_an_export_of_a_season_appended_to_while_it_is_read_is_one_snapshot(
    memory_api: Api,
) -> None:
    """A season is appended to while its export is read (a Divan resolving, orders arriving):
    the file must be one snapshot, its header's head the hash of its last event. Found over
    HTTP on a running stack: 7 of 50 exports taken during a season failed `seksenbir verify`
    ("the chain ends at …, the header's head is …"), because the events and the head were two
    reads. Here an append lands after every read the export makes of the store."""
    await store_season(memory_api.store, "busy", 3, live=True, divans=2)
    store = memory_api.store
    appended: list[int] = []

    def after(read: Any) -> Any:
        async def wrapped(*args: Any, **kwargs: Any) -> Any:
            out = await read(*args, **kwargs)
            version = await store.stream_version("busy")
            event = ev.DivanRequested(divan=3)
            new = NewEvent(
                event_id=UUID(int=10_000 + version),
                type=codec.event_type(event),
                data=codec.encode(event),
                metadata=SYSTEM,
            )
            await store.append("busy", version, [new])
            appended.append(version + 1)
            return out

        return wrapped

    for name in ("read_stream", "read_with_head", "verify_chain", "chain_version"):
        if hasattr(store, name):
            setattr(store, name, after(getattr(store, name)))
    for url, token in (
        ("/v1/ops/seasons/busy/export", OPS_TOKEN),
        ("/v1/seasons/busy/export", OPS_TOKEN),
        ("/v1/seasons/busy/export", AUDITOR_TOKEN),
    ):
        r = await memory_api.client.get(url, headers=bearer(token))
        assert r.status_code == 200, r.text
        verdict = check(parse(r.content.splitlines()))
        assert verdict.hash_chain == "ok", verdict.as_json(True)
        assert verdict.ok, verdict.as_json(True)
    assert appended  # the season did move on under the reads


async def test_explain_what_if_and_fork_of_a_season_with_an_undecodable_event_are_409(
    memory_api: Api,
) -> None:
    """An event no reader decodes (written behind the store's back, or by a newer build rolled
    back): the ops audit tools answered 500 `internal`; now 409 `chain_broken` naming the
    version, as the export answers, so `seksenbir verify` is the next step."""
    await store_season(memory_api.store, "corrupt", 3, divans=2)
    store = memory_api.store
    assert isinstance(store, InMemoryEventStore)
    stream = store._streams["corrupt"]  # what a write behind the store's back leaves
    i = next(k for k, r in enumerate(stream) if r.type == "battles_resolved.v1")
    stream[i] = msgspec.structs.replace(stream[i], data=b'{"type":"evil_thing.v1"}')
    ops = bearer(OPS_TOKEN)
    client = memory_api.client
    for r in (
        await client.get("/v1/ops/seasons/corrupt/divans/1/explain", headers=ops),
        await client.post(
            "/v1/ops/seasons/corrupt/divans/1/what-if", headers=ops, json={"orders": [], "dice": []}
        ),
        await client.post("/v1/seasons/corrupt/fork", headers=ops, json={"divan": 1, "seat": 1}),
    ):
        body = assert_problem(r, 409, "chain_broken")
        assert f"version {stream[i].version}" in body["detail"], body


async def test_a_command_or_the_status_of_a_season_with_an_undecodable_event_is_409(
    memory_api: Api,
) -> None:
    """The same stored event that does not decode, read by the status and a bey's command:
    both answered 500 `internal`; now 409 `chain_broken` naming the version, as the export
    and the ops tools answer."""
    bey = await create_trial(memory_api.client)
    store = memory_api.store
    assert isinstance(store, InMemoryEventStore)
    stream = store._streams[bey.season_id]
    stream[-1] = msgspec.structs.replace(stream[-1], data=b'{"type":"evil_thing.v1"}')
    version = stream[-1].version
    client = memory_api.client
    for r in (
        await client.get(f"/v1/seasons/{bey.season_id}"),
        await client.post(bey.url("/orders"), json={"orders": []}, headers=bey.auth()),
    ):
        body = assert_problem(r, 409, "chain_broken")
        assert f"version {version}" in body["detail"], body
