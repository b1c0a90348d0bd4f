"""D-27 (docs/rules-decisions.md) states the integer bounds the edge enforces; they are the
ones of `shared/app/http/bounds.py`, the one table (issue 11: record the bound where the rules'
decisions are kept, and keep the two the same)."""

from __future__ import annotations

import re
from pathlib import Path

from shared.app.http.bounds import BOUNDS

ROOT = Path(__file__).resolve().parents[2]


def d27() -> str:
    text = (ROOT / "docs/rules-decisions.md").read_text(encoding="utf-8")
    found = re.search(r"^- D-27 .*?(?=^- D-|^#|\Z)", text, flags=re.S | re.M)
    assert found, "docs/rules-decisions.md has no D-27"
    return " ".join(found[0].split())


def test_d27_states_the_bounds_of_the_edge() -> None:
    text = d27()
    stated = {
        "plate": r"plates (\d+) … (\d+)",
        "seat": r"seats (\d+) … (\d+)",
        "units": r"an order's units (\d+) … (\d+)",
        "divan": r"a trial Divan request (\d+) … (\d+)",
        "read_divan": r"a Divan in a read path (\d+) … (\d+)",
        "message": r"a chat message id (\d+) …\s+(\d+)",
    }
    for name, pattern in stated.items():
        found = re.search(pattern, text)
        assert found, f"D-27 does not state the {name} bound ({pattern})"
        assert (int(found[1]), int(found[2])) == (BOUNDS[name].low, BOUNDS[name].high), name
    assert set(stated) == set(BOUNDS)  # a new bound gets its sentence in D-27
