"""What the query API's handlers, guards and dependencies share: the read side's context."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
import structlog
from litestar import Request
from litestar.connection import ASGIConnection

from services.projections.keys import Keys, projected, seasons_index, swept
from services.projections.ratings_fold import RatingsFold
from services.projections.reads import ActiveGens, NotReady, read
from services.projections.release import released_key
from services.projections.streams import StreamHub, StreamRefused
from shared.app.access.tokens import is_season_id
from shared.app.answers.chat_book import ChatBooks
from shared.app.http.bounds import JSON_SAFE_INTEGER
from shared.app.http.client_address import Network
from shared.app.http.problems import Problem, parameter_refused
from shared.app.http.season_share import turn_of
from shared.eventstore.ops_read_log import OpsReads

log = structlog.get_logger(__name__)


class QueryContext(msgspec.Struct):
    redis: Any
    prefix: str
    ops: tuple[str, ...]
    auditors: tuple[str, ...]
    rebuild: Any  # callable(season_id) -> None: ask the projectors to rebuild
    streams: StreamHub  # the process's one Redis subscriber, fanned out to the event streams
    ops_reads: OpsReads  # the store's ops-read audit trail (ADR-53), in PostgreSQL
    trusted: tuple[Network, ...] = ()  # proxies whose X-Forwarded-For names the client
    # the server's instant (injected: tests pass theirs): the summary's lock countdown
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    # a season's version in the event store, 0 for none (issue 20): a season unknown to Redis
    # right after it was created is not yet projected, not "not found"; a `?min_version=` past
    # the stored version is one the season has not reached (422), not one to wait for
    stored_version: Callable[[str], Awaitable[int]] | None = None
    # issue 23: players' own log (names, who left) and this process's ratings fold (ADR-88)
    players: Any = None
    ratings: Any = msgspec.field(default_factory=RatingsFold)
    # issue 24 (ADR-94): the store's chat log and this process's fold of it (the stream's chat)
    chat: Any = None
    chats: ChatBooks = msgspec.field(default_factory=ChatBooks)
    # each season's active generation as last read: a read in one round trip (ADR-125)
    gens: ActiveGens = msgspec.field(default_factory=ActiveGens)


def ctx(connection: ASGIConnection[Any, Any, Any, Any]) -> QueryContext:
    return connection.app.state.query  # type: ignore[no-any-return]


WAIT_S = 2.0  # a read waits at most this long for a version it asks for (or a first projection)
RETRY_AFTER_S = 1  # Retry-After of 503 not_yet_projected: projection takes milliseconds
MIN_VERSION = "min_version"  # the query parameter of the season reads (docs/api.md)


def min_version(request: Request[Any, Any, Any]) -> int | None:
    """The season version the read must reflect at least (`?min_version=`, a decimal integer
    0 … 2^53 − 1, else 422 `invalid_parameter`), on the reads that declare it; None elsewhere
    or when not given. (Litestar documents a router's parameters but does not check them.)"""
    if MIN_VERSION not in request.route_handler.resolve_layered_parameters():
        return None
    raw = request.query_params.get(MIN_VERSION)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdecimal() and len(raw) <= 16) or int(raw) > JSON_SAFE_INTEGER:
        raise parameter_refused(MIN_VERSION, {"minimum": 0, "maximum": JSON_SAFE_INTEGER})
    return int(raw)


async def season_read(
    request: Request[Any, Any, Any], season_id: str, fetch: Any
) -> tuple[dict[str, Any], list[Any]]:
    """The season's meta and what `fetch(keys, pipeline)` asked for, at one version; 404 for a
    season that does not exist (at once for an id of a shape the API never makes), 503
    `projection_rebuilding` (and a rebuild asked for) after Redis lost it.

    A read that asks for `?min_version=V`, or of a season created but not projected yet,
    waits up to WAIT_S for the projectors' announcement of the version it needs (keys.projected,
    one subscriber per process: StreamHub.watch) and reads again; then 503 `not_yet_projected`
    (`version`: the version it waited for, `projected_version`: the read side's now)."""
    at_least = min_version(request)
    outcome = await _attempt(request, season_id, fetch, at_least, waited=False)
    if not isinstance(outcome, _Behind):
        return outcome
    c = ctx(request)
    if at_least is not None and c.stored_version is not None:
        stored = await _stored_version(c, season_id)
        if at_least > stored:
            # a version the season has not reached: no wait can give it (a client's error)
            raise parameter_refused(MIN_VERSION, {"minimum": 0, "maximum": stored})
    turn = turn_of(request.scope)
    if turn is not None:
        turn.give_back()  # the wait is the projectors': the season's other reads go on (ADR-122)
    waited = await _wait(request, c, season_id, fetch, at_least)
    if waited is not None:
        return waited
    if turn is not None:
        await turn.take()
    outcome = await _attempt(request, season_id, fetch, at_least, waited=True)
    assert not isinstance(outcome, _Behind)
    return outcome


