"""Issue 9 item 8 (d): the served OpenAPI document says which operations take a token.

The read side's authenticated operations (private, battles, orders, audit, the ops bey view,
tickets) declared no `security`, so fuzzers never tested their authentication. Here every
operation of the document both APIs are served under (the gateway, `seksenbir serve`) is sent
without a token: each one that answers 401 must declare `security`, each that declares it must
refuse an anonymous request, and every scheme it names must exist in components.
"""

from __future__ import annotations

import re
from typing import Any

import httpx
import redis.asyncio as aioredis

from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore
from tests.projections.support import open_gateway

SCHEMA = "/v1/schema/openapi.json"
BODIES = {  # a valid body for each operation that takes one: the token check is what answers
    "/v1/seasons": {"memleket": 34},
    "/v1/seasons/{season_id}/orders": {"orders": []},
    "/v1/seasons/{season_id}/spend": {"kind": "sur", "province": 6},
    "/v1/seasons/{season_id}/offers": {"to": 2, "kind": "pact"},
    "/v1/seasons/{season_id}/offers/{frm}/answer": {"answer": "accept"},
    "/v1/seasons/{season_id}/kurultay/vote": {"candidate": 2},
    "/v1/seasons/{season_id}/divans": {"divan": 1},
    "/v1/seasons/{season_id}/join": {"memleket": 34},
    "/v1/seasons/{season_id}/fork": {"divan": 0, "seat": 1},
    "/v1/ops/seasons/{season_id}/divans/{divan}/what-if": {},
    **{
        f"/v1/seasons/{{season_id}}/admin/{act}": {"reason": "test"}
        for act in ("postpone", "cancel", "pause", "resume")
    },
    # issues 23-26: names, players, chat, notifications, the console
    "/v1/ops/seasons/{season_id}/beys/{seat}/name/reset": {"reason": "test"},
    "/v1/ops/seasons/{season_id}/description/reset": {"reason": "test"},
    "/v1/ops/seasons/{season_id}/corrections/dry-run": {
        "correction": {"kind": "gold", "seat": 1, "gold": 49},
        "reason": "test",
    },
    "/v1/players": {},
    "/v1/seasons/{season_id}/messages": {"to": "all", "text": "selam"},
    "/v1/seasons/{season_id}/channels/{channel_id}/read": {"read_to": 1},
    "/v1/seasons/{season_id}/messages/{message_id}/report": {},
    "/v1/seasons/{season_id}/messages/{message_id}/hide": {"reason": "test"},
    "/v1/seasons/{season_id}/mutes/{seat}": {"muted": True},
    "/v1/seasons/{season_id}/webhooks": {"url": "https://example.com/hook", "format": "json"},
    "/v1/seasons/{season_id}/push-subscriptions": {
        "endpoint": "https://push.example.com/x",
        "keys": {
            "p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
            "auth": "tBHItJI5svbpez7KI4CCXg",
        },
    },
}
NAMED = {  # the operations issue 9 names, which must declare it in any case
    ("get", "/v1/seasons/{season_id}/private"),
    ("get", "/v1/seasons/{season_id}/battles/{divan}"),
    ("get", "/v1/seasons/{season_id}/orders/{divan}"),
    ("get", "/v1/seasons/{season_id}/audit/betrayals"),
    ("get", "/v1/ops/seasons/{season_id}/beys/{seat}"),
    ("post", "/v1/seasons/{season_id}/tickets"),
}


def _url(path: str, season_id: str) -> str:
    values = {"season_id": season_id, "seat": "1", "divan": "1", "to": "2", "frm": "2"}
    values["plate"] = "6"
    values["name"] = "han-scores"
    values["player_id"] = "0" * 32  # issue 23: no player
    values["webhook_id"], values["subscription_id"] = "wh_none", "ps_none"  # issue 25: none
    values["channel_id"], values["message_id"] = "all", "1"  # issue 24
    return re.sub(r"\{(\w+)\}", lambda m: values[m[1]], path)


async def test_every_operation_that_needs_a_token_declares_security(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
):
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        r = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        assert r.status_code == 201, r.text
        season_id = r.json()["season_id"]
        await Projector(memory_store, redis, prefix).catch_up(season_id)
        doc = (await client.get(SCHEMA)).json()
        schemes = set(doc.get("components", {}).get("securitySchemes", {}))
        assert schemes, "no security scheme in components"
        answered: dict[tuple[str, str], int] = {}
        declared: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if "text/event-stream" in str(op.get("responses", {}).get("200", {})):
                    continue  # the event stream never ends; it takes a ticket, not a token
                if "security" in op:
                    declared[(method, path)] = op["security"]
                r = await client.request(
                    method.upper(),
                    _url(path, season_id),
                    json=BODIES.get(path),
                    headers={"Idempotency-Key": f"k-{method}-{path}"},
                    timeout=httpx.Timeout(10),
                )
                answered[(method, path)] = r.status_code
        needs_token = {op for op, status in answered.items() if status == 401}
        assert needs_token, answered
        assert sorted(needs_token - set(declared)) == []
        assert sorted(NAMED - set(declared)) == []
        for op, requirements in declared.items():
            # an operation declaring a token refuses an anonymous caller (401, or 403 for the
            # orders of a season not over), unless anonymous access is also declared ({})
            if {} not in requirements:
                assert answered[op] == 401, (op, answered[op])
            else:
                assert answered[op] in (200, 401, 403), (op, answered[op])
            for requirement in requirements:
                assert set(requirement) <= schemes, (op, requirement)
