"""ETags for every JSON answer to a GET: polling clients pay nothing when nothing changed.

An ASGI middleware: a 200 `application/json` answer to a GET gets a strong ETag, a digest of
its bytes, and, unless the handler set its own, `Cache-Control: no-cache` (a client may keep
it, but asks again: the answer is revalidated on every poll); a request whose `If-None-Match`
names that ETag is answered 304 with no body (RFC 9110 §13.1.2, §15.4.5). An answer that
already has an ETag or that is not JSON (the event stream) passes through untouched,
unbuffered. Answers to authenticated requests are `private`: a shared cache must not keep a
bey's view.

The read itself still happens (the projection is read from Redis), but the client receives and
parses nothing; bodies are small (a season's map is a few KB), so buffering one costs little.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Any]  # as Litestar's middleware list takes it (shared.app.http.bodies too)


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 §13.1.2: weak comparison; `*` matches any current representation."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    return etag in {t.strip().removeprefix("W/") for t in if_none_match.split(",")}


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


async def _answer(
    send: Send, start: Message, body: bytes, wanted: bytes | None, *, private: bool
) -> None:
    """Send a buffered JSON answer with its ETag, or 304 with none if `wanted` names it."""
    etag = etag_of(body)
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    extra = [(b"etag", etag.encode())]
    if _header(headers, b"cache-control") is None:  # a handler's own policy stands
        extra.append((b"cache-control", b"private, no-cache" if private else b"no-cache"))
    if matches(wanted.decode("latin-1") if wanted else None, etag):
        await send({**start, "status": 304, "headers": headers + extra})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    length = (b"content-length", str(len(body)).encode())
    await send({**start, "headers": [*headers, *extra, length]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def conditional_get(app: ASGIApp) -> ASGIApp:
    """Wrap `app`: ETag and 304 for JSON answers to GET (see the module docstring)."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await app(scope, receive, send)
            return
        request_headers = scope["headers"]
        wanted = _header(request_headers, b"if-none-match")
        private = _header(request_headers, b"authorization") is not None
        start: Message | None = None
        chunks: list[bytes] = []
        passthrough = False

        async def buffered(message: Message) -> None:
            nonlocal start, passthrough
            if passthrough:
                await send(message)
                return
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = _header(headers, b"content-type") or b""
                if (
                    message["status"] != 200
                    or not kind.startswith(b"application/json")
                    or _header(headers, b"etag") is not None
                ):
                    passthrough = True
                    await send(message)
                    return
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await _answer(send, start, b"".join(chunks), wanted, private=private)

        await app(scope, receive, buffered)

    return middleware
