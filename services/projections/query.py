"""The query API: every read answers from Redis and says which season version it reflects (R-14)."""

from __future__ import annotations

import secrets
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar, Union, cast

import msgspec
import structlog
from litestar import Request, Response, Router, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import ResponseHeader
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Discriminator, Example, OpenAPIResponse, Operation, Schema
from litestar.params import HeaderParameter, Parameter, QueryParameter
from litestar.response import ServerSentEvent, ServerSentEventMessage
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeout

from services.projections import streamlog
from services.projections.auth import BEY, STAFF, bey_seat, ops_guard, role
from services.projections.board import static_board
from services.projections.context import ctx, season_read
from services.projections.examples import EXAMPLES
from services.projections.history import HISTORY_ROUTES
from services.projections.keys import Keys, board, channel, han_memleket, seasons_index
from services.projections.reads import decode, read_metas
from services.projections.reducers import ADMIN_REPORT, CORRECTION_REPORT, HEAD_REPORT
from services.projections.responses import (
    AuditOut,
    BattlesOut,
    BetrayalsOut,
    BoardOut,
    LeaderboardOut,
    MapOut,
    OrdersOut,
    ReportsOut,
    SeasonsOut,
    SummaryOut,
    TicketOut,
    TitlesOut,
    TreatiesOut,
)
from services.projections.streamlog import STEP
from services.projections.streams import RETRY_AFTER_S as STREAM_RETRY_AFTER_S
from services.projections.streams import StreamRefused, Subscription, unavailable
from services.projections.views import lock_fields
from shared.app import auth as edge
from shared.app import tokens
from shared.app.bounds import ReadDivanPath, SeatPath
from shared.app.language import negotiate
from shared.app.openapi import (
    BEARER,
    BEY_AUTH,
    EVERY,
    OPS_READ,
    OPTIONAL_BEARER,
    PATH,
    RATE,
    READ,
    STAFF_AUTH,
    STREAM,
    answers,
    with_examples,
)
from shared.app.ops_audit import record_ops_read
from shared.app.private_view import STORED, PrivateView
from shared.app.problems import Problem, problem_response
from shared.app.ratelimit import client_address
from shared.domain.events import BattleRecord
from shared.domain.map import PLATES
from shared.domain.messages import Lang
from shared.domain.report import battle_parties

log = structlog.get_logger(__name__)
S = TypeVar("S", bound=msgspec.Struct)
TICKET_TTL_S = 30
_enc = msgspec.json.Encoder()


# Every answer built by `answer` says the season version it reflects in this header too.
SEASON_VERSION = ResponseHeader(
    name="X-Season-Version",
    description="the season version this answer reflects (its `version`)",
    documentation_only=True,
)


def answer(meta: dict[str, Any], out: type[S], body: dict[str, Any]) -> Response[S]:
    """The season read as `out`, with the version it reflects (the header says it too)."""
    version = meta.get("version", 0)
    payload = {"season_id": meta.get("season_id"), "version": version, **body}
    return Response(msgspec.convert(payload, out), headers={"X-Season-Version": str(version)})


def in_language(lines: list[dict[str, Any]], lang: Lang) -> list[dict[str, Any]]:
    """Report lines as stored (both texts), each with `text` in the language asked for."""
    return [{**line, "text": line[lang]} for line in lines]


def _hash(raw: dict[bytes, bytes]) -> dict[str, Any]:
    return {k.decode(): decode(v) for k, v in raw.items()}


@get(
    "/seasons/{season_id:str}/map",
    summary="The map: owner, units, sur, milis (R-14)",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def season_map(request: Request[Any, Any, Any], season_id: str) -> Response[MapOut]:
    meta, (provinces,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.map))
    return answer(meta, MapOut, {"divan": meta["divan"], "provinces": _hash(provinces)})


