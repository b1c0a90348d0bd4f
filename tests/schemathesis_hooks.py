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
- `ast.parse` is serialised in the `st` process (`serialise_ast_parse`): CPython before 3.11.8 /
  3.12.2 keeps the AST constructor's recursion counter per interpreter, not per call (CPython
  gh-106905), so two threads parsing at once corrupt it and one gets `SystemError: AST
  constructor recursion depth mismatch`. Schemathesis's two workers are two threads, and
  Hypothesis parses a module's source to describe a lambda: it does so the first time each
  worker validates the "any JSON value" strategy (`st.recursive` with lambdas) drawn for the
  properties an object schema leaves open, which is every request body's.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import sys
import threading
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
# CPython gh-106905: fixed in 3.11.8 and 3.12.2
AST_RACE = (3, 11) <= sys.version_info[:2] <= (3, 12) and sys.version_info < (
    (3, 11, 8) if sys.version_info[:2] == (3, 11) else (3, 12, 2)
)
_PARSING = threading.RLock()


def serialise_ast_parse() -> None:
    """One `ast.parse` at a time in this process, on an interpreter with gh-106905 (above);
    nothing on one without it. Idempotent."""
    if not AST_RACE or getattr(ast.parse, "serialised", False):
        return
    unguarded = ast.parse

    def parse(*args: Any, **kwargs: Any) -> Any:
        with _PARSING:
            return unguarded(*args, **kwargs)

    parse.serialised = True  # type: ignore[attr-defined]
    ast.parse = parse  # type: ignore[assignment]


serialise_ast_parse()


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
