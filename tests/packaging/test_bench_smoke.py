"""Benchmarks cannot rot: every bench/ module runs at a small size in CI, or says why not.

`make bench-smoke` (bench/smoke.py) runs each module of bench/ at the size SMOKE gives it and
fails when one exits non-zero; `.ci/run` runs it after `make test`. A new bench module must be
added to SMOKE (or to EXCLUDED with its reason), or this test fails.
"""

from __future__ import annotations

from pathlib import Path

from bench.smoke import EXCLUDED, SMOKE, modules

ROOT = Path(__file__).resolve().parents[2]


def test_every_bench_module_has_a_smoke_size_or_a_reason_not_to() -> None:
    found = set(modules())
    assert "api_orders" in found and "verify" in found
    assert not set(SMOKE) & set(EXCLUDED), "a module both runs and is excluded"
    assert sorted(found - set(SMOKE) - set(EXCLUDED)) == [], "bench modules with no smoke size"
    assert sorted((set(SMOKE) | set(EXCLUDED)) - found) == [], "entries for missing modules"
    assert all(reason.strip() for reason in EXCLUDED.values())
    assert all(SMOKE.values()), "a module with no smoke command line"


def test_ci_runs_the_smoke_target_after_the_suite() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "\nbench-smoke: $(STAMP)" in makefile
    assert "\t$(BIN)/python -m bench.smoke\n" in makefile
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci.index("make bench-smoke") > ci.index("make test")
