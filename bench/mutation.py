"""Mutation testing of the rules modules with mutmut: do the cases and properties notice changes?

Mutates shared/domain/rules/*.py and shared/domain/scoring.py (and resolve.py with
--with-resolve) and runs the domain tests (tests/domain) against every mutant, with pytest -x.
A mutant is killed when a test fails or the run times out. The run happens in a throw-away copy
of the tree (shared/, tests/domain, pyproject.toml), so the checkout is never touched and the
mutmut configuration lives only in that copy.

For the run alone, Hypothesis is derandomised with no example database (the same examples every
run, so figures are reproducible) and each property's max_examples is lowered to
--max-examples (default 20; 0 keeps the suite's own value) to keep the run under ~20 minutes on
2 cores.

Run: .venv/bin/python -m bench.mutation [--jobs N] [--max-examples N] [--with-resolve]
     [--only MODULE ...] [--workdir DIR] [--json FILE]
Results: docs/mutation.md. Needs mutmut (dev extra).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = [
    f"shared/domain/rules/{p.name}" for p in sorted((ROOT / "shared/domain/rules").glob("*.py"))
]
TARGETS = [*RULES, "shared/domain/scoring.py"]
TESTS = "tests/domain"
KILLED = {"killed", "timeout", "segfault", "caught by type check"}
SURVIVED = {"survived", "no tests"}

CONFTEST = """
# Added by bench.mutation for the mutation run only.
from hypothesis import settings as _mutation_settings

_mutation_settings.register_profile(
    "mutation", database=None, derandomize=True, deadline=None, print_blob=False
)
_mutation_settings.load_profile("mutation")
_MUTATION_MAX_EXAMPLES = {max_examples}


def pytest_collection_modifyitems(items):  # lower explicit @settings(max_examples=...) too
    if not _MUTATION_MAX_EXAMPLES:
        return
    for item in items:
        fn = getattr(item, "obj", None)
        s = getattr(fn, "_hypothesis_internal_use_settings", None)
        if s is not None and s.max_examples > _MUTATION_MAX_EXAMPLES:
            fn._hypothesis_internal_use_settings = _mutation_settings(
                s, max_examples=_MUTATION_MAX_EXAMPLES
            )
