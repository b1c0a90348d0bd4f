"""Schemathesis hooks for the fuzz runs (tests/integration/test_fuzz_api.py, bench/schemathesis_long.py).

Loaded by `st run` through SCHEMATHESIS_HOOKS=tests.schemathesis_hooks. The beys to fuzz as come
in SEKSENBIR_FUZZ_BEYS, a JSON list of {"season_id", "token"}: one bey in each of two seasons.
- a path's `season_id` is drawn among those seasons as well as what schemathesis generated, so
  most requests reach a real season (and its checks, instead of a 404);
- the Authorization header is the token of the bey whose season the path names (the first
  bey's for any other path), so the endpoints are fuzzed as their bey; schemathesis's own
  ignored_auth check still sends them without it and with a wrong one;
- on the staff operations (issue 20: they got only 401/403 as a bey) it is the ops token for a
  path under /v1/ops/, and ops, auditor and the bey in turn on the others staff may use (the
  exports, the audit reads, a fork); the staff tokens come in SEKSENBIR_FUZZ_STAFF, a JSON
  object {"ops", "auditor"}.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from typing import Any

import schemathesis
from hypothesis import strategies as st

BEYS: list[dict[str, str]] = json.loads(os.environ.get("SEKSENBIR_FUZZ_BEYS", "[]"))
STAFF: dict[str, str] = json.loads(os.environ.get("SEKSENBIR_FUZZ_STAFF", "{}"))
# the operations beside /v1/ops/ that a staff token opens (docs/api.md Tokens)
STAFF_TOO = re.compile(
    r"/(export|audit/ops-reads|audit/betrayals|fork|orders/\{divan\}|battles/\{divan\})$"
)
TURNS = itertools.count()


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


@schemathesis.auth(refresh_interval=None)  # per case: the token depends on the case
class BeyToken:
    """The bearer token of the bey of the path's season, or a staff token (module docstring)."""

    def get(self, case: schemathesis.Case, context: Any) -> str | None:
        path = case.operation.path
        if STAFF and path.startswith("/v1/ops/"):
            return STAFF["ops"]
        if STAFF and STAFF_TOO.search(path):
            turn = next(TURNS) % 3
            if turn < 2:
                return STAFF["ops" if turn == 0 else "auditor"]
        if not BEYS:
            return None
        season_id = (case.path_parameters or {}).get("season_id")
        for bey in BEYS:
            if bey["season_id"] == season_id:
                return bey["token"]
        return BEYS[0]["token"]

    def set(self, case: schemathesis.Case, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
