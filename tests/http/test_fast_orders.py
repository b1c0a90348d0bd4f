"""The order fast path (services/command/fast_orders.py, ADR-124) answers exactly as Litestar's
own path: one corpus of requests (valid orders, replays, every refusal, malformed and hostile
ones, the limits) sent in the same order to two identical worlds, one app with the fast path
and one without, gives the same status, headers (but the date), body bytes, access-log line,
the services' log lines and event log; and the plain requests really took the fast path."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import secrets
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import msgspec
import pytest
import structlog
from hypothesis import given
from hypothesis import settings as settings_h
from hypothesis import strategies as st
from litestar import Request as LitestarRequest
from litestar._asgi.asgi_router import ASGIRouter

from entrypoints import gateway, metrics
from services.command import fast_orders, unit_of_work
from shared.app.access.request_auth import edge_checks
from shared.app.http import ratelimit
from shared.eventstore import InMemoryEventStore
from shared.logs import configure_logging
from tests.clock import StepClock
from tests.http.support import (
    OPS_TOKEN,
    Api,
    api_clock,
    build_season,
    log_bytes,
    open_api,
    settings,
)

MEMLEKETS = [6, 34, 35]
HOLD = {"orders": [{"province": 6, "kind": "hold"}]}
Request = tuple[str, str, list[tuple[str, str]], bytes]  # method, path, headers, body


def _json(value: Any) -> bytes:
    return msgspec.json.encode(value)


def corpus(sid: str, other: str, token: str, token2: str, stranger: str) -> list[Request]:
    path = f"/v1/seasons/{sid}/orders"
    auth = [("authorization", f"Bearer {token}")]
    js = [("content-type", "application/json")]
    ok = _json(HOLD)
    advance = _json({"orders": [{"province": 6, "kind": "advance", "target": 14, "units": 2}]})
    r: list[Request] = [
        ("POST", path, auth + js, ok),
        ("POST", path, [*auth, *js, ("idempotency-key", "k1")], ok),
        ("POST", path, [*auth, *js, ("idempotency-key", "k1")], ok),  # the replay
        ("POST", path, [*auth, *js, ("idempotency-key", "k1")], advance),  # the key reused
        ("POST", path, [*auth, *js, ("idempotency-key", "k" * 200)], advance),
        ("POST", path, [*auth, *js, ("accept-language", "en")], ok),
        ("POST", path, [*auth, *js, ("accept-language", "en;q=0.1, tr;q=0.9")], ok),
        ("POST", path, [*auth, ("content-type", "application/json; charset=utf-8")], ok),
        ("POST", path, [*auth, ("content-type", "application/vnd.x+json")], ok),
        ("POST", path, [*auth, *js, ("x-request-id", "req-1")], ok),
        ("POST", path, auth + js, _json({"divan": 1, **HOLD})),
        ("POST", path, auth + js, _json({"divan": 5, **HOLD})),
        ("POST", path, auth + js, _json({"orders": [{"province": 34, "kind": "hold"}]})),
        ("POST", path, auth + js, _json({"orders": [{"province": 6, "kind": "advance"}]})),
        ("POST", path, auth + js, _json({"orders": [{"province": 6, "kind": "x"}]})),
        ("POST", path, auth + js, _json({"orders": [{"province": 6, "kind": "hold"}] * 2})),
        ("POST", path, auth + js, _json({"orders": []})),
        # malformed bodies
        ("POST", path, auth + js, b'{"orders": ['),
        ("POST", path, auth + js, b'{"orders": "hold", '),
        ("POST", path, auth + js, b"\xff\xfe"),
        ("POST", path, auth + js, b'{"orders": [], "orders": []}'),
        ("POST", path, auth + js, b'{"orders": ' + b"[" * 40 + b"]" * 40 + b"}"),
        ("POST", path, auth + js, _json({**HOLD, "extra": 1})),
        ("POST", path, auth + js, b'{"orders": [{"province": 6, "kind": "hold", "units": "3"}]}'),
        ("POST", path, auth + js, b'{"orders": [{"province": 99, "kind": "hold"}]}'),
        ("POST", path, auth + js, b"null"),
        ("POST", path, auth + js, b"[]"),
        ("POST", path, auth + js, b""),
        ("POST", path, auth, b""),
        ("POST", path, auth + js, _json({**HOLD, "pad": "x" * 70_000})),
        # content types
        ("POST", path, auth, ok),
        ("POST", path, [*auth, ("content-type", "text/plain")], ok),
        ("POST", path, [*auth, ("content-type", "application/json; charset=latin-1")], ok),
        ("POST", path, [*auth, ("content-type", "application/json; x=y")], ok),
        ("POST", path, [*auth, *js, *js], ok),
        # tokens
        ("POST", path, js, ok),
        ("POST", path, [("authorization", "Bearer nonsense"), *js], ok),
        ("POST", path, [("authorization", "Basic abc"), *js], ok),
        ("POST", path, [("authorization", f"Bearer {token2}"), *js], ok),
        ("POST", path, [("authorization", f"Bearer {stranger}"), *js], ok),
        ("POST", path, [("authorization", f"Bearer {OPS_TOKEN}"), *js], ok),
        ("POST", path, [*auth, *auth, *js], ok),
        ("POST", path, [("authorization", f"Bearer {token}, Bearer x"), *js], ok),
        ("POST", path + f"?token={token}", js, ok),
        ("POST", path + "?lang=en", auth + js, ok),
        ("POST", path + "?lang=en", js, ok),
        # keys
        ("POST", path, [*auth, *js, ("idempotency-key", "")], ok),
        ("POST", path, [*auth, *js, ("idempotency-key", "k" * 201)], ok),
        ("POST", path, [*auth, *js, ("idempotency-key", "a"), ("idempotency-key", "b")], ok),
        # paths, hosts, origins, methods
        ("POST", f"/v1/seasons/{other}/orders", auth + js, ok),
        ("POST", f"/v1/seasons/{'0' * 32}/orders", auth + js, ok),
        ("POST", f"/v1/seasons/{sid.upper()}/orders", auth + js, ok),
        ("POST", f"/v1/seasons/{sid}x/orders", auth + js, ok),
        ("POST", "/v1/seasons/%00/orders", auth + js, ok),
        ("POST", "/v1/seasons/ş/orders", auth + js, ok),
        ("POST", f"/v1/seasons/{sid}/orders/", auth + js, ok),
        ("POST", f"/v1//seasons/{sid}/orders", auth + js, ok),
        ("POST", f"/v1/seasons/{sid}/orders/x", auth + js, ok),
        ("POST", path, [*auth, *js, ("origin", "http://elsewhere")], ok),
        ("POST", path, [*auth, *js, ("host", "bad host")], ok),
        ("GET", path, auth, b""),
        ("PUT", path, auth + js, ok),
        ("OPTIONS", path, [], b""),
    ]
    # a middleware of the test's (`_boom`, ADR-151), when there: raising before the app, on
    # the answer's start or on its body (after the start: no problem can be sent then)
    r += [("POST", path, [*auth, *js, ("x-boom", where)], ok) for where in BOOMS]
    r += [("POST", path, [("authorization", "Bearer nonsense"), *js, ("x-boom", "start")], ok)]
    # other routes, beside the fast path (ADR-151: its dispatch is outside `timed` now)
    r += [
        ("GET", "/health", [], b""),
        ("GET", "/nowhere", [], b""),
        ("HEAD", f"/v1/seasons/{sid}", auth, b""),
        ("POST", f"/v1/seasons/{sid}/join", js, _json({"memleket": 7})),
        ("POST", f"/v1/seasons/{sid}/chat", auth + js, _json({"text": "selam"})),
        ("POST", f"/v1/seasons/{sid}/orders?lang=en", [*auth, *js, ("x-boom", "app")], ok),
    ]
    # the failed-token limit (a 401 counted per address), then a valid order after it
    r += [("POST", path, [("authorization", "Bearer nonsense"), *js], ok)] * 30
    r += [("POST", path, auth + js, ok)]
    return r


BOOMS = ("app", "start", "body")


class Boom(RuntimeError):
    """What `_boom` raises."""


def _boom(app: Any) -> Any:
    """A middleware a later change could add (ADR-151): `x-boom: app` raises before the app is
    called, `start` on the answer's start, `body` on its body; other requests pass through."""

    async def boom(scope: dict[str, Any], receive: Any, send: Any) -> None:
        where = dict(scope["headers"]).get(b"x-boom", b"").decode()
        if where == "app":
            raise Boom(where)

        async def sending(message: dict[str, Any]) -> None:
            if message["type"].rpartition(".")[2] == where:
                raise Boom(where)
            await send(message)

        await app(scope, receive, sending)

    return boom


