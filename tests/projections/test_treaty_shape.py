"""A treaty has one shape in every answer (issue 20; R-6.2, R-14): `Treaty`, `{kind, beys,
from_divan, through_divan}`, in the treaties in force, the auditors' betrayals and treaty
timeline, the betrayal history and ops' what-if; the OpenAPI document names one schema."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.app.answers.treaty_answer import Treaty
from shared.app.ops.divan_text import what_if_text
from shared.app.ops.divan_tools import OrderChange, TreatyChange, WhatIfIn, what_if
from shared.domain import codec
from shared.eventstore import InMemoryEventStore
from tests.projections.pact_season import (
    ANKARA,
    BETRAYAL,
    create_live,
    pact_and_betrayal,
    post,
    resolve_live_divan,
)
from tests.projections.support import AUDITOR_TOKEN, bearer, open_gateway

PACT = {"kind": "pact", "beys": [1, 2], "from_divan": 1, "through_divan": 2}


async def _get(client: Any, url: str, token: str | None = None) -> dict[str, Any]:
    r = await client.get(url, headers=bearer(token))
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def _treaty_refs(node: Any) -> set[str]:
    """The schema names every `treaty`/`treaties` member of a schema tree refers to."""
    found: set[str] = set()
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if name in ("treaty", "treaties"):
                found |= _all_refs(sub)
        for v in node.values():
            found |= _treaty_refs(v)
    elif isinstance(node, list):
        for v in node:
            found |= _treaty_refs(v)
    return found


def _all_refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        own = {node["$ref"].rsplit("/", 1)[-1]} if "$ref" in node else set()
        return own.union(*(_all_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_all_refs(v) for v in node))
    return set()


async def test_r6_2_a_treaty_has_one_shape_everywhere(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.2: the pact bey 1 and bey 2 made at Divan 1 (through Divan 2) is the same object in
    `/treaties` while in force, and in `/audit/betrayals` (the betrayal and every step of the
    treaty timeline) and `/betrayals/history` once bey 1 breaks it at Divan 2 (R-6.5)."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        projector = Projector(memory_store, redis, prefix)
        await post(client, live, 1, "/offers", {"to": 2, "kind": "pact"}, key="offer-1")
        await post(client, live, 2, "/offers/1/answer", {"answer": "accept"})
        assert await resolve_live_divan(memory_store, live.season_id) == 1
        await projector.sweep()
        assert (await _get(client, live.url("/treaties")))["treaties"] == [PACT]
        await post(client, live, 1, "/orders", {"divan": 2, "orders": [BETRAYAL]})
        assert await resolve_live_divan(memory_store, live.season_id) == 2
        await projector.sweep()
        audit = await _get(client, live.url("/audit/betrayals"), AUDITOR_TOKEN)
        (betrayal,) = audit["betrayals"]
        assert betrayal["treaty"] == PACT
        assert [(t["what"], t["treaty"]) for t in audit["treaty_timeline"]] == [
            ("accepted", PACT),
            ("broken", PACT),
        ]
        history = await _get(client, live.url("/betrayals/history"), AUDITOR_TOKEN)
        assert [b["treaty"] for b in history["betrayals"]] == [PACT]
        doc = (await client.get("/v1/schema/openapi.json")).json()
    shapes = set()
    ops = [
        doc["paths"]["/v1/seasons/{season_id}" + path]["get"]
        for path in ("/treaties", "/audit/betrayals", "/betrayals/history")
    ]
    ops.append(doc["paths"]["/v1/ops/seasons/{season_id}/divans/{divan}/what-if"]["post"])
    for op in ops:
        schema = op["responses"]["200"]["content"]["application/json"]["schema"]
        seen = _treaty_refs(_resolve(doc, schema))
        assert seen, op["operationId"]
        shapes |= seen
    assert shapes == {"Treaty"}
    assert set(doc["components"]["schemas"]["Treaty"]["properties"]) == set(PACT)


def _resolve(doc: dict[str, Any], node: Any, depth: int = 0) -> Any:
    """`node` with its component references expanded (a few levels: enough for these)."""
    if depth > 4:
        return node
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            if name == "Treaty":
                return node
            return _resolve(doc, doc["components"]["schemas"][name], depth + 1)
        return {k: _resolve(doc, v, depth) for k, v in node.items()}
    if isinstance(node, list):
        return [_resolve(doc, v, depth) for v in node]
    return node


async def test_r6_5_a_what_if_gives_a_treaty_it_changes_in_the_one_shape(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """R-6.5: without bey 1's advance into bey 2's Kırıkkale the pact they made at Divan 1 is
    not broken: ops' what-if lists it as only in the what-if, a `Treaty` (`from_divan` null:
    the re-run state does not hold it), and says so in words."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        live = await create_live(memory_store)
        await pact_and_betrayal(client, memory_store, live)
    events = [codec.decode_event(r.data) for r in await memory_store.read_stream(live.season_id)]
    out = what_if(
        live.season_id,
        events,
        1,
        WhatIfIn(orders=[OrderChange(seat=1, frm=ANKARA, kind="remove")]),
    )
    assert out.treaties == [TreatyChange(Treaty("pact", [1, 2], None, 2), "only_what_if")]
    said = "Only in the what-if: non-aggression pact between Bey 1 and Bey 2 through Divan 2"
    assert said in what_if_text(out, "en")
    said_tr = "Yalnız denemede: 1. bey ile 2. bey arasında saldırmazlık antlaşması, 2. Divana dek"
    assert said_tr in what_if_text(out, "tr")
