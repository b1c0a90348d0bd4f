"""The read side of players (issue 23, ADR-87, ADR-88): a player's public record and the
ratings board.

A player's record is the seasons its seats were bound in (projected from `SeatBound`) and each
finished counted season's record (projected once from the season's stream at its Kurultay); its
name and whether it left are the player's own log's. The ratings are a fold of the season
records in Kurultay order (shared.domain.ratings): each process keeps its fold and applies the
records that came after it, and folds again from nothing when a record lands before its end
(incremental == rebuilt, tests/domain/test_ratings.py). A player who left stays in the fold as
an anonymous stand-in (others' ratings are not recomputed) and leaves every answer.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request
from litestar.params import QueryParameter

from services.projections.context import ctx
from services.projections.keys import player_records, player_seasons
from services.projections.query_examples import EXAMPLES
from services.projections.read_route import read
from services.projections.responses import (
    PlayerPlaceOut,
    PlayerRecordOut,
    RatingOut,
    RatingRowOut,
    RatingsOut,
)
from shared.app.access.player_keys import is_player_id
from shared.app.http.problems import Problem
from shared.domain import player_events as pe
from shared.domain.ratings import Rating, SeasonRecord

MAX_PAGE = 100
_record = msgspec.json.Decoder(SeasonRecord)


async def _players(c: Any, ids: list[str]) -> dict[str, pe.PlayerState]:
    """The players among `ids` who have not left, from their own log."""
    if c.players is None or not ids:
        return {}
    rows = await c.players.read_many(ids)
    states = {p: pe.fold_player([pe.decode(d) for _t, d in r]) for p, r in rows.items()}
    return {p: s for p, s in states.items() if not s.left}


def _rating(r: Rating | None) -> RatingOut | None:
    return None if r is None else RatingOut(r.mu, r.sigma, r.ordinal, r.seasons)


@read(
    "/players/{player_id:str}",
    who="anyone",
    summary="A player's public record: seasons, titles, places, reliability, rating",
    what="a player's public record over counted live seasons: `name`, `seasons_played`, "
    "`seasons_finished`, `han_titles`, `places`, `hain`, `divans_missed`, `divans_played`, "
    "`rating` ([players](#players-issue-23-adr-87-adr-88))",
    examples=EXAMPLES["player_record"],
    refusals=["player_not_found", "not_found", "read_unavailable"],
)
async def player_record(request: Request[Any, Any, Any], player_id: str) -> PlayerRecordOut:
    """Counted live seasons only (never a trial, a chosen seed or a compressed calendar).
    404 `player_not_found` for an unknown player, or one who left."""
    c = ctx(request)
    known = await _players(c, [player_id]) if is_player_id(player_id) else {}
    if player_id not in known:
        raise Problem(404, "player_not_found")
    seasons = [s.decode() for s in await c.redis.zrange(player_seasons(c.prefix, player_id), 0, -1)]
    raw = await c.redis.hmget(player_records(c.prefix), seasons) if seasons else []
    places = [
        (record.season_id, seat)
        for record in (_record.decode(r) for r in raw if r is not None)
        for seat in record.seats
        if seat.player_id == player_id
    ]
    book = await c.ratings.current(c.redis, c.prefix)
    return PlayerRecordOut(
        player_id=player_id,
        name=known[player_id].name,
        seasons_played=len(seasons),
        seasons_finished=len(places),
        han_titles=sum(1 for _s, seat in places if seat.han),
        places=[PlayerPlaceOut(s, seat.seat, seat.place, seat.score) for s, seat in places],
        hain=sum(seat.hain for _s, seat in places),
        divans_missed=sum(seat.missed for _s, seat in places),
        divans_played=sum(seat.played for _s, seat in places),
        rating=_rating(book.ratings.get(player_id)),
    )


@read(
    "/boards/ratings",
    who="anyone",
    summary="Players by rating (openskill Plackett–Luce, mu − 3 sigma), paged",
    what="players by rating, best first, paged (`?offset=0`, `?limit=1..100`, default 50): "
    "`{total, offset, limit, rows: [{rank, player_id, name, rating}]}` "
    "([players](#players-issue-23-adr-87-adr-88))",
    examples=EXAMPLES["ratings_board"],
    refusals=["invalid_parameter", "read_unavailable"],
)
async def ratings_board(
    request: Request[Any, Any, Any],
    offset: Annotated[int, QueryParameter(ge=0, le=1_000_000, description="rows to skip")] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=MAX_PAGE, description="at most this many")] = 50,
) -> RatingsOut:
    """Every rated player who has not left, best first (ties by player id)."""
    c = ctx(request)
    book = await c.ratings.current(c.redis, c.prefix)
    present = await _players(c, sorted(book.ratings))
    ranked = sorted(present, key=lambda p: (-book.ratings[p].ordinal, p))
    rows = [
        RatingRowOut(
            rank=offset + i + 1,
            player_id=p,
            name=present[p].name,
            rating=RatingOut(
                book.ratings[p].mu,
                book.ratings[p].sigma,
                book.ratings[p].ordinal,
                book.ratings[p].seasons,
            ),
        )
        for i, p in enumerate(ranked[offset : offset + limit])
    ]
    return RatingsOut(total=len(ranked), offset=offset, limit=limit, rows=rows)


PLAYER_QUERY_ROUTES = [player_record, ratings_board]
