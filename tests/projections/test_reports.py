"""The read side of reports and records: battles per Divan, the Kurultay report, the seed (R-14)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest
import redis.asyncio as aioredis

from services.projections.keys import Keys
from services.projections.projector import Projector
from services.projections.reducers import Snapshot, project
from services.projections.streamlog import split
from shared.domain import events as ev
from shared.domain.simulate import season
from shared.domain.state import SeasonState
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import (
    ANKARA,
    KIRIKKALE,
    Live,
    create_live,
    hold_kurultay,
    pact_and_betrayal,
    post,
    resolve_live_divan,
)
from tests.projections.support import OPS_TOKEN, bearer, open_gateway

World = tuple[httpx.AsyncClient, Live, Projector]


@pytest.fixture
async def world(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> AsyncIterator[World]:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        yield client, live, Projector(memory_store, redis, prefix)


async def get(client: httpx.AsyncClient, path: str, token: str | None = None) -> httpx.Response:
    return await client.get(path, headers=bearer(token))


async def test_r1_1_battles_of_a_divan_that_does_not_exist_yet_are_404(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await pact_and_betrayal(client, memory_store, live)  # Divan 1 resolved
    await projector.sweep()
    a = live.tokens[1]
    assert (await get(client, live.url("/battles/1"), a)).status_code == 200
    for divan in (0, -1, 2, 17):
        for token in (a, OPS_TOKEN):
            r = await get(client, live.url(f"/battles/{divan}"), token)
            assert r.status_code == 404, (divan, r.text)
            assert r.json()["code"] == "divan_not_found"
    while await resolve_live_divan(memory_store, live.season_id) < 16:
        pass
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()
    assert (await get(client, live.url("/battles/16"))).status_code == 200
    for divan in (0, 17):
        r = await get(client, live.url(f"/battles/{divan}"))
        assert (r.status_code, r.json()["code"]) == (404, "divan_not_found")


async def finish(memory_store: InMemoryEventStore, live: Live, projector: Projector) -> None:
    """Every Divan up to 16, then the Kurultay (with the seed revealed), projected."""
    while await resolve_live_divan(memory_store, live.season_id) < 16:
        pass
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()


async def test_r1_5_the_summary_reveals_seed_and_salt_that_check_the_commitment(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await projector.sweep()
    during = (await get(client, live.url("/summary"))).json()["status"]
    assert (during["seed"], during["seed_salt"]) == (None, None)
    await finish(memory_store, live, projector)
    status = (await get(client, live.url("/summary"))).json()["status"]
    assert (status["seed"], status["seed_salt"]) == ("7", "salt")
    check = hashlib.sha256(f"{status['seed_salt']}:{status['seed']}".encode()).hexdigest()
    assert check == status["seed_commitment"]


def kinds(report: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [line for line in report["lines"] if line["kind"] == kind]


async def private_report(client: httpx.AsyncClient, live: Live, seat: int, divan: int) -> Any:
    r = await get(client, live.url("/private"), live.tokens[seat])
    assert r.status_code == 200, r.text
    return next(rep for rep in r.json()["reports"] if rep["divan"] == divan)


async def test_r14_offer_outcomes_and_cancelled_orders_reach_only_their_beys(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="pact")
    await post(client, live, 2, "/offers/1/answer", {"answer": "accept"})
    await post(client, live, 1, "/offers", {"to": 3, "kind": "alliance"}, key="ally-3")
    assert await resolve_live_divan(memory_store, live.season_id) == 1
    await post(client, live, 1, "/offers", {"to": 2, "kind": "alliance"}, key="alliance")
    await post(client, live, 2, "/offers/1/answer", {"answer": "accept"})
    advance = {"province": ANKARA, "kind": "advance", "target": KIRIKKALE, "units": 2}
    await post(client, live, 1, "/orders", {"divan": 2, "orders": [advance]})
    assert await resolve_live_divan(memory_store, live.season_id) == 2
    await projector.sweep()
    a1, b1 = await private_report(client, live, 1, 1), await private_report(client, live, 2, 1)
    to_b = [x["data"] for x in kinds(a1, "offer") if x["data"]["partner"] == 2]
    assert [(d["treaty"], d["outcome"]) for d in to_b] == [("pact", "accepted")]
    assert [x["data"]["partner"] for x in kinds(b1, "offer")] == [1]  # not A's offer to bey 3
    to_3 = [x["data"] for x in kinds(a1, "offer") if x["data"]["partner"] == 3]
    assert [d["outcome"] for d in to_3] in (["accepted"], ["rejected"])
    public = (await get(client, live.url("/reports"))).json()["reports"]
    first = next(rep for rep in public if rep["divan"] == 1)
    assert {"treaty": "pact", "a": 1, "b": 2, "through_divan": 2} in [
        x["data"] for x in kinds(first, "treaty")
    ]
    assert all(rep["kind"] == "divan" for rep in public)
    assert not [
        x for rep in public for x in rep["lines"] if x["kind"] in ("offer", "order_cancelled")
    ]
    # Divan 2: A's advance into its new ally's Kırıkkale is cancelled, told to A only
    a2, b2 = await private_report(client, live, 1, 2), await private_report(client, live, 2, 2)
    (cancelled,) = kinds(a2, "order_cancelled")
    assert cancelled["data"] == {
        "province": ANKARA,
        "target": KIRIKKALE,
        "order": "advance",
        "units": 2,
        "reason": "ally",
        "rule": "R-6.4",
        "owner": 2,
    }
    assert "R-6.4" in cancelled["tr"]
    assert "R-6.4" in cancelled["en"]
    assert kinds(b2, "order_cancelled") == []


async def test_r10_4_the_kurultay_report_is_served_with_the_divan_reports(
    world: World, memory_store: InMemoryEventStore
) -> None:
    client, live, projector = world
    await pact_and_betrayal(client, memory_store, live)
    while await resolve_live_divan(memory_store, live.season_id) < 16:
        pass
    await post(client, live, 1, "/kurultay/vote", {"candidate": 2})
    await projector.sweep()
    during = (await get(client, live.url("/reports"))).json()["reports"]
    assert [rep["kind"] for rep in during] == ["divan"] * 16  # votes are secret until it is held
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()
    reports = (await get(client, live.url("/reports"))).json()["reports"]
    assert [rep["divan"] for rep in reports] == [*range(1, 17), None]
    final = reports[-1]
    assert final["kind"] == "kurultay"
    votes = {x["data"]["seat"]: x["data"]["candidate"] for x in kinds(final, "vote")}
    assert votes[1] == 2
    assert sorted(votes) == [1, *range(3, 20)]  # bey 2, a human, did not vote
    kurultay = (await get(client, live.url("/leaderboard"))).json()["leaderboard"]
    assert [(x["data"]["seat"], x["data"]["score"]) for x in kinds(final, "score")] == [
        (row["seat"], row["score"]) for row in kurultay
    ]
    (han,) = kinds(final, "han")
    assert han["data"]["seat"] == (await get(client, live.url())).json()["han"]
    loved = [x["data"]["seat"] for x in kinds(final, "halk_sevgisi")]
    assert loved == sorted(row["seat"] for row in kurultay if row["halk_sevgisi"])
    for line in final["lines"]:
        assert line["tr"]
        assert line["en"]


def test_r10_4_the_kurultay_report_is_announced_before_season_over() -> None:
    """The public stream says `kurultay_report` (fetch GET /reports), then `season_over`."""
    held = next(e for step in season(3) for e in step.events if isinstance(e, ev.KurultayHeld))
    keys = Keys("sb", "announce", 1)
    ops, _snap = project(keys, Snapshot(), SeasonState(), [held], 1, live=True)
    published = [split(op[2]) for op in ops if op[0] == "PUBLISH"]
    assert [msgspec.json.decode(data)["type"] for _s, _id, data in published] == [
        "kurultay_report",
        "season_over",
    ]
    assert [message_id for _s, message_id, _d in published] == ["1-0", "1-1"]  # the version
    (stored,) = [op for op in ops if op[:3] == ("HSET", keys.reports, "kurultay")]
    assert [line["kind"] for line in msgspec.json.decode(stored[3])][-1] == "han"


async def test_report_lines_come_in_the_language_asked_for(
    world: World, memory_store: InMemoryEventStore
) -> None:
    """R-13, R-14, issue 11 (docs/api.md Language): every public and private report line keeps
    `tr` and `en` and adds `text` in the language asked for (Accept-Language or `?lang=`); the
    answer says which, and its ETag differs by language."""
    client, live, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await projector.sweep()
    a = live.tokens[1]
    for path, token in ((live.url("/reports"), None), (live.url("/private"), a)):
        tr = await client.get(path, headers=bearer(token))
        en = await client.get(path, headers={**bearer(token), "Accept-Language": "en"})
        linked = await client.get(path + "?lang=en", headers=bearer(token))
        assert tr.status_code == en.status_code == linked.status_code == 200, tr.text
        assert (tr.headers["content-language"], en.headers["content-language"]) == ("tr", "en")
        assert "accept-language" in en.headers["vary"].lower()
        assert tr.headers["etag"] != en.headers["etag"]
        lines_tr = [line for rep in tr.json()["reports"] for line in rep["lines"]]
        lines_en = [line for rep in en.json()["reports"] for line in rep["lines"]]
        assert lines_tr, path
        assert [line["text"] for line in lines_tr] == [line["tr"] for line in lines_tr]
        assert [line["text"] for line in lines_en] == [line["en"] for line in lines_en]
        assert linked.json() == en.json()


async def test_each_divan_report_publishes_the_chain_head_a_later_export_is_checked_against(
    world: World, memory_store: InMemoryEventStore, tmp_path: Any, capsys: Any
) -> None:
    """Issue 13 "Chain heads" (docs/export.md): Divan n's report publishes the version and hash
    of its divan_resolved.v1; `seksenbir verify FILE --heads REPORTS` checks that the export
    still holds each head players saw, and names the event where a rewritten season differs."""
    import json

    from entrypoints.cli import main
    from shared.app.ops.export import export_lines
    from tests.audit.support import edit_data, rechain

    client, live, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await resolve_live_divan(memory_store, live.season_id)
    await projector.sweep()
    answer = (await get(client, live.url("/reports"))).json()
    records = await memory_store.read_stream(live.season_id)
    resolved = [r for r in records if r.type == "divan_resolved.v1"]
    assert [rep["chain_head"] for rep in answer["reports"]] == [
        {"version": r.version, "hash": r.hash.hex()} for r in resolved
    ]
    heads = tmp_path / "reports.json"
    heads.write_text(json.dumps(answer))
    lines = [json.loads(x) for x in export_lines(live.season_id, records, records[-1].hash)]
    path = tmp_path / "season.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["verify", str(path), "--heads", str(heads)]) == 0
    assert _verdict(capsys)["heads"] == "ok: 2 published heads are in the chain"

    # A forger rewrites an event of Divan 1 and recomputes every hash after it and the head:
    # the chain and count hold, the head published with Divan 1's report does not. (A plate
    # within the bounds: one beyond them is refused before the heads are read, ADR-155.)
    at = next(i for i, x in enumerate(lines) if i and x["type"] == "rebellions_run.v1")

    def one_more(d: dict[str, Any]) -> None:
        d["guerillas"] = [*d["guerillas"], next(p for p in range(1, 82) if p not in d["guerillas"])]

    edit_data(lines[at], one_more)
    rechain(lines, at)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert main(["verify", str(path), "--heads", str(heads)]) == 1
    verdict = _verdict(capsys)
    assert verdict["hash_chain"] == "ok" and verdict["heads"].startswith("broken: Divan 1's")
    assert f"at version {resolved[0].version}" in verdict["heads"]
    assert "rewritten after players saw it" in verdict["heads"]
    assert verdict["first_bad_event"]["version"] == lines[at]["version"]  # the re-run too


def _verdict(capsys: Any) -> dict[str, Any]:
    """The JSON verdict `seksenbir verify` printed (log lines may surround it)."""
    import json

    out = capsys.readouterr().out
    found, _ = json.JSONDecoder().raw_decode(out[out.index('{\n  "file"') :])
    return dict(found)
