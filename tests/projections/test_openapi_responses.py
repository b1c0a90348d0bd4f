"""Issue 10: the served OpenAPI document is the real contract of every response.

Handlers of both APIs return typed Structs, so each 2xx the document lists must name a schema
component (no bare `object`), and each real answer must validate against the schema the
document gives for its status: here every operation of the gateway (`seksenbir serve`) is
called on a season with a resolved Divan, and its body is checked with jsonschema_rs (which
schemathesis already installs).
"""

from __future__ import annotations

import json
import re
from datetime import timedelta
from typing import Any

import httpx
import jsonschema_rs
import redis.asyncio as aioredis

from entrypoints.gateway import create_app
from services.projections.projector import Projector
from services.projections.query import QUERY_ROUTES
from services.projections.read_route import declared
from services.resolver.divan import resolve
from shared.app.access import tokens
from shared.app.repository.seasons import Seasons
from shared.eventstore import InMemoryEventStore
from shared.settings import Settings
from tests.live_calendar import CREATED_AT, SEASON_NOW
from tests.projections.support import (
    AUDITOR_TOKEN,
    OPS_TOKEN,
    append_chunk,
    bearer,
    new_bey_token,
    open_gateway,
    season_chunks,
)

SCHEMA = "/v1/schema/openapi.json"
STREAM = ("get", "/v1/seasons/{season_id}/events")  # never ends (test_query_api covers it)


def _refs(schema: dict[str, Any]) -> bool:
    """Whether a response schema is a named component (directly, or each member of a oneOf)."""
    if "$ref" in schema:
        return bool(re.fullmatch(r"#/components/schemas/\w+", schema["$ref"]))
    members = schema.get("oneOf") or schema.get("anyOf")
    return bool(members) and all(_refs(m) for m in members)


