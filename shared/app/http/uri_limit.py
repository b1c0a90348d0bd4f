"""414 `uri_too_long` as problem+json (ADR-156): a request target longer than the product takes.

uvicorn's HTTP parser (httptools) splits the request target with 16-bit offsets: a target of
64 KiB or more failed there and uvicorn wrote its own plain-text `400 Invalid HTTP request
received.`, before any ASGI app ran. The server's protocol (entrypoints/http_protocol.py)
stops keeping a target once it is over MAX_TARGET_BYTES, hands the app `/` with the scope
marked TOO_LONG (its length), and `refuse_long_targets`, around the whole app, answers 414
`uri_too_long` in the language asked for, as every other refusal is answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from shared.app.http.language import negotiate
from shared.app.http.openapi_problems import problem_body
from shared.domain import messages

# Far above any URL either API or the client makes (the longest are a few hundred bytes), and
# below httptools' 64 KiB, so every over-long target is the product's to answer.
MAX_TARGET_BYTES: Final = 16 * 1024
TOO_LONG: Final = "seksenbir.uri_too_long"  # the scope key: the target's length in bytes

ASGIApp = Callable[..., Any]  # as shared.app.http.head's


def refuse_long_targets(handler: ASGIApp) -> ASGIApp:
    """`handler`, but a request whose target the server marked TOO_LONG is 414 `uri_too_long`."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        length = scope.get(TOO_LONG)
        if length is None or scope["type"] != "http":
            await handler(scope, receive, send)
            return
        lang = negotiate(scope)
        details = {"length": length, "limit": MAX_TARGET_BYTES}
        detail = messages.render("uri_too_long", lang, details)
        body = problem_body("uri_too_long", 414, detail, "/", lang)
        await send(
            {
                "type": "http.response.start",
                "status": 414,
                "headers": [
                    (b"content-type", b"application/problem+json"),
                    (b"content-language", lang.encode()),
                    (b"vary", b"Accept-Language"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    return guarded
