"""HEAD wherever GET is served (RFC 9110 §9.3.2; ADR-61), around the router of both APIs.

Litestar routes HEAD only to handlers declared for it, and refuses a handler that is both GET
and HEAD unless it returns no body, so every GET resource answered HEAD with 405. `answer_head`
wraps the app's ASGI handler (outside routing, like entrypoints.metrics.timed): a HEAD request
goes through as the GET it asks about, so it meets every check GET meets, in the same order,
and gets GET's status and headers (ETag, Cache-Control, Content-Type, Content-Length and the
rest; 304 on a matching If-None-Match), then an empty body. A path that takes no GET still
answers HEAD 405 (it routes as a GET, which the path does not take).

A streamed answer (an export's JSONL, the event stream) ends with its headers: once they are
sent, the app's receive channel says the client has gone, which ends the stream as a GET's
client leaving would (its slot and subscription released), and nothing more is sent.

Every `Allow` header that lists GET lists HEAD too (405 answers, and OPTIONS, which Litestar
answers 204 on every path).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

ASGIApp = Callable[..., Any]
_END = {"type": "http.response.body", "body": b"", "more_body": False}


# RFC 9110's order of its methods, then PATCH; a method not listed goes after them, by name.
_METHOD_ORDER = {
    m: n for n, m in enumerate((b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"))
}


def _method_key(method: bytes) -> tuple[int, bytes]:
    return _METHOD_ORDER.get(method, len(_METHOD_ORDER)), method


def _with_head(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The headers, with HEAD beside GET in Allow, and Allow in one order: Litestar builds it
    from a set, whose order differs between processes (string hashing is seeded per process),
    so two gateways answered one request with two Allow headers."""
    out = []
    for name, value in headers:
        if name.lower() == b"allow":
            methods: set[bytes] = {m.strip() for m in value.split(b",")} - {b""}
            if b"GET" in methods:
                methods.add(b"HEAD")
            ordered = sorted(methods, key=_method_key)
            out.append((name, b", ".join(ordered)))
        else:
            out.append((name, value))
    return out


def _allowing(send: Any) -> Any:
    """`send`, with HEAD named in an Allow header that names GET."""

    async def allowing(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and message.get("headers"):
            message = {**message, "headers": _with_head(list(message["headers"]))}
        await send(message)

    return allowing


async def _as_get(app: ASGIApp, scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A HEAD request run as its GET: the GET's start sent, then an empty end, nothing else."""
    started = False

    async def head_send(message: dict[str, Any]) -> None:
        nonlocal started
        if message["type"] == "http.response.start" and not started:
            started = True
            await send({**message, "headers": _with_head(list(message.get("headers", [])))})
            await send(_END)
        # every body message of the GET is dropped: the answer ended with its headers

    async def head_receive() -> dict[str, Any]:
        if started:  # a streamed answer listens for the client leaving: it has
            return {"type": "http.disconnect"}
        message: dict[str, Any] = await receive()
        return message

    # A copy: the server reads the method of its own scope to send no body after a HEAD. The
    # route template routing adds is copied back, for the access log around this
    # (entrypoints.metrics.timed), which says HEAD and the route
    as_get = {**scope, "method": "GET"}
    try:
        await app(as_get, head_receive, head_send)
    finally:
        if "path_template" in as_get:
            scope["path_template"] = as_get["path_template"]


def answer_head(app: ASGIApp) -> ASGIApp:
    """The app, answering HEAD as GET without a body (and naming HEAD wherever Allow has GET)."""

    async def handler(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
        elif scope["method"] == "HEAD":
            await _as_get(app, scope, receive, send)
        else:
            await app(scope, receive, _allowing(send))

    return handler
