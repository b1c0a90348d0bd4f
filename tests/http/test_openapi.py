"""The OpenAPI schema the app serves (ARCHITECTURE Interfaces: HTTP JSON under /v1, OpenAPI)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from services.command.routes import ROUTES
from shared.domain.admin import ADMIN_ACTS
from tests.http.support import Api

SCHEMA = "/v1/schema/openapi.json"

# Every route of the command API (services/command/routes.ROUTES), by (method, OpenAPI path).
V1_OPERATIONS = {
    ("post", "/v1/seasons"),
    # issue 24: the chat
    ("post", "/v1/seasons/{season_id}/messages"),
    ("get", "/v1/seasons/{season_id}/channels"),
    ("get", "/v1/seasons/{season_id}/channels/{channel_id}/messages"),
    ("post", "/v1/seasons/{season_id}/channels/{channel_id}/read"),
    ("post", "/v1/seasons/{season_id}/messages/{message_id}/report"),
    ("post", "/v1/seasons/{season_id}/mutes/{seat}"),
    ("get", "/v1/seasons/{season_id}/chat/reports"),
    ("post", "/v1/seasons/{season_id}/messages/{message_id}/hide"),
    ("get", "/v1/seasons/{season_id}/audit/chat-acts"),
    ("get", "/v1/seasons/{season_id}"),
    ("get", "/v1/seasons/{season_id}/me"),
    ("post", "/v1/seasons/{season_id}/orders"),
    ("post", "/v1/seasons/{season_id}/spend"),
    ("post", "/v1/seasons/{season_id}/offers"),
    ("post", "/v1/seasons/{season_id}/offers/{to}/withdraw"),
    ("post", "/v1/seasons/{season_id}/offers/{frm}/answer"),
    ("post", "/v1/seasons/{season_id}/kurultay/vote"),
    ("post", "/v1/seasons/{season_id}/divans"),
    ("post", "/v1/seasons/{season_id}/token"),
    ("post", "/v1/ops/seasons/{season_id}/beys/{seat}/token"),
    ("get", "/v1/ops/seasons/{season_id}/export"),
    ("get", "/v1/seasons/{season_id}/export"),
    ("get", "/v1/ops/seasons/{season_id}/divans/{divan}/explain"),
    ("post", "/v1/ops/seasons/{season_id}/divans/{divan}/what-if"),
    ("post", "/v1/seasons/{season_id}/fork"),
    ("post", "/v1/ops/seasons/{season_id}/corrections"),  # ADR-53
    ("get", "/v1/seasons/{season_id}/audit/ops-reads"),  # ADR-53
    ("post", "/v1/ops/seasons/{season_id}/corrections/dry-run"),  # issue 26
    ("get", "/v1/ops/seasons/{season_id}/verify"),  # issue 26
    ("post", "/v1/ops/seasons/{season_id}/beys/{seat}/name/reset"),
    ("post", "/v1/ops/seasons/{season_id}/description/reset"),  # ADR-105
    ("post", "/v1/seasons/{season_id}/join"),
    *{("post", f"/v1/seasons/{{season_id}}/admin/{act}") for act in ADMIN_ACTS},
    ("post", "/v1/players"),  # issue 23
    ("post", "/v1/players/{player_id}/key"),
    ("post", "/v1/players/{player_id}/leave"),
    # issue 25: webhooks, push subscriptions, the push key
    ("post", "/v1/seasons/{season_id}/webhooks"),
    ("get", "/v1/seasons/{season_id}/webhooks"),
    ("delete", "/v1/seasons/{season_id}/webhooks/{webhook_id}"),
    ("post", "/v1/seasons/{season_id}/webhooks/{webhook_id}/rotate"),
    ("get", "/v1/push/key"),
    ("post", "/v1/seasons/{season_id}/push-subscriptions"),
    ("get", "/v1/seasons/{season_id}/push-subscriptions"),
    ("delete", "/v1/seasons/{season_id}/push-subscriptions/{subscription_id}"),
}
# Operations that read a JSON body, and those that require an Idempotency-Key.
WITH_BODY = {
    "/v1/seasons",
    "/v1/seasons/{season_id}/orders",
    "/v1/seasons/{season_id}/spend",
    "/v1/seasons/{season_id}/offers",
    "/v1/seasons/{season_id}/offers/{frm}/answer",
    "/v1/seasons/{season_id}/kurultay/vote",
    "/v1/seasons/{season_id}/divans",
    "/v1/seasons/{season_id}/join",
    "/v1/ops/seasons/{season_id}/divans/{divan}/what-if",
    "/v1/seasons/{season_id}/fork",
    "/v1/ops/seasons/{season_id}/corrections",
    "/v1/ops/seasons/{season_id}/corrections/dry-run",
    "/v1/ops/seasons/{season_id}/beys/{seat}/name/reset",
    "/v1/ops/seasons/{season_id}/description/reset",
    *{f"/v1/seasons/{{season_id}}/admin/{act}" for act in ADMIN_ACTS},
    "/v1/players",
    "/v1/seasons/{season_id}/webhooks",
    "/v1/seasons/{season_id}/push-subscriptions",
}
KEYED = {
    "/v1/seasons/{season_id}/spend",
    "/v1/seasons/{season_id}/offers",
    "/v1/seasons/{season_id}/messages",  # optional (ADR-175)
}


async def schema(api: Api) -> dict[str, Any]:
    r = await api.client.get(SCHEMA)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/vnd.oai.openapi+json")
    return r.json()  # type: ignore[no-any-return]


def operations(doc: dict[str, Any]) -> set[tuple[str, str]]:
    return {(method, path) for path, item in doc["paths"].items() for method in item}


def app_operations() -> set[tuple[str, str]]:
    """The routes the code declares, as OpenAPI (method, path) pairs."""
    out = set()
    for handler in ROUTES:
        for path in handler.paths:
            openapi_path = "/v1" + re.sub(r"\{(\w+):\w+\}", r"{\1}", path)
            out |= {(m.lower(), openapi_path) for m in handler.http_methods}
    return out


async def test_openapi_schema_lists_every_command_route(memory_api: Api) -> None:
    """ARCHITECTURE Interfaces: GET /v1/schema/openapi.json of the command API answers 200 and
    lists every operation it serves (those declared in routes.ROUTES, exactly the ones named
    above). Both APIs' operations: tests/projections/test_access_matrix.py's route table."""
    doc = await schema(memory_api)
    assert doc["openapi"].startswith("3.")
    assert app_operations() == V1_OPERATIONS
    assert operations(doc) == V1_OPERATIONS
    assert all(path.startswith("/v1/") for _m, path in operations(doc))
    ids = [op["operationId"] for item in doc["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids))


@pytest.mark.integration
async def test_openapi_schema_is_served_on_the_postgres_stack(pg_api: Api) -> None:
    """ARCHITECTURE Interfaces: the same schema with the PostgreSQL store wired in."""
    assert operations(await schema(pg_api)) == V1_OPERATIONS


async def test_openapi_schema_documents_request_bodies_auth_and_idempotency_key(
    memory_api: Api,
) -> None:
    """ARCHITECTURE Interfaces, RELIABILITY 24: the schema says what each operation takes."""
    doc = await schema(memory_api)
    for path in WITH_BODY:
        body = doc["paths"][path]["post"].get("requestBody")
        assert body, path
        assert "application/json" in body["content"], path
    for path in KEYED:
        headers = {p["name"].lower() for p in doc["paths"][path]["post"].get("parameters", [])}
        assert "idempotency-key" in headers, path
    assert doc.get("components", {}).get("securitySchemes"), "no bearer scheme"


async def test_openapi_a_chat_message_declares_its_optional_key_and_its_answers(
    memory_api: Api,
) -> None:
    """ADR-175: the chat send's Idempotency-Key is optional, and its 400, 409 and 422 about
    the key are declared (before: no header, none of the three)."""
    op = (await schema(memory_api))["paths"]["/v1/seasons/{season_id}/messages"]["post"]
    (header,) = [p for p in op["parameters"] if p["name"].lower() == "idempotency-key"]
    assert header["in"] == "header" and not header.get("required")
    said = {s: op["responses"][s]["description"] for s in ("400", "409", "422")}
    assert "`bad_idempotency_key`" in said["400"]
    assert "`idempotency_key_in_flight`" in said["409"]
    assert "`idempotency_key_reused`" in said["422"]


async def test_openapi_schema_documents_answers_and_problem_json(memory_api: Api) -> None:
    """ARCHITECTURE Interfaces (RFC 9457): documented answers match what the API sends."""
    doc = await schema(memory_api)
    for path, item in doc["paths"].items():
        for method, op in item.items():
            for status, response in op["responses"].items():
                content = response.get("content", {})
                if status.startswith("2") and "application/json" in content:
                    assert content["application/json"]["schema"].get("type") != "string", (
                        method,
                        path,
                    )
                if status.startswith(("4", "5")):
                    assert "application/problem+json" in content, (method, path, status)


async def test_openapi_divan_request_names_its_divan(memory_api: Api) -> None:
    """R-1.2 (issue 9 item 4): the body {"divan": n} is required; 202 resolving, 200 resolved."""
    doc = await schema(memory_api)
    op = doc["paths"]["/v1/seasons/{season_id}/divans"]["post"]
    body = op["requestBody"]
    assert body["required"] is True
    ref = body["content"]["application/json"]["schema"]["$ref"]
    divan_in = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert divan_in["required"] == ["divan"]
    assert divan_in["properties"]["divan"]["type"] == "integer"
    for status in ("200", "202"):
        out = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        answer = doc["components"]["schemas"][out.rsplit("/", 1)[1]]
        assert answer["properties"]["status"]["enum"] == ["resolving", "resolved"]
    assert {"409", "422"} <= set(op["responses"])


async def test_openapi_documents_live_seasons_with_typed_bodies(memory_api: Api) -> None:
    """Issue 12: the live creation's answer, the join and the season-admin acts are typed."""
    doc = await schema(memory_api)
    schemas = doc["components"]["schemas"]
    created = doc["paths"]["/v1/seasons"]["post"]["responses"]["201"]["content"]
    refs = {r["$ref"].rsplit("/", 1)[1] for r in created["application/json"]["schema"]["oneOf"]}
    assert refs == {"CreatedOut", "LiveCreatedOut"}
    assert {"admin_token", "calendar"} <= set(schemas["LiveCreatedOut"]["required"])
    create_in = schemas["CreateSeasonIn"]["properties"]
    assert {"registration_closes_at", "divan_interval_seconds", "mode"} <= set(create_in)
    assert set(schemas["CalendarOut"]["required"]) == {
        "registration_closes_at",
        "divans",
        "kurultay_closes_at",
        "provisional",
        "compressed",
    }
    join = doc["paths"]["/v1/seasons/{season_id}/join"]["post"]
    assert join["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/JoinedOut"
    )
    for act, spec in ADMIN_ACTS.items():
        op = doc["paths"][f"/v1/seasons/{{season_id}}/admin/{act}"]["post"]
        assert op["security"], act
        body = "/AdminIn" if spec.takes_close else "/ReasonIn"  # only a postponement: a close
        assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(body)
    assert set(schemas["ReasonIn"]["properties"]) == {"reason"}
    assert set(schemas["AdminIn"]["properties"]) == {"reason", "registration_closes_at"}
    status = schemas["SeasonStatus"]["properties"]
    assert {"calendar", "next_divan_at", "locked", "seconds_to_lock", "admin_acts"} <= set(status)


async def test_openapi_says_a_lone_surrogate_escape_is_malformed_json(memory_api: Api) -> None:
    """Probe (session 22): docs/api.md said a body holding a `\\u` escape of half a UTF-16
    surrogate pair alone (`\\ud800`: no character, RFC 8259 §8.2) is 400 `malformed_json`;
    the served document did not. Every operation that can answer `malformed_json` says it in
    its 400 answer and in the code's meaning beside its examples."""
    doc = await schema(memory_api)
    seen = 0
    for path, item in doc["paths"].items():
        for method, op in item.items():
            answer = op["responses"].get("400")
            if answer is None or "`malformed_json`" not in answer["description"]:
                continue
            seen += 1
            said = answer["description"].split("`malformed_json`: ", 1)[1]
            assert "surrogate" in said and "\\ud800" in said, (method, path, said)
            example = answer["content"]["application/problem+json"]["examples"]["malformed_json"]
            assert "surrogate" in example["summary"], (method, path)
    assert seen >= len(WITH_BODY)
