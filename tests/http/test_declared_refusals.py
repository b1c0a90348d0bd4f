"""Issue 20: an operation declares no domain refusal its command cannot make.

Each command operation's problem schema is built from one list
(services/command/command_refusals.py: the edge's groups it passes through and the domain's
refusals of its command, ORDERS, SPEND …),
which also gives its examples and docs/api.md's table. Every refusal a test receives is checked
against that list (tests/documented.py): nothing is answered that is not declared. This holds
the other direction for the domain's part: each code a list declares is one the command's
decider can make, found in the code of the decider and every function it calls (a reading
that may find too much, never too little, so a declared code it does not find is declared
wrongly).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

from services.command import command_refusals as routes
from shared.app.http.problem_codes import CODES
from shared.domain import messages
from shared.domain.admin import ADMIN_ACTS

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = ROOT / "shared" / "domain"
ROUTES = ROOT / "services" / "command" / "season_routes.py"  # the creation routes
PLAYER_KEYS = ROOT / "services" / "command" / "player_commands.py"  # a player key's check


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _keys_in(nodes: Iterable[ast.AST]) -> set[str]:
    """The codes of every message key written in `nodes`."""
    return {
        messages.code_of(n.value)
        for node in nodes
        for n in ast.walk(node)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
        and messages.code_of(n.value) in CODES
    }


def _refusal_codes(call: ast.Call) -> set[str]:
    """The codes a `reject(...)` or `Problem(...)` call can make: every message key written in
    its arguments (`reject("wrong_divan", …)`, `reject(_TEXTS.get(phase, "wrong_phase"))`)."""
    return _keys_in(call.args)


def _functions(paths: Iterable[Path]) -> dict[str, tuple[set[str], set[str]]]:
    """name -> (codes its own refusals make, names it calls), over the modules `paths`; two
    functions of one name are read as one (never too little)."""
    table: dict[str, tuple[set[str], set[str]]] = {}
    for path in paths:
        for fn in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            codes, calls = table.setdefault(fn.name, (set(), set()))
            for node in ast.walk(fn):
                if isinstance(node, ast.Call):
                    name = _called(node)
                    calls.add(name)
                    if name.endswith("reject") or name == "Problem":
                        codes |= _refusal_codes(node)
                # a key returned for a caller to refuse with (`names.name_problem`'s
                # "invalid_name.length", which `names.name_refusal` passes to `reject`)
                elif isinstance(node, ast.Return) and node.value is not None:
                    codes |= _keys_in([node.value])
    return table


TABLE = _functions(DOMAIN.rglob("*.py"))
# Creation refuses some requests in its route before any decider (a live season's seed, …)
CREATION = {"create_season", "_create_live"}


def reachable(entries: Iterable[str]) -> set[str]:
    """Every code the domain's functions `entries` and all they call can refuse with."""
    seen: set[str] = set()
    todo = list(entries)
    codes: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in TABLE:
            continue
        seen.add(name)
        own, calls = TABLE[name]
        codes |= own
        todo.extend(calls)
    return codes


# Each command's list of its own refusals, and the function that makes them.
DECIDERS = [
    # shared/domain/season.py, and the route's; a creator's name by the join's check
    ("create", routes.CREATE_LIVE, ["create", "name_refusal"]),
    ("orders", routes.ORDERS, ["_orders"]),
    ("spend", routes.SPEND, ["_spend"]),
    ("offer", routes.OFFER, ["_treaty"]),
    ("withdraw, answer", routes.OFFER_VERB, ["_treaty"]),
    ("vote", routes.VOTE, ["_vote"]),
    ("divan", routes.DIVAN, ["_request"]),
    ("join", routes.JOIN, ["_join"]),
    ("correction", routes.CORRECTION, ["decide_correction"]),
    ("name reset", routes.NAME_RESET, ["decide_reset"]),
    ("description reset", routes.DESCRIPTION_RESET, ["decide_description_reset"]),
    ("player name", routes.PLAYER_NAME, ["name_refusal"]),
    *[
        (f"admin {act}", routes.ADMIN[act], ["decide_admin", spec.decide.__name__])
        for act, spec in ADMIN_ACTS.items()
    ],
]


def test_the_reading_finds_the_deciders_refusals() -> None:
    """The reading sees what it must: the order refusals of R-4 (in `order_refusal`, which
    `_orders` calls) and a wrong phase said through `wrong_phase(state)`."""
    assert {"duplicate_province", "not_a_neighbour", "bad_units"} <= reachable(["_orders"])
    assert "wrong_phase" in reachable(["_bey_check"])
    assert "invalid_name" in reachable(["name_refusal"])  # a key returned, then refused with
    assert reachable(["no_such_function"]) == set()


@pytest.mark.parametrize(("command", "declared", "entries"), DECIDERS, ids=[d[0] for d in DECIDERS])
def test_each_declared_domain_refusal_is_one_the_command_can_make(
    command: str, declared: tuple[str, ...], entries: list[str]
) -> None:
    """Issue 20: no operation lists a domain code its command's decider never refuses with."""
    made = reachable(entries)
    if command == "create":
        routes_table = _functions([ROUTES])
        made |= {code for name in CREATION for code in routes_table[name][0]}
    if command in ("create", "join"):  # issue 23: a player key, checked before any decider
        made |= {
            code for _name, (codes, _calls) in _functions([PLAYER_KEYS]).items() for code in codes
        }
    never = sorted(set(declared) - made)
    assert never == [], f"{command}: declares {never}, which its decider cannot refuse with"