"""


@dataclass
class Mutant:
    name: str
    path: str
    function: str
    status: str
    line: int | None = None
    before: str = ""
    after: str = ""


def _toml_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(i) for i in items) + "]"


def prepare(
    work: Path, targets: list[str], max_examples: int, timeout: tuple[float, float]
) -> None:
    """A copy of the tree with the mutmut config in its pyproject and the Hypothesis profile."""
    ignore = shutil.ignore_patterns("__pycache__", ".hypothesis", "*.pyc", "mutants")
    shutil.copytree(ROOT / "shared", work / "shared", ignore=ignore)
    (work / "tests").mkdir()
    for support in (ROOT / "tests").glob("*.py"):  # __init__, the conftest's helpers (clock, …)
        shutil.copy(support, work / "tests" / support.name)
    shutil.copytree(ROOT / TESTS, work / TESTS, ignore=ignore)
    conftest = ROOT / "tests/conftest.py"
    head = conftest.read_text() if conftest.exists() else ""
    (work / "tests/conftest.py").write_text(head + CONFTEST.format(max_examples=max_examples))
    text = (ROOT / "pyproject.toml").read_text()
    text = re.sub(r"(?ms)^\[tool\.mutmut\].*?(?=^\[|\Z)", "", text)  # ours replaces any other
    multiplier, constant = timeout
    text += (
        "\n[tool.mutmut]\n"
        'source_paths = ["shared"]\n'
        f"only_mutate = {_toml_list(targets)}\n"
        f'pytest_add_cli_args_test_selection = ["{TESTS}"]\n'
        'pytest_add_cli_args = ["-p", "no:cacheprovider"]\n'
        f"timeout_multiplier = {multiplier}\n"
        f"timeout_constant = {constant}\n"
    )
    (work / "pyproject.toml").write_text(text)


def run_mutmut(work: Path, jobs: int) -> None:
    log = work / "mutmut.log"
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(jobs)]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, cwd=work, stdout=out, stderr=subprocess.STDOUT, env=env)
        last = ""
        while proc.poll() is None:
            time.sleep(30)
            progress = re.findall(r"(\d+/\d+)\s", log.read_text(errors="replace")[-4000:])
            if progress and progress[-1] != last:
                last = progress[-1]
                print(f"  … {last} mutants done", flush=True)
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-3000:]
        raise SystemExit(f"mutmut run failed ({proc.returncode}); log {log}:\n{tail}")


def statuses(work: Path) -> dict[str, str]:
    out = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\S+__mutmut_\d+): (.+)$", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def locate(name: str) -> tuple[str, str]:
    """A mutmut name to (file, function): x__taken__mutmut_12 of battle -> battle.py, _taken."""
    module, _, rest = name.partition(".x")
    rest = rest.rsplit("__mutmut_", 1)[0]
    if rest.startswith("ǁ"):  # a method: xǁClassǁmethod
        function = ".".join(part for part in rest.split("ǁ") if part)
    else:  # a function: x_name
        function = rest[1:]
    return module.replace(".", "/") + ".py", function


def _def_line(path: Path, function: str) -> int | None:
    tree = ast.parse(path.read_text())
    *classes, fname = function.split(".")
    scope: list[ast.stmt] = tree.body
    for cls in classes:
        found = [n for n in scope if isinstance(n, ast.ClassDef) and n.name == cls]
        if not found:
            return None
        scope = found[0].body
    for node in scope:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == fname:
            return min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return None


def describe(work: Path, m: Mutant) -> None:
    """Fill line, before and after from `mutmut show` (its hunks count from the def line)."""
    diff = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", m.name],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    source = work / m.path  # the copy that was mutated, not the checkout
    start = _def_line(source, m.function)
    lines = source.read_text().splitlines()
    orig = None
    before, after = [], []
    for line in diff.splitlines():
        if line.startswith("@@"):
            orig = int(re.match(r"@@ -(\d+)", line).group(1))  # type: ignore[union-attr]
        elif orig is None or line.startswith(("---", "+++")):
            continue
        elif line.startswith("-"):
            if m.line is None and start is not None:
                m.line = _match_line(lines, start + orig - 1, line[1:])
            before.append(line[1:].strip())
            orig += 1
        elif line.startswith("+"):
            after.append(line[1:].strip())
        else:
            orig += 1
    m.before, m.after = " / ".join(before), " / ".join(after)


def _match_line(lines: list[str], guess: int, text: str) -> int:
    for delta in (0, -1, 1, -2, 2, -3, 3):
        i = guess + delta
        if 1 <= i <= len(lines) and lines[i - 1].strip() == text.strip():
            return i
    return guess


def select(targets: list[str], only: list[str]) -> list[str]:
    """The targets named by --only: `production`, `production.py` or `rules/production.py`."""
    chosen = []
    for name in only:
        stem = name.removesuffix(".py")
        found = [t for t in targets if t.removesuffix(".py").endswith("/" + stem)]
        if not found:
            raise SystemExit(f"--only {name}: not one of {', '.join(targets)}")
        chosen += [t for t in found if t not in chosen]
    return chosen


def _arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--max-examples", type=int, default=20)
    ap.add_argument("--with-resolve", action="store_true", help="also mutate resolve.py")
    ap.add_argument(
        "--only",
        action="append",
        metavar="MODULE",
        help="mutate only this module (repeatable): production, rules/orders.py, scoring, …",
    )
    ap.add_argument("--workdir", type=Path, help="keep the copy and mutmut's state here")
    ap.add_argument("--json", type=Path, help="write every mutant's result to this file")
    ap.add_argument("--timeout-multiplier", type=float, default=2.0)
    ap.add_argument("--timeout-constant", type=float, default=5.0)
    return ap.parse_args()


def _per_module(mutants: list[Mutant], elapsed: float) -> dict[str, list[int]]:
    """Print killed/total per module and overall; answer the per-module counts."""
    per_module: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for m in mutants:
        per_module[m.path][1] += 1
        per_module[m.path][0] += m.status in KILLED
    print(f"\nelapsed: {elapsed / 60:.1f} min for {len(mutants)} mutants\n")
    print(f"{'module':<36} {'killed':>7} {'total':>6} {'rate':>7}")
    for path, (k, n) in sorted(per_module.items()):
        print(f"{path:<36} {k:>7} {n:>6} {100 * k / n:>6.1f}%")
    killed = sum(m.status in KILLED for m in mutants)
    timeouts = sum(m.status == "timeout" for m in mutants)
    total = len(mutants)
    print(
        f"{'overall':<36} {killed:>7} {total:>6} {100 * killed / max(total, 1):>6.1f}%"
        f"  ({timeouts} of the killed by timeout)"
    )
    return per_module


def main() -> None:
    args = _arguments()

    try:
        metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        raise SystemExit("mutmut is not installed: .venv/bin/pip install 'mutmut>=3.8'") from None
    targets = TARGETS + (["shared/domain/resolve.py"] if args.with_resolve else [])
    if args.only:
        targets = select(targets, args.only)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="seksenbir-mutation-"))
    if args.workdir:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
    print(
        f"config: mutmut {metadata.version('mutmut')}, "
        f"hypothesis {metadata.version('hypothesis')}, "
        f"python {platform.python_version()}, {args.jobs} jobs on {os.cpu_count()} cores; "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
    )
    print(f"mutating: {', '.join(targets)}")
    print(
        f"tests: {TESTS} (pytest -x), Hypothesis derandomised, no database, max_examples "
        f"{args.max_examples or 'as in the suite'}; timeout per mutant "
        f"(estimated + {args.timeout_constant}s) x {args.timeout_multiplier}; workdir {work}"
    )
    t0 = time.perf_counter()
    prepare(work, targets, args.max_examples, (args.timeout_multiplier, args.timeout_constant))
    run_mutmut(work, args.jobs)
    elapsed = time.perf_counter() - t0

    mutants = []
    for name, status in sorted(statuses(work).items()):
        path, function = locate(name)
        mutants.append(Mutant(name, path, function, status))
    unchecked = [m for m in mutants if m.status not in KILLED | SURVIVED]
    survivors = [m for m in mutants if m.status in SURVIVED]
    for m in survivors:
        describe(work, m)

    per_module = _per_module(mutants, elapsed)
    if unchecked:
        listed = ", ".join(f"{m.name}={m.status}" for m in unchecked)
        print(f"\nnot decided ({len(unchecked)}): {listed}")
    print(f"\nsurvivors ({len(survivors)}):")
    for m in sorted(survivors, key=lambda m: (m.path, m.line or 0, m.name)):
        tag = "" if m.status == "survived" else f" [{m.status}]"
        print(f"  {m.path}:{m.line}  {m.function}  `{m.before}` -> `{m.after}`{tag}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "elapsed_s": round(elapsed),
                    "per_module": {
                        p: {"killed": k, "total": n} for p, (k, n) in per_module.items()
                    },
                    "mutants": [asdict(m) for m in mutants],
                },
                indent=1,
                ensure_ascii=False,
            )
        )
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