def _with_boom(mp: pytest.MonkeyPatch, where: str) -> None:
    """The app's middleware list with `_boom` first (outside the language) or last."""
    listed = gateway.command_app.middleware

    def middleware(*args: Any) -> list[Any]:
        made = listed(*args)
        return [_boom, *made] if where == "first" else [*made, _boom]

    mp.setattr(gateway.command_app, "middleware", middleware)


def _deterministic(monkeypatch: pytest.MonkeyPatch) -> None:
    """Season ids, tokens and command ids the same in both worlds."""
    hexes, urls, ids = itertools.count(1), itertools.count(1), itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(ids), version=4))
    monkeypatch.setattr(secrets, "token_hex", lambda n=32: f"{next(hexes):0{2 * n}x}")
    monkeypatch.setattr(
        secrets, "token_urlsafe", lambda n=32: f"t{next(urls):0{-(-4 * n // 3) - 1}d}"
    )


def service_lines(out: io.StringIO) -> list[dict[str, Any]]:
    """The services' JSON lines, keys in order, without their timestamp (and of a traceback,
    what was raised)."""
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    for line in lines:
        line.pop("timestamp")
        if "exception" in line:  # a traceback's frames are each path's own: its last line
            line["exception"] = line["exception"].rstrip().rpartition("\n")[2]
    return lines


