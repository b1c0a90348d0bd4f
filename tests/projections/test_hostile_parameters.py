"""Issue 20 item 1: no path or query parameter answers 5xx or logs a traceback, on any route.

A season id PostgreSQL cannot hold (a NUL; an invalid or over-long UTF-8 sequence, which the
server decodes to U+FFFD; an id longer than any stored one) reached asyncpg and answered 500
`internal` with a traceback, even before the token was checked; the ops read of a bey answered
503 `audit_unavailable` and logged a false `ops.secret_read_unrecorded`. The routes walked are
the app's own route table (every handler of every route, OPTIONS and the schema pages too), so
a route added later is walked without a line here; each path parameter and each query
parameter of a handler gets every hostile value, as every kind of caller (no token, a bey's,
an auditor's, an ops token). A season id that cannot exist is 404 `season_not_found` before
any token check or audit write (shared.app.http.parameters); every refusal is also one its
operation documents (tests.documented, installed on the client).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
import redis.asyncio as aioredis
from litestar.params import HeaderParameter
from litestar.routes import HTTPRoute

from entrypoints.gateway import create_app
from services.projections.projector import Projector
from shared.eventstore import InMemoryEventStore, PostgresEventStore
from tests.documented import PROBLEM, assert_documented
from tests.projections.support import AUDITOR_TOKEN, OPS_TOKEN, bearer, open_gateway, settings

# Percent-encoded, as a client sends them: a NUL; a UTF-16 surrogate, a byte that is never
# UTF-8, an over-long NUL and a lone continuation byte (the server decodes those to U+FFFD);
# a line break; a value longer than any id the store holds (100 characters).
HOSTILE = ("x%00", "%00", "%ED%A0%80", "%FF%FE", "%C0%80", "%80", "a%0Ab", "7" * 101)
# ... of which no season can have these (a NUL, a line break, 101 characters): 404
# `season_not_found` whatever else the request holds (the rest decode to a possible id, "���")
IMPOSSIBLE = {"x%00", "%00", "a%0Ab", "7" * 101}
ROLES = ("anonymous", "bey", "auditor", "ops")
# what a handler's signature names that is not a path or query parameter
NOT_QUERY = {"request", "data", "scope", "socket", "headers", "cookies", "state", "body"}


@dataclass(frozen=True)
class Handler:
    method: str
    path: str  # the route's template, /v1/seasons/{season_id:str}/orders/{divan:int}
    path_params: dict[str, type]
    query: tuple[str, ...]  # the handler's query parameters, by their names in the URL

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"


def _handlers() -> list[Handler]:
    """Every (method, route) of the app, with its path and query parameters, read from the
    app's own route table and each handler's signature (minus its dependencies)."""
    app = create_app(
        settings("hostile-routes"),
        store=InMemoryEventStore(clock=lambda: None),  # type: ignore[arg-type,return-value]
        enqueue=lambda *_: None,
        redis=aioredis.Redis(),
        rebuild=lambda _: None,
    )
    out = []
    for route in app.routes:
        assert isinstance(route, HTTPRoute), route.path  # no websocket route: walk it if added
        path_params = {name: p.type for name, p in route.path_parameters.items()}
        for handler in route.route_handlers:
            dependencies = handler.resolve_dependencies()
            query = []
            for name, p in handler.parsed_fn_signature.parameters.items():
                if name in NOT_QUERY or name in path_params or name in dependencies:
                    continue
                if isinstance(p.kwarg_definition, HeaderParameter):
                    continue
                kwarg = p.kwarg_definition  # its name in the URL, when it has one of its own
                query.append(getattr(kwarg, "name", None) or getattr(kwarg, "query", None) or name)
            query.extend(sorted(set(handler.resolve_layered_parameters()) - set(query)))
            query.append("lang")  # every operation's, read by the language middleware
            for method in sorted(handler.http_methods):
                out.append(Handler(method, route.path, path_params, tuple(query)))
    return out


HANDLERS = _handlers()
# A token rotation with the season's own id and a hostile `lang` succeeds: the bey's token is
# then a stale one, and every later bey request of the walk would be a 401 spending the client's
# failed-token budget. So the walk takes the rotations last (a stable sort keeps the rest's order).
WALK = sorted(HANDLERS, key=lambda h: h.method == "POST" and h.path.endswith("/token"))


def test_the_walk_reaches_the_season_routes_of_both_apis() -> None:
    """The route table is read, not listed: both APIs' season routes and the ops ones are in."""
    paths = {h.path for h in HANDLERS}
    assert "/v1/seasons/{season_id:str}" in paths  # command side
    assert "/v1/seasons/{season_id:str}/map" in paths  # read side
    assert "/v1/ops/seasons/{season_id:str}/beys/{seat:int}" in paths
    assert len(HANDLERS) > 60
    assert any(h.query for h in HANDLERS)


