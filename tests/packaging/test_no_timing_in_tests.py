"""No test sleeps a fixed time to wait for something, and no test asserts a duration.

CONTRIBUTING's house rule (wait for the condition with a deadline: `wait_until`, a poll, an
event; assert outcomes; speed goes in bench/), held by the syntax tree of every module in
tests/:
- a `time.sleep(x)` / `asyncio.sleep(x)` / `sleep(x)` whose argument is a number literal (or
  arithmetic of literals and the module's number constants) above MAX_POLL_S is a fixed wait (a poll's step of a few milliseconds is not);
- an `assert` that subtracts a clock reading (`time.monotonic()`, `perf_counter()`, `time()`,
  `loop.time()`, or a name assigned from one) measures a duration. A deadline compares the clock
  with a bound (`assert time.monotonic() < deadline`) and is not one;
- a Hypothesis `settings(deadline=...)` other than None asserts each example's duration
  (tests/conftest.py's profile turns the default 200 ms one off).
"""

from __future__ import annotations

import ast
from pathlib import Path

import hypothesis
import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
MAX_POLL_S = 0.2
CLOCKS = {"monotonic", "perf_counter", "time", "monotonic_ns", "perf_counter_ns", "time_ns"}

# (path, line) → why a fixed sleep or a duration is truly needed there. Keep it empty.
ALLOWED: dict[tuple[str, int], str] = {}


def _is_clock_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return name in CLOCKS and not node.args


def _uses(node: ast.AST, clock_names: set[str]) -> bool:
    return any(
        _is_clock_call(n) or (isinstance(n, ast.Name) and n.id in clock_names)
        for n in ast.walk(node)
    )


def _clock_names(scope: ast.AST) -> set[str]:
    """Names assigned a clock reading (or something computed from one) in this scope."""
    names: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(scope):
            if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if _uses(node.value, names):
                    for t in targets:
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name) and n.id not in names:
                                names.add(n.id)
                                changed = True
            # `seen.append(time.monotonic())`: the list holds clock readings
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id not in names
                and any(_uses(a, names) for a in node.args)
            ):
                names.add(node.func.value.id)
                changed = True
    return names


def _sleep_literal(node: ast.Call, constants: dict[str, float]) -> float | None:
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    if name != "sleep" or not node.args:
        return None
    return _number(node.args[0], constants)


def _number(arg: ast.AST, constants: dict[str, float]) -> float | None:
    """A number literal, a module's number constant, or arithmetic of those
    (`TIMEOUT_MS / 1000 + 1.5`); else None."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, int | float):
        return float(arg.value)
    if isinstance(arg, ast.Name) and arg.id in constants:
        return constants[arg.id]
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add | ast.Sub | ast.Mult | ast.Div):
        left, right = _number(arg.left, constants), _number(arg.right, constants)
        if left is None or right is None:
            return None
        ops = {ast.Add: left + right, ast.Sub: left - right, ast.Mult: left * right}
        return ops.get(type(arg.op), left / right if right else None)
    return None


def _constants(tree: ast.Module) -> dict[str, float]:
    """The module's number constants: `NAME = 3_000` at its top level."""
    constants: dict[str, float] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], _number(stmt.value, constants)
            if isinstance(target, ast.Name) and value is not None:
                constants[target.id] = value
    return constants


def findings(source: str, path: str) -> list[str]:
    tree = ast.parse(source)
    constants = _constants(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            seconds = _sleep_literal(node, constants)
            if seconds is not None and seconds > MAX_POLL_S:
                found.append(f"{path}:{node.lineno}: sleeps a fixed {seconds} s")
            if _sets_a_deadline(node):
                found.append(f"{path}:{node.lineno}: sets a Hypothesis deadline")
    scopes = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for scope in scopes:
        names = _clock_names(scope)
        for node in ast.walk(scope):
            if isinstance(node, ast.Assert):
                subtractions = [
                    n
                    for n in ast.walk(node.test)
                    if isinstance(n, ast.BinOp)
                    and isinstance(n.op, ast.Sub)
                    and (_uses(n.left, names) or _uses(n.right, names))
                ]
                if subtractions or any(
                    isinstance(n, ast.Name) and n.id in names and _derived(scope, n.id)
                    for n in ast.walk(node.test)
                ):
                    found.append(f"{path}:{node.lineno}: asserts a duration")
    return sorted(set(found))


def _sets_a_deadline(node: ast.Call) -> bool:
    """`settings(deadline=...)` with anything but None: a duration every example must meet."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
    return "settings" in name and any(
        k.arg == "deadline" and not (isinstance(k.value, ast.Constant) and k.value.value is None)
        for k in node.keywords
    )


def _derived(scope: ast.AST, name: str) -> bool:
    """`waited = seen[0] - sent`: the name holds a difference of clock readings."""
    for node in ast.walk(scope):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
            and isinstance(node.value, ast.BinOp)
            and isinstance(node.value.op, ast.Sub)
        ):
            return True
    return False


def test_no_test_sleeps_a_fixed_time_or_asserts_a_duration() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        rel = str(path.relative_to(ROOT))
        for f in findings(path.read_text(encoding="utf-8"), rel):
            where = f.split(": ")[0].rsplit(":", 1)
            if (where[0], int(where[1])) not in ALLOWED:
                found.append(f)
    assert not found, "\n".join(found)


def test_hypothesis_has_no_deadline() -> None:
    """Hypothesis's default deadline (200 ms an example) is a duration asserted on every example:
    a process descheduled for a quarter of a second on a loaded box failed a property that held
    ("Unreliable test timings"). tests/conftest.py's profile turns it off for every test, and
    the check above refuses a `settings(deadline=...)` that turns it back on."""
    assert hypothesis.settings.default.deadline is None
    assert hypothesis.settings().deadline is None  # a module's own settings(...) inherits it


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import time\ndef t():\n    time.sleep(1.0)\n", ["x.py:3: sleeps a fixed 1.0 s"]),
        ("import asyncio\nasync def t():\n    await asyncio.sleep(3)\n", ["x.py:3: sleeps"]),
        ("import time\nT = 3_000\ndef t():\n    time.sleep(T / 1000 + 1.5)\n", ["x.py:4: sleeps"]),
        (
            "import time\ndef t():\n    sent = time.monotonic()\n    f()\n"
            "    assert time.monotonic() - sent < 0.5\n",
            ["x.py:5: asserts a duration"],
        ),
        (
            "import time\ndef t(seen):\n    seen.append(time.monotonic())\n    sent = time.monotonic()\n"
            "    waited = seen[0] - sent\n    assert 0.75 <= waited < 2.0\n",
            ["x.py:6: asserts a duration"],
        ),
        ("import time\ndef t():\n    time.sleep(0.01)\n", []),
        (
            "import time\ndef t(deadline):\n    d = time.monotonic() + 5\n"
            "    assert time.monotonic() < d\n",
            [],
        ),
        ("def t(a, b):\n    assert a - b == 1\n", []),
        (
            "from hypothesis import settings\n@settings(max_examples=9, deadline=500)\ndef t():\n"
            "    pass\n",
            ["x.py:2: sets a Hypothesis deadline"],
        ),
        ("import hypothesis as h\nS = h.settings(deadline=None)\n", []),
    ],
)
def test_the_check_finds_fixed_sleeps_and_durations(source: str, expected: list[str]) -> None:
    got = findings(source, "x.py")
    assert len(got) == len(expected), got
    assert all(g.startswith(e) for g, e in zip(got, expected, strict=True)), got