def _service_log(mp: pytest.MonkeyPatch, fast: bool) -> io.StringIO:
    """The services' JSON lines of a world, through structlog's chain as configure_logging
    sets it: the modules that log on the way get loggers first used under it (a module's own
    keeps the chain it was first used under, maybe another test's console one)."""
    out = io.StringIO()
    configure_logging(json=True, level="INFO", file=out)
    for module in (unit_of_work, ratelimit):
        mp.setattr(module, "log", structlog.get_logger(f"{module.__name__}.{fast}"))
    return out


def _counting_reads(mp: pytest.MonkeyPatch) -> list[int]:
    """How many bodies the fast path's `bare` route (ADR-134) read, without a Request."""
    count, read_body = [0], fast_orders.read_body

    async def reading(*args: Any) -> bytes:
        count[0] += 1
        return await read_body(*args)

    mp.setattr(fast_orders, "read_body", reading)
    return count


@asynccontextmanager
async def world(fast: bool, config: dict[str, Any], mp: pytest.MonkeyPatch) -> AsyncIterator[Api]:
    """An app on a store of its own; `fast` False: create_app without the fast path; `boom`
    in `config`: `_boom` among the app's middlewares, first or last."""
    config = dict(config)
    if (boom := config.pop("boom", None)) is not None:
        _with_boom(mp, boom)
    if not fast:
        mp.setattr(gateway, "orders_fast", lambda _app, handler, _timing: handler)
    async with open_api(
        InMemoryEventStore(clock=StepClock()),
        settings(**config),
        clock=api_clock(),
        limiter_clock=lambda: 1000.0,  # the limits' buckets fill alike in both worlds
        timing=True,  # timed and logged as `serve` runs it
    ) as api:
        # hostile paths ("…/orders/") are answered by the router as before, which the
        # documented-problems hook does not map to an operation: here both paths compare
        api.client.event_hooks["response"] = []
        yield api


