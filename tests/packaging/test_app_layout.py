"""ADR-114: `shared/app` is split by concern; each module lives in the subpackage of its job.

No module sits at the top of `shared/app` (a new one goes into the subpackage of its concern, or
beside its one user), and each subpackage says in its docstring what belongs there.
"""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "shared" / "app"
SUBPACKAGES = {"access", "answers", "http", "messaging", "ops", "repository"}


def test_no_module_sits_at_the_top_of_shared_app() -> None:
    loose = sorted(p.name for p in APP.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"put each into the subpackage of its concern (ADR-114): {loose}"


def test_each_subpackage_says_what_belongs_there() -> None:
    found = {p.parent.name for p in APP.glob("*/__init__.py")}
    assert found == SUBPACKAGES, "a new subpackage is a decision: record it beside ADR-114"
    for name in sorted(found):
        doc = ast.get_docstring(ast.parse((APP / name / "__init__.py").read_text()))
        assert doc, f"shared/app/{name}/__init__.py says what belongs there"
