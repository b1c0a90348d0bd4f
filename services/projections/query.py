"""The query API: every read answers from Redis and says which season version it reflects (R-14)."""

from __future__ import annotations

from typing import Any

import msgspec
import structlog
from litestar import Request, Response, Router
from litestar.params import QueryParameter
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeout

from services.projections.board_route import static_board
from services.projections.context import MIN_VERSION, ctx, season_read
from services.projections.history import memleket_betrayals, season_betrayals, treaty_of
from services.projections.keys import Keys, board, han_memleket, seasons_index, swept
from services.projections.lobby import lobby
from services.projections.player_reads import PLAYER_QUERY_ROUTES
from services.projections.query_answers import answer, decoded_hash, in_language, names_of
from services.projections.query_examples import EXAMPLES
from services.projections.query_ops import all_orders, audit_betrayals, battles, ops_bey
from services.projections.query_private import private
from services.projections.query_stream import events, ticket
from services.projections.read_route import declared, read
from services.projections.reads import decode, read_metas
from services.projections.reducers import (
    ADMIN_REPORT,
    CORRECTION_REPORT,
    HEAD_REPORT,
)
from services.projections.release import ROW_FIELDS, released_rows
from services.projections.responses import (
    BetrayalsOut,
    BoardOut,
    LeaderboardOut,
    MapOut,
    ReportsOut,
    SeasonsOut,
    SummaryOut,
    TitlesOut,
    TreatiesOut,
)
from services.projections.streams import unavailable
from services.projections.views import lock_fields
from shared.app.http.bounds import JSON_SAFE_INTEGER
from shared.app.http.language import negotiate
from shared.app.http.problems import Problem, problem_response
from shared.domain.map import PLATES

log = structlog.get_logger(__name__)


@read(
    "/seasons/{season_id:str}/map",
    who="anyone",
    versioned=True,
    summary="The map: owner, units, sur, milis (R-14)",
    what="owner, units, sur per province; milis for unowned ones; `memleket_of` (the seat whose "
    "memleket the il is, else null: every bey's memleket is public, R-3.1, R-3.3)",
    examples=EXAMPLES["season_map"],
)
async def season_map(request: Request[Any, Any, Any], season_id: str) -> Response[MapOut]:
    meta, (provinces,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.map))
    return answer(meta, MapOut, {"divan": meta["divan"], "provinces": decoded_hash(provinces)})


@read(
    "/seasons/{season_id:str}/leaderboard",
    who="anyone",
    versioned=True,
    summary="Scores in R-10.5 order",
    what="public bey facts in R-10.5 order (after the Kurultay: its final order), each with its "
    "`name` and `chosen_name`",
    examples=EXAMPLES["leaderboard"],
)
async def leaderboard(request: Request[Any, Any, Any], season_id: str) -> Response[LeaderboardOut]:
    def fetch(k: Keys, p: Any) -> None:
        p.zrevrange(k.leaderboard, 0, -1)
        p.hgetall(k.beys)

    meta, (order, beys) = await season_read(request, season_id, fetch)
    public = decoded_hash(beys)
    rows = [public[s.decode()] for s in order if s.decode() in public]
    return answer(meta, LeaderboardOut, {"divan": meta["divan"], "leaderboard": rows})


@read(
    "/seasons/{season_id:str}/titles",
    who="anyone",
    versioned=True,
    summary="Bölge Beyi/Hakimi, Hain, Sürgün, Han",
    what="Bölge Beyi/Hakimi per region, Hain, Sürgün, Han; `names` (seat → name, as in "
    "treaties, reports and betrayals)",
    examples=EXAMPLES["titles"],
)
async def titles(request: Request[Any, Any, Any], season_id: str) -> Response[TitlesOut]:
    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.titles)
        p.hgetall(k.beys)

    meta, (regions, beys) = await season_read(request, season_id, fetch)
    public = decoded_hash(beys).values()
    divan = meta["divan"]
    return answer(
        meta,
        TitlesOut,
        {
            "regions": decoded_hash(regions),
            "hain": sorted(
                b["seat"]
                for b in public
                if b["hain_through"] is not None and b["hain_through"] >= divan
            ),
            "surgun": sorted(b["seat"] for b in public if b["surgun"]),
            "han": meta.get("han"),
            "names": names_of(beys),
        },
    )


@read(
    "/seasons/{season_id:str}/treaties",
    who="anyone",
    versioned=True,
    summary="Treaties in force",
    what="treaties in force, each a `Treaty`: `{kind, beys, from_divan, through_divan}` (`beys` "
    "the two seats, lower first; `from_divan` the Divan it was accepted at, null when the "
    "season's records do not hold it, e.g. a fork's treaty from its source; the last Divan it "
    "holds, R-6.2). Every answer gives a treaty this one shape (ADR-72)",
    examples=EXAMPLES["treaties"],
)
async def treaties(request: Request[Any, Any, Any], season_id: str) -> Response[TreatiesOut]:
    """Each treaty in force as every answer shapes a treaty (`Treaty`), by its beys."""

    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.treaties)
        p.lrange(k.treaty_timeline, 0, -1)
        p.hgetall(k.beys)

    meta, (rows, timeline, beys) = await season_read(request, season_id, fetch)
    steps = [decode(t) for t in timeline]
    divan = int(meta["divan"])
    shown = [
        treaty_of(
            {"kind": t["kind"], "a": a, "b": b, "through_divan": t["through_divan"]}, steps, divan
        )
        for t in decoded_hash(rows).values()
        for a, b in [t["beys"]]
    ]
    body = {"treaties": sorted(shown, key=lambda t: t.beys), "names": names_of(beys)}
    return answer(meta, TreatiesOut, body)


