"""The ops and auditor reads of a season (R-14): battles, every order, the betrayals with their
evidence, one bey's whole view; each read is recorded."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response

from services.projections.context import ctx, season_read
from services.projections.history import treaty_of
from services.projections.keys import Keys
from services.projections.query_answers import answer, decoded_hash
from services.projections.query_examples import EXAMPLES
from services.projections.query_private import concerns_seat, private_view_of
from services.projections.read_auth import bey_seat, role
from services.projections.read_route import read
from services.projections.reads import decode
from services.projections.responses import (
    AuditOut,
    BattlesOut,
    OrdersOut,
)
from shared.app.access import request_auth as edge
from shared.app.access import tokens
from shared.app.access.ops_audit import record_ops_read
from shared.app.answers.private_view import PrivateView
from shared.app.http.bounds import ReadDivanPath, SeatPath
from shared.app.http.openapi import BEY_AUTH, OPS_READ
from shared.app.http.problems import Problem


@read(
    "/seasons/{season_id:str}/battles/{divan:int}",
    who="varies",
    versioned=True,
    callers="the bey: battles it fought in or supported; ops; anyone after the Kurultay",
    summary="Battle records (R-5.8) as R-14 allows",
    what="R-5.8 battle records",
    examples=EXAMPLES["battles"],
    refusals=[BEY_AUTH, OPS_READ, "divan_not_found"],
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
        meta,
        BattlesOut,
        {"divan": divan, "battles": [r for r in records if concerns_seat(r, seat)]},
    )


@read(
    "/seasons/{season_id:str}/orders/{divan:int}",
    who="varies",
    versioned=True,
    callers="anyone after the Kurultay; ops",
    summary="All orders of a Divan: after the Kurultay, or ops",
    what="every bey's locked orders",
    examples=EXAMPLES["all_orders"],
    refusals=[OPS_READ, "forbidden", "bad_token", "token_in_query"],
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
    return answer(meta, OrdersOut, {"divan": divan, "orders": decoded_hash(raw)})


@read(
    "/seasons/{season_id:str}/audit/betrayals",
    who="staff",
    versioned=True,
    summary="Auditor: betrayals with treaty, orders, battle",
    what="each betrayal with its treaty (a `Treaty`, as `/treaties`), the breaking orders, the "
    "battle record; the treaty timeline: `{divan, what: accepted|expired|dissolved|broken, "
    "treaty, traitor?}`",
    examples=EXAMPLES["audit_betrayals"],
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
    steps = [decode(t) for t in timeline]
    # every treaty in the one shape answers give it (`Treaty`: beys, from_divan), as stored
    # it is the domain's {kind, a, b, through_divan}
    betrayed = [
        {**r, "treaty": treaty_of(r["treaty"], steps, r["divan"])} for r in map(decode, rows)
    ]
    shown = [{**t, "treaty": treaty_of(t["treaty"], steps, t["divan"])} for t in steps]
    return answer(meta, AuditOut, {"betrayals": betrayed, "treaty_timeline": shown})


@read(
    "/ops/seasons/{season_id:str}/beys/{seat:int}",
    who="ops",
    versioned=True,
    summary="Ops: a bey's private view (recorded)",
    what="a bey's `PrivateView` as `/private` answers it (the read is recorded; 404 `not_found` "
    "for an empty seat)",
    examples=EXAMPLES["ops_bey"],
)
async def ops_bey(
    request: Request[Any, Any, Any], season_id: str, seat: SeatPath
) -> Response[PrivateView]:
    """The bey's PrivateView as `GET /private` answers it to the bey (404: no bey there)."""
    await _record_ops_read(request, season_id, f"beys/{seat}")
    return await private_view_of(request, season_id, seat)


async def _record_ops_read(request: Request[Any, Any, Any], season_id: str, what: str) -> None:
    """R-14: every ops read of secret data is recorded durably before it is answered (ADR-53:
    the store's ops-read trail, not the season's stream; 503 `audit_unavailable` if it fails)."""
    await record_ops_read(ctx(request).ops_reads, request, season_id, what)
