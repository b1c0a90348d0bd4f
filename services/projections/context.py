"""What the query API's handlers, guards and dependencies share: the read side's context."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import msgspec
from litestar import Request
from litestar.connection import ASGIConnection

from services.projections.keys import Keys, seasons_index, swept
from services.projections.reads import NotReady, read
from services.projections.streams import StreamHub
from shared.app.problems import Problem
from shared.app.ratelimit import Network
from shared.app.tokens import is_season_id
from shared.eventstore.audit import OpsReads


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


def ctx(connection: ASGIConnection[Any, Any, Any, Any]) -> QueryContext:
    return connection.app.state.query  # type: ignore[no-any-return]


async def season_read(
    request: Request[Any, Any, Any], season_id: str, fetch: Any
) -> tuple[dict[str, Any], list[Any]]:
    """The season's meta and what `fetch(keys, pipeline)` asked for, at one version; 404 for a
    season that does not exist (at once for an id of a shape the API never makes), 503 (and a
    rebuild asked for) while it may be rebuilding."""
    c = ctx(request)
    try:
        return await read(c.redis, c.prefix, season_id, fetch)
    except NotReady:
        known = await c.redis.zscore(seasons_index(c.prefix), season_id)
        if known is None and not is_season_id(season_id):
            # Not the shape of any id the API makes (tokens.new_season_id): no season, flushed
            # or not, so 404 at once; no rebuild is asked for a stranger's made-up id.
            raise Problem(404, "season_not_found") from None
        if known is None and not await c.redis.exists(Keys.building(c.prefix, season_id)):
            # Every completed sweep leaves a marker that a flush removes. Without it Redis was
            # flushed and is healing (or the read side has not run yet): this season may exist
            # and be missing, so 503 and a rebuild, not 404 - even once other seasons are back.
            if await c.redis.exists(swept(c.prefix)):
                raise Problem(404, "season_not_found") from None
            # Redis may have been flushed: ask for a rebuild (a no-op for a season with no events).
            c.rebuild(season_id)
        raise Problem(503, "projection_rebuilding", retry_after=2) from None
