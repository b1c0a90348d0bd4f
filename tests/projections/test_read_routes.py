"""One declaration per read endpoint (issue 21, ADR-116): the query API's routes are each
declared by `read(...)` (services/projections/read_route.py), and what is derived from the
declarations is held here: docs/api.md's read table, and `?min_version=` on exactly the season
reads declared `versioned` (the access matrix's default rows: test_access_matrix.py)."""

from __future__ import annotations

import json
from pathlib import Path

from services.projections.query import QUERY_ROUTES
from services.projections.read_route import declared, read
from tests.documented import reads_table
from tests.node_tools import served_document

API_MD = Path(__file__).resolve().parents[2] / "docs" / "api.md"


def test_every_query_route_is_declared() -> None:
    assert [h.handler_name for h in QUERY_ROUTES if declared(h) is None] == []
    assert len({h.handler_name for h in QUERY_ROUTES}) == len(QUERY_ROUTES)


def test_docs_read_table_is_rendered_from_the_declarations() -> None:
    """docs/api.md's "Read side" table is this rendering (paste the printed table after
    changing a declaration; never edit the rows by hand)."""
    table = reads_table(QUERY_ROUTES)
    assert table in API_MD.read_text(), table


async def test_min_version_on_exactly_the_versioned_season_reads() -> None:
    doc = json.loads(await served_document())
    taking = {
        f"{method.upper()} {path}"
        for path, item in doc["paths"].items()
        for method, op in item.items()
        if any(p["name"] == "min_version" for p in op.get("parameters", ()))
    }
    versioned = set()
    for h in QUERY_ROUTES:
        d = declared(h)
        assert d is not None
        if d.versioned:
            path = "/v1" + h.paths.copy().pop().replace(":str}", "}").replace(":int}", "}")
            versioned |= {f"{m} {path}" for m in h.http_methods}
    assert taking == versioned


def test_a_read_whose_callers_vary_says_who_may_call_it() -> None:
    try:
        read("/x", who="varies", summary="x", what="x", examples={})
    except ValueError as e:
        assert "callers" in str(e)
    else:
        raise AssertionError("a `varies` read without `callers` was declared")
