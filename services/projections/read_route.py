"""One declaration per read endpoint (issue 21, ADR-116): `read(...)` is the query API's route
decorator, and everything else about the endpoint is derived from what it is given.

- `who` (`anyone`, `bey`, `staff`, `ops`, or `varies` when the handler decides from the season
  it read) gives the authentication (security scheme, the `seat`/`staff` dependency or the ops
  guard), its problem groups (`BEY_AUTH`, `STAFF_AUTH` + `OPS_READ`), docs/api.md's "who"
  column and the access matrix's default row (tests/projections/test_access_matrix.py);
- the path gives `READ` (a season's read: `{season_id}`) and `PATH` (an integer parameter);
- `versioned` (a season read that says its version) gives `?min_version=` (query_router),
  `VERSIONED` and the `X-Season-Version` header;
- `examples` are its documented 2xx answers (validated by test_openapi_examples.py), `what`
  its row in docs/api.md's read table (tests/projections/test_read_routes.py renders it).
The declaration rides on the handler (`opt["read"]`), so the route table carries it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from litestar import get
from litestar.handlers.http_handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec

from services.projections.read_auth import BEY, STAFF, ops_guard
from shared.app.http.openapi import (
    BEARER,
    BEY_AUTH,
    EVERY,
    OPS_READ,
    OPTIONAL_BEARER,
    PATH,
    RATE,
    READ,
    SEASON_VERSION,
    STAFF_AUTH,
    VERSIONED,
    Examples,
    answers,
    with_examples,
)

Who = Literal["anyone", "bey", "staff", "ops", "varies"]
OPT = "read"  # the handler's `opt` key holding its Declared

# who -> (its problem groups, its authentication's keyword arguments, docs/api.md's "who")
_WHO: dict[str, tuple[tuple[tuple[str, ...], ...], dict[str, Any], str]] = {
    "anyone": ((), {}, "anyone"),
    "bey": ((BEY_AUTH,), {"security": BEARER, "dependencies": BEY}, "the bey"),
    "staff": ((STAFF_AUTH, OPS_READ), {"security": BEARER, "dependencies": STAFF}, "auditor, ops"),
    "ops": ((STAFF_AUTH, OPS_READ), {"security": BEARER, "guards": [ops_guard]}, "ops"),
    "varies": ((), {"security": OPTIONAL_BEARER}, ""),
}


@dataclass(frozen=True)
class Declared:
    """What a read endpoint declares beside its handler (the rest is derived)."""

    who: Who
    versioned: bool
    what: str  # docs/api.md's read table: what it answers
    callers: str  # docs/api.md's read table: who may call it


def read(
    path: str,
    *,
    who: Who,
    summary: str,
    what: str,
    examples: Examples,
    versioned: bool = False,
    refusals: Sequence[tuple[str, ...] | str] = (),
    callers: str = "",
    method: Callable[..., HTTPRouteHandler] = get,
    responses: Mapping[int, ResponseSpec] | None = None,
    **kwargs: Any,
) -> Callable[[Callable[..., Any]], HTTPRouteHandler]:
    """The route handler of a read endpoint, declared once (module doc). `refusals`: its own
    problem codes beyond the derived groups; `callers`: docs/api.md's "who" when `who` is
    `varies` (or says less than the endpoint allows); `responses`: answers of its own (a
    stream's)."""
    groups, auth, shown = _WHO[who]
    if not (callers or shown):
        raise ValueError(f"{path}: a read whose `who` varies says who may call it (`callers`)")
    derived = (
        *((READ,) if "{season_id" in path else ()),
        *((PATH,) if re.search(r":int\}", path) else ()),
        *((VERSIONED,) if versioned else ()),
    )
    declared = Declared(who, versioned, what, callers or shown)

    def decorate(fn: Callable[..., Any]) -> HTTPRouteHandler:
        handler = method(
            path,
            summary=summary,
            responses={**answers(EVERY, RATE, *derived, *groups, *refusals), **(responses or {})},
            response_headers=[SEASON_VERSION] if versioned else None,
            opt={OPT: declared},
            **auth,
            **kwargs,
        )(fn)
        with_examples([handler], {handler.handler_name: examples})
        return handler

    return decorate


def declared(handler: HTTPRouteHandler) -> Declared | None:
    """The declaration of a read endpoint's handler (None: not a read endpoint's)."""
    found = handler.opt.get(OPT)
    return found if isinstance(found, Declared) else None