@read(
    "/seasons/{season_id:str}/reports",
    who="anyone",
    versioned=True,
    summary="Public reports: each Divan's, then the Kurultay's",
    what='public reports (structured lines with `tr` and `en` text): `{kind: "divan", divan, '
    'lines}` per Divan, then after the Kurultay `{kind: "kurultay", divan: null, lines}`, '
    'then, in the order they happened, a live season\'s admin acts, `{kind: "season_admin", '
    "divan: null, lines}` (one `season_admin` line each: `act`, `reason`, `at`, `by`), and the "
    'corrections ops applied (ADR-53, D-36), `{kind: "correction", divan, lines}` with '
    "`divan` the Divan after which it applies (one `correction` line each: `correction` "
    "province|gold|revoke_hain, `divan`, `reason`, `at`, `refers_to`, and `province`, `owner`, "
    "`units`, `sur` or `seat`; never a bey's gold amount)",
    examples=EXAMPLES["reports"],
)
async def reports(request: Request[Any, Any, Any], season_id: str) -> Response[ReportsOut]:
    """Each entry has `kind` "divan" (with its `divan`), then "kurultay" (`divan` null), then,
    in the order they happened, each "season_admin" act of a live season (`divan` null, each
    line with its instant: postponed, cancelled, paused, resumed, and why) and each
    "correction" applied by ops (ADR-53; `divan`: the Divan after which it applies; what was
    set, why, the version it compensates; never a bey's gold amount, R-14)."""

    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.reports)
        p.hgetall(k.beys)

    meta, (rows, beys) = await season_read(request, season_id, fetch)
    fields = decoded_hash(rows)
    kurultay = fields.pop("kurultay", None)
    acts = {int(f.removeprefix(ADMIN_REPORT)): fields.pop(f) for f in list(fields)
            if f.startswith(ADMIN_REPORT)}  # fmt: skip
    fixes = {int(f.removeprefix(CORRECTION_REPORT)): fields.pop(f) for f in list(fields)
             if f.startswith(CORRECTION_REPORT)}  # fmt: skip
    heads = {int(f.removeprefix(HEAD_REPORT)): fields.pop(f) for f in list(fields)
             if f.startswith(HEAD_REPORT)}  # fmt: skip
    lang = negotiate(request.scope)
    by_divan = {int(d): lines for d, lines in fields.items()}
    out = [
        {"kind": "divan", "divan": d, "lines": in_language(by_divan[d], lang)}
        | ({"chain_head": heads[d]} if d in heads else {})
        for d in sorted(by_divan)
    ]
    if kurultay is not None:
        out.append({"kind": "kurultay", "divan": None, "lines": in_language(kurultay, lang)})
    # after the Divans and the Kurultay, in the order they happened: season-admin acts and
    # corrections (ADR-53; `divan`: the Divan after which the correction applies)
    later = {v: ("season_admin", None, lines) for v, lines in acts.items()}
    later |= {v: ("correction", lines[0]["data"]["divan"], lines) for v, lines in fixes.items()}
    out += [
        {"kind": kind, "divan": divan, "lines": in_language(lines, lang)}
        for kind, divan, lines in (later[v] for v in sorted(later))
    ]
    return answer(meta, ReportsOut, {"reports": out, "names": names_of(beys)})


@read(
    "/seasons/{season_id:str}/betrayals",
    who="anyone",
    versioned=True,
    summary="Betrayals: who, whom, where (R-14)",
    what="who, whom, where, Divan",
    examples=EXAMPLES["betrayals"],
)
async def betrayals(request: Request[Any, Any, Any], season_id: str) -> Response[BetrayalsOut]:
    def fetch(k: Keys, p: Any) -> None:
        p.lrange(k.betrayals, 0, -1)
        p.hgetall(k.beys)

    meta, (rows, beys) = await season_read(request, season_id, fetch)
    body = {"betrayals": [decode(r) for r in rows], "names": names_of(beys)}
    return answer(meta, BetrayalsOut, body)