async def test_every_2xx_response_names_a_schema_component(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        doc = (await client.get(SCHEMA)).json()
    bare = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if (method, path) == STREAM:
                continue
            for status, response in op["responses"].items():
                if not status.startswith("2"):
                    continue
                content = response.get("content", {})
                # JSON, or NDJSON (the export: each line one of the named components)
                media = content.get("application/json") or content.get("application/x-ndjson")
                schema = (media or {}).get("schema", {})
                if not content or not _refs(schema):
                    bare.append((method, path, status, schema))
    assert bare == []


def _open_objects(schema: Any, where: str) -> list[str]:
    """The places in a schema that are a JSON object of anything (`{"type": "object"}` with
    no properties and no typed values): what a generated client can only call `unknown`."""
    found = []
    if isinstance(schema, dict):
        if (
            schema.get("type") == "object"
            and not schema.get("properties")
            and schema.get("additionalProperties") in (None, True, {})
        ):
            found.append(where)
        for key, value in schema.items():
            found += _open_objects(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found += _open_objects(value, f"{where}[{i}]")
    return found


async def test_no_response_holds_an_object_of_anything(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 11: every response typed all the way down. A battle record (R-5.8), a Divan's
    orders, an auditor's betrayal record or treaty timeline entry is a schema of its own, not
    a `dict[str, Any]` passed through as stored (a generated client saw `unknown` there)."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        doc = (await client.get(SCHEMA)).json()
    assert _open_objects(doc["components"]["schemas"], "#/components/schemas") == []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            assert _open_objects(op.get("responses", {}), f"{method} {path}") == []


def _json(r: httpx.Response) -> bool:
    return r.headers["content-type"].startswith("application/json")


def _validate(doc: dict[str, Any], op: dict[str, Any], r: httpx.Response) -> list[str]:
    documented = op["responses"].get(str(r.status_code))
    if documented is None:
        return [f"status {r.status_code} is not documented"]
    media = r.headers["content-type"].split(";")[0]
    schema = documented["content"][media]["schema"]
    validator = jsonschema_rs.Draft202012Validator(
        {**schema, "components": doc["components"]}, validate_formats=False
    )
    if media == "application/x-ndjson":
        lines = [json.loads(line) for line in r.content.splitlines()]
        return [str(e) for line in lines for e in validator.iter_errors(line)]
    return [str(e) for e in validator.iter_errors(r.json())]


async def test_every_real_answer_validates_against_its_documented_schema(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        doc = (await client.get(SCHEMA)).json()
        ops = {(m, p): op for p, item in doc["paths"].items() for m, op in item.items()}
        answers: dict[tuple[str, str], httpx.Response] = {}

        revalidated: dict[tuple[str, str], int] = {}

        async def call(method: str, path: str, url: str, **kw: Any) -> httpx.Response:
            r = await client.request(method.upper(), url, **kw)
            answers[(method, path)] = r
            if method == "get" and r.status_code == 200 and _json(r):
                # issue 11: every JSON read has an ETag that answers If-None-Match with 304
                again = {**kw.get("headers", {}), "If-None-Match": r.headers.get("etag", "-")}
                revalidated[(method, path)] = (await client.get(url, headers=again)).status_code
            return r

        r = await call("post", "/v1/seasons", "/v1/seasons", json={"memleket": 6, "seed": "7"})
        assert r.status_code == 201, r.text
        season_id, token = r.json()["season_id"], r.json()["token"]
        s = f"/v1/seasons/{season_id}"
        bey = bearer(token)
        projector = Projector(memory_store, redis, prefix)
        order = {"province": 6, "kind": "advance", "target": 71, "units": 11}
        await call("get", "/v1/seasons/{season_id}", s)
        await call("get", "/v1/seasons/{season_id}/me", f"{s}/me", headers=bey)
        await call(
            "post", "/v1/seasons/{season_id}/orders", f"{s}/orders",
            json={"orders": [order]}, headers=bey,
        )  # fmt: skip
        await call(
            "post", "/v1/seasons/{season_id}/offers", f"{s}/offers",
            json={"to": 2, "kind": "pact"}, headers={**bey, "Idempotency-Key": "offer-1"},
        )  # fmt: skip
        await call(
            "post", "/v1/seasons/{season_id}/offers/{to}/withdraw", f"{s}/offers/2/withdraw",
            headers=bey,
        )  # fmt: skip
        await call(
            "post", "/v1/seasons/{season_id}/offers/{frm}/answer", f"{s}/offers/2/answer",
            json={"answer": "accept"}, headers=bey,
        )  # fmt: skip
        await call(
            "post", "/v1/seasons/{season_id}/kurultay/vote", f"{s}/kurultay/vote",
            json={"candidate": 2}, headers=bey,
        )  # fmt: skip
        r = await call(
            "post", "/v1/seasons/{season_id}/divans", f"{s}/divans", json={"divan": 1}, headers=bey
        )
        assert r.status_code == 202, r.text
        assert await resolve(Seasons(memory_store), season_id, 1) == "resolved"
        await projector.catch_up(season_id)
        # spending after the Divan's production: enough gold for mercenaries
        await call(
            "post", "/v1/seasons/{season_id}/spend", f"{s}/spend",
            json={"kind": "paralı_asker", "province": 6},
            headers={**bey, "Idempotency-Key": "spend-1"},
        )  # fmt: skip
        ops_token, auditor = bearer(OPS_TOKEN), bearer(AUDITOR_TOKEN)
        await _read_calls(call, season_id, {"bey": bey, "staff": auditor, "ops": ops_token})
        for path, headers in [
            ("/v1/ops/seasons/{season_id}/export", ops_token),
            ("/v1/seasons/{season_id}/export", auditor),
            ("/v1/ops/seasons/{season_id}/divans/{divan}/explain", ops_token),
            ("/v1/ops/seasons/{season_id}/verify", ops_token),  # issue 26
            ("/v1/seasons/{season_id}/audit/ops-reads", auditor),  # after the ops reads above
        ]:
            url = path.replace("{season_id}", season_id).replace("{divan}", "1")
            url = url.replace("{plate}", "6")
            await call("get", path, url.replace("{seat}", "1"), headers=headers)
        await _console_calls(call, season_id, ops_token)
        for board in ("han-scores", "han-memleket"):
            r = await call("get", "/v1/boards/{name}", f"/v1/boards/{board}")
            assert not _validate(doc, ops[("get", "/v1/boards/{name}")], r), r.text
        await _live_calls(doc, ops, call)
        await _player_calls(call)
        await _notify_calls(call, season_id, bey)
        await call("post", "/v1/seasons/{season_id}/tickets", f"{s}/tickets", headers=bey)
        await call(
            "post", "/v1/seasons/{season_id}/token", f"{s}/token", headers=bey
        )  # last but one: the bey's token changes
        await call(
            "post", "/v1/ops/seasons/{season_id}/beys/{seat}/token", f"/v1/ops/seasons/"
            f"{season_id}/beys/1/token", headers=ops_token,
        )  # fmt: skip
    assert set(answers) == set(ops) - {STREAM}
    refused = {op: r.status_code for op, r in answers.items() if r.status_code >= 300}
    # only what the game itself refuses here: no offer to answer, no Kurultay yet
    assert set(refused) <= {
        ("post", "/v1/seasons/{season_id}/offers/{frm}/answer"),
        ("post", "/v1/seasons/{season_id}/kurultay/vote"),
    }, refused
    errors = {op: e for op, r in answers.items() if (e := _validate(doc, ops[op], r))}
    assert errors == {}
    _check_headers(ops, answers, revalidated)


# The query API's reads called elsewhere in the test (a board by its name, a player's, the
# stream), and the caller of each read whose `who` varies; every other declared read is called
# with its `who`'s credential (services/projections/read_route.py).
CALLED_ELSEWHERE = {
    "/v1/boards/{name}",
    "/v1/players/{player_id}",
    "/v1/boards/ratings",
    "/v1/seasons/{season_id}/events",
}
VARIES = {
    "/v1/seasons/{season_id}/battles/{divan}": "bey",
    "/v1/seasons/{season_id}/orders/{divan}": "ops",
    "/v1/seasons/{season_id}/betrayals/history": "anyone",
    "/v1/betrayals/memleket/{plate}": "staff",
}


def declared_reads() -> list[tuple[str, str]]:
    """(path, caller) of each declared GET of the query API this test calls in its loop."""
    out = []
    for handler in QUERY_ROUTES:
        read = declared(handler)
        assert read is not None
        path = "/v1" + re.sub(r":\w+\}", "}", handler.paths.copy().pop())
        if "GET" in handler.http_methods and path not in CALLED_ELSEWHERE:
            out.append((path, VARIES[path] if read.who == "varies" else read.who))
    return out


async def _read_calls(call: Any, season_id: str, callers: dict[str, dict[str, str]]) -> None:
    """Each declared read, by its caller (season 1's id, Divan 1, seat 1, Ankara)."""
    for path, who in declared_reads():
        url = path.replace("{season_id}", season_id).replace("{divan}", "1")
        url = url.replace("{plate}", "6").replace("{seat}", "1")
        await call("get", path, url, headers=callers.get(who, {}))  # anyone: no token


async def _console_calls(call: Any, season_id: str, ops_token: dict[str, str]) -> None:
    """Ops' tools over HTTP (issue 26): a what-if, a fork, a correction's dry run, then the
    correction itself."""
    await call(
        "post", "/v1/ops/seasons/{season_id}/divans/{divan}/what-if",
        f"/v1/ops/seasons/{season_id}/divans/1/what-if",
        json={"dice": [{"target": 71, "side": "attack", "value": 0}]}, headers=ops_token,
    )  # fmt: skip
    await call(
        "post", "/v1/seasons/{season_id}/fork", f"/v1/seasons/{season_id}/fork",
        json={"divan": 1, "seat": 2}, headers=ops_token,
    )  # fmt: skip
    await call(
        "post", "/v1/ops/seasons/{season_id}/corrections/dry-run",
        f"/v1/ops/seasons/{season_id}/corrections/dry-run", headers=ops_token,
        json={"correction": {"kind": "gold", "seat": 1, "gold": 49}, "reason": "recount"},
    )  # fmt: skip
    await call(
        "post", "/v1/ops/seasons/{season_id}/corrections",
        f"/v1/ops/seasons/{season_id}/corrections", headers=ops_token,
        json={"correction": {"kind": "gold", "seat": 1, "gold": 50}, "reason": "recount"},
    )  # fmt: skip


async def _player_calls(call: Any) -> None:
    """Issue 23: a player made, read, rated (an empty board), its key rotated, then left."""
    r = await call("post", "/v1/players", "/v1/players", json={"name": "Ayşe"})
    assert r.status_code == 201, r.text
    player_id, key = r.json()["player_id"], r.json()["player_key"]
    r = await call("get", "/v1/players/{player_id}", f"/v1/players/{player_id}")
    assert r.status_code == 200, r.text
    await call("get", "/v1/boards/ratings", "/v1/boards/ratings")
    auth = {"Authorization": f"Bearer {key}"}
    r = await call(
        "post", "/v1/players/{player_id}/key", f"/v1/players/{player_id}/key", headers=auth
    )
    assert r.status_code == 200, r.text
    auth = {"Authorization": f"Bearer {r.json()['player_key']}"}
    await call(
        "post", "/v1/players/{player_id}/leave", f"/v1/players/{player_id}/leave", headers=auth
    )


def _check_headers(
    ops: dict[tuple[str, str], Any],
    answers: dict[tuple[str, str], httpx.Response],
    revalidated: dict[Any, int],
) -> None:
    """Every answer names its Content-Language, as documented; each JSON read answered 304 to
    its own ETag, and the document lists the 304 for exactly those reads (a 304 is an answer a
    client gets)."""
    assert [op for op, r in answers.items() if "content-language" not in r.headers] == []
    assert revalidated
    assert {op: status for op, status in revalidated.items() if status != 304} == {}
    assert {op for op, o in ops.items() if "304" in o["responses"]} == set(revalidated)
    # X-Season-Version (docs/api.md, Read side): declared on exactly the answers that send it
    sent = {op for op, r in answers.items() if "x-season-version" in r.headers}
    # … on the status each was answered with, of those answered 2xx here (a refusal sends none:
    # the offer answer and the vote are refused in this run; tests/http/test_offer_answers.py
    # sees the answer's header); a correction's is its 201
    ok = {op for op, r in answers.items() if r.status_code < 300}
    declared = {
        op
        for op in ok
        if "X-Season-Version"
        in ops[op]["responses"].get(str(answers[op].status_code), {}).get("headers", {})
    }
    assert sent and declared == sent, (sorted(sent - declared), sorted(declared - sent))
    # Location (docs/api.md: a new season's, a fork's, a player's): declared where it is sent
    located = {op for op, r in answers.items() if "location" in r.headers}
    undeclared = {
        op
        for op in located
        if "Location"
        not in ops[op]["responses"].get(str(answers[op].status_code), {}).get("headers", {})
    }
    assert located and undeclared == set(), sorted(undeclared)


def test_every_conditional_read_documents_its_etag_if_none_match_and_304() -> None:
    """Issue 11: a client generated from the document knows a read's ETag, may send
    If-None-Match and gets a 304 it was told about (not an undocumented status)."""
    app = create_app(Settings())
    doc = app.openapi_schema.to_schema()
    reads = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if "304" not in op["responses"]:
                continue
            reads += 1
            assert method == "get", (method, path)
            assert "application/json" in op["responses"]["200"]["content"], path
            assert "ETag" in op["responses"]["200"]["headers"], path
            assert op["responses"]["304"]["headers"].keys() >= {"ETag"}, path
            assert "content" not in op["responses"]["304"], path
            names = [(p["name"], p["in"], p["required"]) for p in op["parameters"]]
            assert ("If-None-Match", "header", False) in names, path
    assert reads >= 20


def _days_ahead(days: int) -> str:
    """An instant `days` after the gateway's own clock (SEASON_NOW): the real clock was read
    here, and D-37's year would have refused a close 30 days after it from 2027-11 on."""
    return (SEASON_NOW + timedelta(days=days)).isoformat()


async def _notify_calls(call: Any, season_id: str, bey: dict[str, str]) -> None:
    """Issue 25: a bey's webhook and push subscription, listed, rotated, deleted."""
    s = f"/v1/seasons/{season_id}"
    hooks, subs = "/v1/seasons/{season_id}/webhooks", "/v1/seasons/{season_id}/push-subscriptions"
    r = await call(
        "post", hooks, f"{s}/webhooks", json={"url": "https://h.example.org/x"}, headers=bey
    )
    assert r.status_code == 201, r.text
    hook = r.json()["webhook_id"]
    await call("get", hooks, f"{s}/webhooks", headers=bey)
    await call("post", hooks + "/{webhook_id}/rotate", f"{s}/webhooks/{hook}/rotate", headers=bey)
    await call("delete", hooks + "/{webhook_id}", f"{s}/webhooks/{hook}", headers=bey)
    await call("get", "/v1/push/key", "/v1/push/key")
    keys = {"p256dh": "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4", "auth": "tBHItJI5svbpez7K"}
    r = await call("post", subs, f"{s}/push-subscriptions", headers=bey,
                   json={"endpoint": "https://push.example.org/d", "keys": keys})  # fmt: skip
    assert r.status_code == 201, r.text
    sub = r.json()["subscription_id"]
    await call("get", subs, f"{s}/push-subscriptions", headers=bey)
    await call("delete", subs + "/{subscription_id}", f"{s}/push-subscriptions/{sub}", headers=bey)


async def _live_calls(doc: dict[str, Any], ops: dict[tuple[str, str], Any], call: Any) -> None:
    """Issue 12: a live season's creation, joins, status and season-admin acts (a far-future
    close, more than an hour after the gateway's clock (SEASON_NOW) and within the year
    of D-37)."""
    close = {"mode": "live", "registration_closes_at": _days_ahead(30)}
    admin = "/v1/seasons/{season_id}/admin/"
    r = await call(
        "post", "/v1/seasons", "/v1/seasons",
        json={**close, "memleket": 6, "name": "Ayşe", "description": "Akşamcılar"},
    )  # fmt: skip
    assert r.status_code == 201, r.text
    assert not _validate(doc, ops[("post", "/v1/seasons")], r), r.text
    one = r.json()
    sid, admin_token = one["season_id"], bearer(one["admin_token"])
    r = await call("get", "/v1/seasons/{season_id}", f"/v1/seasons/{sid}")
    assert not _validate(doc, ops[("get", "/v1/seasons/{season_id}")], r), r.text
    reset = "/v1/ops/seasons/{season_id}/beys/{seat}/name/reset"
    r = await call("post", reset, f"/v1/ops/seasons/{sid}/beys/1/name/reset",
                   json={"reason": "r"}, headers=bearer(OPS_TOKEN))  # fmt: skip
    assert r.status_code == 200, r.text
    reset = "/v1/ops/seasons/{season_id}/description/reset"  # ADR-105
    r = await call("post", reset, f"/v1/ops/seasons/{sid}/description/reset",
                   json={"reason": "r"}, headers=bearer(OPS_TOKEN))  # fmt: skip
    assert r.status_code == 200, r.text
    later = {"reason": "r", "registration_closes_at": _days_ahead(37)}
    await call("post", admin + "postpone", f"/v1/seasons/{sid}/admin/postpone", json=later,
               headers=admin_token)  # fmt: skip
    await call("post", admin + "cancel", f"/v1/seasons/{sid}/admin/cancel", json={"reason": "r"},
               headers=admin_token)  # fmt: skip
    r = await call("post", "/v1/seasons", "/v1/seasons", json=close)
    two = r.json()
    sid, admin_token = two["season_id"], bearer(two["admin_token"])
    beys = []
    for plate in range(1, 20):  # the 19th join closes registration: the season runs
        r = await call("post", "/v1/seasons/{season_id}/join", f"/v1/seasons/{sid}/join",
                       json={"memleket": plate})  # fmt: skip
        beys.append(bearer(r.json()["token"]))
    await _chat_calls(call, sid, beys[0], beys[1])
    for act in ("pause", "resume"):
        await call("post", admin + act, f"/v1/seasons/{sid}/admin/{act}", json={"reason": "r"},
                   headers=admin_token)  # fmt: skip


async def _chat_calls(call: Any, sid: str, a: dict[str, str], b: dict[str, str]) -> None:
    """Issue 24: the chat's operations, on the live season (seats 1 and 2)."""
    s, c = f"/v1/seasons/{sid}", "/v1/seasons/{season_id}"
    staff = [bearer(OPS_TOKEN), bearer(AUDITOR_TOKEN)]
    r = await call("post", f"{c}/messages", f"{s}/messages", json={"to": [2], "text": "x"},
                   headers=a)  # fmt: skip
    message, channel = r.json()["message_id"], r.json()["channel_id"]
    await call("get", f"{c}/channels", f"{s}/channels", headers=b)
    await call("get", f"{c}/channels/{{channel_id}}/messages", f"{s}/channels/{channel}/messages",
               headers=b)  # fmt: skip
    await call("post", f"{c}/channels/{{channel_id}}/read", f"{s}/channels/{channel}/read",
               json={"read_to": message}, headers=b)  # fmt: skip
    await call("post", f"{c}/messages/{{message_id}}/report", f"{s}/messages/{message}/report",
               json={"reason": "r"}, headers=b)  # fmt: skip
    await call("post", f"{c}/mutes/{{seat}}", f"{s}/mutes/1", json={"muted": True}, headers=b)
    await call("get", f"{c}/chat/reports", f"{s}/chat/reports", headers=staff[0])
    await call("post", f"{c}/messages/{{message_id}}/hide", f"{s}/messages/{message}/hide",
               json={"reason": "R-15.2"}, headers=staff[0])  # fmt: skip
    await call("get", f"{c}/audit/chat-acts", f"{s}/audit/chat-acts", headers=staff[1])
    # ADR-106: the exports' chat lines (ops' whole, an auditor's without private words)
    r = await call("post", f"{c}/messages", f"{s}/messages", json={"to": "all", "text": "y"},
                   headers=a)  # fmt: skip
    assert r.status_code == 201, r.text
    for path, who in (("/v1/ops/seasons/{season_id}/export", 0), (f"{c}/export", 1)):
        r = await call("get", path, path.replace("{season_id}", sid), headers=staff[who])
        assert r.status_code == 200 and b'{"chat":5,' in r.content, r.text


async def test_a_live_seasons_reads_and_an_ended_stream_validate_against_the_document(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """Issue 11: the summary of a live season (calendar, next_divan_at, lock countdown), its
    map (memleket_of), a bey's PrivateView with treaties and counted missions, and the 204 of
    the stream of a season that is over are what the served document says."""
    season_id = tokens.new_season_id()
    token, rotated = new_bey_token(season_id, 1)
    chunks = list(season_chunks(4, season_id))
    async with open_gateway(memory_store, redis, prefix, lambda: CREATED_AT) as (_gw, client):
        doc = (await client.get(SCHEMA)).json()
        ops = {(m, p): op for p, item in doc["paths"].items() for m, op in item.items()}
        projector = Projector(memory_store, redis, prefix)
        for n, chunk in enumerate([[*chunks[0], rotated], *chunks[1:]]):
            await append_chunk(memory_store, season_id, chunk, f"chunk/{n}")
            await projector.catch_up(season_id)
            if n not in (0, 5, len(chunks) - 1):  # registration closed, Divan 5, the end
                continue
            s = f"/v1/seasons/{season_id}"
            for path, headers in [
                ("/v1/seasons/{season_id}/summary", {}),
                ("/v1/seasons/{season_id}/map", {}),
                ("/v1/seasons/{season_id}/private", bearer(token)),
            ]:
                r = await client.get(path.replace("{season_id}", season_id), headers=headers)
                assert r.status_code == 200, r.text
                assert _validate(doc, ops[("get", path)], r) == [], (n, path)
            summary = (await client.get(f"{s}/summary")).json()["status"]
            assert summary["calendar"] is not None
        r = await client.get(f"/v1/seasons/{season_id}/events")
        assert r.status_code == 204
        assert "204" in ops[STREAM]["responses"]


async def test_issue_13_fork_origins_and_corrections_are_typed_in_the_document(
    memory_store: InMemoryEventStore, redis: aioredis.Redis, prefix: str
) -> None:
    """D-32: `forked_from` is a ForkedFrom {season_id, divan} or null in the command side's
    status and the read side's summary; ADR-53: a report's kind may be "correction", and the
    explain answer lists its corrections, each with its typed correction."""
    async with open_gateway(memory_store, redis, prefix) as (_gw, client):
        doc = (await client.get(SCHEMA)).json()
    schemas = doc["components"]["schemas"]
    assert set(schemas["ForkedFrom"]["required"]) == {"season_id", "divan"}
    for owner in ("SeasonStatus", "SeasonMeta"):
        options = schemas[owner]["properties"]["forked_from"]["oneOf"]
        assert {o.get("$ref", o.get("type")) for o in options} == {
            "#/components/schemas/ForkedFrom",
            "null",
        }, owner
    assert "correction" in schemas["Report"]["properties"]["kind"]["enum"]
    notes = schemas["ExplainOut"]["properties"]["corrections"]["items"]["$ref"]
    note = schemas[notes.rsplit("/", 1)[1]]
    assert {"version", "divan", "correction", "reason", "tr", "en"} <= set(note["required"])


def test_every_operation_documents_how_to_ask_for_a_language_and_which_it_answered() -> None:
    """Issue 11 (docs/api.md Language): every operation takes `?lang=` (for links) and
    `Accept-Language`, and every answer says its language in `Content-Language`: a client
    generated from the document may pass them, typed, and read it."""
    app = create_app(Settings())
    doc = app.openapi_schema.to_schema()
    missing = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            names = {(p["name"], p["in"]) for p in op.get("parameters", [])}
            if not {("lang", "query"), ("Accept-Language", "header")} <= names:
                missing.append((method, path, "parameters"))
            lang = (
                next(p for p in op.get("parameters", []) if p["name"] == "lang")
                if ("lang", "query") in names
                else {}
            )
            if lang and (lang["required"] or lang["schema"].get("type") != "string"):
                missing.append((method, path, "lang"))
            for status, response in op["responses"].items():
                if "Content-Language" not in response.get("headers", {}):
                    missing.append((method, path, status))
    assert missing == []


def test_every_answers_headers_are_typed_and_retry_after_is_where_the_api_sends_it() -> None:
    """A generated client reads headers typed (`Location` was `unknown`), and finds Retry-After
    on every 429 and 503 (all of them carry it, docs/api.md) and on a 409 that may be
    `divan_locked`."""
    app = create_app(Settings())
    doc = app.openapi_schema.to_schema()
    wrong = []
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                headers = response.get("headers", {})
                wrong += [
                    (method, path, status, h) for h, v in headers.items() if "schema" not in v
                ]
                locked = "`divan_locked`" in response.get("description", "")
                if (status in ("429", "503") or locked) and "Retry-After" not in headers:
                    wrong.append((method, path, status, "Retry-After"))
    assert wrong == []