@dataclass
class World:
    client: httpx.AsyncClient
    app: Any
    season_id: str
    tokens: dict[str, str | None]


async def answer(
    app: Any, method: str, url: str, headers: dict[str, str], body: bytes = b""
) -> httpx.Response:
    """One request through the app's ASGI interface, as uvicorn passes it on (the path
    percent-decoded, an invalid UTF-8 sequence as U+FFFD; the query string as sent): the status,
    headers and body, where an event stream is left after its first chunk (it never ends)."""
    path, _, query = url.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": unquote(path),
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
        "client": ("127.0.0.1", 40000),
        "server": ("testserver", 80),
        "state": {},
    }
    sent = asyncio.Event()
    start: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if not sent.is_set():
            sent.set()
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    done = asyncio.Event()

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False) or chunks[-1]:
                done.set()

    task = asyncio.create_task(app(scope, receive, send))
    await done.wait()
    if not task.done():  # a stream: the client goes away
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return httpx.Response(
        start["status"],
        headers=[(k.decode(), v.decode()) for k, v in start.get("headers", [])],
        content=b"".join(chunks),
        request=httpx.Request(method, f"http://testserver{url}"),
    )


@pytest.fixture
async def world(
    event_store: PostgresEventStore, redis: aioredis.Redis, prefix: str
) -> AsyncIterator[World]:
    async with open_gateway(event_store, redis, prefix) as (gw, client):
        created = await client.post("/v1/seasons", json={"memleket": 6, "seed": "7"})
        assert created.status_code == 201, created.text
        body = created.json()
        await Projector(event_store, redis, prefix).sweep()
        tokens = {"anonymous": None, "bey": body["token"], "auditor": AUDITOR_TOKEN}
        yield World(client, gw.app, body["season_id"], {**tokens, "ops": OPS_TOKEN})


def _url(handler: Handler, season_id: str, hostile: dict[str, str]) -> str:
    path = handler.path
    for name, kind in handler.path_params.items():
        value = "1" if kind is int else season_id if name == "season_id" else "x"
        path = path.replace(f"{{{name}:{kind.__name__}}}", hostile.get(name, value))
    return path


def _requests(handler: Handler, season_id: str) -> Iterator[tuple[str, str]]:
    """(what, url): each hostile value in each path parameter, then in each query parameter."""
    for name in handler.path_params:
        for value in HOSTILE:
            yield f"path {name}={value}", _url(handler, season_id, {name: value})
    for name in handler.query:
        for value in HOSTILE:
            yield f"query {name}={value}", f"{_url(handler, season_id, {})}?{name}={value}"


def _bad_lines(logs: io.StringIO) -> list[str]:
    bad = []
    for line in logs.getvalue().splitlines():
        record = json.loads(line)
        if (
            "exception" in record
            or record.get("level") in ("error", "critical")
            or record.get("event") in ("api.unhandled", "ops.secret_read_unrecorded")
        ):
            bad.append(line[:300])
    return bad


@pytest.mark.parametrize("role", ROLES)
async def test_no_hostile_path_or_query_parameter_answers_5xx_or_logs_a_traceback(
    world: World, captured_logs: io.StringIO, role: str
) -> None:
    """Issue 20 item 1 (R-14: no token checked, no secret read recorded, for a season that
    cannot exist): every route of the app x every path and query parameter x every hostile
    value, as `role`; a hostile season id is 404 `season_not_found`."""
    headers = {**bearer(world.tokens[role]), "Idempotency-Key": f"hostile-{role}"}
    doc = world.app.openapi_schema.to_schema()
    failures = []
    walked = 0
    for handler in WALK:
        for what, url in _requests(handler, world.season_id):
            walked += 1
            content = b"{}" if handler.method in ("POST", "PUT", "PATCH") else None
            sent = {**headers, "Content-Type": "application/json"} if content else headers
            r = await answer(world.app, handler.method, url, sent, content or b"")
            if r.headers.get("content-type", "").startswith(PROBLEM) and r.status_code < 500:
                try:
                    assert_documented(doc, r)
                except AssertionError as undocumented:
                    failures.append(f"{handler.id} {what}: {undocumented}")
            if r.status_code >= 500:
                failures.append(f"{handler.id} {what}: {r.status_code} {r.text[:120]}")
            elif (
                what.startswith("path season_id")
                and what.split("=", 1)[1] in IMPOSSIBLE
                and handler.method != "OPTIONS"  # the router's Allow list: reads nothing
            ):
                code = r.json().get("code") if r.headers["content-type"].endswith("json") else None
                if (r.status_code, code) != (404, "season_not_found"):
                    failures.append(f"{handler.id} {what}: {r.status_code} {code}")
    assert walked > 500
    assert not failures, "\n".join(failures)
    assert not _bad_lines(captured_logs), "\n".join(_bad_lines(captured_logs))


