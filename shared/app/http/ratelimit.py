"""Failed-token limiter (RELIABILITY 24): a client that keeps sending bad tokens gets 429.

Every 401 answer costs the client's address one token from a bucket of `per_minute`, refilled
evenly over a minute. While a client's bucket is empty, every request of it that carries an
Authorization header is answered 429 `too_many_failed_attempts` with Retry-After, before any
token is checked; requests without credentials (public reads, creating a trial season) pass.
A bey token has 192 random bits, so this is not what keeps tokens safe: it keeps a guesser
from costing the server a hash and a lookup per guess, and makes a sweep visible in the logs.

Two layers (ARCHITECTURE, Access: rate limits live in Redis with short expiry):
- SharedFailures: the bucket in Redis, one for all API processes (a GCRA in one Lua call,
  on Redis's clock), under a hashed key that expires when the bucket is full again. It is
  asked only on a 401, never on a request that succeeds. A client over the limit is then
  blocked in the process that saw the 401; other processes block it at its next 401 there.
- AuthFailures: the same bucket in this process's memory (bounded), which also holds those
  blocks. It is what still limits a client when Redis does not answer.

Keyed by the client address (`client_address`): the connection's peer, unless that peer is
one of the configured proxies (SEKSENBIR_TRUSTED_PROXIES, none by default), in which case the
address is the one those proxies report in X-Forwarded-For: the rightmost address that is not
itself a trusted proxy. uvicorn's own proxy-header handling is off (`seksenbir serve` and `up`):
it trusts 127.0.0.1 by default, so any local client could name itself a new address on every
request and never meet the limit. No address is logged, and Redis holds only a hash of it, for
at most the minute its bucket takes to refill.
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from shared.app.http.client_address import client_address, networks
from shared.app.http.language import negotiate
from shared.app.http.openapi_problems import problem_body
from shared.domain import messages

log = structlog.get_logger(__name__)
MAX_CLIENTS = 50_000  # buckets kept; the least recently failed are forgotten first
LOG_EVERY = 1000  # a refusal is logged once per this many: a flood must not flood the log


class _Tally:
    """Counts refusals; `due` is true for the 1st, the 1001st, … (the line carries the count,
    the access log has every request)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def due(self) -> bool:
        self.count += 1
        return self.count % LOG_EVERY == 1


ASGIApp = Callable[..., Any]


class _Bucket:
    __slots__ = ("at", "blocked_until", "level")

    def __init__(self, level: float, at: float) -> None:
        self.level = level
        self.at = at
        self.blocked_until = 0.0  # set by the shared bucket (block)


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
        self._limited = _Tally()

    def _level(self, bucket: _Bucket, now: float) -> float:
        return min(self.capacity, bucket.level + (now - bucket.at) * self.rate)

    def retry_after(self, client: str) -> int | None:
        """Seconds until this client may try again, or None if it may now."""
        bucket = self._buckets.get(client)
        if bucket is None:
            return None
        now = self._clock()
        level = self._level(bucket, now)
        wait = max((1.0 - level) / self.rate, bucket.blocked_until - now)
        if wait <= 0:
            return None
        return max(1, math.ceil(wait))

    def block(self, client: str, seconds: float) -> None:
        """Refuse the client's credentialed requests for `seconds` (the shared bucket said so)."""
        now = self._clock()
        bucket = self._bucket(client, now)
        bucket.blocked_until = max(bucket.blocked_until, now + seconds)

    def failed(self, client: str) -> None:
        now = self._clock()
        bucket = self._bucket(client, now)
        bucket.level = self._level(bucket, now) - 1.0
        bucket.at = now
        if bucket.level < 1.0 and self._limited.due():
            # no address in the log: nothing about a player is kept (ARCHITECTURE, Access)
            log.warning("auth.failures_limited", limited=self._limited.count)

    def _bucket(self, client: str, now: float) -> _Bucket:
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = _Bucket(self.capacity, now)
        self._buckets.move_to_end(client)
        while len(self._buckets) > self._size:
            self._buckets.popitem(last=False)
        return bucket


