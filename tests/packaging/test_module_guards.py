"""Issue 21, held by tests and not by review: modules by job in `shared/`, `services/` and
`entrypoints/` (ADR-85).

(a) no module over 400 lines, (b) no function over 60 lines (from `def` to its end),
(c) only `shared/settings.py` reads the environment, (d) no import circle at any depth, counting
imports inside functions and under `TYPE_CHECKING` (the module graph's strongly connected
components, Tarjan), (e) no two modules with the same file name (`__init__.py` aside), so a
name says one job wherever it is imported, (f) one place builds the HTTP app (ADR-82).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("shared", "services", "entrypoints")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def sources(root: Path = ROOT) -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((root / package).rglob("*.py"))


def long_modules(root: Path = ROOT) -> list[str]:
    """(a) Each module over MAX_MODULE_LINES, as `path: lines`."""
    found = []
    for path in sources(root):
        relative = path.relative_to(root).as_posix()
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{relative}: {lines}")
    return found


def long_functions(root: Path = ROOT) -> list[str]:
    """(b) Each function over MAX_FUNCTION_LINES from its `def` to its last line."""
    found = []
    for path in sources(root):
        relative = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), relative)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    found.append(f"{relative}:{node.lineno} {node.name}: {lines}")
    return found


def environment_reads(path: Path, root: Path = ROOT) -> list[str]:
    """(c) Each `os.environ`, `os.getenv`, `getenv` or `environ` use in a module, as file:line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        name = None
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
            name = node.attr
        elif isinstance(node, ast.Name) and node.id in ("environ", "getenv", "environb"):
            name = node.id
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module == "os"
            and {a.name for a in node.names} & {"environ", "getenv", "environb"}
        ):
            name = "from os import"
        if name is not None:
            found.append(f"{path.relative_to(root).as_posix()}:{getattr(node, 'lineno', 0)} {name}")
    return found


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """(d) Module → the project modules it imports anywhere in its text (functions included).

    `from a.b import c` is an edge to `a.b.c` when that is a module, else to `a.b`; a relative
    import is resolved against the importing module's package.
    """
    paths = {_module_name(p, root): p for p in sources(root)}
    graph: dict[str, set[str]] = {name: set() for name in paths}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([base] if base else [])])
                targets = [f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in paths]
                targets = targets or [base]
            for imported in targets:
                target = imported
                while target and target not in paths:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan; the graph's depth is
    a few hundred modules at most, well inside the recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(component) > 1:
                found.append(sorted(component))

    for start in sorted(graph):
        if start not in index:
            visit(start)
    return found


def duplicate_names(root: Path = ROOT) -> dict[str, list[str]]:
    """(e) Each module file name (`__init__.py` aside) held by more than one module."""
    where: dict[str, list[str]] = {}
    for path in sources(root):
        if path.name != "__init__.py":
            where.setdefault(path.name, []).append(path.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


# --- the guards on this repository -------------------------------------------------------------


def test_no_module_is_over_400_lines() -> None:
    assert long_modules() == [], "split the module by job (ADR-85)"


def test_no_function_is_over_60_lines() -> None:
    assert long_functions() == [], "split the function (ADR-85)"


def test_only_settings_reads_the_environment() -> None:
    reads = []
    for path in sources():
        if path.relative_to(ROOT).as_posix() != "shared/settings.py":
            reads += environment_reads(path)
    assert reads == [], "read the environment through shared.settings instead"


def test_settings_reads_the_environment() -> None:
    """The guard above looks for the right thing: it finds the one reader there is."""
    assert environment_reads(ROOT / "shared" / "settings.py")


def test_no_import_circle_at_any_depth() -> None:
    assert circles(import_graph()) == []


def apps_built(root: Path = ROOT) -> list[str]:
    """(f) Each call that builds a Litestar app, as `path:line`."""
    found = []
    for path in sources(root):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Litestar":
                found.append(f"{path.relative_to(root).as_posix()}:{node.lineno}")
    return found


def test_one_factory_builds_the_http_app() -> None:
    """ADR-82: the one HTTP app factory, entrypoints/gateway.py's create_app, is the one place
    a Litestar app is built (its clients come from bootstrap or a test)."""
    built = apps_built()
    assert [b.split(":")[0] for b in built] == ["entrypoints/gateway.py"], built


def test_no_two_modules_share_a_name() -> None:
    assert duplicate_names() == {}, "name each module by its job (issue 21)"


# --- the guards themselves fail on what they guard against -------------------------------------


def _tree(tmp_path: Path, files: Mapping[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _function(name: str, body_lines: int) -> str:
    return f"def {name}() -> None:\n" + "    pass\n" * body_lines


@pytest.mark.parametrize(("lines", "caught"), [(400, False), (401, True)])
def test_the_module_guard_fails_on_a_module_over_400_lines(
    tmp_path: Path, lines: int, caught: bool
) -> None:
    root = _tree(tmp_path, {"shared/big.py": "x = 1\n" * lines})
    assert long_modules(root) == (["shared/big.py: 401"] if caught else [])


@pytest.mark.parametrize(("body", "caught"), [(59, False), (60, True)])
def test_the_function_guard_fails_on_a_function_over_60_lines(
    tmp_path: Path, body: int, caught: bool
) -> None:
    nested = "class C:\n" + "".join(
        "    " + line + "\n" for line in _function("f", body).split("\n")[:-1]
    )
    root = _tree(tmp_path, {"entrypoints/long.py": _function("g", body) + nested})
    expected = ["entrypoints/long.py:1 g: 61", f"entrypoints/long.py:{body + 3} f: 61"]
    assert long_functions(root) == (expected if caught else [])


@pytest.mark.parametrize(
    "text",
    [
        "import os\nx = os.environ['A']\n",
        "import os\nx = os.getenv('A')\n",
        "from os import environ\n",
        "from os import getenv as g\n",
        "def f():\n    import os\n    return os.environ.get('A')\n",
    ],
)
def test_the_environment_guard_finds_every_kind_of_read(tmp_path: Path, text: str) -> None:
    root = _tree(tmp_path, {"shared/reads.py": text})
    assert environment_reads(root / "shared" / "reads.py", root)


def test_the_circle_guard_finds_a_circle_through_a_function_level_import(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "shared/__init__.py": "",
            "shared/a.py": "from shared import b\n",
            "shared/b.py": "from shared.c import thing\n",
            "shared/c.py": "def thing():\n    from . import a\n    return a\n",
            "shared/d.py": "import shared.a\n",
            "entrypoints/e.py": "from shared.c import thing\n",
        },
    )
    assert circles(import_graph(root)) == [["shared.a", "shared.b", "shared.c"]]


def test_the_circle_guard_passes_a_tree_without_one(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {"shared/__init__.py": "", "shared/a.py": "import shared.b\n", "shared/b.py": "x = 1\n"},
    )
    assert circles(import_graph(root)) == []


def test_the_name_guard_fails_on_two_modules_of_one_name(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "shared/app/auth.py": "",
            "services/command/auth.py": "",
            "shared/app/__init__.py": "",
            "services/command/__init__.py": "",
            "entrypoints/cli.py": "",
        },
    )
    assert duplicate_names(root) == {"auth.py": ["shared/app/auth.py", "services/command/auth.py"]}