async def send(api: Api, req: Request) -> httpx.Response | Exception:
    """The answer, or what the app raised to its server (a failure after the answer began)."""
    method, path, headers, body = req
    try:
        return await api.client.request(method, path, headers=headers, content=body)
    except Exception as exc:  # the server's: what reached it, and why
        return exc


def answer(r: httpx.Response | Exception) -> Any:
    """Status, headers and body (a 405's Allow in one order on both: shared.app.http.head); or
    the exception the app raised and its causes, with their messages."""
    if isinstance(r, Exception):
        chain: list[str] = []
        cause: BaseException | None = r
        while cause is not None:
            chain += [type(cause).__name__, str(cause)]
            cause = cause.__cause__
        return tuple(chain)
    headers = [(k, v) for k, v in r.headers.multi_items() if k.lower() != "date"]
    return r.status_code, headers, r.content


@pytest.mark.parametrize(
    "config",
    [
        pytest.param({}, id="defaults"),
        # the request limit refuses the corpus's last commands, the failed-token one sooner
        pytest.param({"commands_per_minute": 40, "auth_failures_per_minute": 3}, id="limited"),
        # CORS on: a request with an Origin is Litestar's (its CORS layer), the others not
        pytest.param({"cors_origins": ("http://elsewhere",)}, id="cors"),
        # a middleware added later, inside the language or outside it (ADR-151)
        pytest.param({"boom": "last"}, id="middleware-inside"),
        pytest.param({"boom": "first"}, id="middleware-outside"),
    ],
)
async def test_both_paths_answer_the_same(config: dict[str, Any]) -> None:
    routed: list[int] = []
    original_router = ASGIRouter.__call__

    async def counting(self: Any, scope: Any, receive: Any, send: Any) -> None:
        routed[-1] += 1
        await original_router(self, scope, receive, send)

    lines: list[tuple[Any, ...]] = []

    def logged(method: str, path: str, status: int, _seconds: float, sid: str | None) -> None:
        lines.append((method, path, status, sid))

    answers: dict[bool, list[Any]] = {}
    logs: dict[bool, list[Any]] = {}
    services: dict[bool, list[Any]] = {}
    reads: dict[bool, list[int]] = {}
    stores: dict[bool, bytes] = {}
    fast_taken: list[bool] = []
    requests: list[Request] = []
    structlog_config = structlog.get_config()
    for fast in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(ASGIRouter, "__call__", counting)
            mp.setattr(metrics, "access_log", logged)
            reads[fast] = _counting_reads(mp)
            _deterministic(mp)
            out = _service_log(mp, fast)
            async with world(fast, config, mp) as api:
                beys = await build_season(api.store, MEMLEKETS)
                strangers = await build_season(api.store, MEMLEKETS)
                requests = corpus(
                    beys[0].season_id,
                    strangers[0].season_id,
                    beys[0].token,
                    beys[1].token,
                    strangers[0].token,
                )
                got: list[Any] = []
                lines.clear()
                for req in requests:
                    routed.append(0)
                    got.append(answer(await send(api, req)))
                    if fast:
                        fast_taken.append(routed[-1] == 0)
                answers[fast], logs[fast] = got, list(lines)
                stores[fast] = await log_bytes(api.store)
            structlog.configure(**structlog_config)
            services[fast] = service_lines(out)
    for n, (a, b) in enumerate(zip(answers[True], answers[False], strict=True)):
        assert a == b, (n, requests[n][:3])
    assert logs[True] == logs[False]
    assert [list(x.items()) for x in services[True]] == [list(x.items()) for x in services[False]]
    assert sum(x["event"] == "command.accepted" for x in services[True]) >= 10
    assert stores[True] == stores[False]
    statuses = [a[0] for a in answers[True] if isinstance(a[0], int)]
    # the corpus reaches what it means to: accepted orders, refusals of every layer, limits
    reached = {200, 400, 401, 404, 405, 413, 415, 422, 429} | (
        {403, 409} if "commands_per_minute" not in config else set()
    )
    assert reached <= set(statuses), statuses
    if "boom" in config:  # each way a middleware fails was reached, on both paths alike
        _failed(answers[True])
    _took_the_fast_path(requests, fast_taken)
    # the plain requests the middlewares let through: read by `bare`, without a Request
    assert reads[True][0] >= 30 and reads[False][0] == 0


