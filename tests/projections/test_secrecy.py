"""R-14 through the HTTP app: nobody sees another bey's orders or missions before the Kurultay."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.access.tokens import token_hash
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import (
    ANKARA,
    BETRAYAL,
    BOLU,
    CANARY,
    KIRIKKALE,
    PENDING_CANARY,
    Live,
    canaries,
    create_live,
    hold_kurultay,
    mission_lists,
    pact_and_betrayal,
    private_lines,
    resolve_live_divan,
    seal_salts,
    submit_canary,
    submit_pending_canary,
)
from tests.projections.sse import Stream, described_events, served, undocumented
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, Gateway, bearer, open_gateway
from tests.sealing import recipe

OWN = {"private", "me"}  # a bey's own secrets: its missions and orders belong there


def paths(live: Live, divans: tuple[int, ...]) -> dict[str, str]:
    s = live.url()
    out = {
        name: f"{s}/{name}"
        for name in (
            "map",
            "leaderboard",
            "titles",
            "treaties",
            "reports",
            "betrayals",
            "summary",
            "private",
            "me",
        )
    }
    out |= {f"battles/{d}": f"{s}/battles/{d}" for d in divans}
    out |= {f"orders/{d}": f"{s}/orders/{d}" for d in divans}
    out["audit/betrayals"] = f"{s}/audit/betrayals"
    out["ops/beys/1"] = f"/v1/ops/seasons/{live.season_id}/beys/1"
    out["status"] = s
    out["seasons/all"] = "/v1/seasons/all"
    out |= {f"boards/{b}": f"/v1/boards/{b}" for b in ("han-scores", "best-scores", "han-memleket")}
    return out


async def read_all(
    client: httpx.AsyncClient, live: Live, token: str | None, divans: tuple[int, ...]
) -> dict[str, tuple[int, Any]]:
    out = {}
    for name, path in paths(live, divans).items():
        r = await client.get(path, headers=bearer(token))
        body = r.json() if r.content else None
        out[name] = (r.status_code, body)
    return out


# who gets what during the season: anything not listed answers 200
GATED = {
    "anonymous": {
        "private": 401,
        "me": 401,
        "battles": 401,
        "orders": 403,
        "audit/betrayals": 401,
        "ops/beys/1": 401,
    },
    "other season": {
        "private": 403,
        "me": 403,
        "battles": 403,
        "orders": 403,
        "audit/betrayals": 403,
        "ops/beys/1": 403,
    },
    "garbage": {  # not even a bey token's shape: 401 everywhere (counted as a guess)
        "private": 401,
        "me": 401,
        "battles": 401,
        "orders": 401,
        "audit/betrayals": 401,
        "ops/beys/1": 401,
    },
    "forged": {  # a bey token's shape with the wrong secret: a failed bey login
        "private": 401,
        "me": 401,
        "battles": 401,
        "orders": 403,
        "audit/betrayals": 403,
        "ops/beys/1": 403,
    },
    "bey B": {"orders": 403, "audit/betrayals": 403, "ops/beys/1": 403},
    # staff tokens are known callers in the wrong place: 403, never a failed attempt
    "auditor": {"private": 403, "me": 403, "battles": 403, "orders": 403, "ops/beys/1": 403},
    "bey A": {"orders": 403, "audit/betrayals": 403, "ops/beys/1": 403},
    "ops": {"private": 403, "me": 403},
}


def expected_status(viewer: str, name: str) -> int:
    gated = GATED[viewer]
    return gated.get(name, gated.get(name.split("/", maxsplit=1)[0], 200))


def assert_statuses(viewer: str, seen: dict[str, tuple[int, Any]]) -> None:
    wrong = {n: s for n, (s, _b) in seen.items() if s != expected_status(viewer, n)}
    assert wrong == {}, (viewer, wrong)


def assert_no_secrets_of_a(
    viewer: str, seen: dict[str, tuple[int, Any]], live: Live, own_seat: int | None
) -> None:
    for name, (status, body) in seen.items():
        if status != 200:
            continue
        assert canaries(body) == [], (viewer, name)
        lines = private_lines(body)
        if name in OWN and own_seat is not None:  # its own offers and orders only
            assert all(
                own_seat in (x["data"].get("from"), x["data"].get("to"))
                for x in lines
                if x["kind"] == "offer"
            ), (viewer, name, lines)
        else:
            assert lines == [], (viewer, name, lines)
        missions = mission_lists(body)
        if name in OWN and own_seat is not None:
            own = sorted(live.missions[own_seat])
            assert all(
                sorted(m if isinstance(m[0], str) else [x["id"] for x in m]) == own
                for m in missions
            ), (viewer, name)
        else:
            assert missions == [], (viewer, name, missions)


@pytest.fixture
async def world(memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str):
    async with open_gateway(memory_store, redis, prefix) as (gw, client):
        live = await create_live(memory_store)
        r = await client.post("/v1/seasons", json={"memleket": 34, "seed": "5"})
        assert r.status_code == 201, r.text
        trial = r.json()
        yield gw, client, live, trial, Projector(memory_store, redis, prefix)


async def test_no_endpoint_shows_another_beys_orders_or_missions_before_the_kurultay(
    world, memory_store, redis, prefix
):
    _gw, client, live, trial, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await submit_canary(client, live)  # pending for Divan 2: in A's private view only
    viewers = {
        "anonymous": None,
        "other season": trial["token"],
        "garbage": f"sb1.{live.season_id}.1.not-the-secret",  # not a token's shape
        "forged": f"sb1.{live.season_id}.1.{'x' * 32}",  # well-formed: right season and seat
        "bey B": live.tokens[2],
        "auditor": AUDITOR_TOKEN,
        "bey A": live.tokens[1],
        "ops": OPS_TOKEN,
    }
    own = {"bey B": 2, "bey A": 1}
    for stage, divans in (("pending", (1,)), ("locked", (1, 2))):
        if stage == "locked":
            assert await resolve_live_divan(memory_store, live.season_id) == 2
            await submit_pending_canary(client, live)
        await projector.sweep()
        seen = {}
        for n, (viewer, token) in enumerate(viewers.items()):
            # each viewer its own client address: one viewer's bad tokens do not limit another
            transport = httpx.ASGITransport(app=_gw.app, client=(f"198.51.100.{n + 1}", 40000))
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as mine:
                seen[viewer] = await read_all(mine, live, token, divans)
        for viewer, answers in seen.items():
            assert_statuses(viewer, answers)
            if viewer not in ("bey A", "ops"):
                assert_no_secrets_of_a(viewer, answers, live, own.get(viewer))
        # the detectors find the canary where it belongs: A's own view, and ops
        mine = seen["bey A"]["private"][1]
        # the detector finds A's offer outcome where it belongs: A's and B's own reports only
        assert [x["data"]["partner"] for x in private_lines(mine["reports"])] == [2]
        theirs = seen["bey B"]["private"][1]["reports"]
        assert [x["data"]["partner"] for x in private_lines(theirs)] == [1]
        assert mine["orders"]["orders"] == [CANARY if stage == "pending" else PENDING_CANARY]
        assert sorted(m["id"] for m in mine["missions"]) == sorted(live.missions[1])
        assert seen["ops"]["ops/beys/1"][1]["missions"]
        if stage == "locked":
            assert CANARY in canaries(seen["ops"]["orders/2"][1])
            assert [r for r in canaries(seen["bey A"]["battles/2"][1]) if r.get("target") == BOLU]
        # everyone sees the betrayal: who, whom, where
        public = seen["anonymous"]["betrayals"][1]["betrayals"]
        assert [(b["divan"], b["traitor"], b["victim"], b["province"]) for b in public] == [
            (1, 1, 2, KIRIKKALE)
        ]
        assert seen["anonymous"]["summary"][1]["status"]["seed"] is None
        # B fought at Kırıkkale: it sees that battle in full, and nothing of Bolu
        b_battles = seen["bey B"]["battles/1"][1]["battles"]
        assert [r["target"] for r in b_battles] == [KIRIKKALE]
        assert [r["target"] for r in seen["anonymous"]["treaties"][1]["treaties"]] == []
        # the auditor: the betrayal with its battle record and the traitor's advance, no missions
        audit = seen["auditor"]["audit/betrayals"][1]
        (betrayal,) = audit["betrayals"]
        assert (betrayal["traitor"], betrayal["victim"], betrayal["province"]) == (1, 2, KIRIKKALE)
        assert betrayal["battle"]["target"] == KIRIKKALE
        assert betrayal["orders"] == [[1, ANKARA, 3]]
        assert [t["what"] for t in audit["treaty_timeline"]] == ["accepted", "broken"]


def _own_seal(private: dict[str, Any], divan: int) -> dict[str, Any]:
    (report,) = [r for r in private["reports"] if r["divan"] == divan]
    (line,) = [x for x in report["lines"] if x["kind"] == "orders_sealed"]
    return line["data"]  # type: ignore[no-any-return]


async def test_a_bey_checks_its_sealed_digest_and_no_other_bey_sees_its_salt(
    world, memory_store, redis, prefix
):
    """ADR-57, R-14 over HTTP: after Divan 1, bey A's private report gives it its salt and
    digest; with docs/export.md's recipe, the digest of the orders A sent (POST /orders) is that
    digest, and the public report lists it for seat 1 (B, which sent none, the empty set's).
    A's salt is in no answer to anyone but A (and ops); B's salt is in none of A's."""
    _gw, client, live, trial, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await projector.sweep()
    r = recipe()
    a = _own_seal(
        (await client.get(live.url("/private"), headers=bearer(live.tokens[1]))).json(), 1
    )
    b = _own_seal(
        (await client.get(live.url("/private"), headers=bearer(live.tokens[2]))).json(), 1
    )
    assert r["sealed_digest"](bytes.fromhex(a["salt"]), [BETRAYAL]) == a["digest"]
    assert r["sealed_digest"](bytes.fromhex(b["salt"]), []) == b["digest"]
    reports = (await client.get(live.url("/reports"))).json()["reports"]
    (divan_1,) = [x for x in reports if x["kind"] == "divan" and x["divan"] == 1]
    listed = {
        x["data"]["seat"]: x["data"]["digest"]
        for x in divan_1["lines"]
        if x["kind"] == "orders_sealed"
    }
    assert (listed[1], listed[2]) == (a["digest"], b["digest"]) and len(listed) == 19
    viewers = {
        "anonymous": None,
        "other season": trial["token"],
        "bey B": live.tokens[2],
        "auditor": AUDITOR_TOKEN,
        "bey A": live.tokens[1],
        "ops": OPS_TOKEN,
    }
    for viewer, token in viewers.items():
        seen = await read_all(client, live, token, (1,))
        text = json.dumps(seen)
        if viewer not in ("bey A", "ops"):
            assert a["salt"] not in text, viewer
        if viewer not in ("bey B", "ops"):
            assert b["salt"] not in text, viewer
        own = {"bey A": [a["salt"]], "bey B": [b["salt"]]}.get(viewer)
        if own is not None:
            assert seal_salts(seen["private"][1]) == own  # its own salt, and no other


async def test_ops_reads_of_secret_data_are_recorded(world, memory_store, redis, prefix):
    """R-14, ADR-53: each ops read of secret data is in the store's ops-read trail (not Redis)."""
    _gw, client, live, _trial, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await projector.sweep()
    reads = [
        f"{live.url()}/orders/1",
        f"{live.url()}/battles/1",
        f"{live.url()}/audit/betrayals",
        f"/v1/ops/seasons/{live.season_id}/beys/2",
        f"/v1/ops/seasons/{live.season_id}/export",
    ]
    for n, path in enumerate(reads, start=1):
        r = await client.get(path, headers=bearer(OPS_TOKEN))
        assert r.status_code == 200, r.text
        assert len(await memory_store.ops_reads.list(live.season_id)) == n
    entries = await memory_store.ops_reads.list(live.season_id)
    assert [e.what for e in entries] == [
        "orders/1",
        "battles/1",
        "audit/betrayals",
        "beys/2",
        "export",
    ]
    assert {e.season_id for e in entries} == {live.season_id}
    assert {e.actor for e in entries} == {token_hash(OPS_TOKEN)[:12]}
    assert not await redis.exists(f"{prefix}:audit:ops_reads")  # no longer a Redis stream
    # public reads by ops, and an auditor's reads, are not ops reads of secrets: nothing recorded
    assert (await client.get(f"{live.url()}/map", headers=bearer(OPS_TOKEN))).status_code == 200
    r = await client.get(f"{live.url()}/audit/betrayals", headers=bearer(AUDITOR_TOKEN))
    assert r.status_code == 200
    assert len(await memory_store.ops_reads.list(live.season_id)) == len(reads)


async def test_after_the_kurultay_everyone_sees_the_orders_and_missions(
    world, memory_store, redis, prefix
):
    _gw, client, live, _trial, projector = world
    await pact_and_betrayal(client, memory_store, live)
    await submit_canary(client, live)
    while (await resolve_live_divan(memory_store, live.season_id)) < 16:
        pass
    await hold_kurultay(memory_store, live.season_id)
    await projector.sweep()
    r = await client.get(f"{live.url()}/orders/2")  # anonymous
    assert r.status_code == 200, r.text
    assert r.json()["orders"]["1"] == [CANARY]
    battles = (await client.get(f"{live.url()}/battles/2")).json()["battles"]
    assert BOLU in [b["target"] for b in battles]
    board = (await client.get(f"{live.url()}/leaderboard")).json()["leaderboard"]
    assert {row["seat"]: tuple(row["missions"]) for row in board}[1] == tuple(
        sorted(live.missions[1])
    )
    summary = (await client.get(f"{live.url()}/summary")).json()["status"]
    assert summary["phase"] == "over"
    assert summary["seed"] == "7"
    # the auditor still sees no missions in its view, and the betrayal record is unchanged
    audit = (
        await client.get(f"{live.url()}/audit/betrayals", headers=bearer(AUDITOR_TOKEN))
    ).json()
    assert mission_lists(audit) == []
    assert [b["province"] for b in audit["betrayals"]] == [KIRIKKALE]


async def test_the_event_streams_carry_no_secrets(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    """The public stream announces the betrayal (who, whom, where) and the reports, B's ticketed
    stream its own private report; no frame carries an order or a mission."""
    gw = Gateway(memory_store, redis, prefix)
    projector = Projector(memory_store, redis, prefix)
    live = await create_live(memory_store)
    await projector.sweep()
    async with served(gw) as client:
        ticket = (await client.post(live.url("/tickets"), headers=bearer(live.tokens[2]))).json()[
            "ticket"
        ]
        public = Stream(client, live.url("/events"))
        private = Stream(client, live.url(f"/events?ticket={ticket}"))
        try:
            await public.until("ready")
            await private.until("ready")
            await pact_and_betrayal(client, memory_store, live)
            await submit_canary(client, live)
            await projector.sweep()
            report, first = await public.until("divan_report")
            betrayals, more = await public.until("betrayals")
            assert json.loads(betrayals.data[0])["betrayals"] == [
                {"traitor": 1, "victim": 2, "province": KIRIKKALE}
            ]
            mine, own = await private.until("private_report")
            assert json.loads(mine.data[0]) == {"divan": 1, "type": "private_report"}
            assert await resolve_live_divan(memory_store, live.season_id) == 2
            await projector.sweep()
            report, later = await public.until("divan_report")
            assert json.loads(report.data[0]) == {"divan": 2, "type": "divan_report"}
            described = await described_events(client)
            for frame in first + more + own + later:
                assert frame.event is not None or frame.data == [], frame
                assert undocumented(described, frame) == [], frame  # the served document
                body = [json.loads(d) for d in frame.data]
                assert canaries(body) == [], frame
                assert mission_lists(body) == [], frame
        finally:
            await public.close()
            await private.close()
