"""Betrayal history (issue 13): per bey memleket across seasons, and per season, each betrayal
with its treaty (who, kind, from which Divan), the breaking orders, the battle record and the
Hain badge (R-6.5), as R-14 allows.

R-14: who betrayed whom, where, and the Hain badge are public at once; the treaty, the orders
and the battle record are the auditors' (and ops') during the season, and everyone's after the
Kurultay. A bey across seasons is its memleket (the boards count Hans the same way); the
projection keeps, per memleket, the seasons in which its bey betrayed or was betrayed
(keys.betrayals_of), and each season's records are its own (keys.audit_betrayals,
keys.treaty_timeline), so a rebuild restores both.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from litestar import Request, Response
from msgspec.structs import replace

from services.projections.context import ctx, season_read
from services.projections.keys import Keys, betrayals_of
from services.projections.query_examples import BATTLE, SEASON
from services.projections.read_auth import role
from services.projections.read_route import read
from services.projections.reads import decode
from shared.app.access import request_auth as edge
from shared.app.access import tokens
from shared.app.access.ops_audit import record_ops_read
from shared.app.answers.treaty_answer import Treaty
from shared.app.http.bounds import PlatePath
from shared.app.http.openapi import OPS_READ
from shared.app.http.problems import Problem
from shared.domain.events import BattleRecord

MAX_SEASONS = 100  # the newest seasons of a memleket's history
# a memleket's history reads seasons the index names: rebuilding or Redis away, never 404
REFUSED: tuple[str, ...] = ("token_in_query", "bad_token", "projection_rebuilding")
REFUSED += ("not_yet_projected", "read_unavailable")


class BeyRef(msgspec.Struct, frozen=True):
    seat: int
    memleket: int | None  # null: not known to the projection (never, for a bey that played)


class HistoricBetrayal(msgspec.Struct, frozen=True):
    """One betrayal (R-6.5). `hain_through`: the traitor wears the Hain badge through that
    Divan. `role`: the memleket's bey's part in it (null on a season's list). `treaty`, `orders`
    (the traitor's advances into the province: [seat, from, units]) and `battle` (R-5.8) are
    null when R-14 hides them from the caller (`full` is false)."""

    divan: int
    traitor: BeyRef
    victim: BeyRef
    province: int
    hain_through: int
    role: Literal["traitor", "victim"] | None = None
    treaty: Treaty | None = None
    orders: list[list[int]] | None = None
    battle: BattleRecord | None = None


class SeasonBetrayals(msgspec.Struct, frozen=True):
    season_id: str
    version: int
    phase: str
    full: bool  # treaty, orders and battle shown (after the Kurultay, or an auditor or ops)
    betrayals: list[HistoricBetrayal]


class MemleketBetrayalsOut(msgspec.Struct, frozen=True):
    """The betrayals of the bey of memleket `memleket`, newest season first."""

    memleket: int
    seasons: list[SeasonBetrayals]


def _fetch(k: Keys, p: Any) -> None:
    p.lrange(k.audit_betrayals, 0, -1)
    p.lrange(k.treaty_timeline, 0, -1)
    p.hgetall(k.beys)


def _from_divan(timeline: list[dict[str, Any]], treaty: dict[str, Any], divan: int) -> int | None:
    """The Divan of the latest acceptance of this very treaty at or before `divan`."""
    found = None
    for entry in timeline:
        if entry["what"] == "accepted" and entry["treaty"] == treaty and entry["divan"] <= divan:
            found = entry["divan"]
    return found


def treaty_of(stored: dict[str, Any], timeline: list[dict[str, Any]], divan: int) -> Treaty:
    """A treaty as the projection stores it (the domain's `{kind, a, b, through_divan}`) in
    the one shape answers give it, with the Divan it was accepted at (at or before `divan`)
    from the season's treaty timeline."""
    return Treaty(
        stored["kind"],
        [stored["a"], stored["b"]],
        _from_divan(timeline, stored, divan),
        stored["through_divan"],
    )


def _entries(
    rows: list[dict[str, Any]],
    timeline: list[dict[str, Any]],
    homes: dict[int, int],
    full: bool,
    plate: int | None,
) -> list[HistoricBetrayal]:
    out = []
    for r in rows:
        traitor = BeyRef(r["traitor"], homes.get(r["traitor"]))
        victim = BeyRef(r["victim"], homes.get(r["victim"]))
        if plate is not None and plate not in (traitor.memleket, victim.memleket):
            continue
        part: Literal["traitor", "victim"] | None = None
        if plate is not None:
            part = "traitor" if traitor.memleket == plate else "victim"
        treaty = treaty_of(r["treaty"], timeline, r["divan"])
        out.append(
            HistoricBetrayal(
                divan=r["divan"],
                traitor=traitor,
                victim=victim,
                province=r["province"],
                hain_through=r["hain_through"],
                role=part,
                treaty=treaty if full else None,
                orders=r["orders"] if full else None,
                battle=msgspec.convert(r["battle"], BattleRecord) if full and r["battle"] else None,
            )
        )
    return out


def _caller(request: Request[Any, Any, Any]) -> str | None:
    """'ops', 'auditor' or None; a token that is neither a staff token nor of a bey's or season
    admin's shape is a guess: 401 `bad_token`, counted like any (as all orders answer it), never
    silently the public view."""
    who = role(request)
    token = edge.bearer(request)
    if who is None and token is not None and not tokens.of_a_known_kind(token):
        raise Problem.refused(tokens.bad_token())
    return who


async def _season(
    request: Request[Any, Any, Any], season_id: str, plate: int | None, who: str | None
) -> SeasonBetrayals:
    meta, (rows, timeline, beys) = await season_read(request, season_id, _fetch)
    full = meta["phase"] == "over" or who in ("auditor", "ops")
    homes = {int(k): decode(v)["memleket"] for k, v in beys.items()}
    entries = _entries([decode(r) for r in rows], [decode(t) for t in timeline], homes, full, plate)
    if who == "ops" and meta["phase"] != "over" and entries:
        # R-14: the auditors' records read by ops during the season: recorded first (ADR-53)
        await record_ops_read(ctx(request).ops_reads, request, season_id, "betrayals/history")
    return SeasonBetrayals(season_id, meta.get("version", 0), meta["phase"], full, entries)


BETRAYAL_SEASON = SeasonBetrayals(
    season_id=SEASON,
    version=42,
    phase="over",
    full=True,
    betrayals=[
        HistoricBetrayal(
            divan=3,
            traitor=BeyRef(seat=1, memleket=6),
            victim=BeyRef(seat=2, memleket=71),
            province=71,
            hain_through=7,
            role="traitor",
            treaty=Treaty(kind="pact", beys=[1, 2], from_divan=2, through_divan=5),
            orders=[[1, 6, 3]],
            battle=BATTLE,
        )
    ],
)


@read(
    "/betrayals/memleket/{plate:int}",
    who="varies",
    callers="anyone; more for auditor, ops",
    summary="Betrayal history of a memleket's bey across seasons (R-6.5, R-14)",
    what="betrayal history across seasons of the bey whose memleket is `plate` (1 … 81): the "
    "newest 100 seasons in which it betrayed or was betrayed, newest first, each as "
    "`/seasons/{id}/betrayals/history` with `role` (`traitor` or `victim`) on each betrayal",
    examples={200: MemleketBetrayalsOut(memleket=6, seasons=[BETRAYAL_SEASON])},
    refusals=[OPS_READ, *REFUSED],
)
async def memleket_betrayals(
    request: Request[Any, Any, Any], plate: PlatePath
) -> MemleketBetrayalsOut:
    """Every season (newest first, at most 100) in which the bey of memleket `plate` betrayed
    or was betrayed, each betrayal as R-14 allows the caller (anyone: who, whom, where, the Hain
    badge; an auditor or ops, or anyone after that season's Kurultay: also the treaty, the
    breaking orders and the battle record)."""
    who = _caller(request)
    c = ctx(request)
    seasons = [
        s.decode()
        for s in await c.redis.zrevrange(betrayals_of(c.prefix, plate), 0, MAX_SEASONS - 1)
    ]
    return MemleketBetrayalsOut(plate, [await _season(request, s, plate, who) for s in seasons])


@read(
    "/seasons/{season_id:str}/betrayals/history",
    who="varies",
    versioned=True,
    callers="anyone; more for auditor, ops",
    summary="A season's betrayals with treaty, orders, battle and Hain badge, as R-14 allows",
    what="the season's betrayals (R-6.5), each `{divan, traitor: {seat, memleket}, victim: "
    "{seat, memleket}, province, hain_through, treaty, orders, battle}`: `treaty` (the treaty "
    "broken, a `Treaty` as `/treaties`: `{kind, beys, from_divan, through_divan}`), `orders` "
    "(the traitor's advances into the province, `[seat, from, units]`) and `battle` (the R-5.8 "
    "record) are null unless `full`: after the Kurultay, or for an auditor or ops (R-14; an ops "
    "read during the season is recorded)",
    examples={
        200: replace(
            BETRAYAL_SEASON,
            betrayals=[replace(b, role=None) for b in BETRAYAL_SEASON.betrayals],
        )
    },
    refusals=[OPS_READ, "token_in_query", "bad_token"],
)
async def season_betrayals(
    request: Request[Any, Any, Any], season_id: str
) -> Response[SeasonBetrayals]:
    """The season's betrayals in order, each with both beys' memlekets; the treaty, orders and
    battle record as R-14 allows the caller (see the memleket history)."""
    out = await _season(request, season_id, None, _caller(request))
    return Response(out, headers={"X-Season-Version": str(out.version)})


HISTORY_ROUTES = [memleket_betrayals, season_betrayals]
