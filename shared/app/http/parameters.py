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

A query parameter the route declares with one value (`?min_version=`, `?limit=`, `?ticket=` …)
given more than once is 422 `invalid_parameter` naming it with `repeated` (how many times):
Litestar kept one of them silently (the first for some, the last for others), so the answer
followed a value the client may not have meant, and a proxy, a log or a cache may have read
the other. `one_query_value` runs beside `path_parameters`, before any token is read. A list
parameter (explain's `province`) repeats by design; `lang`, the language hint every operation
takes, is read by the language middleware (the first language the server speaks wins,
docs/api.md "Language"); a name the route does not declare is ignored, as it is given once.

Integer path parameters are strict_int's (shared.app.http.strict); query parameters are typed by
their handlers, and the walk of every route (tests/projections/test_hostile_parameters.py)
shows none lets such a text through to a store.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import parse_qsl
from weakref import WeakKeyDictionary

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


# each route handler's query parameters that take one value, by the names in the URL; held
# weakly by the handler itself (keyed by its id, an entry outlived a test's app, and the next
# handler given that id read the dead one's names)
_ONE_VALUE: WeakKeyDictionary[Any, dict[frozenset[str], frozenset[str]]] = WeakKeyDictionary()


def _one_value_names(handler: Any, path: frozenset[str]) -> frozenset[str]:
    known = _ONE_VALUE.setdefault(handler, {})
    names = known.get(path)
    if names is None:
        model = handler.create_kwargs_model(path_parameters=dict.fromkeys(path))
        names = frozenset(p.field_alias for p in model.expected_query_params if not p.is_sequence)
        known[path] = names
    return names


async def one_query_value(connection: Any, _handler: BaseRouteHandler | None = None) -> None:
    """422 `invalid_parameter` (`repeated`) for a declared one-value query parameter given more
    than once (module doc). A query string without `&` holds each name once: nothing parsed."""
    raw: bytes = connection.scope.get("query_string", b"")
    if b"&" not in raw or connection.scope["method"] == "OPTIONS":
        return
    counts = Counter(name for name, _ in parse_qsl(raw.decode("latin-1"), keep_blank_values=True))
    repeated = {name: n for name, n in counts.items() if n > 1}
    if not repeated:
        return
    handler = connection.scope["route_handler"]
    declared = _one_value_names(handler, frozenset(connection.path_params))
    for name in sorted(repeated):
        if name in declared:
            raise Problem(422, "invalid_parameter.repeated", field=name, repeated=repeated[name])
