"""A lint for the domain's determinism (RELIABILITY 23): no set iterated in an unsorted order,
no module-level random draw.

A set's (or frozenset's) iteration order depends on its elements' hashes, and a str's hash
changes with PYTHONHASHSEED: a `for` over a set of strings can visit them in another order in
another process. Ints hash to themselves, so a set of ints iterates the same way today, but
"today" is an implementation detail the domain must not lean on (R-12: a Divan is a pure
function of the seed and the inputs). So the domain iterates a set only through `sorted()`.

What counts as a set expression, without running the code (`set_expr`):
- a set literal `{a, b}`, a set comprehension, a call to `set()` / `frozenset()`;
- a name or `self.attr` bound in the same scope (function, class body, module) to a set
  expression, or annotated `set[...]` / `frozenset[...]` / `AbstractSet[...]`;
- a call to a domain function whose return annotation is a set (collected over every module
  first, so `battle_parties(r)` is one);
- `a | b`, `a & b`, `a - b`, `a ^ b` with a set operand; `s.union(...)`, `s.intersection(...)`,
  `s.difference(...)`, `s.symmetric_difference(...)`, `s.copy()` of a set `s`;
- `x[i]` of a name or attribute annotated as a tuple/list/dict *of* sets.

What counts as iterating it (`findings`): a `for` loop or comprehension over it, or handing it
to `list()`, `tuple()`, `enumerate()`, `iter()`, `zip()`, `next()` or `str.join`. Membership
(`x in s`), `len(s)`, comparisons and the order-blind reductions (`sum`, `min`, `max`, `any`,
`all` called on the set itself, not on a generator over it) do not depend on the order and
are allowed, and so is a generator handed straight to `sorted`, `any`, `all`, `sum`, `set`,
`frozenset` (and `min`/`max` without `key=`): `sorted(s for s in near if s)` is the fix, not
a fault.

Also refused: `random.shuffle/choice/choices/sample/randrange/randint/random` and any
`import random` in the domain (its draws come from `shared.domain.rng`, keyed by seed, Divan,
purpose and key).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SET_NAMES = frozenset({"set", "frozenset", "AbstractSet", "Set", "MutableSet"})
SET_METHODS = frozenset({"union", "intersection", "difference", "symmetric_difference", "copy"})
ORDERED_USES = frozenset({"list", "tuple", "enumerate", "iter", "zip", "next"})
ORDER_BLIND = frozenset({"sorted", "any", "all", "sum", "set", "frozenset", "len"})
RANDOM_CALLS = frozenset(
    {"shuffle", "choice", "choices", "sample", "randrange", "randint", "random", "uniform"}
)


@dataclass(frozen=True, order=True)
class Finding:
    path: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.what}"


def _annotation_is_set(node: ast.expr | None) -> bool:
    """`set[int]`, `frozenset[str]`, `set`, `typing.AbstractSet[x]`, or such in quotes."""
    if node is None:
        return False
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return False
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute):
        return node.attr in SET_NAMES
    return isinstance(node, ast.Name) and node.id in SET_NAMES


def _annotation_holds_sets(node: ast.expr | None) -> bool:
    """`tuple[frozenset[int], ...]`, `list[set[x]]`, `dict[k, frozenset[v]]`: an item is a set."""
    if not isinstance(node, ast.Subscript):
        return False
    inner = node.slice
    parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
    if isinstance(node.value, ast.Name) and node.value.id == "dict":
        parts = parts[1:]
    return any(_annotation_is_set(p) for p in parts)


def _target_key(node: ast.expr) -> str | None:
    """A name (`x`) or an attribute of a name (`self.x`) as a scope key; else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


