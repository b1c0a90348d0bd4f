"""Issue 20: a problem's extra members are declared, typed, in its operation's schema.

shared.app.http.openapi CARRIES says which members each code carries, and MEMBERS their types; each
operation's problem schema is built from them (`problem_type`). Here both tables are held to
the code that sets the members: every keyword a refusal is made with (`reject(key, province=…)`
in the domain, `Problem(status, key, seat=…)` at the edge) is declared for its code, and every
declared member is set somewhere. The members the edge sets on `Problem.extra` directly (a
body's or a parameter's `field` and its bounds) are listed by hand below. Every problem a test
receives is also validated against its operation's schema (tests/documented.py).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import msgspec

from shared.app.http.openapi_problems import CARRIES, MEMBERS, problem_type
from shared.app.http.problem_codes import CODES
from shared.domain import messages

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("shared", "services", "entrypoints")
NOT_MEMBERS = {"retry_after", "params", "parts"}  # Problem's own keywords
# Set on `Problem.extra` as a whole (shared.app.http.strict.body_problem, problems._bad_request)
BY_HAND = {
    ("unknown_field", "field"),
    ("invalid_body", "field"),
    ("invalid_body", "minimum"),
    ("invalid_body", "maximum"),
    ("invalid_parameter", "field"),
    ("invalid_parameter", "minimum"),
    ("invalid_parameter", "maximum"),
}
# The domain's refusals no operation answers: the edge never sets a rules version (D-28)
NEVER_ANSWERED = {"unknown_rules_version"}


def _key(call: ast.Call, at: int) -> str | None:
    if len(call.args) > at and isinstance(call.args[at], ast.Constant):
        value = call.args[at].value  # type: ignore[attr-defined]
        return value if isinstance(value, str) else None
    return None


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def members_set_in_code() -> set[tuple[str, str]]:
    """(code, member) for every refusal made with keyword members in the product's code."""
    found = set()
    for package in SOURCES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if not isinstance(node, ast.Call):
                    continue
                name = _name(node.func)
                key = _key(node, 0) if name.endswith("reject") else None
                key = _key(node, 1) if name == "Problem" else key
                if key is None:
                    continue
                for kw in node.keywords:
                    if kw.arg is not None and kw.arg not in NOT_MEMBERS:
                        found.add((messages.code_of(key), kw.arg))
    return found


def test_every_member_a_refusal_carries_is_declared_for_its_code() -> None:
    """Issue 20: a member the code puts on a refusal is in CARRIES for its code (so its
    operations' schemas declare it), and every member CARRIES declares is one the code sets."""
    found = {(code, m) for code, m in members_set_in_code() if code not in NEVER_ANSWERED}
    assert len(found) > 20, found  # the scan sees the refusals (decide.py alone has dozens)
    declared = {(code, m) for code, members in CARRIES.items() for m in members}
    assert sorted(found - declared) == [], "set by the code, not declared in CARRIES"
    assert sorted(declared - found - BY_HAND) == [], "declared in CARRIES, set nowhere"


def test_every_declared_member_has_a_type_and_its_code_exists() -> None:
    assert set(CARRIES) <= set(CODES)
    assert not NEVER_ANSWERED & set(CODES)
    assert {m for members in CARRIES.values() for m in members} == set(MEMBERS)


def _schema_of(codes: list[str]) -> dict[str, Any]:
    struct = problem_type("ProbeProblem", codes)
    _, components = msgspec.json.schema_components([struct])
    return components["ProbeProblem"]  # type: ignore[no-any-return]


def test_an_operations_problem_type_is_its_codes_and_their_members() -> None:
    """The schema of an operation answering `memleket_taken` and `not_enough_gold`: `code`
    exactly those two, `free_neighbours` a list of plates, `cost` and `gold` integers, all
    three optional (present only with their code), the RFC 9457 members required."""
    schema = _schema_of(["memleket_taken", "not_enough_gold"])
    props = schema["properties"]
    assert props["code"]["enum"] == ["memleket_taken", "not_enough_gold"]
    assert props["free_neighbours"]["type"] == "array"
    assert props["free_neighbours"]["items"] == {"type": "integer"}
    assert props["cost"]["type"] == props["gold"]["type"] == "integer"
    assert set(props) == {
        *("type", "title", "status", "code", "detail", "instance"),
        *("memleket", "free_neighbours", "cost", "gold"),
    }
    assert set(schema["required"]) == {"type", "title", "status", "code", "detail", "instance"}
