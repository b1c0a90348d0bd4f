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

An answer of MIN_GZIP bytes or more to a request without credentials goes gzip-compressed to a
client that accepts it (`Accept-Encoding`, shared/app/http/encoding.py), with `Vary:
Accept-Encoding` on either form and an ETag of its own (the identity form's, `-gzip` added
inside the quotes): the static board is 18 KB as JSON and ~4 KB compressed, on a phone's first
load. Answers to requests with credentials are never compressed: a bey's private view holds
secrets beside text other beys chose (chat, names), the shape length leaks of the BREACH
family need, and they are small. The same body asked again (the board, a season's public map
read by every bey after a Divan) is compressed once (`gzipped`).
"""

from __future__ import annotations

import gzip
import hashlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from shared.app.http.encoding import accepts_gzip

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Any]  # as Litestar's middleware list takes it (shared.app.http.bodies too)

MIN_GZIP = 1024  # bytes: below a packet or two compression saves nothing worth its CPU
GZIP_KEPT = 256  # compressed bodies kept by ETag (each at most GZIP_KEPT_MAX bytes)
GZIP_KEPT_MAX = 1 << 20
_kept: dict[str, bytes] = {}


def gzipped(etag: str, body: bytes) -> bytes:
    """`body` gzip-compressed (no timestamp: the same bytes each time), kept by its ETag."""
    found = _kept.get(etag)
    if found is None:
        found = gzip.compress(body, compresslevel=6, mtime=0)
        if len(body) <= GZIP_KEPT_MAX:
            if len(_kept) >= GZIP_KEPT:
                del _kept[next(iter(_kept))]  # the oldest kept
            _kept[etag] = found
    return found


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
    send: Send,
    start: Message,
    body: bytes,
    wanted: bytes | None,
    *,
    private: bool,
    gzip_ok: bool,
) -> None:
    """Send a buffered JSON answer with its ETag, or 304 with none if `wanted` names it;
    compressed when it may be (the module's doc)."""
    etag = etag_of(body)
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
    extra: list[tuple[bytes, bytes]] = []
    compressible = (
        not private and len(body) >= MIN_GZIP and _header(headers, b"content-encoding") is None
    )
    compress = compressible and gzip_ok
    if compress:
        etag = etag[:-1] + '-gzip"'
    extra.append((b"etag", etag.encode()))
    if compressible:
        extra.append((b"vary", b"Accept-Encoding"))
    if _header(headers, b"cache-control") is None:  # a handler's own policy stands
        extra.append((b"cache-control", b"private, no-cache" if private else b"no-cache"))
    if matches(wanted.decode("latin-1") if wanted else None, etag):
        await send({**start, "status": 304, "headers": headers + extra})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
        return
    if compress:
        body = gzipped(etag, body)
        extra.append((b"content-encoding", b"gzip"))
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
        coding = _header(request_headers, b"accept-encoding")
        gzip_ok = not private and accepts_gzip(coding.decode("latin-1") if coding else None)
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
            body = b"".join(chunks)
            await _answer(send, start, body, wanted, private=private, gzip_ok=gzip_ok)

        await app(scope, receive, buffered)

    return middleware