# GCRA: the key holds the bucket's "theoretical arrival time" in ms on Redis's clock. A failure
# pushes it one interval on; the client is over the limit while it is more than capacity - 1
# intervals ahead of now, which is when the in-memory bucket would be below one token. Returns
# the ms it stays over the limit (0: not over). The key expires when the bucket is full again.
_GCRA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
tat = tat + interval
redis.call('SET', KEYS[1], tat, 'PX', tat - now)
return math.max(0, tat - now - (capacity - 1) * interval)
"""


class SharedFailures:
    """The failed-token bucket in Redis, one for every API process (see the module doc)."""

    def __init__(self, redis: aioredis.Redis, namespace: str, per_minute: int) -> None:
        self._redis = redis
        self._namespace = namespace
        self._interval_ms = max(1, round(60_000 / per_minute))
        self._capacity = per_minute
        self._script = redis.register_script(_GCRA)
        self._warned = False

    async def close(self) -> None:
        await self._redis.aclose()

    def key(self, client: str) -> str:
        """The client's key: a hash of its address, never the address itself."""
        digest = hashlib.sha256(f"{self._namespace}\0{client}".encode()).hexdigest()[:32]
        return f"{self._namespace}:authfail:{digest}"

    async def failed(self, client: str) -> float:
        """Count a 401; the seconds the client is now over the limit (0: not), or 0 if Redis
        does not answer (the in-memory bucket still limits it then)."""
        try:
            wait_ms = await self._script(
                keys=[self.key(client)], args=[self._interval_ms, self._capacity]
            )
        except (RedisError, OSError) as exc:
            if not self._warned:
                log.warning("auth.failures_unshared", error=type(exc).__name__)
                self._warned = True
            return 0.0
        self._warned = False
        return int(wait_ms) / 1000.0


def limit_failed_auth(
    failures: AuthFailures,
    shared: SharedFailures | None = None,
    trusted_proxies: tuple[str, ...] = (),
) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware (a factory of ASGI apps) applying `failures` (and, if given, the
    `shared` bucket) to HTTP requests, by `client_address`."""
    trusted = networks(trusted_proxies)

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            client = client_address(scope, trusted)
            # the client's bucket first (a look-up, None for a client without failures), the
            # headers only then (ADR-151): both only read, so the refusals are the same
            wait = failures.retry_after(client)
            if wait is not None and any(name == b"authorization" for name, _ in scope["headers"]):
                await _too_many(send, wait, scope.get("path", ""), negotiate(scope))
                return

            async def watch(message: dict[str, Any]) -> None:
                if message["type"] == "http.response.start" and message["status"] == 401:
                    failures.failed(client)
                    if shared is not None and (wait := await shared.failed(client)) > 0:
                        failures.block(client, wait)
                await send(message)

            await app(scope, receive, watch)

        return guarded

    return middleware


# --- request limits: season creation, joins, commands (issue 14) ------------------------------
# Every matching request costs its client address one token of that kind's bucket (a GCRA on
# Redis's clock, shared by every API process); an empty bucket answers 429 `too_many_requests`
# with Retry-After before the request is read. A refused request costs nothing, so a client
# that waits the Retry-After it was told gets through. Without Redis each process limits alone.
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local wait = tat + interval - capacity * interval - now
if wait > 0 then return wait end
redis.call('SET', KEYS[1], tat + interval, 'PX', tat + interval - now)
return 0
"""

RequestKind = str  # "create" | "join" | "command"


def request_kind(method: str, path: str) -> RequestKind | None:
    """Which request limit a request counts against, if any: creating a season, joining one,
    or any other POST of the command API (a bey's command, a token rotation, an admin act, an
    ops reissue). The read side's POST (an event-stream ticket) is none of these."""
    if method != "POST" or not path.startswith("/v1/"):
        return None
    parts = path.split("/")[2:]  # after "", "v1"
    if parts in (["seasons"], ["players"]):  # issue 23: a new player counts as a creation
        return "create"
    if parts[:1] == ["seasons"] and len(parts) == 3 and parts[2] == "join":
        return "join"
    if parts[:1] == ["seasons"] and len(parts) >= 3 and parts[2] != "tickets":
        return "command"
    if parts[:2] == ["ops", "seasons"] or (parts[:1] == ["players"] and len(parts) == 3):
        return "command"  # … and a player's key rotated, a player leaving
    return None


