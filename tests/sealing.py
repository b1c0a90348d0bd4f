"""The sealed-orders recipe exactly as docs/export.md "Sealed orders" prints it (ADR-57).

`recipe()` runs the page's Python block and answers its functions (`seal_salt`, `canonical`,
`sealed_digest`), so a test that recomputes a digest with them checks the page, not the code.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[1] / "docs" / "export.md"


def recipe() -> dict[str, Any]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("## Sealed orders", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    namespace: dict[str, Any] = {}
    exec(compile(block, f"{PAGE}#sealed-orders", "exec"), namespace)  # the page's own code
    return namespace
