"""Request bodies: JSON nested deeper than MAX_DEPTH is refused before anything decodes it.

A decoder recurses once per nesting level: `{"orders": [[[…976 deep…]]]}` or 1,000 nested
objects raised RecursionError (500). No body of the API nests deeper than a few levels, so
every request body is scanned as it arrives, in one linear pass over its bytes that tracks the
depth of `[`/`{` outside JSON strings (escapes respected, across chunk boundaries), and the
first level beyond MAX_DEPTH raises `TooDeep`, which the app answers 400 `malformed_json`.
The scan runs in the receive channel, so it covers every body any handler of either API
reads, and a body nobody reads is never scanned (nor decoded).
"""

from __future__ import annotations

import json
import re
from _json import make_encoder
from collections.abc import Callable
from json.encoder import encode_basestring
from typing import Any, cast

MAX_DEPTH = 32
_OUTSIDE = re.compile(rb'[\[\]{}"]')  # what changes the depth or starts a string
_INSIDE = re.compile(rb'["\\]')  # what ends a string or escapes the next byte
_OPEN = frozenset(b"[{")
_QUOTE = ord('"')
_BACKSLASH = ord("\\")

ASGIApp = Callable[..., Any]


class TooDeep(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels")  # answered in a language by
        # shared.app.http.problems.too_deep (malformed_json.too_deep)
        self.limit = limit


class DepthScanner:
    """Feed a body's chunks in order; raises TooDeep at the first level beyond `limit`.

    It does not validate JSON (the decoder does): it only makes sure the decoder never sees
    nesting deeper than `limit`. Brackets inside strings do not count."""

    __slots__ = ("depth", "escaped", "in_string", "limit")

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        self.limit = limit
        self.depth = 0
        self.in_string = False
        self.escaped = False  # the previous chunk ended with a backslash inside a string

    def feed(self, chunk: bytes) -> None:  # noqa: C901 — one byte scanner whose state carries across chunks
        i, n = 0, len(chunk)
        if self.escaped and n:
            i, self.escaped = 1, False
        while i < n:
            if self.in_string:
                m = _INSIDE.search(chunk, i)
                if m is None:
                    return
                if chunk[m.start()] == _BACKSLASH:
                    i = m.start() + 2
                    if i > n:
                        self.escaped = True
                    continue
                self.in_string = False
                i = m.end()
                continue
            m = _OUTSIDE.search(chunk, i)
            if m is None:
                return
            byte, i = chunk[m.start()], m.end()
            if byte == _QUOTE:
                self.in_string = True
            elif byte in _OPEN:
                self.depth += 1
                if self.depth > self.limit:
                    raise TooDeep(self.limit)
            else:
                self.depth -= 1

    def feed_last(self, chunk: bytes) -> None:
        """The body's last chunk. No state is read after it, so a chunk that cannot open more
        levels than are left, counting every opening bracket (even inside a string), is not
        scanned byte by byte: the common small body costs two counts (issue 27)."""
        if self.depth + chunk.count(b"[") + chunk.count(b"{") <= self.limit:
            return
        self.feed(chunk)


def limit_json_depth(limit: int = MAX_DEPTH) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware (a factory of ASGI apps): every HTTP request body is scanned by a
    DepthScanner as the app receives it; TooDeep propagates to the app's exception handlers."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def scanned(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            scanner = DepthScanner(limit)

            async def receive_scanned() -> dict[str, Any]:
                message: dict[str, Any] = await receive()
                if message["type"] == "http.request":
                    body = message.get("body", b"")
                    if message.get("more_body", False):
                        scanner.feed(body)
                    else:
                        scanner.feed_last(body)
                return message

            await app(scope, receive_scanned, send)

        return scanned

    return middleware


class DuplicateKey(ValueError):
    """An object names `key` twice: JSON leaves that undefined (RFC 8259 §4), and parsers
    resolve it differently, so a request body or an export line doing it is refused."""

    def __init__(self, key: str) -> None:
        super().__init__(f"the name {key!r} appears twice in one object")
        self.key = key


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads`'s object_pairs_hook: the object, or DuplicateKey for a key named twice."""
    found = dict(pairs)  # one C call; only an object shorter than its pairs is looked through
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return found


# Built once: json.loads and json.dumps with arguments build a decoder or encoder per call.
_PAIRS = json.JSONDecoder(object_pairs_hook=unique_pairs)
_FLAGS = re.VERBOSE | re.MULTILINE | re.DOTALL  # json.decoder's own pattern flags
# the C scanner _PAIRS.decode calls, with the same hook; what it skips around the value (the
# stubs name neither: both are CPython's json.decoder since 3.x)
_SCAN: Callable[[str, int], tuple[Any, int]] = _PAIRS.scan_once  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*", _FLAGS).match  # always matches (maybe nothing)
# json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)'s C encoder, built once
# (JSONEncoder.encode builds it, and a floatstr closure, on every call: ADR-145): the same
# arguments, but no circular-reference markers, which a parsed JSON value (a tree) never needs.
_CANONICAL = make_encoder(
    None, json.JSONEncoder().default, encode_basestring, None, ":", ",", True, False, True
)


def _decoded(body: bytes) -> Any:
    """`_PAIRS.decode(body.decode(json.detect_encoding(body), "surrogatepass"))`: the same
    value, or a ValueError where it raises one (its message aside, which nobody reads), without
    JSONDecoder.decode's and raw_decode's Python layers around the C scanner, and UTF-8 known
    at once for a body opening with `{` and no NUL after it (no BOM, not UTF-16 or UTF-32: what
    detect_encoding finds then): ~60 % of the parse's time on an order (ADR-145;
    tests/http/test_order_pieces.py holds it equal to json.loads for any bytes)."""
    utf8 = body[0] == 0x7B and (len(body) < 2 or body[1] != 0)
    text = body.decode("utf-8" if utf8 else json.detect_encoding(body), "surrogatepass")
    start = cast("re.Match[str]", _SPACE(text, 0)).end()
    try:
        value, end = _SCAN(text, start)
    except StopIteration:  # raw_decode's "Expecting value"
        raise ValueError("Expecting value") from None
    if end != len(text) and cast("re.Match[str]", _SPACE(text, end)).end() != len(
        text
    ):  # decode's "Extra data"
        raise ValueError("Extra data")
    return value


class ParsedBody:
    """One parse of a request body by the stdlib's decoder, refusing a key named twice in an
    object (unique_pairs): what the duplicate-key check (shared.app.http.strict) and the canonical
    form (an Idempotency-Key's request hash) both read, so a body is parsed once, not twice.
    Runs after the depth scan (MAX_DEPTH levels at most) and on at most the 64 KiB a body may
    have."""

    __slots__ = ("_canonical", "body", "repeated", "value")

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.value: Any = None
        self.repeated: str | None = None  # the first key an object repeats
        self._canonical: bytes | None = body  # the body itself unless it is one JSON value
        if not body:
            return
        try:  # as json.loads(body, object_pairs_hook=unique_pairs) does, without its set-up
            self.value = _decoded(body)
        except DuplicateKey as repeated:
            self.repeated = repeated.key
            return
        except (ValueError, RecursionError):  # not JSON: msgspec refuses it, with its reasons
            return
        self._canonical = None  # encoded when asked for: only a keyed request needs it

    @property
    def canonical(self) -> bytes:
        """The body as the same request, whatever its layout (issue 20 item 8, ADR-76): parsed
        and re-encoded with sorted keys and no whitespace, so keys reordered, spaces or
        escapes do not make another request; the body itself when it is not one JSON value
        (the decoder refuses it: any bytes make that request). A lone surrogate (`"\\ud800"`,
        or its raw bytes, both read by the decoder) is encoded as its raw bytes, as it was read:
        strict UTF-8 has none, and a keyed request holding one answered 500."""
        if self._canonical is None:
            self._canonical = "".join(_CANONICAL(self.value, 0)).encode("utf-8", "surrogatepass")
        return self._canonical


def canonical_json(body: bytes) -> bytes:
    """ParsedBody(body).canonical: the form an Idempotency-Key's request hash is taken over."""
    return ParsedBody(body).canonical