class MemoryGcra:
    """The same admission in this process's memory (bounded): the fallback without Redis,
    and the read limits' only store (ReadLimits)."""

    def __init__(self, clock: Callable[[], float], size: int = MAX_CLIENTS) -> None:
        self._clock = clock
        self._size = size
        self._tat: OrderedDict[Hashable, float] = OrderedDict()

    def admit(self, key: Hashable, interval: float, capacity: int) -> float:
        now = self._clock()
        wait = self.wait(key, interval, capacity, now)
        if wait <= 0:
            self.take(key, interval, now)
        return wait

    def wait(self, key: Hashable, interval: float, capacity: int, now: float) -> float:
        """Seconds until `key` may send one more (<= 0: now), without counting it."""
        tat = max(self._tat.get(key, now), now)
        return tat + interval - capacity * interval - now

    def take(self, key: Hashable, interval: float, now: float) -> None:
        """Count one request of `key` (after `wait` said it may)."""
        self._tat[key] = max(self._tat.get(key, now), now) + interval
        self._tat.move_to_end(key)
        while len(self._tat) > self._size:
            self._tat.popitem(last=False)


class RequestLimits:
    """Per client address and kind, `per_minute[kind]` requests a minute (0 or absent: none)."""

    def __init__(
        self,
        redis: aioredis.Redis | None,
        namespace: str,
        per_minute: dict[RequestKind, int],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._redis = redis
        self._namespace = namespace
        self.per_minute = {k: n for k, n in per_minute.items() if n > 0}
        self._script = redis.register_script(_ADMIT) if redis is not None else None
        self._memory = MemoryGcra(clock)
        self._warned = False
        self._refused = _Tally()

    async def close(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()

    def key(self, kind: RequestKind, client: str) -> str:
        """A hash of the address, never the address itself (as for the failed-token buckets)."""
        digest = hashlib.sha256(f"{self._namespace}\0{kind}\0{client}".encode()).hexdigest()[:32]
        return f"{self._namespace}:rate:{kind}:{digest}"

    async def wait(self, kind: RequestKind, client: str) -> int | None:
        """Admit one request (None), or the seconds until this client may send one again."""
        per_minute = self.per_minute.get(kind)
        if per_minute is None:
            return None
        key = self.key(kind, client)
        interval_ms = max(1, round(60_000 / per_minute))
        wait_s = await self._shared(key, interval_ms, per_minute)
        if wait_s is None:  # Redis did not answer: this process's own bucket
            wait_s = self._memory.admit(key, interval_ms / 1000, per_minute)
        if wait_s <= 0:
            return None
        if self._refused.due():  # no address: nothing about a player is kept
            log.warning("rate.limited", kind=kind, refused=self._refused.count)
        return max(1, math.ceil(wait_s))

    async def _shared(self, key: str, interval_ms: int, capacity: int) -> float | None:
        if self._script is None:
            return None
        try:
            wait_ms = await self._script(keys=[key], args=[interval_ms, capacity])
        except (RedisError, OSError) as exc:
            if not self._warned:
                log.warning("rate.unshared", error=type(exc).__name__)
                self._warned = True
            return None
        self._warned = False
        return int(wait_ms) / 1000.0


def limit_requests(
    limits: RequestLimits, trusted_proxies: tuple[str, ...] = ()
) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware applying `limits` to the requests `request_kind` names."""
    trusted = networks(trusted_proxies)

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            kind = (
                request_kind(scope.get("method", ""), scope.get("path", ""))
                if scope["type"] == "http"
                else None
            )
            # a kind without a limit is let through without a coroutine (ADR-151): `wait`
            # answers None for it at once
            if kind is not None and kind in limits.per_minute:
                wait = await limits.wait(kind, client_address(scope, trusted))
                if wait is not None:
                    await refuse_with(
                        send, "too_many_requests", wait, scope.get("path", ""), negotiate(scope)
                    )
                    return
            await app(scope, receive, send)

        return guarded

    return middleware


async def _too_many(send: Any, wait: int, path: str, lang: messages.Lang) -> None:
    await refuse_with(send, "too_many_failed_attempts", wait, path, lang)


async def refuse_with(send: Any, code: str, wait: int, path: str, lang: messages.Lang) -> None:
    detail = messages.render(code, lang, {"wait": wait})
    body = problem_body(code, 429, detail, path, lang)
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
