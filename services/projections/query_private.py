"""A bey's own view of a season, with the token of its seat (R-11): `GET /private`."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request, Response

from services.projections.context import ctx, season_read
from services.projections.keys import Keys
from services.projections.query_answers import answer, decoded_hash, in_language
from services.projections.query_examples import EXAMPLES
from services.projections.read_route import read
from services.projections.reducers import (
    WITHDRAWN_REPORT,
)
from shared.app.answers.private_view import STORED, PrivateView
from shared.app.http.language import negotiate
from shared.app.http.problems import Problem
from shared.domain.events import BattleRecord
from shared.domain.report import battle_parties


@read(
    "/seasons/{season_id:str}/private",
    who="bey",
    versioned=True,
    summary="A bey's own view (PrivateView, as /me) with its private reports",
    what="the same `PrivateView` as `/me`, as projected, with `reports`: its private report "
    "parts per Divan",
    examples=EXAMPLES["private"],
)
async def private(
    request: Request[Any, Any, Any], season_id: str, seat: int
) -> Response[PrivateView]:
    """The same PrivateView `GET /seasons/{id}/me` answers (shared.app.answers.private_view), as the
    read side projected it, with the bey's private report parts per Divan (`reports`).
    `seat`: the bey's own, from its token (after the season read: 404/503 come first)."""
    return await private_view_of(request, season_id, seat)


async def private_view_of(
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
    own_reports = _own_reports(decoded_hash(reports_raw))
    return answer(
        meta,
        PrivateView,
        {
            "seat": seat,
            **decoded_hash(mine),
            "reports": [
                {"divan": d, "lines": in_language(own_reports[d], lang)}
                for d in sorted(own_reports)
            ],
        },
    )


def _own_reports(fields: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """A bey's private report lines per Divan: each offer withdrawn from it (issue 20, by
    version: in the order they happened) first, in the report of the Divan it would have
    been settled at (one of its own before that Divan is resolved), then the Divan's lines."""
    withdrawn = sorted(
        (int(f.removeprefix(WITHDRAWN_REPORT)), lines)
        for f, lines in fields.items()
        if f.startswith(WITHDRAWN_REPORT)
    )
    out: dict[int, list[dict[str, Any]]] = {}
    for _version, lines in withdrawn:
        for line in lines:
            out.setdefault(int(line["data"]["divan"]), []).append(line)
    for f, lines in fields.items():
        if not f.startswith(WITHDRAWN_REPORT):
            out[int(f)] = out.get(int(f), []) + lines
    return out


def concerns_seat(record: dict[str, Any], seat: int) -> bool:
    """Whether a projected battle record (R-5.8) is one the bey fought in or supported."""
    return seat in battle_parties(msgspec.convert(record, BattleRecord))
