"""`GET /v1/board`: the static board a client draws and explains, cacheable (R-2, R-8, R-10).

Every province's plate, name, region, population, full milis, gold yield and neighbours; the
regions; the missions with their text and how progress is measured; the news cards; the perdes
and the calendar rules. It changes only with a release, so it may be cached for a day; its ETag
and the 304 to `If-None-Match` come from the app's conditional-GET middleware, as for every
JSON answer to a GET (shared/app/http/etag.py).
"""

from __future__ import annotations

from functools import cache

import msgspec
from litestar import Response

from services.projections.read_route import read
from shared.domain.catalogue import (
    CALENDAR,
    MISSIONS,
    NEWS,
    PERDES,
    CalendarRules,
    MissionInfo,
    NewsInfo,
    PerdeInfo,
)
from shared.domain.map import PLATES, REGIONS, game_map
from shared.domain.state import RULES_VERSION

MAX_AGE_S = 86_400


class ProvinceInfo(msgspec.Struct, frozen=True):
    """R-2: one province of record with its derived game values."""

    plate: int
    name: str
    region: str
    population: int
    full_milis: int
    gold_yield: int
    big_city: bool
    neighbours: list[int]


class RegionInfo(msgspec.Struct, frozen=True):
    name: str
    plates: list[int]


class StaticBoard(msgspec.Struct, frozen=True):
    rules_version: str
    provinces: list[ProvinceInfo]
    regions: list[RegionInfo]
    missions: list[MissionInfo]
    news: list[NewsInfo]
    perdes: list[PerdeInfo]
    calendar: CalendarRules


@cache
def _board() -> StaticBoard:
    gm = game_map()
    return StaticBoard(
        rules_version=RULES_VERSION,
        provinces=[
            ProvinceInfo(
                plate=p,
                name=gm[p].name,
                region=gm[p].region,
                population=gm[p].population,
                full_milis=gm.full_milis[p],
                gold_yield=gm.gold_yield[p],
                big_city=gm[p].big_city,
                neighbours=list(gm.neighbours(p)),
            )
            for p in PLATES
        ],
        regions=[RegionInfo(r, list(gm.region_plates[r])) for r in REGIONS],
        missions=list(MISSIONS),
        news=list(NEWS),
        perdes=list(PERDES),
        calendar=CALENDAR,
    )


def _small_board() -> StaticBoard:
    """The real static board, cut to two provinces and one of each list (it is 81 long)."""
    b = _board()
    return msgspec.structs.replace(
        b,
        provinces=b.provinces[:2],
        regions=b.regions[:1],
        missions=b.missions[:1],
        news=b.news[:1],
        perdes=b.perdes[:1],
    )


@read(
    "/board",
    who="anyone",
    summary="The static board: provinces, regions, missions, news cards, calendar rules",
    what="the static board: every province (plate, name, region, population, full milis, gold "
    "yield, neighbours), the regions, the missions (tr/en text, how progress is measured), the "
    "news cards, the perdes and calendar rules; `ETag` + `Cache-Control: max-age=86400`, "
    "`If-None-Match` → 304",
    examples={200: _small_board()},
)
async def static_board() -> Response[StaticBoard]:
    """Anyone; the same for every season of this rules version. Revalidate with If-None-Match."""
    return Response(_board(), headers={"Cache-Control": f"public, max-age={MAX_AGE_S}"})
