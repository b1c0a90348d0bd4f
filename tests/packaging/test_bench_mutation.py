"""Issue 21 ("benchmarks that cannot rot"): `make mutation` runs the domain tests in a copy of
the tree (bench/mutation.py's `prepare`). The copy once held tests/__init__.py alone while
tests/conftest.py imported tests/clock.py and tests/fault_guard.py: every mutmut run failed at
its first pytest, and bench-smoke does not run the mutation bench (it takes ~20 minutes). This
test collects the domain tests in the copy, as mutmut's first run does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import mutation


def test_the_mutation_copy_collects_the_domain_tests(tmp_path: Path) -> None:
    work = tmp_path / "copy"
    work.mkdir()
    mutation.prepare(work, ["shared/domain/rules/kinds.py"], 20, (2.0, 5.0))
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:faker",
            "-p",
            "no:schemathesis",
            "-p",
            "no:cacheprovider",
            "--rootdir=.",
            mutation.TESTS,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "tests/domain/test_order_kinds.py" in run.stdout


def test_only_names_a_module_by_its_stem_file_or_path() -> None:
    """`--only` narrows the run to the modules being sorted (a run of all takes ~20 minutes)."""
    assert mutation.select(mutation.TARGETS, ["production", "scoring.py"]) == [
        "shared/domain/rules/production.py",
        "shared/domain/scoring.py",
    ]
    assert mutation.select(mutation.TARGETS, ["rules/orders.py"]) == [
        "shared/domain/rules/orders.py"
    ]
    with pytest.raises(SystemExit):
        mutation.select(mutation.TARGETS, ["resolve"])  # only with --with-resolve
