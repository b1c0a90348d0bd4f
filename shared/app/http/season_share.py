"""A season's share of the API process (issue 27, ADR-122): at most a few of one season's
reads served at once; the rest wait their turn, first come first served.

An API process has one event loop for every season. The limits per address and per token
bound what one client sends, not what one season gets: a season's beys behind several
addresses, each within its limits, kept about fifty requests of that season in the loop at
once, and every other season's request waited its turn among them (bench/season_flood.py:
another season's reads p50 from 20 ms to 96 ms). With each season's reads in service capped,
a read of another season shares the loop with at most `per_season` of the flooded season's
(38-51 ms at 2). Waiting costs a future; nothing is refused, so a season's own burst (its 19
beys opening it at once) is served in full, in turn.

Served within it: the reads of a season (`read_limits.is_read`: its GETs and event-stream
tickets) but its event stream (open for hours: it would keep a turn; streams have their own
limits). A season's commands already take their turn one at a time, the season's writer turn
(repository.seasons), whose wait is bounded by the lock timeout: a second queue in front of it
would add its waits in series (tests/http/test_lock_wait.py). Counted in this process's memory:
a season's share is per API process. A read that waits for a version (`?min_version=`, a
season not projected yet: services/projections/context.py) gives its turn back while it waits
and takes one again to read (`Turn`, in the request's scope): its wait of up to 2 s is the
projectors', not the loop's, and must not hold the season's other reads behind it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from shared.app.http.ratelimit import ASGIApp
from shared.app.http.read_limits import is_read


def season_of(method: str, path: str) -> str | None:
    """The season whose share a request is served in, if any: a read of that season."""
    parts = path.split("/", 5)  # "", "v1", "seasons", id, rest…
    if len(parts) < 4 or parts[1] != "v1" or parts[2] != "seasons" or not parts[3]:
        return None
    if not is_read(method, path):
        return None  # a command: the season's writer turn serves them one at a time
    if method == "GET" and len(parts) == 5 and parts[4] == "events":
        return None  # the event stream
    return parts[3]


class _Share:
    __slots__ = ("serving", "waiting")

    def __init__(self) -> None:
        self.serving = 0
        self.waiting: deque[asyncio.Future[None]] = deque()


class SeasonShare:
    """At most `per_season` requests of a season in service at once; the others wait in that
    season's queue, in the order they came. A season's entry lives while any of its requests
    is served or waits."""

    def __init__(self, per_season: int) -> None:
        self.per_season = per_season
        self._shares: dict[str, _Share] = {}

    def serving(self, season: str) -> tuple[int, int]:
        """(requests in service, requests waiting) of `season`."""
        share = self._shares.get(season)
        return (share.serving, len(share.waiting)) if share else (0, 0)

    async def enter(self, season: str) -> None:
        """Return once a turn of `season` is this request's (call `leave` after)."""
        share = self._shares.get(season)
        if share is None:
            share = self._shares[season] = _Share()
        if share.serving < self.per_season and not share.waiting:
            share.serving += 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        share.waiting.append(turn)
        try:
            await turn  # `leave` handed its turn over: `serving` already counts this one
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.leave(season)  # handed over as it was cancelled: pass it on
            else:
                share.waiting.remove(turn)
                self._forget(season, share)
            raise

    def leave(self, season: str) -> None:
        """End a turn of `season`: hand it to the first request waiting, if any."""
        share = self._shares[season]
        while share.waiting:
            turn = share.waiting.popleft()
            if not turn.done():
                turn.set_result(None)
                return
        share.serving -= 1
        self._forget(season, share)

    def _forget(self, season: str, share: _Share) -> None:
        if share.serving == 0 and not share.waiting:
            del self._shares[season]


TURN = "seksenbir.season_turn"  # the ASGI scope's key of a request's Turn


class Turn:
    """A request's turn in its season's share: held while it is served, given back while it
    waits for something other than this process (`give_back`, then `take` to go on)."""

    __slots__ = ("held", "season", "share")

    def __init__(self, share: SeasonShare, season: str) -> None:
        self.share, self.season, self.held = share, season, False

    async def take(self) -> None:
        await self.share.enter(self.season)  # cancelled while waiting: nothing is held
        self.held = True

    def give_back(self) -> None:
        if self.held:
            self.held = False
            self.share.leave(self.season)


def turn_of(scope: Mapping[str, object]) -> Turn | None:
    """The request's Turn, if its season's share serves it."""
    turn = scope.get(TURN)
    return turn if isinstance(turn, Turn) else None


def share_seasons(share: SeasonShare) -> Callable[[ASGIApp], ASGIApp]:
    """Litestar middleware serving each season's reads within `share` (after the limits: a
    refused read takes no turn)."""

    def middleware(app: ASGIApp) -> ASGIApp:
        async def shared(scope: dict[str, Any], receive: Any, send: Any) -> None:
            season = season_of(scope["method"], scope["path"]) if scope["type"] == "http" else None
            if season is None:
                await app(scope, receive, send)
                return
            turn = scope[TURN] = Turn(share, season)
            await turn.take()
            try:
                await app(scope, receive, send)
            finally:
                turn.give_back()

        return shared

    return middleware
