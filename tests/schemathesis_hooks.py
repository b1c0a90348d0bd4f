"""Schemathesis hooks for the fuzz runs (tests/integration/test_fuzz_api.py, bench/schemathesis_long.py).

Loaded by `st run` through SCHEMATHESIS_HOOKS=tests.schemathesis_hooks. The beys to fuzz as come
in SEKSENBIR_FUZZ_BEYS, a JSON list of {"season_id", "token"}: one bey in each of two seasons.
- a path's `season_id` is drawn among those seasons as well as what schemathesis generated, so
  most requests reach a real season (and its checks, instead of a 404);
- the Authorization header is the token of the bey whose season the path names (the first
  bey's for any other path), so the endpoints are fuzzed as their bey; schemathesis's own
  ignored_auth check still sends them without it and with a wrong one.
"""

from __future__ import annotations

import json
import os
from typing import Any

import schemathesis
from hypothesis import strategies as st

BEYS: list[dict[str, str]] = json.loads(os.environ.get("SEKSENBIR_FUZZ_BEYS", "[]"))


@schemathesis.hook
def flatmap_path_parameters(
    context: schemathesis.HookContext, path_parameters: dict[str, Any] | None
) -> st.SearchStrategy[dict[str, Any] | None]:
    if not path_parameters or "season_id" not in path_parameters or not BEYS:
        return st.just(path_parameters)
    generated = path_parameters["season_id"]
    return st.sampled_from([b["season_id"] for b in BEYS] + [generated]).map(
        lambda season_id: {**path_parameters, "season_id": season_id}
    )


@schemathesis.auth()
class BeyToken:
    """The bearer token of the bey of the path's season."""

    def get(self, case: schemathesis.Case, context: Any) -> str | None:
        if not BEYS:
            return None
        season_id = (case.path_parameters or {}).get("season_id")
        for bey in BEYS:
            if bey["season_id"] == season_id:
                return bey["token"]
        return BEYS[0]["token"]

    def set(self, case: schemathesis.Case, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
