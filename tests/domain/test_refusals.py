"""One table of refusal codes (shared.domain.refusals): the code, the catalogue and the HTTP
statuses are held to it, so a new refusal is one line in each of the table and the catalogue."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from shared.app.http.problem_codes import CODES
from shared.domain import decide, messages, refusals

DOMAIN = Path(decide.__file__).resolve().parent


def _keys_in(tree: ast.AST) -> set[str]:
    """The message keys of every `reject("key", …)` / `_reject("key", …)` call in `tree`."""
    keys: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        first, func = node.args[0], node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ("reject", "_reject") and isinstance(first, ast.Constant):
            assert isinstance(first.value, str)
            keys.add(first.value)
    return keys


def domain_keys() -> set[str]:
    keys = set(decide._PHASE_TEXTS.values())  # wrong_phase(state) picks one of these
    for path in sorted(DOMAIN.rglob("*.py")):
        keys |= _keys_in(ast.parse(path.read_text(encoding="utf-8")))
    return keys


def test_the_table_is_exactly_the_codes_the_domain_refuses_with() -> None:
    table = refusals.REFUSALS
    written = [  # a dict keeps the last of two equal keys: read the table as written
        key.value
        for node in ast.walk(ast.parse(Path(refusals.__file__).read_text(encoding="utf-8")))
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "REFUSALS"
        for key in getattr(node.value, "keys", [])
        if isinstance(key, ast.Constant)
    ]
    assert written == list(table), "a code is in the table twice"
    assert {messages.code_of(k) for k in domain_keys()} == set(table)


def test_every_refusal_key_has_its_texts_in_the_catalogue() -> None:
    missing = sorted(k for k in domain_keys() if k not in messages.CATALOGUE)
    assert not missing, f"refusals without texts in shared/domain/messages.py: {missing}"
    textless = [
        c
        for c in refusals.REFUSALS
        if not any(messages.code_of(k) == c for k in messages.CATALOGUE)
    ]
    assert not textless, f"codes with no text at all: {textless}"


# ADR-43: POST /v1/seasons never names a rules version, so no HTTP answer carries this code.
NEVER_ANSWERED = {"unknown_rules_version"}


def test_every_refusal_code_has_an_http_status() -> None:
    """ADR-115: each code's status and meaning are beside it in the table, and the HTTP edge's
    CODES answers each with them; only a code no answer carries has none."""
    missing = [c for c, answer in refusals.REFUSALS.items() if answer is None]
    assert missing == sorted(NEVER_ANSWERED), f"codes without a status: {missing}"
    for code, answer in refusals.REFUSALS.items():
        if answer is not None:
            status, meaning = answer
            assert 400 <= status < 500 and meaning, code
            assert CODES[code] == answer, code
    assert not NEVER_ANSWERED & set(CODES)


def test_order_refusals_are_what_submitting_orders_refuses_with_in_order() -> None:
    """R-4.1, R-4.2, R-4.4: the codes `_orders` and `order_refusal` give, in the order checked."""
    keys: list[str] = ["wrong_phase"]  # _bey_check / wrong_phase, before anything else
    for fn in (decide._orders, decide.order_refusal):
        calls = [
            n
            for n in ast.walk(ast.parse(inspect.getsource(fn).strip()))
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "reject"
        ]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            assert isinstance(call.args[0], ast.Constant)
            keys.append(str(call.args[0].value))
    codes = list(dict.fromkeys(messages.code_of(k) for k in keys))
    assert codes == list(refusals.ORDER_REFUSALS)
    assert set(refusals.ORDER_REFUSALS) <= set(refusals.REFUSALS)


def test_documented_leaves_out_only_what_the_edge_refuses_first() -> None:
    """D-27: unknown_province and unknown_seat never reach the domain over HTTP."""
    assert refusals.documented(refusals.ORDER_REFUSALS) == tuple(
        c for c in refusals.ORDER_REFUSALS if c != "unknown_province"
    )
    assert set(refusals.REFUSALS) >= refusals.BOUNDED_AT_THE_EDGE