def _failed(answers: list[Any]) -> None:
    """`_boom` raised on an answer's start and on its body (the server got the exception) and
    before the app (the outer exception layer's 500)."""
    failed = [a for a in answers if isinstance(a[0], str)]
    assert {a[-1] for a in failed} == {"start", "body"}, failed
    assert sum(a[0] == 500 and b"internal" in a[2].lower() for a in answers) >= 2


def _took_the_fast_path(requests: list[Request], fast_taken: list[bool]) -> None:
    """The plain requests took the fast path, the others Litestar's."""
    for req, taken in zip(requests, fast_taken, strict=True):
        scope = {
            "type": "http",
            "method": req[0],
            "path": req[1].partition("?")[0],
            "query_string": req[1].partition("?")[2].encode(),
            "headers": [(k.encode(), v.encode()) for k, v in req[2]],
        }
        expected = "%" not in req[1] and fast_orders.plain(scope) is not None
        assert taken == expected, req[:3]
    assert sum(fast_taken) >= 30


_HEADER_NAMES = st.sampled_from(
    [b"authorization", b"idempotency-key", b"host", b"origin", b"content-type", b"x-other"]
)
_SEASON_IDS = st.one_of(
    st.text(alphabet="0123456789abcdef", min_size=32, max_size=32),
    st.text(max_size=40).filter(lambda s: "/" not in s),
)


@settings_h(max_examples=300, deadline=None)
@given(
    season=_SEASON_IDS,
    headers=st.lists(st.tuples(_HEADER_NAMES, st.binary(max_size=40)), max_size=5),
)
def test_a_plain_request_passes_the_edge_checks(
    season: str, headers: list[tuple[bytes, bytes]]
) -> None:
    """The fast path leaves out the app's edge checks (ADR-130): whatever `plain` takes,
    `edge_checks` lets through (Litestar's router would have set the same path parameters)."""
    scope = {
        "type": "http",
        "method": "POST",
        "path": f"/v1/seasons/{season}/orders",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
    }
    sid = fast_orders.plain(scope)
    if sid is None:
        return
    scope["path_params"] = {"season_id": sid}
    asyncio.run(edge_checks(LitestarRequest(scope)))  # type: ignore[arg-type]


@settings_h(max_examples=200, deadline=None)
@given(raw=st.lists(st.tuples(_HEADER_NAMES | st.binary(max_size=12), st.binary(max_size=40))))
def test_headers_of_is_the_headers_litestar_builds(raw: list[tuple[bytes, bytes]]) -> None:
    """ADR-134: the fast path's Headers are Litestar's, built without __init__'s ABC checks."""
    from litestar.datastructures.headers import Headers

    made, litestars = fast_orders.headers_of(raw), Headers(raw)
    assert type(made) is type(litestars) and vars(made) == vars(litestars)
    assert list(made.items()) == list(litestars.items())
    assert all(made.getall(k) == litestars.getall(k) for k in litestars)
    assert made.to_header_list() == litestars.to_header_list()


class _Chunks:
    """An ASGI receive of these messages, then a disconnect."""

    def __init__(self, *messages: dict[str, Any]) -> None:
        self.messages = list(messages)

    async def __call__(self) -> dict[str, Any]:
        return self.messages.pop(0) if self.messages else {"type": "http.disconnect"}


def _body(chunk: bytes, more: bool = False) -> dict[str, Any]:
    return {"type": "http.request", "body": chunk, "more_body": more}


