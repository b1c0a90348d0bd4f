"""Path parameters no resource can have, refused before anything reads them (issue 20).

A season id with a NUL in it reached asyncpg and answered 500 `internal` with a traceback on
every route that looks a season up in PostgreSQL, before the token was even checked; the ops
read of a bey answered 503 `audit_unavailable` and logged a false `ops.secret_read_unrecorded`
(its audit record could not be written either). `path_parameters` is one of the app's checks
(shared.app.access.request_auth.edge_checks), so it runs on every route of both APIs before the
routes' own guards' token checks (the ops and staff token checks),
dependencies (the bey claim), body and audit record:

- a `season_id` no season can have (shared.eventstore.model.possible_season_id: 1 … 100
  printable characters, no space or `/`) is 404 `season_not_found`, as the read side answers
  a season it does not know;
- any other text path parameter that holds a NUL or a lone surrogate (neither PostgreSQL nor
  Redis takes one) is 404 `not_found`.

Integer path parameters are strict_int's (shared.app.http.strict); query parameters are typed by
their handlers, and the walk of every route (tests/projections/test_hostile_parameters.py)
shows none lets such a text through to a store.
"""

from __future__ import annotations

import re
from typing import Any

from litestar.handlers.base import BaseRouteHandler

from shared.app.http.problems import Problem
from shared.eventstore.model import possible_season_id

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


async def path_parameters(connection: Any, _handler: BaseRouteHandler | None = None) -> None:
    """The app's first guard: 404 for a path parameter no resource can have (an OPTIONS
    answer, Litestar's own `Allow` list, reads nothing and is left to it)."""
    if connection.scope["method"] == "OPTIONS":
        return
    params: dict[str, Any] = connection.path_params
    season_id = params.get("season_id")
    if isinstance(season_id, str) and not possible_season_id(season_id):
        raise Problem(404, "season_not_found")
    for value in params.values():
        if isinstance(value, str) and _UNSTORABLE.search(value):
            raise Problem(404, "not_found")
