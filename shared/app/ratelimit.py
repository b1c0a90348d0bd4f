"""Failed-token limiter (RELIABILITY 24): a client that keeps sending bad tokens gets 429.

Every 401 answer costs the client's address one token from a bucket of `per_minute`, refilled
evenly over a minute. While a client's bucket is empty, every request of it that carries an
Authorization header is answered 429 `too_many_failed_attempts` with Retry-After, before any
token is checked; requests without credentials (public reads, creating a trial season) pass.
A bey token has 192 random bits, so this is not what keeps tokens safe: it keeps a guesser
from costing the server a hash and a lookup per guess, and makes a sweep visible in the logs.

Per process (each API process keeps its own buckets, bounded in number), and keyed by the
ASGI client address: behind a reverse proxy on another host, set uvicorn's FORWARDED_ALLOW_IPS
to the proxy, so that the address is the player's (from X-Forwarded-For) and not the proxy's.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import structlog

from shared.app.openapi import problem_body

log = structlog.get_logger(__name__)
MAX_CLIENTS = 50_000  # buckets kept; the least recently failed are forgotten first

ASGIApp = Callable[..., Any]


class _Bucket:
    __slots__ = ("at", "level")

    def __init__(self, level: float, at: float) -> None:
        self.level = level
        self.at = at


class AuthFailures:
    """Token buckets of failed authentications, by client address."""

    def __init__(
        self, per_minute: int, clock: Callable[[], float] = time.monotonic, size: int = MAX_CLIENTS
    ) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0  # tokens per second
        self._clock = clock
        self._size = size
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()

    def _level(self, bucket: _Bucket, now: float) -> float:
        return min(self.capacity, bucket.level + (now - bucket.at) * self.rate)

    def retry_after(self, client: str) -> int | None:
        """Seconds until this client may try again, or None if it may now."""
        bucket = self._buckets.get(client)
        if bucket is None:
            return None
        level = self._level(bucket, self._clock())
        if level >= 1.0:
            return None
        return max(1, math.ceil((1.0 - level) / self.rate))

    def failed(self, client: str) -> None:
        now = self._clock()
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(self.capacity, now)
        bucket.level = self._level(bucket, now) - 1.0
        bucket.at = now
        self._buckets.move_to_end(client)
        while len(self._buckets) > self._size:
            self._buckets.popitem(last=False)
        if bucket.level < 1.0:
            # no address in the log: nothing about a player is kept (ARCHITECTURE, Access)
            log.warning("auth.failures_limited")


def limit_failed_auth(failures: AuthFailures) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware (a factory of ASGI apps) applying `failures` to HTTP requests."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            client = scope["client"][0] if scope.get("client") else "?"
            if any(name == b"authorization" for name, _ in scope["headers"]):
                wait = failures.retry_after(client)
                if wait is not None:
                    await _too_many(send, wait, scope.get("path", ""))
                    return

            async def watch(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and message["status"] == 401:
                    failures.failed(client)
                await send(message)

            await app(scope, receive, watch)

        return guarded

    return middleware


async def _too_many(send: Any, wait: int, path: str) -> None:
    detail = (
        f"Çok fazla geçersiz jeton denendi; {wait} saniye sonra tekrar deneyin / "
        f"too many invalid tokens; try again in {wait} s"
    )
    body = problem_body("too_many_failed_attempts", 429, detail, path)
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"retry-after", str(wait).encode()),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
