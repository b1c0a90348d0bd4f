"""The language of an answer (docs/api.md "Language"): Turkish unless English is asked for.

`?lang=en` (or `tr`) wins, for links a browser follows; else `Accept-Language` (RFC 9110
§12.5.4) with its quality values, the better of tr and en; else Turkish. Every answer of both
APIs says which it chose (`Content-Language`) and that it depends on the header
(`Vary: Accept-Language`), so a cache keeps the two apart.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping
from typing import Any, cast
from urllib.parse import parse_qs

from shared.domain.messages import DEFAULT, LANGS, Lang

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[..., Any]


def _supported(tag: str) -> Lang | None:
    primary = tag.strip().lower().partition("-")[0]
    return next((lang for lang in LANGS if lang == primary), None)


def accept_language(header: str | None) -> Lang | None:
    """The best of tr and en an Accept-Language header asks for, or None (`*` or neither)."""
    best: tuple[float, int, Lang] | None = None
    for i, item in enumerate((header or "").split(",")):
        tag, _, rest = item.partition(";")
        lang = _supported(tag)
        if lang is None:
            continue
        q = 1.0
        name, _, value = rest.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value)
            except ValueError:
                continue
        if q > 0 and (best is None or (q, -i) > (best[0], best[1])):
            best = (q, -i, lang)
    return best[2] if best else None


# Where content_language keeps the language it chose for a request, in the request's scope:
# the handlers' negotiate reads it instead of parsing the query and headers again.
CHOSEN = "seksenbir.lang"


def negotiate(scope: Mapping[str, object]) -> Lang:
    """The language an HTTP request asks for (see the module docstring)."""
    chosen = scope.get(CHOSEN)
    if isinstance(chosen, str):
        return cast("Lang", chosen)
    raw = scope.get("query_string", b"")
    # find, not `in` (bytes.__contains__ makes and drops a TypeError first: ADR-145); an empty
    # query string (every order) looks for nothing
    if isinstance(raw, bytes) and raw and (raw.find(b"lang") >= 0 or raw.find(b"%") >= 0):
        for value in parse_qs(raw.decode("latin-1")).get("lang", ()):
            if (lang := _supported(value)) is not None:
                return lang
    header = None
    for name, raw_value in cast("Iterable[tuple[bytes, bytes]]", scope.get("headers", ())):
        if name.lower() == b"accept-language":
            header = raw_value.decode("latin-1")
            break
    else:  # no Accept-Language (most API clients): nothing to parse
        return DEFAULT
    return accept_language(header) or DEFAULT


def content_language(app: ASGIApp) -> ASGIApp:
    """Wrap `app`: every HTTP answer gets Content-Language and Vary: Accept-Language."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        lang = scope[CHOSEN] = negotiate(scope)

        async def said(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": with_language(message.get("headers", []), lang)}
            await send(message)

        await app(scope, receive, said)

    return middleware


# A replayed answer already in a language (a stored refusal) names it in this private header,
# which the middleware takes off: it never reaches the client.
STORED_LANGUAGE = b"x-seksenbir-stored-language"


def with_language(headers: list[tuple[bytes, bytes]], lang: Lang) -> list[tuple[bytes, bytes]]:
    """An answer's headers as `content_language` sends them: Content-Language (the stored one
    if the answer names it), Vary with Accept-Language (the order fast path's one send
    wrapper calls it too: ADR-151)."""
    language, vary = lang.encode(), b""
    kept: list[tuple[bytes, bytes]] = []
    for k, v in headers:  # one pass, each name lowered once (an answer's every header)
        name = k.lower()
        if name == STORED_LANGUAGE:
            language = v
        elif name == b"vary":
            vary = vary + b", " + v if vary else v
        elif name != b"content-language":
            kept.append((k, v))
    # find, not `in` (bytes.__contains__ makes and drops a TypeError first: ADR-145, ADR-151)
    if vary.lower().find(b"accept-language") < 0:
        vary = vary + b", Accept-Language" if vary else b"Accept-Language"
    return [*kept, (b"content-language", language), (b"vary", vary)]
