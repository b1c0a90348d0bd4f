"""`GET /v1/lobby` (issue 23): the live seasons open for registration, to find one to join.

The projector keeps a sorted set of the listed live seasons in registration, scored by their
registration close (reducers.cross_season: added while the season is listed, in registration
and not cancelled; removed otherwise). The read takes the members whose close is still ahead
of the server's clock, soonest first, a page at a time (`offset`, `limit`), and answers each
from its projected meta: free seats (19 less the humans seated), the registration close, the
first Divan, the creator's description. Cacheable: the app's conditional GET gives it an ETag
and a 304 to `If-None-Match` (shared/app/http/etag.py), as every JSON answer to a GET.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request
from litestar.params import QueryParameter

from services.projections.context import ctx
from services.projections.keys import lobby as lobby_set
from services.projections.query_examples import SEASON
from services.projections.read_route import read
from services.projections.reads import read_metas
from shared.domain.state import SEATS

MAX_PAGE = 100


def lobby_key(prefix: str) -> str:
    """The listed live seasons in registration, by their registration close (epoch seconds)."""
    return lobby_set(prefix)


class LobbySeason(msgspec.Struct):
    """A live season open for registration: its free seats (first come, first served), when
    registration closes and the first Divan is held (ISO-8601 with +03:00), whether its
    calendar is compressed, and its creator's description (or null)."""

    season_id: str
    free_seats: int
    registration_closes_at: str
    first_divan_at: str | None
    compressed: bool
    description: str | None


class LobbyOut(msgspec.Struct):
    """A page of the lobby, soonest registration close first; `next_offset` for the next page
    (null on the last)."""

    seasons: list[LobbySeason]
    next_offset: int | None


def _row(season_id: str, meta: dict[str, Any]) -> LobbySeason | None:
    calendar = meta.get("calendar")
    if meta.get("phase") != "registration" or meta.get("cancelled") or calendar is None:
        return None
    if not meta.get("listed", True):
        return None
    divans = calendar.get("divans") or []
    return LobbySeason(
        season_id=season_id,
        free_seats=max(0, SEATS - int(meta.get("humans", meta.get("beys", 0)))),
        registration_closes_at=calendar["registration_closes_at"],
        first_divan_at=divans[0]["at"] if divans else None,
        compressed=calendar.get("interval_seconds") is not None,
        description=meta.get("description"),
    )


@read(
    "/lobby",
    who="anyone",
    summary="Live seasons open for registration, soonest close first (issue 23)",
    what="the listed live seasons open for registration, soonest close first, paged "
    "(`?offset=0`, `?limit=1..100`, default 50): `{seasons: [{season_id, free_seats, "
    "registration_closes_at, first_divan_at, compressed, description}], next_offset}` "
    "([below](#the-lobby-get-lobby))",
    examples={
        200: LobbyOut(
            seasons=[
                LobbySeason(
                    season_id=SEASON,
                    free_seats=12,
                    registration_closes_at="2026-12-07T18:00:00+03:00",
                    first_divan_at="2026-12-08T21:00:00+03:00",
                    compressed=False,
                    description="Akşamları oynayanlar için",
                )
            ],
            next_offset=None,
        )
    },
    refusals=["read_unavailable", "invalid_parameter"],
)
async def lobby(
    request: Request[Any, Any, Any],
    offset: Annotated[
        int, QueryParameter(ge=0, le=100_000, description="seasons to skip (paging)")
    ] = 0,
    limit: Annotated[
        int, QueryParameter(ge=1, le=MAX_PAGE, description="at most this many seasons")
    ] = 50,
) -> LobbyOut:
    """Listed live seasons in registration whose close is still ahead, with their free seats;
    an unlisted season is joined by its link only. Joining is `POST /v1/seasons/{id}/join`."""
    c = ctx(request)
    now = c.clock().timestamp()
    ids = [
        s.decode()
        for s in await c.redis.zrangebyscore(
            lobby_key(c.prefix), f"({now}", "+inf", start=offset, num=limit + 1
        )
    ]
    more = len(ids) > limit
    metas = await read_metas(c.redis, c.prefix, ids[:limit])
    rows = [_row(s, m) for s, m in metas.items() if m is not None]
    return LobbyOut(
        seasons=[r for r in rows if r is not None],
        next_offset=offset + limit if more else None,
    )
