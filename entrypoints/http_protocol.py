"""The server's HTTP protocol: uvicorn's httptools one, with a request target too long for
the product handed to the app as such instead of refused by uvicorn in plain text (ADR-156,
shared/app/http/uri_limit.py)."""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from shared.app.http.uri_limit import MAX_TARGET_BYTES, TOO_LONG


class TargetLimitedProtocol(HttpToolsProtocol):
    """A target over MAX_TARGET_BYTES is not kept (nor parsed: httptools' parse_url fails at
    64 KiB, uvicorn then answered a plain-text 400): the app gets `/` with the scope marked
    TOO_LONG, and answers 414 `uri_too_long` as problem+json."""

    _target_bytes = 0

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._target_bytes = 0

    def on_url(self, url: bytes) -> None:
        self._target_bytes += len(url)
        if self._target_bytes <= MAX_TARGET_BYTES:
            super().on_url(url)

    def on_headers_complete(self) -> None:
        if self._target_bytes > MAX_TARGET_BYTES:
            self.url = b"/"
            self.scope[TOO_LONG] = self._target_bytes  # type: ignore[typeddict-unknown-key]
        super().on_headers_complete()