@pytest.mark.parametrize(
    ("headers", "messages"),
    [
        pytest.param([], [_body(b'{"a": 1}')], id="one"),
        pytest.param(
            [(b"content-length", b"8")], [_body(b'{"a":'), _body(b" 1}")], id="a-lone-end"
        ),
        pytest.param([], [_body(b'{"a":', True), _body(b""), _body(b" 1}")], id="chunks"),
        pytest.param([], [_body(b"")], id="empty"),
        pytest.param([(b"content-length", b"x")], [_body(b"{}")], id="bad-length"),
        pytest.param([(b"content-length", b"11")], [_body(b"{}")], id="announced-over"),
        pytest.param([(b"content-length", b"10")], [_body(b"0123456789")], id="at-limit"),
        pytest.param([], [_body(b"01234", True), _body(b"567890")], id="streamed-over"),
        pytest.param([], [_body(b"{", True)], id="disconnect"),
        pytest.param([], [{"type": "http.other"}, _body(b"{}")], id="other-message"),
    ],
)
async def test_read_body_is_request_body(
    headers: list[tuple[bytes, bytes]], messages: list[dict[str, Any]]
) -> None:
    """ADR-134: the fast path's body read is Litestar's Request.body(): the same bytes, or the
    same refusal (its class, status and detail), with the route's body size limit."""
    from litestar import Litestar, post
    from litestar.utils.scope.state import ScopeState

    @post("/", request_max_body_size=10)
    async def route() -> None: ...

    app = Litestar([route])
    handler = app.routes[0].route_handler_map["POST"][0]  # type: ignore[union-attr]

    async def outcome(read: Any) -> Any:
        try:
            return await read()
        except Exception as exc:  # the refusal, as the exception layer sees it
            return type(exc), getattr(exc, "status_code", None), getattr(exc, "detail", None)

    scope: dict[str, Any] = {"type": "http", "method": "POST", "headers": headers}
    scope["route_handler"] = handler
    ScopeState.from_scope(scope)
    litestar = LitestarRequest(scope, _Chunks(*messages))
    ours = await outcome(
        lambda: fast_orders.read_body(
            fast_orders.headers_of(headers),
            _Chunks(*messages),
            handler.resolve_request_max_body_size(),
        )
    )
    assert ours == await outcome(litestar.body)


# Litestar's ExceptionHandlerMiddleware.__call__ (2.25.0), which `fast_orders.handled` follows
# line by line (its `except`) and `Caught` and the fast path's dispatch inline: an upgrade that
# changes it must be read again, and this digest renewed (ADR-151)
_EXCEPTION_LAYER_SHA256 = "a579d936179fdd304e1ab5d6827d3448e792ab7c48a2bce39246d995946d1df6"


def test_adr151_the_exception_layer_followed_is_litestars() -> None:
    import hashlib
    import inspect

    from litestar.middleware._internal.exceptions import ExceptionHandlerMiddleware

    source = inspect.getsource(ExceptionHandlerMiddleware.__call__)
    assert hashlib.sha256(source.encode()).hexdigest() == _EXCEPTION_LAYER_SHA256


async def test_adr151_a_plain_order_passes_one_send_wrapper() -> None:
    """ADR-151: a plain order's answer passes one send wrapper of the fast path's (`sent`: the
    language, the exception layers' flag, the timing), not the four it passed before (each
    exception layer's `capture_response_started`, content_language's `said`, timed's
    `watch`); the failed-token limit's own wrapper stays a middleware's."""
    import sys

    async with open_api(InMemoryEventStore(clock=StepClock()), settings(), timing=True) as api:
        bey = (await build_season(api.store, MEMLEKETS))[0]
        called: list[tuple[str, str]] = []

        def profile(frame: Any, event: str, _arg: Any) -> None:
            if event == "call":
                code = frame.f_code
                called.append((code.co_filename.rpartition("/")[2], code.co_name))

        sys.setprofile(profile)
        try:
            r = await api.client.post(
                f"/v1/seasons/{bey.season_id}/orders",
                json=HOLD,
                headers={"Authorization": f"Bearer {bey.token}", "Idempotency-Key": "one"},
            )
        finally:
            sys.setprofile(None)
    assert r.status_code == 200 and r.headers["content-language"] == "tr"
    assert ("fast_orders.py", "sent") in called
    for gone in (
        ("middleware.py", "capture_response_started"),
        ("language.py", "said"),
        ("metrics.py", "watch"),
        ("fast_orders.py", "captured"),
    ):
        assert gone not in called, gone