class _Scope:
    def __init__(self, parent: _Scope | None = None) -> None:
        self.sets: set[str] = set()
        self.holders: set[str] = set()  # names whose items are sets
        self.parent = parent

    def is_set(self, key: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if key in scope.sets:
                return True
            scope = scope.parent
        return False

    def holds_sets(self, key: str) -> bool:
        scope: _Scope | None = self
        while scope is not None:
            if key in scope.holders:
                return True
            scope = scope.parent
        return False


def set_returning_functions(trees: Iterable[ast.Module]) -> frozenset[str]:
    """Every domain function (or method) whose return annotation is a set."""
    found = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _annotation_is_set(
                node.returns
            ):
                found.add(node.name)
    return frozenset(found)


class _Checker(ast.NodeVisitor):
    def __init__(self, path: str, set_functions: frozenset[str]) -> None:
        self.path = path
        self.set_functions = set_functions
        self.scope = _Scope()
        self.class_scopes: list[_Scope] = []
        self.found: list[Finding] = []
        self.order_blind: set[int] = set()  # generators handed straight to an order-blind call

    # --- what is a set ------------------------------------------------------------------------

    def set_expr(self, node: ast.expr) -> bool:  # noqa: PLR0911 — one answer per shape
        if isinstance(node, ast.Set | ast.SetComp):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                return f.id in ("set", "frozenset") or f.id in self.set_functions
            if isinstance(f, ast.Attribute):
                if f.attr in SET_METHODS:
                    return self.set_expr(f.value)
                return f.attr in self.set_functions
            return False
        if isinstance(node, ast.BinOp) and isinstance(
            node.op, ast.BitOr | ast.BitAnd | ast.Sub | ast.BitXor
        ):
            return self.set_expr(node.left) or self.set_expr(node.right)
        if isinstance(node, ast.Subscript):
            key = _target_key(node.value)
            return key is not None and self._holds(key)
        key = _target_key(node)
        return key is not None and self._is(key)

    def _is(self, key: str) -> bool:
        if self.scope.is_set(key):
            return True
        # `self.x` set in __init__ is visible in every method of the class
        return key.startswith("self.") and any(s.is_set(key) for s in self.class_scopes[-1:])

    def _holds(self, key: str) -> bool:
        if self.scope.holds_sets(key):
            return True
        return key.startswith("self.") and any(s.holds_sets(key) for s in self.class_scopes[-1:])

    def _bind(self, target: ast.expr, value: ast.expr | None, annotation: ast.expr | None) -> None:
        key = _target_key(target)
        if key is None:
            return
        scope = self.scope
        if key.startswith("self.") and self.class_scopes:
            scope = self.class_scopes[-1]
        if _annotation_is_set(annotation) or (value is not None and self.set_expr(value)):
            scope.sets.add(key)
        elif annotation is not None or value is not None:
            scope.sets.discard(key)  # rebound to something else
        if _annotation_holds_sets(annotation):
            scope.holders.add(key)

    # --- scopes -------------------------------------------------------------------------------

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = self.scope
        self.scope = _Scope(outer)
        self.class_scopes.append(self.scope)
        self.generic_visit(node)
        self.class_scopes.pop()
        self.scope = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        outer = self.scope
        self.scope = _Scope(outer)
        args = node.args
        for a in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            if _annotation_is_set(a.annotation):
                self.scope.sets.add(a.arg)
            if _annotation_holds_sets(a.annotation):
                self.scope.holders.add(a.arg)
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for t in node.targets:
            self._bind(t, node.value, None)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        self._bind(node.target, node.value, node.annotation)

    # --- what iterates ------------------------------------------------------------------------

    def _refuse(self, node: ast.AST, what: str) -> None:
        self.found.append(Finding(self.path, getattr(node, "lineno", 0), what))

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        if self.set_expr(node.iter):
            self._refuse(node, f"for loop over a set ({ast.unparse(node.iter)}): use sorted()")
        self.generic_visit(node)

    visit_AsyncFor = visit_For

    def _comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> None:
        if id(node) in self.order_blind:
            self.generic_visit(node)
            return
        for gen in node.generators:
            if self.set_expr(gen.iter):
                self._refuse(
                    node, f"comprehension over a set ({ast.unparse(gen.iter)}): use sorted()"
                )
        self.generic_visit(node)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node)

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node)

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension(node)

    def visit_SetComp(self, node: ast.SetComp) -> None:
        # a set built from a set has no order to lose; the result is checked where it is used
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        name = f.id if isinstance(f, ast.Name) else None
        # sorted(x for x in s), any(… for t in s): the answer does not depend on the order
        # (min/max only without key=: with a key, ties go to the first one met)
        blind = name in ORDER_BLIND or (name in ("min", "max") and not node.keywords)
        if blind:
            self.order_blind.update(id(a) for a in node.args if isinstance(a, ast.GeneratorExp))
        if name in ORDERED_USES and any(self.set_expr(a) for a in node.args):
            self._refuse(node, f"{name}() of a set: use sorted()")
        if (
            isinstance(f, ast.Attribute)
            and f.attr == "join"
            and any(self.set_expr(a) for a in node.args)
        ):
            self._refuse(node, "join() of a set: use sorted()")
        if (
            isinstance(f, ast.Attribute)
            and isinstance(f.value, ast.Name)
            and f.value.id == "random"
            and f.attr in RANDOM_CALLS
        ):
            self._refuse(node, f"random.{f.attr}(): draw from shared.domain.rng")
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        if any(a.name == "random" for a in node.names):
            self._refuse(node, "import random: draw from shared.domain.rng")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "random":
            self._refuse(node, "from random import …: draw from shared.domain.rng")


def check_sources(sources: dict[str, str]) -> list[Finding]:
    """Findings over {path: source}; set-returning functions are collected over all of them."""
    trees = {path: ast.parse(text, filename=path) for path, text in sources.items()}
    functions = set_returning_functions(trees.values())
    found: list[Finding] = []
    for path, tree in sorted(trees.items()):
        checker = _Checker(path, functions)
        checker.visit(tree)
        found.extend(checker.found)
    return sorted(found)


def domain_sources(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root.parent.parent)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.py"))
    }


def findings(root: Path) -> Iterator[Finding]:
    yield from check_sources(domain_sources(root))