@get(
    "/seasons/{season_id:str}/leaderboard",
    summary="Scores in R-10.5 order",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def leaderboard(request: Request[Any, Any, Any], season_id: str) -> Response[LeaderboardOut]:
    def fetch(k: Keys, p: Any) -> None:
        p.zrevrange(k.leaderboard, 0, -1)
        p.hgetall(k.beys)

    meta, (order, beys) = await season_read(request, season_id, fetch)
    public = _hash(beys)
    rows = [public[s.decode()] for s in order if s.decode() in public]
    return answer(meta, LeaderboardOut, {"divan": meta["divan"], "leaderboard": rows})


@get(
    "/seasons/{season_id:str}/titles",
    summary="Bölge Beyi/Hakimi, Hain, Sürgün, Han",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def titles(request: Request[Any, Any, Any], season_id: str) -> Response[TitlesOut]:
    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.titles)
        p.hgetall(k.beys)

    meta, (regions, beys) = await season_read(request, season_id, fetch)
    public = _hash(beys).values()
    divan = meta["divan"]
    return answer(
        meta,
        TitlesOut,
        {
            "regions": _hash(regions),
            "hain": sorted(
                b["seat"]
                for b in public
                if b["hain_through"] is not None and b["hain_through"] >= divan
            ),
            "surgun": sorted(b["seat"] for b in public if b["surgun"]),
            "han": meta.get("han"),
        },
    )


@get(
    "/seasons/{season_id:str}/treaties",
    summary="Treaties in force",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def treaties(request: Request[Any, Any, Any], season_id: str) -> Response[TreatiesOut]:
    meta, (rows,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.treaties))
    return answer(
        meta, TreatiesOut, {"treaties": sorted(_hash(rows).values(), key=lambda t: t["beys"])}
    )


@get(
    "/seasons/{season_id:str}/reports",
    summary="Public reports: each Divan's, then the Kurultay's",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def reports(request: Request[Any, Any, Any], season_id: str) -> Response[ReportsOut]:
    """Each entry has `kind` "divan" (with its `divan`), then "kurultay" (`divan` null), then,
    in the order they happened, each "season_admin" act of a live season (`divan` null, each
    line with its instant: postponed, cancelled, paused, resumed, and why) and each
    "correction" applied by ops (ADR-53; `divan`: the Divan after which it applies; what was
    set, why, the version it compensates; never a bey's gold amount, R-14)."""
    meta, (rows,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.reports))
    fields = _hash(rows)
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
    return answer(meta, ReportsOut, {"reports": out})


@get(
    "/seasons/{season_id:str}/betrayals",
    summary="Betrayals: who, whom, where (R-14)",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def betrayals(request: Request[Any, Any, Any], season_id: str) -> Response[BetrayalsOut]:
    meta, (rows,) = await season_read(request, season_id, lambda k, p: p.lrange(k.betrayals, 0, -1))
    return answer(meta, BetrayalsOut, {"betrayals": [decode(r) for r in rows]})


@get(
    "/seasons/all",
    summary="Seasons and their status (newest 200)",
    responses=answers(EVERY, RATE, "read_unavailable"),
)
async def season_list(request: Request[Any, Any, Any]) -> SeasonsOut:
    c = ctx(request)
    ids = [s.decode() for s in await c.redis.zrevrange(seasons_index(c.prefix), 0, 199)]
    rows = []
    for season_id, meta in (await read_metas(c.redis, c.prefix, ids)).items():
        if meta is None:
            rows.append({"season_id": season_id, "status": "rebuilding"})
            continue
        rows.append({k: meta[k] for k in ("season_id", "mode", "phase", "divan", "han", "version")})
    return msgspec.convert({"seasons": rows}, SeasonsOut)


@get(
    "/seasons/{season_id:str}/summary",
    summary="Season status as the read side sees it",
    responses=answers(EVERY, RATE, READ),
    response_headers=[SEASON_VERSION],
)
async def summary(request: Request[Any, Any, Any], season_id: str) -> Response[SummaryOut]:
    meta, _ = await season_read(request, season_id, lambda k, p: None)
    now = ctx(request).clock()
    return answer(meta, SummaryOut, {"status": {**meta, **lock_fields(meta, now)}})


@get(
    "/boards/{name:str}",
    summary="Cross-season leaderboards: han-scores, best-scores, han-memleket",
    responses=answers(EVERY, RATE, "not_found", "read_unavailable"),
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


@get(
    "/seasons/{season_id:str}/private",
    summary="A bey's own view (PrivateView, as /me) with its private reports",
    responses=answers(EVERY, RATE, BEY_AUTH, READ),
    security=BEARER,
    dependencies=BEY,
    response_headers=[SEASON_VERSION],
)
async def private(
    request: Request[Any, Any, Any], season_id: str, seat: int
) -> Response[PrivateView]:
    """The same PrivateView `GET /seasons/{id}/me` answers (shared.app.private_view), as the
    read side projected it, with the bey's private report parts per Divan (`reports`).
    `seat`: the bey's own, from its token (after the season read: 404/503 come first)."""
    return await _private(request, season_id, seat)


async def _private(
    request: Request[Any, Any, Any], season_id: str, seat: int
) -> Response[PrivateView]:
    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.private(seat))
        p.hgetall(k.reports_private(seat))

    meta, (mine, reports_raw) = await season_read(request, season_id, fetch)
    lang = negotiate(request.scope)
    if not mine:
        raise Problem(404, "not_found")
    if not set(STORED) <= {f.decode() for f in mine}:
        # projected by a version before the PrivateView's fields: rebuild it, never a 500
        ctx(request).rebuild(season_id)
        raise Problem(503, "projection_rebuilding", retry_after=2)
    own_reports = {int(d): v for d, v in _hash(reports_raw).items()}
    return answer(
        meta,
        PrivateView,
        {
            "seat": seat,
            **_hash(mine),
            "reports": [
                {"divan": d, "lines": in_language(own_reports[d], lang)}
                for d in sorted(own_reports)
            ],
        },
    )


def _concerns(record: dict[str, Any], seat: int) -> bool:
    """Whether a projected battle record (R-5.8) is one the bey fought in or supported."""
    return seat in battle_parties(msgspec.convert(record, BattleRecord))


@get(
    "/seasons/{season_id:str}/battles/{divan:int}",
    summary="Battle records (R-5.8) as R-14 allows",
    responses=answers(EVERY, RATE, BEY_AUTH, READ, OPS_READ, "divan_not_found", "not_found"),
    security=OPTIONAL_BEARER,
    response_headers=[SEASON_VERSION],
)
async def battles(
    request: Request[Any, Any, Any], season_id: str, divan: int
) -> Response[BattlesOut]:
    """A bey: the battles it fought in or supported; ops, or anyone after the Kurultay: all."""

    def fetch(k: Keys, p: Any) -> None:
        p.hgetall(k.battles(divan))
        p.hgetall(k.auth)

    meta, (raw, auth) = await season_read(request, season_id, fetch)
    who = role(request)
    everything = meta["phase"] == "over" or who == "ops"
    seat = None if everything else bey_seat(request, season_id, auth)  # 401/403 first
    if not 1 <= divan <= meta["divan"]:  # Divans 1 … 16, once resolved
        raise Problem(404, "divan_not_found", params={"divan": divan})
    records = [decode(v) for _, v in sorted(raw.items(), key=lambda kv: int(kv[0]))]
    if seat is None:
        if who == "ops":
            await _record_ops_read(request, season_id, f"battles/{divan}")
        return answer(meta, BattlesOut, {"divan": divan, "battles": records})
    return answer(
        meta, BattlesOut, {"divan": divan, "battles": [r for r in records if _concerns(r, seat)]}
    )


@get(
    "/seasons/{season_id:str}/orders/{divan:int}",
    summary="All orders of a Divan: after the Kurultay, or ops",
    responses=answers(
        EVERY, RATE, READ, PATH, OPS_READ, "forbidden", "bad_token", "token_in_query"
    ),
    security=OPTIONAL_BEARER,
    response_headers=[SEASON_VERSION],
)
async def all_orders(
    request: Request[Any, Any, Any], season_id: str, divan: ReadDivanPath
) -> Response[OrdersOut]:
    meta, (raw,) = await season_read(request, season_id, lambda k, p: p.hgetall(k.orders(divan)))
    if meta["phase"] != "over":
        who = role(request)
        if who != "ops":
            token = edge.bearer(request)
            if who is None and token is not None and not tokens.of_a_known_kind(token):
                raise Problem.refused(tokens.bad_token())  # a guess, counted like any bad token
            raise Problem(403, "forbidden.orders_secret")
        await _record_ops_read(request, season_id, f"orders/{divan}")
    return answer(meta, OrdersOut, {"divan": divan, "orders": _hash(raw)})


@get(
    "/seasons/{season_id:str}/audit/betrayals",
    summary="Auditor: betrayals with treaty, orders, battle",
    responses=answers(EVERY, RATE, STAFF_AUTH, READ, OPS_READ),
    security=BEARER,
    dependencies=STAFF,
    response_headers=[SEASON_VERSION],
)
async def audit_betrayals(
    request: Request[Any, Any, Any], season_id: str, staff: str
) -> Response[AuditOut]:
    """Auditors and ops (`staff`: resolved before the season is read, so 401/403 come first)."""

    def fetch(k: Keys, p: Any) -> None:
        p.lrange(k.audit_betrayals, 0, -1)
        p.lrange(k.treaty_timeline, 0, -1)

    meta, (rows, timeline) = await season_read(request, season_id, fetch)
    if staff == "ops":
        await _record_ops_read(request, season_id, "audit/betrayals")
    return answer(
        meta,
        AuditOut,
        {"betrayals": [decode(r) for r in rows], "treaty_timeline": [decode(t) for t in timeline]},
    )


@get(
    "/ops/seasons/{season_id:str}/beys/{seat:int}",
    summary="Ops: a bey's private view (recorded)",
    responses=answers(EVERY, RATE, STAFF_AUTH, READ, PATH, OPS_READ),
    security=BEARER,
    guards=[ops_guard],
    response_headers=[SEASON_VERSION],
)
async def ops_bey(
    request: Request[Any, Any, Any], season_id: str, seat: SeatPath
) -> Response[PrivateView]:
    """The bey's PrivateView as `GET /private` answers it to the bey (404: no bey there)."""
    await _record_ops_read(request, season_id, f"beys/{seat}")
    return await _private(request, season_id, seat)


async def _record_ops_read(request: Request[Any, Any, Any], season_id: str, what: str) -> None:
    """R-14: every ops read of secret data is recorded durably before it is answered (ADR-53:
    the store's ops-read trail, not the season's stream; 503 `audit_unavailable` if it fails)."""
    await record_ops_read(ctx(request).ops_reads, request, season_id, what)


@post(
    "/seasons/{season_id:str}/tickets",
    status_code=201,
    summary="A one-use ticket for the private stream",
    responses=answers(EVERY, RATE, BEY_AUTH, READ),
    security=BEARER,
    dependencies=BEY,
)
async def ticket(request: Request[Any, Any, Any], season_id: str, seat: int) -> TicketOut:
    """Browsers authenticate their event stream with this, never with the token in a URL."""
    c = ctx(request)
    value = secrets.token_urlsafe(24)
    await c.redis.set(f"{c.prefix}:ticket:{value}", f"{season_id}:{seat}", ex=TICKET_TTL_S)
    return TicketOut(value, TICKET_TTL_S)


@dataclass
class _StreamOperation(Operation):
    """The event stream's operation, with its event names and payloads as `x-events`."""

    x_events: dict[str, object] = field(
        default_factory=streamlog.schemas, metadata={"alias": "x-events"}
    )

    def __post_init__(self) -> None:
        """The 200 answer is one of the stream's messages, told apart by `event` (issue 20)."""
        ok = (self.responses or {}).get("200")
        media = (ok.content or {}).get(STREAM_MEDIA) if isinstance(ok, OpenAPIResponse) else None
        if media is not None and isinstance(media.schema, Schema):
            media.schema.discriminator = Discriminator(
                property_name="event",
                mapping={
                    name: f"#/components/schemas/{message.__name__}"
                    for name, message in streamlog.MESSAGES.items()
                },
            )


STREAM_MEDIA = "text/event-stream"
# (typed `type[Any]` as ResponseSpec asks: a union of Structs is a type to Litestar)
SEASON_EVENT = cast("type[Any]", Union.__getitem__(tuple(streamlog.MESSAGES.values())))


STREAM_DESCRIPTION = """\
Server-sent events (text/event-stream) of one season, public; with `?ticket=` (from
`POST /seasons/{id}/tickets`: single use, 30 s) also the bey's own. Each message has an
`event:` name, an `id:` and one `data:` line of JSON; `x-events` gives every name's payload,
and the 200 answer's schema is one message (`<Event>Message`), told apart by `event`:

- `ready` (first, once subscribed; data `{"channels": 1|2}`): its id is the position the stream
  delivers everything after;
- `divan_report` `{type, divan}`, `betrayals` `{type, divan, betrayals: [{traitor, victim,
  province}]}`, `private_report` `{type, divan}` (the bey's own: with a ticket only),
  `kurultay_report` `{type}`, then `season_over` `{type, han}`, after which the stream ends.

An id is `V-k`: V the season version the message was projected at (the `version` of the reads),
k its place among that version's messages. On reconnecting, EventSource sends the last id it saw
as `Last-Event-ID`; the stream then sends every message after it, exactly once, before the new
ones. A new EventSource (a ticket is single use) passes it as `?last_event_id=`; a season
version `V` is a position too (everything after version V: open the stream with the `version`
of a read). Without either the stream starts at the season's current version. A season that is
over with nothing left to send answers 204 (EventSource then stops reconnecting). Comments
(`: keep-alive`) come every 15 s when nothing else does. Read models rebuilt (after a flush): an
open stream sends what the rebuilt log holds past its last id (nothing is skipped), or ends if
it cannot read it, and EventSource resumes with its `Last-Event-ID`.
"""


@get(
    "/seasons/{season_id:str}/events",
    summary="Server-sent events: Divan reports, betrayals, season (resumable)",
    description=STREAM_DESCRIPTION,
    responses={
        **answers(EVERY, RATE, READ, STREAM, "bad_last_event_id"),
        200: ResponseSpec(
            SEASON_EVENT,
            media_type=STREAM_MEDIA,
            description="The stream: `event:`, `id:` and `data:` lines per message; the schema "
            "is one message (`data` is its line of JSON), `event` tells them apart (x-events)",
            generate_examples=False,
            examples=[
                Example(
                    summary="ready, then a Divan's report",
                    value='event: ready\nid: 30\ndata: {"channels":1}\n\n'
                    'event: divan_report\nid: 59-0\ndata: {"divan":1,"type":"divan_report"}\n\n',
                )
            ],
        ),
        204: ResponseSpec(
            None,
            description="The season is over and nothing is left to send after the position",
        ),
    },
    media_type="text/event-stream",
    operation_class=_StreamOperation,
)
async def events(
    request: Request[Any, Any, Any],
    season_id: str,
    ticket: Annotated[
        str | None,
        Parameter(description="single-use ticket (POST …/tickets): adds the bey's own events"),
    ] = None,
    last_event_id: Annotated[
        str | None,
        HeaderParameter(
            name="Last-Event-ID",
            description="resume after this id (`V-k`) or season version (`V`); sent by "
            "EventSource when it reconnects",
            required=False,
        ),
    ] = None,
    last_event_id_query: Annotated[
        str | None,
        QueryParameter(
            name="last_event_id",
            description="the same as Last-Event-ID, for a new EventSource (the header wins)",
            required=False,
        ),
    ] = None,
) -> Response[Any]:
    """Public announcements; with `?ticket=` also the bey's private ones (STREAM_DESCRIPTION)."""
    c = ctx(request)
    meta, _ = await season_read(request, season_id, lambda k, p: None)
    given = last_event_id if last_event_id is not None else last_event_id_query
    after = streamlog.position(given) if given is not None else meta["version"] * STEP + STEP - 1
    if after is None:
        raise Problem(400, "bad_last_event_id")
    since = given.strip() if given is not None else str(meta["version"])
    client = client_address(cast("dict[str, Any]", request.scope), c.trusted)
    seat: int | None = None
    try:
        c.streams.admit(client)  # before the ticket is used up
        channels = [channel(c.prefix, season_id)]
        if ticket:
            owner = await c.redis.getdel(f"{c.prefix}:ticket:{ticket}")
            if owner is None or not owner.decode().startswith(f"{season_id}:"):
                raise Problem(401, "bad_ticket")
            seat = int(owner.decode().split(":")[1])
            channels.append(channel(c.prefix, season_id, seat))
        if meta["phase"] == "over":
            # Nothing more will be published: the log is all there is, no subscription needed.
            backlog = await _backlog(request, season_id, seat, after)
            if not backlog:
                return Response(None, status_code=204)  # nothing will come: EventSource stops
            return ServerSentEvent(_replayed(len(channels), since, backlog))
        sub = await c.streams.open(client, channels)
    except StreamRefused as exc:
        raise Problem(
            exc.status, exc.key, retry_after=STREAM_RETRY_AFTER_S, params=exc.params
        ) from None
    try:
        # Subscribed first, then the log read: whatever is published from now on reaches the
        # subscription, whatever came before is in the log (duplicates are skipped by id).
        backlog = await _backlog(request, season_id, seat, after)
    except BaseException:
        sub.release()
        raise
    stream = _stream(
        sub, since, after, backlog, lambda past: _backlog(request, season_id, seat, past)
    )
    weakref.finalize(stream, sub.release)  # a response that never started still frees its slot
    # … and one that ends before its generator ran to a `finally` (a client gone at once, a
    # HEAD: ADR-61) frees it as the response ends, not when the collector finds the generator
    return ServerSentEvent(stream, background=BackgroundTask(sub.release))


async def _backlog(
    request: Request[Any, Any, Any], season_id: str, seat: int | None, after: int
) -> list[tuple[int, str, str]]:
    """The logged messages after `after` (public, and the bey's own), in id order."""

    def fetch(k: Keys, p: Any) -> None:
        p.zrangebyscore(k.stream_log(), f"({after}", "+inf")
        if seat is not None:
            p.zrangebyscore(k.stream_log(seat), f"({after}", "+inf")

    _meta, logs = await season_read(request, season_id, fetch)
    return sorted(streamlog.split(m) for log in logs for m in log)


def _frame(message_id: str, data: str) -> ServerSentEventMessage:
    kind = msgspec.json.decode(data).get("type", "message")
    return ServerSentEventMessage(event=kind, data=data, id=message_id)


def _ready(channels: int, since: str) -> ServerSentEventMessage:
    return ServerSentEventMessage(
        event="ready", data=_enc.encode({"channels": channels}).decode(), id=since
    )


async def _replayed(
    channels: int, since: str, backlog: list[tuple[int, str, str]]
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream of a season that is over: `ready`, what the log holds after it, the end."""
    yield _ready(channels, since)
    for _score, message_id, data in backlog:
        yield _frame(message_id, data)


Backlog = list[tuple[int, str, str]]  # logged messages: (score, id text, payload text)


async def _stream(
    sub: Subscription,
    since: str,
    after: int,
    backlog: Backlog,
    logged: Callable[[int], Awaitable[Backlog]],
) -> AsyncIterator[ServerSentEventMessage]:
    """The stream's frames: `ready` once subscribed (its id: the position `since`), what the
    log holds after it, then its channels' messages (from the process's one subscriber,
    services/projections/streams.py) past what was sent, keep-alives in between; it ends
    after `season_over`.

    A rebuild (after a flush lost the read models and the log) publishes nothing of what it
    projects; it announces `streamlog.REBUILT` instead, and the stream then sends what the new
    log (`logged`) holds past what it sent. If that log cannot be read (Redis gone again, the
    season being rebuilt anew), the stream ends: EventSource reconnects with the last id it
    got, and the new stream sends the rest. Never a silent gap (issue 20)."""
    try:
        yield _ready(len(sub.channels), since)
        sent = after
        pending: Backlog = backlog
        while True:
            for score, message_id, data in pending:
                if score <= sent:  # logged before the backlog was read: sent already
                    continue
                sent = score
                frame = _frame(message_id, data)
                yield frame
                if frame.event == streamlog.LAST:
                    return
            batch = await sub.next(timeout=15.0)
            if batch is None:
                # a comment only: an empty data line would reach EventSource as an empty message
                yield ServerSentEventMessage(comment="keep-alive", data=None)
                pending = []
                continue
            if not batch:  # ended by the hub (slow client, Redis lost, shutdown)
                return
            pending = []
            for raw in batch:
                if raw != streamlog.REBUILT:
                    pending.append(streamlog.split(raw))
                    continue
                try:  # everything logged after what was sent (or is about to be), in id order
                    pending += await logged(max([sent, *(p[0] for p in pending)]))
                except (Problem, RedisError) as exc:
                    log.warning("stream.rebuilt_unread", error=type(exc).__name__)
                    return  # ended: EventSource resumes from its last id
    finally:
        sub.release()


QUERY_ROUTES = with_examples(
    [
        static_board,
        season_list,
        summary,
        season_map,
        leaderboard,
        titles,
        treaties,
        reports,
        betrayals,
        boards,
        private,
        battles,
        all_orders,
        audit_betrayals,
        *HISTORY_ROUTES,
        ops_bey,
        ticket,
        events,
    ],
    EXAMPLES,
)


def query_router() -> Router:
    return Router(
        "/v1",
        route_handlers=QUERY_ROUTES,
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