async def _wait(
    request: Request[Any, Any, Any],
    c: QueryContext,
    season_id: str,
    fetch: Any,
    at_least: int | None,
) -> tuple[dict[str, Any], list[Any]] | None:
    """Up to WAIT_S for the projectors' announcement of the version a read needs, reading again
    at each; the read's answer once it is there, None when the wait ends without it."""
    try:
        sub = await c.streams.watch([projected(c.prefix, season_id)])
    except StreamRefused as exc:
        raise Problem(exc.status, exc.key, retry_after=RETRY_AFTER_S) from None
    try:
        # subscribed first, then read again: a version made readable meanwhile is seen by the
        # read or announced to the subscription, never lost between the two
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while sub is not None:  # None: as many reads wait as may; answer without waiting
            outcome = await _attempt(request, season_id, fetch, at_least, waited=False)
            if not isinstance(outcome, _Behind):
                return outcome
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            if not await sub.next(timeout=remaining):  # None: timed out; []: the hub ended it
                break
    finally:
        if sub is not None:
            sub.release()
    return None


class _Behind(msgspec.Struct, frozen=True):
    """A read that must wait: the version it needs and the read side's now (0: none)."""

    version: int
    projected: int


async def _attempt(
    request: Request[Any, Any, Any],
    season_id: str,
    fetch: Any,
    at_least: int | None,
    *,
    waited: bool,
) -> tuple[dict[str, Any], list[Any]] | _Behind:
    """One read: its answer, `_Behind` if it may wait, or (`waited`: it did) the problem."""
    c = ctx(request)
    try:
        meta, rest = await read(c.redis, c.prefix, season_id, fetch, c.gens)
    except NotReady:
        await _not_ready(c, season_id)
        behind = _Behind(max(at_least or 0, 1), 0)
    else:
        if at_least is None or int(meta["version"]) >= at_least:
            return meta, rest
        behind = _Behind(at_least, int(meta["version"]))
    if waited:
        raise Problem(
            503,
            "not_yet_projected",
            retry_after=RETRY_AFTER_S,
            version=behind.version,
            projected_version=behind.projected,
        )
    return behind


async def _not_ready(c: QueryContext, season_id: str) -> None:
    """Why a season has no readable projection: raises 404 `season_not_found` or 503
    `projection_rebuilding`; returns when it is a new season not projected yet (it may wait)."""
    known = await c.redis.zscore(seasons_index(c.prefix), season_id)
    if known is None and not is_season_id(season_id):
        # Not the shape of any id the API makes (tokens.new_season_id): no season, flushed
        # or not, so 404 at once; no rebuild is asked for a stranger's made-up id.
        raise Problem(404, "season_not_found") from None
    building = bool(await c.redis.exists(Keys.building(c.prefix, season_id)))
    if not await c.redis.exists(swept(c.prefix)):
        # Every completed sweep leaves a marker that a flush removes. Without it Redis was
        # flushed and is healing (or the read side has not run yet): this season may exist
        # and be missing, so 503 and a rebuild, not 404 - even once other seasons are back.
        if known is None and not building:
            c.rebuild(season_id)  # a no-op for a season with no events
        raise Problem(503, "projection_rebuilding", retry_after=2) from None
    if (
        known is not None
        and not building
        and await c.redis.hexists(released_key(c.prefix), season_id)
    ):
        # released (ADR-158): its read models were deleted after a quiet period; this read
        # asks for them again (the rebuild un-releases it) and answers as after a wipe
        c.rebuild(season_id)
        raise Problem(503, "projection_rebuilding", retry_after=2) from None
    if known is None and not building and not await _stored(c, season_id):
        # Swept, no projector has begun it, and the store has no such season: unknown (404).
        raise Problem(404, "season_not_found") from None
    # a new season not projected yet: its first generation is being built, or the projectors
    # have not begun it (the first milliseconds after `POST /seasons`: nothing in Redis names
    # it yet, the store does), so the read waits for it (or, having waited, says so)


async def _stored(c: QueryContext, season_id: str) -> bool:
    """Whether the event store holds the season (an id of the API's shape only); a store
    that does not answer counts as no (the read answers 404, as it did before it asked)."""
    return await _stored_version(c, season_id) > 0


async def _stored_version(c: QueryContext, season_id: str) -> int:
    """The season's version in the event store; a store that does not answer counts as 0."""
    if c.stored_version is None:
        return 0
    try:
        return await c.stored_version(season_id)
    except Exception:
        log.warning("read.store_unanswered", season_id=season_id)
        return 0