async def test_an_ops_read_of_a_season_that_cannot_exist_is_404_and_records_nothing(
    world: World, captured_logs: io.StringIO
) -> None:
    """Issue 20 item 1 (R-14, ADR-53): `GET /v1/ops/seasons/x%00/beys/1` is 404, not 503
    `audit_unavailable`, and no false `ops.secret_read_unrecorded` reaches the log."""
    r = await world.client.get("/v1/ops/seasons/x%00/beys/1", headers=bearer(OPS_TOKEN))
    assert (r.status_code, r.json()["code"]) == (404, "season_not_found")
    r = await world.client.get(
        "/v1/ops/seasons/x%00/beys/1", headers={**bearer(OPS_TOKEN), "Accept-Language": "en"}
    )
    assert r.json()["detail"] == "There is no such season"
    assert "secret_read" not in captured_logs.getvalue()


def _scalar_query(handler: Handler) -> tuple[str, ...]:
    """The handler's query parameters that take one value (not `lang`, the language hint every
    operation takes, nor a list such as explain's repeatable `province`)."""
    return tuple(q for q in handler.query if q not in ("lang", "province"))


@pytest.mark.parametrize("role", ("anonymous", "ops"))
async def test_a_query_parameter_given_twice_is_refused_on_every_route(
    world: World, role: str
) -> None:
    """Issue 20 (probe, session 20): `?min_version=1&min_version=2` was taken silently, the
    first value read, and `?limit=2&limit=3` the last: the answer followed a value the client
    may not have meant. A parameter that takes one value, given twice, is 422
    `invalid_parameter` naming it (`repeated`), before any token is read, on every route that
    declares one; each refusal is one its operation documents."""
    doc = world.app.openapi_schema.to_schema()
    failures, walked = [], 0
    for handler in WALK:
        if handler.method == "OPTIONS":
            continue
        for name in _scalar_query(handler):
            walked += 1
            url = f"{_url(handler, world.season_id, {})}?{name}=1&{name}=2"
            r = await answer(world.app, handler.method, url, bearer(world.tokens[role]))
            body = r.json() if r.headers.get("content-type", "").startswith(PROBLEM) else {}
            got = (r.status_code, body.get("code"), body.get("field"), body.get("repeated"))
            if got != (422, "invalid_parameter", name, 2):
                failures.append(f"{handler.id} {name}: {got} {r.text[:120]}")
                continue
            assert_documented(doc, r)
    assert walked > 15
    assert not failures, "\n".join(failures)


async def test_a_list_parameter_and_the_language_hint_may_repeat(world: World) -> None:
    """What may repeat still does: explain's `province` (a list) and `lang` (the first language
    the server speaks wins, docs/api.md "Language")."""
    r = await world.client.get(f"/v1/seasons/{world.season_id}/map?lang=xx&lang=en")
    assert r.status_code == 200, r.text
    assert r.headers["content-language"] == "en"
    url = f"/v1/ops/seasons/{world.season_id}/divans/1/explain?province=6&province=34"
    r = await world.client.get(url, headers=bearer(OPS_TOKEN))
    assert (r.status_code, r.json()["code"]) == (404, "divan_not_found"), r.text


def _documented_bounds(doc: dict[str, Any], path: str, method: str) -> dict[str, tuple[int, int]]:
    """Each query parameter's bounds as the served document states them (a list's items')."""
    out = {}
    for p in doc["paths"][path][method].get("parameters", []):
        schema = p.get("schema", {})
        items = [s.get("items", {}) for s in schema.get("oneOf", []) if s.get("type") == "array"]
        found = items[0] if items else schema
        if p["in"] == "query" and "minimum" in found and "maximum" in found:
            out[p["name"]] = (found["minimum"], found["maximum"])
    return out


async def test_a_query_integer_out_of_bounds_is_refused_with_its_documented_bounds(
    world: World,
) -> None:
    """Probe (session 20): `?limit=0` on the lobby, `?province=0` on explain answered 422
    `invalid_parameter` without `minimum` and `maximum` ("The parameter limit is invalid"),
    as a path or body integer has them (D-27); now the bounds the document states."""
    doc = world.app.openapi_schema.to_schema()
    walked = []
    for handler in WALK:
        path = re.sub(r":\w+}", "}", handler.path)
        if handler.method == "OPTIONS" or path not in doc["paths"]:
            continue
        for name, (low, high) in _documented_bounds(doc, path, handler.method.lower()).items():
            if name == "min_version":
                continue  # its own check, with the stored version (test_read_your_writes.py)
            url = f"{_url(handler, world.season_id, {})}?{name}={high + 1}"
            r = await answer(world.app, handler.method, url, bearer(OPS_TOKEN))
            body = r.json()
            got = (r.status_code, body.get("field"), body.get("minimum"), body.get("maximum"))
            walked.append((handler.id, name, got))
            assert got == (422, name, low, high), (handler.id, name, r.text)
    assert len(walked) >= 8, walked
