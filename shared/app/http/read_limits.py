"""Read limits (issue 20 item 5): a budget of reads per client, and a hold before each read
over it.

Reads had no limit: 150 connections from one address looping two reads of one season took
every other season's p99 from 12 ms to 2.7 s on the same API process. A read costs a few ms
of the process's one event loop, so the limit is counted in this process's memory, never with
a Redis round trip of its own: the refusal must cost far less than the read it saves. Each
API process limits alone (N processes behind a balancer: up to N times the budget).
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections.abc import Callable, Hashable
from typing import Any

import structlog

from shared.app.http.client_address import client_address, networks
from shared.app.http.language import negotiate
from shared.app.http.ratelimit import MAX_CLIENTS, ASGIApp, MemoryGcra, refuse_with

log = structlog.get_logger(__name__)


def is_read(method: str, path: str) -> bool:
    """A request the read limits count: every GET (and HEAD) of the API under /v1/, and the
    read side's one POST, an event-stream ticket. /health, /ready and /metrics are not."""
    if not path.startswith("/v1/"):
        return False
    if method in ("GET", "HEAD"):
        return True
    return method == "POST" and path.endswith("/tickets") and path.startswith("/v1/seasons/")


class ReadLimits:
    """Reads per client address and per token (docs/configuration.md, Read limits).

    Each is a GCRA: a burst of `burst`, then evenly `per_minute` a minute. A read with an
    Authorization header counts against its token's budget and its address's; one without, its
    address's only. So a token's budget is its own (another token behind the same shared mobile
    address is not limited by it), and the address's, larger, caps what one address sends
    however many tokens it uses. A refused read counts against neither. Tokens are kept as a
    hash, addresses as given, both only in this process's memory (bounded, least recent first
    forgotten) and never logged.
    """

    def __init__(
        self,
        per_address: int,
        per_token: int,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        size: int = MAX_CLIENTS,
    ) -> None:
        self.per_address, self.per_token, self.burst = per_address, per_token, burst
        self._clock = clock
        self._gcra = MemoryGcra(clock, size)
        self._address_interval = 60.0 / per_address if per_address > 0 else 0.0
        self._token_interval = 60.0 / per_token if per_token > 0 else 0.0

    @property
    def active(self) -> bool:
        return self.per_address > 0 or self.per_token > 0

    def wait(self, client: str, token: bytes | None) -> int | None:
        """Admit one read (None), or the seconds until it may be sent again."""
        now = self._clock()
        checks: list[tuple[Hashable, float, int]] = []
        if self.per_address > 0:
            checks.append((("a", client), self._address_interval, self.burst))
        if token is not None and self.per_token > 0:
            digest = hashlib.blake2b(token, digest_size=16).digest()
            checks.append((("t", digest), self._token_interval, self.burst))
        wait = max((self._gcra.wait(key, i, cap, now) for key, i, cap in checks), default=0.0)
        if wait > 0:
            return max(1, math.ceil(wait))
        for key, interval, _cap in checks:
            self._gcra.take(key, interval, now)
        return None


# A refused read is answered after about this long (between half and one and a half times it),
# at most HELD_MAX of them at a time per process (more are answered at once). A client that
# ignores Retry-After and loops on a connection then gets about one answer a second per
# connection instead of as many as the process can write: a 429 costs a fraction of a read,
# but 150 connections looping on them still held the process's one event loop
# (bench/read_flood.py: 4,600 refusals a second, Y's p99 1.2 s). Waiting costs a timer. The
# holds are spread (a golden-ratio sequence, no randomness) so that the held connections do not
# come back in one wave each second, with the reads the budget refilled meanwhile all at once.
HOLD_S = 1.0


HELD_MAX = 1000


_GOLDEN = 0.6180339887498949


_hold = asyncio.sleep  # the wait itself (a test records it instead of waiting)


def hold(n: int, hold_s: float = HOLD_S) -> float:
    """How long the `n`th refused read is held: spread evenly over [hold_s/2, 3*hold_s/2)."""
    return hold_s * (0.5 + (n * _GOLDEN) % 1.0)


def limit_reads(
    limits: ReadLimits, trusted_proxies: tuple[str, ...] = (), hold_s: float = HOLD_S
) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware applying `limits` to the requests `is_read` names: 429
    `too_many_requests` with Retry-After before anything else is done for them, after
    `hold_s` (see HOLD_S)."""
    trusted = networks(trusted_proxies)
    refused = [0]  # logged once per 1000 refusals: a flood must not become a flood of log lines
    held = [0]

    def middleware(app: ASGIApp) -> ASGIApp:
        async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] != "http" or not is_read(scope["method"], scope["path"]):
                await app(scope, receive, send)
                return
            token = next((v for n, v in scope["headers"] if n == b"authorization"), None)
            wait = limits.wait(client_address(scope, trusted), token)
            if wait is None:
                await app(scope, receive, send)
                return
            if refused[0] % 1000 == 0:
                log.warning("rate.reads_limited", refused=refused[0] + 1)  # no address, no token
            refused[0] += 1
            if hold_s > 0 and held[0] < HELD_MAX:
                held[0] += 1
                try:
                    await _hold(hold(refused[0], hold_s))
                finally:
                    held[0] -= 1
            await refuse_with(send, "too_many_requests", wait, scope["path"], negotiate(scope))

        return guarded

    return middleware
