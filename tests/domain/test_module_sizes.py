"""Modules by job (issue 21): no module of the domain over 400 lines, no function over 60 (lines
from its `def`, decorators included, to its last line). Split by job, never by squeezing."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shared.domain import decide

DOMAIN = Path(decide.__file__).resolve().parent
MODULES = sorted(DOMAIN.rglob("*.py"))
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def long_functions(source: str) -> list[tuple[str, int]]:
    """Every function (methods and nested ones too) over MAX_FUNCTION_LINES, with its length."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > MAX_FUNCTION_LINES:
                out.append((node.name, length))
    return out


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_no_domain_module_is_over_400_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_MODULE_LINES, f"{path.name}: {lines} lines; split it by job"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(DOMAIN)))
def test_no_domain_function_is_over_60_lines(path: Path) -> None:
    assert long_functions(path.read_text(encoding="utf-8")) == []


def test_the_measure_counts_from_the_decorator_to_the_last_line() -> None:
    """The check itself: a 61-line function is caught, a 60-line one is not."""
    body = "".join(f"    x{i} = {i}\n" for i in range(59))
    assert long_functions(f"@cache\ndef f():\n{body}") == [("f", 61)]
    assert long_functions(f"def f():\n{body}") == []