@read(
    "/seasons/all",
    who="anyone",
    summary="Seasons and their status (newest 200)",
    what="newest 200 seasons with phase, Divan, Han, `version`; a season the read side cannot "
    "read yet has only `season_id` and `status`: `not_yet_projected` (its first projection is "
    "under way) or `rebuilding` (Redis lost it)",
    examples=EXAMPLES["season_list"],
    refusals=["read_unavailable"],
)
async def season_list(request: Request[Any, Any, Any]) -> SeasonsOut:
    c = ctx(request)
    ids = [s.decode() for s in await c.redis.zrevrange(seasons_index(c.prefix), 0, 199)]
    rows = []
    metas = await read_metas(c.redis, c.prefix, ids)
    # a season listed but not readable: its first projection under way (a sweep has run: Redis
    # holds every projected season), or, after Redis lost it, being rebuilt (as season_read)
    pending = (
        "not_yet_projected"
        if None in metas.values() and await c.redis.exists(swept(c.prefix))
        else "rebuilding"
    )
    missing = [s for s, m in metas.items() if m is None]
    # a released season (ADR-158) is listed as it was when released, not as `rebuilding`
    kept = (
        dict(zip(missing, await c.redis.hmget(released_rows(c.prefix), missing), strict=True))
        if missing
        else {}
    )
    for season_id, meta in metas.items():
        if meta is None:
            row = kept.get(season_id)
            rows.append(decode(row) if row else {"season_id": season_id, "status": pending})
            continue
        rows.append({k: meta[k] for k in ROW_FIELDS})
    return msgspec.convert({"seasons": rows}, SeasonsOut)


@read(
    "/seasons/{season_id:str}/summary",
    who="anyone",
    versioned=True,
    summary="Season status as the read side sees it",
    what="status as the read models see it, with `ceasefire` and, for live seasons, `calendar`, "
    "`paused`, `cancelled`, `next_divan_at`, `locked`, `seconds_to_lock`, "
    "`seconds_to_kurultay_close` ([below](#the-season-summary))",
    examples=EXAMPLES["summary"],
)
async def summary(request: Request[Any, Any, Any], season_id: str) -> Response[SummaryOut]:
    meta, _ = await season_read(request, season_id, lambda k, p: None)
    now = ctx(request).clock()
    return answer(meta, SummaryOut, {"status": {**meta, **lock_fields(meta, now)}})


@read(
    "/boards/{name:str}",
    who="anyone",
    summary="Cross-season leaderboards: han-scores, best-scores, han-memleket",
    what="`name` han-scores, best-scores or han-memleket: cross-season boards (seasons with a "
    "server-drawn seed only)",
    examples=EXAMPLES["boards"],
    refusals=["not_found", "read_unavailable"],
)
async def boards(request: Request[Any, Any, Any], name: str) -> BoardOut:
    c = ctx(request)
    if name == "han-memleket":  # one round trip of 81 counts, however many seasons ended
        pipe = c.redis.pipeline(transaction=False)
        for plate in PLATES:
            pipe.zcard(han_memleket(c.prefix, plate))
        counts = zip(PLATES, await pipe.execute(), strict=True)
        rows = [
            {"memleket": p, "hans": n}
            for p, n in sorted(counts, key=lambda x: (-x[1], x[0]))
            if n > 0
        ]
    elif name in ("han-scores", "best-scores"):
        key = board(c.prefix, name.replace("-", "_"))
        rows = [
            {"entry": m.decode(), "score": int(s)}
            for m, s in await c.redis.zrevrange(key, 0, 99, withscores=True)
        ]
    else:
        raise Problem(404, "not_found.board")
    return msgspec.convert({"board": name, "rows": rows}, BoardOut)


# The query API's routes in the order they are matched (/boards/ratings before /boards/{name});
# the season reads among them (`versioned`: context.season_read) take `?min_version=`.
QUERY_ROUTES = [
    summary,
    season_map,
    leaderboard,
    titles,
    treaties,
    reports,
    betrayals,
    private,
    battles,
    all_orders,
    audit_betrayals,
    season_betrayals,
    ops_bey,
    static_board,
    season_list,
    lobby,
    *PLAYER_QUERY_ROUTES,
    boards,
    memleket_betrayals,
    ticket,
    events,
]
MIN_VERSION_PARAMETER = {
    MIN_VERSION: QueryParameter(
        annotation=int,
        name=MIN_VERSION,
        required=False,
        ge=0,
        le=JSON_SAFE_INTEGER,
        description="answer only at this season version or later (read-your-writes: the "
        "`version` of a command's answer or of the status). A read behind it waits up to 2 s "
        "for the projection, then answers 503 `not_yet_projected` with Retry-After",
    )
}


def query_router() -> Router:
    versioned = [r for r in QUERY_ROUTES if (d := declared(r)) is not None and d.versioned]
    return Router(
        "/v1",
        route_handlers=[
            Router("/", route_handlers=versioned, parameters=MIN_VERSION_PARAMETER),
            *(r for r in QUERY_ROUTES if r not in versioned),
        ],
        exception_handlers={
            RedisConnectionError: redis_unavailable,
            RedisTimeout: redis_unavailable,
        },
    )


def redis_unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """Redis down, slow, or its pool exhausted (MaxConnectionsError is a ConnectionError):
    503 with Retry-After, never a 500; /ready says the same meanwhile."""
    log.warning("query.redis_unavailable", path=request.url.path, error=type(exc).__name__)
    refused = unavailable()
    return problem_response(request, Problem(503, refused.key, retry_after=1))
