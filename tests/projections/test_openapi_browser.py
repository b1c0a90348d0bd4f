"""Issue 11: the served OpenAPI document (both APIs, as the gateway serves them) is a contract
a browser client can be generated from: the event stream's events, its `ticket` and resuming are
documented, and no integer in it is one JavaScript cannot hold exactly (the seed is a string)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis.asyncio as aioredis

from services.projections import streamlog
from shared.eventstore import InMemoryEventStore
from tests.clock import StepClock
from tests.documented import PROBLEM, documented_codes
from tests.projections.support import Gateway

NO_REDIS = "redis://127.0.0.1:9/0"


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    gw = Gateway(InMemoryEventStore(clock=StepClock()), aioredis.Redis.from_url(NO_REDIS), "doc")
    return gw.app.openapi_schema.to_schema()  # type: ignore[no-any-return]


def test_issue_11_the_event_stream_documents_its_events_ticket_and_resume(
    doc: dict[str, Any],
) -> None:
    """The event stream's event names (`ready` first), the `ticket` parameter and resuming
    (`Last-Event-ID`) are in the document a client is generated from."""
    op = doc["paths"]["/v1/seasons/{season_id}/events"]["get"]
    names = {p["name"].lower() for p in op.get("parameters", [])}
    assert {"ticket", "last-event-id"} <= names, names
    text = json.dumps(op)
    for event in ("ready", "divan_report", "private_report", "kurultay_report", "season_over"):
        assert event in text, event


BROWSER_MAX = 2**53 - 1  # JSON.parse keeps integers exactly only up to here


def _integers(node: Any, at: str = "$") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(node, dict):
        if node.get("type") == "integer" or "integer" in (node.get("type") or []):
            out.append((at, node))
        for k, v in node.items():
            out += _integers(v, f"{at}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _integers(v, f"{at}[{i}]")
    return out


def test_issue_11_no_documented_integer_is_one_a_browser_cannot_hold(doc: dict[str, Any]) -> None:
    """The seed (0 … 2^63 − 1) travels as a decimal string both ways; no integer the document
    declares may reach past 2^53 − 1, the largest a browser's JSON.parse keeps exactly."""
    for at, schema in _integers(doc):
        assert schema.get("format") != "int64" or schema.get("maximum", 0) <= BROWSER_MAX, at
        assert schema.get("maximum", 0) <= BROWSER_MAX, at
        assert not at.endswith(".seed"), f"{at}: the seed is a decimal string"
    seeds = _strings_named(doc, "seed")
    assert len(seeds) >= 3, seeds  # the request (CreateSeasonIn), the status, the meta


def _strings_named(node: Any, name: str, at: str = "$") -> list[str]:
    out: list[str] = []
    if isinstance(node, dict):
        for k, v in node.items():
            if k == name and isinstance(v, dict) and '"type": "string"' in json.dumps(v):
                out.append(f"{at}.{k}")
            out += _strings_named(v, name, f"{at}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += _strings_named(v, name, f"{at}[{i}]")
    return out


def test_no_two_types_share_a_component_name(doc: dict[str, Any]) -> None:
    """Issue 20: every type of the document (both APIs, as the gateway serves them) has a name
    of its own. Litestar keys two types of one name by their modules
    (`command_schemas_OrdersOut`) but both keep the title `OrdersOut`, which generators name
    their models by: one of the two is then dropped (a Python client typed
    `GET /orders/{divan}` as Any)."""
    schemas = doc["components"]["schemas"]
    renamed = {key: s.get("title") for key, s in schemas.items() if s.get("title") != key}
    assert renamed == {}, f"types that share a name with another (key: title): {renamed}"


def test_each_operations_problems_are_typed_with_exactly_its_codes(doc: dict[str, Any]) -> None:
    """Issue 20: every problem answer of an operation is its own schema (`<Operation>Problem`),
    whose `code` is an enum of exactly the codes the operation documents (the one list
    `answers` builds; every refusal a test receives is checked against it: tests/documented.py),
    so a generated client types `error.code` and the members those codes carry."""
    schemas = doc["components"]["schemas"]
    for path, item in doc["paths"].items():
        for method, op in item.items():
            codes = documented_codes(doc, method, path)
            refs = {
                response["content"][PROBLEM]["schema"].get("$ref")
                for response in op["responses"].values()
                if PROBLEM in response.get("content", {})
            }
            if not codes:
                assert refs == set(), (method, path)
                continue
            assert len(refs) == 1, (method, path, refs)
            (ref,) = refs
            assert ref is not None and ref.endswith("Problem"), (method, path, ref)
            schema = schemas[ref.rsplit("/", 1)[1]]
            code = schema["properties"]["code"]  # one code alone is a `const`
            assert sorted(code.get("enum", [code.get("const")])) == sorted(codes), (method, path)
            assert {"type", "title", "status", "code", "detail", "instance"} <= set(
                schema["required"]
            )
    join = schemas["JoinSeasonProblem"]["properties"]
    assert join["free_neighbours"]["type"] == "array"
    assert join["free_neighbours"]["items"] == {"type": "integer"}


def test_the_event_streams_messages_are_schemas_told_apart_by_event(doc: dict[str, Any]) -> None:
    """Issue 20: a generator sees the stream's messages, not only `x-events`: the 200 answer is
    one of a schema per event name (`event`, `id`, `data`), discriminated by `event`, and each
    message's `data` is the payload `x-events` describes for that name. (Real frames are
    validated against both: tests/projections/sse.py `undocumented`.)"""
    op = doc["paths"]["/v1/seasons/{season_id}/events"]["get"]
    schema = op["responses"]["200"]["content"]["text/event-stream"]["schema"]
    mapping = schema["discriminator"]["mapping"]
    assert schema["discriminator"]["propertyName"] == "event"
    assert list(mapping) == list(op["x-events"]) == list(streamlog.EVENTS)
    assert sorted(r["$ref"] for r in schema["oneOf"]) == sorted(mapping.values())
    schemas = doc["components"]["schemas"]
    for name, ref in mapping.items():
        message = schemas[ref.rsplit("/", 1)[1]]
        assert set(message["required"]) == {"event", "id", "data"}, name
        assert message["properties"]["event"]["const"] == name
        payload = schemas[message["properties"]["data"]["$ref"].rsplit("/", 1)[1]]
        described = op["x-events"][name]["data"]
        assert set(payload["properties"]) == set(described["properties"]), name
        assert set(payload.get("required", [])) == set(described.get("required", [])), name
